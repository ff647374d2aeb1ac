"""Exact enumeration of the pieces of the sliding (and stick/slip) contact problem.

Every sign/complementarity piece of tutorial §3.2.1 (37), (50), (58) — and with sticking contacts of
sticking §5 (71) — is a convex program (a QP/LP, or an SOCP with Coulomb disks); each feasible piece
gives solutions, which are merged when they coincide (:data:`SAME_RTOL`) and classified as unique,
multiple or a continuum, for the acceleration and for the multipliers separately. The reduced
matrices are those of :mod:`gaussqp.friction.sliding`.

Lazy imports (the idiom of :mod:`gaussqp.backends`): ``scipy.optimize`` is imported inside the functions
that use it, not when this module is imported.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from ..errors import NotApplicableError, SolverError, TooLargeError, UndecidedError
from ..linalg.dense import as_dense, matrix_rank, normalize_rows, null_space, ruiz_scaling, scaled_solve
from ..linalg.polyhedral_cones import cone_is_trivial, lp_dual_bound
from ..model.problem import ContactProblem
from ..model.scales import acceleration_scale, data_scales, relative
from .cones import ConeModel
from .sliding import sliding_tangent
from ..settings import (
    ENUMERATION_MAX,
    NONEXISTENCE_CHANGE,
    LP_VALUE_TOL,
    PIECE_LP_RTOL,
    PIECE_RTOL,
    ROUND_OFF,
    SAME_RTOL,
    VERIFY_RTOL,
)


# ---------------------------------------------------------------------------- enumeration
@dataclass
class PieceSolution:
    a: np.ndarray
    lam_n: np.ndarray
    lam_t: np.ndarray
    piece: str
    isolated: bool | None  # the piece's solution set is this single point (None: not decided)
    #: the acceleration is the same at every point of the piece's solution set (True when isolated;
    #: a segment of multipliers at one acceleration is False for ``isolated`` but True here)
    acceleration_fixed: bool | None = None
    pieces: list = field(default_factory=list)  # every piece this point was found on
    #: the mode of every contact at this point: "separated" (a detached unilateral contact), a coulomb contact's
    #: "sticking", "sliding+" or "sliding-" (the sign of ``u_t = T a + c``), else the contact's given mode; a
    #: point found on several pieces (on their common boundary) joins the modes with "|", e.g.
    #: "sticking|sliding+" at the onset of slip
    modes: list = field(default_factory=list)
    #: 0 for a solution of the data as given; else the smallest data change (forces and drifts, relative to each
    #: row's scale from the data) under which this point solves its piece, found when no piece has an exact
    #: solution (the ``relax`` of :func:`enumerate_solutions`)
    backward_error: float = 0.0

    def merge(
        self, piece: str, isolated: bool | None, acceleration_fixed: bool | None, modes: list | None = None
    ) -> None:
        """The same point found on another piece: keep the *weaker* claims (False < None < True), since a
        point isolated on one piece may lie on a segment of another; the modes of both pieces are kept."""
        self.pieces.append(piece)
        for i, md in enumerate(modes or []):
            if i < len(self.modes) and md not in self.modes[i].split("|"):
                self.modes[i] = self.modes[i] + "|" + md
        self.isolated = _weaker(self.isolated, isolated)
        self.acceleration_fixed = _weaker(self.acceleration_fixed, acceleration_fixed)


def _weaker(x: bool | None, y: bool | None) -> bool | None:
    if x is False or y is False:
        return False
    if x is None or y is None:
        return None
    return True


@dataclass
class Enumeration:
    """Every solution of the frictional contact problem, piece by piece (exact; few contacts).

    Two multiplicities, each "none" | "unique" | "multiple" | "continuum" | "undecided":

    - ``multiplicity``: of the *acceleration* (the physical question: a Painlevé paradox of
      indeterminacy is several accelerations). "multiple": finitely many distinct accelerations found,
      "continuum": a piece on which the acceleration varies, "undecided": one acceleration found on a
      conic piece whose other points are not examined.
    - ``multiplier_multiplicity``: of the solution points ``(a, λ)``: several points, or a piece that is
      a polyhedron with more than one point, at one acceleration is a hyperstatic (non-unique
      multipliers) case, not a paradox.

    Accelerations are "the same" when they differ by at most :data:`SAME_RTOL` times
    ``acceleration_scale``, a unit taken from the data (:func:`gaussqp.model.scales.acceleration_scale`),
    never from the solutions compared.
    """

    solutions: list[PieceSolution]
    pieces: int
    enumerated: list[int]
    multiplicity: str
    multiplier_multiplicity: str = "undecided"
    acceleration_scale: float = 1.0
    distinct_accelerations: int = 0
    #: the contacts whose mode (separated / stick / slip+ / slip-) the enumeration decided (mode "coulomb")
    coulomb: list[int] = field(default_factory=list)
    #: the data's units the solutions were merged with (None for an enumeration built by hand)
    units: "_Units | None" = field(default=None, repr=False, compare=False)
    #: when no piece has a solution for the data as given: the smallest change of the forces and drifts, relative to
    #: each row's scale, that makes a piece solvable, as the pieces' phase-one programs found it (``inf`` when no piece
    #: was decided); None otherwise
    nearest_change: float | None = None
    #: pieces whose phase-one program gave no verified point (a failed program, one that called itself infeasible, a
    #: point its exact rows refuse): their smallest data change is unknown, so "no solution" is not certified
    undecided_pieces: int = 0

    @property
    def count(self) -> int:
        return len(self.solutions)

    @property
    def none_certified(self) -> bool:
        """No solution, as the verdict contract certifies it (docs/DESIGN.md §4.3): no piece has one, every piece's
        phase one decided, and the nearest solvable data is more than
        :data:`~gaussqp.settings.NONEXISTENCE_CHANGE` away."""
        return (
            not self.solutions
            and self.nearest_change is not None
            and not self.undecided_pieces
            and self.nearest_change > NONEXISTENCE_CHANGE
        )

    def none_uncertified_reason(self) -> str:
        """Why "no solution" is not certified when no piece has one (:attr:`none_certified` False): what the phase
        one measured or could not."""
        if self.undecided_pieces:
            return (
                f"the phase-one programs of {self.undecided_pieces} pieces found no verified point: the data change "
                "they need is unknown"
            )
        if self.nearest_change is None:
            return "the data change a piece needs was not measured"
        return (
            f"a change of the data by {self.nearest_change:.1e} of their rows' scales makes one solvable, within the "
            f"{NONEXISTENCE_CHANGE:g} a certified infeasible must survive"
        )

    def find(
        self, a: np.ndarray, lam_n: np.ndarray | None = None, lam_t: np.ndarray | None = None
    ) -> PieceSolution | None:
        """The enumerated solution that ``(a, λ)`` (from another route) is, or None.

        The same test as the merge of the enumeration (:data:`SAME_RTOL` times the data's units): the
        acceleration, and with ``lam_n``/``lam_t`` the multipliers too, except against a solution whose piece
        holds a continuum of multipliers at that acceleration (``isolated`` False, ``acceleration_fixed``
        True), where any multipliers of the other route may be right and only the acceleration is compared.
        So "the answer of route X is one of the enumerated solutions" is ``enum.find(a, λ_n, λ_t) is not None``.
        """
        if self.units is None:
            raise NotApplicableError(
                "this enumeration carries no units (built by hand): compare its solutions directly"
            )
        a = np.asarray(a, dtype=float)
        for s in self.solutions:
            if not self.units.same_acceleration(s.a, a):
                continue
            if lam_n is None or (s.isolated is False and s.acceleration_fixed):
                return s
            lt = np.zeros_like(s.lam_t) if lam_t is None else np.asarray(lam_t, dtype=float).reshape(s.lam_t.shape)
            if self.units.same_point(s, a, np.asarray(lam_n, dtype=float), lt):
                return s
        return None


@dataclass(frozen=True)
class _Units:
    """Units from the data (never from an answer) to compare solutions: an acceleration unit and one
    multiplier unit per contact (the force unit divided by the row norm)."""

    a: float
    lam_n: np.ndarray
    lam_t: np.ndarray

    @classmethod
    def of(cls, problem: ContactProblem, Jn: np.ndarray, Jt: np.ndarray, M: np.ndarray) -> "_Units":

        ua = acceleration_scale(problem)
        force = max(float(np.abs(problem.F).max(initial=0.0)), float(np.abs(M).sum(axis=1).max(initial=0.0)) * ua)
        d1 = problem.dimension - 1
        nn = np.linalg.norm(Jn, axis=1)
        nt = (
            np.array([np.linalg.norm(Jt[i * d1 : (i + 1) * d1], 2) for i in range(problem.m)])
            if Jt.shape[0]
            else np.zeros(problem.m)
        )
        with np.errstate(divide="ignore"):
            ln = np.where(nn > 0, force / np.where(nn > 0, nn, 1.0), force)
            lt = np.where(nt > 0, force / np.where(nt > 0, nt, 1.0), force)
        return cls(ua, ln, lt)

    def same_acceleration(self, a1: np.ndarray, a2: np.ndarray) -> bool:
        return float(np.abs(a1 - a2).max(initial=0.0)) <= SAME_RTOL * self.a

    def same_point(self, s: PieceSolution, a, lam_n, lam_t) -> bool:
        return (
            self.same_acceleration(s.a, a)
            and bool(np.all(np.abs(s.lam_n - lam_n) <= SAME_RTOL * self.lam_n))
            and bool(np.all(np.abs(s.lam_t - lam_t).max(axis=1, initial=0.0) <= SAME_RTOL * self.lam_t))
        )


def enumerated_contacts(problem: ContactProblem) -> list[int]:
    """Contacts whose law is piecewise: frictional bilateral (sign of λ_n) and every unilateral (with mode
    ``"coulomb"`` too: four pieces each, :data:`COULOMB_PIECES`)."""
    modes, types = problem.modes, problem.types
    return [i for i in range(problem.m) if types[i] == "unilateral" or modes[i] != "frictionless"]


#: The pieces of a 2D "coulomb" contact, by label: separated (``λ_n = 0, λ_t = 0, u_n >= 0``), then with
#: ``u_n = 0, λ_n >= 0`` and ``u_t = T a + c``: stick (``u_t = 0, |λ_t| <= μ λ_n``), slip+ (``u_t >= 0,
#: λ_t = -μ λ_n``) and slip- (``u_t <= 0, λ_t = +μ λ_n``). Closed pieces: a point on a common boundary
#: (``u_t = 0, λ_t = ∓μ λ_n``) is found on both and merged as one solution.
COULOMB_PIECES = ("0", "s", ">", "<")

#: The mode each label of :data:`COULOMB_PIECES` means (the names a :class:`PieceSolution` reports).
COULOMB_MODE_NAMES = {"0": "separated", "s": "sticking", ">": "sliding+", "<": "sliding-"}


def coulomb_pieces(problem: ContactProblem, cone: ConeModel | None = None) -> tuple[str, ...]:
    """The piece labels of one "coulomb" contact: in 2D :data:`COULOMB_PIECES`; in 3D with a polygon ``cone``
    (``ConeModel("inner" | "outer", k)``, the facetized model of sticking (54)-(59)) separated ``"0"``, stick
    ``"s"``, slipping on facet j ``"f<j>"`` (``λ_t`` on the facet, ``u_t = -β f_j``, β >= 0) and at vertex j
    ``"v<j>"`` (between facets j and j+1: ``λ_t`` the vertex, ``-u_t`` in the cone of ``f_j, f_j+1``):
    2 + 2k pieces, which cover the law of maximum dissipation on the polygon."""
    if problem.dimension == 2:
        return COULOMB_PIECES
    if problem.dimension != 3 or cone is None or cone.kind == "disk":
        raise NotApplicableError(
            f"{len(problem.coulomb)} contact(s) with mode 'coulomb' in dimension {problem.dimension}: the "
            "stick/slip enumeration is exact in 2D only; in 3D it enumerates the facets and vertices of a polygon "
            "(formulations 'coulomb_enumeration_inner' / 'coulomb_enumeration_outer'); beyond 3D give each "
            "contact 'sticking' or 'sliding'"
        )
    k = cone.facets
    return ("0", "s") + tuple(f"f{j}" for j in range(k)) + tuple(f"v{j}" for j in range(k))


def piece_count(problem: ContactProblem, cone: ConeModel | None = None) -> int:
    """How many pieces :func:`enumerate_solutions` examines: 2 per enumerated contact (sign of λ_n, or
    detached / active) and per "coulomb" contact 4 in 2D (separated, then stick, slip+, slip- when active),
    2 + 2k in 3D with a k-gon (:func:`coulomb_pieces`)."""
    enum = enumerated_contacts(problem)
    kc = sum(1 for i in enum if problem.modes[i] == "coulomb")
    per = len(coulomb_pieces(problem, cone)) if kc else 0
    return 2 ** (len(enum) - kc) * per**kc


def _check_size(problem: ContactProblem, max_contacts: int, cone: ConeModel | None = None) -> list[int]:
    """The enumerated contacts; :class:`TooLargeError` beyond ``2^max_contacts`` pieces, naming the count."""
    enum = enumerated_contacts(problem)
    k, kc = len(enum), len(problem.coulomb)
    if not kc and k > max_contacts:
        raise TooLargeError(
            f"sign/complementarity enumeration over {k} contacts (2^{k} pieces) exceeds the "
            f"limit of {max_contacts}; use 'sliding_lcp' (Lemke) for larger problems"
        )
    pieces = piece_count(problem, cone)  # raises NotApplicableError for coulomb contacts it cannot enumerate
    if pieces > 2**max_contacts:
        per = len(coulomb_pieces(problem, cone))
        what = "separated, stick, slip+, slip-" if per == len(COULOMB_PIECES) else "separated, stick, facets, vertices"
        raise TooLargeError(
            f"stick/slip enumeration over {k} contacts, {kc} of them 'coulomb' ({per} pieces each: {what}), is "
            f"{pieces} pieces, beyond the limit of 2^{max_contacts} = {2**max_contacts}; give fewer contacts "
            "(or their modes), fewer facets, or use a formulation that decides the modes by iteration"
        )
    return enum


def enumerate_solutions(
    problem: ContactProblem,
    max_contacts: int = ENUMERATION_MAX,
    solver: str | None = None,
    *,
    cone: ConeModel | None = None,
    relax: float = 0.0,
) -> Enumeration:
    """All solutions by enumeration of the pieces (tutorial §3.2.1 "by inspecting each of the 2^m_b
    possible signs", extended to the complementarity pieces of (50)/(58) and to the stick/slip problem
    (71) of sticking §5, solved as stated in (a, λ); its reformulations (72)-(77) — the MLCP (73) and
    Prop. 13 assume M ≻ 0 — are not used).

    Unknowns ``y = (a, λ_n, λ_t of sticking contacts, λ_t of coulomb contacts)`` in the original variables,
    so singular M and redundant rows are allowed. A piece fixes the sign of λ_n,i of each frictional
    bilateral contact and, for each unilateral contact, whether ``λ_n,i = 0`` or ``n_i a + b_i = 0``; for a
    2D "coulomb" contact (Coulomb's law with the mode left to the solver) one of the four pieces
    of :data:`COULOMB_PIECES` (separated, stick, slip+, slip-), each linear. On a piece the sliding law is
    linear and the problem is a polyhedron (a second-order-cone set with 3D sticking contacts). Each
    nonempty piece is found exactly: a nonsingular square equality system gives its only candidate, else
    an LP (HiGHS) or, with 3D sticking cones, an SOCP decides it, and an LP-plus-rank test
    (:func:`gaussqp.linalg.polyhedral_cones.cone_is_trivial`) says whether the polyhedral piece is a single point.
    Solutions found on several pieces (on their common boundary) are merged.

    In 3D, ``cone`` (an inner or outer polygon, :class:`gaussqp.friction.cones.ConeModel`) replaces each
    coulomb contact's disk by the polygon and its slip pieces by the polygon's facets and vertices
    (:func:`coulomb_pieces`): the exact enumeration of the facetized law, not of the disk's.

    When no piece is solvable for the data as given, every piece is solved again for the smallest change of the
    forces and drifts (row by row at the data's scales, :func:`_relaxed_piece`) that makes it solvable: the points
    within ``relax`` (the verdict contract's ``δ``, docs/DESIGN.md §4.3; 0: none) are returned with their
    ``backward_error`` (their isolation undecided), and the smallest change found is ``nearest_change``: "no
    solution" is certified (:data:`gaussqp.settings.NONEXISTENCE_CHANGE`) only when it exceeds the change every
    certified answer may rest on and every piece's phase one decided (``undecided_pieces == 0``).

    Raises :class:`TooLargeError` beyond ``2^max_contacts`` pieces (:func:`piece_count`: 2 per enumerated
    contact, 4 per 2D coulomb contact, 2 + 2k per 3D one), :class:`NotApplicableError` for "coulomb" contacts
    in 3D without a polygon, or beyond 3D.
    """
    enum = _check_size(problem, max_contacts, cone)
    n, m, d1 = problem.n, problem.m, problem.dimension - 1
    S = list(problem.sticking)
    C = list(problem.coulomb)
    nt = d1 * len(S)
    N = n + m + nt + d1 * len(C)
    Jn = as_dense(problem.J_n).reshape(m, n)
    Jt = as_dense(problem.J_t).reshape(-1, n)
    M = as_dense(problem.M)
    mu, b, c = problem.friction, problem.normal_drift, problem.tangent_drift
    ia, il = 0, n
    it0 = n + m
    ic0 = it0 + nt  # the tangential multipliers of the coulomb contacts (one each in 2D)
    units = _Units.of(problem, Jn, Jt, M)
    cone3d = problem.dimension >= 3 and len(S) > 0  # a second-order cone (d >= 3), else an interval
    sols: list[PieceSolution] = []
    cpieces = coulomb_pieces(problem, cone) if len(C) else COULOMB_PIECES
    polygon = _Polygon.of(cone) if len(C) and problem.dimension == 3 else None
    sep = "," if polygon is not None else ""  # 3D piece labels have several characters
    choices = [cpieces if problem.modes[i] == "coulomb" else (0, 1) for i in enum]

    def piece_systems():
        """Each piece: its choice, label, ``{Aeq y = beq, G y >= h}`` and second-order cones (3D sticking)."""
        for pattern in itertools.product(*choices):
            choice = dict(zip(enum, pattern))
            # dynamics: M a - Σ col_i λ_n,i - Σ T_iᵀ λ_t,i = -F
            dyn = np.zeros((n, N))
            dyn[:, ia : ia + n] = M
            sign = np.ones(m)
            for i in range(m):
                if problem.types[i] == "bilateral" and problem.modes[i] != "frictionless":
                    sign[i] = 1.0 if choice[i] == 1 else -1.0
                col = Jn[i].copy()
                if problem.modes[i] == "sliding":
                    col = col - mu[i] * sign[i] * (Jt[i * d1 : (i + 1) * d1].T @ problem.slip[i])
                dyn[:, il + i] = -col
            for j, i in enumerate(S):
                dyn[:, it0 + j * d1 : it0 + (j + 1) * d1] = -Jt[i * d1 : (i + 1) * d1].T
            for j, i in enumerate(C):
                dyn[:, ic0 + j * d1 : ic0 + (j + 1) * d1] = -Jt[i * d1 : (i + 1) * d1].T
            eq_rows, eq_rhs, in_rows, in_rhs = [dyn], [-problem.F], [], []
            for i in range(m):
                row = np.zeros(N)
                row[ia : ia + n] = Jn[i]
                if problem.types[i] == "bilateral":
                    eq_rows.append(row[None]), eq_rhs.append([-b[i]])
                    if problem.modes[i] != "frictionless":
                        r = np.zeros(N)
                        r[il + i] = sign[i]
                        in_rows.append(r), in_rhs.append(0.0)
                elif choice[i] not in (0, "0"):  # active: n a + b = 0, λ >= 0
                    eq_rows.append(row[None]), eq_rhs.append([-b[i]])
                    r = np.zeros(N)
                    r[il + i] = 1.0
                    in_rows.append(r), in_rhs.append(0.0)
                else:  # detached: λ = 0, n a + b >= 0
                    r = np.zeros(N)
                    r[il + i] = 1.0
                    eq_rows.append(r[None]), eq_rhs.append([0.0])
                    in_rows.append(row), in_rhs.append(-b[i])
            for j, i in enumerate(S):
                T = np.zeros((d1, N))
                T[:, ia : ia + n] = Jt[i * d1 : (i + 1) * d1]
                eq_rows.append(T), eq_rhs.append(-c[i * d1 : (i + 1) * d1])
                if not cone3d:  # 2D: |λ_t| <= μ σ λ_n is two linear inequalities
                    for s in (1.0, -1.0):
                        r = np.zeros(N)
                        r[il + i] = mu[i] * sign[i]
                        r[it0 + j] = -s
                        in_rows.append(r), in_rhs.append(0.0)
            for j, i in enumerate(C):
                if polygon is None:
                    _coulomb_piece_rows(
                        choice[i], Jt[i], c[i], mu[i], il + i, ic0 + j, ia, n, N, eq_rows, eq_rhs, in_rows, in_rhs
                    )
                else:
                    polygon.rows(
                        choice[i],
                        Jt[2 * i : 2 * i + 2],
                        c[2 * i : 2 * i + 2],
                        mu[i],
                        il + i,
                        ic0 + 2 * j,
                        ia,
                        n,
                        N,
                        eq_rows,
                        eq_rhs,
                        in_rows,
                        in_rhs,
                    )
            Aeq = np.vstack(eq_rows)
            beq = np.concatenate([np.atleast_1d(np.asarray(x, dtype=float)) for x in eq_rhs])
            G = np.array(in_rows).reshape(-1, N)
            h = np.array(in_rhs, dtype=float)  # G y >= h
            yield (
                choice,
                sep.join(_label(problem, i, choice[i]) for i in enum),
                Aeq,
                beq,
                G,
                h,
                cone3d and _cone_data(problem, S, sign, il, it0, N, d1),
            )

    def record(y, choice, label, isolated, a_fixed, backward: float = 0.0) -> None:
        a, lam_n = y[ia : ia + n], y[il : il + m]
        lam_t = sliding_tangent(problem, lam_n)
        for j, i in enumerate(S):
            lam_t[i] = y[it0 + j * d1 : it0 + (j + 1) * d1]
        for j, i in enumerate(C):
            lam_t[i] = y[ic0 + j * d1 : ic0 + (j + 1) * d1]
        modes = _piece_modes(problem, choice, polygon)
        same = next((s for s in sols if units.same_point(s, a, lam_n, lam_t)), None)
        if same is not None:
            same.merge(label, isolated, a_fixed, modes)
            same.backward_error = min(same.backward_error, backward)
            return
        sols.append(PieceSolution(a, lam_n, lam_t, label, isolated, a_fixed, [label], modes, backward))

    for choice, label, Aeq, beq, G, h, cones in piece_systems():
        y, isolated, a_fixed = _solve_piece(Aeq, beq, G, h, cones, solver, n)
        if y is not None:
            record(y, choice, label, isolated, a_fixed)
    if not sols:
        # no piece has a solution for the exact data: the verdict contract (DESIGN.md §4.3) claims "none" only
        # when no problem within NONEXISTENCE_CHANGE of the data (forces and drifts, row by row at the data's scales)
        # has one, and answers for data within ``relax``; each piece's smallest such data change is found by its
        # phase-one program
        row_scale = _piece_row_scales(problem, n)
        nearest, undecided = float("inf"), 0
        for choice, label, Aeq, beq, G, h, cones in piece_systems():
            y, t, optimum = _relaxed_piece(Aeq, beq, G, h, cones, row_scale, relax, solver)
            if t != t:  # nan: the piece's phase one is undecided
                undecided += 1
            else:  # the change measured at the point, or the program's optimum when that is lower
                nearest = min(nearest, t, optimum)
            if y is not None:
                record(y, choice, label, None, None, t)
    a_mult, lam_mult, distinct = _multiplicities(sols, units)
    out = Enumeration(sols, piece_count(problem, cone), enum, a_mult, lam_mult, units.a, distinct, C, units)
    if not out.solutions:
        out.nearest_change, out.undecided_pieces = nearest, undecided
    return out


def _label(problem: ContactProblem, i: int, choice) -> str:
    """One character per enumerated contact: ``+``/``-`` the sign of a frictional bilateral λ_n, ``+``/``0``
    an active/detached unilateral contact, or a coulomb contact's piece (:data:`COULOMB_PIECES`)."""
    if problem.modes[i] == "coulomb":
        return str(choice)
    return "+" if choice else ("-" if problem.types[i] == "bilateral" else "0")


def _piece_modes(problem: ContactProblem, choice: dict, polygon: "_Polygon | None" = None) -> list[str]:
    """The mode of every contact on a piece: a coulomb contact's piece (:data:`COULOMB_MODE_NAMES`; in 3D
    "sliding (facet j)" / "sliding (vertex j)"), a unilateral contact that is detached "separated", every other
    contact its given mode."""
    out = []
    for i in range(problem.m):
        if problem.modes[i] == "coulomb":
            lab = choice[i]
            out.append(
                COULOMB_MODE_NAMES[lab]
                if lab in COULOMB_MODE_NAMES
                else f"sliding ({'facet' if lab[0] == 'f' else 'vertex'} {lab[1:]})"
            )
        elif problem.types[i] == "unilateral" and choice.get(i) == 0:
            out.append("separated")
        else:
            out.append(str(problem.modes[i]))
    return out


@dataclass(frozen=True)
class _Polygon:
    """The k-gon ``{z : C z <= r μ λ_n}`` of a 3D coulomb contact (:meth:`ConeModel.polygon`): facet j has the
    outward normal ``f_j`` (row j of C) and tangent ``g_j`` (f_j turned by +90°); vertex j, between facets j
    and j+1, is ``V_j`` (``f_j·V_j = f_j+1·V_j = r``), and ``Binv_j`` inverts ``[f_j f_j+1]`` (the coefficients
    of ``-u_t`` in the cone of the two normals)."""

    C: np.ndarray
    r: float
    G: np.ndarray
    V: np.ndarray
    Binv: np.ndarray

    @classmethod
    def of(cls, cone: ConeModel) -> "_Polygon":
        C, r = cone.polygon(3)
        k = C.shape[0]
        G = np.column_stack([-C[:, 1], C[:, 0]])
        B = [np.column_stack([C[j], C[(j + 1) % k]]) for j in range(k)]
        V = np.array([np.linalg.solve(Bj.T, [r, r]) for Bj in B])
        return cls(C, float(r), G, V, np.array([np.linalg.inv(Bj) for Bj in B]))

    def rows(
        self,
        piece: str,
        T: np.ndarray,
        ci: np.ndarray,
        mu: float,
        jn: int,
        jt: int,
        ia: int,
        n: int,
        N: int,
        eq_rows: list,
        eq_rhs: list,
        in_rows: list,
        in_rhs: list,
    ) -> None:
        """The tangential rows of one 3D coulomb contact on ``piece`` (:func:`coulomb_pieces`): ``T`` (2 × n) its
        tangent rows, ``ci`` (2,) their drifts, ``jn`` the column of λ_n and ``jt, jt+1`` those of λ_t."""
        k = self.C.shape[0]
        U = np.zeros((2, N))
        U[:, ia : ia + n] = T  # u_t = T a + c
        L = np.zeros((2, N))
        L[0, jt], L[1, jt + 1] = 1.0, 1.0  # λ_t

        def inside() -> None:  # r μ λ_n - C λ_t >= 0
            P = -self.C @ L
            P[:, jn] += self.r * mu
            in_rows.extend(P), in_rhs.extend([0.0] * k)

        if piece == "0":
            eq_rows.append(L), eq_rhs.append([0.0, 0.0])
        elif piece == "s":
            eq_rows.append(U), eq_rhs.append(-ci)
            inside()
        elif piece[0] == "f":
            j = int(piece[1:])
            on = self.C[j] @ L
            on[jn] -= self.r * mu
            eq_rows.append(on[None]), eq_rhs.append([0.0])  # f_j·λ_t = r μ λ_n
            inside()
            eq_rows.append((self.G[j] @ U)[None]), eq_rhs.append([-(self.G[j] @ ci)])  # u_t ∥ f_j
            in_rows.append(-(self.C[j] @ U)), in_rhs.append(float(self.C[j] @ ci))  # f_j·u_t <= 0
        else:
            j = int(piece[1:])
            at = L.copy()
            at[:, jn] -= mu * self.V[j]
            eq_rows.append(at), eq_rhs.append([0.0, 0.0])  # λ_t = μ λ_n V_j
            beta = -self.Binv[j] @ U  # -u_t = B β, β >= 0
            in_rows.extend(beta), in_rhs.extend(list(self.Binv[j] @ ci))


def _coulomb_piece_rows(
    piece: str,
    t: np.ndarray,
    ci: float,
    mu: float,
    jn: int,
    jt: int,
    ia: int,
    n: int,
    N: int,
    eq_rows: list,
    eq_rhs: list,
    in_rows: list,
    in_rhs: list,
) -> None:
    """The tangential rows of one 2D coulomb contact on ``piece`` (the normal rows are the unilateral ones):
    ``t`` its tangent row, ``ci`` its drift, ``jn``/``jt`` the columns of λ_n and λ_t in ``y``."""

    def unit(col: int, coef: float = 1.0) -> np.ndarray:
        r = np.zeros(N)
        r[col] = coef
        return r

    ut = np.zeros(N)
    ut[ia : ia + n] = t  # u_t = t a + c
    if piece == "0":  # separated: λ_t = 0 (|λ_t| <= μ λ_n = 0), u_t free
        eq_rows.append(unit(jt)[None]), eq_rhs.append([0.0])
    elif piece == "s":  # stick: u_t = 0, -μ λ_n <= λ_t <= μ λ_n
        eq_rows.append(ut[None]), eq_rhs.append([-ci])
        for s in (1.0, -1.0):
            r = unit(jn, mu)
            r[jt] = -s
            in_rows.append(r), in_rhs.append(0.0)
    else:  # slip+ (u_t >= 0, λ_t = -μ λ_n) or slip- (u_t <= 0, λ_t = +μ λ_n)
        s = 1.0 if piece == ">" else -1.0
        r = unit(jt)
        r[jn] = s * mu
        eq_rows.append(r[None]), eq_rhs.append([0.0])
        in_rows.append(s * ut), in_rhs.append(-s * ci)


def _multiplicities(sols: list[PieceSolution], units: _Units) -> tuple[str, str, int]:
    """(multiplicity of the acceleration, of the solution points, number of distinct accelerations)."""
    if not sols:
        return "none", "none", 0
    reps: list[np.ndarray] = []
    for s in sols:
        if not any(units.same_acceleration(r, s.a) for r in reps):
            reps.append(s.a)
    if any(s.acceleration_fixed is False for s in sols):
        a_mult = "continuum"
    elif len(reps) > 1:
        a_mult = "multiple"
    elif any(s.acceleration_fixed is None for s in sols):
        a_mult = "undecided"
    else:
        a_mult = "unique"
    if any(s.isolated is False for s in sols):
        lam_mult = "continuum"
    elif len(sols) > 1:
        lam_mult = "multiple"
    elif sols[0].isolated is None:
        lam_mult = "undecided"
    else:
        lam_mult = "unique"
    return a_mult, lam_mult, len(reps)


def _cone_data(problem, S, sign, il, it0, N, d1):
    """(index of λ_n, slice of λ_t, μ σ) of each sticking contact's second-order cone."""
    return [(il + i, slice(it0 + j * d1, it0 + (j + 1) * d1), problem.friction[i] * sign[i]) for j, i in enumerate(S)]


def _piece_row_scales(problem: ContactProblem, n: int):
    """The data scale of each row of a piece's system (:mod:`gaussqp.model.scales`): the first ``n`` rows (the
    dynamics) ``dynamics_row``; a row acting on the acceleration ``|row_a| S accel + |rhs|`` (a normal or tangent
    row with its drift: ``normal_row`` / ``tangent_row``); a row on the multipliers alone 0 (kept exact: signs,
    complementarity, the sliding law). Returns ``scales(A, rhs, first_is_dynamics)``."""
    sc = data_scales(problem)
    acc = sc.coordinate * sc.accel

    def scales(A: np.ndarray, rhs: np.ndarray, dynamics: bool) -> np.ndarray:
        out = np.abs(A[:, :n]) @ acc
        out = np.where(np.any(A[:, :n] != 0, axis=1), out + np.abs(rhs), 0.0)
        if dynamics:
            out[:n] = sc.dynamics_row
        return out

    return scales


def _relaxed_piece(Aeq, beq, G, h, cones, row_scale, relax: float, solver):
    """Phase one of a piece: the smallest ``t`` with ``|Aeq y - beq| <= t s_eq``, ``G y - h >= -t s_in`` (cones
    exact), ``s`` the rows' data scales (:func:`_piece_row_scales`; rows of scale 0 exact). Returns ``(y, t, optimum)``:
    ``t`` recomputed in NumPy at the program's point (moved onto the exact rows and into the cones first), ``y`` that
    point when ``t <= relax`` (else None), ``optimum`` the program's own optimal ``t`` (an estimate of the piece's
    smallest change from below the measured one; ``t`` where the program gives none). The program is always
    feasible (``y = 0``, ``t = 1``: the rows of scale 0 are homogeneous, every other row's scale holds its right-hand
    side) unless an exact row without unknowns contradicts itself (``(None, inf, inf)``: no change helps), so a
    failed or "infeasible" program gives ``(None, nan, nan)``: undecided."""
    from scipy.optimize import linprog

    N = Aeq.shape[1]
    se = row_scale(Aeq, beq, True)
    si = row_scale(G, h, False) if G.size else np.zeros(0)
    # an exact row (scale 0) with no unknown in it contradicts itself (0 = b with b != 0, 0 >= h with h > 0, e.g. a
    # contact whose normal row is zero and whose drift is negative): no change of the data makes the piece solvable
    if np.any((se == 0) & ~np.any(Aeq != 0, axis=1) & (beq != 0)) or (
        G.size and np.any((si == 0) & ~np.any(G != 0, axis=1) & (h > 0))
    ):
        return None, float("inf"), float("inf")
    if cones:
        decided = False
        if _goes_direct(solver):
            yd, optimum, decided = _relaxed_socp_direct(Aeq, beq, G, h, cones, se, si)
        if decided:
            if yd is None:
                return None, UNDECIDED, UNDECIDED
            yv = yd
        else:
            import cvxpy as cp

            from ..backends import solve_program

            y, t = cp.Variable(N), cp.Variable(nonneg=True)
            cons = [cp.abs(Aeq @ y - beq) <= t * se]
            if G.size:
                cons.append(G @ y - h >= -t * si)
            cons += [cp.SOC(musig * y[iln], y[it]) for iln, it, musig in cones]
            _, status, _ = solve_program(cp.Problem(cp.Minimize(t), cons), solver, "high", needs="socp")
            if status != "solved" or y.value is None or t.value is None:
                return None, UNDECIDED, UNDECIDED
            yv, optimum = np.asarray(y.value).ravel(), float(t.value)
        # the rows of scale 0 (on the multipliers alone: a detached contact's λ_n = 0) and the cones are exact: the
        # interior-point solver's point is moved onto those rows (the least-norm change) and into the cones (its
        # tangential part shortened to the cone's radius), and every row is measured again below at that point
        yv = _onto_exact_rows(yv, Aeq[se == 0], beq[se == 0])
        for iln, it, musig in cones:
            radius, tangential = max(musig * yv[iln], 0.0), float(np.linalg.norm(yv[it]))
            if tangential > radius:
                yv[it] *= radius / tangential
    else:
        ne = Aeq.shape[0]
        r, cs = ruiz_scaling(np.vstack([Aeq, G]) if G.size else Aeq)
        As, Gs = Aeq * r[:ne, None] * cs[None, :], G * r[ne:, None] * cs[None, :]
        beta = max(float(np.abs(beq * r[:ne]).max(initial=0.0)), float(np.abs(h * r[ne:]).max(initial=0.0)), ROUND_OFF)
        bs, hs, ses, sis = beq * r[:ne] / beta, h * r[ne:] / beta, se * r[:ne] / beta, si * r[ne:] / beta
        # x = (ŷ, t): As ŷ - t ses <= bs, -As ŷ - t ses <= -bs, -Gs ŷ - t sis <= -hs
        A_ub = np.vstack(
            [np.hstack([As, -ses[:, None]]), np.hstack([-As, -ses[:, None]])]
            + ([np.hstack([-Gs, -sis[:, None]])] if G.size else [])
        )
        b_ub = np.concatenate([bs, -bs] + ([-hs] if G.size else []))
        res = linprog(
            np.r_[np.zeros(N), 1.0], A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * N + [(0, None)], method="highs"
        )
        if res.status != 0:
            return None, UNDECIDED, UNDECIDED
        yv, optimum = beta * cs * res.x[:N], float(res.x[N])
    # the data change this point needs, recomputed row by row; rows of scale 0 (signs, complementarity) within
    # round-off of their own terms
    ymag = np.abs(yv)
    eq_res, in_res = Aeq @ yv - beq, np.minimum(G @ yv - h, 0.0) if G.size else np.zeros(0)
    exact_e, exact_i = se == 0, si == 0
    if np.any(np.abs(eq_res[exact_e]) > PIECE_RTOL * (np.abs(Aeq[exact_e]) @ ymag + np.abs(beq[exact_e]))) or (
        G.size and np.any(-in_res[exact_i] > PIECE_RTOL * (np.abs(G[exact_i]) @ ymag + np.abs(h[exact_i])))
    ):
        return None, UNDECIDED, UNDECIDED
    t = max(
        float(relative(eq_res[~exact_e], se[~exact_e]).max(initial=0.0)),
        float(relative(in_res[~exact_i], si[~exact_i]).max(initial=0.0)) if G.size else 0.0,
    )
    return (yv if t <= relax else None), t, min(t, max(optimum, 0.0))


#: :func:`_relaxed_piece`'s "no verified point": the piece's smallest data change is unknown
UNDECIDED = float("nan")


def _onto_exact_rows(y: np.ndarray, A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``y`` moved onto the rows ``A y = b`` that hold exactly (on the multipliers alone): a row with one nonzero
    (a detached contact's ``λ_n = 0``) by setting that unknown, then the others by the least-norm change."""
    y = y.copy()
    if not A.shape[0]:
        return y
    nonzero = A != 0
    single = nonzero.sum(axis=1) == 1
    for i in np.flatnonzero(single):
        j = int(np.flatnonzero(nonzero[i])[0])
        y[j] = b[i] / A[i, j]
    rest = ~single
    if rest.any():
        y = y - np.linalg.lstsq(A[rest], A[rest] @ y - b[rest], rcond=None)[0]
    return y


def _pinned_cones(y: np.ndarray, cs: np.ndarray, yhat: float, cond: float, cones) -> bool | None:
    """Whether the point ``y`` that a piece's square equalities pin lies in its cones (3D sticking contacts), decided in
    NumPy without a program when the answer does not depend on the solve's round-off, else None (the program decides).

    Each cone's margin ``μσ y_n − ‖y_t‖`` at the scale of its terms in the equilibrated unknowns, ``(|μσ| cs_n +
    max cs_t) ‖ŷ‖∞``: inside when every margin is at least ``−PIECE_RTOL`` of it and the solve's own round-off
    (``N ε cond(Â)`` of it, ``cond`` that of the equilibrated equalities) is below ``PIECE_RTOL``, or when every margin
    exceeds that round-off; outside when a margin is below minus the larger of the two. A margin within the round-off
    of an ill-conditioned solve is not decided here: a point strictly inside the cones was rejected so (cond 3.6e9,
    margins +1e-7 in exact arithmetic)."""
    N = y.size
    roundoff = N * np.finfo(float).eps * cond
    band = max(PIECE_RTOL, roundoff)
    margins = []
    for iln, it, musig in cones:
        scale = (abs(musig) * cs[iln] + float(np.max(cs[it]))) * yhat
        margins.append((musig * y[iln] - float(np.linalg.norm(y[it])), scale))
    if any(m < -band * sc for m, sc in margins):
        return False
    if roundoff <= PIECE_RTOL and all(m >= -PIECE_RTOL * sc for m, sc in margins):
        return True
    if all(m >= band * sc for m, sc in margins):
        return True
    return None


def _solve_piece(Aeq, beq, G, h, cones, solver, n):
    """A point of ``{Aeq y = beq, G y >= h}`` (∩ cones) or None, whether it is the only one, and whether
    the acceleration (the first ``n`` unknowns) is the same at every point of the piece."""
    from scipy.optimize import linprog

    N = Aeq.shape[1]
    if Aeq.shape[0] == N:
        # nonsingular or not once the rows and unknowns are equilibrated (Ruiz): a mass ratio of 1e10 or a row
        # of norm 1e-6 is not a singular piece (the raw condition number was compared with SOLVE_COND_MAX)
        r, cs = ruiz_scaling(Aeq)
        y, cond = scaled_solve(Aeq, beq, r, cs)
        if y is not None:
            # the equalities pin the point: each inequality at its own terms in the equilibrated unknowns ŷ = y / cs,
            # (G y - h)_i >= -PIECE_RTOL (|G_i| cs ‖ŷ‖∞ + |h_i|), not at max(1, |F|, |b|) · max(1, |y|)
            yhat = float(np.abs(y / cs).max(initial=0.0))
            ok = bool(np.all(G @ y - h >= -PIECE_RTOL * ((np.abs(G) @ cs) * yhat + np.abs(h)))) if G.size else True
            if not cones:
                return (y, True, True) if ok else (None, None, None)
            decided = _pinned_cones(y, cs, yhat, cond, cones)
            if decided is not None:
                return (y, True, True) if ok and decided else (None, None, None)
            # within the round-off of the solve on a cone's boundary: the program decides (below)
    if cones:
        y = _socp_piece(Aeq, beq, G, h, cones, solver)
        if y is None:
            return None, None, None
        # a nonsingular square equality system pins the point; otherwise uniqueness is not decided
        pinned = Aeq.shape[0] >= N and matrix_rank(Aeq) == N
        return y, (True if pinned else None), (True if pinned else None)
    # the LP on the data's scale: rows and unknowns equilibrated together (Ruiz on [Aeq; G]), the right-hand sides
    # divided by their largest entry, so that HiGHS's absolute tolerance (1e-7) is relative to the data; before,
    # a piece infeasible by 1e-10 in units of 1e-6 was a solution and a slack of 1e-4 of the data in units of 1e6
    # an active row (max(1, |F|, |b|, |c|) · max(1, |y|))
    ne = Aeq.shape[0]
    r, cs = ruiz_scaling(np.vstack([Aeq, G]) if G.size else Aeq)
    As, Gs = Aeq * r[:ne, None] * cs[None, :], G * r[ne:, None] * cs[None, :]
    beta = max(float(np.abs(beq * r[:ne]).max(initial=0.0)), float(np.abs(h * r[ne:]).max(initial=0.0)))
    beta = beta if beta > 0 else 1.0  # homogeneous piece: any unit
    bs, hs = beq * r[:ne] / beta, h * r[ne:] / beta
    res = linprog(
        np.zeros(N),
        A_ub=-Gs if G.size else None,
        b_ub=-hs if G.size else None,
        A_eq=As,
        b_eq=bs,
        bounds=[(None, None)] * N,
        method="highs",
    )
    if res.status == 2:
        return None, None, None
    if res.status != 0:
        raise SolverError(f"piece LP failed: {res.message}")
    yh = _polish_piece_point(As, bs, Gs, hs, res.x)
    if yh is None:
        raise SolverError("piece LP returned a point that fails its constraints")
    ymag = float(np.abs(yh).max(initial=0.0))
    active = (Gs @ yh - hs) <= PIECE_RTOL * (np.abs(Gs) @ np.full(N, ymag) + np.abs(hs))
    y = beta * cs * yh
    try:  # the cone of feasible directions in the equilibrated unknowns (its triviality and projection are
        t = cone_is_trivial(As, Gs[active], N)  # invariant under the diagonal scaling cs)
    except UndecidedError:  # isolation not decided either way: the weaker claim (None) is kept
        return y, None, None
    if t.trivial:
        return y, True, True
    try:
        return y, False, _projection_is_zero(As, Gs[active], n)
    except UndecidedError:
        return y, False, None


def _piece_violation(As, bs, Gs, hs, y) -> float:
    """Largest violation of ``{As y = bs, Gs y >= hs}`` at y, each row relative to its own terms
    ``|row| ‖y‖∞ + |rhs|`` (equilibrated rows and unknowns)."""
    ymag = float(np.abs(y).max(initial=0.0))
    eq = relative(As @ y - bs, np.abs(As) @ np.full(len(y), ymag) + np.abs(bs)).max(initial=0.0)
    gap = np.minimum(Gs @ y - hs, 0.0) if Gs.size else np.zeros(0)
    ineq = relative(gap, np.abs(Gs) @ np.full(len(y), ymag) + np.abs(hs)).max(initial=0.0) if Gs.size else 0.0
    return float(max(eq, ineq))


def _polish_piece_point(As, bs, Gs, hs, y) -> np.ndarray | None:
    """The LP's point, or its least-norm NumPy correction onto the piece's active set (the equalities and the
    inequalities within HiGHS's tolerance :data:`PIECE_LP_RTOL` of their terms, made exact) when that satisfies
    every row better; None when neither satisfies every row to :data:`PIECE_LP_RTOL` of its terms."""
    ymag = float(np.abs(y).max(initial=0.0))
    near = (
        (Gs @ y - hs) <= PIECE_LP_RTOL * (np.abs(Gs) @ np.full(len(y), ymag) + np.abs(hs))
        if Gs.size
        else np.zeros(0, dtype=bool)
    )
    E = np.vstack([As, Gs[near]]) if Gs.size else As
    rhs = np.concatenate([bs, hs[near]]) if Gs.size else bs
    best, best_v = y, _piece_violation(As, bs, Gs, hs, y)
    if E.shape[0]:
        yp = y + np.linalg.lstsq(E, rhs - E @ y, rcond=None)[0]
        vp = _piece_violation(As, bs, Gs, hs, yp)
        if np.all(np.isfinite(yp)) and vp <= best_v:
            best, best_v = yp, vp
    return best if best_v <= PIECE_LP_RTOL else None


def _projection_is_zero(E: np.ndarray, G: np.ndarray, n: int) -> bool:
    """Is the projection on the first ``n`` coordinates of the cone ``K = {v : E v = 0, G v >= 0}`` {0}?

    K is the cone of feasible directions of the piece at the point found, and the piece lies in
    ``point + K``, so the acceleration is the same at every point of the piece iff ``P_a K = {0}``.
    With Z an orthonormal basis of ker E and ``B = G Z``: for each coordinate j and sign s, the LP
    ``max s (Z_a y)_j  s.t.  B y >= 0, -1 <= Z_a y <= 1`` is 0 (bounded: the box is on ``Z_a y``).

    No LP answer is believed unchecked: a positive optimum stands only with its point re-verified in
    NumPy (``B y >= 0`` row by row at the round-off of its terms, the box, and ``s (Z_a y)_j`` above
    :data:`LP_VALUE_TOL` and its own round-off), a zero optimum only with the LP's dual bound
    (:func:`gaussqp.linalg.polyhedral_cones.lp_dual_bound`); otherwise ``UndecidedError``."""
    from scipy.optimize import linprog

    N = E.shape[1]
    En = normalize_rows(E.reshape(-1, N))
    Gn = normalize_rows(G.reshape(-1, N))
    Z = null_space(En, scale=max(1.0, float(np.linalg.norm(En, 2)) if En.size else 1.0))
    if Z.shape[1] == 0:
        return True
    Za = Z[:n]
    if matrix_rank(Za, scale=1.0) == 0:
        return True
    k = Z.shape[1]
    B = Gn @ Z
    A_ub = np.vstack([-B, Za, -Za]) if B.shape[0] else np.vstack([Za, -Za])
    b_ub = np.concatenate([np.zeros(B.shape[0]), np.ones(2 * n)])
    for j in range(n):
        for sgn in (1.0, -1.0):
            res = linprog(-sgn * Za[j], A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * k, method="highs")
            if res.status != 0:
                raise SolverError(f"acceleration-projection LP failed: {res.message}")
            if -float(res.fun) > LP_VALUE_TOL:
                if not _projection_point_verified(B, Za, np.asarray(res.x, dtype=float), j, sgn):
                    raise UndecidedError("acceleration-projection LP: its point fails the NumPy check")
                return False
            bound = lp_dual_bound(res, -sgn * Za[j], A_ub, b_ub)
            if bound is None or -bound > LP_VALUE_TOL:
                raise UndecidedError("acceleration-projection LP: its zero optimum is not proven by its duals")
    return True


def _projection_point_verified(B: np.ndarray, Za: np.ndarray, y: np.ndarray, j: int, sgn: float) -> bool:
    """``y`` is a direction of the cone (``B y >= 0`` up to each row's round-off ``ROUND_OFF ‖B_i‖ ‖y‖``) inside the
    box ``|Z_a y| <= 1`` (to :data:`VERIFY_RTOL`) whose acceleration component ``s (Z_a y)_j`` is above
    :data:`LP_VALUE_TOL` and above the round-off of its terms."""
    if not np.all(np.isfinite(y)):
        return False
    ny = float(np.linalg.norm(y))
    if B.shape[0] and np.any(B @ y < -ROUND_OFF * np.linalg.norm(B, axis=1) * ny):
        return False
    za = Za @ y
    if np.abs(za).max(initial=0.0) > 1.0 + VERIFY_RTOL:
        return False
    return bool(sgn * za[j] > LP_VALUE_TOL and sgn * za[j] > VERIFY_RTOL * float(np.abs(Za[j]) @ np.abs(y)))


def _goes_direct(solver) -> bool:
    """A piece's conic program goes straight to Clarabel when no solver is named (Clarabel solves SOCPs first) or
    Clarabel is; another named solver gets the cvxpy program."""
    return solver is None or str(solver).lower() == "clarabel"


def _decided_direct(q: np.ndarray, blocks: list, ncols: int) -> tuple[np.ndarray | None, bool]:
    """``min qᵀx`` over ``blocks`` by :func:`gaussqp.backends.direct.solve_conic` at the ``high`` preset, as the cvxpy
    program is solved: ``(x, True)`` when Clarabel ends solved, ``(None, True)`` when it ends infeasible,
    ``(None, False)`` otherwise (the cvxpy program then decides)."""
    from ..backends import get_backend
    from ..backends.direct import conic_presets, solve_conic
    from ..settings import get_tolerance

    res = solve_conic(None, q, blocks, ncols, conic_presets(get_backend("clarabel"), get_tolerance("high")))
    if res.status == "infeasible":
        return None, True
    if res.status == "solved" and res.x is not None:
        return res.x, True
    return None, False


def _cone_rows(cones, N: int):
    """The second-order cones of a piece, ``s = (μσ y_n, y_t) ∈ SOC`` per cone written ``A y + s = 0``, as one
    :class:`~gaussqp.backends.direct.RowBlock` over the piece's ``N`` unknowns (further columns allowed after them)."""
    from ..backends.direct import RowBlock

    rows: list = []
    cols: list = []
    vals: list = []
    sizes: list = []
    for iln, it, musig in cones:
        it = np.arange(N)[it] if isinstance(it, slice) else np.atleast_1d(np.asarray(it, dtype=int))
        start = sum(sizes)
        rows += [start, *(start + 1 + np.arange(it.size))]
        cols += [int(iln), *it.tolist()]
        vals += [-float(musig), *([-1.0] * it.size)]
        sizes.append(1 + it.size)
    return RowBlock(np.array(rows), np.array(cols), np.array(vals), sum(sizes), "soc", soc=tuple(sizes))


def _relaxed_socp_direct(Aeq, beq, G, h, cones, se, si) -> tuple[np.ndarray | None, float, bool]:
    """:func:`_relaxed_piece`'s program with cones (``min t`` s.t. ``|Aeq y − beq| <= t s_eq``, ``G y − h >= −t s_in``,
    ``t >= 0``, the cones exact) straight to Clarabel, as :func:`_socp_piece_direct` does (:func:`_decided_direct`):
    ``(y, t, decided)``."""

    from ..backends.direct import RowBlock

    N = Aeq.shape[1]

    def block(A, tcoef, b):  # rows [A, tcoef] (y, t) of the nonnegative cone: b − A y − tcoef t >= 0
        return RowBlock.of(np.hstack([A, tcoef[:, None]]), "nonneg", b)

    Ae = np.asarray(Aeq, dtype=float)
    blocks = [block(Ae, -se, beq), block(-Ae, -se, -np.asarray(beq, dtype=float))]  # |Aeq y − beq| <= t s_eq
    if G.size:
        blocks.append(block(-np.asarray(G, dtype=float), -si, -np.asarray(h, dtype=float)))  # G y − h >= −t s_in
    blocks.append(RowBlock(np.array([0]), np.array([N]), np.array([-1.0]), 1, "nonneg"))  # t >= 0
    if cones:
        blocks.append(_cone_rows(cones, N))
    q = np.zeros(N + 1)
    q[N] = 1.0
    x, decided = _decided_direct(q, blocks, N + 1)
    return (None, UNDECIDED, decided) if x is None else (x[:N], float(x[N]), decided)


def _socp_piece_direct(Aeq, beq, G, h, cones) -> tuple[np.ndarray | None, bool]:
    """The feasibility program of a piece (``Aeq y = beq``, ``G y >= h``, ``‖y_t‖ <= μσ y_n`` per cone) straight to
    Clarabel (:func:`_decided_direct`): the same solver on the same program, without compiling a cvxpy program per
    piece (~20 ms each; 2^k pieces)."""
    from ..backends.direct import RowBlock

    N = Aeq.shape[1]
    blocks = [RowBlock.of(np.asarray(Aeq, dtype=float), "zero", beq)]
    if G.size:
        blocks.append(RowBlock.of(-np.asarray(G, dtype=float), "nonneg", -np.asarray(h, dtype=float)))
    if cones:
        blocks.append(_cone_rows(cones, N))
    return _decided_direct(np.zeros(N), blocks, N)


def _socp_piece(Aeq, beq, G, h, cones, solver):
    if _goes_direct(solver):
        y, decided = _socp_piece_direct(Aeq, beq, G, h, cones)
        if decided:
            return y
    import cvxpy as cp

    from ..backends import solve_program

    N = Aeq.shape[1]
    y = cp.Variable(N)
    cons = [Aeq @ y == beq]
    if G.size:
        cons.append(G @ y >= h)
    for iln, it, musig in cones:
        cons.append(cp.SOC(musig * y[iln], y[it]))
    prob = cp.Problem(cp.Minimize(0), cons)
    _, status, _ = solve_program(prob, solver, "high", needs="socp")
    if status == "infeasible":
        return None
    if status != "solved" or y.value is None:
        raise SolverError(f"stick/slip piece SOCP ended with status {status!r}; the enumeration cannot decide")
    return np.asarray(y.value).ravel()
