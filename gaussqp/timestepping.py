"""Impacts solved with certificates, and one Moreau–Jean time step.

:func:`solve_impact` solves an :class:`~gaussqp.model.impact.ImpactProblem` (an impact or one step at the
velocity level) by :func:`gaussqp.solve` on its :meth:`~gaussqp.model.impact.ImpactProblem.to_contact_problem`,
with the §6 certificates of :mod:`gaussqp.impacts` added (the restitution matrix, Props. 16–19, Lemma 6, the
energy balance at an impact).

:func:`step` advances a system ``M(q) v̇ = f(q, v, t) + J(q)ᵀλ`` with gaps ``g(q)`` by one step of Moreau–Jean's
θ-method (Jean 1999; Acary & Brogliato 2008, §10.1):

    M(q_k) (v_{k+1} − v_k) = h [θ f(q̃, v_k, t_{k+1}) + (1 − θ) f(q_k, v_k, t_k)] + J(q_k)ᵀ P
    q_{k+1} = q_k + h [θ v_{k+1} + (1 − θ) v_k]              (q̇ = v: generalized velocities, not twists)

with ``q̃ = q_k + h v_k`` (the force is taken explicitly in v: no Newton iteration), and on each *active* contact
Newton's law in Moreau's form ``0 <= P_i ⟂ n_i v_{k+1} + e_i n_i v_k >= 0`` (bilateral rows: ``n_i v_{k+1} = 0``).
A unilateral contact is active when its gap ``g_i(q_k) <= ε_i``, or (``activation="predicted"``, the default) when
the predicted gap ``g_i(q_k) + h n_i v_k <= ε_i``, with ``ε_i`` a tolerance on the data's own length scale
(:func:`_activation_slack`: round-off of the gap and a tiny fraction of the distance one step can close).
The step problem is an ImpactProblem with ``h`` and the force above, solved with certificates by :func:`solve_impact`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .dispatch import solve
from .errors import ShapeError, StepError, UnknownValueError
from .impacts import energy_certificate, impact_certificates
from .model.impact import ImpactProblem
from .model.problem import ContactProblem
from .model.validation import real_array, real_scalar, vector
from .results import Solution
from .settings import STEP_GAP_ROUNDOFF, STEP_GAP_RTOL, THETA_MIN


def solve_impact(
    problem: ImpactProblem,
    *,
    formulation: str = "auto",
    solver: str | None = None,
    tolerance=None,
    crosscheck: bool = True,
    certify: bool = True,
) -> Solution:
    """Solve the impulse-level problem with gaussqp and certify it.

    Parameters
    ----------
    problem
        an :class:`~gaussqp.model.impact.ImpactProblem`
    formulation, solver, tolerance, crosscheck, certify
        as for :func:`gaussqp.solve`

    Returns
    -------
    :class:`~gaussqp.results.Solution` of the mapped problem: ``acceleration`` is ``v⁺``, ``lambda_normal`` /
    ``lambda_tangent`` the percussions ``P``; its certificates are gaussqp's, followed by the §6 certificates
    (:func:`gaussqp.impacts.impact_certificates`) and, with an answer, ``impact_energy``.
    """
    if not isinstance(problem, ImpactProblem):
        raise UnknownValueError(
            "problem",
            f"is a {type(problem).__name__}",
            "give a gaussqp.ImpactProblem (ImpactProblem.from_problem wraps a ContactProblem)",
        )
    sol = solve(
        problem.to_contact_problem(),
        formulation=formulation,
        solver=solver,
        tolerance=tolerance,
        crosscheck=crosscheck,
        certify=certify,
    )
    if certify:
        sol.certificates = list(sol.certificates) + impact_certificates(problem)
        if sol.status.has_solution:
            sol.certificates.append(energy_certificate(problem, sol.acceleration, sol.lambda_normal))
    return sol


@dataclass(frozen=True)
class ContactRows:
    """The contacts of a system at a configuration, as :func:`step` needs them.

    Attributes
    ----------
    gaps
        (m,) signed distances ``g_i(q)`` (ignored for bilateral rows)
    normals
        (m, n) rows ``∇g_iᵀ``
    types
        "unilateral" for all, or m strings ("unilateral" / "bilateral")
    restitution
        one ``e`` for all unilateral contacts, m numbers, or the m × m matrix E
    friction, modes, tangents, slip
        as :meth:`ContactProblem.from_blocks` (``tangents`` is the (m (d−1), n)
        ``J_t``); default frictionless
    dimension
        contact dimension d
    """

    gaps: np.ndarray
    normals: np.ndarray
    types: Sequence[str] | str = "unilateral"
    restitution: object = 0.0
    friction: np.ndarray | None = None
    modes: Sequence[str] | str = "frictionless"
    tangents: np.ndarray | None = None
    slip: np.ndarray | None = None
    dimension: int = 2


@dataclass(frozen=True)
class MechanicalSystem:
    """A system for :func:`step`: ``mass(q)`` → (n, n) M; ``force(q, v, t)`` → (n,) applied generalized force
    (gravity ``−m g`` on an upward axis); ``contacts(q)`` → :class:`ContactRows`."""

    mass: Callable[[np.ndarray], np.ndarray]
    force: Callable[[np.ndarray, np.ndarray, float], np.ndarray]
    contacts: Callable[[np.ndarray], ContactRows]
    name: str = ""


@dataclass(frozen=True)
class State:
    """Positions ``q``, velocities ``v`` (``q̇ = v``) and time ``t``."""

    q: np.ndarray
    v: np.ndarray
    t: float = 0.0


@dataclass
class StepResult:
    """What :func:`step` returns: the new ``state``, the :class:`~gaussqp.results.Solution` of the step problem
    (``acceleration`` = v_{k+1}, ``lambda_normal`` = the percussions of the active contacts), the indices of the
    ``active`` contacts, the step ``problem`` (an ImpactProblem) and the full percussion vector ``impulses``
    (zeros on inactive contacts)."""

    state: State
    solution: Solution
    active: np.ndarray
    problem: ImpactProblem
    impulses: np.ndarray
    extras: dict = field(default_factory=dict)


def _sub_restitution(E, m: int, active: np.ndarray):
    arr = np.asarray(E, dtype=float)
    if arr.ndim == 0:
        return float(arr)
    if arr.ndim == 1:
        return arr[active] if arr.shape == (m,) else arr
    return arr[np.ix_(active, active)] if arr.shape == (m, m) else arr


def _rows(field: str, value, n: int, count: int | None = None) -> np.ndarray:
    """The rows ``value`` of a :class:`ContactRows` as a (k, n) float array (a flat list of k·n numbers allowed),
    checked as every problem datum is (:func:`~gaussqp.model.validation.real_array`: no booleans, strings or masked
    entries), with ``count`` rows when given."""
    arr = real_array(field, value, 2)
    if arr.size % n or (count is not None and arr.size != count * n):
        raise ShapeError(
            field, f"has {arr.size} numbers", f"give {'k' if count is None else count} rows of {n} numbers"
        )
    return arr.reshape(-1, n)


def _pick(value, m: int, active: np.ndarray):
    if value is None or isinstance(value, str):
        return value
    return [value[i] for i in active] if len(value) == m else value


def _activation_slack(
    M: np.ndarray, f: np.ndarray, Jn: np.ndarray, q: np.ndarray, v: np.ndarray, h: float
) -> np.ndarray:
    """Per row, the gap below which a contact counts as closed: :data:`STEP_GAP_RTOL` of the distance the row can
    close in one step (``h |n_i v| + h² |n_i| |M⁺ f|``, the data's own motion) plus the gap's round-off
    (:data:`STEP_GAP_ROUNDOFF` ``|n_i| |q|``); never a fixed length."""
    if Jn.shape[0] == 0:
        return np.zeros(0)
    a_free = np.linalg.lstsq(np.asarray(M, dtype=float), np.asarray(f, dtype=float), rcond=None)[0]
    A = np.abs(Jn)
    return STEP_GAP_RTOL * (h * np.abs(Jn @ v) + h * h * (A @ np.abs(a_free))) + STEP_GAP_ROUNDOFF * (A @ np.abs(q))


def step(
    system: MechanicalSystem,
    state: State,
    h: float,
    *,
    theta: float = 1.0,
    activation: str = "predicted",
    formulation: str = "auto",
    solver: str | None = None,
    tolerance=None,
    crosscheck: bool = False,
    certify: bool = True,
) -> StepResult:
    """One Moreau–Jean step of ``system`` from ``state`` (module docstring).

    Parameters
    ----------
    system
        :class:`MechanicalSystem`
    state
        :class:`State` at ``t_k``
    h
        time step (> 0)
    theta
        keyword-only, in [1/2, 1] (1: implicit Euler on v; 1/2: trapezoidal positions)
    activation
        "predicted" (``g + h n v <= 0``) or "gap" (``g <= 0``)
    formulation, solver, tolerance, crosscheck, certify
        passed to :func:`solve_impact`

    Returns
    -------
    :class:`StepResult`; raises :class:`~gaussqp.errors.StepError` when the step problem has no answer.
    """
    hv = real_scalar("h", h)
    if not hv > 0 or not math.isfinite(hv):
        raise UnknownValueError("h", f"is {hv}", "give a finite time step h > 0")
    th = real_scalar("theta", theta)
    if not THETA_MIN <= th <= 1:
        raise UnknownValueError("theta", f"is {th}", f"give θ in [{THETA_MIN}, 1] (1: implicit Euler, 1/2: trapezoid)")
    if activation not in ("predicted", "gap"):
        raise UnknownValueError("activation", f"is {activation!r}", "use 'predicted' or 'gap'")
    if not isinstance(system, MechanicalSystem) or not isinstance(state, State):
        raise UnknownValueError(
            "system" if not isinstance(system, MechanicalSystem) else "state",
            "has the wrong type",
            "give a gaussqp.MechanicalSystem and a gaussqp.State",
        )
    q0 = real_array("state.q", state.q, 1)
    if q0.ndim != 1 or q0.size == 0:
        raise UnknownValueError("state.q", f"has shape {q0.shape}", "give a 1-D vector of positions")
    n = q0.size
    v0 = vector("state.v", state.v, n)
    t0 = real_scalar("state.t", state.t)
    M = system.mass(q0)
    f0 = vector("force(q, v, t)", system.force(q0, v0, t0), n)
    f1 = vector("force(q, v, t)", system.force(q0 + hv * v0, v0, t0 + hv), n)
    f = th * f1 + (1.0 - th) * f0
    rows = system.contacts(q0)
    if not isinstance(rows, ContactRows):
        raise UnknownValueError("contacts(q)", f"returned a {type(rows).__name__}", "return a gaussqp.ContactRows")
    Jn = _rows("contacts(q).normals", rows.normals, n)
    m = Jn.shape[0]
    gaps = vector("contacts(q).gaps", rows.gaps, m)
    types = [rows.types] * m if isinstance(rows.types, str) else list(rows.types)
    pred = gaps + hv * (Jn @ v0) if activation == "predicted" else gaps
    slack = _activation_slack(M, f, Jn, q0, v0, hv)
    active = np.array(
        [i for i in range(m) if types[i] == "bilateral" or gaps[i] <= slack[i] or pred[i] <= slack[i]], dtype=int
    )
    d = rows.dimension
    Jt = None if rows.tangents is None else _rows("contacts(q).tangents", rows.tangents, n, m * (d - 1))
    tr = np.array([i * (d - 1) + k for i in active for k in range(d - 1)], dtype=int)
    base = ContactProblem.from_blocks(
        M,
        np.zeros(n),
        Jn[active],
        None,
        [types[i] for i in active],
        None if Jt is None else Jt[tr],
        None,
        None if rows.friction is None else vector("contacts(q).friction", rows.friction, m)[active],
        _pick(rows.modes, m, active),
        None if rows.slip is None else real_array("contacts(q).slip", rows.slip, 2)[active],
        None,
        d,
        system.name,
    )
    prob = ImpactProblem.from_problem(base, v0, restitution=_sub_restitution(rows.restitution, m, active), h=hv, f=f)
    sol = solve_impact(
        prob, formulation=formulation, solver=solver, tolerance=tolerance, crosscheck=crosscheck, certify=certify
    )
    if not sol.status.has_solution:
        raise StepError(
            f"the step problem at t = {t0:g} is {sol.status}: {sol.message or 'no answer'}; "
            "check the contacts (conflicting rows?) or reduce h"
        )
    v1 = np.asarray(sol.acceleration, dtype=float)
    q1 = q0 + hv * (th * v1 + (1.0 - th) * v0)
    P = np.zeros(m)
    P[active] = sol.lambda_normal
    return StepResult(state=State(q=q1, v=v1, t=t0 + hv), solution=sol, active=active, problem=prob, impulses=P)
