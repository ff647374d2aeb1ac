"""Force envelopes: the exact range of each contact's forces over the whole set of contact forces of an answer,
each bound certified by a primal point and a dual certificate.

At a fixed acceleration ``a`` the contact forces that produce it are (docs/DESIGN.md §1, §3.2)

.. math:: \\mathcal{F}(a) = \\{\\lambda : J_n^T\\lambda_n + J_t^T\\lambda_t = M a + F,\\;
          (\\lambda_{n,i}, \\lambda_{t,i}) \\in \\mathcal{L}_i(a)\\}

where ``L_i(a)`` is contact ``i``'s law at the answer, read off its relative acceleration
``w_i = (n_i a + b_i, T_i a + c_i)``:

- *separating* (unilateral, ``n_i a + b_i > 0``): ``λ_i = 0``;
- *sticking* (told sticking, or mode-free with ``T_i a + c_i = 0``): the disk ``‖λ_t,i‖ <= μ_i λ_n,i``;
- *sliding* (told sliding with slip ``s_i``, or mode-free with ``T_i a + c_i ≠ 0``, ``s_i`` its direction):
  ``λ_t,i = −μ_i λ_n,i s_i``, ``λ_n,i >= 0``;
- *frictionless*: ``λ_n,i >= 0`` (unilateral), ``λ_t,i = 0``; *bilateral* (frictionless): ``λ_n,i`` free.

This is Λ(a) of :mod:`gaussqp.friction.multiplier_set` with each contact's law in place of the all-sticking cones:
for a mode-free Coulomb problem it is the set of forces of every solution with acceleration ``a`` (the law at
fixed ``w`` is exactly the De Saxcé/Signorini–Coulomb law's fibre), so when ``a`` is unique it is the set of all
solutions' forces. It is convex: variables ``x`` per contact (``λ_n`` for one-parameter laws; ``(λ_n, ν)`` in the
second-order cone ``‖ν‖ <= λ_n`` with ``λ_t = μ ν`` for a disk), ``A x = r`` with ``r = M a + F``.

For each contact the envelope holds the range ``[min, max]`` of ``λ_n,i`` and the largest sliding-friction force
``max ‖P_i λ_t,i‖`` (``P_i`` the first two tangent components, or a map the caller gives, e.g. MuJoCo's
``force_map``). Each end is a :class:`Bound`:

- *primal point*: the program's ``x`` put on the affine hull ``A x = r`` by a least-squares step, its residual and
  cone slack recomputed here (:data:`~gaussqp.settings.ENVELOPE_VERIFY_RTOL`): the end is *attained*;
- *dual certificate*: ``(y, z)`` with ``q − Aᵀy − Bᵀz = 0`` and ``z`` in the (self-dual) cones, recomputed here:
  then ``qᵀx >= rᵀy`` on the whole set (weak duality), the end is *proven*. A verified ray
  (``A d = 0``, ``d`` in the cones, ``qᵀd < 0``) proves an infinite end.

The gap between the attained and the proven value is the bound's certified ``width``; a bound whose point or dual
does not verify is ``None`` with its ``reason``, never a number. When ``A`` has independent columns the set is a
point: ``x = A⁺r`` and the duals ``y = (A⁺)ᵀc`` (``Aᵀy = c`` exactly up to round-off) need no program. The largest
tangential force — a maximum of a convex function, not a convex program — is bracketed: support programs
``h(θ) = max θᵀP x`` in directions θ of the tangent plane give an outer polygon whose consecutive-line
intersections bound ``max ‖P x‖`` above (each wedge of two proven half-planes contains the set), the verified points
bound it below; directions are added at the worst vertex until the bracket closes
(:data:`~gaussqp.settings.ENVELOPE_TANGENT_RTOL`). The programs go to Clarabel in its standard form (as
:mod:`gaussqp.friction.multiplier_conic` does), with cvxpy (SCS) as the fallback when Clarabel decides nothing.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..errors import NotApplicableError, ShapeError, WrongTypeError
from ..model.problem import ContactProblem
from ..model.scales import data_scales
from ..results import Certificate, json_float, to_jsonable
from ..settings import (
    ENVELOPE_ACTIVE_RTOL,
    ENVELOPE_VARIABLES_MAX,
    ENVELOPE_MEMBERSHIP_RTOL,
    ENVELOPE_TANGENT_DIRECTIONS_MAX,
    ENVELOPE_TANGENT_RTOL,
    ENVELOPE_VERIFY_RTOL,
    NEGLIGIBLE_FORCE_RTOL,
    PRESETS,
    RANK_RTOL,
    SCALE_FLOOR,
)

__all__ = ["Bound", "ContactEnvelope", "ContactLaw", "ForceRanges", "GroupEnvelope", "contact_laws", "force_ranges"]

LAWS = ("separating", "sticking", "sliding", "frictionless", "bilateral")
SOURCE = "Λ(a) ∩ each contact's law at a (docs/DESIGN.md §3.2), weak conic duality"


# ---------------------------------------------------------------- the laws at the answer


@dataclass(frozen=True)
class ContactLaw:
    """Contact ``index``'s law in the force set at ``a``: ``law`` (one of :data:`LAWS`), the slip direction of a
    sliding law (problem tangent coordinates, friction ``−μ λ_n slip``), and the relative acceleration it was read
    from (``normal_acceleration``, ``tangent_acceleration``)."""

    index: int
    law: str
    slip: np.ndarray | None
    normal_acceleration: float
    tangent_acceleration: np.ndarray | None


def contact_laws(problem: ContactProblem, a, lam_n=None) -> list[ContactLaw]:
    """Each contact's law at the acceleration ``a`` (module docstring), decided at the data's row scales
    (:data:`~gaussqp.settings.ENVELOPE_ACTIVE_RTOL`). ``lam_n``: the answer's normal forces; a row carrying a force
    that is not negligible counts as active whatever its slack (round-off next to a force is no detachment)."""
    p = problem
    a = np.asarray(a, dtype=float).ravel()
    sc = data_scales(p)
    d1 = p.dimension - 1
    wn = np.asarray(p.J_n @ a).ravel() + p.normal_drift
    wt = (np.asarray(p.J_t @ a).ravel() + p.tangent_drift) if d1 else np.zeros(0)
    out = []
    for i in range(p.m):
        kind, mode, mu = str(p.types[i]), str(p.modes[i]), float(p.friction[i])
        frictional = bool(p.has_tangent[i]) and mu > 0.0 and mode != "frictionless"
        ti = wt[i * d1 : (i + 1) * d1] if bool(p.has_tangent[i]) else None
        if kind == "bilateral":
            if frictional:
                raise NotApplicableError(
                    f"contacts[{i}]: a bilateral contact with friction ({mode}) has the "
                    "non-convex cone ‖λ_t‖ <= μ|λ_n|; force envelopes take unilateral frictional "
                    "contacts and frictionless bilateral ones"
                )
            out.append(ContactLaw(i, "bilateral", None, float(wn[i]), ti))
            continue
        loaded = False
        if lam_n is not None:
            lam = float(np.asarray(lam_n, dtype=float)[i])
            loaded = lam * sc.normal_weight[i] / max(sc.force, SCALE_FLOOR) > NEGLIGIBLE_FORCE_RTOL
        if wn[i] > ENVELOPE_ACTIVE_RTOL * sc.normal_row[i] and not loaded:
            out.append(ContactLaw(i, "separating", None, float(wn[i]), ti))
        elif not frictional:
            out.append(ContactLaw(i, "frictionless", None, float(wn[i]), ti))
        elif mode == "sliding":
            out.append(ContactLaw(i, "sliding", np.array(p.slip[i], dtype=float), float(wn[i]), ti))
        elif mode == "sticking":
            out.append(ContactLaw(i, "sticking", None, float(wn[i]), ti))
        else:  # coulomb: stick or slip decided by the tangential acceleration at the answer
            scale = float(np.linalg.norm(sc.tangent_row[i * d1 : (i + 1) * d1]))
            nt = float(np.linalg.norm(ti))
            if nt > ENVELOPE_ACTIVE_RTOL * scale and nt > 0.0:
                out.append(ContactLaw(i, "sliding", ti / nt, float(wn[i]), ti))
            else:
                out.append(ContactLaw(i, "sticking", None, float(wn[i]), ti))
    return out


# ---------------------------------------------------------------- results


@dataclass
class Bound:
    """One end of an envelope.

    ``value`` is the proven bound (the dual certificate's; ``inf`` for a verified ray) or None when it could not be
    verified (``reason`` says why); ``attained`` the value at the verified primal point (None without one);
    ``width = |value − attained|``, the certified width; ``how`` is "program" (Clarabel or cvxpy), "point" (the set
    is a point: linear algebra), "ray" (unbounded), "zero" (the law forces 0) or "scaled" (a sliding contact's
    friction, ``μ‖P s‖`` times its normal bound). ``certificate`` carries the evidence (point, ``y``, ``z``,
    violations)."""

    sense: str
    value: float | None
    attained: float | None = None
    how: str = ""
    reason: str = ""
    certificate: Certificate | None = None

    @property
    def width(self) -> float | None:
        if self.value is None or self.attained is None:
            return None
        if math.isinf(self.value):
            return math.inf
        return abs(self.value - self.attained)

    @property
    def certified(self) -> bool:
        return self.value is not None and self.attained is not None or (self.value is not None and self.how == "ray")

    def as_dict(self) -> dict:
        return {
            "sense": self.sense,
            "value": json_float(self.value),
            "attained": json_float(self.attained),
            "width": json_float(self.width),
            "how": self.how,
            "reason": self.reason,
            "certificate": None if self.certificate is None else self.certificate.as_dict(with_data=True),
        }


@dataclass
class ContactEnvelope:
    """Contact ``index``: its ``law`` at the answer, the normal force's ``normal_min`` / ``normal_max`` and the
    largest friction force ``tangent_max`` (:class:`Bound`), and the largest hold margin ``μλ_n − ‖λ_t‖`` over the
    set for a sticking contact (``hold_margin``, a :class:`Bound` of sense "max"; None otherwise)."""

    index: int
    law: str
    normal_min: Bound
    normal_max: Bound
    tangent_max: Bound
    hold_margin: Bound | None = None
    slip: np.ndarray | None = None

    @property
    def normal_range(self) -> tuple[float | None, float | None]:
        return self.normal_min.value, self.normal_max.value

    def as_dict(self) -> dict:
        return {
            "index": self.index,
            "law": self.law,
            "normal_range": [json_float(v) for v in self.normal_range],
            "tangent_max": json_float(self.tangent_max.value),
            "hold_margin": None if self.hold_margin is None else json_float(self.hold_margin.value),
            "slip": None if self.slip is None else to_jsonable(self.slip),
            "bounds": {
                "normal_min": self.normal_min.as_dict(),
                "normal_max": self.normal_max.as_dict(),
                "tangent_max": self.tangent_max.as_dict(),
                "hold_margin": None if self.hold_margin is None else self.hold_margin.as_dict(),
            },
        }


@dataclass
class GroupEnvelope:
    """The range of the summed normal force of the contacts ``members`` (e.g. the four corners of a box on a
    plane, one MuJoCo geom pair)."""

    name: str
    members: tuple[int, ...]
    normal_min: Bound
    normal_max: Bound

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "members": list(self.members),
            "normal_range": [json_float(self.normal_min.value), json_float(self.normal_max.value)],
            "bounds": {"normal_min": self.normal_min.as_dict(), "normal_max": self.normal_max.as_dict()},
        }


@dataclass
class ForceRanges:
    """The envelopes of one answer: ``contacts[i]`` for every contact of the problem (input order), ``groups``,
    the acceleration ``a`` they are taken at, whether the set is a point (``point``: independent force columns),
    whether the answer's own forces lie in the set (``contains_answer``, recomputed; None without them),
    ``acceleration_unique`` (the solution's decision, None when undecided: the envelope is then the force set of
    this acceleration), the number of programs run and the seconds spent."""

    problem_name: str
    acceleration: np.ndarray
    contacts: list[ContactEnvelope]
    groups: list[GroupEnvelope] = field(default_factory=list)
    point: bool = False
    contains_answer: bool | None = None
    acceleration_unique: bool | None = None
    programs: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def certified(self) -> bool:
        """Every bound of every contact verified."""
        return all(b.certified for c in self.contacts for b in (c.normal_min, c.normal_max, c.tangent_max))

    @property
    def unique_forces(self) -> bool | None:
        """True when the set is a point (independent force columns) or every certified normal range and friction
        maximum closes to its width (:data:`~gaussqp.settings.ENVELOPE_TANGENT_RTOL` of the force scale); False
        when a certified normal range is wider; None when a bound is not certified."""
        if self.point:
            return True
        if not self.certified:
            return None
        scale = max(
            [abs(v) for c in self.contacts for v in c.normal_range if v is not None and math.isfinite(v)]
            + [SCALE_FLOOR]
        )
        spread = max([c.normal_max.value - c.normal_min.value for c in self.contacts] + [0.0])
        return bool(spread <= ENVELOPE_TANGENT_RTOL * scale)

    def as_dict(self) -> dict:
        return {
            "problem": self.problem_name,
            "acceleration": to_jsonable(self.acceleration),
            "acceleration_unique": self.acceleration_unique,
            "point": self.point,
            "contains_answer": self.contains_answer,
            "certified": self.certified,
            "programs": self.programs,
            "seconds": self.seconds,
            "notes": list(self.notes),
            "contacts": [c.as_dict() for c in self.contacts],
            "groups": [g.as_dict() for g in self.groups],
        }


# ---------------------------------------------------------------- the force set as a conic program


class ForceSet:
    """``{x : A x = r, x in the cones}`` of :func:`contact_laws` (module docstring), with ``normal[i]`` (the
    functional giving ``λ_n,i``) and ``tangent[i]`` (the ``(d−1) × N`` map giving ``λ_t,i``)."""

    def __init__(self, problem: ContactProblem, a, laws: list[ContactLaw]):
        p = self.p = problem
        self.laws = laws
        d1 = p.dimension - 1
        cols, cones, self.var = [], [], {}
        N = 0
        Jn = p.J_n.toarray() if sp.issparse(p.J_n) else np.asarray(p.J_n)
        Jt = (p.J_t.toarray() if sp.issparse(p.J_t) else np.asarray(p.J_t)) if d1 else np.zeros((0, p.n))
        self.free = []
        for law in laws:
            i = law.index
            if law.law == "separating":
                continue
            n_i = Jn[i]
            if law.law in ("bilateral", "frictionless"):
                cols.append(n_i)
                if law.law == "frictionless":
                    cones.append(("nonneg", np.array([N])))
                else:
                    self.free.append(N)
                self.var[i] = np.array([N])
                N += 1
            elif law.law == "sliding":
                T = Jt[i * d1 : (i + 1) * d1]
                cols.append(n_i - float(p.friction[i]) * (T.T @ law.slip))
                cones.append(("nonneg", np.array([N])))
                self.var[i] = np.array([N])
                N += 1
            else:  # sticking: (λ_n, ν), ‖ν‖ <= λ_n, λ_t = μ ν
                T = Jt[i * d1 : (i + 1) * d1]
                cols.append(n_i)
                cols.extend(float(p.friction[i]) * T)
                cones.append(("soc", N + np.arange(d1 + 1)))
                self.var[i] = N + np.arange(d1 + 1)
                N += d1 + 1
        if N > ENVELOPE_VARIABLES_MAX:
            raise NotApplicableError(
                f"force envelopes: {N} force variables, above ENVELOPE_VARIABLES_MAX = "
                f"{ENVELOPE_VARIABLES_MAX} (gaussqp.settings)"
            )
        self.N = N
        self.A = np.array(cols).T if cols else np.zeros((p.n, 0))
        self.cones = cones
        self.a = np.asarray(a, dtype=float).ravel()
        self.r = np.asarray(p.M @ self.a).ravel() + p.F
        self.absA = np.abs(self.A)
        self.rho = float(np.abs(self.r).max(initial=0.0)) or 1.0
        self.programs = 0
        self.cache: dict = {}
        # the set is a point when A has independent columns (exact up to the rank decision; the duals then verify)
        if N:
            U, s, Vt = np.linalg.svd(self.A, full_matrices=False)
            rank = int(np.sum(s > RANK_RTOL * max(s[0], SCALE_FLOOR) * max(self.A.shape)))
            self.independent = rank == N
            self.pinv = (Vt.T / np.where(s > 0, s, 1.0)) @ U.T if self.independent else None
        else:
            self.independent, self.pinv = True, np.zeros((0, p.n))

    # -- maps from x to forces
    def normal_functional(self, i: int) -> np.ndarray:
        c = np.zeros(self.N)
        if i in self.var:
            c[self.var[i][0]] = 1.0
        return c

    def tangent_map(self, i: int) -> np.ndarray:
        """``(d−1) × N``: ``λ_t,i = L x``."""
        p, d1 = self.p, self.p.dimension - 1
        L = np.zeros((d1, self.N))
        law = self.laws[i]
        if i not in self.var or law.law in ("bilateral", "frictionless"):
            return L
        v = self.var[i]
        mu = float(p.friction[i])
        if law.law == "sliding":
            L[:, v[0]] = -mu * law.slip
        else:
            L[:, v[1:]] = mu * np.eye(d1)
        return L

    def forces(self, x) -> tuple[np.ndarray, np.ndarray]:
        d1 = self.p.dimension - 1
        ln = np.zeros(self.p.m)
        lt = np.zeros((self.p.m, d1))
        for i in range(self.p.m):
            ln[i] = self.normal_functional(i) @ x
            lt[i] = self.tangent_map(i) @ x if d1 else lt[i]
        return ln, lt

    def x_of(self, lam_n, lam_t) -> np.ndarray:
        """The variables of given forces (the answer's), for the membership test."""
        x = np.zeros(self.N)
        if not self.p.m:
            return x
        lt = np.asarray(lam_t, dtype=float).reshape(self.p.m, -1) if self.p.dimension > 1 else None
        for i, v in self.var.items():
            x[v[0]] = float(lam_n[i])
            if self.laws[i].law == "sticking":
                mu = float(self.p.friction[i])
                x[v[1:]] = lt[i] / mu
        return x

    # -- verification
    def cone_violation(self, x, cones=None, scale_by=None) -> float:
        worst = 0.0
        for kind, idx in self.cones if cones is None else cones:
            v = x[idx]
            if kind == "nonneg":
                worst = max(worst, float(-v.min()))
            else:
                worst = max(worst, float(np.linalg.norm(v[1:]) - v[0]))
        return worst

    def verify_point(self, x) -> tuple[np.ndarray | None, dict]:
        """``x`` put on ``A x = r`` (least squares on the columns) and checked: (point or None, data)."""
        x = np.asarray(x, dtype=float).copy()
        res = self.A @ x - self.r
        if self.N:
            x -= np.linalg.lstsq(self.A, res, rcond=None)[0]
        res = self.A @ x - self.r
        scale = float((self.absA @ np.abs(x)).max(initial=0.0)) + float(np.abs(self.r).max(initial=0.0))
        scale = max(scale, SCALE_FLOOR)
        viol = self.cone_violation(x)
        fscale = max(
            float(np.abs(x).max(initial=0.0)),
            float(np.abs(self.r).max(initial=0.0)) / max(float(self.absA.max(initial=0.0)), SCALE_FLOOR),
            SCALE_FLOOR,
        )
        data = {"residual": float(np.abs(res).max(initial=0.0)) / scale, "cone_violation": viol / fscale}
        ok = data["residual"] <= ENVELOPE_VERIFY_RTOL and data["cone_violation"] <= ENVELOPE_VERIFY_RTOL
        return (x if ok else None), data

    def verify_dual(self, q, y, z_blocks, cones) -> tuple[bool, dict]:
        """``q − Aᵀy − Σ B_kᵀ z_k = 0`` and ``z_k`` in cone k (self-dual), relative to ``‖q‖∞ + ‖|A|ᵀ|y|‖∞``."""
        Ntot = q.size
        A = self.A if Ntot == self.N else np.hstack([self.A, np.zeros((self.A.shape[0], Ntot - self.N))])
        absA = self.absA if Ntot == self.N else np.abs(A)
        w = q - A.T @ y
        zviol = 0.0
        for (kind, idx), z in zip(cones, z_blocks):
            w[idx] -= z
            if kind == "nonneg":
                zviol = max(zviol, float(-z.min(initial=0.0)))
            else:
                zviol = max(zviol, float(np.linalg.norm(z[1:]) - z[0]))
        scale = max(float(np.abs(q).max(initial=0.0)) + float((absA.T @ np.abs(y)).max(initial=0.0)), SCALE_FLOOR)
        data = {"stationarity": float(np.abs(w).max(initial=0.0)) / scale, "cone_violation": zviol / scale}
        return data["stationarity"] <= ENVELOPE_VERIFY_RTOL and data["cone_violation"] <= ENVELOPE_VERIFY_RTOL, data

    def verify_ray(self, q, d, cones) -> tuple[bool, dict]:
        Ntot = q.size
        A = self.A if Ntot == self.N else np.hstack([self.A, np.zeros((self.A.shape[0], Ntot - self.N))])
        nd = float(np.abs(d).max(initial=0.0))
        if nd == 0.0:
            return False, {}
        d = d / nd
        res = float(np.abs(A @ d).max(initial=0.0)) / max(float((np.abs(A) @ np.abs(d)).max(initial=0.0)), SCALE_FLOOR)
        viol = self.cone_violation(d, cones)
        slope = float(q @ d) / max(float(np.abs(q).max(initial=0.0)), SCALE_FLOOR)
        data = {"residual": res, "cone_violation": viol, "slope": slope, "ray": d}
        return res <= ENVELOPE_VERIFY_RTOL and viol <= ENVELOPE_VERIFY_RTOL and slope < -math.sqrt(
            ENVELOPE_VERIFY_RTOL
        ), data

    # -- programs
    def minimize(self, q, extra: int = 0, extra_cones=()) -> dict:
        """``min qᵀx`` over the set (``extra`` more variables, ``extra_cones`` on them): {"status", "x", "y", "z",
        "solver"}; statuses "solved", "unbounded" (x a ray), "failed"."""
        self.programs += 1
        cones = list(self.cones) + list(extra_cones)
        ans = _clarabel(self, q, extra, cones)
        if ans["status"] in ("solved", "unbounded"):
            return ans
        fallback = _cvxpy(self, q, extra, cones)
        return fallback if fallback["status"] in ("solved", "unbounded") else ans


def _clarabel(fs: ForceSet, q, extra, cones) -> dict:
    import clarabel

    from ..backends.clarabel_ import CLARABEL

    Ntot = fs.N + extra
    n = fs.A.shape[0]
    order = [c for c in cones if c[0] == "nonneg"] + [c for c in cones if c[0] == "soc"]
    key = (extra, tuple((kind, tuple(int(j) for j in idx)) for kind, idx in cones[len(fs.cones) :]))
    if key not in fs.cache:  # the rows depend on the set and the extra cones only, not on the objective
        A = np.hstack([fs.A, np.zeros((n, extra))])
        rows = [sp.csc_matrix(A)]
        for kind, idx in order:
            rows.append(sp.csc_matrix((-np.ones(idx.size), (np.arange(idx.size), idx)), shape=(idx.size, Ntot)))
        Aall = sp.vstack(rows, format="csc")
        b = np.concatenate([fs.r / fs.rho, np.zeros(Aall.shape[0] - n)])
        nn = sum(idx.size for kind, idx in order if kind == "nonneg")
        cl = (
            [clarabel.ZeroConeT(n)]
            + ([clarabel.NonnegativeConeT(nn)] if nn else [])
            + [clarabel.SecondOrderConeT(int(idx.size)) for kind, idx in order if kind == "soc"]
        )
        fs.cache[key] = (Aall, b, cl, sp.csc_matrix((Ntot, Ntot)))
    Aall, b, cl, P0 = fs.cache[key]
    for tol in (PRESETS["high"], PRESETS["mid"]):
        s = clarabel.DefaultSettings()
        for k, v in CLARABEL.settings(tol).items():
            setattr(s, k, v)
        try:
            sol = clarabel.DefaultSolver(P0, np.asarray(q, dtype=float), Aall, b, cl, s).solve()
        except (ValueError, ArithmeticError, RuntimeError, TypeError) as exc:
            return {"status": "failed", "solver": f"clarabel: {type(exc).__name__}: {exc}"}
        raw = str(sol.status)
        if raw in ("Solved", "AlmostSolved"):
            z = np.asarray(sol.z, dtype=float)
            off = n
            zmap = {}
            for kind, idx in order:
                zmap[id(idx)] = z[off : off + idx.size]
                off += idx.size
            return {
                "status": "solved",
                "x": fs.rho * np.asarray(sol.x, dtype=float),
                "y": -z[:n],
                "z": [zmap[id(idx)] for kind, idx in cones],
                "cones": cones,
                "solver": f"clarabel ({raw})",
            }
        if raw in ("DualInfeasible", "AlmostDualInfeasible"):
            return {
                "status": "unbounded",
                "x": np.asarray(sol.x, dtype=float),
                "cones": cones,
                "solver": f"clarabel ({raw})",
            }
    return {"status": "failed", "solver": f"clarabel ({raw})"}


def _cvxpy(fs: ForceSet, q, extra, cones) -> dict:
    """The same program through cvxpy with SCS (another solver), the fallback."""
    try:
        import cvxpy as cp
    except ImportError:  # pragma: no cover
        return {"status": "failed", "solver": "cvxpy not installed"}
    Ntot = fs.N + extra
    x = cp.Variable(Ntot)
    A = np.hstack([fs.A, np.zeros((fs.A.shape[0], extra))])
    eq = A @ x == fs.r / fs.rho
    cons = [eq]
    cc = []
    for kind, idx in cones:
        c = x[idx] >= 0 if kind == "nonneg" else cp.SOC(x[idx[0]], x[idx[1:]])
        cons.append(c)
        cc.append(c)
    prob = cp.Problem(cp.Minimize(np.asarray(q) @ x), cons)
    try:
        prob.solve(solver="SCS", eps=1e-10, max_iters=200000)
    except Exception as exc:  # noqa: BLE001 - a backend failure is a failed program
        return {"status": "failed", "solver": f"cvxpy/SCS: {type(exc).__name__}"}
    if prob.status in ("optimal", "optimal_inaccurate") and x.value is not None:
        y = np.asarray(eq.dual_value, dtype=float).ravel()
        z = []
        for c, (kind, idx) in zip(cc, cones):
            dv = c.dual_value
            z.append(
                np.asarray(dv, dtype=float).ravel()
                if kind == "nonneg"
                else np.concatenate([np.ravel(dv[0]), np.ravel(dv[1])])
            )
        # cvxpy's sign of the equality dual differs by convention: the verification takes whichever sign verifies
        return {
            "status": "solved",
            "x": fs.rho * np.asarray(x.value).ravel(),
            "y": -y,
            "y_alt": y,
            "z": z,
            "cones": cones,
            "solver": f"cvxpy/SCS ({prob.status})",
        }
    return {"status": "failed", "solver": f"cvxpy/SCS ({prob.status})"}


# ---------------------------------------------------------------- bounds


def _certificate(name: str, holds: bool, implies: str, data: dict) -> Certificate:
    return Certificate(
        id="force_envelope", name=name, source=SOURCE, holds=holds, margin=0.0, implies=implies, data=data
    )


def _linear_bound(fs: ForceSet, c: np.ndarray, sense: str, label: str) -> tuple[Bound, np.ndarray | None]:
    """``max`` or ``min`` of ``cᵀx`` over the set, certified; also returns the verified point (or None)."""
    q = -c if sense == "max" else c
    sign = -1.0 if sense == "max" else 1.0
    if fs.N == 0:  # no force variables: every force is 0 (the set is {0}, or empty when r != 0)
        p = fs.p
        load = float(np.abs(np.asarray(p.M @ fs.a).ravel()).max(initial=0.0)) + float(np.abs(p.F).max(initial=0.0))
        if float(np.abs(fs.r).max(initial=0.0)) <= ENVELOPE_VERIFY_RTOL * load:
            return Bound(sense, 0.0, 0.0, "zero", "no contact carries force at this acceleration"), np.zeros(0)
        return Bound(sense, None, None, "", "the set is empty: M a + F != 0 with every contact separating"), None
    if fs.independent:  # the set is a point: x = A⁺r, Aᵀy = q exactly
        x0, pdata = fs.verify_point(fs.pinv @ fs.r)
        y = fs.pinv.T @ q
        ok, ddata = fs.verify_dual(q, y, [np.zeros(idx.size) for _, idx in fs.cones], fs.cones)
        if x0 is not None and ok:
            val = sign * float(fs.r @ y)
            cert = _certificate(
                label,
                True,
                f"{label}: the force set is a point (independent force columns), {sense} = {val:.6g}",
                {
                    "point": pdata,
                    "dual": ddata,
                    "evidence": {"x": x0, "y": y, "verify": "A x = M a + F, x in the cones; Aᵀy = c: cᵀx = rᵀy"},
                },
            )
            return Bound(sense, val, float(c @ x0), "point", "", cert), x0
    ans = fs.minimize(q)
    if ans["status"] == "unbounded":
        ok, rdata = fs.verify_ray(q, ans["x"], ans["cones"])
        if ok:
            cert = _certificate(
                label,
                True,
                f"{label}: unbounded along a verified ray (A d = 0, d in the cones)",
                {
                    "ray": rdata,
                    "evidence": {"ray": rdata["ray"], "verify": "A d = 0, d in the cones, cᵀd of the right sign"},
                },
            )
            return Bound(sense, -sign * math.inf, None, "ray", "", cert), None
        return Bound(
            sense, None, None, "", f"the program reported unbounded but its ray does not verify ({ans['solver']})"
        ), None
    if ans["status"] != "solved":
        return Bound(sense, None, None, "", f"no program decided it ({ans['solver']})"), None
    x0, pdata = fs.verify_point(ans["x"])
    ok, ddata = fs.verify_dual(q, ans["y"], ans["z"], ans["cones"])
    y = ans["y"]
    if not ok and "y_alt" in ans:
        ok2, d2 = fs.verify_dual(q, ans["y_alt"], [-z for z in ans["z"]], ans["cones"])
        if ok2:
            ok, ddata, y = ok2, d2, ans["y_alt"]
    attained = None if x0 is None else float(c @ x0)
    value = sign * float(fs.r @ y) if ok else None
    reasons = []
    if x0 is None:
        reasons.append(
            f"the primal point does not verify (residual {pdata['residual']:.2e}, cone violation "
            f"{pdata['cone_violation']:.2e})"
        )
    if not ok:
        reasons.append(
            f"the dual certificate does not verify (stationarity {ddata['stationarity']:.2e}, cone "
            f"violation {ddata['cone_violation']:.2e})"
        )
    if reasons:
        return Bound(sense, None, attained, "program", "; ".join(reasons) + f" ({ans['solver']})"), x0
    cert = _certificate(
        label,
        True,
        f"{label}: {sense} in [{min(value, attained):.9g}, {max(value, attained):.9g}] (attained, proven)",
        {
            "point": pdata,
            "dual": ddata,
            "solver": ans["solver"],
            "evidence": {
                "x": x0,
                "y": y,
                "z": ans["z"],
                "verify": "A x = M a + F, x in the cones (attained); c − Aᵀy − Bᵀz = 0 (max: −c), z in the "
                "cones: cᵀx <= rᵀy on the set (proven)",
            },
        },
    )
    return Bound(sense, value, attained, "program", "", cert), x0


def _tangent_bound(fs: ForceSet, i: int, P: np.ndarray, answer_direction, rtol: float = ENVELOPE_TANGENT_RTOL) -> Bound:
    """``max ‖P λ_t,i‖`` over the set (``P`` k × (d−1), k = 1 or 2), bracketed (module docstring)."""
    law = fs.laws[i]
    label = f"contact {i} tangent max"
    if law.law in ("separating", "frictionless", "bilateral"):
        return Bound("max", 0.0, 0.0, "zero", f"{law.law}: no friction force")
    # ‖P λ‖ = ‖Σ_r V_rᵀ λ‖ (P = U Σ Vᵀ): P's rows reduced to its rank, exactly. A map with a zero row (MuJoCo's planar
    # contacts: the engine's two tangents, the problem's one, P = [0; 1]) asked a support in a direction the set does not
    # reach, whose zero objective the dual certificate could not verify, and the audit flagged an exact answer
    U, sv, Vt = np.linalg.svd(P, full_matrices=False)
    # only singular values at round-off of the largest are dropped (a small one is a real direction of the map)
    r = int(np.sum(sv > max(P.shape) * np.finfo(float).eps * (float(sv[0]) if sv.size else 0.0)))
    if r == 0:
        return Bound("max", 0.0, 0.0, "zero", "the tangent map is zero: no friction force in its directions")
    P = sv[:r, None] * Vt[:r]
    if answer_direction is not None:
        answer_direction = U[:, :r].T @ np.asarray(answer_direction, dtype=float)
    L = P @ fs.tangent_map(i)  # k × N
    k = L.shape[0]
    if k == 1:
        dirs = [np.array([1.0]), np.array([-1.0])]
    else:
        th0 = (
            math.atan2(answer_direction[1], answer_direction[0])
            if answer_direction is not None and np.linalg.norm(answer_direction) > 0
            else 0.0
        )
        dirs = [np.array([math.cos(th0 + j * math.pi / 2), math.sin(th0 + j * math.pi / 2)]) for j in range(4)]
    hs, pts, certs = [], [], []
    for th in dirs:
        b, x0 = _linear_bound(fs, th @ L, "max", label)
        if b.value is None:
            return Bound("max", None, None, "", f"support in direction {np.round(th, 6).tolist()}: {b.reason}")
        if math.isinf(b.value):
            return Bound("max", math.inf, None, "ray", "", b.certificate)
        hs.append(b.value)
        certs.append(b.certificate)
        if x0 is not None:
            pts.append(float(np.linalg.norm(L @ x0)))
    if k == 1:
        upper = max(hs)
        lower = max(pts) if pts else None
        return Bound(
            "max",
            upper,
            lower,
            "program" if not fs.independent else "point",
            "",
            _certificate(
                label,
                True,
                f"{label}: max |P λ_t| = max(h(+1), h(−1))",
                {"support": hs, "directions": [d.tolist() for d in dirs]},
            ),
        )
    angles = [math.atan2(d[1], d[0]) for d in dirs]
    while True:
        order = np.argsort(np.mod(angles, 2 * math.pi))
        A_ = [angles[j] for j in order]
        H_ = [hs[j] for j in order]
        verts = []
        for j in range(len(A_)):
            j2 = (j + 1) % len(A_)
            t1, t2 = A_[j], A_[j2]
            Mx = np.array([[math.cos(t1), math.sin(t1)], [math.cos(t2), math.sin(t2)]])
            v = np.linalg.solve(Mx, [H_[j], H_[j2]])
            gap = np.mod(t2 - t1, 2 * math.pi)
            verts.append((float(np.linalg.norm(v)), v, t1, gap))
        upper, v, t1, gap = max(verts, key=lambda t: t[0])
        lower = max(pts) if pts else 0.0
        scale = max(upper, max(abs(h) for h in hs), SCALE_FLOOR)
        if upper - lower <= rtol * scale or len(angles) >= ENVELOPE_TANGENT_DIRECTIONS_MAX:
            break
        tv = math.atan2(v[1], v[0])
        off = np.mod(tv - t1, 2 * math.pi)
        new = tv if gap * ENVELOPE_TANGENT_RTOL < off < gap * (1 - ENVELOPE_TANGENT_RTOL) else t1 + gap / 2
        th = np.array([math.cos(new), math.sin(new)])
        b, x0 = _linear_bound(fs, th @ L, "max", label)
        if b.value is None:
            return Bound(
                "max", None, lower if pts else None, "", f"support in direction {np.round(th, 6).tolist()}: {b.reason}"
            )
        angles.append(new)
        hs.append(b.value)
        if x0 is not None:
            pts.append(float(np.linalg.norm(L @ x0)))
    if not pts:
        return Bound("max", upper, None, "", "no support point verified")
    cert = _certificate(
        label,
        True,
        f"{label}: max ‖P λ_t‖ in [{lower:.9g}, {upper:.9g}] ({len(angles)} proven "
        "half-planes; their consecutive intersections bound it)",
        {
            "directions": angles,
            "support": hs,
            "evidence": {
                "directions": angles,
                "support": hs,
                "verify": "each support value proven by its own dual (force_envelope)",
            },
        },
    )
    return Bound("max", upper, lower, "point" if fs.independent else "program", "", cert)


def _hold_margin(fs: ForceSet, i: int) -> Bound:
    """max ``μ_i(λ_n,i − ‖ν_i‖)`` over the set (an epigraph variable u >= ‖ν_i‖), certified like the others."""
    v = fs.var[i]
    mu = float(fs.p.friction[i])
    label = f"contact {i} hold margin"
    u = fs.N  # the extra variable
    cone = ("soc", np.concatenate([[u], v[1:]]))
    q = np.zeros(fs.N + 1)
    q[v[0]] = -mu
    q[u] = mu
    if fs.independent:
        x0, _ = fs.verify_point(fs.pinv @ fs.r)
        if x0 is not None:
            val = mu * (x0[v[0]] - float(np.linalg.norm(x0[v[1:]])))
            return Bound("max", val, val, "point", "", _certificate(label, True, f"{label}: the set is a point", {}))
    ans = fs.minimize(q, 1, [cone])
    if ans["status"] != "solved":
        return Bound("max", None, None, "", f"no program decided it ({ans['solver']})")
    x = ans["x"][: fs.N]
    x0, pdata = fs.verify_point(x)
    attained = None if x0 is None else mu * (x0[v[0]] - float(np.linalg.norm(x0[v[1:]])))
    ok, ddata = fs.verify_dual(q, ans["y"], ans["z"], ans["cones"])
    if not ok or x0 is None:
        return Bound("max", None, attained, "program", f"point verified: {x0 is not None}, dual verified: {ok}")
    return Bound(
        "max",
        -float(fs.r @ ans["y"]),
        attained,
        "program",
        "",
        _certificate(label, True, f"{label}: max μ(λ_n − ‖ν‖) over the set", {"point": pdata, "dual": ddata}),
    )


# ---------------------------------------------------------------- the public entry point


def force_ranges(
    problem: ContactProblem,
    solution=None,
    *,
    acceleration=None,
    groups=None,
    tangent_maps=None,
    hold_margins: bool = True,
    tangent_rtol: float = ENVELOPE_TANGENT_RTOL,
) -> ForceRanges:
    """The force envelopes of an answer: each contact's normal-force range, largest friction force and hold margin
    over the whole set of contact forces at the answer's acceleration, every bound certified (module docstring).

    Parameters
    ----------
    problem
        ContactProblem
    solution : Solution or None
        The answer; it must be ``solved`` with an acceleration (None only with ``acceleration``;
        :func:`gaussqp.force_ranges` solves the problem first when it is not given).
    acceleration : (n,) or None
        Take the set at this acceleration instead of the solution's.
    groups
        {name: [contact indices]} or None
        Also the range of each group's summed normal force.
    tangent_maps
        {contact: (k, d−1) array} or None
        ``P_i``: the friction force reported is ``‖P_i λ_t,i‖`` (default the first ``min(2, d−1)`` tangent
        components: the sliding friction of condim 4/6 contacts).
    hold_margins : bool
        Also the largest hold margin ``μλ_n − ‖λ_t‖`` of each sticking contact.
    tangent_rtol : float
        Close the friction-force bracket to this relative width (default
        :data:`~gaussqp.settings.ENVELOPE_TANGENT_RTOL`); the bracket is certified whatever its width.

    Returns
    -------
    ForceRanges
    """
    t0 = time.perf_counter()
    if not isinstance(problem, ContactProblem):
        raise WrongTypeError("problem", f"is a {type(problem).__name__}", "give a gaussqp.ContactProblem")
    lam_n = lam_t = None
    unique = None
    if acceleration is None:
        if solution is None:
            raise WrongTypeError(
                "solution",
                "is None and no acceleration is given",
                "give the solved answer, or call gaussqp.force_ranges(problem), which solves it first",
            )
        if solution.acceleration is None or str(solution.status) != "solved":
            raise NotApplicableError(
                f"force envelopes need a solved answer with an acceleration; this one is "
                f"{solution.status} ({solution.formulation})"
            )
        a = np.asarray(solution.acceleration, dtype=float)
        lam_n, lam_t = solution.lambda_normal, solution.lambda_tangent
        unique = solution.unique.get("acceleration")
    else:
        a = np.asarray(acceleration, dtype=float).ravel()
        if a.shape != (problem.n,) or not np.all(np.isfinite(a)):
            raise ShapeError("acceleration", f"has shape {a.shape} or non-finite entries", f"give {problem.n} numbers")
    laws = contact_laws(problem, a, lam_n)
    fs = ForceSet(problem, a, laws)
    notes = []
    contains = None
    if lam_n is not None:
        x_ans = fs.x_of(lam_n, lam_t)
        if any(laws[i].law == "separating" and abs(float(lam_n[i])) > 0 for i in range(problem.m)):
            notes.append("the answer has force on a contact separating at its acceleration")
        _, pdata = fs.verify_point(x_ans)
        contains = bool(
            pdata["residual"] <= ENVELOPE_MEMBERSHIP_RTOL and pdata["cone_violation"] <= ENVELOPE_MEMBERSHIP_RTOL
        )
    d1 = problem.dimension - 1
    envs = []
    for law in laws:
        i = law.index
        lo, _ = _linear_bound(fs, fs.normal_functional(i), "min", f"contact {i} normal min")
        hi, _ = _linear_bound(fs, fs.normal_functional(i), "max", f"contact {i} normal max")
        P = None if tangent_maps is None else tangent_maps.get(i)
        given = P is not None
        if P is None:
            P = np.eye(d1)[: min(2, d1)] if d1 else np.zeros((0, 0))
        P = np.atleast_2d(np.asarray(P, dtype=float))
        if given and (P.ndim != 2 or P.shape[1] != d1 or not 1 <= P.shape[0] <= 2 or not np.all(np.isfinite(P))):
            raise ShapeError(
                f"tangent_maps[{i}]",
                f"has shape {P.shape}" + ("" if np.all(np.isfinite(P)) else " and NaN or infinite entries"),
                f"give a finite (k, {d1}) matrix, k = 1 or 2: the engine's tangent directions in the problem's",
            )
        if law.law == "sliding":
            f = float(problem.friction[i]) * float(np.linalg.norm(P @ law.slip))
            if hi.value is None:
                tb = Bound("max", None, None, "", f"the normal max is not certified: {hi.reason}")
            else:
                tb = Bound(
                    "max", f * hi.value, None if hi.attained is None else f * hi.attained, "scaled", "", hi.certificate
                )
        elif d1 == 0:
            tb = Bound("max", 0.0, 0.0, "zero", "no tangent rows")
        else:
            direction = None
            if lam_t is not None:
                direction = P @ np.asarray(lam_t, dtype=float).reshape(problem.m, d1)[i]
            tb = _tangent_bound(fs, i, P, direction, tangent_rtol)
        hm = _hold_margin(fs, i) if hold_margins and law.law == "sticking" else None
        envs.append(ContactEnvelope(i, law.law, lo, hi, tb, hm, law.slip))
    genv = []
    for name, members in (groups or {}).items():
        members = tuple(int(j) for j in members)
        for j in members:
            if not 0 <= j < problem.m:
                raise ShapeError(
                    f"groups[{name!r}]",
                    f"names contact {j}, the problem has {problem.m}",
                    f"give indices 0 … {problem.m - 1}",
                )
        c = sum((fs.normal_functional(j) for j in members), np.zeros(fs.N))
        lo, _ = _linear_bound(fs, c, "min", f"group {name} normal min")
        hi, _ = _linear_bound(fs, c, "max", f"group {name} normal max")
        genv.append(GroupEnvelope(str(name), members, lo, hi))
    return ForceRanges(
        problem.name,
        a,
        envs,
        genv,
        point=bool(fs.independent and fs.N > 0),
        contains_answer=contains,
        acceleration_unique=unique,
        programs=fs.programs,
        seconds=time.perf_counter() - t0,
        notes=notes,
    )
