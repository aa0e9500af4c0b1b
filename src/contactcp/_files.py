"""Files, read and written safely: atomic writes, and readers that refuse bad files.

Every writer of the package goes through :func:`atomic_write`: the data go to a temporary file in
the target's folder, which replaces the target (``os.replace``) only once it is complete, so a
failed or interrupted write leaves an existing file as it was and no partial file behind.  The
readers (:func:`read_json`, :func:`read_npz`) refuse a bad file with
:class:`~contactcp.errors.InvalidProblemError` naming the file (or the field inside it): a missing,
unreadable, truncated or binary file, a ``.npy`` named ``.npz``, arrays stored as Python objects
(pickles), JSON nested too deeply or holding integers beyond a float, and arrays whose stated size
would not fit in memory (checked from the headers, before anything is allocated).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from contactcp._validate import check_memory
from contactcp.errors import InvalidProblemError

__all__ = ["atomic_write", "atomic_hdf5", "read_json", "read_npz", "check_file", "read_json_object"]

#: Python objects per byte of JSON text, roughly (lists of floats): bounds the memory json.loads needs
_JSON_BYTES_FACTOR = 40
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"


def atomic_hdf5(path: str | os.PathLike, fill) -> None:
    """Write an HDF5 file all at once (:func:`atomic_write`): ``fill(h5)`` gets the open file.  The
    file stays readable by HDF5 1.10 (which the fclib packages link against) where h5py allows."""
    import h5py

    with atomic_write(path) as tmp:
        try:
            h5 = h5py.File(tmp, "w", libver=("earliest", "v110"))
        except (ValueError, TypeError):
            h5 = h5py.File(tmp, "w")
        with h5:
            fill(h5)


def umask() -> int:
    """The process's file-creation mask (without changing it)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike) -> Iterator[Path]:
    """Write ``path`` all at once: ``with atomic_write(p) as tmp: write(tmp)``.

    ``tmp`` is a new empty file in ``path``'s folder whose name ends with the
    same suffix (``.npz``, ``.png``, ... so writers that go by the suffix
    work); when the block ends normally it is flushed to disk, given the
    permissions of the file it replaces (or the usual ones for a new file)
    and renamed over ``path``.  If the block raises (or is interrupted) the
    temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=f".tmp{path.suffix}")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        try:
            mode = path.stat().st_mode & 0o777 if path.is_file() else 0o666 & ~umask()
        except OSError:
            mode = 0o666 & ~umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def read_npz(path: Path, field: str, wanted: tuple[str, ...]) -> dict[str, Any]:
    """The arrays ``wanted`` (those present) of a ``.npz``; sizes checked from the headers first."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(_NPY_MAGIC):
        raise InvalidProblemError(
            field,
            "is a .npy file (one array), not a .npz archive of named arrays; "
            "write it with numpy.savez(path, M=..., q=...)",
        )
    if not head.startswith(_ZIP_MAGIC) and head != b"PK\x05\x06":
        raise InvalidProblemError(field, "is not a .npz archive (no zip header)")
    found: dict[str, Any] = {}
    with zipfile.ZipFile(path) as zf:
        members = {
            info.filename[:-4] if info.filename.endswith(".npy") else info.filename: info for info in zf.infolist()
        }
        for key in wanted:
            info = members.get(key)
            if info is None:
                continue
            with zf.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
                else:
                    raise InvalidProblemError(
                        key, f"array {key!r} in {path} uses .npy format {version}, which is not supported"
                    )
            if dtype.hasobject:
                raise InvalidProblemError(
                    key, f"array {key!r} in {path} holds Python objects (a pickle), which are not read"
                )
            nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if nbytes > info.file_size:
                raise InvalidProblemError(
                    key,
                    f"array {key!r} in {path} is truncated: its header says "
                    f"{nbytes} bytes, the archive holds {info.file_size}",
                )
            check_memory(nbytes, key, f"array {key!r} in {path}", "refused")
            with zf.open(info) as fh:
                found[key] = np.lib.format.read_array(fh, allow_pickle=False)
    return found


def read_json_object(path: Path, field: str) -> dict[str, Any]:
    check_memory(_JSON_BYTES_FACTOR * path.stat().st_size, field, "reading this JSON file", "refused")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidProblemError(
            field, f"is not UTF-8 text (a binary file?): byte {exc.start} is 0x{raw[exc.start]:02x}"
        ) from None
    try:
        found = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidProblemError(
            field, f"cannot be read: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InvalidProblemError(field, "is nested too deeply to be read") from None
    except ValueError as exc:  # e.g. an integer literal of more than 4300 digits
        raise InvalidProblemError(field, f"cannot be read as JSON ({exc})") from None
    if not isinstance(found, dict):
        raise InvalidProblemError(
            field, f'must hold a JSON object {{"M": ..., ...}}, got a JSON {type(found).__name__}'
        )
    return found


def read_json(path: str | Path, field: str | None = None) -> Any:
    """A JSON object from a file, or InvalidProblemError naming the file (for scene and problem files)."""
    path = Path(path)
    field = str(path) if field is None else field
    check_file(path, field)
    try:
        return read_json_object(path, field)
    except OSError as exc:
        raise InvalidProblemError(field, f"cannot be read ({exc.strerror or exc})") from None


def check_file(path: Path, field: str) -> None:
    if not path.exists():
        raise InvalidProblemError(field, "no such file")
    if path.is_dir():
        raise InvalidProblemError(field, "is a directory, not a file")
