"""What a formulation is, the program cache, and helpers shared by the formulations.

A formulation (cvxpy's "reduction" shape) declares ``accepts(problem, system_class)``,
builds its program, solves it with a backend and maps the answer back to
(a, λ_n, λ_t). :func:`gaussqp.certificates.judge.finalize` then judges every route by the same
recomputed residuals and certificates.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Any, Callable, Protocol, cast


from ..certificates.judge import ANSWER, CROSSCHECK, finalize
from ..errors import NotApplicableError
from ..model.any_problem import Problem
from ..model.problem import ContactProblem
from ..model.system_class import UNDECIDED_MODES, SystemClass
from ..results import SOLVED, Solution
from ..backends.base import ProgramCache
from ..settings import Tolerance, get_tolerance


class StructurePlan(Protocol):
    """What an object of :meth:`Formulation.for_structure` keeps for the states of one structure
    (:class:`gaussqp.Solver`): the system class of a state, and the start of the next state from a certified answer."""

    guess: Any

    def classify(self, problem: ContactProblem) -> SystemClass: ...

    def reaction(self, sol: Solution) -> Any: ...


class Formulation(ABC):
    """Base class. Subclasses set ``name``, ``id``, ``title``, ``source``, ``valid_when``, ``kind``, ``crosscheck``."""

    name: str = ""
    id: str = ""
    #: set on an object of :meth:`for_structure` only (None on the registered objects)
    plan: StructurePlan | None = None
    title: str = ""
    source: str = ""
    valid_when: str = ""
    kind: str = "cvxpy"  # "cvxpy" (needs a backend) or "direct" (pivoting / linear algebra)
    needs: str = "qp"
    #: True for a formulation that decides the stick/slip mode of "coulomb" contacts itself; every other
    #: formulation refuses them in :meth:`solve` (:func:`undecided_modes`)
    decides_modes: bool = False
    #: which cross-check checks this formulation's answers: a key of :data:`gaussqp.crosscheck.CROSSCHECKS`
    #: ("generic", "sticking", "sliding", "coulomb", or "none"). Every concrete formulation declares it (no default:
    #: a new route cannot go unchecked silently; ``tests/test_layout.py`` checks every registered one)
    crosscheck: str | None = None
    #: True for the formulation that solves a :class:`~gaussqp.LocalContactProblem` ``u = W r + q`` (F8)
    accepts_local: bool = False

    @abstractmethod
    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        """(True, "") when this formulation is valid for the problem, else (False, reason)."""

    @abstractmethod
    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        """Raw answer (status, a, λ) before :func:`gaussqp.certificates.judge.finalize` judges it."""

    def solve(
        self,
        problem: ContactProblem,
        solver: str | None = None,
        tolerance=None,
        verdict: bool = True,
        role: str = ANSWER,
    ) -> Solution:
        """Solve ``problem`` in three stages, the same for every formulation: :meth:`_solve` (build the
        program or the matrices, cached by structure where the program is a DPP program, solve through
        :func:`gaussqp.backends.solve_program` or a direct method, recover ``(a, λ)`` in the original
        variables); :func:`~gaussqp.certificates.judge.finalize` (the judge: residuals, instance
        certificates, the status; ``role`` is the judge's, :data:`~gaussqp.certificates.judge.CROSSCHECK` for the
        answer of a cross-check route); then, with ``verdict``, :meth:`attach_verdict` (what the friction
        analysis of this formulation adds: the sticking or the sliding verdict)."""
        tol = self._tolerance_for(problem, tolerance)
        sol = self._judged(problem, solver, tol, role)
        t2 = time.perf_counter()
        if verdict and self.attach_verdict(sol, solver, tol):
            sol.timing.detail["verdict"] = time.perf_counter() - t2
            sol.timing.add_certify(sol.timing.detail["verdict"])
        return sol

    def solve_to_compare(
        self,
        problem: ContactProblem,
        solver: str | None,
        tolerance,
        enough: Callable[[Solution], bool],
        escalate: Callable[[Solution], bool] | None = None,
    ) -> tuple[Solution, str]:
        """The answer of this route as a cross-check route: (judged answer, the judge's role).

        The answer is first judged in the role :data:`~gaussqp.certificates.judge.CROSSCHECK` (its status from its
        residuals, backward error and cones); when ``enough`` of that judged answer is False (the comparison did not
        agree), the route is solved again and its answer judged in full (role
        :data:`~gaussqp.certificates.judge.ANSWER`: polished, its uniqueness and forward error), and that answer
        is returned: a disagreement, or an answer left uncompared, rests on the full judgement. (Solving again, rare,
        costs less than keeping a copy of every raw answer for it: ~10 µs on each cross-check of the humanoid.) No
        verdict is attached.

        ``escalate``: when given and False for the lightly judged answer that is not ``enough``, that answer is
        returned as it is (role crosscheck), not judged in full: the caller compares another route instead (the
        sticking cross-check sets a route aside whose answer failed its own checks)."""
        tol = self._tolerance_for(problem, tolerance)
        light = self._judged(problem, solver, tol, CROSSCHECK)
        if enough(light) or (escalate is not None and not escalate(light)):
            return light, CROSSCHECK
        return self._judged(problem, solver, tol, ANSWER), ANSWER

    def _solve_compared(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        """:meth:`_solve` for the answer of a cross-check route (judged in the role
        :data:`~gaussqp.certificates.judge.CROSSCHECK`, compared on the quantities that are unique): a formulation
        whose multipliers form a set may return any certified element of it. :meth:`_solve` unless overridden."""
        return self._solve(problem, solver, tol)

    def _tolerance_for(self, problem: ContactProblem, tolerance) -> Tolerance:
        """The tolerance asked (:func:`~gaussqp.settings.get_tolerance`), once ``problem`` has no contact whose mode this
        formulation does not decide (:func:`undecided_modes`: a typed error naming them otherwise)."""
        why = "" if self.decides_modes else undecided_modes(problem)
        if why:
            raise NotApplicableError(f"formulation {self.name!r} does not accept this problem: {why}")
        return get_tolerance(tolerance)

    def _judged(self, problem: ContactProblem, solver: str | None, tol: Tolerance, role: str) -> Solution:
        """:meth:`_solve`'s answer judged by :func:`~gaussqp.certificates.judge.finalize` in ``role``. The small dense
        path's answer that the judge does not certify is solved again by Clarabel and judged afresh."""
        t0 = time.perf_counter()
        sol = (self._solve_compared if role == CROSSCHECK else self._solve)(problem, solver, tol)
        t1 = time.perf_counter()
        sol = finalize(sol, tol, role)
        t2 = time.perf_counter()
        solving, judging = t1 - t0, t2 - t1
        if sol.extras.get("fast_path") and sol.status != SOLVED:
            # the small dense path's answer is a first attempt only: one the judge does not certify is
            # solved again by the named default backend, Clarabel, and judged afresh
            rejected = f"{sol.status}: {sol.message}" if sol.message else sol.status
            again = self._solve(problem, "clarabel", tol)
            t3 = time.perf_counter()
            sol = finalize(again, tol, role)
            sol.extras["fast_path_rejected"] = rejected
            t2 = time.perf_counter()
            solving, judging = solving + (t3 - t1 - judging), judging + (t2 - t3)  # both solves, both judgements
        record_times(sol, solving, judging)
        return sol

    def takes(self, problem: Problem, cls: SystemClass | None = None) -> tuple[bool, str]:
        """(True, "") when this formulation solves ``problem`` of either form, else (False, reason): a local problem
        ``u = W r + q`` by :attr:`accepts_local`, a global one by :meth:`accepts` on its system class (``cls``, or
        computed). The one place a formulation is asked about a problem of either form (study routes, dispatch)."""
        if problem.form == "local":
            return (
                (True, "")
                if self.accepts_local
                else (False, "does not take a local (Delassus) problem u = W r + q: it needs a mass matrix and rows")
            )
        glob = cast(ContactProblem, problem)  # the global form
        return self.accepts(glob, glob.classify() if cls is None else cls)

    def for_structure(self, problem: Problem) -> "Formulation | None":
        """An object of this formulation for the states of ``problem``'s structure (either form) that keeps what it can
        reuse from one state to the next (:class:`gaussqp.Solver`), or None (the default: nothing kept; the registered object
        serves). Such an object's ``accepts`` must depend only on the structure and the system class's key."""
        return None

    def attach_verdict(self, sol: Solution, solver: str | None, tol: Tolerance) -> bool:
        """The friction verdict of this formulation on a judged result (none by default); True when one ran."""
        return False

    def describe(self) -> dict:
        return {
            "name": self.name,
            "id": self.id,
            "title": self.title,
            "source": self.source,
            "valid_when": self.valid_when,
            "kind": self.kind,
        }


class SelfJudgedFormulation(Formulation):
    """A formulation that decides the stick/slip modes itself (``decides_modes``; F8, F9): :meth:`solve` checks
    ``accepts``, then runs the three stages of :meth:`Formulation.solve`. Its :meth:`_solve` measures the recomputed
    natural map and says so (``JudgeHints.natural_map``); the judge (:func:`~gaussqp.certificates.judge.finalize`)
    decides the status from it, the KKT residuals knowing no undecided mode. (The name is kept from when these routes
    judged themselves; see the changelog.)"""

    kind = "cvxpy"
    needs = "socp"
    decides_modes = True

    def solve(
        self,
        problem: ContactProblem,
        solver: str | None = None,
        tolerance=None,
        verdict: bool = True,
        role: str = ANSWER,
    ) -> Solution:
        ok, why = self.accepts(problem, problem.classify())
        if not ok:
            raise NotApplicableError(f"formulation {self.name!r} does not accept this problem: {why}")
        return super().solve(problem, solver, tolerance, verdict, role)


def record_times(sol: Solution, formulation: float, judge: float) -> None:
    """The fixed fields of ``sol.timing`` after a formulation (``formulation`` seconds in :meth:`Formulation._solve`)
    and the judge (``judge`` seconds): ``solve`` is the backend's own time when it reports one
    (``extras["backend"]["time_total"]``) and ``build`` the rest of the formulation; without it ``solve`` is the
    whole formulation and ``build`` is not measured (None). ``certify`` is the judge's; ``detail`` keeps the route's
    own stages and ``formulation``, ``judge``."""
    t = sol.timing
    backend = sol.extras.get("backend") if isinstance(sol.extras, dict) else None
    own = backend.get("time_total") if isinstance(backend, dict) else None
    if own is not None:
        t.solve, t.build = float(own), formulation - float(own)
    else:
        t.solve, t.build = formulation, None
    t.certify = judge
    t.detail.update(formulation=formulation, judge=judge)


def undecided_modes(problem: ContactProblem) -> str:
    """Why no formulation accepts ``problem`` when some contact's stick/slip mode is left to the solver
    (:data:`~gaussqp.model.system_class.UNDECIDED_MODES`), else "". Every formulation here needs each contact's
    mode; :meth:`Formulation.solve` and the dispatcher refuse such problems before anything is solved."""
    # each undecided mode's contacts, kept per problem by its property of that name (``problem.coulomb``): a solve asks
    # this of one problem four to six times, and np.isin on the modes' strings cost ~25 µs a call
    idx = sorted(int(i) for mode in UNDECIDED_MODES for i in getattr(problem, mode))
    if not idx:
        return ""
    shown = ", ".join(map(str, idx[:8])) + (", ..." if len(idx) > 8 else "")
    return (
        f"contact(s) {shown} have mode 'coulomb' (stick/slip left to the solver), which this formulation does "
        "not decide; use 'auto' or a route that decides it ('coulomb_fixed_point', 'coulomb_mixed', "
        "'coulomb_enumeration'), or give each contact 'sticking' or 'sliding' (with its slip direction)"
    )


def common_reject(
    problem: ContactProblem, cls: SystemClass, need_definite: bool, sliding: bool = False
) -> tuple[bool, str]:
    """The rejections shared by the formulations: a frictionless/sticking formulation (``sliding=False``)
    refuses sliding contacts (nonconvex, F6), a sliding one (``sliding=True``) needs one; both may need
    ``M ≻ 0``. Neither accepts a contact whose mode is left to the solver. Returns (True, "") or (False, reason)."""
    why = undecided_modes(problem)
    if why:
        return False, why
    if sliding and not len(problem.sliding):
        return False, "no sliding contact (F6 is for sliding friction)"
    if not sliding and len(problem.sliding):
        return False, "sliding friction is nonconvex (F6): not accepted by this formulation"
    if need_definite and cls.mass != "definite":
        return False, (
            f"needs M ≻ 0 (M has rank {cls.mass_rank} < {cls.n})" + ("; use 'sliding_enumeration'" if sliding else "")
        )
    return True, ""


PROGRAMS = ProgramCache()
