"""The result protocol of the simulate stage: one status rule, one dictionary, one summary.

A pipeline result pairs the certified complementarity :class:`~contactcp.result.Result` with the
mechanics read from it and an independent check of the original conditions.  The rule for its
``status``: the solver's certified status, downgraded to ``INACCURATE`` when the independent check
of the model's own conditions exceeds ``check_tol`` (so ``SOLVED`` means both the problem's
residual and the mechanics check passed).  Every result has ``success``, ``method``,
``residual``, :meth:`~PipelineResult.to_dict` (JSON-ready), :meth:`~PipelineResult.summary` (a
few lines for a terminal), a one-line ``repr`` and an HTML table for notebooks
(``_repr_html_``).
"""

from __future__ import annotations

import html
from typing import Any

from contactcp.result import Result, Status

__all__ = ["PipelineResult"]


class PipelineResult:
    """Base class: subclasses provide ``result``, ``check_tol`` and the hooks below."""

    result: Result
    check_tol: float

    # -- hooks ------------------------------------------------------------------------------------
    def _checks_pass(self) -> bool:
        """True when every independent check of the answer is within ``check_tol``."""
        raise NotImplementedError

    def _facts(self) -> dict[str, Any]:
        """A few headline numbers (for ``repr``, the summary and the HTML table)."""
        return {}

    def _details(self) -> list[str]:
        """The summary's lines after the headline."""
        return []

    def _extra_dict(self) -> dict[str, Any]:
        """The ``to_dict`` entries beyond the common ones."""
        return {}

    # -- the protocol -----------------------------------------------------------------------------
    @property
    def status(self) -> Status:
        st = self.result.status
        if st is Status.SOLVED and not self._checks_pass():
            return Status.INACCURATE
        return st

    @property
    def success(self) -> bool:
        return self.status is Status.SOLVED

    @property
    def method(self) -> str:
        return self.result.method

    @property
    def residual(self) -> float | None:
        r = self.result.residual
        return None if r is None else float(r.value)

    @property
    def message(self) -> str:
        return self.result.message

    def to_dict(self) -> dict[str, Any]:
        r = self.result
        out = {
            "status": self.status.name,
            "success": self.success,
            "method": self.method,
            "residual": self.residual,
            "iterations": r.iterations,
            "time": r.time,
            "message": r.message,
        }
        out.update(self._extra_dict())
        return out

    def summary(self) -> str:
        facts = ", ".join(f"{k} {_fmt(v)}" for k, v in self._facts().items())
        head = f"{type(self).__name__}: {self.status.name} by {self.method}" + (f" ({facts})" if facts else "")
        return "\n".join([head, f"  {self.message}"] + self._details())

    def __repr__(self) -> str:
        facts = "".join(f", {k}={_fmt(v)}" for k, v in self._facts().items())
        return f"{type(self).__name__}(status={self.status.name}, method={self.method!r}{facts})"

    def _repr_html_(self) -> str:
        rows = [("status", self.status.name), ("method", self.method), ("message", self.message)]
        rows += [(k, _fmt(v)) for k, v in self._facts().items()]
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
            f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
            for k, v in rows
        )
        return f"<table><caption>{type(self).__name__}</caption>{body}</table>"


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)
