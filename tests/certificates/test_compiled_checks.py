"""The compiled checks of the judge (:mod:`gaussqp.certificates.compiled`) against the NumPy code they replace (the
reference): the residuals and the backward error of answers of every kind (exact, random, negative, zero, NaN) on
dense problems of every kind (bilateral, unilateral, sticking, frictionless and mode-free contacts; 2D and 3D; one
contact and one coordinate, where NumPy's product is a ``dot``; a singular M), equal number for number; where they
apply and where the NumPy code answers alone; and whole solves with and without them. Skipped, with the reason,
without numba (``pip install 'gaussqp[fast]'``)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

import gaussqp
import gaussqp.settings as gsettings
from gaussqp import problems
from gaussqp.certificates import backward_error as be
from gaussqp.certificates import compiled
from gaussqp.certificates import residuals as rs
from gaussqp.model.problem import ContactProblem

pytestmark = pytest.mark.skipif(
    compiled.kernels() is None, reason="numba is not installed: pip install 'gaussqp[fast]'"
)

KINDS = ("bilateral", "unilateral")
MODES = ("sticking", "frictionless", "coulomb")


def random_problem(seed: int, n: int, m: int, d: int, singular: bool) -> ContactProblem:
    """A dense problem with contacts of every type and mode (never sliding; mode-free on unilateral contacts only), rows
    and drifts over six decades."""
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, max(n - (n // 2 if singular else 0), 1)))
    M = R @ R.T + (0.0 if singular else 0.1) * np.eye(n)
    Jn = rng.normal(size=(m, n)) * 10.0 ** rng.uniform(-3, 3, size=(m, 1))
    Jt = rng.normal(size=(m * (d - 1), n))
    types = rng.choice(KINDS, size=m)
    modes = [
        str(x) if t == "unilateral" or x != "coulomb" else "sticking" for t, x in zip(types, rng.choice(MODES, size=m))
    ]
    return ContactProblem.from_blocks(
        M,
        rng.normal(size=n) * 10.0 ** rng.uniform(-2, 2),
        Jn,
        rng.normal(size=m) * rng.choice([0.0, 1.0], size=m),
        list(types),
        Jt,
        rng.normal(size=m * (d - 1)) * rng.choice([0.0, 1.0], size=m * (d - 1)),
        rng.choice([0.0, 0.3, 1.5], size=m),
        modes,
        dimension=d,
    )


def answers(p: ContactProblem, rng) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Random answers; nonnegative, zero and negative multipliers; an acceleration at rest, signed zeros; magnitudes
    from 1e-300 to 1e300; an infinity and NaNs."""
    k = p.J_t.shape[0]
    a, ln, lt = rng.normal(size=p.n), rng.normal(size=p.m), rng.normal(size=k)
    out = [(a, ln, lt), (a * 1e-9, np.abs(ln), lt), (np.zeros(p.n), np.zeros(p.m), np.zeros(k)), (a, -np.abs(ln), lt)]
    out.append((-np.zeros(p.n), -np.zeros(p.m), -np.zeros(k)))
    out.append((a * 1e300, ln * 1e-300, lt))
    bad = a.copy()
    bad[0] = np.nan
    out.append((bad, ln, lt))
    bad_l = ln.copy()
    bad_l[-1] = np.nan
    out.append((a, bad_l, lt))
    inf = a.copy()
    inf[-1] = np.inf
    out.append((inf, ln, lt))
    return out


def kernel_values(p, a, ln, lt):
    K = compiled.kernels()
    A = compiled.dense_arrays(p)
    x = compiled.answer_arrays(A, a, ln, lt)
    res = K.kkt_residuals(
        A.M, A.F, A.J_n, A.b, A.J_t, A.c, *x, A.normal_row, A.dynamics_row, A.normal_weight, A.tangent_row, A.force,
        A.bilateral, A.unilateral, A.sticking_rows,
    )  # fmt: skip
    back = K.backward_error(
        A.M, A.F, A.J_n, A.b, A.J_t, A.c, x[0], x[1], x[2].reshape(A.tangent_weight.shape), A.normal_row,
        A.dynamics_row, A.normal_weight, A.tangent_row, A.tangent_weight, A.force, A.bilateral, A.unilateral,
        A.sticking_rows, A.frictionless,
    )  # fmt: skip
    return res, back


def same(x, y) -> bool:
    """Equal number for number, signed zeros included (NaN where NaN, whatever its sign bit)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or not np.array_equal(x, y, equal_nan=True):
        return False
    zero = x == 0
    return bool(np.array_equal(np.signbit(x[zero]), np.signbit(y[zero])))


def check_against_numpy(p: ContactProblem, a, ln, lt) -> None:
    (dyn, primal, dual, comp), back = kernel_values(p, a, ln, lt)
    with np.errstate(all="ignore"):  # an infinite answer: NumPy warns, the kernels do not
        ref = rs._kkt_residuals_numpy(p, a, ln, lt)
        r = be._backward_error_numpy(p, a, ln, lt)
    assert same([dyn, primal, dual, comp], [ref["dynamics"], ref["primal"], ref["dual"], ref["complementarity"]])
    expected = (
        r.forces,
        r.drifts,
        r.multipliers,
        r.delta_force,
        r.delta_normal_drift,
        r.delta_tangent_drift,
        r.lambda_normal,
        r.lambda_tangent,
    )
    for got, want in zip(back, expected):
        assert same(got, want)


def sizes(n_max: int, m_max: int) -> dict:
    """Hypothesis's draws of :func:`random_problem`'s arguments."""
    return dict(
        seed=st.integers(0, 10_000),
        n=st.integers(1, n_max),
        m=st.integers(1, m_max),
        d=st.sampled_from([2, 3]),
        singular=st.booleans(),
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**sizes(12, 7))
def test_the_kernels_give_the_numpy_checks_numbers(seed, n, m, d, singular):
    p = random_problem(seed, n, m, d, singular)
    assert compiled.applies(p)
    for a, ln, lt in answers(p, np.random.default_rng(seed + 1)):
        check_against_numpy(p, a, ln, lt)


@pytest.mark.parametrize("name", ["humanoid_lying", "quadruped_standing"])
def test_the_kernels_on_robots_answers(name):
    """The certified answer of a shipped robot (mostly unloaded contacts, exact zeros) and random points around it."""
    p = problems.load(f"real/{name}")
    assert compiled.applies(p)
    sol = gaussqp.solve(p, crosscheck=False)
    check_against_numpy(p, sol.acceleration, sol.lambda_normal, sol.lambda_tangent)
    rng = np.random.default_rng(0)
    for a, ln, lt in answers(p, rng):
        check_against_numpy(p, sol.acceleration + 1e-6 * a, sol.lambda_normal + ln, np.ravel(sol.lambda_tangent) + lt)


def test_the_comparison_can_fail():
    """``same`` tells apart a last-place difference and a zero's sign."""
    assert not same([1.0, 0.0], [np.nextafter(1.0, 2.0), 0.0])
    assert not same([1.0, 0.0], [1.0, -0.0]) and same([np.nan], [-np.nan])


def test_where_the_kernels_do_not_apply():
    """Sparse problems, sliding contacts and data that is not C-ordered float64 keep the NumPy code; so do answers of
    the wrong sizes (the NumPy code then raises, as it always did)."""
    p = random_problem(5, 6, 3, 3, False)
    assert compiled.applies(p)
    sparse = ContactProblem.from_blocks(sp.csr_matrix(np.asarray(p.M)), p.F, sp.csr_matrix(np.asarray(p.J_n)))
    assert not compiled.applies(sparse)
    slip = np.full((p.m, 2), np.sqrt(0.5))
    sliding = ContactProblem.from_blocks(
        p.M, p.F, p.J_n, None, "unilateral", p.J_t, None, np.full(p.m, 0.5), "sliding", slip, dimension=3
    )
    assert len(sliding.sliding) and not compiled.applies(sliding)
    fortran = ContactProblem.from_blocks(np.asfortranarray(p.M), p.F, np.asfortranarray(p.J_n))
    if not fortran.J_n.flags.c_contiguous:
        assert not compiled.applies(fortran)
    A = compiled.dense_arrays(p)
    assert compiled.answer_arrays(A, np.zeros(p.n + 1), np.zeros(p.m), np.zeros(p.J_t.shape[0])) is None
    # a strided answer (NumPy's product on it is not the one on a copy): the NumPy code
    a = np.arange(2.0 * p.n)[::2]
    assert compiled.answer_arrays(A, a, np.zeros(p.m), np.zeros(p.J_t.shape[0])) is None
    big = ContactProblem.from_blocks(
        np.eye(gsettings.CERTIFICATES_COMPILED_SIZE_MAX), np.ones(1000), np.ones((1, 1000))
    )
    assert not compiled.applies(big)


def test_strided_answers_get_the_numpy_numbers(monkeypatch):
    """A reversed or column view of an answer is judged by the NumPy code on that view (found by a review: the kernel
    on its copy differed in the last place)."""
    p = random_problem(11, 20, 6, 3, False)
    rng = np.random.default_rng(12)
    a = rng.normal(size=p.n)[::-1]
    L = rng.normal(size=(p.m, 3))
    monkeypatch.setattr(compiled, "kernels_when_worth", compiled.kernels)
    fast = rs.kkt_residuals(p, a, L[:, 0], np.zeros(p.J_t.shape[0]))
    assert fast == rs._kkt_residuals_numpy(p, a, L[:, 0], np.zeros(p.J_t.shape[0]))


def test_the_checks_use_the_kernels_when_loaded(monkeypatch):
    """``kkt_residuals`` and ``backward_error`` call the kernels when the load rule allows them, the NumPy code when it
    does not (and count its time); both give the same values."""
    p = random_problem(7, 5, 3, 3, False)
    a, ln, lt = answers(p, np.random.default_rng(8))[0]
    calls: list[str] = []
    Spy = spy(compiled.kernels(), calls)

    monkeypatch.setattr(compiled, "kernels_when_worth", lambda: Spy())
    fast_res = rs.kkt_residuals(p, a, ln, lt)
    fast_back = be.backward_error(p, a, ln, lt)
    assert calls == ["kkt_residuals", "backward_error"]
    q = p.with_force(p.F)  # a new problem object: nothing memoized
    spent = []
    monkeypatch.setattr(compiled, "kernels_when_worth", lambda: None)
    monkeypatch.setattr(compiled, "spent_in_numpy", spent.append)
    slow_res = rs.kkt_residuals(q, a, ln, lt)
    slow_back = be.backward_error(q, a, ln, lt)
    assert len(spent) == 2 and all(s >= 0 for s in spent)
    assert same(list(fast_res.values()), list(slow_res.values()))
    assert same(fast_back.delta_force, slow_back.delta_force) and fast_back.worst == slow_back.worst


@pytest.mark.parametrize("name", ["humanoid_lying", "quadruped_standing"])
def test_solves_with_and_without_the_kernels(monkeypatch, name):
    """A whole solve, as stored (all sticking), frictionless and mode-free, with the compiled checks and with the NumPy
    ones: the same statuses, answers, residuals, backward errors and forward errors."""
    base = problems.load(f"real/{name}")
    k = base.m * (base.dimension - 1)
    without_friction = ContactProblem.from_blocks(
        base.M, base.F, base.J_n, base.normal_drift, list(base.types), np.zeros((k, base.n)), np.zeros(k),
        np.zeros(base.m), ["frictionless"] * base.m, dimension=base.dimension,
    )  # fmt: skip
    for p in (base, without_friction, base.mode_free()):
        monkeypatch.setattr(gsettings, "CERTIFICATES_COMPILED", True)
        monkeypatch.setattr(compiled, "kernels_when_worth", compiled.kernels)
        fast = gaussqp.solve(p.with_force(p.F))
        monkeypatch.setattr(gsettings, "CERTIFICATES_COMPILED", False)
        slow = gaussqp.solve(p.with_force(p.F))
        assert fast.status == slow.status and fast.certified == slow.certified
        assert same(fast.acceleration, slow.acceleration) and same(fast.lambda_normal, slow.lambda_normal)
        assert same(list(fast.residuals.values()), list(slow.residuals.values()))
        assert fast.backward_error == slow.backward_error
        fe_fast, fe_slow = fast.certificate("forward_error"), slow.certificate("forward_error")
        assert (fe_fast is None) == (fe_slow is None)
        if fe_fast is not None:
            assert fe_fast.margin == fe_slow.margin


def spy(kernels, calls: list):
    """A class whose instances stand for the kernels' module and note in ``calls`` each kernel asked of it."""

    class Spy:
        def __getattr__(self, name):
            calls.append(name)
            return getattr(kernels, name)

    return Spy


def forward_errors(monkeypatch, p, a, ln, lt, compiled_on: bool):
    from gaussqp.certificates.instance import forward_error

    monkeypatch.setattr(compiled, "kernels_when_worth", compiled.kernels if compiled_on else (lambda: None))
    q = p.with_force(p.F)  # a new problem object: its factorizations computed afresh
    return forward_error(q, a, ln, lt)


def same_steps(p: ContactProblem, a, ln, lt, weak_rtol: float) -> bool | None:
    """Whether the compiled steps of the forward error give the NumPy steps' numbers, field by field (signed zeros and
    NaNs included); None where the compiled steps decline (the NumPy steps answer alone there)."""
    from gaussqp.certificates import instance

    fast = instance._compiled_steps(p, a, ln, lt, weak_rtol)
    if fast is None:
        return None
    slow = instance._numpy_steps(p, a, ln, lt, weak_rtol)
    for key in slow._fields:
        x, y = getattr(fast, key), getattr(slow, key)
        if key == "row_rank":
            ok = x is None and y is None
        elif isinstance(y, np.ndarray) and y.dtype == bool:
            ok = np.array_equal(x, y)
        elif isinstance(y, (bool, int)):
            ok = x == y and type(x) is type(y)
        else:
            ok = same(x, y)
        if not ok:
            raise AssertionError(f"{key}: {x!r} against {y!r}")
    return True


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(**sizes(30, 12))
def test_the_newton_steps_errors_are_the_numpy_ones(monkeypatch, seed, n, m, d, singular):
    """The forward error's Newton steps (every active set it tries, singular KKT matrices among them) with the compiled
    kernels and with NumPy's, on every kind of answer (random, at rest, signed zeros, 1e300, NaN, infinity): the same
    certificate, number for number; and the compiled steps' numbers, field by field, where they answer."""
    monkeypatch.setattr(compiled, "kernels_when_worth", compiled.kernels)
    p = random_problem(seed, n, m, d, singular)
    rng = np.random.default_rng(seed + 2)
    points = answers(p, rng)
    try:
        sol = gaussqp.solve(p, crosscheck=False)
        if sol.acceleration is not None:
            points.append((sol.acceleration, sol.lambda_normal, np.ravel(sol.lambda_tangent)))
    except gaussqp.errors.GaussQPError:
        pass  # a problem the library refuses to solve: its random points are compared all the same
    for a, ln, lt in points:
        with np.errstate(all="ignore"):  # NaN and 1e300 answers: the NumPy code's warnings are not under test
            fast = forward_errors(monkeypatch, p, a, ln, lt, True)
            slow = forward_errors(monkeypatch, p, a, ln, lt, False)
        assert (fast is None) == (slow is None)
        if fast is None:
            continue
        for key in ("condition", "acceleration", "forces", "multipliers", "contact_force_errors", "row_rank"):
            assert same(
                fast.data[key] if fast.data[key] is not None else np.nan,
                slow.data[key] if slow.data[key] is not None else np.nan,
            ), key
        for key in ("active_rows", "weakly_active", "active_sets_counted", "active_sets_tried", "weak_rows_enumerated"):
            assert fast.data[key] == slow.data[key], key
        assert type(fast.data["weak_rows_enumerated"]) is bool and type(fast.data["active_sets_tried"]) is int
        assert fast.margin == slow.margin or (np.isnan(fast.margin) and np.isnan(slow.margin))
        assert fast.implies == slow.implies
        q = p.with_force(p.F)
        for weak_rtol in (1e-9, 1e-3):
            with np.errstate(all="ignore"):
                same_steps(q, a, ln, lt, weak_rtol)


@pytest.mark.parametrize("seed, n, m, d", [(1, 3, 1, 3), (18, 4, 2, 2), (28, 4, 2, 2), (7, 12, 6, 3)])
def test_the_compiled_steps_on_fixed_problems(monkeypatch, seed, n, m, d):
    """Fixed draws (the hypothesis test's draws change): two active rows, where the rows of the inverse are handed to
    the errors' kernel transposed (a mutant that hands them untransposed differs here in the last bits, on the answer of
    size 1e300), and a larger problem; every kind of answer, two weak-row tolerances."""
    monkeypatch.setattr(compiled, "kernels_when_worth", compiled.kernels)
    p = random_problem(seed, n, m, d, False)
    answered = 0
    for a, ln, lt in answers(p, np.random.default_rng(seed + 2)):
        for weak_rtol in (1e-9, 1e-3):
            with np.errstate(all="ignore"):
                answered += bool(same_steps(p.with_force(p.F), a, ln, lt, weak_rtol))
    assert answered >= 2


def test_the_compiled_steps_on_large_kkt_matrices(monkeypatch):
    """KKT matrices of 200–330 rows, where two LAPACK builds' singular values once differed with several BLAS threads
    (a review's finding: NumPy's ``svd`` against SciPy's ``dgesdd``): the compiled steps and the NumPy ones call the
    same ``dgesdd`` with the same workspace, so their numbers are the same there too."""
    monkeypatch.setattr(compiled, "kernels_when_worth", compiled.kernels)
    answered = 0
    for seed, n, m in ((2, 190, 30), (3, 200, 40), (4, 240, 60), (5, 300, 30)):
        rng = np.random.default_rng(seed)
        R = rng.normal(size=(n, n))
        p = ContactProblem.from_blocks(
            R @ R.T + 0.1 * np.eye(n), rng.normal(size=n), rng.normal(size=(m, n)), rng.normal(size=m),
            ["unilateral"] * m, np.zeros((m, n)), np.zeros(m), np.zeros(m), ["frictionless"] * m, dimension=2,
        )  # fmt: skip
        sol = gaussqp.solve(p, crosscheck=False)
        answered += bool(same_steps(p, sol.acceleration, sol.lambda_normal, np.ravel(sol.lambda_tangent), 1e-9))
    assert answered == 4


@pytest.mark.parametrize("name", ["humanoid_lying", "quadruped_standing", "stacker_boxes"])
def test_the_newton_steps_errors_on_robots(monkeypatch, name):
    base = problems.load(f"real/{name}")
    for p in (base, base.mode_free() if len(base.sticking) else base):
        sol = gaussqp.solve(p.with_force(p.F), crosscheck=False)
        if sol.acceleration is None:
            continue
        a, ln, lt = sol.acceleration, sol.lambda_normal, np.ravel(sol.lambda_tangent)
        for scale in (0.0, 1e-9, 1e-3):
            rng = np.random.default_rng(1)
            pa = a + scale * rng.normal(size=a.size)
            fast = forward_errors(monkeypatch, p, pa, ln, lt, True)
            slow = forward_errors(monkeypatch, p, pa, ln, lt, False)
            if fast is None:
                assert slow is None
                continue
            assert same(fast.data["contact_force_errors"], slow.data["contact_force_errors"])
            assert fast.margin == slow.margin and fast.data["condition"] == slow.data["condition"]


def test_the_newton_step_uses_the_kernel_when_loaded(monkeypatch):
    """The forward error's steps reach the compiled kernels when they are loaded: whole (``forward_error``) where every
    KKT matrix has full rank; the NumPy steps with the compiled errors (``newton_step_errors``) where one is singular
    (more active rows than coordinates); and neither for an answer in long double (found by a review: it reached numba
    and raised), which keeps the NumPy code in its own precision."""
    from gaussqp.certificates.instance import forward_error

    p = random_problem(21, 8, 4, 3, False)
    a, ln, lt = answers(p, np.random.default_rng(22))[0]
    calls: list[str] = []
    Spy = spy(compiled.kernels(), calls)

    monkeypatch.setattr(compiled, "kernels_when_worth", lambda: Spy())
    forward_error(p.with_force(p.F), a, ln, lt)
    assert calls == ["forward_error"]
    calls.clear()
    long = forward_error(p.with_force(p.F), a.astype(np.longdouble), ln.astype(np.longdouble), lt)
    assert not calls and long is not None
    # 6 bilateral contacts held sticking in 3D: 18 equality rows on 8 coordinates, a singular KKT matrix
    q = random_problem(21, 8, 6, 3, False)
    q = ContactProblem.from_blocks(
        q.M, q.F, q.J_n, q.normal_drift, ["bilateral"] * 6, q.J_t, q.tangent_drift, np.ones(6), ["sticking"] * 6,
        dimension=3,
    )  # fmt: skip
    a, ln, lt = answers(q, np.random.default_rng(23))[0]
    calls.clear()
    forward_error(q, a, ln, lt)
    assert calls[0] == "forward_error" and "newton_step_errors" in calls


def test_the_compiled_steps_enumerate_the_weak_rows(monkeypatch):
    """At rest on rows without drift (slack and multiplier both zero: every unilateral row weakly active) the compiled
    steps try the combinations of the weak rows as the NumPy ones do (more than one active set tried), with the same
    numbers; with more weak rows than are enumerated, all active and none."""
    from gaussqp.certificates import instance

    tried = []
    for m, d in ((3, 2), (7, 3)):
        base = random_problem(5, 12, m, d, False)
        p = ContactProblem.from_blocks(
            base.M, base.F, base.J_n, np.zeros(m), ["unilateral"] * m, base.J_t, np.zeros(m * (d - 1)),
            np.zeros(m), ["frictionless"] * m, dimension=d,
        )  # fmt: skip
        a, ln, lt = np.zeros(p.n), np.zeros(p.m), np.zeros(p.J_t.shape[0])
        fast = instance._compiled_steps(p, a, ln, lt, 1e-9)
        slow = instance._numpy_steps(p, a, ln, lt, 1e-9)
        assert fast is not None
        assert fast.weak.all() and fast.enumerated == (m <= gsettings.FORWARD_ERROR_WEAK_ROWS_MAX)
        for key in slow._fields:
            assert same(getattr(fast, key) if key != "row_rank" else 0, getattr(slow, key) if key != "row_rank" else 0)
        tried.append(fast.tried)
    assert tried[0] == 2**3 and tried[1] == 2
