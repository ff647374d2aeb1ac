"""Tolerance presets, translated into each backend's settings (as qpbenchmark does).

``solver`` is the accuracy asked of the backend; ``residual`` is the bound our own
recomputed residuals must meet for a claimed success to stand (otherwise the result is
downgraded to ``inaccurate``). OSQP's 1e-3 defaults are never used.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UnknownValueError


@dataclass(frozen=True)
class Tolerance:
    name: str
    solver: float
    residual: float
    crosscheck: float


PRESETS = {
    "high": Tolerance("high", solver=1e-9, residual=1e-6, crosscheck=1e-6),
    "mid": Tolerance("mid", solver=1e-7, residual=1e-5, crosscheck=1e-5),
    "low": Tolerance("low", solver=1e-5, residual=1e-3, crosscheck=1e-3),
}
DEFAULT = "high"

#: preset tried once more when a backend stalls (iteration limit, numerical trouble) at the first
LOOSER = {"high": "mid", "mid": "low"}


def get_tolerance(preset: str | Tolerance | None) -> Tolerance:
    if isinstance(preset, Tolerance):
        return preset
    name = DEFAULT if preset is None else preset
    if name not in PRESETS:
        raise UnknownValueError("tolerance", f"is {name!r}", f"use one of {', '.join(PRESETS)}")
    return PRESETS[name]
