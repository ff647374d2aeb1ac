"""The contact frame of a normal: the one tangent basis of gaussqp.

For a unit normal ``n``: in 2D the tangent ``t = (−n_y, n_x)``; in 3D ``t₁ = n × e / ‖n × e‖`` with ``e`` the
coordinate axis least aligned with ``n`` (the smallest ``|n_k|``, the first on ties) and ``t₂ = n × t₁``, so that
``(t₁, t₂, n)`` is a right-handed orthonormal frame (for ``n = z``: ``t₁ = y``, ``t₂ = −x``). The grasp model
(:mod:`gaussqp.grasp.model`: the grasp map's tangent columns, ``problems/grasps.py``'s hand Jacobians) and the
Pinocchio importer (:mod:`gaussqp.io.pinocchio`: the tangent rows of a point contact) both take it from here.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..model.validation import vector
from ..settings import NORMAL_NORM_MIN


def tangent_basis(normal) -> np.ndarray:
    """The tangents of the unit ``normal`` (2 or 3 entries) as rows, ``(d − 1) × d`` (module docstring). The normal
    is taken as given (unit, checked by the caller); :func:`contact_frame` checks and normalizes one."""
    n = np.asarray(normal, dtype=float)
    if n.size == 2:
        return np.array([[-n[1], n[0]]])
    e = np.zeros(3)
    e[int(np.argmin(np.abs(n)))] = 1.0
    t1 = np.cross(n, e)
    t1 /= np.linalg.norm(t1)
    return np.vstack([t1, np.cross(n, t1)])


def contact_frame(normal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, t₁, t₂)`` of a spatial contact: ``normal`` (3 numbers, any nonzero length) normalized, and its
    :func:`tangent_basis`; a right-handed orthonormal frame ``(t₁, t₂, n)``."""
    n = vector("normal", normal, 3)
    norm = float(np.linalg.norm(n))
    if not norm > NORMAL_NORM_MIN:
        raise InputError("normal", f"has norm {norm:.3g}", "give a nonzero normal direction (3 numbers)")
    n = n / norm
    t1, t2 = tangent_basis(n)
    return n, t1, t2


__all__ = ["contact_frame", "tangent_basis"]
