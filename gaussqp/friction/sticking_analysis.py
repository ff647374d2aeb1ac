"""The sticking verdict at one acceleration (split from :mod:`gaussqp.friction.verdict`): the
record :class:`StickingVerdict` and the two ways to fill it, :func:`analyze` (the programs on the multiplier set
Λ(a) of :mod:`gaussqp.friction.multiplier_set`) and :func:`singleton_verdict` (Λ(a) a single point: no program).

All quantities are computed on Λ(a) (fixed acceleration; its active set needs a tolerance, which is reported):

- ``margin`` (:func:`gaussqp.friction.sticking_margin.margin`): max over Λ(a) of min over the non-detaching
  sticking contacts of ``μ_i |λ_n,i| - ‖λ_t,i‖`` (sticking Prop. 4).
- ``boundary_contacts``: contacts whose own ``max μ_i|λ_n,i| - ‖λ_t,i‖`` over Λ(a) ∩ cones is 0
  (they are on the boundary for *every* admissible force: exact, up to :data:`gaussqp.settings.BOUNDARY_EXACT_MAX`
  contacts; beyond, at the max-margin forces). A contact whose slack at the max-margin forces, put exactly on the
  affine hull of Λ(a) (:func:`verified_slacks`), is above the boundary threshold is not on the boundary (its own
  maximum is at least that): only the others get their own SOCP.
- ``detaching_contacts``: unilateral sticking contacts with ``n_i a + b_i > 0`` (they leave, Prop. 4
  and footnote 3 of the sticking paper).
- ``mu_min`` (:func:`gaussqp.friction.mu_min.mu_min_bracket`): the smallest common friction coefficient for which
  the all-sticking problem is solvable (sticking Prop. 11); ``mu_min_lower`` the bisection's proven lower end. Its
  ratio steps start from the margin's optimum (with a common μ the margin program is their first step). Its programs
  run when ``mu_min``, ``mu_min_lower`` or ``mu_min_reason`` is first read (:class:`StickingVerdict`), not before:
  a control loop that reads the margin does not pay for them (issue #28).
- ``margin_lower``: the least slack of the answer's own multipliers put exactly on the affine hull of Λ(a)
  (:func:`verified_slacks`), a proven lower end of ``margin``, computed with the verdict. The margin's programs and the
  boundary test run when one of :data:`MARGIN_FIELDS` is first read: what the solve itself decides from the margin
  (multiplier uniqueness inside the cones, :func:`gaussqp.certificates.sticking_verdict.sticking_verdict`) is decided by
  ``margin_lower`` whenever that is above the boundary threshold (issue #28: a control loop that reads neither pays
  for neither).

What the verdict decides about an answer (its uniqueness inside the cones) is stated by
:func:`gaussqp.certificates.sticking_verdict.sticking_verdict`, which attaches it to a solution.

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the functions that use it,
not when this module is imported.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, cast

import numpy as np

from ..backends import direct_backend, get_backend, solve_program
from ..jsonable import json_float, to_jsonable
from ..model.problem import ContactProblem
from ..model.rows import assemble_multipliers
from ..settings import (
    AFFINE_SET_DENSE_MAX,
    BOUNDARY_EXACT_MAX,
    BOUNDARY_RTOL,
    DIRECT_CONIC_BACKENDS,
    SINGLETON_DENSE_MAX,
    Tolerance,
    ZERO_FORCE_RTOL,
)
from .cones import Layout
from .multiplier_conic import MultiplierSetConic
from .multiplier_set import active_tolerance, detaching
from .mu_min import AffineSet, mu_min_bracket, start_point, zero_force
from .sticking_margin import contact_margins, margin

if TYPE_CHECKING:  # annotations only; cvxpy itself is imported inside the functions that build a program
    import cvxpy as cp


#: the fields of :class:`StickingVerdict` that its μ_min programs fill, when first read
MU_MIN_FIELDS = frozenset({"mu_min", "mu_min_lower", "mu_min_reason"})
#: the fields of :class:`StickingVerdict` that its margin programs and boundary test fill, when first read
MARGIN_FIELDS = frozenset(
    {"margin", "margin_reason", "boundary_contacts", "boundary_test", "signs", "acceleration", "multipliers"}
)
#: the lock of a pending verdict made without one of its own (each verdict of :func:`analyze` has its own ``_settling``,
#: which its copies and pickles leave out); re-entrant: μ_min's programs read the margin's point first
_SETTLING = threading.RLock()


@dataclass
class StickingVerdict:
    """The sticking verdict at one acceleration (the module's docstring says what each field is).

    μ_min is computed when it is first read: :func:`analyze` leaves its programs pending (``mu_min_pending``, a
    function returning ``(mu_min_lower, mu_min, mu_min_reason)``), and the first read of ``mu_min``, ``mu_min_lower``
    or ``mu_min_reason`` (directly, through :meth:`as_dict`, a comparison, the printed form, a copy or a pickle) runs
    them once and stores the result. The value is the one an eager computation gives: the programs see the same data
    (copies of the solve's arrays). Concurrent first reads of one verdict run them once (the others wait on its own
    lock, so that unrelated verdicts settle in parallel); an error in them reaches
    the read and leaves them pending; assigning one of the three fields runs them first, then keeps the value given.
    The margin's programs and the boundary test (the fields of :data:`MARGIN_FIELDS`) are left pending by
    :func:`analyze` the same way (``margin_pending``, a function returning those fields' values); μ_min's programs
    settle them first (they start from the margin's point)."""

    feasible: bool | None
    margin: float | None
    boundary_contacts: list[int] = field(default_factory=list)
    detaching_contacts: list[int] = field(default_factory=list)
    mu_min: float | None = None
    #: the proven lower end of μ_min (:func:`mu_min_bracket`); None when μ_min was read off a single point
    mu_min_lower: float | None = None
    #: why ``mu_min`` is None (undecided: a program decided nothing), else None
    mu_min_reason: str | None = None
    #: why ``margin`` is None (no program measured it, or Λ(a) ∩ cones is empty), else None
    margin_reason: str | None = None
    active_tolerance: float | np.ndarray = 0.0  # per unilateral row (multiplier_set.active_tolerance)
    boundary_test: str = "exact"
    signs: dict = field(default_factory=dict)
    #: the point the margin was measured at: the acceleration and the multipliers ``(λ_n (m,), λ_t (m, d−1))`` in
    #: input order (the max-margin multipliers of Λ(a), or λ* when Λ(a) is a point); None when no margin was found
    acceleration: np.ndarray | None = None
    multipliers: tuple | None = None
    #: μ_min's programs not run yet (run on the first read of a field of :data:`MU_MIN_FIELDS`), else None; not an
    #: argument of the constructor (a copy by ``dataclasses.replace`` reads, so runs, them first)
    mu_min_pending: Callable[[], tuple] | None = field(default=None, init=False, repr=False, compare=False)
    #: a proven lower end of ``margin``: the least slack of the answer's multipliers put exactly on the affine hull of
    #: Λ(a) (:func:`verified_slacks`); None when not measured (not asked, no answer's multipliers, Λ(a) too large to
    #: project on, no sticking contact that stays) or when that point is not in Λ(a) ∩ cones
    margin_lower: float | None = None
    #: the margin's programs and boundary test not run yet (run on the first read of a field of
    #: :data:`MARGIN_FIELDS`), else None; not an argument of the constructor
    margin_pending: Callable[[], dict] | None = field(default=None, init=False, repr=False, compare=False)

    def __getattribute__(self, name: str):
        state = object.__getattribute__(self, "__dict__")
        if name in MARGIN_FIELDS and state.get("margin_pending") is not None:
            with state.get("_settling", _SETTLING):
                pending = state.get("margin_pending")
                if pending is not None:
                    for key, value in pending().items():  # an error leaves them pending, as μ_min's
                        object.__setattr__(self, key, value)
                    object.__setattr__(self, "margin_pending", None)
        if name in MU_MIN_FIELDS and state.get("mu_min_pending") is not None:
            with state.get("_settling", _SETTLING):  # one thread runs them; the others wait and read the result
                pending = state.get("mu_min_pending")
                if pending is not None:
                    lower, value, why = pending()  # an error leaves them pending: the next read runs them again
                    object.__setattr__(self, "mu_min_lower", lower)
                    object.__setattr__(self, "mu_min", value)
                    object.__setattr__(self, "mu_min_reason", why)
                    object.__setattr__(self, "mu_min_pending", None)
        return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value) -> None:
        if name in MARGIN_FIELDS and self.__dict__.get("margin_pending") is not None:
            _ = self.margin  # settled first, as μ_min's fields below
        if name in MU_MIN_FIELDS and self.__dict__.get("mu_min_pending") is not None:
            _ = self.mu_min  # settled first: a value the caller sets is not overwritten later, the others are filled
        object.__setattr__(self, name, value)

    def __getstate__(self) -> dict:
        """The fields with the margin and μ_min settled (their programs run first): neither the pending functions nor
        the lock is copied or pickled."""
        _ = (self.margin, self.mu_min)
        return {k: v for k, v in self.__dict__.items() if k != "_settling"}

    def as_dict(self) -> dict:
        """The verdict as JSON, with ``evidence`` (the acceleration and multipliers its margin was read at, and what
        to check on them) when a finite margin was measured at a point."""
        ev = {}
        if (
            self.multipliers is not None
            and self.acceleration is not None
            and self.margin is not None
            and np.isfinite(self.margin)
        ):
            ev = {
                "evidence": to_jsonable(
                    {
                        "verify": "M a + F = J_nᵀλ_n + J_tᵀλ_t; tangent_i,k · a + tangent_drift_i,k = 0 on sticking contacts; "
                        "λ_n,i >= 0 on unilateral contacts and λ_n,i = 0 where normal_i · a + normal_drift_i > 0 "
                        "(detaching_contacts); on every sticking contact not detaching μ_i s_i λ_n,i − ‖λ_t,i‖ >= "
                        "margin (s_i from signs, 1 when absent): margin > 0 means sticking persists",
                        "acceleration": self.acceleration,
                        "lambda_normal": self.multipliers[0],
                        "lambda_tangent": self.multipliers[1],
                        "signs": self.signs,
                    }
                )
            }
        return {
            **ev,
            "feasible": self.feasible,
            "margin": json_float(self.margin) if self.margin is not None else None,
            "margin_lower": json_float(self.margin_lower) if self.margin_lower is not None else None,
            "boundary_contacts": list(self.boundary_contacts),
            "detaching_contacts": list(self.detaching_contacts),
            "mu_min": json_float(self.mu_min) if self.mu_min is not None else None,
            "mu_min_lower": json_float(self.mu_min_lower) if self.mu_min_lower is not None else None,
            "mu_min_reason": self.mu_min_reason,
            "margin_reason": self.margin_reason,
            "active_tolerance": np.asarray(self.active_tolerance, dtype=float).tolist(),
            "boundary_test": self.boundary_test,
        }


def _layout_point(p: ContactProblem, L: Layout, lam_n: np.ndarray, lam_t: np.ndarray) -> tuple:
    """``(λ_eq, λ_in)`` of multipliers in input order (λ_n (m,), λ_t (m, d−1)): the bilateral normals and the sticking
    contacts' tangents, then the unilateral normals (the programs' point on Λ(a), :class:`Layout`)."""
    lev = np.concatenate([lam_n[p.bilateral], lam_t[L.sticking].ravel()]) if L.pe else np.zeros(0)
    liv = lam_n[p.unilateral] if L.pg else np.zeros(0)
    return lev, liv


def _exact_point(p: ContactProblem, a, atol, lam_n, lam_t):
    """(λ_n, λ_t) put on the affine hull of Λ(a) (see :class:`gaussqp.friction.mu_min.AffineSet`)."""
    L = Layout(p)
    S = L.sticking
    lev, liv = _layout_point(p, L, lam_n, lam_t)
    aff = AffineSet(p, a, atol, lam_n)
    lev, liv = aff.project(lev, liv)
    ln, lt = lam_n.copy(), lam_t.copy()
    ln[p.bilateral] = lev[: L.mb]
    ln[p.unilateral] = liv
    if len(S):
        lt[S] = lev[L.mb :].reshape(len(S), L.d1)
    return ln, lt


def singleton_verdict(
    p: ContactProblem, a: np.ndarray, lam_n: np.ndarray, lam_t: np.ndarray, feasible: bool
) -> StickingVerdict:
    """The verdict when the multiplier rows ``J_all`` are independent (tutorial Prop. 3(i), 7(i)): then
    Λ(a) without the cones is {λ*} (the solution's multipliers; when sticking is infeasible, F1's at the
    same acceleration), and everything is read off λ* exactly, with no program: the margin is
    ``min_i μ_i |λ_n,i| - ‖λ_t,i‖`` over the non-detaching sticking contacts (None when a detaching
    contact carries a tangential force: no μ helps), the boundary contacts (feasible case) are those
    where it vanishes (sticking Prop. 4(ii)), and ``μ_min = max_i ‖λ_t,i‖ / |λ_n,i|`` (sticking
    Prop. 11 with a single admissible force).

    λ* is recomputed exactly (up to :data:`SINGLETON_DENSE_MAX` coordinates): the solver's multipliers
    are put on the affine hull of Λ(a) by a least-squares correction, which *is* λ* when the hull is a
    point, so μ_min and the margin do not inherit the backend's tolerance (an interior-point answer of
    a degenerate problem is off by about the square root of it). Forces below 1e-9 of the load's
    terms ``max(‖M a‖∞, ‖F‖∞)`` (the data of Λ(a), not the multipliers judged) count as zero."""
    atol = active_tolerance(p, a)
    det = [int(i) for i in detaching(p, a, atol, lam_n) if p.modes[i] == "sticking"]
    L = Layout(p)
    lam_n = np.asarray(lam_n, dtype=float)
    lam_t = np.asarray(lam_t, dtype=float).reshape(p.m, p.dimension - 1)
    Ma = np.asarray(p.M @ a).ravel()
    # the terms of the load M a + F, not their sum: a zero load (free flight) is round-off of them
    load = max(float(np.abs(Ma).max(initial=0.0)), float(np.abs(p.F).max(initial=0.0)))
    if p.n <= SINGLETON_DENSE_MAX and p.m <= SINGLETON_DENSE_MAX:
        lam_n, lam_t = _exact_point(p, a, atol, lam_n, lam_t)
    zero = ZERO_FORCE_RTOL * load
    slack, ratio, pinned = {}, 0.0, False
    for i in L.sticking:
        t, nrm = float(np.linalg.norm(lam_t[i])), abs(float(lam_n[i]))
        if i not in det:
            slack[i] = p.friction[i] * nrm - t
        elif t > zero:
            pinned = True  # a detaching contact has λ_n = 0, so its disk is {0}
        if t > zero:
            ratio = max(ratio, t / nrm if nrm > zero else float("inf"))
    scale = load
    signs = {i: (1 if lam_n[i] >= 0 else -1) for i in L.bilateral_sticking}
    margin = None if pinned else (min(slack.values()) if slack else float("inf"))
    why = "a detaching contact carries a tangential force: its disk is {0}, no admissible force" if pinned else None
    if not feasible and margin is not None and margin > 0:
        margin = None  # a positive margin contradicts the infeasible answer: not measured, never +inf
        why = "a positive margin at the multipliers contradicts the infeasible answer: not measured"
    return StickingVerdict(
        feasible=feasible,
        margin=margin,
        margin_reason=why,
        boundary_contacts=[i for i, x in slack.items() if x <= BOUNDARY_RTOL * scale] if feasible else [],
        detaching_contacts=det,
        mu_min=ratio,
        active_tolerance=atol,
        boundary_test="exact (unique multipliers)",
        signs=signs,
        acceleration=np.asarray(a, dtype=float),
        multipliers=(lam_n, lam_t),
    )


def verified_slacks(
    p: ContactProblem, aff: AffineSet, point: tuple | None, signs: dict[int, int]
) -> dict[int, float] | None:
    """Each non-detaching sticking contact's cone slack ``μ_i s_i λ_n,i − ‖λ_t,i‖`` (sticking (14b), Prop. 4) at
    ``point = (λ_eq, λ_in)`` put exactly on the affine hull of Λ(a) (:func:`gaussqp.friction.mu_min.start_point`), or
    None when that is not a point of Λ(a) ∩ cones (a unilateral multiplier or a slack below minus the zero force, or a
    detaching contact's tangential force above it: its normal force is 0, its disk {0}). Every slack is then a value
    achieved in Λ(a) ∩ cones, so a lower bound of that contact's own maximum slack."""
    return _slacks_at(p, aff, start_point(aff, point), signs)


def _slacks_at(
    p: ContactProblem, aff: AffineSet, exact: tuple | None, signs: dict[int, int]
) -> dict[int, float] | None:
    """:func:`verified_slacks` at a point already put on the affine hull of Λ(a) (:func:`start_point`'s, or None)."""
    if exact is None:
        return None
    lev, liv = exact
    L = aff.L
    zero = zero_force(aff)
    if any(float(np.linalg.norm(L.tangent(i, lev))) > zero for i in L.sticking if i in aff.det):
        return None
    out = {
        i: p.friction[i] * signs.get(i, 1) * float(L.normal(i, lev, liv)) - float(np.linalg.norm(L.tangent(i, lev)))
        for i in L.sticking
        if i not in aff.det
    }
    return None if min(out.values(), default=0.0) < -zero else out


def analyze(
    p: ContactProblem,
    a: np.ndarray,
    feasible: bool | None,
    solver: str | None,
    tol: Tolerance,
    want_mu_min: bool = True,
    lam_n: np.ndarray | None = None,
    lam_t: np.ndarray | None = None,
    lower_end: bool = True,
) -> StickingVerdict:
    """The verdict at acceleration ``a`` (F4's when sticking is feasible, F1's otherwise); ``lam_n``, the
    normal multipliers of the same solution, keeps rows with a nonzero force active (see
    :func:`gaussqp.friction.multiplier_set.detaching`). The detaching contacts are computed here, and ``margin_lower``
    when ``lower_end``, ``feasible`` and the answer's multipliers ``lam_n``, ``lam_t`` (λ_t (m, d−1)) are given; the
    margin's programs with the boundary test, and μ_min's, are left pending and run when first read
    (:class:`StickingVerdict`), μ_min's never with ``want_mu_min`` False. The margin is never below ``margin_lower``
    (a program's optimum below it is replaced by that achieved value, its point and signs the evidence)."""
    needs = "socp" if p.dimension >= 3 else "qp"
    name = solver if needs == "qp" or solver != "osqp" else None
    chosen: dict = {}

    def run(prob: cp.Problem) -> str:  # every cvxpy program of the verdict, through the single solve path
        if "backend" not in chosen:  # resolved once (a lookup costs ~1 ms), and only when a cvxpy program runs
            chosen["backend"] = get_backend(name, needs=needs)
        return solve_program(prob, chosen["backend"], tol, needs)[1]

    atol = active_tolerance(p, a)
    det = [int(i) for i in detaching(p, a, atol, lam_n) if p.modes[i] == "sticking"]
    L = Layout(p)
    # the programs run when first read (StickingVerdict): on copies of the arrays a caller may still change (the
    # problem's are read-only), so that the values are the ones an eager computation gives
    a0 = np.array(a, dtype=float)
    lam0 = None if lam_n is None else np.array(lam_n, dtype=float)
    shared: dict = {}

    def conic_of() -> MultiplierSetConic | None:
        """The programs in Clarabel's form, built once on Λ(a) (None: the cvxpy programs, their fallback, run)."""
        if "conic" not in shared:
            direct = direct_backend(name, needs, DIRECT_CONIC_BACKENDS)
            shared["conic"] = MultiplierSetConic(p, a0, atol, lam0, direct, tol) if direct is not None else None
        return shared["conic"]

    def aff_of() -> AffineSet | None:
        if "aff" not in shared:
            small = p.n <= AFFINE_SET_DENSE_MAX and p.m <= AFFINE_SET_DENSE_MAX
            shared["aff"] = AffineSet(p, a0, atol, lam0) if small else None
        return shared["aff"]

    def settle_margin() -> dict:
        conic, aff = conic_of(), aff_of()
        best, best_signs, best_point = None, {}, None
        why_margin: list = []
        for signs in L.sign_patterns():
            m, point = margin(p, a0, atol, signs, run, lam0, conic, why_margin)
            if m is not None and (best is None or m > best):
                best, best_signs, best_point = m, signs, point
        achieved = shared.get("lower")  # (value, signs, point) of the answer's own multipliers
        if best is not None and achieved is not None and best < achieved[0]:
            # a program's optimum below a value achieved at a point of Λ(a) ∩ cones is its solver's inaccuracy (its
            # admissible forces far above the load): the margin is at least the achieved value, at that point
            best, best_signs, best_point = achieved
        out: dict = {"margin": best, "signs": best_signs, "boundary_contacts": []}
        if best is None:
            out["margin_reason"] = "; ".join(dict.fromkeys(why_margin)) or "no sign pattern gave a margin"
        if best_point is not None and best_point[0] is not None and best_point[1] is not None:
            out["acceleration"] = a0.copy()
            out["multipliers"] = assemble_multipliers(
                p, np.asarray(best_point[0], dtype=float).ravel(), np.asarray(best_point[1], dtype=float).ravel()
            )
        shared["point"] = best_point
        # the contact force M a + F = Jᵀλ itself, not max(1, |M a + F|): in units of 1e-6 a contact with a margin of
        # 1e-3 of its load was on the boundary
        scale = float(np.abs(np.asarray(p.M @ a0).ravel() + p.F).max(initial=0.0))
        if feasible and best is not None and np.isfinite(best):
            if len(L.sticking) <= BOUNDARY_EXACT_MAX:
                # a slack achieved above the threshold decides "not on the boundary"; the others get their own program
                got = verified_slacks(p, aff, best_point, best_signs) if aff is not None else None
                ask = None if got is None else [i for i, x in got.items() if not x > BOUNDARY_RTOL * scale]
                cm = contact_margins(p, a0, atol, best_signs, run, lam0, conic, ask) if ask is None or ask else {}
                out["boundary_contacts"] = [i for i, x in cm.items() if x <= BOUNDARY_RTOL * scale]
            elif best_point is not None:
                out["boundary_test"] = "at the max-margin multipliers"
                lev, liv = best_point
                for i in L.sticking:
                    if i in det:
                        continue
                    slack = p.friction[i] * best_signs.get(i, 1) * float(L.normal(i, lev, liv)) - float(
                        np.linalg.norm(L.tangent(i, lev))
                    )
                    if slack <= BOUNDARY_RTOL * scale:
                        out["boundary_contacts"].append(i)
        return out

    v = StickingVerdict(feasible=feasible, margin=None, detaching_contacts=det, active_tolerance=atol)
    object.__setattr__(v, "_settling", threading.RLock())  # its own: unrelated verdicts settle at once
    v.margin_pending = settle_margin
    if lower_end and feasible and lam0 is not None and lam_t is not None and aff_of() is not None:
        # the answer's own multipliers, put exactly on Λ(a)'s affine hull: each slack is achieved, so their least is a
        # lower end of the margin (with the answer's signs of λ_n on the bilateral contacts: one of the patterns)
        lam_t0 = np.asarray(lam_t, dtype=float).reshape(p.m, p.dimension - 1)
        own = {i: (1 if lam0[i] >= 0 else -1) for i in L.bilateral_sticking}
        aff = cast(AffineSet, aff_of())
        exact = start_point(aff, _layout_point(p, L, lam0, lam_t0))  # put on the hull once: slacks and evidence
        got = _slacks_at(p, aff, exact, own)
        if got:
            v.margin_lower = float(min(got.values()))
            shared["lower"] = (v.margin_lower, own, exact)
    if want_mu_min:

        def settle() -> tuple:
            _ = v.margin  # the margin's point first: μ_min's ratio steps start from it
            why: list = []
            lower, value = mu_min_bracket(p, a0, atol, run, lam0, conic_of(), why, aff_of(), shared["point"])
            return lower, value, (why[0] if value is None and why else None)

        v.mu_min_pending = settle
    return v
