"""F6 — sliding Coulomb friction (tutorial §3; sticking §5): three routes and one verdict.

- ``sliding_lcp``: the LCP (58) by Lemke pivoting; it is the hLCP (41) when every contact is
  bilateral and the LCP (50) when every contact is unilateral (frictionless bilateral rows are
  eliminated first, tutorial (44) and Prop. 14). M ≻ 0.
- ``sliding_fixed_point``: the fixed point of tutorial Prop. 9 (Prop. 11 with frictionless bilateral
  rows), bilateral contacts only, with its contraction certificate ``‖A_nb⁻¹A_tb[μ]‖₂ < 1``.
- ``sliding_enumeration``: every piece of the piecewise-linear problem (the sign enumeration of (37),
  the complementarity pieces of (50)/(58), the stick/slip pieces of sticking (71) with their
  Coulomb disks — (71) itself, not its reformulations (72)-(77)), exact and for few contacts
  (:data:`gaussqp.settings.ENUMERATION_MAX`); also singular M.

Sliding problems may have no solution or several (Painlevé paradoxes, jamming): the verdict attached
to every answer unless ``solve(..., verdict=False)`` (:func:`gaussqp.certificates.sliding_verdict.sliding_verdict`) says so, from the enumeration when the problem is small
enough, else from the exact P-matrix test of the LCP matrix (58) (unique for every load iff P).
"""

from __future__ import annotations

import time

import numpy as np

from ..errors import NotApplicableError, SolverError, TooLargeError
from ..linalg.lemke import lemke_or_failed
from ..model.problem import ContactProblem
from ..model.system_class import SystemClass
from ..friction.enumeration import Enumeration, enumerated_contacts, enumerate_solutions, piece_count
from ..settings import DEFAULT_FACETS, ELIMINATION_DENSE_MAX, ENUMERATION_MAX, NONEXISTENCE_CHANGE, Tolerance
from ..friction.sliding import fixed_point, reduce, sliding_lcp
from ..certificates.enumeration import enumeration_certificate, enumeration_verdict
from ..certificates.sliding_verdict import sliding_verdict
from ..friction.cones import ConeModel
from ..certificates.route_proofs import contraction_certificate
from ..results import FAILED, INFEASIBLE, SOLVED, JudgeHints, Solution
from .base import Formulation, common_reject

#: a direct route's answer: the judge does not polish it
NO_POLISH = JudgeHints(polish_allowed=False)


class SlidingFormulation(Formulation):
    """An F6 route: :func:`gaussqp.certificates.judge.finalize` checks the returned point, then :func:`sliding_verdict` says how many
    solutions the instance has."""

    id = "F6"
    crosscheck = "sliding"
    kind = "direct"

    def attach_verdict(self, sol: Solution, solver: str | None, tol: Tolerance) -> bool:
        sliding_verdict(sol, sol.enumeration)
        return True


class SlidingLCP(SlidingFormulation):
    name = "sliding_lcp"
    title = "sliding-friction LCP (41)/(50)/(58) by Lemke pivoting"
    source = "tutorial (41), (50), (57)-(58), Prop. 14"
    valid_when = "M ≻ 0, sliding (and frictionless) contacts, A_nb - A_tb[μ_b ξ_b] invertible"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        ok, why = common_reject(problem, cls, need_definite=True, sliding=True)
        if ok and len(problem.sticking):
            return False, "sticking contacts with sliding ones: the stick/slip problem (use 'sliding_enumeration')"
        if ok and problem.n > ELIMINATION_DENSE_MAX:
            return False, f"dense elimination limited to n <= {ELIMINATION_DENSE_MAX}"
        return ok, why

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        t0 = time.perf_counter()
        red = reduce(problem)
        sol = Solution(problem=problem, status=SOLVED, formulation=self.name, solver="lemke", hints=NO_POLISH)
        try:
            L = sliding_lcp(red)
        except NotApplicableError as exc:  # dependent sliding rows: no LCP (58); the enumeration decides
            try:
                enum = enumerate_solutions(problem, relax=tol.residual)
            except TooLargeError:
                sol.status, sol.message = FAILED, f"{exc}; and the problem is too large to enumerate"
                return sol
            except SolverError as err:
                sol.status, sol.message = FAILED, f"{exc}; and {err}"
                return sol
            sol.route = "enumeration (no LCP (58): A_nb - A_tb[μ_b ξ_b] singular)"
            return _from_enumeration(sol, enum)
        t1 = time.perf_counter()
        res = lemke_or_failed(L.M, L.q)
        sol.timing.detail = {"reduction": t1 - t0, "lemke": time.perf_counter() - t1}
        sol.route = L.form
        sol.extras.update({"lcp": L, "lemke_status": res.status, "lemke_iterations": res.iterations})
        if res.status == "solved":
            lam_b, lam_u = L.multipliers(res.z)
            sol.acceleration, sol.lambda_normal, sol.lambda_tangent = red.recover(problem, lam_b, lam_u)
            return sol
        # Lemke's ray proves nothing on a matrix that is not copositive-plus: the enumeration decides.
        try:
            enum = enumerate_solutions(problem, relax=tol.residual)
        except TooLargeError:
            sol.status = FAILED
            sol.message = (
                f"Lemke ended with {res.status} on the {L.form} matrix, which is not known to be "
                "copositive-plus, and the problem is too large to enumerate"
            )
            return sol
        except SolverError as err:
            sol.status, sol.message = FAILED, f"Lemke ended with {res.status} on the {L.form} matrix, and {err}"
            return sol
        sol.route = f"enumeration (Lemke {res.status} on {L.form})"
        return _from_enumeration(sol, enum)


def _from_enumeration(sol: Solution, enum: Enumeration) -> Solution:
    sol.enumeration = enum
    if not enum.solutions:
        # the verdict contract (DESIGN.md §4.3): "none" must hold for every problem within NONEXISTENCE_CHANGE of
        # the data, as each piece's phase one measures it (Enumeration.none_certified)
        nearest = enum.nearest_change
        if not enum.none_certified:
            sol.status = FAILED
            sol.message = (
                "no piece of the sliding problem has a solution within the tolerance, but "
                f"{enum.none_uncertified_reason()}: not certified"
            )
            return sol
        sol.status = INFEASIBLE
        sol.message = "no piece of the sliding problem has a solution (enumeration), " + (
            "whatever the forces and drifts (an exact row contradicts itself)"
            if nearest == float("inf")
            else f"nor for any change of the data below {nearest:.1e} of their rows' scales (> {NONEXISTENCE_CHANGE:g})"
        )
        sol.certificates.append(enumeration_certificate(sol.problem, enum))
        return sol
    s = min(enum.solutions, key=lambda x: x.backward_error)
    if s.backward_error > 0:
        # the verdict contract (DESIGN.md §4.3): no exact solution, but one within the tolerance of the data
        sol.message = (
            f"no piece has a solution for the data as given; the answer solves the problem with forces "
            f"and drifts changed by {s.backward_error:.1e} (relative to each row's scale from the data)"
        )
    sol.status = SOLVED
    sol.acceleration, sol.lambda_normal, sol.lambda_tangent = s.a, s.lam_n, s.lam_t
    return sol


class SlidingFixedPoint(SlidingFormulation):
    name = "sliding_fixed_point"
    title = "bilateral sliding friction: fixed point of Prop. 9 (Prop. 11)"
    source = "tutorial Prop. 9, (39)-(40); Prop. 11, (44)-(45)"
    valid_when = "M ≻ 0, bilateral contacts only (sliding or frictionless), A_nb ≻ 0"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        ok, why = common_reject(problem, cls, need_definite=True, sliding=True)
        if ok and (len(problem.unilateral) or len(problem.sticking)):
            return False, "bilateral sliding/frictionless contacts only"
        return ok, why

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        red = reduce(problem)
        sol = Solution(
            problem=problem,
            status=SOLVED,
            formulation=self.name,
            solver="fixed_point",
            hints=NO_POLISH,
            route="fixed point (Prop. 9/11)",
        )
        try:
            fp = fixed_point(red)
        except NotApplicableError as exc:
            sol.status, sol.message = FAILED, str(exc)
            return sol
        sol.certificates.append(contraction_certificate(fp.contraction, fp.iterations, fp.error_bound))
        sol.extras.update({"iterations": fp.iterations, "contraction": fp.contraction})
        if not fp.converged:
            sol.status = FAILED
            sol.message = f"fixed-point iteration did not converge (contraction factor {fp.contraction:.3g})"
            return sol
        sol.acceleration, sol.lambda_normal, sol.lambda_tangent = red.recover(problem, fp.lam_b, np.zeros(0))
        return sol


class SlidingEnumeration(SlidingFormulation):
    name = "sliding_enumeration"
    title = "exact enumeration of the sign/complementarity pieces (sliding, stick/slip)"
    source = "tutorial §3.2.1 (37), (50), (58); sticking §5 (71)"
    valid_when = f"at most {ENUMERATION_MAX} frictional-bilateral plus unilateral contacts; any M ⪰ 0"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        ok, why = common_reject(problem, cls, need_definite=False, sliding=True)
        k = len(enumerated_contacts(problem))
        if ok and k > ENUMERATION_MAX:
            return False, f"{k} enumerated contacts > {ENUMERATION_MAX} (2^{k} pieces)"
        return ok, why

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        sol = Solution(
            problem=problem,
            status=SOLVED,
            formulation=self.name,
            solver="enumeration",
            hints=JudgeHints(polish_allowed=False, cones_enforced=ConeModel("disk") if len(problem.sticking) else None),
            route="stick/slip enumeration (71)" if len(problem.sticking) else "enumeration of (37)/(50)/(58)",
        )
        t0 = time.perf_counter()
        try:
            enum = enumerate_solutions(problem, solver=solver, relax=tol.residual)
        except SolverError as err:  # a piece's program failed: the route decides nothing (solve never raises it)
            sol.status, sol.message = FAILED, str(err)
            return sol
        sol.timing.detail = {"enumeration": time.perf_counter() - t0}
        return _from_enumeration(sol, enum)


class CoulombEnumeration(SlidingFormulation):
    """Coulomb's law with the stick/slip mode left to the solver (mode ``"coulomb"``), exact in 2D.

    Every piece of every contact is enumerated (:func:`gaussqp.friction.enumeration.enumerate_solutions`):
    a 2D coulomb contact is separated (``λ_n = 0``, ``n a + b >= 0``) or active (``n a + b = 0``,
    ``λ_n >= 0``) and then sticking (``T a + c = 0``, ``|λ_t| <= μ λ_n``), slipping forwards
    (``T a + c >= 0``, ``λ_t = -μ λ_n``) or backwards (``T a + c <= 0``, ``λ_t = +μ λ_n``); with the other
    modes as in ``sliding_enumeration`` (which is this route when every mode is given). Each piece is an LP,
    so the verdict is complete: no solution (with the enumeration as the proof), one, several, or a continuum,
    for the acceleration and the multipliers separately, and the modes of every solution
    (``sol.enumeration.solutions[k].modes``; a point on the boundary of two pieces, e.g. at the onset of slip,
    is one solution with the modes "sticking|sliding+"). The answer returned is the first solution found.

    With ``kind`` "inner" or "outer" (``coulomb_enumeration_inner`` / ``_outer``, 8 facets, :meth:`with_facets`)
    3D coulomb contacts are enumerated on the inscribed / circumscribed polygon of their disk (sticking
    (54)-(59)): separated, stick, each facet and each vertex (the law of maximum dissipation on the polygon),
    an exact answer for the facetized law and an approximation of the disk's — not a proven bracket of it.
    """

    id = "F6"
    source = "sticking §5 (71) with the slip direction free; tutorial §3.2.1"
    decides_modes = True

    def __init__(self, kind: str | None = None, facets: int = DEFAULT_FACETS):
        from ..friction.cones import ConeModel

        self.model = None if kind is None else ConeModel(kind, facets)
        if kind is None:
            self.name = "coulomb_enumeration"
            self.title = "exact enumeration of Coulomb's stick/slip+/slip- pieces (2D), all solutions"
            self.valid_when = (
                f"2D 'coulomb' contacts; at most 2^{ENUMERATION_MAX} pieces (2 per enumerated "
                "contact, 4 per coulomb contact); any M ⪰ 0"
            )
        else:
            self.name = f"coulomb_enumeration_{kind}"
            shape = "inscribed" if kind == "inner" else "circumscribed"
            self.title = (
                f"enumeration of Coulomb's stick/facet/vertex pieces on {shape} polygons with {facets} "
                "facets (3D), all solutions of the facetized law"
            )
            self.valid_when = (
                f"'coulomb' contacts in 2D (exact) or 3D (polygons); at most 2^{ENUMERATION_MAX} "
                f"pieces (2 + 2·{facets} per 3D coulomb contact); any M ⪰ 0"
            )

    def with_facets(self, facets: int) -> "CoulombEnumeration":
        """The same route with ``facets``-gons (a facetized route only)."""
        if self.model is None:
            raise NotApplicableError(
                "'coulomb_enumeration' is exact in 2D and has no polygon: use "
                "'coulomb_enumeration_inner' or '_outer' for facets"
            )
        return CoulombEnumeration(self.model.kind, facets)

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        if len(problem.coulomb) and problem.dimension != 2 and (self.model is None or problem.dimension != 3):
            return False, (
                f"'coulomb' contacts in dimension {problem.dimension}: the stick/slip enumeration is "
                "exact in 2D"
                + (
                    " (use 'coulomb_enumeration_inner' / '_outer' in 3D)"
                    if problem.dimension == 3
                    else "; polygons are for 3D only"
                )
            )
        if not len(enumerated_contacts(problem)):
            return False, "no unilateral or frictional contact: nothing to enumerate"
        k = piece_count(problem, self.model)
        if k > 2**ENUMERATION_MAX:
            return False, (
                f"{k} pieces > 2^{ENUMERATION_MAX} = {2**ENUMERATION_MAX} "
                f"({'4' if problem.dimension == 2 else '2 + 2·facets'} per coulomb contact)"
            )
        return True, ""

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        ok, why = self.accepts(problem, problem.classify())
        if not ok:
            raise NotApplicableError(f"formulation {self.name!r} does not accept this problem: {why}")
        polygons = self.model is not None and problem.dimension == 3 and len(problem.coulomb)
        sol = Solution(
            problem=problem,
            status=SOLVED,
            formulation=self.name,
            solver="enumeration",
            # the cones are enforced (exactly) on every piece; F1's forward-error estimate does not
            # describe them
            hints=JudgeHints(polish_allowed=False, cones_enforced=ConeModel("disk")),
            route=(
                f"stick/facet/vertex enumeration on {self.model.kind} {self.model.facets}-gons"
                if polygons
                else "stick/slip+/slip- enumeration of the coulomb contacts"
            ),
        )
        t0 = time.perf_counter()
        try:
            enum = enumerate_solutions(problem, solver=solver, cone=self.model, relax=tol.residual)
        except SolverError as err:  # a piece's program failed: the route decides nothing (solve never raises it)
            sol.status, sol.message = FAILED, str(err)
            return sol
        sol.timing.detail = {"enumeration": time.perf_counter() - t0}
        return _from_enumeration(sol, enum)

    def attach_verdict(self, sol: Solution, solver: str | None, tol: Tolerance) -> bool:
        if sol.enumeration is None:
            return False
        enumeration_verdict(sol, sol.enumeration)
        return True
