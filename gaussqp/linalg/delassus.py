"""Moved: the Delassus matrices and the bilateral elimination of a contact problem are mechanics, not linear
algebra; they live in :mod:`gaussqp.mechanics.delassus`. This module keeps the old import path
(``from gaussqp.linalg.delassus import constrained_delassus``) working, with a :class:`DeprecationWarning`."""

from __future__ import annotations

#: the names of :mod:`gaussqp.mechanics.delassus` still answered here
MOVED = (
    "BilateralElimination",
    "ConstrainedDelassus",
    "bilateral_compatible",
    "constrained_delassus",
    "delassus",
    "eliminate_bilateral",
    "kinetic_angles",
)


def __getattr__(name: str):
    """A name that moved to :mod:`gaussqp.mechanics.delassus`, with a :class:`DeprecationWarning` (imported on first
    use: linalg imports nothing of the mechanics or the model at load time)."""
    if name in MOVED:
        import warnings

        from ..mechanics import delassus

        warnings.warn(
            f"gaussqp.linalg.delassus.{name} moved to gaussqp.mechanics.delassus.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(delassus, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
