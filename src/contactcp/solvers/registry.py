"""The method registry behind :func:`contactcp.solve`.

Each solver module registers a function ``f(problem, tol, **options) -> Raw``
for the problem types it handles.  The registry validates options against the
function's signature, times the call, turns backend exceptions into
``NUMERICAL_FAILURE`` and, above all, certifies the answer: the residual in the
returned :class:`~contactcp.result.Result` is computed by the problem, and the
status is ``SOLVED`` only if that residual is within ``tol``.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactcp.errors import ContactCPError, InvalidOptionError, InvalidProblemError, UnknownMethodError
from contactcp.problems import Problem
from contactcp.result import Certificate, Residual, Result, Status

#: the statuses the hot paths test (:func:`certify`, :func:`_solve_chain`), read once: an enum member's
#: lookup costs a call in Python 3.11
_SOLVED, _INACCURATE, _ITERATION_LIMIT = Status.SOLVED, Status.INACCURATE, Status.ITERATION_LIMIT
_NUMERICAL_FAILURE, _NO_SOLUTION = Status.NUMERICAL_FAILURE, Status.NO_SOLUTION

__all__ = [
    "Raw",
    "register",
    "solve",
    "solve_chain",
    "methods",
    "method_info",
    "methods_for",
    "default_chain",
    "set_default_chain",
    "DEFAULT_TOL",
    "integer",
    "real",
    "boolean",
    "choice",
    "vector",
]

from contactcp.settings import DEFAULT_TOL  # noqa: E402  (re-exported)


@dataclass(slots=True)
class Raw:
    """What a solver function hands back before certification."""

    x: np.ndarray | None
    status: Status
    iterations: int = 0
    message: str = ""
    w: np.ndarray | None = None
    certificate: Certificate | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    #: ``problem._certify(x)``'s ``(Residual, u)`` when the method's compiled call already ran the
    #: problem's own certifier on ``x`` (the same compiled function, on the same array: NSGS on a
    #: friction problem), so that :func:`certify` does not evaluate it again
    measured: tuple[Residual, np.ndarray] | None = None


@dataclass(frozen=True)
class MethodSpec:
    name: str
    problem_types: tuple[type, ...]
    func: Callable[..., Raw]
    description: str
    options: tuple[str, ...]
    option_types: dict[str, tuple[str, bool]] = field(default_factory=dict)  # option -> (type, may be None)
    checks: dict[str, Opt] = field(default_factory=dict)  # option -> declared check
    applies_to: Callable[[Problem], str] | None = None  # "" or why it does not apply

    def applies(self, problem: Problem) -> bool:
        return isinstance(problem, self.problem_types) and not self.why_not(problem)

    def why_not(self, problem: Problem) -> str:
        """Why the method does not apply to this instance ("" when it does)."""
        return self.applies_to(problem) if self.applies_to is not None else ""

    def validate(self, options: dict[str, Any], problem: Problem) -> dict[str, Any]:
        """Every option checked (declared checks, else its annotation) and converted."""
        self.check_types({k: v for k, v in options.items() if k not in self.checks})
        return {k: (self.checks[k].check(k, v, problem) if k in self.checks else v) for k, v in options.items()}

    def check_types(self, options: dict[str, Any]) -> None:
        """Options annotated bool, int, float or str (optionally "| None") must have that type (ints are
        accepted for floats): a string where a number belongs fails here, naming the option, and
        not deep inside a solver.  Ranges are each method's own business."""
        for key, value in options.items():
            kind, nullable = self.option_types.get(key, (None, True))
            if kind is None or (value is None and nullable):
                continue
            number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
                value, (bool, np.bool_)
            )
            ok = {
                "bool": isinstance(value, (bool, np.bool_)),
                "int": number and isinstance(value, (int, np.integer)),
                "float": number and not math.isnan(value),
                "str": isinstance(value, str),
            }[kind]
            if not ok:
                what = {"bool": "true or false", "int": "an integer", "float": "a number", "str": "a string"}[kind]
                raise InvalidOptionError(key, f"must be {what} for method {self.name!r}, got {value!r}")


class Opt:
    """How an option is checked (and converted) before a method runs: :func:`integer`, :func:`real`,
    :func:`boolean`, :func:`choice`, :func:`vector`.  ``none`` allows None."""

    __slots__ = ("kind", "lo", "hi", "lo_open", "hi_open", "none", "values", "size", "positive")

    def __init__(
        self,
        kind: str,
        *,
        lo=None,
        hi=None,
        lo_open=False,
        hi_open=False,
        none=False,
        values=(),
        size="n",
        positive=False,
    ):
        self.kind, self.lo, self.hi, self.lo_open, self.hi_open = kind, lo, hi, lo_open, hi_open
        self.none, self.values, self.size, self.positive = none, tuple(values), size, positive

    def describe(self) -> str:
        if self.kind == "choice":
            what = "one of " + ", ".join(repr(v) for v in self.values)
        elif self.kind == "bool":
            what = "True or False"
        elif self.kind == "vector":
            what = {
                "n": "a finite vector of the problem's size",
                "n_c": "a finite vector of length n_c",
                "scalar_or_n_c": "a finite number or a vector of length n_c",
                "reactions": "a finite vector of the reactions' length (dim n_c)",
            }[self.size]
            if self.positive:
                what = what.replace("finite", "positive finite")
        else:
            what = "an integer" if self.kind == "int" else "a finite number"
            if self.lo is not None and self.hi is not None:
                what += f" in {'(' if self.lo_open else '['}{self.lo:g}, {self.hi:g}{')' if self.hi_open else ']'}"
            elif self.lo is not None:
                what += f" {'>' if self.lo_open else '>='} {self.lo:g}"
            elif self.hi is not None:
                what += f" {'<' if self.hi_open else '<='} {self.hi:g}"
        return what + (" (or None)" if self.none else "")

    def check(self, name: str, value: Any, problem: Problem) -> Any:
        """The value to pass on (vectors as float arrays), or :class:`InvalidOptionError`."""
        if value is None:
            if self.none:
                return None
            raise InvalidOptionError(name, f"must be {self.describe()}, got None")
        if self.kind == "vector":  # its message names the wanted length
            return self._vector(name, value, problem)
        if self.kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise self._bad(name, value)
            return bool(value)
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.values:
                raise self._bad(name, value)
            return value
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, (int, float, np.integer, np.floating))
            or (self.kind == "int" and not isinstance(value, (int, np.integer)))
            or not math.isfinite(value)
            or (self.lo is not None and (value < self.lo or (self.lo_open and value == self.lo)))
            or (self.hi is not None and (value > self.hi or (self.hi_open and value == self.hi)))
        ):
            raise self._bad(name, value)
        return int(value) if self.kind == "int" else float(value)

    def _bad(self, name: str, value: Any) -> InvalidOptionError:
        return InvalidOptionError(name, f"must be {self.describe()}, got {_short(value)}")

    def _vector(self, name: str, value: Any, problem: Problem) -> np.ndarray:
        arr = np.asarray(value) if not isinstance(value, (str, bytes)) else None
        if arr is None or arr.dtype.kind not in "iuf" or arr.dtype == np.bool_:
            raise InvalidOptionError(name, f"must be {self.describe()}, got {_short(value)}")
        arr = np.array(arr, dtype=np.float64)
        if self.size == "scalar_or_n_c" and arr.ndim == 0:
            arr = np.full(getattr(problem, "n_c", 1), float(arr))
        if self.size == "n":
            want = problem.size
        elif self.size == "reactions":
            want = getattr(problem, "n_c", problem.size) * getattr(problem, "dim", 1)
        else:
            want = getattr(problem, "n_c", problem.size)
        arr = arr.reshape(-1) if arr.ndim == 2 and 1 in arr.shape else arr
        if arr.shape != (want,) or not np.all(np.isfinite(arr)) or (self.positive and not np.all(arr > 0)):
            raise InvalidOptionError(name, f"must be {self.describe()} ({want}), got {_short(value)}")
        return arr


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def integer(lo: int | None = None, hi: int | None = None, *, none: bool = False) -> Opt:
    return Opt("int", lo=lo, hi=hi, none=none)


def real(
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    none: bool = False,
) -> Opt:
    return Opt("float", lo=lo, hi=hi, lo_open=lo_open, hi_open=hi_open, none=none)


def boolean() -> Opt:
    return Opt("bool")


def choice(*values: str) -> Opt:
    return Opt("choice", values=values)


def vector(size: str = "n", *, positive: bool = False, none: bool = True) -> Opt:
    return Opt("vector", size=size, positive=positive, none=none)


_REGISTRY: dict[str, list[MethodSpec]] = {}
_DEFAULTS: dict[type, str] = {}


def register(
    name: str,
    *problem_types: type,
    description: str = "",
    default: bool = False,
    options: dict[str, Opt] | None = None,
    applies: Callable[[Problem], str] | None = None,
):
    """Decorator: register ``func(problem, tol, **options) -> Raw`` as method ``name``.

    ``options`` declares how options are checked (:func:`integer`, :func:`real`, :func:`boolean`,
    :func:`choice`, :func:`vector`); undeclared ones are type-checked from their annotations.
    ``applies(problem)`` returns why the method cannot run on an instance ("" when it can):
    :func:`methods` lists a method only where it applies."""

    def deco(func: Callable[..., Raw]) -> Callable[..., Raw]:
        params = inspect.signature(func).parameters
        opts = tuple(p for p in params if p not in ("problem", "tol"))
        doc = description or (func.__doc__ or "").strip().splitlines()[0]
        # the type each option must have, from its annotation (only the simple ones; ``Any`` and
        # unions of other types are left to the method)
        types: dict[str, tuple[str, bool]] = {}
        for p in opts:
            ann = str(params[p].annotation).replace(" ", "")
            base = ann.removesuffix("|None")
            if base in ("bool", "int", "float", "str"):
                types[p] = (base, base != ann)
        unknown = set(options or {}) - set(opts)
        if unknown:
            raise TypeError(f"method {name!r}: checks declared for unknown options {sorted(unknown)}")
        spec = MethodSpec(name, tuple(problem_types), func, doc, opts, types, dict(options or {}), applies)
        _REGISTRY.setdefault(name, []).append(spec)
        _SPEC_CACHE.clear()
        if default:
            for t in problem_types:
                _DEFAULTS[t] = name
        return func

    return deco


_LOADED = False


def _ensure_loaded() -> None:
    global _LOADED
    if not _LOADED:
        from contactcp.solvers import catalog  # noqa: F401  (importing registers the methods)

        _LOADED = True


def methods(problem: Problem | None = None) -> list[str]:
    """Names of the methods that apply to ``problem`` (all registered names if None)."""
    _ensure_loaded()
    if problem is None:
        return sorted(_REGISTRY)
    return sorted(n for n, specs in _REGISTRY.items() if any(s.applies(problem) for s in specs))


def methods_for(problem_type: type) -> list[str]:
    """Names of the methods registered for a problem type (whatever the instance)."""
    _ensure_loaded()
    return sorted(n for n, specs in _REGISTRY.items() if any(issubclass(problem_type, s.problem_types) for s in specs))


def method_info(name: str) -> list[MethodSpec]:
    """The registered specs of a method name (one per group of problem types)."""
    _ensure_loaded()
    return list(_REGISTRY.get(name, []))


#: the default chain of each problem type: (method, options) tried in order while the answer is
#: inconclusive (see :func:`solve`); set with :func:`set_default_chain`
_CHAINS: dict[type, tuple[tuple[str, dict[str, Any]], ...]] = {}
_FINISHERS: dict[type, Callable[[Problem, np.ndarray], np.ndarray | None]] = {}
_WARM: dict[type, Callable[[Problem, np.ndarray], dict[str, Any]]] = {}
#: each type's ``first`` (:func:`set_default_chain`) and the name that runs it when named (None: the
#: first step has options, so a named call runs the registry's way)
_FIRST: dict[type, tuple[str | None, Callable[[Problem, float], Result | None]]] = {}


def set_default_chain(
    problem_type: type,
    *steps: str | tuple[str, dict[str, Any]],
    finish: Callable[[Problem, np.ndarray], np.ndarray | None] | None = None,
    warm: Callable[[Problem, np.ndarray], dict[str, Any]] | None = None,
    first: Callable[[Problem, float], Result | None] | None = None,
) -> None:
    """Declare the default chain of a problem type: the methods :func:`solve` tries, in order, when no
    method is named (each step a name, or ``(name, options)``).  ``finish(problem, x)`` may propose
    a better point from an inconclusive attempt's ``x`` (e.g. an active-set polish); the proposal
    is certified like any answer.  ``warm(problem, x)`` gives the options that start a step from
    the best point of the attempts before it (passed only to methods that accept them and whose
    step does not set them).  ``first(problem, tol)``, when given, runs the chain's first step with
    its options for :func:`solve`, as :func:`_run` would (the same certified :class:`Result`), but
    without the per-call option handling: for the many small problems of a time-stepping loop; it
    returns None where it does not apply, and the step then runs as the others do.  A first step
    without options is run by ``first`` also when named: ``solve(problem, name)``."""
    chain = _CHAINS[problem_type] = tuple((s, {}) if isinstance(s, str) else (s[0], dict(s[1])) for s in steps)
    _CHAIN_OF.clear()
    _FIRST.pop(problem_type, None)
    if first is not None:
        _FIRST[problem_type] = (chain[0][0] if chain and not chain[0][1] else None, first)
    if finish is not None:
        _FINISHERS[problem_type] = finish
    if warm is not None:
        _WARM[problem_type] = warm


def default_chain(problem: Problem) -> list[tuple[str, dict[str, Any]]]:
    """The steps of ``problem``'s default chain that apply to it (a one-step chain of the
    default method for a type without one)."""
    _ensure_loaded()
    for t in type(problem).__mro__:
        if t in _CHAINS:
            steps = [
                (name, opts) for name, opts in _CHAINS[t] if any(sp.applies(problem) for sp in _REGISTRY.get(name, []))
            ]
            if steps:
                return steps
    return [(default_method(problem), {})]


def default_method(problem: Problem) -> str:
    _ensure_loaded()
    for t in type(problem).__mro__:
        if t in _DEFAULTS:
            return _DEFAULTS[t]
    avail = methods(problem)
    if not avail:
        raise UnknownMethodError("(default)", problem.kind, [], "no method is registered")
    return avail[0]


_SPEC_CACHE: dict[tuple[type, str | None], MethodSpec] = {}


def _lookup(problem: Problem, method: str | None) -> MethodSpec:
    key = (type(problem), method)
    spec = _SPEC_CACHE.get(key)
    if spec is None:
        spec = _SPEC_CACHE[key] = _find(problem, default_method(problem) if method is None else method)
    return spec


def _find(problem: Problem, method: str) -> MethodSpec:
    if not isinstance(method, str):
        raise UnknownMethodError(repr(method), problem.kind, methods(problem), "method must be a string")
    specs = _REGISTRY.get(method.lower(), [])
    for spec in specs:
        if isinstance(problem, spec.problem_types):
            return spec
    why = "does not apply" if specs else "unknown method"
    raise UnknownMethodError(method, problem.kind, methods(problem), why)


def solve(problem: Problem, method: str | None = None, tol: float = DEFAULT_TOL, **options: Any) -> Result:
    """Solve a complementarity problem and certify the answer.

    Parameters
    ----------
    problem : LCP, MixedLCP, BoxLCP, UCP, MixedNCP or FrictionContactProblem
    method : name of a registered method (``contactcp.methods(problem)`` lists them); None runs
        the problem type's default chain (:func:`default_chain`; e.g. Lemke, then the
        interior-point and merit methods and support enumeration for an LCP; Newton, then NSGS
        for the friction cone): each method runs while the answers are inconclusive, and the
        result is the first certified one (``SOLVED``, or ``NO_SOLUTION`` with a verified
        proof), else the attempt with the smallest residual.  ``stats["chain"]`` lists every
        attempt.  With ``options`` and no method, only the chain's first method runs, with them.
    tol : the tolerance on the problem's own scaled residual for ``SOLVED``.
    **options : passed to the method; unknown names raise :class:`InvalidOptionError`.
    """
    if not _LOADED:
        _ensure_loaded()
    if not isinstance(problem, Problem):
        raise InvalidProblemError(
            "problem", f"must be a contactcp problem (LCP, UCP, ...), got {type(problem).__name__}"
        )
    if type(tol) is not float or not 0.0 < tol < math.inf:
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) or tol <= 0:
            raise InvalidOptionError("tol", f"must be a positive finite number, got {tol!r}")
        tol = float(tol)
    if not options:
        kind = type(problem)
        if method is None:
            entry = _CHAIN_OF.get(kind) or _chain_entry(kind)
            if len(entry[0]) > 1:
                # the steps are filtered lazily (``_solve_chain``): a problem the first step solves pays
                # for no test of the others
                first = _FIRST.get(kind)
                return _solve_chain(problem, entry[0], tol, None if first is None else first[1])
        elif type(method) is str:
            first = _FIRST.get(kind)
            # a method naming the chain's first step, which has no options: its ``first`` runs it
            if first is not None and (method == first[0] or (first[0] is not None and method.lower() == first[0])):
                res = first[1](problem, tol)  # the same Result as _run's, or None
                if res is not None:
                    return res
    return _run(problem, _lookup(problem, method), tol, options)


def solve_chain(problem: Problem, chain: Sequence[tuple[str, dict[str, Any]]], tol: float = DEFAULT_TOL) -> Result:
    """:func:`solve` with the problem type's default chain replaced by ``chain``, ``(method,
    options)`` pairs run in the same way (the type's warm starts between steps and its finishing
    polish apply; steps whose method does not apply are skipped)."""
    if not _LOADED:
        _ensure_loaded()
    return _solve_chain(problem, tuple((name, dict(opts)) for name, opts in chain), tol)


def _run(problem: Problem, spec: MethodSpec, tol: float, options: dict[str, Any]) -> Result:
    """Run one method with its options checked, and certify its answer."""
    if options:
        for key in options:
            if key not in spec.options:
                raise InvalidOptionError(
                    key, f"not accepted by method {spec.name!r}; accepted: {', '.join(spec.options) or 'none'}"
                )
        options = _validated(spec, options, problem)
    t0 = time.perf_counter()
    try:
        # a method's overflow on extreme data is its own business: it reports an honest status, and
        # every point it returns is measured by the problem's residual; no RuntimeWarning for the user
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            raw = spec.func(problem, tol, **options)
    except ContactCPError:
        raise
    except (ArithmeticError, np.linalg.LinAlgError, ValueError, RuntimeError) as exc:
        raw = Raw(None, Status.NUMERICAL_FAILURE, message=f"{type(exc).__name__}: {exc}")
    return certify(problem, raw, tol, spec.name, time.perf_counter() - t0)


#: options checked once per (method, scalar options): the checks of scalars do not read the problem
_VALIDATED: dict[tuple, dict[str, Any]] = {}
_SCALARS = (bool, int, float, str, type(None))
_VALIDATED_MAX = 256


def _validated(spec: MethodSpec, options: dict[str, Any], problem: Problem) -> dict[str, Any]:
    """``spec.validate(options, problem)``, cached when every option is a plain scalar that is not a
    vector option (a scalar ``rho`` becomes a vector of the problem's ``n_c``): a chain step's options,
    checked at every call of the chain otherwise."""
    if not all(type(v) in _SCALARS and getattr(spec.checks.get(k), "kind", "") != "vector" for k, v in options.items()):
        return spec.validate(options, problem)
    key = (id(spec), tuple((k, type(v), v) for k, v in options.items()))
    done = _VALIDATED.get(key)
    if done is None:
        if len(_VALIDATED) >= _VALIDATED_MAX:  # a loop over option values does not grow it without bound
            _VALIDATED.clear()
        done = _VALIDATED[key] = spec.validate(options, problem)
    return dict(done)


_CHAIN_OF: dict[type, tuple[tuple[tuple[str, dict[str, Any]], ...], Callable | None, Callable | None]] = {}


def _chain_entry(problem_type: type) -> tuple[tuple[tuple[str, dict[str, Any]], ...], Callable | None, Callable | None]:
    """``(steps, finish, warm)`` declared for a problem type (steps unfiltered; cached per type)."""
    entry = _CHAIN_OF.get(problem_type)
    if entry is None:
        mro = problem_type.__mro__
        entry = (
            next((_CHAINS[t] for t in mro if t in _CHAINS), ()),
            next((_FINISHERS[t] for t in mro if t in _FINISHERS), None),
            next((_WARM[t] for t in mro if t in _WARM), None),
        )
        _CHAIN_OF[problem_type] = entry
    return entry


def _chain_of(problem_type: type) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The declared chain of a problem type (unfiltered)."""
    return _chain_entry(problem_type)[0]


def _step_spec(problem: Problem, name: str) -> MethodSpec | None:
    """The spec a chain step runs on this problem, None when the method does not apply to it."""
    return next((sp for sp in _REGISTRY.get(name, []) if sp.applies(problem)), None)


def _solve_chain(
    problem: Problem,
    chain: Sequence[tuple[str, dict[str, Any]]],
    tol: float,
    first: Callable[[Problem, float], Result | None] | None = None,
) -> Result:
    """Run the chain's methods while the answers are inconclusive; the first certified answer, else
    the attempt with the smallest residual.  Steps whose method does not apply to the problem are
    skipped (:func:`default_chain` lists the others).  ``first``: the declared chain's first step
    (:func:`set_default_chain`)."""
    t0 = time.perf_counter()
    tried: list[Result] = []
    head = first(problem, tol) if first is not None else None
    if head is not None and head.status is _SOLVED:  # most small problems: no loop, one record
        head.stats["chain"] = [_record(head)]
        head.time = time.perf_counter() - t0
        return head
    _, finish, warm = _chain_entry(type(problem))
    for step, (name, opts) in enumerate(chain):
        res = head if step == 0 else None
        if res is None:
            spec = _step_spec(problem, name)
            if spec is None:
                continue
            start = _best(tried) if warm is not None else None
            if (
                start is not None
                and start.x is not None
                and start.residual is not None
                and start.residual.value < math.inf
            ):
                opts = {**{k: v for k, v in warm(problem, start.x).items() if k in spec.options}, **opts}
            res = _run(problem, spec, tol, opts)
        if finish is not None and res.x is not None and res.status is not Status.SOLVED:
            t1 = time.perf_counter()
            try:
                x = finish(problem, res.x)
            except (ArithmeticError, np.linalg.LinAlgError, ValueError, RuntimeError):
                x = None
            if x is not None:
                done = certify(
                    problem,
                    Raw(x, Status.INACCURATE, res.iterations, f"{res.message} (then an active-set polish)"),
                    tol,
                    f"{res.method}+polish",
                    res.time + time.perf_counter() - t1,
                )
                if done.status is Status.SOLVED:
                    res = done
        tried.append(res)
        if res.status is Status.SOLVED or (
            res.status is Status.NO_SOLUTION and res.certificate is not None and res.certificate.verified
        ):
            break
    else:
        res = _best(tried)
        if res is None:  # no step applies: the type's default method
            return _run(problem, _lookup(problem, None), tol, {})
    res.stats["chain"] = [_record(r) for r in tried]
    if len(tried) > 1:
        res.message = f"{res.message} [default chain: " + "; ".join(f"{r.method} {r.status.name}" for r in tried) + "]"
    res.time = time.perf_counter() - t0
    return res


def _record(r: Result) -> dict[str, Any]:
    """A chain step's entry in ``stats["chain"]``."""
    return {
        "method": r.method,
        "status": r.status._name_,  # the enum's stored name (``.name`` is a property: a call per read)
        "residual": None if r.residual is None else float(r.residual.value),
        "time": r.time,
        "message": r.message,
    }


def _best(tried: list[Result]) -> Result | None:
    """The attempt with the smallest finite residual (the first attempt if none has one; None if none)."""
    if not tried:
        return None
    return min(
        tried,
        key=lambda r: (
            r.residual is None or not math.isfinite(r.residual.value),
            math.inf if r.residual is None else r.residual.value,
        ),
    )


def certify(problem: Problem, raw: Raw, tol: float, method: str, elapsed: float) -> Result:
    """Turn a solver's :class:`Raw` output into a certified :class:`Result`."""
    residual = None
    w = raw.w
    status = raw.status
    message = raw.message
    x = raw.x
    if x is not None:
        residual, w = problem._certify(x, w) if raw.measured is None else raw.measured
        refine = getattr(problem, "_refine", None)
        if refine is not None and residual.value > tol:
            residual = refine(x, residual, tol)
        if not math.isfinite(residual.value):
            status = _NUMERICAL_FAILURE
            message = (message + "; " if message else "") + "the answer contains non-finite values"
        elif status is _SOLVED:
            if not residual.value <= tol:
                status = _INACCURATE
                message = f"solver stopped but the independent residual {residual.value:.3e} exceeds tol {tol:.1e}" + (
                    f" ({message})" if message else ""
                )
        elif status in (_INACCURATE, _ITERATION_LIMIT) and residual.value <= tol:
            message = (
                f"{status.name.lower()} per the solver, but the independent residual "
                f"{residual.value:.3e} is within tol" + (f" ({message})" if message else "")
            )
            status = _SOLVED
    elif status is _SOLVED:
        status = _NUMERICAL_FAILURE
        message = "solver reported success without a point"
    cert = raw.certificate
    if status is _NO_SOLUTION and cert is not None and not cert.verified:
        status = _INACCURATE
        message = "infeasibility certificate failed its check: " + message
    return Result(x, status, residual, method, tol, int(raw.iterations), elapsed, message, w, cert, raw.stats)
