"""Result objects: :class:`Status`, :class:`Certificate`, :class:`CrossCheck`, :class:`JudgeHints`, :class:`Timing`
and :class:`Solution`.

In the spirit of ``scipy.optimize.OptimizeResult`` and ``qpsolvers.Solution``: a solution
keeps its problem; its residuals are recomputed in the original variables by
:func:`gaussqp.certificates.residuals.kkt_residuals` (never copied from a solver's report). Raw
solver output goes in ``extras``; what gaussqp itself decides has a typed field. A :class:`Solution` holds the
answer; what a formulation tells the judge (:class:`JudgeHints`) and how long each stage took (:class:`Timing`)
are records beside it.

This module imports nothing above the model layer, not even for annotations: the records of the friction and
certificate layers that a solution carries (the sticking verdict, the friction bounds, the enumeration, the contact
modes, the cone model) are typed by the :class:`JSONRecord` protocol or named in the docstrings
(annotations would tie results, certificates and friction into an import cycle). The JSON helpers live on the
ground floor (:mod:`gaussqp.jsonable`) and are re-exported here.
"""

from __future__ import annotations

import inspect
import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .jsonable import json_float, to_jsonable
from .model.problem import ContactProblem
from .model.system_class import Label


class JSONRecord(Protocol):
    """What a solution needs of the verdict records it carries (defined in the friction and certificate layers,
    above this one): their JSON."""

    def as_dict(self) -> dict: ...


class Status(Label):
    """Outcome of a formulation, as a string enum (members compare equal to their strings).

    Groups, as cvxpy has them: :data:`SOLUTION_PRESENT` (``solved``, ``inaccurate``: an answer is
    returned), :data:`INF_OR_UNB` (``infeasible``, ``unbounded``: a certificate of non-existence is
    returned instead), and ``failed`` (nothing usable: a backend error, an iteration limit without an
    answer, or a route that does not apply). ``solved`` only for an answer that passed our own checks
    (:mod:`gaussqp.certificates.judge`); an answer that did not is ``inaccurate``.
    """

    SOLVED = "solved"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INACCURATE = "inaccurate"
    FAILED = "failed"

    @property
    def has_solution(self) -> bool:
        """An acceleration and multipliers are returned (``solved`` or ``inaccurate``)."""
        return self in SOLUTION_PRESENT

    @property
    def infeasible_or_unbounded(self) -> bool:
        return self in INF_OR_UNB


SOLVED, INFEASIBLE, UNBOUNDED, INACCURATE, FAILED = (
    Status.SOLVED,
    Status.INFEASIBLE,
    Status.UNBOUNDED,
    Status.INACCURATE,
    Status.FAILED,
)
SOLUTION_PRESENT = frozenset({SOLVED, INACCURATE})
INF_OR_UNB = frozenset({INFEASIBLE, UNBOUNDED})

#: Which verified certificate backs which status: ``certified`` is derived from this table (the first of
#: the listed ids that the result carries must hold; for ``solved`` that is ``kkt_residuals`` (``natural_map`` for a
#: mode-free Coulomb answer), which must
#: be present, and every id of :data:`ALSO_REQUIRED_WHEN_SOLVED` that is present must hold too).
CERTIFYING: dict[Status, tuple[str, ...]] = {
    SOLVED: ("kkt_residuals", "natural_map"),
    INFEASIBLE: ("farkas", "coulomb_farkas", "sliding_enumeration"),
    UNBOUNDED: ("unbounded_ray",),
}
#: Certificates that, when present, must also hold for a ``solved`` answer to be certified.
ALSO_REQUIRED_WHEN_SOLVED: tuple[str, ...] = ("forward_error", "backward_error")


@dataclass(frozen=True)
class Certificate:
    """A criterion evaluated on the data, with its source and consequence.

    ``holds`` is True/False, or None when the criterion does not apply (its premises
    fail; ``implies`` then says why). ``margin`` is signed: positive means the criterion
    holds with that slack, negative that it fails by that much.
    """

    id: str
    source: str
    holds: bool | None
    margin: float
    implies: str
    name: str = ""
    data: dict = field(default_factory=dict)

    def as_dict(self, with_data: bool = False) -> dict:
        """The certificate as JSON.

        Parameters
        ----------
        with_data : bool
            Also write every entry of ``data`` (the intermediates: tolerances, norms, matrices).

        Returns
        -------
        dict
            ``id, name, source, holds, margin, implies``, and always ``evidence`` when the verdict rests on vectors
            (``data["evidence"]``: the vectors — a Farkas vector, a ray, a witness direction, a feasible point, an
            unresisted wrench, interior forces — with a ``"verify"`` text naming the equations a reader checks on
            them with the problem file alone), whatever ``with_data`` says.
        """
        d = {
            "id": self.id,
            "name": self.name,
            "source": self.source,
            "holds": None if self.holds is None else bool(self.holds),
            "margin": json_float(self.margin),
            "implies": self.implies,
        }
        if self.data.get(EVIDENCE) is not None:
            d[EVIDENCE] = to_jsonable(self.data[EVIDENCE])
        if with_data and self.data:
            d["data"] = {k: to_jsonable(v) for k, v in self.data.items() if k != EVIDENCE}
        return d


#: The key of ``Certificate.data`` holding the vectors a verdict rests on and the ``"verify"`` text (written by
#: :meth:`Certificate.as_dict` in every JSON output: ``solve --json``, ``check --json``, ``grasp --json``).
EVIDENCE = "evidence"


# ``json_float`` and ``to_jsonable`` live in :mod:`gaussqp.jsonable` (imported above, so ``gaussqp.results.json_float``
# and ``gaussqp.results.to_jsonable`` still name them).


AGREED, DISAGREED, NOT_COMPARED = "agreed", "disagreed", "not compared"


@dataclass(frozen=True)
class RouteOutcome:
    """One route of a cross-check: ``outcome`` is :data:`AGREED`, :data:`DISAGREED` or :data:`NOT_COMPARED` (with
    the ``reason``); a route that failed, or whose answer proves nothing about the primary's, is *not compared*,
    never counted as agreement. ``status`` is the route's status (a :class:`Status`, or ``"not_asked"``,
    ``"skipped"`` or ``"not_run"`` for a polygon of the sticking bracket that was not solved, and ``"not_run"`` for a
    mode-free cross-check route whose work budget cannot pay one step)."""

    route: str
    status: str
    outcome: str
    reason: str = ""

    def as_dict(self) -> dict:
        return {"route": self.route, "status": self.status, "outcome": self.outcome, "reason": self.reason}


@dataclass(frozen=True)
class Bracket:
    """The facetized bracket of a sticking cross-check (F5 inner/outer against F4): each polygon's status
    (``"not_asked"`` when the bracket was not asked for, ``"skipped"`` when F4's answer needed no bracket,
    ``"not_run"`` beyond d = 3) and whether they are consistent with F4's verdict."""

    facets: int
    inner: str
    outer: str
    consistent: bool

    def as_dict(self) -> dict:
        return {"facets": self.facets, "inner": self.inner, "outer": self.outer, "consistent": self.consistent}


@dataclass(frozen=True)
class EnumerationCount:
    """What an exact enumeration that checked an answer found: the number of solutions and the multiplicities of
    the acceleration and of the multipliers (``"unique"``, ``"multiple"``, ``"continuum"``, ``"none"``)."""

    solutions: int
    multiplicity: str
    multiplier_multiplicity: str


@dataclass(frozen=True, eq=False)
class CrossCheck(Mapping):
    """The report of a cross-check: an answer compared with independent routes (:mod:`gaussqp.crosscheck`).

    :meth:`as_dict` is the JSON (``crosscheck`` of ``gaussqp solve --json``). Reading the report by key
    (``report["agree"]``, the dict it was before; see the changelog) still works through the read-only :class:`Mapping`
    interface over that JSON, with a :class:`DeprecationWarning`: read the attributes.

    Attributes
    ----------
    formulation
        the independent route whose answer was compared first (its name)
    solver
        that route's backend
    status
        that route's status (``"not_run"``, with ``solver`` empty, when it was not run: :class:`RouteOutcome`)
    routes
        one :class:`RouteOutcome` per route compared (or not compared, with the reason)
    agree
        :func:`combined_agreement` of ``routes``: False if any route disagreed, True if at least one was compared
        and all compared agreed, None when nothing was compared (not compared is not agreed)
    acceleration_gap
        the acceleration's gap to ``formulation``'s answer at the data's scale, or None
    generalized_force_gap
        the same for ``Jᵀλ``, or None
    bracket
        the facetized bracket of a sticking answer (:class:`Bracket`), or None
    enumeration
        the solution count of an exact enumeration that checked the answer (:class:`EnumerationCount`),
        or None
    """

    formulation: str
    solver: str
    status: str
    routes: tuple[RouteOutcome, ...]
    agree: bool | None
    acceleration_gap: float | None = None
    generalized_force_gap: float | None = None
    bracket: Bracket | None = None
    enumeration: EnumerationCount | None = None

    @property
    def outcomes(self) -> tuple[str, ...]:
        """Each route's outcome, in the order of :attr:`routes`."""
        return tuple(r.outcome for r in self.routes)

    @property
    def reasons(self) -> tuple[str, ...]:
        """Each route's reason, in the order of :attr:`routes`."""
        return tuple(r.reason for r in self.routes)

    @property
    def disagreed(self) -> bool:
        """True when an independent route contradicts the answer (withdraws ``solved`` and ``certified``)."""
        return self.agree is False

    def as_dict(self) -> dict:
        """The JSON of the report, with the keys (and their order) of the dict it replaced."""
        d: dict = {"formulation": self.formulation, "solver": self.solver, "status": self.status}
        if self.enumeration is not None:
            d.update(
                solutions=self.enumeration.solutions,
                multiplicity=self.enumeration.multiplicity,
                multiplier_multiplicity=self.enumeration.multiplier_multiplicity,
            )
        d.update(acceleration_gap=self.acceleration_gap, generalized_force_gap=self.generalized_force_gap)
        if self.bracket is not None:
            d["bracket"] = self.bracket.as_dict()
        d.update(routes=[r.as_dict() for r in self.routes], agree=self.agree)
        return d

    # the read-only Mapping of the former dict (deprecated: read the attributes)
    def __getitem__(self, key: str):
        warnings.warn(
            f"reading a cross-check by key ({key!r}) is deprecated: read the attribute of "
            "gaussqp.results.CrossCheck (e.g. .agree, .routes, .bracket) or use .as_dict()",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.as_dict()[key]

    def __iter__(self):
        return iter(self.as_dict())

    def __len__(self) -> int:
        return len(self.as_dict())

    def __eq__(self, other) -> bool:
        if isinstance(other, CrossCheck):
            return self.as_dict() == other.as_dict()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def combined_agreement(routes) -> bool | None:
    """``False`` if any route disagreed, ``True`` if at least one was compared and all compared agreed,
    ``None`` when nothing was compared (not compared is not agreed)."""
    outs = [r["outcome"] if isinstance(r, Mapping) else r.outcome for r in routes]  # dicts: the earlier form
    if DISAGREED in outs:
        return False
    return True if AGREED in outs else None


@dataclass(frozen=True)
class JudgeHints:
    """What a formulation tells the judge (:func:`gaussqp.certificates.judge.finalize`) about its raw answer: the
    protocol between the two, not part of the answer.

    Attributes
    ----------
    polish_allowed
        whether the judge may polish the answer on its active set (False for direct solves and for
        answers that live on cone boundaries)
    cones_enforced
        the friction-cone model the formulation enforced (a
        :class:`~gaussqp.friction.cones.ConeModel`: the judge checks the multipliers against it), or None
    nonexistence_verified
        an infeasible/unbounded claim already verified by the formulation's own certificate
        route (the judge does not re-verify it)
    natural_map
        for the answer of a route that decides stick/slip itself (F8, F9), the law its recomputed residual
        measures (``"coulomb"``: the natural map of ``u = W r + q``; ``"mixed"``: every contact law in (a, λ)):
        the judge checks that residual (:func:`gaussqp.certificates.natural_map.judge_natural_map`) instead of the
        KKT residuals, which know no undecided mode; "" for every other route
    active_set : the unilateral rows (a boolean mask over ``G``) on which an active-set method ended (DAQP's working
        set): the polish solves the KKT system of this set instead of guessing one from the answer (and skips an
        answer already within ``settings.POLISH_SKIP_RESIDUAL`` of it); None for every other route
    """

    polish_allowed: bool = True
    cones_enforced: Any = None
    nonexistence_verified: bool = False
    natural_map: str = ""
    active_set: Any = None


@dataclass
class Timing:
    """Seconds per stage of a solve, the same fields for every route: ``build`` (the program or the matrices, and
    recovering ``(a, λ)``), ``solve`` (the backend's own time, or the direct method's), ``certify`` (the judge, the
    friction verdict), ``total`` (the wall time of the call). None when not measured (``build`` of a route whose
    backend does not report its time). ``detail`` holds a route's own stages (e.g. ``fixed_point``, ``newton``,
    ``lemke``, ``backend_total``), documented where they are set, and ``structural``: the seconds the structural
    certificates and friction bounds took when they were first read (:meth:`Solution.defer`; after the call, so in
    neither ``certify`` nor ``total``)."""

    build: float | None = None
    solve: float | None = None
    certify: float | None = None
    total: float | None = None
    detail: dict = field(default_factory=dict)

    def add_certify(self, seconds: float) -> None:
        """Add ``seconds`` to :attr:`certify` (the judge and the verdict add up)."""
        self.certify = (self.certify or 0.0) + seconds

    def as_dict(self) -> dict:
        """``{"build", "solve", "certify", "total", "detail"}`` (the JSON ``times`` of a solution)."""
        return {
            "build": json_float(self.build),
            "solve": json_float(self.solve),
            "certify": json_float(self.certify),
            "total": json_float(self.total),
            "detail": {k: json_float(v) for k, v in self.detail.items()},
        }


@dataclass
class Solution:
    """Outcome of one formulation on one problem.

    Attributes
    ----------
    status
        :class:`Status` (a string enum: ``solved, infeasible, unbounded, inaccurate, failed``)
    acceleration
        (n,) or None
    lambda_normal
        (m,) normal multipliers in input order, or None
    lambda_tangent
        (m, d-1) tangential multipliers (zero rows for frictionless contacts), or None
    generalized_force
        (n,) ``J_nᵀλ_n + J_tᵀλ_t`` (equals ``M a + F`` at a solution)
    residuals
        recomputed by :func:`kkt_residuals` (or of the certificate for inf/unb)
    certificates
        list of :class:`Certificate` (structural and instance)
    unique
        {"acceleration", "generalized_force", "multipliers"} -> bool | None
    crosscheck
        the :class:`CrossCheck` against independent routes, or None
    sticking
        the sticking verdict (:class:`~gaussqp.friction.sticking_analysis.StickingVerdict`) of an
        all-sticking problem, or None
    friction_bounds
        the friction bounds C7 (:class:`~gaussqp.certificates.friction_bounds.FrictionBound`)
        evaluated for a frictional problem, or None
    route
        which internal route of a formulation answered (e.g. Lemke or the enumeration), or None
    enumeration
        every solution found by the exact enumeration of the sliding pieces
        (:class:`~gaussqp.friction.enumeration.Enumeration`), or None
    in_enumeration
        (sliding cross-check) whether the answer is among the enumerated solutions
    contact_modes
        (mode-free Coulomb contacts) the mode found at each contact with its distance to a mode
        change (:class:`~gaussqp.friction.coulomb_law.ContactMode`), or None
    natural_map_residual
        (mode-free Coulomb) the natural-map residual recomputed by us
        (:class:`~gaussqp.friction.coulomb_law.NaturalMapResidual`: absolute, ÷‖q‖, Siconos's), or None
    velocity
        the local contact velocity ``u`` (m·d, blocks (normal, tangents)) of a Coulomb answer; for a
        :class:`~gaussqp.LocalContactProblem` ``u = W r + q`` (its ``lambda_*`` are the reaction r), or None
    backward_error
        the verdict contract's data change under which the answer is exact, relative to each row's
        scale from the data, per block: ``{"forces", "drifts", "rows", "multipliers"}``
        (:mod:`gaussqp.certificates.backward_error`; the changed data are in the ``backward_error`` certificate), or None
    hints
        what the formulation told the judge (:class:`JudgeHints`); ``polish_allowed``, ``cones_enforced`` and
        ``nonexistence_verified`` read and set its fields (they were fields of the solution before; see the changelog)
    timing
        seconds per stage (:class:`Timing`: build, solve, certify, total, and a route's own ``detail``);
        ``times`` is its flat dict (deprecated)
    extras
        raw solver output (backend info, attempts) and a route's intermediates, documented
        where they are set
    """

    problem: ContactProblem
    status: Status
    formulation: str
    solver: str
    acceleration: np.ndarray | None = None
    lambda_normal: np.ndarray | None = None
    lambda_tangent: np.ndarray | None = None
    residuals: dict = field(default_factory=dict)
    certificates: list[Certificate] = field(default_factory=list)
    unique: dict = field(default_factory=lambda: {"acceleration": None, "generalized_force": None, "multipliers": None})
    crosscheck: CrossCheck | None = None
    sticking: JSONRecord | None = None
    friction_bounds: Sequence[JSONRecord] | None = None
    route: str | None = None
    enumeration: Any = None
    in_enumeration: bool | None = None
    contact_modes: Sequence[JSONRecord] | None = None
    natural_map_residual: JSONRecord | None = None
    velocity: np.ndarray | None = None
    backward_error: dict | None = None
    hints: JudgeHints = field(default_factory=JudgeHints)
    timing: Timing = field(default_factory=Timing)
    message: str = ""
    extras: dict[str, Any] = field(default_factory=dict)

    def __setattr__(self, name: str, value) -> None:
        if name == "status":  # every status is a Status member (an unknown string is a ValueError)
            value = Status(value)
        object.__setattr__(self, name, value)

    # deprecated aliases of the judge's hints (fields of the solution until read and set ``hints``)
    polish_allowed = property(
        lambda self: _hint(self, "polish_allowed"), lambda self, v: _set_hint(self, "polish_allowed", bool(v))
    )
    cones_enforced = property(
        lambda self: _hint(self, "cones_enforced"), lambda self, v: _set_hint(self, "cones_enforced", v)
    )
    nonexistence_verified = property(
        lambda self: _hint(self, "nonexistence_verified"),
        lambda self, v: _set_hint(self, "nonexistence_verified", bool(v)),
    )

    @property
    def times(self) -> dict:
        """Deprecated: the flat dict of :attr:`timing` (its measured fixed fields, then its ``detail``); a copy."""
        fixed = {
            k: v
            for k, v in (
                ("build", self.timing.build),
                ("solve", self.timing.solve),
                ("certify", self.timing.certify),
                ("total", self.timing.total),
            )
            if v is not None
        }
        return {**self.timing.detail, **fixed}

    @property
    def success(self) -> bool:
        return self.status == SOLVED

    @property
    def generalized_force(self) -> np.ndarray | None:
        p = self.problem
        if self.lambda_normal is None or not isinstance(p, ContactProblem):
            return None
        gen = np.asarray(p.J_n.T @ self.lambda_normal).ravel() if p.m else np.zeros(p.n)
        if p.J_t.shape[0] and self.lambda_tangent is not None:
            gen = gen + np.asarray(p.J_t.T @ self.lambda_tangent.ravel()).ravel()
        return gen

    def certificate(self, cid: str) -> Certificate | None:
        """The first certificate whose id is ``cid`` (or None). A structural id (``C1`` … ``C8``) runs the deferred
        structural certificates first (:meth:`defer`); any other id is looked up without them, which cannot hold it."""
        state = self.__dict__
        certs = self.certificates if is_structural_id(cid) else state["certificates"]
        for c in certs:
            if c.id == cid:
                return c
        return None

    def defer(self, compute: Callable[[], tuple]) -> None:
        """Leave the structural certificates for their first read (the dispatcher's; not for a user's own
        computations): ``compute()`` returns ``(certificates, friction bounds or None, seconds)``, the certificates to
        put first in :attr:`certificates` and the bounds for :attr:`friction_bounds`. Reading or assigning either field
        (directly, through :meth:`certificate` with a structural id, :meth:`as_dict`, the printed form, a comparison,
        ``dataclasses.replace``, a copy or a pickle) runs it once (:meth:`settle`), and ``seconds`` is kept as
        ``timing.detail["structural"]``. They are facts about the data (:mod:`gaussqp.certificates.structural`), which
        a solution's status and certification do not rest on; a problem is immutable (its dense arrays read-only; a
        sparse matrix's buffers, as for every solve, are not to be changed), so the values are those an eager
        computation gives. ``compute`` must not read this solution (the lock is not re-entrant)."""
        self.settle()
        self.__dict__["_deferred"] = _Deferred(compute, threading.Lock())

    def settle(self) -> None:
        """Run the computation :meth:`defer` left, once: concurrent readers wait for it; an error in it reaches the
        reader and leaves it deferred."""
        state = self.__dict__
        deferred = state.get("_deferred")
        if deferred is None:
            return
        with deferred.lock:
            if state.get("_deferred") is None:
                return
            certs, bounds, seconds = deferred.compute()
            state["certificates"] = list(certs) + list(state["certificates"])
            if bounds is not None:
                state["friction_bounds"] = bounds
            self.timing.detail["structural"] = seconds
            state["_deferred"] = None

    def __getstate__(self) -> dict:
        """The fields with the deferred certificates settled (neither the computation nor its lock is copied or
        pickled)."""
        self.settle()
        return {k: v for k, v in self.__dict__.items() if k != "_deferred"}

    def max_residual(self) -> float:
        return max(self.residuals.values()) if self.residuals else float("inf")

    @property
    def certified(self) -> bool:
        """True when the status is backed by a verified instance certificate and no cross-check disagreed.

        Derived from the table :data:`CERTIFYING` (which certificate ids back which status).
        :func:`gaussqp.solve` keeps ``status == "solved"`` only for such answers (a failed residual or
        forward-error check, or a disagreeing route, makes it ``inaccurate``), so for a user the status
        alone is honest; ``certified`` also covers infeasible and unbounded verdicts."""
        backing = CERTIFYING.get(self.status, ())
        found = [c for c in (self.certificate(cid) for cid in backing) if c is not None]
        if self.status == SOLVED:
            found = found[:1]
            base = (
                bool(found)
                and bool(found[0].holds)
                and all(
                    c is None or bool(c.holds) for c in (self.certificate(cid) for cid in ALSO_REQUIRED_WHEN_SOLVED)
                )
            )
        else:
            base = bool(found) and bool(found[0].holds)
        if self.crosscheck is not None and self.crosscheck.disagreed:
            return False
        return base

    @property
    def certified_quantities(self) -> dict:
        """Which quantities of a returned answer are certified: ``{"acceleration": bool | None, "forces": bool | None}``.

        Each is True when the status's backing certificate holds (``kkt_residuals`` or ``natural_map``, see
        :data:`CERTIFYING`), no cross-check disagreed, and, where a ``forward_error`` certificate was computed, that
        quantity's forward error meets the tolerance (its ``data``: ``acceleration_certified``, ``forces_certified``,
        and ``forces_basis``: each contact's force, or a member of the solution set when the multipliers are not
        unique). Without that certificate (sparse, large, friction decided by the route) the backing certificate
        decides both. None for both when no answer is returned. ``certified`` of a ``solved`` answer is True exactly
        when both are."""
        if not self.status.has_solution or self.acceleration is None:
            return {"acceleration": None, "forces": None}
        found = [c for c in (self.certificate(cid) for cid in CERTIFYING[SOLVED]) if c is not None][:1]
        base = bool(found) and bool(found[0].holds) and not (self.crosscheck is not None and self.crosscheck.disagreed)
        # every other certificate a solved answer needs (the backward error of the verdict contract) backs both
        base = base and all(
            c is None or bool(c.holds)
            for c in (self.certificate(cid) for cid in ALSO_REQUIRED_WHEN_SOLVED if cid != "forward_error")
        )
        fe = self.certificate("forward_error")
        # an answer not 'solved' for any other reason than its forward error (a backend that ended inaccurate, a
        # withdrawn answer) certifies neither quantity
        base = base and (self.status == SOLVED or (fe is not None and not fe.holds))
        if fe is None:
            return {"acceleration": base, "forces": base}
        return {
            "acceleration": base and bool(fe.data.get("acceleration_certified", fe.holds)),
            "forces": base and bool(fe.data.get("forces_certified", fe.holds)),
        }

    def as_dict(self) -> dict:
        """The JSON object printed by ``gaussqp solve --json``."""
        p = self.problem
        fr = p.modes != "frictionless" if isinstance(p, ContactProblem) else np.ones(p.m, dtype=bool)
        lam_t = []
        for i in range(p.m):
            lam_t.append([] if not fr[i] or self.lambda_tangent is None else to_jsonable(self.lambda_tangent[i]))
        return {
            "problem": p.name,
            "status": self.status.value,
            "certified": self.certified,
            "certified_quantities": self.certified_quantities,
            "formulation": self.formulation,
            "solver": self.solver,
            "acceleration": to_jsonable(self.acceleration) if self.acceleration is not None else None,
            "lambda_normal": to_jsonable(self.lambda_normal) if self.lambda_normal is not None else None,
            "lambda_tangent": lam_t if self.lambda_normal is not None else None,
            "generalized_force": to_jsonable(self.generalized_force) if self.lambda_normal is not None else None,
            "residuals": {k: json_float(v) for k, v in self.residuals.items()},
            "unique": to_jsonable(dict(self.unique)),
            "certificates": [c.as_dict() for c in self.certificates],
            "crosscheck": to_jsonable(self.crosscheck.as_dict()) if self.crosscheck is not None else None,
            **({"sticking": self.sticking.as_dict()} if self.sticking is not None else {}),
            **(
                {"friction_bounds": [b.as_dict() for b in self.friction_bounds]}
                if self.friction_bounds is not None
                else {}
            ),
            **({"route": self.route} if self.route is not None else {}),
            **({"contact_modes": [c.as_dict() for c in self.contact_modes]} if self.contact_modes is not None else {}),
            **(
                {"natural_map_residual": self.natural_map_residual.as_dict()}
                if self.natural_map_residual is not None
                else {}
            ),
            **({"velocity": to_jsonable(self.velocity)} if self.velocity is not None else {}),
            **({"backward_error": to_jsonable(self.backward_error)} if self.backward_error is not None else {}),
            "times": self.timing.as_dict(),
            "message": self.message,
        }

    def summary(self, certificates: bool = False) -> str:
        """The answer explained, as text: what ``gaussqp solve`` prints.

        One line each for the problem, the status and whether it is certified (and which quantities), the
        formulation and backend, the acceleration, the multipliers, ``Jᵀλ``, the residuals we recomputed, the
        backward error, what is unique, the cross-check (its verdict, then one line per route compared) and, where
        a route computed them, the sticking verdict, the enumeration and the natural-map residual.

        Parameters
        ----------
        certificates : bool, default False
            Add the table of certificates (id, holds, margin, source and what each implies).

        Returns
        -------
        str
            Lines without a trailing newline.

        Examples
        --------
        >>> import gaussqp
        >>> sol = gaussqp.solve(gaussqp.problems.load("rod_wall_guide"))
        >>> print(sol.summary().splitlines()[1])
        status       solved  (certified)
        """
        p, out = self.problem, []
        out.append(f"problem      {p.name}  ({p.summary().detail})")
        out.append(f"status       {self.status}{'  (certified)' if self.certified else '  (NOT certified)'}")
        cq = self.certified_quantities
        if any(v is not None for v in cq.values()):
            out.append("certified    " + "  ".join(f"{k}={format_value(v)}" for k, v in cq.items()))
        out.append(
            f"formulation  {self.formulation} / {self.solver}"
            + (f"  (route: {self.route})" if self.route is not None else "")
        )
        if self.message:
            out.append(f"message      {self.message}")
        out.append(f"acceleration {format_value(self.acceleration)}")
        out.append(f"lambda_n     {format_value(self.lambda_normal)}")
        if self.lambda_normal is not None and (len(p.sticking) or len(p.sliding) or len(p.coulomb)):
            out.append(f"lambda_t     {format_value(self.lambda_tangent)}")
        out.append(f"Jᵀλ          {format_value(self.generalized_force)}")
        out.append("residuals    " + "  ".join(f"{k}={v:.2e}" for k, v in self.residuals.items()))
        if self.backward_error is not None:
            be = self.backward_error
            out.append(
                f"backward err forces={be['forces']:.2e}  drifts={be['drifts']:.2e}  rows={be['rows']:.0f}  "
                f"(the data change under which the answer is exact, relative to each row's scale)"
            )
        out.append("unique       " + "  ".join(f"{k}={format_value(v)}" for k, v in self.unique.items()))
        if self.crosscheck is not None:
            out.extend(_crosscheck_lines(self.crosscheck))
        if self.enumeration is not None:
            e = self.enumeration
            out.append(
                f"solutions    {e.count} found on {e.pieces} pieces: acceleration {e.multiplicity}, "
                f"multipliers {e.multiplier_multiplicity}"
                + "".join(f"\n             λ_n = {format_value(x.lam_n)} (piece {x.piece})" for x in e.solutions[:8])
            )
        if self.sticking is not None:
            v: Any = self.sticking
            out.append(
                f"sticking     feasible={format_value(v.feasible)}  margin={format_value(v.margin)}  "
                f"mu_min={format_value(v.mu_min)}  on cone boundary={v.boundary_contacts}  "
                f"detaching={v.detaching_contacts}"
            )
        if self.natural_map_residual is not None:
            res: Any = self.natural_map_residual
            out.append(
                f"natural map  absolute={res.absolute:.2e}  relative(÷‖q‖)={res.relative:.2e}  "
                f"siconos={res.siconos:.2e}"
            )
            counts: dict[str, int] = {}
            for c in self.contact_modes or ():
                mode = getattr(c, "mode")
                counts[mode] = counts.get(mode, 0) + 1
            out.append("modes        " + "  ".join(f"{k}={n}" for k, n in sorted(counts.items())))
        if certificates:
            out.append("certificates")
            out.extend(certificate_lines(self.certificates))
        return "\n".join(out)

    def __repr__(self) -> str:
        unique = ", ".join(f"{k}={format_value(v)}" for k, v in self.unique.items())
        cc = (
            "none"
            if self.crosscheck is None
            else {True: "agreed", False: "DISAGREED", None: "not compared"}[self.crosscheck.agree]
        )
        return (
            f"Solution(status={self.status.value!r}, certified={self.certified}, formulation={self.formulation!r}, "
            f"solver={self.solver!r}, unique=({unique}), max_residual={self.max_residual():.2e}, "
            f"crosscheck={cc!r})"
        )


class _Deferred:
    """What :meth:`Solution.defer` keeps: the computation and the lock its first readers share."""

    __slots__ = ("compute", "lock")

    def __init__(self, compute: Callable[[], tuple], lock) -> None:
        self.compute, self.lock = compute, lock


class _SettledOnRead:
    """The field ``name`` of :class:`Solution` that :meth:`Solution.defer`'s computation fills: reading or assigning it
    runs that computation first (a value assigned is then kept as given)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        state = obj.__dict__
        if state.get("_deferred") is not None:
            obj.settle()
        return state[self.name]

    def __set__(self, obj, value) -> None:
        if obj.__dict__.get("_deferred") is not None:
            obj.settle()
        obj.__dict__[self.name] = value


Solution.certificates = _SettledOnRead("certificates")  # type: ignore[assignment]
Solution.friction_bounds = _SettledOnRead("friction_bounds")  # type: ignore[assignment]


def is_structural_id(cid: str) -> bool:
    """Whether ``cid`` is a structural certificate's id (``C1`` … ``C8``, ``C3(ii)``, ``C6(angles)``, …)."""
    return len(cid) > 1 and cid[0] == "C" and cid[1].isdigit()


def format_value(x) -> str:
    """A value as the command line prints it: numbers to 6 significant digits (never ``-0``), arrays flattened
    in brackets, booleans ``yes``/``no``, None ``-``."""
    if x is None:
        return "-"
    if isinstance(x, (list, tuple, np.ndarray)):
        return "[" + ", ".join(format_value(v) for v in np.asarray(x, dtype=float).ravel()) + "]"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x + 0.0:.6g}"  # + 0.0: no "-0"
    return str(x)


def certificate_lines(certs) -> list[str]:
    """The table of certificates as text lines: id, holds (yes/no/n/a), margin, source, then what it implies."""
    out = [f"  {'id':<22} {'holds':<6} {'margin':>11}  source / implies"]
    for c in certs:
        holds = "n/a" if c.holds is None else ("yes" if c.holds else "no")
        out.append(f"  {c.id:<22} {holds:<6} {c.margin + 0.0:>11.3g}  {c.source}")
        out.append(f"  {'':<22} {'':<6} {'':>11}  -> {c.implies}")
    return out


def _crosscheck_lines(cc: CrossCheck) -> list[str]:
    """The cross-check as text: the verdict over its routes (with the gaps to the first), one line per route."""
    verdict = {True: "agreed", False: "DISAGREED", None: "not compared"}[cc.agree]
    if cc.routes:  # the verdict combines the routes listed below it; the gaps are those of the first
        out = [
            f"crosscheck   {verdict}, over {len(cc.routes)} route(s); gaps to {cc.formulation}: "
            f"acceleration {format_value(cc.acceleration_gap)}, Jᵀλ {format_value(cc.generalized_force_gap)}"
        ]
    else:
        out = [
            f"crosscheck   {verdict}: {cc.formulation} ({cc.status}): acceleration gap "
            f"{format_value(cc.acceleration_gap)}, Jᵀλ gap {format_value(cc.generalized_force_gap)}"
        ]
    for r in cc.routes:
        out.append(f"             {r.route} ({r.status}): {r.outcome}" + (f" — {r.reason}" if r.reason else ""))
    if cc.bracket is not None:
        b = cc.bracket
        out.append(
            f"bracket      {b.facets} facets: inscribed {b.inner}, circumscribed {b.outer}, "
            f"consistent={format_value(b.consistent)}"
        )
    return out


#: the fields of :class:`JudgeHints` that were fields of :class:`Solution` (deprecated as such)
_MOVED_HINTS = ("polish_allowed", "cones_enforced", "nonexistence_verified")


def _warn_hint(name: str) -> None:
    warnings.warn(
        f"Solution.{name} is deprecated: it is Solution.hints.{name} (gaussqp.results.JudgeHints)",
        DeprecationWarning,
        stacklevel=3,
    )


def _hint(sol: Solution, name: str):
    _warn_hint(name)
    return getattr(sol.hints, name)


def _set_hint(sol: Solution, name: str, value) -> None:
    _warn_hint(name)
    sol.hints = replace(sol.hints, **{name: value})


_dataclass_init = Solution.__init__


def _init(self, *args, **kwargs) -> None:
    moved = {k: kwargs.pop(k) for k in _MOVED_HINTS if k in kwargs}
    _dataclass_init(self, *args, **kwargs)
    if moved:
        warnings.warn(
            f"Solution({', '.join(moved)}=...) is deprecated: pass hints=JudgeHints(...)",
            DeprecationWarning,
            stacklevel=2,
        )
        self.hints = replace(self.hints, **moved)


_init.__doc__ = _dataclass_init.__doc__
_init.__signature__ = inspect.signature(_dataclass_init)  # type: ignore[attr-defined]
Solution.__init__ = _init  # type: ignore[method-assign]
