"""The batch API (issue #15): ``gaussqp.Solver`` re-solves other states of one structure with the answers of
``gaussqp.solve``; ``gaussqp.solve_many`` groups problems by structure and keeps the input order."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
import gaussqp.batch as batch
from gaussqp import ContactProblem, problems
from gaussqp.errors import (
    StructureMismatchError,
    UnknownFormulationError,
    UnknownSolverError,
    UnknownValueError,
    WrongTypeError,
)


def perturbed(p: ContactProblem, seed: int, scale: float = 0.05) -> ContactProblem:
    """Another state of ``p``'s structure: every number moved, nothing structural. ``M`` becomes ``D M D`` (D a
    positive diagonal: symmetric, same rank, same pattern), the stored entries of ``J_n``, ``J_t`` and the drifts,
    ``F`` and μ are multiplied by ``1 + scale·noise`` (same pattern; a rank may change, which is the point)."""
    rng = np.random.default_rng(seed)

    def jiggle(A):
        if sp.issparse(A):
            A = sp.csr_matrix(A, copy=True)
            A.data = A.data * (1 + scale * rng.standard_normal(A.data.size))
            return A
        A = np.asarray(A, dtype=float)
        return A * (1 + scale * rng.standard_normal(A.shape))

    D = 1 + scale * rng.random(p.n)
    if sp.issparse(p.M):  # D M D on the stored entries: the same pattern
        M = sp.csr_matrix(p.M, copy=True)
        rows = np.repeat(np.arange(p.n), np.diff(M.indptr))
        M.data = M.data * D[rows] * D[M.indices]
    else:
        M = D[:, None] * np.asarray(p.M) * D[None, :]
    F = np.asarray(p.F) * (1 + scale * rng.standard_normal(p.n)) + scale * rng.standard_normal(p.n)
    return ContactProblem.from_blocks(
        M,
        F,
        jiggle(p.J_n),
        jiggle(p.normal_drift),
        list(p.types),
        jiggle(p.J_t),
        np.asarray(p.tangent_drift),
        np.asarray(p.friction) * (1 + scale * rng.random(p.m)),
        list(p.modes),
        np.asarray(p.slip),
        np.asarray(p.has_tangent),
        p.dimension,
        name=p.name + f" (state {seed})",
    )


def assert_same_answer(a: gaussqp.Solution, b: gaussqp.Solution, exact: bool = True) -> None:
    """Identical answers: status, certified, the formulation and route, the numbers bit for bit (``exact``; else to
    the relative 1e-9 of ``benchmarks/answers_unchanged.py``), every certificate's id and verdict, the uniqueness
    decisions and the cross-check's outcome."""
    assert (a.status, a.certified, a.formulation, a.solver, a.route) == (
        b.status,
        b.certified,
        b.formulation,
        b.solver,
        b.route,
    )
    for k in ("acceleration", "lambda_normal", "lambda_tangent", "generalized_force"):
        x, y = getattr(a, k), getattr(b, k)
        assert (x is None) == (y is None), k
        if x is not None:
            x, y = np.asarray(x), np.asarray(y)
            assert (
                np.array_equal(x, y)
                if exact
                else np.allclose(x, y, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(x).max(initial=0.0))))
            ), (k, x, y)
    assert [(c.id, c.holds) for c in a.certificates] == [(c.id, c.holds) for c in b.certificates]
    assert a.unique == b.unique
    assert getattr(a.crosscheck, "agree", None) == getattr(b.crosscheck, "agree", None)
    assert a.extras.get("system_class") == b.extras.get("system_class")


SHIPPED = problems.names() + [
    "real/humanoid_lying",
    "real/fclib_Box_Stacks-i0035-31-0",
]  # + a 3D sticking robot, a sparse coulomb one


@pytest.mark.parametrize("name", SHIPPED)
def test_solver_gives_the_answer_of_solve_on_shipped_problems_and_perturbed_states(name):
    p = problems.load(name)
    solver = gaussqp.Solver(p)
    for q in (p, perturbed(p, 1), perturbed(p, 2)):
        assert batch.Structure.of(q) == solver.structure  # the perturbation kept the structure
        assert_same_answer(solver.solve(q), gaussqp.solve(q))


@pytest.mark.parametrize(
    "options",
    [
        dict(crosscheck=False),
        dict(certify=False, tolerance="mid"),
        dict(formulation="gauss_qp", crosscheck=False),
        dict(formulation="facetized_inner", facets=12),
        dict(formulation="gauss_qp", solver="osqp", crosscheck=False),
    ],
)
def test_solver_options_are_those_of_solve(options):
    name = "hard_finger_grasp" if options.get("formulation") == "facetized_inner" else "hyperstatic_block"
    p = problems.load(name)
    solver = gaussqp.Solver(p, **options)
    for q in (perturbed(p, 3), perturbed(p, 4)):
        a = solver.solve(q)
        # OSQP's cached solver object warm-starts from the last answer it gave (gaussqp.backends.direct), so two
        # gaussqp.solve calls on one problem may already differ at round-off depending on what was solved before
        assert_same_answer(a, gaussqp.solve(q, **options), exact=options.get("solver") != "osqp")
        if options.get("certify") is False:
            assert not any(c.id.startswith("C1") for c in a.certificates)


def test_a_solver_built_on_one_state_returns_the_other_states_answer():
    """The reuse must never carry numbers over: state B solved by a Solver built on state A is B's answer."""
    p = problems.load("rod_wall_guide")
    a_state, b_state = p, p.with_force([-1.0, 9.81, 0.5])
    solver = gaussqp.Solver(a_state, crosscheck=False)
    first = solver.solve(a_state)
    second = solver.solve(b_state)
    ref_a, ref_b = gaussqp.solve(a_state, crosscheck=False), gaussqp.solve(b_state, crosscheck=False)
    assert np.array_equal(second.acceleration, ref_b.acceleration)
    assert np.array_equal(second.lambda_normal, ref_b.lambda_normal)
    assert np.abs(ref_a.acceleration - ref_b.acceleration).max() > 0.1  # the two states' answers differ
    assert np.array_equal(first.acceleration, ref_a.acceleration)
    assert second.problem is b_state and second.status == "solved" and second.certified
    # a Solution is a new object each time, never the previous one updated
    assert first is not second and np.array_equal(first.acceleration, ref_a.acceleration)


def test_the_formulation_is_chosen_again_when_the_numbers_change_the_system_class():
    """M definite in one state, singular in the next (the same dense structure): the preference table's row
    changes (sliding_lcp needs M ≻ 0; sliding_enumeration takes any M), so the Solver must re-classify."""
    p = problems.load("painleve_rod")
    M = np.array(p.M, dtype=float)
    w, V = np.linalg.eigh(M)
    w[0] = 0.0
    singular = ContactProblem.from_blocks(
        V @ np.diag(w) @ V.T,
        p.F,
        p.J_n,
        p.normal_drift,
        list(p.types),
        p.J_t,
        p.tangent_drift,
        p.friction,
        list(p.modes),
        p.slip,
        p.has_tangent,
        p.dimension,
        name="painleve_rod, singular M",
    )
    solver = gaussqp.Solver(p)
    a, b = solver.solve(p), solver.solve(singular)
    ref = gaussqp.solve(singular)
    assert a.formulation == "sliding_lcp" and ref.formulation == "sliding_enumeration"
    assert_same_answer(b, ref)
    assert b.extras["system_class"]["mass"] == "singular"


# ------------------------------------------------------------------ structure mismatches


def _base(
    n=3,
    m=2,
    d=2,
    types=("unilateral", "unilateral"),
    modes=("sticking", "frictionless"),
    has_tangent=None,
    M=None,
    J_n=None,
    J_t=None,
):
    rng = np.random.default_rng(0)
    M = np.diag(np.arange(1.0, n + 1)) if M is None else M
    J_n = rng.standard_normal((m, n)) if J_n is None else J_n
    J_t = rng.standard_normal((m * (d - 1), n)) if J_t is None else J_t
    return ContactProblem.from_blocks(
        M,
        np.ones(n),
        J_n,
        np.zeros(m),
        list(types),
        J_t,
        np.zeros(m * (d - 1)),
        np.full(m, 0.5),
        list(modes),
        None,
        np.ones(m, dtype=bool) if has_tangent is None else has_tangent,
        d,
    )


def _sparse_base(**kw):
    M = sp.csr_matrix(np.diag(np.arange(1.0, 4.0)))
    J_n = sp.csr_matrix(np.array([[1.0, 0, 2.0], [0, 1.0, 0]]))
    J_t = sp.csr_matrix(np.array([[0, 1.0, 0], [1.0, 0, 0]]))
    args = dict(M=M, J_n=J_n, J_t=J_t)
    args.update(kw)
    return _base(**args)


MISMATCHES = {
    "n": (_base, lambda: _base(n=4)),
    "m": (_base, lambda: _base(m=3, types=["unilateral"] * 3, modes=["sticking", "frictionless", "frictionless"])),
    "dimension": (_base, lambda: _base(d=3)),
    "types": (_base, lambda: _base(types=("unilateral", "bilateral"))),
    "modes": (_base, lambda: _base(modes=("sticking", "sticking"))),
    "has_tangent": (_base, lambda: _base(has_tangent=np.array([True, False]))),
    "M_kind": (_base, lambda: _base(M=sp.csr_matrix(np.diag(np.arange(1.0, 4.0))))),
    "J_n_kind": (_base, lambda: _base(J_n=sp.csr_matrix(np.random.default_rng(0).standard_normal((2, 3))))),
    "J_t_kind": (_base, lambda: _base(J_t=sp.csr_matrix(np.random.default_rng(1).standard_normal((2, 3))))),
    "M_pattern": (
        _sparse_base,
        lambda: _sparse_base(M=sp.csr_matrix(np.array([[2.0, 0.5, 0], [0.5, 2.0, 0], [0, 0, 3.0]]))),
    ),
    "J_n_pattern": (_sparse_base, lambda: _sparse_base(J_n=sp.csr_matrix(np.array([[1.0, 0, 2.0], [0, 1.0, 1.0]])))),
    "J_t_pattern": (_sparse_base, lambda: _sparse_base(J_t=sp.csr_matrix(np.array([[0, 1.0, 0], [0, 0, 1.0]])))),
}


@pytest.mark.parametrize("field", sorted(MISMATCHES))
def test_a_problem_of_another_structure_is_refused_naming_the_field(field):
    make_base, make_other = MISMATCHES[field]
    base, other = make_base(), make_other()
    solver = gaussqp.Solver(base)
    solver.solve(make_base())  # a fresh problem of the same structure is fine
    with pytest.raises(StructureMismatchError) as e:
        solver.solve(other)
    assert e.value.field == field and "another Solver" in e.value.fix and field in str(e.value)
    assert isinstance(e.value, gaussqp.errors.InputError)
    with pytest.raises(StructureMismatchError) as e:
        solver.solve_many([make_base(), other])
    assert e.value.field == f"problems[1].{field}"
    # solve_many groups them instead
    sols = gaussqp.solve_many([base, other], crosscheck=False)
    assert [s.problem for s in sols] == [base, other]


def test_the_same_numbers_with_another_pattern_are_another_structure():
    """An explicitly stored zero is part of a sparse pattern (the direct solver object is keyed by it)."""
    J = sp.csr_matrix(np.array([[1.0, 0, 2.0], [0, 1.0, 0]]))
    J_zero = sp.csr_matrix((np.array([1.0, 0.0, 2.0, 1.0]), np.array([0, 1, 2, 1]), np.array([0, 3, 4])), shape=(2, 3))
    assert np.array_equal(J.toarray(), J_zero.toarray())
    assert batch.Structure.of(_sparse_base(J_n=J)) != batch.Structure.of(_sparse_base(J_n=J_zero))
    # unsorted indices or a CSC copy of the same pattern: the same structure
    assert batch.Structure.of(_sparse_base(J_n=J.tocsc())) == batch.Structure.of(_sparse_base(J_n=J))


def test_solver_solve_many_checks_every_structure_before_solving(monkeypatch):
    p = problems.load("rod_wall_guide")
    calls = []
    real = batch.solve_classified
    monkeypatch.setattr(batch, "solve_classified", lambda *a, **k: calls.append(1) or real(*a, **k))
    with pytest.raises(StructureMismatchError) as e:
        gaussqp.Solver(p).solve_many([p, p.with_force([0, 1.0, 0]), problems.load("hyperstatic_block")])
    assert e.value.field == "problems[2].n" and not calls
    sols = gaussqp.Solver(p).solve_many((p, p.with_force([0, 1.0, 0])))  # any iterable
    assert len(calls) == 2 and [s.problem.F[1] for s in sols] == [p.F[1], 1.0]


# ------------------------------------------------------------------ solve_many


def test_solve_many_keeps_the_input_order_with_mixed_structures(monkeypatch):
    a, b, c = problems.load("rod_wall_guide"), problems.load("hyperstatic_block"), problems.load("painleve_rod")
    items = [a, b, perturbed(a, 5), c, perturbed(b, 6), perturbed(a, 7)]
    built = []
    init = batch.Solver.__init__
    monkeypatch.setattr(batch.Solver, "__init__", lambda self, s, **k: built.append(s) or init(self, s, **k))
    sols = gaussqp.solve_many(items)
    assert len(built) == 3 and built == [a, b, c]  # one Solver per structure, on the group's first problem
    assert [s.problem for s in sols] == items
    for s, q in zip(sols, items):
        assert_same_answer(s, gaussqp.solve(q))


def test_solve_many_passes_its_options():
    p = problems.load("hard_finger_grasp")
    items = [perturbed(p, 8), problems.load("rod_wall_guide")]
    for s, q in zip(gaussqp.solve_many(items, crosscheck=False, tolerance="mid", facets=6), items):
        ref = gaussqp.solve(q, crosscheck=False, tolerance="mid", facets=6)
        assert_same_answer(s, ref)
        assert s.crosscheck is None


def test_empty_lists_and_bad_input_are_typed_errors():
    p = problems.load("rod_wall_guide")
    assert gaussqp.solve_many([]) == [] and gaussqp.Solver(p).solve_many([]) == []
    assert gaussqp.solve_many(iter([])) == []
    cases = [
        (lambda: gaussqp.Solver("rod_wall_guide"), WrongTypeError, "structure"),
        (lambda: gaussqp.Solver(p).solve(p.M), WrongTypeError, "problem"),
        (lambda: gaussqp.solve_many([p, 3]), WrongTypeError, "problems[1]"),
        (lambda: gaussqp.Solver(p).solve_many([p, None]), WrongTypeError, "problems[1]"),
        (lambda: gaussqp.solve_many(p), WrongTypeError, "problems"),
        (lambda: gaussqp.solve_many(3), WrongTypeError, "problems"),
        (lambda: gaussqp.solve_many([p], progress="yes"), WrongTypeError, "progress"),
        (lambda: gaussqp.solve_many([], progress=1), WrongTypeError, "progress"),
        (lambda: gaussqp.Solver(p).solve_many([p], progress=None), WrongTypeError, "progress"),
        (lambda: gaussqp.Solver(p, crosscheck="no"), WrongTypeError, "crosscheck"),
        (lambda: gaussqp.Solver(p, certify=1), WrongTypeError, "certify"),
        (lambda: gaussqp.Solver(p, formulation=3), WrongTypeError, "formulation"),
        (lambda: gaussqp.Solver(p, solver=3), WrongTypeError, "solver"),
        (lambda: gaussqp.Solver(p, facets=2), UnknownValueError, "facets"),
        (lambda: gaussqp.solve_many([], facets=True), UnknownValueError, "facets"),
    ]
    for call, error, field in cases:
        with pytest.raises(error) as e:
            call()
        assert e.value.field == field and e.value.fix
    with pytest.raises(UnknownFormulationError):
        gaussqp.Solver(p, formulation="no_such_formulation")
    with pytest.raises(UnknownFormulationError):
        gaussqp.solve_many([], formulation="no_such_formulation")
    with pytest.raises(UnknownSolverError):
        gaussqp.Solver(p, solver="no_such_solver")


def test_a_non_problem_is_refused_with_the_fix():
    for call, field in (
        (lambda: gaussqp.Solver("box"), "structure"),
        (lambda: gaussqp.solve_many([3.0]), "problems[0]"),
    ):
        with pytest.raises(WrongTypeError) as e:
            call()
        assert e.value.field == field and "LocalContactProblem" in e.value.fix


def test_progress_counter_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(__import__("sys").modules, "tqdm", None)  # import tqdm fails: the plain counter
    p = problems.load("rod_wall_guide")
    gaussqp.solve_many([p, problems.load("hyperstatic_block"), p], crosscheck=False, progress=True)
    err = capsys.readouterr().err
    assert "solve_many 3/3 problems\n" in err
    gaussqp.Solver(p).solve_many([p, p], progress=True)
    assert "solve_many 2/2 problems\n" in capsys.readouterr().err
    gaussqp.solve_many([p], progress=False)
    assert capsys.readouterr().err == ""


def test_progress_bar_with_tqdm(capsys):
    pytest.importorskip("tqdm", reason="needs tqdm (the optional extra gaussqp[studies])")
    p = problems.load("rod_wall_guide")
    gaussqp.solve_many([p, p], crosscheck=False, progress=True)
    assert "solve_many" in capsys.readouterr().err


def test_readme_batch_example_runs(capsys):
    from docs_text import section as doc_section

    section = doc_section("Batch solves")
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    exec(compile(code, "README[batch]", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out == ["['solved', 'solved', 'solved'] [8.584 6.372]", "['gauss_qp', 'gauss_qp', 'gauss_qp'] True"]
    said = re.search(r"It prints `(.*?)` and `(.*?)`", section)
    assert said and [said.group(1), said.group(2)] == out  # the prose says what the example prints
