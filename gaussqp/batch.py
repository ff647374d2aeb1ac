"""Batch solves: a :class:`Solver` bound to one problem *structure* that re-solves new data (another
state of the same robot), and :func:`solve_many`, which groups problems of any structures and solves each group
with one Solver.

The structure of a :class:`~gaussqp.ContactProblem` (:class:`Structure`) is what does not change from one state of
a robot to the next: the coordinate and contact counts ``n``, ``m``, the dimension ``d``, each contact's type and
mode, which contacts have tangent rows, whether ``M``, ``J_n``, ``J_t`` are stored dense or sparse and, when sparse,
their sparsity patterns. The numbers — ``M``, ``F``, ``J_n``, ``J_t``, the drifts, μ, the slip directions — are the
state. The structure of a local problem :class:`~gaussqp.LocalContactProblem` ``u = W r + q`` is its ``m``, ``d``
and W's storage and sparsity pattern (``W`` in the fields of ``M``; the rows' fields "none"); ``W``, ``q``, μ are
the state. A Solver of a local structure re-solves by the mode-free Coulomb route warm-started from the last
certified reaction (:class:`~gaussqp.formulations.coulomb.LocalPlan`).

Every answer is the one :func:`gaussqp.solve` gives with the same options: :meth:`Solver.solve` and
:func:`gaussqp.solve` end in the same function (:func:`gaussqp.dispatch.solve_classified`), which checks that the
formulation accepts the problem, solves it, attaches the structural certificates, runs the cross-check and
withdraws a "solved" that an independent route contradicts. What the Solver keeps from one state to the next and
what it recomputes is listed in :class:`Solver`'s docstring.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from typing import Iterable, cast

import numpy as np
import scipy.sparse as sp

from .backends import get_backend
from .dispatch import PREFERENCES, check_bracket, check_facets, choose_formulation, formulation_object, solve_classified
from .formulations import FORMULATIONS
from .errors import NotApplicableError, StructureMismatchError, WrongTypeError
from .formulations.base import Formulation
from .linalg.blas_threads import one_blas_thread
from .formulations.coulomb import carried_reaction
from .linalg.dense import sparse_digest
from .certificates.compiled import expect_many_calls as expect_many_checks
from .friction.compiled import expect_many_calls
from .linalg.lemke import expect_many_lemke_calls
from .model.any_problem import PROBLEM_TYPES, Problem
from .model.local_problem import LocalContactProblem
from .model.problem import ContactProblem, unknowns
from .progress import Progress
from .results import SOLVED, Solution
from .settings import DEFAULT_FACETS, get_tolerance

#: what to do about a structure mismatch (the ``fix`` of :class:`~gaussqp.errors.StructureMismatchError`)
MISMATCH_FIX = (
    "build another Solver for this structure (gaussqp.Solver(problem, ...)), or give the problems to "
    "gaussqp.solve_many, which groups them by structure"
)


def _pattern(A) -> str:
    """A digest of the sparsity pattern of ``A`` (shape, row pointers and column indices of its canonical CSR form:
    the entries it stores, explicit zeros included), or "" for a dense array, whose pattern is always full."""
    if not sp.issparse(A):
        return ""
    A = sp.csr_matrix(A)
    if not A.has_canonical_format:  # duplicates summed and indices sorted on a copy: the problem is immutable
        A = A.copy()
        A.sum_duplicates()
    return sparse_digest(A)


def _kind(A) -> str:
    return "sparse" if sp.issparse(A) else "dense"


@dataclass(frozen=True)
class Structure:
    """The structure of a contact problem: what stays the same from one state of a robot to the next.

    Two problems of equal structure differ only in their numbers (``M``, ``F``, ``J_n``, ``J_t``, the drifts,
    the friction coefficients, the slip directions). Hashable: :func:`solve_many` groups problems by it. The
    sparsity patterns are 128-bit BLAKE2b digests of the canonical CSR index arrays ("" when dense). ``form`` is the
    problem's form ("global" / "local"); a local problem's ``n`` is m·d and its W stands in the fields of M."""

    form: str
    n: int
    m: int
    dimension: int
    types: tuple[str, ...]
    modes: tuple[str, ...]
    has_tangent: tuple[bool, ...]
    M_kind: str
    J_n_kind: str
    J_t_kind: str
    M_pattern: str
    J_n_pattern: str
    J_t_pattern: str

    @classmethod
    def of(cls, problem: Problem) -> "Structure":
        """The structure of ``problem`` (either form)."""
        return getattr(cls, f"_{problem.form}")(problem)  # _global or _local

    @classmethod
    def _local(cls, problem: LocalContactProblem) -> "Structure":
        m = problem.m
        return cls(
            form="local",
            n=problem.size,
            m=m,
            dimension=problem.dimension,
            types=("unilateral",) * m,
            modes=("coulomb",) * m,
            has_tangent=(True,) * m,
            M_kind=_kind(problem.W),
            J_n_kind="none",
            J_t_kind="none",
            M_pattern=_pattern(problem.W),
            J_n_pattern="",
            J_t_pattern="",
        )

    @classmethod
    def _global(cls, problem: ContactProblem) -> "Structure":
        return cls(
            form="global",
            n=problem.n,
            m=problem.m,
            dimension=problem.dimension,
            types=tuple(np.asarray(problem.types).tolist()),
            modes=tuple(np.asarray(problem.modes).tolist()),
            has_tangent=tuple(np.asarray(problem.has_tangent, dtype=bool).tolist()),
            M_kind=_kind(problem.M),
            J_n_kind=_kind(problem.J_n),
            J_t_kind=_kind(problem.J_t),
            M_pattern=_pattern(problem.M),
            J_n_pattern=_pattern(problem.J_n),
            J_t_pattern=_pattern(problem.J_t),
        )

    def difference(self, other: "Structure") -> tuple[str, str] | None:
        """(the first field in which ``other`` differs from this structure, what differs), or None when equal."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if mine == theirs:
                continue
            if isinstance(mine, tuple) and len(mine) == len(theirs):
                i = next(k for k, (x, y) in enumerate(zip(mine, theirs)) if x != y)
                return f.name, f"contact {i} has {f.name} {theirs[i]!r}, the Solver's structure {mine[i]!r}"
            if f.name.endswith("_pattern"):
                mat = f.name[: -len("_pattern")]
                return (
                    f.name,
                    f"the sparse {mat} stores other entries than the Solver's structure (its pattern differs)",
                )
            if isinstance(mine, tuple):
                return f.name, f"has {len(theirs)} {f.name} entries, the Solver's structure {len(mine)}"
            return f.name, f"is {theirs!r}, the Solver's structure {mine!r}"
        return None


def _check_problem(problem, field: str) -> Problem:
    if isinstance(problem, PROBLEM_TYPES):
        return problem
    raise WrongTypeError(
        field,
        f"is a {type(problem).__name__}, not a contact problem",
        "give a gaussqp.ContactProblem or a gaussqp.LocalContactProblem (gaussqp.problems.load(name), "
        "gaussqp.load(path), gaussqp.ContactProblem(...))",
    )


def _check_flag(value, field: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise WrongTypeError(field, f"is a {type(value).__name__}, not a bool", "give True or False")
    return bool(value)


def _check_options(formulation, solver, tolerance, certify, crosscheck, facets, bracket="off") -> dict:
    """The options of :func:`gaussqp.solve` checked once: typed errors naming the option, the tolerance preset
    resolved, the solver name resolved to its installed backend (None when not given)."""
    if not isinstance(formulation, str):
        raise WrongTypeError(
            "formulation",
            f"is a {type(formulation).__name__}, not a string",
            "give 'auto' or a registered formulation name (gaussqp.FORMULATIONS)",
        )
    if solver is not None and not isinstance(solver, str):
        raise WrongTypeError(
            "solver",
            f"is a {type(solver).__name__}, not a string",
            "give None (the first installed backend) or a backend name: 'clarabel', 'osqp', 'scs'",
        )
    check_facets(facets)
    check_bracket(bracket)
    return {
        "certify": _check_flag(certify, "certify"),
        "crosscheck": _check_flag(crosscheck, "crosscheck"),
        "tolerance": get_tolerance(tolerance),
        "backend": get_backend(solver) if solver is not None else None,
        # an unknown name fails here (UnknownFormulationError), not at the first solve
        "formulation": None if formulation == "auto" else formulation_object(formulation, facets),
    }


def _problem_list(problems) -> list:
    """``problems`` as a list (any iterable of problems; a single problem or a string is refused)."""
    if isinstance(problems, (*PROBLEM_TYPES, str, bytes, dict)):
        raise WrongTypeError(
            "problems",
            f"is a {type(problems).__name__}, not a list of problems",
            "give a list of contact problems (for one problem: [problem], or Solver.solve)",
        )
    try:
        return list(problems)
    except TypeError:
        raise WrongTypeError(
            "problems", f"is a {type(problems).__name__}, not a list of problems", "give a list of contact problems"
        ) from None


class Solver:
    """A solver for the contact problems of one structure (:class:`Structure`): other states of the same robot.

    ``Solver(problem, **options).solve(other)`` returns the same :class:`~gaussqp.Solution` as
    ``gaussqp.solve(other, **options)`` — same status, certification, acceleration, multipliers and certificates —
    for every ``other`` of the structure of ``problem``; a problem of another structure raises
    :class:`~gaussqp.errors.StructureMismatchError` naming the field that differs.

    Parameters
    ----------
    structure
        a :class:`~gaussqp.ContactProblem` or a :class:`~gaussqp.LocalContactProblem` whose structure the
        Solver is for (its numbers are not kept)
    formulation, solver, tolerance, certify, crosscheck, facets, bracket
        as in :func:`gaussqp.solve`
    adapt
        when True, a problem of another structure (a rollout whose contact set changed) re-binds the Solver to
        that structure and is solved from a cold start, instead of raising StructureMismatchError

    Notes
    -----
    Kept once, at construction: the validation of the options (the tolerance preset resolved, the facet count
    checked, the solver name resolved to its installed backend, a formulation named explicitly looked up) and of
    the structure, whose signature each problem is compared with; the formulation objects, one per formulation
    name used (for the facetized pair with ``facets`` facets, which :func:`gaussqp.solve` rebuilds on every call
    when ``facets`` is not 8). Kept across calls by the library's caches, which a Solver's same-structure re-solves
    keep hitting: the direct Clarabel/OSQP path's assembly index arrays of F1/F2 (keyed by the sparsity pattern; the
    solver object itself is new for every problem) and the compiled DPP programs of the routes that go through
    cvxpy (:data:`gaussqp.formulations.base.PROGRAMS`); :func:`solve_many` solves each structure's problems one after
    the other so that these LRU caches stay warm.

    Recomputed for every problem, because it depends on the numbers: the mass factorization (made when the
    problem is built), the system class (the rank and definiteness of ``M``, the rank of the normal rows:
    ``M`` singular in one state and definite in the next changes the preference table's row), hence the choice
    of formulation with ``formulation="auto"`` and the ``accepts`` test of the formulation used, the data's
    scales, the solve itself, every residual and certificate (the structural C1–C6 and C8, the friction bounds C7,
    the instance certificates and the judge's verdict) and the cross-check. Nothing is skipped: a Solver is as certified as :func:`gaussqp.solve`, and saves only
    the per-call set-up, which is small next to a solve. A Solver's second problem tells the mode-free routes that many
    calls are coming (:func:`gaussqp.friction.compiled.expect_many_calls`), and with the cross-check on Lemke's method
    too (:func:`gaussqp.linalg.lemke.expect_many_lemke_calls`): their compiled kernels (optional extra ``fast``) then
    load at their next use; otherwise only once a process has spent
    :data:`~gaussqp.settings.COULOMB_NN_COMPILED_AFTER_SECONDS` in the NumPy Newton kernels, or
    :data:`~gaussqp.settings.LEMKE_COMPILED_AFTER_SECONDS` in the NumPy pivoting.

    Mode-free Coulomb rollouts: for a structure with ``"coulomb"`` contacts that F8
    (``coulomb_fixed_point``) takes, the Solver holds its own F8 object
    (:meth:`~gaussqp.formulations.coulomb.CoulombFixedPoint.for_structure`), which keeps the layout of the contact
    blocks, the Cholesky factor of a dense M while M is unchanged, and the system class of the problem being solved
    (not computed twice), and which starts the Newton method from the last *certified* answer's reaction (contact by
    contact: the structure is the same), one Newton step from it on its own piece, then the cold starts if that is not
    good enough. The choice of F8 for a system-class key is made once. Every state is still judged by its own
    recomputed natural-map residual (``solved`` only when it passes), and cross-checked as :func:`gaussqp.solve` does.
    Where the answer is unique this is :func:`gaussqp.solve`'s answer to the Newton method's accuracy; where it is not
    (a hyperstatic robot: W singular, the reactions a continuum), the acceleration and Jᵀλ are the same and the
    reaction may be another certified element of the solution set, the one nearest the last state's.

    Bit for bit (other structures): the Solver's answer is computed by the same code on the same data as :func:`gaussqp.solve`'s, so
    it is the same to the last bit whenever :func:`gaussqp.solve` itself is repeatable; with ``solver="osqp"``,
    whose cached solver object warm-starts from the last answer it gave, two calls of :func:`gaussqp.solve` on one
    problem already agree only to OSQP's accuracy, depending on what was solved in between.

    Examples
    --------
    Other states of one structure: the same problem with its force scaled.

    >>> import numpy as np, gaussqp
    >>> p = gaussqp.problems.load("rod_wall_guide")
    >>> solver = gaussqp.Solver(p, crosscheck=False)
    >>> [s.status.value for s in solver.solve_many([p.with_force(np.asarray(p.F) * k) for k in (0.5, 2.0)])]
    ['solved', 'solved']
    """

    def __init__(
        self,
        structure: Problem,
        *,
        formulation: str = "auto",
        solver: str | None = None,
        tolerance=None,
        certify: bool = True,
        crosscheck: bool = True,
        facets: int = DEFAULT_FACETS,
        bracket: str = "off",
        adapt: bool = False,
    ):
        problem = _check_problem(structure, "structure")
        opts = _check_options(formulation, solver, tolerance, certify, crosscheck, facets, bracket)
        #: a problem of another structure re-binds the Solver (cold start) instead of raising
        self.adapt = _check_flag(adapt, "adapt")
        #: how many times the Solver was re-bound to another structure (``adapt``)
        self.rebinds = 0
        #: the last certified mode-free state and its reaction, carried to a state of another contact set (``adapt``)
        self._carry: tuple[ContactProblem, np.ndarray] | None = None
        self.bracket = bracket
        self.certify, self.crosscheck, self.tolerance = opts["certify"], opts["crosscheck"], opts["tolerance"]
        self.facets = int(facets)
        self.formulation = formulation
        self.solver = solver
        #: the backend named by ``solver`` (None: each formulation takes the first installed one it can use)
        self.backend = opts["backend"]
        self._formulations: dict[str, Formulation] = {}
        if opts["formulation"] is not None:
            self._formulations[formulation] = opts["formulation"]
        #: the structure every problem solved by this Solver must have
        self.structure = Structure.of(problem)
        self._choice: dict = {}
        self._bind_coulomb(problem)
        self._calls = 0

    def _bind_coulomb(self, problem: Problem) -> None:
        """The formulations that keep something per structure (:meth:`~gaussqp.formulations.base.Formulation.
        for_structure`: F8 for a structure with ``"coulomb"`` contacts) get an object of their own for
        this structure — the contact blocks' layout, M's factor, the Newton method warm-started from the last
        certified answer — among those this Solver may run (all with ``formulation="auto"``, else the one named)."""
        self._rollout: dict[str, Formulation] = {}
        for name, f in FORMULATIONS.items():
            if self.formulation != "auto" and name != self.formulation:
                continue
            g = f.for_structure(problem)
            if g is not None:
                self._rollout[name] = self._formulations[name] = g

    def __repr__(self) -> str:
        s = self.structure
        return (
            f"Solver(n={s.n}, m={s.m}, d={s.dimension}, formulation={self.formulation!r}, solver={self.solver!r}, "
            f"tolerance={self.tolerance.name!r}, certify={self.certify}, crosscheck={self.crosscheck}, "
            f"facets={self.facets}, bracket={self.bracket!r})"
        )

    def _formulation(self, name: str) -> Formulation:
        f = self._formulations.get(name)
        if f is None:
            f = self._formulations[name] = formulation_object(name, self.facets)
        return f

    def check(self, problem: Problem, field: str = "problem") -> None:
        """Raise :class:`~gaussqp.errors.WrongTypeError` unless ``problem`` is a contact problem, and
        :class:`~gaussqp.errors.StructureMismatchError` (its ``field`` names what differs, e.g. ``"modes"``)
        unless it has this Solver's structure."""
        _check_problem(problem, field)
        diff = self.structure.difference(Structure.of(problem))
        if diff is not None:
            name, what = diff
            raise StructureMismatchError(name if field == "problem" else f"{field}.{name}", what, MISMATCH_FIX)

    def solve(self, problem: Problem) -> Solution:
        """Solve ``problem`` (of this Solver's structure) as :func:`gaussqp.solve` does with this Solver's options.

        Returns the :class:`~gaussqp.Solution` that ``gaussqp.solve(problem, formulation=..., solver=...,
        tolerance=..., certify=..., crosscheck=..., facets=..., bracket=...)`` returns (the same function solves it:
        :func:`gaussqp.dispatch.solve_classified`)."""
        t0 = time.perf_counter()
        if self.adapt:
            _check_problem(problem, "problem")
            structure = Structure.of(problem)
            if self.structure.difference(structure) is not None:
                self._rebind(problem, structure)
        else:
            self.check(problem)
        return self._solve_checked(problem, t0)

    def _rebind(self, problem: Problem, structure: Structure | None = None) -> None:
        """``adapt``: this Solver is now for ``problem``'s structure — the contact set changed along a rollout. What
        was kept for the old structure is dropped (layout, factors, formulation choices). The last certified
        mode-free reaction is carried to the new contact set contact by contact, matched by their normal rows
        (:func:`~gaussqp.formulations.coulomb.carried_reaction`): a start the Newton method keeps only when its
        residual is small, beside its cold starts. ``structure``: ``Structure.of(problem)`` when the caller has it."""
        self.structure = structure if structure is not None else Structure.of(problem)
        self._choice = {}
        self._formulations = {k: v for k, v in self._formulations.items() if k not in self._rollout}
        self._bind_coulomb(problem)
        self.rebinds += 1
        if self._carry is not None and problem.form == "global":
            previous, reaction = self._carry
            guess = carried_reaction(previous, reaction, cast(ContactProblem, problem))
            for g in self._rollout.values():  # each plan is for ``problem``: the guess is in its contact blocks
                if g.plan is not None and guess is not None:
                    g.plan.guess = guess

    def _solve_checked(self, problem: Problem, t0: float) -> Solution:
        self._calls += 1
        if self._calls == 2:  # a rollout: the compiled kernels are worth loading when a route asks for them
            expect_many_calls()
            expect_many_checks()
            if self.crosscheck:
                expect_many_lemke_calls()
        if self.structure.form == "local":  # the problem's structure was checked: its form is this Solver's
            return self._solve_local(cast(LocalContactProblem, problem), t0)
        problem = cast(ContactProblem, problem)
        cls = problem.classify()  # decided once per problem, shared with accepts
        if self.formulation != "auto":
            name = self.formulation
        elif cls.key in self._choice:
            name = self._choice[cls.key]
        else:
            name = choose_formulation(problem, cls)
            # the first route of the class's preferences, when it keeps a per-structure object, accepts by the
            # structure (kept) and the class key alone: its choice stands for every state of that key
            if name in self._rollout and PREFERENCES.get(cls.key, [None])[0] == name:
                self._choice[cls.key] = name
        sol = solve_classified(
            problem,
            cls,
            name,
            self._formulation(name),
            solver=self.solver,
            crosscheck=self.crosscheck,
            tol=self.tolerance,
            certify=self.certify,
            facets=self.facets,
            started=t0,
            bracket=self.bracket,
        )
        carry = None
        for route, g in self._rollout.items():
            # the next state starts from this one's reaction only when it is certified and this route's (a failed or
            # withdrawn answer, or another route's, leaves the next state to the cold starts)
            if g.plan is not None:
                g.plan.guess = g.plan.reaction(sol) if sol.status == SOLVED and sol.formulation == route else None
                if g.plan.guess is not None:
                    carry = (problem, g.plan.guess)
        # this state's, for a state of another contact set (``adapt``: carried contact by contact); none when it was
        # not certified or its structure keeps no plan
        self._carry = carry
        return sol

    def _solve_local(self, problem: LocalContactProblem, t0: float) -> Solution:
        """A local problem: the route that takes local problems (``accepts_local``, F8), started also from the last
        certified answer's reaction (its :class:`~gaussqp.formulations.coulomb.LocalPlan`); the answer is
        :func:`gaussqp.solve`'s (same route, same judge) up to the Newton method's start."""
        routes = [name for name, g in self._rollout.items() if g.accepts_local]
        if not routes:
            local = [n for n, g in FORMULATIONS.items() if g.accepts_local]
            raise NotApplicableError(
                f"formulation {self.formulation!r} does not accept a local (Delassus) problem "
                f"u = W r + q: use 'auto' or {' or '.join(map(repr, local))}"
            )
        g = self._rollout[routes[0]]
        with one_blas_thread(unknowns(problem)):
            sol = g.solve_local(problem, solver=self.solver, tolerance=self.tolerance)  # type: ignore[attr-defined]
        sol.timing.total = time.perf_counter() - t0
        if g.plan is not None:
            g.plan.guess = g.plan.reaction(sol) if sol.status == SOLVED else None
        return sol

    def solve_many(self, problems: Iterable[Problem], *, progress: bool = False) -> list[Solution]:
        """:meth:`solve` on each problem, in order; every problem's type and structure is checked before the first
        is solved. ``progress``: a tqdm bar (or a counter line without tqdm) on stderr."""
        show = _check_flag(progress, "progress")
        items = _problem_list(problems)
        for i, p in enumerate(items):
            if self.adapt:
                _check_problem(p, f"problems[{i}]")
            else:
                self.check(p, f"problems[{i}]")
        bar = Progress(len(items), show and bool(items), desc="solve_many", unit="problem")
        out = []
        try:
            for p in items:
                out.append(self.solve(p) if self.adapt else self._solve_checked(p, time.perf_counter()))
                bar.update()
        finally:
            bar.close()
        return out


def solve_many(
    problems: Iterable[Problem],
    *,
    formulation: str = "auto",
    solver: str | None = None,
    tolerance=None,
    certify: bool = True,
    crosscheck: bool = True,
    facets: int = DEFAULT_FACETS,
    bracket: str = "off",
    progress: bool = False,
) -> list[Solution]:
    """Solve contact problems of any structures; returns their solutions in input order.

    The problems are grouped by :class:`Structure`, one :class:`Solver` per group (built on the group's first
    problem, with these options), and each group is solved in turn, so that a structure's cached solver objects
    are re-solved one state after another. Each solution is the one ``gaussqp.solve(problem, **options)`` returns.
    An empty list gives ``[]``. ``progress``: a tqdm bar (or a counter line without tqdm) on stderr, one step per
    problem. Every problem is type-checked before the first is solved.
    """
    show = _check_flag(progress, "progress")
    options = dict(
        formulation=formulation,
        solver=solver,
        tolerance=tolerance,
        certify=certify,
        crosscheck=crosscheck,
        facets=facets,
        bracket=bracket,
    )
    _check_options(**options)  # bad options fail even for an empty list
    items = _problem_list(problems)
    groups: dict[Structure, list[int]] = {}
    for i, p in enumerate(items):
        groups.setdefault(Structure.of(_check_problem(p, f"problems[{i}]")), []).append(i)
    out: list[Solution | None] = [None] * len(items)
    bar = Progress(len(items), show and bool(items), desc="solve_many", unit="problem")
    try:
        for idx in groups.values():
            s = Solver(items[idx[0]], **options)
            for i in idx:
                out[i] = s._solve_checked(items[i], time.perf_counter())  # grouped by structure above
                bar.update()
    finally:
        bar.close()
    return cast(list[Solution], out)  # every index is filled: each problem is in exactly one group


__all__ = ["MISMATCH_FIX", "Solver", "Structure", "solve_many"]
