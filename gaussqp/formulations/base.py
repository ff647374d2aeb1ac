"""What a formulation is, the program cache, and helpers shared by the formulations.

A formulation (cvxpy's "reduction" shape) declares ``accepts(problem, system_class)``,
builds its program, solves it with a backend and maps the answer back to
(a, λ_n, λ_t). :func:`gaussqp.certificates.judge.finalize` then judges every route by the same
recomputed residuals and certificates.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

import numpy as np

from ..certificates.judge import finalize
from ..errors import NotApplicableError
from ..model.problem import ContactProblem
from ..model.system_class import UNDECIDED_MODES, SystemClass
from ..results import Solution
from ..backends.base import ProgramCache
from ..settings import Tolerance, get_tolerance


class Formulation(ABC):
    """Base class. Subclasses set ``name``, ``id``, ``title``, ``source``, ``valid_when``, ``kind``."""

    name: str = ""
    id: str = ""
    title: str = ""
    source: str = ""
    valid_when: str = ""
    kind: str = "cvxpy"  # "cvxpy" (needs a backend) or "direct" (pivoting / linear algebra)
    needs: str = "qp"
    #: True for a formulation that decides the stick/slip mode of "coulomb" contacts itself; every other
    #: formulation refuses them in :meth:`solve` (:func:`undecided_modes`)
    decides_modes: bool = False

    @abstractmethod
    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        """(True, "") when this formulation is valid for the problem, else (False, reason)."""

    @abstractmethod
    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        """Raw answer (status, a, λ) before :func:`gaussqp.certificates.judge.finalize` judges it."""

    def solve(self, problem: ContactProblem, solver: str | None = None, tolerance=None,
              verdict: bool = True) -> Solution:
        """Solve ``problem`` in three stages, the same for every formulation: :meth:`_solve` (build the
        program or the matrices, cached by structure where the program is a DPP program, solve through
        :func:`gaussqp.backends.solve_program` or a direct method, recover ``(a, λ)`` in the original
        variables); :func:`~gaussqp.certificates.judge.finalize` (the judge: residuals, instance
        certificates, the status); then, with ``verdict``, :meth:`attach_verdict` (what the friction
        analysis of this formulation adds: the sticking or the sliding verdict)."""
        why = "" if self.decides_modes else undecided_modes(problem)
        if why:
            raise NotApplicableError(f"formulation {self.name!r} does not accept this problem: {why}")
        tol = get_tolerance(tolerance)
        t0 = time.perf_counter()
        sol = self._solve(problem, solver, tol)
        t1 = time.perf_counter()
        sol = finalize(sol, tol)
        sol.times["formulation"] = t1 - t0
        sol.times["certify"] = time.perf_counter() - t1
        if verdict:
            t2 = time.perf_counter()
            if self.attach_verdict(sol, solver, tol):
                sol.times["verdict"] = time.perf_counter() - t2
        return sol

    def attach_verdict(self, sol: Solution, solver: str | None, tol: Tolerance) -> bool:
        """The friction verdict of this formulation on a judged result (none by default); True when one ran."""
        return False

    def describe(self) -> dict:
        return {"name": self.name, "id": self.id, "title": self.title, "source": self.source,
                "valid_when": self.valid_when, "kind": self.kind}


class SelfJudgedFormulation(Formulation):
    """A formulation that decides the stick/slip modes itself (``decides_modes``) and judges its own answer by the
    recomputed natural map (F8, F9): :meth:`solve` checks ``accepts`` and returns :meth:`_solve`'s judged result,
    without :func:`~gaussqp.certificates.judge.finalize` (whose residuals know no undecided mode)."""

    kind = "cvxpy"
    needs = "socp"
    decides_modes = True

    def solve(self, problem: ContactProblem, solver: str | None = None, tolerance=None,
              verdict: bool = True) -> Solution:
        ok, why = self.accepts(problem, problem.classify())
        if not ok:
            raise NotApplicableError(f"formulation {self.name!r} does not accept this problem: {why}")
        return self._solve(problem, solver, get_tolerance(tolerance))


def undecided_modes(problem: ContactProblem) -> str:
    """Why no formulation accepts ``problem`` when some contact's stick/slip mode is left to the solver
    (:data:`~gaussqp.model.system_class.UNDECIDED_MODES`), else "". Every formulation here needs each contact's
    mode; :meth:`Formulation.solve` and the dispatcher refuse such problems before anything is solved."""
    idx = [int(i) for i in np.flatnonzero(np.isin(problem.modes, sorted(UNDECIDED_MODES)))]  # one pass, not m reads
    if not idx:
        return ""
    shown = ", ".join(map(str, idx[:8])) + (", ..." if len(idx) > 8 else "")
    return (f"contact(s) {shown} have mode 'coulomb' (stick/slip left to the solver), which this formulation does "
            "not decide; use 'auto' or a route that decides it ('coulomb_fixed_point', 'coulomb_mixed', "
            "'coulomb_enumeration'), or give each contact 'sticking' or 'sliding' (with its slip direction)")


def common_reject(problem: ContactProblem, cls: SystemClass, need_definite: bool,
                  sliding: bool = False) -> tuple[bool, str]:
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
        return False, (f"needs M ≻ 0 (M has rank {cls.mass_rank} < {cls.n})"
                       + ("; use 'sliding_enumeration'" if sliding else ""))
    return True, ""


PROGRAMS = ProgramCache()

