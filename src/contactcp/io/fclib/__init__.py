"""Reading and writing FCLIB files (the frictional-contact problem library).

FCLIB (Acary, Brémond, Koziara, Pérignon; https://frictionalcontactlibrary.github.io)
stores frictional contact problems in HDF5.  This module reads and writes the
layout of the reference C library ``fclib`` (``fclib.h``, version 3.x; checked
against the Debian package ``libfclib0`` 3.1.0, which reads and writes exactly
this).  Everything is a *dataset* (never an HDF5 attribute, except the optional
integer attributes that ``fclib_create_int_attributes_in_info`` hangs on the
``info`` group); integers are 32-bit native ``int`` and reals ``float64``, both
stored as 1-D datasets, scalars as 1-D datasets of length 1::

    /fclib_local                     local problem  u = W r + V l + q, V^T r + R l + s = 0
        spacedim        int[1]       2 or 3 (size of one contact block)
        W/  V/  R/      matrices     W square, m x m with m = spacedim * n_c; V m x p, R p x p
        vectors/q       double[m]
        vectors/mu      double[n_c]
        vectors/s       double[p]    only with V and R
        info/           optional: title, description, math_info (strings)
    /fclib_global                    global problem  M v = H r + G l + f, G^T v + b = 0, u = H^T v + w
        spacedim        int[1]
        M/  H/  G/      matrices     M n x n, H n x m (m = spacedim * n_c), G n x p (optional)
        vectors/f       double[n]
        vectors/w       double[m]
        vectors/mu      double[n_c]
        vectors/b       double[p]    only with G
        info/           as above
    /solution                        at most one solution
        v double[n] (global only), u double[m], r double[m], l double[p] (only with R or G)
    /guesses
        number_of_guesses  int[1]
        1/, 2/, ...        each like /solution

A matrix group holds CSparse's fields as datasets: ``nzmax``, ``m`` (rows),
``n`` (columns), ``nz`` (all ``int[1]``) and ``p``, ``i`` (``int``), ``x``
(``double``).  ``nz = -1`` is compressed column (``p`` the ``n + 1`` column
pointers, ``i`` the row indices and ``x`` the values, ``nzmax`` of each);
``nz >= 0`` is a triplet (coordinate) matrix with ``nz`` entries, where, as in
CSparse and Siconos (the main producer of FCLIB files), ``i`` holds the row
indices and ``p`` the column indices (the comment in ``fclib.h`` has them the
other way round, but the library never interprets them); ``nz = -2`` is
compressed row (read only).  Optional matrix information: ``comment``
(string), ``conditioning``, ``determinant`` (``double[1]``) and ``rank``
(``int[1]``); the reference reader reads all three numbers as soon as
``conditioning`` exists.  Strings are scalar, fixed-length, nul-terminated
HDF5 strings (what ``H5LTmake_dataset_string`` writes).

The sizes of the solution vectors come from the problem: ``v`` has ``M.n``
entries, ``u`` and ``r`` have ``W.n`` (``H.n``) and ``l`` has ``R.n``
(``G.n``); the reference reader requires ``u`` and ``r``.

Sources: the reference implementation ``fclib.h``/``fclib.c`` (github.com/
FrictionalContactLibrary/fclib) and files written by ``libfclib0`` 3.1.0
through ctypes, inspected with h5py.

Reading checks the shapes (``W`` square of size ``spacedim * n_c``, ``q``,
``mu`` of length ``n_c``, ...), that every number is finite and that ``mu >= 0``,
raising :class:`~contactcp.errors.InvalidProblemError` naming the field;
a file that is missing or not HDF5 gives the field ``"file"``.  Writing checks
the same things first, then writes a temporary file in the target directory
and renames it over the target (``os.replace``), so a file is never left
half-written; the target is replaced as a whole (the C library would instead
add groups to an existing file).
"""

from contactcp.io.fclib.model import FclibFile, FclibGlobal, FclibLocal, FclibSolution
from contactcp.io.fclib.read import read_fclib, read_global, read_local
from contactcp.io.fclib.write import write_global, write_local

__all__ = [
    "FclibLocal",
    "FclibGlobal",
    "FclibSolution",
    "FclibFile",
    "read_fclib",
    "read_local",
    "read_global",
    "write_local",
    "write_global",
]
