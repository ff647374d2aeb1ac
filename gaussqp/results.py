"""Result objects: :class:`Status`, :class:`Certificate`, :class:`Solution`, and the JSON helpers.

In the spirit of ``scipy.optimize.OptimizeResult`` and ``qpsolvers.Solution``: a solution
keeps its problem; its residuals are recomputed in the original variables by
:func:`gaussqp.certificates.residuals.kkt_residuals` (never copied from a solver's report). Raw
solver output goes in ``extras``; what gaussqp itself decides has a typed field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .model.problem import ContactProblem
from .model.system_class import Label

if TYPE_CHECKING:  # the typed fields of Solution; imported only for annotations (no import cycle)
    from .certificates.friction_bounds import FrictionBound
    from .friction.cones import ConeModel
    from .friction.coulomb_law import ContactMode, NaturalMapResidual
    from .friction.enumeration import Enumeration
    from .friction.verdict import StickingVerdict


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


SOLVED, INFEASIBLE, UNBOUNDED, INACCURATE, FAILED = (Status.SOLVED, Status.INFEASIBLE, Status.UNBOUNDED,
                                                     Status.INACCURATE, Status.FAILED)
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
        d = {"id": self.id, "name": self.name, "source": self.source,
             "holds": None if self.holds is None else bool(self.holds),
             "margin": json_float(self.margin), "implies": self.implies}
        if self.data.get(EVIDENCE) is not None:
            d[EVIDENCE] = to_jsonable(self.data[EVIDENCE])
        if with_data and self.data:
            d["data"] = {k: to_jsonable(v) for k, v in self.data.items() if k != EVIDENCE}
        return d


#: The key of ``Certificate.data`` holding the vectors a verdict rests on and the ``"verify"`` text (written by
#: :meth:`Certificate.as_dict` in every JSON output: ``solve --json``, ``check --json``, ``grasp --json``).
EVIDENCE = "evidence"


def json_float(x):
    """A float for JSON: None for NaN, the strings "inf"/"-inf" for infinities."""
    if x is None:
        return None
    x = float(x)
    if np.isnan(x):
        return None
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def to_jsonable(v):
    """A JSON-ready copy of ``v`` (numpy arrays and scalars, nested lists, tuples and dicts)."""
    if isinstance(v, np.ndarray):
        return [to_jsonable(x) for x in v.tolist()] if v.ndim else json_float(v)
    if isinstance(v, (list, tuple)):
        return [to_jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        return json_float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, dict):
        return {k: to_jsonable(x) for k, x in v.items()}
    return v


@dataclass
class Solution:
    """Outcome of one formulation on one problem.

    Attributes
    ----------
    status : :class:`Status` (a string enum: ``solved, infeasible, unbounded, inaccurate, failed``)
    acceleration : (n,) or None
    lambda_normal : (m,) normal multipliers in input order, or None
    lambda_tangent : (m, d-1) tangential multipliers (zero rows for frictionless contacts), or None
    generalized_force : (n,) ``J_nᵀλ_n + J_tᵀλ_t`` (equals ``M a + F`` at a solution)
    residuals : recomputed by :func:`kkt_residuals` (or of the certificate for inf/unb)
    certificates : list of :class:`Certificate` (structural and instance)
    unique : {"acceleration", "generalized_force", "multipliers"} -> bool | None
    crosscheck : report of the cross-check against another route, or None
    sticking : the sticking verdict (:class:`~gaussqp.friction.verdict.StickingVerdict`) of an
        all-sticking problem, or None
    friction_bounds : the friction bounds C7 (:class:`~gaussqp.certificates.friction_bounds.FrictionBound`)
        evaluated for a frictional problem, or None
    route : which internal route of a formulation answered (e.g. Lemke or the enumeration), or None
    enumeration : every solution found by the exact enumeration of the sliding pieces
        (:class:`~gaussqp.friction.enumeration.Enumeration`), or None
    in_enumeration : (sliding cross-check) whether the answer is among the enumerated solutions
    polish_allowed : whether the judge may polish the answer on its active set (False for direct
        solves and for answers that live on cone boundaries)
    cones_enforced : the friction-cone model the formulation enforced (the judge checks the
        multipliers against it), or None
    nonexistence_verified : an infeasible/unbounded claim already verified by the formulation's own
        certificate route (the judge does not re-verify it)
    contact_modes : (mode-free Coulomb contacts) the mode found at each contact with its distance to a mode
        change (:class:`~gaussqp.friction.coulomb_law.ContactMode`), or None
    natural_map_residual : (mode-free Coulomb) the natural-map residual recomputed by us
        (:class:`~gaussqp.friction.coulomb_law.NaturalMapResidual`: absolute, ÷‖q‖, Siconos's), or None
    velocity : the local contact velocity ``u`` (m·d, blocks (normal, tangents)) of a Coulomb answer; for a
        :class:`~gaussqp.LocalContactProblem` ``u = W r + q`` (its ``lambda_*`` are the reaction r), or None
    backward_error : the verdict contract's data change under which the answer is exact, relative to each row's
        scale from the data, per block: ``{"forces", "drifts", "rows", "multipliers"}``
        (:mod:`gaussqp.certificates.backward_error`; the changed data are in the ``backward_error`` certificate), or None
    times : seconds spent per stage
    extras : raw solver output (backend info, attempts) and a route's intermediates, documented
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
    crosscheck: dict | None = None
    sticking: "StickingVerdict | None" = None
    friction_bounds: "list[FrictionBound] | None" = None
    route: str | None = None
    enumeration: "Enumeration | None" = None
    in_enumeration: bool | None = None
    polish_allowed: bool = True
    cones_enforced: "ConeModel | None" = None
    nonexistence_verified: bool = False
    contact_modes: "list[ContactMode] | None" = None
    natural_map_residual: "NaturalMapResidual | None" = None
    velocity: np.ndarray | None = None
    backward_error: dict | None = None
    times: dict = field(default_factory=dict)
    message: str = ""
    extras: dict[str, Any] = field(default_factory=dict)

    def __setattr__(self, name: str, value) -> None:
        if name == "status":  # every status is a Status member (an unknown string is a ValueError)
            value = Status(value)
        object.__setattr__(self, name, value)

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
        """The first certificate whose id is ``cid`` (or None)."""
        for c in self.certificates:
            if c.id == cid:
                return c
        return None

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
            base = bool(found) and bool(found[0].holds) and all(
                c is None or bool(c.holds) for c in (self.certificate(cid) for cid in ALSO_REQUIRED_WHEN_SOLVED))
        else:
            base = bool(found) and bool(found[0].holds)
        if self.crosscheck is not None and self.crosscheck.get("agree") is False:
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
        when both are (issue #25 item 2)."""
        if not self.status.has_solution or self.acceleration is None:
            return {"acceleration": None, "forces": None}
        found = [c for c in (self.certificate(cid) for cid in CERTIFYING[SOLVED]) if c is not None][:1]
        base = bool(found) and bool(found[0].holds) and not (
            self.crosscheck is not None and self.crosscheck.get("agree") is False)
        # every other certificate a solved answer needs (the backward error of the verdict contract) backs both
        base = base and all(c is None or bool(c.holds) for c in (self.certificate(cid) for cid in
                                                                  ALSO_REQUIRED_WHEN_SOLVED if cid != "forward_error"))
        fe = self.certificate("forward_error")
        # an answer not 'solved' for any other reason than its forward error (a backend that ended inaccurate, a
        # withdrawn answer) certifies neither quantity
        base = base and (self.status == SOLVED or (fe is not None and not fe.holds))
        if fe is None:
            return {"acceleration": base, "forces": base}
        return {"acceleration": base and bool(fe.data.get("acceleration_certified", fe.holds)),
                "forces": base and bool(fe.data.get("forces_certified", fe.holds))}

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
            "crosscheck": to_jsonable(self.crosscheck) if self.crosscheck is not None else None,
            **({"sticking": self.sticking.as_dict()} if self.sticking is not None else {}),
            **({"friction_bounds": [b.as_dict() for b in self.friction_bounds]}
               if self.friction_bounds is not None else {}),
            **({"route": self.route} if self.route is not None else {}),
            **({"contact_modes": [c.as_dict() for c in self.contact_modes]} if self.contact_modes is not None else {}),
            **({"natural_map_residual": self.natural_map_residual.as_dict()}
               if self.natural_map_residual is not None else {}),
            **({"velocity": to_jsonable(self.velocity)} if self.velocity is not None else {}),
            **({"backward_error": to_jsonable(self.backward_error)} if self.backward_error is not None else {}),
            "times": {k: json_float(v) for k, v in self.times.items()},
            "message": self.message,
        }

    def __repr__(self) -> str:
        return (f"Solution(status={self.status!r}, formulation={self.formulation!r}, solver={self.solver!r}, "
                f"max_residual={self.max_residual():.2e})")
