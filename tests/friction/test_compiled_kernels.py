"""The compiled kernels of the dense Newton method (:mod:`gaussqp.friction.compiled`) against the NumPy kernels they
replace (the reference): bit for bit, on points in every piece of the cone projection and on its boundaries, and the
route's answers with and without them. Skipped, with the reason, without numba (``pip install 'gaussqp[fast]'``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import gaussqp
import gaussqp.friction.nonsmooth_newton as nn
from gaussqp import problems
from gaussqp.friction.compiled import kernels

pytestmark = pytest.mark.skipif(kernels() is None, reason="numba is not installed: pip install 'gaussqp[fast]'")


def systems(seed: int, m: int, d: int, singular: bool):
    """The same ``_System`` twice, compiled kernels and NumPy ones; a W of rank < m·d when ``singular``; friction
    coefficients of every kind (0 among them)."""
    rng = np.random.default_rng(seed)
    N = m * d
    R = rng.normal(size=(N, N - (N // 3 if singular else 0)))
    W = R @ R.T + (0.0 if singular else 0.1) * np.eye(N)
    q = rng.normal(size=N)
    mu = rng.choice([0.0, 0.3, 1.0, 2.5], size=m)
    fast = nn._System(W, q, mu, d)
    slow = nn._System(W, q, mu, d)
    slow.fast = None
    assert fast.fast is not None
    return fast, slow, rng


def points(rng, m: int, d: int, mu: np.ndarray) -> list[np.ndarray]:
    """Blocks inside the cone, in its polar cone, on its side, on the boundaries of both and on the axis (t = 0)."""
    out = [rng.normal(size=m * d), np.zeros(m * d)]
    inside = rng.normal(size=(m, d))
    inside[:, 0] = np.abs(inside[:, 0]) * 10 + 1
    out.append(inside.ravel())
    boundary = rng.normal(size=(m, d))
    t = np.linalg.norm(boundary[:, 1:], axis=1)
    boundary[:, 0] = np.where(mu > 0, t / np.where(mu > 0, mu, 1.0), 1.0)
    out.append(boundary.ravel())
    polar = rng.normal(size=(m, d))  # on the polar cone's boundary: x_n = −μ‖x_t‖
    polar[:, 0] = -mu * np.linalg.norm(polar[:, 1:], axis=1)
    out.append(polar.ravel())
    axis = np.zeros((m, d))
    axis[:, 0] = rng.normal(size=m)
    out.append(axis.ravel())
    return out


def close(x, y) -> bool:
    """Bit for bit, signed zeros included (NaN where NaN): the kernels do the NumPy kernels' operations in the same
    order."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return (
        x.shape == y.shape
        and np.array_equal(x, y, equal_nan=True)
        and np.array_equal(np.signbit(x[~np.isnan(x)]), np.signbit(y[~np.isnan(y)]))
    )


#: the draws of a system and a regularization, shared by the tests of the kernels and of one iteration
SYSTEMS = dict(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 12),
    d=st.sampled_from([2, 3]),
    singular=st.booleans(),
    delta=st.sampled_from([0.0, 1e-12, 1e-3, 1.0]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(**SYSTEMS)
def test_the_compiled_kernels_are_the_numpy_kernels(seed, m, d, singular, delta):
    fast, slow, rng = systems(seed, m, d, singular)
    for r in points(rng, m, d, fast.mu):
        ef, es = fast.evaluate(r), slow.evaluate(r)
        for a, b in zip(ef[:3], es[:3]):
            assert close(a, b)
        assert close(ef[3], es[3])
        _, u, z, _ = es
        for uu, zz in ((u, z), (r, r)):  # z = r: the Jacobian's pieces at the points themselves (their boundaries)
            jf = fast.jacobian_blocks(uu, zz, delta, unregularized=True)
            js = slow.jacobian_blocks(uu, zz, delta, unregularized=True)
            for a, b in zip(jf, js):
                assert a.shape == b.shape and close(a, b)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(**SYSTEMS, reference=st.sampled_from(["merit", "larger", "smaller"]))
def test_the_compiled_newton_iteration_is_the_numpy_one(seed, m, d, singular, delta, reference):
    """One iteration's Newton step and line search (``compiled_kernels.newton_iteration``: the Newton matrix, its LU,
    the backtracking) against the NumPy iteration (``_System.solve`` and ``_search``), bit for bit, at points in
    every piece of the projection; δ = 0 on a singular W leaves no Newton step (J singular), and a nonmonotone
    reference below the merit makes both first directions fail, so the steepest descent (searched by NumPy) runs."""
    fast, slow, rng = systems(seed, m, d, singular)
    for r in points(rng, m, d, fast.mu):
        phi, u, z, res = slow.evaluate(r)
        merit = float(phi @ phi)
        ref = {"merit": merit, "larger": 2.0 * merit, "smaller": 0.5 * merit}[reference]
        _same_iteration(fast, slow, r, phi, u, z, delta, merit, ref)


def _same_iteration(fast, slow, r, phi, u, z, delta: float, merit: float, ref: float) -> None:
    """One iteration from ``r`` compiled (``fast``) and in NumPy (``slow``): the same outcome, bit for bit."""
    A, B = slow.jacobian_blocks(u, z, delta)
    try:
        step = slow.solve(A, B, -phi)
    except (np.linalg.LinAlgError, RuntimeError, ValueError):
        step = None
    expected = nn._search(slow, r, phi, merit, ref, 1e-12, A, B, step, nn._DIRECTIONS)
    got = _compiled_iteration(fast, r, phi, u, z, delta, merit, ref, 1e-12)
    assert got[:3] == expected[:3]  # accepted, direction, step length
    for a, b in zip(got[3:], expected[3:]):
        assert (a is None and b is None) or close(a, b)


def _compiled_iteration(sysm, r, phi, u, z, delta: float, merit: float, ref: float, target: float) -> tuple:
    """One iteration by ``compiled_kernels.newton_iteration`` (the Newton matrix, its LU, the line search along the
    Newton and the projected steps), then, when neither descends, the steepest descent by NumPy's ``_search`` with the
    kernel's Jacobian blocks, as ``_compiled_iterate`` does: what ``_search`` returns."""
    f = sysm.fast
    out = f.newton_iteration(
        sysm.W,
        sysm.q,
        r,
        phi,
        u,
        z,
        sysm.mu,
        sysm.rho,
        sysm.rho_c,
        sysm.d,
        sysm.qn,
        float(delta),
        merit,
        ref,
        target,
        gaussqp.settings.COULOMB_ARMIJO,
        gaussqp.settings.COULOMB_BACKTRACK,
        gaussqp.settings.COULOMB_NN_STEP_MIN,
    )
    kind, t, rn, phin, un, zn, resn, mn, A, B = out
    if kind == 2:
        return nn._search(sysm, r, phi, merit, ref, target, A, B, None, ("gradient",))
    return True, nn._DIRECTIONS[kind], float(t), rn, phin, un, zn, float(resn), float(mn)


@pytest.mark.parametrize("scale", [1e308, 1e200, 0.0])
def test_the_compiled_iteration_without_a_newton_step_is_the_numpy_one(scale):
    """The branches a random draw seldom meets, as a reviewer noted: a W of entries ~1e308 (its Newton matrix has
    non-finite entries or a non-finite step), ~1e200, and W = 0 at δ = 0 (J exactly singular: no Newton step); the
    compiled iteration is the NumPy one there too, bit for bit."""
    with np.errstate(all="ignore"):  # W of 1e308: the products overflow, as they do on either path
        _no_newton_step_either_way(scale)


def _no_newton_step_either_way(scale: float) -> None:
    rng = np.random.default_rng(7)
    m, d = 4, 3
    N = m * d
    R = rng.normal(size=(N, N))
    W = scale * (R @ R.T) / N if scale else np.zeros((N, N))
    q, mu = rng.normal(size=N), np.full(m, 0.5)
    fast, slow = nn._System(W, q, mu, d), nn._System(W, q, mu, d)
    slow.fast = None
    assert fast.fast is not None
    for r in (rng.normal(size=N), np.zeros(N)):
        phi, u, z, res = slow.evaluate(r)
        merit = float(phi @ phi)
        for delta in (0.0, 1e-3):
            _same_iteration(fast, slow, r, phi, u, z, delta, merit, merit)


@pytest.mark.parametrize("seed", [*range(8), 81, 160])
def test_the_newton_runs_the_same_iterations_with_either_kernels(seed, monkeypatch):
    """Whole runs of the dense Newton method (:func:`gaussqp.friction.nonsmooth_newton.solve_newton`) on W's of rank
    below m·d (whose solutions are not unique: another rounding would end at another member of the set) at every θ of
    the schedule: the same iterates, the same history, the same answer, with the compiled loop and without. The runs
    converge or stall; seeds 1 and 6 also take steepest-descent steps (the compiled loop hands them to NumPy and goes
    on), seed 81 ends with no descent and at the iteration limit, seed 160 with no descent."""
    calls = []
    compiled = kernels()  # loaded: a dense _System takes them (nonsmooth_newton's kernels_when_worth)
    monkeypatch.setattr(compiled, "newton_loop", lambda *a, f=compiled.newton_loop: calls.append(1) or f(*a))
    rng = np.random.default_rng(seed)
    m, d = int(rng.integers(3, 15)), 3
    N = m * d
    R = rng.normal(size=(N, N // 2)) * 10.0 ** rng.uniform(-3, 0, size=N // 2)  # a spectrum over decades
    W, q = R @ R.T, rng.normal(size=N)
    mu = rng.uniform(0.1, 1.0, size=m)
    for theta in gaussqp.settings.COULOMB_NN_REG_THETAS:
        fast = nn.solve_newton(W, q, mu, d, reg_theta=theta, stop_cycles=True)
        monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", False)
        slow = nn.solve_newton(W, q, mu, d, reg_theta=theta, stop_cycles=True)
        monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", True)
        assert fast.iterations == slow.iterations and fast.reason == slow.reason
        assert close(fast.r, slow.r) and close(fast.u, slow.u) and fast.residual == slow.residual
        assert fast.history == slow.history  # each iteration's residual, step, direction, δ and window
    assert calls  # the compiled iteration ran


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    merits=st.lists(
        st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 1.005, 0.995, float("nan"), float("inf")])),
        min_size=0,
        max_size=7,
    )
)
def test_the_compiled_cycle_test_is_the_python_one(merits):
    """``compiled_kernels._cycling`` (the loop's cycle test on the first n merits kept) against ``nonsmooth_newton._cycling``:
    the same verdict on short lists, plateaus within and just beyond the tolerance, NaN and inf among the merits."""
    f = kernels()
    recent = np.array(merits + [123.0], dtype=float)  # a slot beyond the merits kept, never read
    assert bool(f._cycling(recent, len(merits), gaussqp.settings.COULOMB_NN_CYCLE_RTOL)) == nn._cycling(list(merits))


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("N", [0, 1, 7, 42])
def test_the_compiled_lu_solve_is_lu_solver_and_leaves_its_matrix(N, order):
    """``compiled_kernels.lu_solve`` (LAPACK's getrf/getrs through SciPy's Cython bindings) against
    :func:`gaussqp.linalg.dense.lu_solver`, bit for bit, for a matrix in either memory order, which it does not
    overwrite; N = 0 gives an empty solution; a singular matrix non-finite entries, as there."""
    from gaussqp.linalg.dense import lu_solver

    rng = np.random.default_rng(N)
    J = np.asarray(rng.normal(size=(N, N)), order=order)
    b = rng.normal(size=N)
    kept = J.copy()
    got = kernels().lu_solve(J, b)
    assert np.array_equal(J, kept)
    assert close(got, lu_solver(np.ascontiguousarray(J))(b))
    if N > 1:
        singular = np.ones((N, N))
        assert not np.all(np.isfinite(kernels().lu_solve(singular, b)))


#: shipped problems whose mode-free form goes to F8 (the dense Newton method): a robot and an FCLIB box stack
ROBOTS = ["real/humanoid_lying", "real/ant_standing", "real/fclib_Box_Stacks-i0035-31-0"]


@pytest.mark.parametrize("name", ROBOTS)
def test_the_route_gives_the_same_certified_answer_with_either_kernels(name, monkeypatch):
    """Mode-free, F8's answers with the compiled kernels and with the NumPy ones: the same answer, bit for bit."""
    p = problems.load(name)
    p = p.mode_free(sliding=True) if "coulomb" not in set(map(str, p.modes)) else p
    with_fast = gaussqp.solve(p, crosscheck=False)
    monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", False)
    without = gaussqp.solve(p.with_force(p.F), crosscheck=False)
    assert with_fast.status == without.status == "solved"
    assert with_fast.formulation == without.formulation == "coulomb_fixed_point"
    assert with_fast.solver == without.solver == "nonsmooth_newton"
    for attr in ("acceleration", "lambda_normal", "lambda_tangent"):
        assert np.array_equal(getattr(with_fast, attr), getattr(without, attr))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 12), d=st.sampled_from([2, 3]))
def test_the_compiled_natural_map_is_the_numpy_one(seed, m, d):
    """The judge's map ``φ_1(r, u)`` (:func:`gaussqp.friction.coulomb_law.natural_map`, ρ = 1): compiled and NumPy, bit
    for bit, with ``r`` and the De Saxcé-shifted ``u`` in every piece of the projection and on its boundaries (u = 0
    puts ``r − s = r`` on them)."""
    from gaussqp.friction.coulomb_law import natural_map, natural_map_numpy

    rng = np.random.default_rng(seed)
    mu = rng.choice([0.0, 0.3, 1.0, 2.5], size=m)
    pts = points(rng, m, d, mu) + [-np.zeros(m * d)]  # −0.0 entries: signed zeros must come out as NumPy's
    for r in pts:
        for u in (np.zeros(m * d), -np.zeros(m * d), rng.normal(size=m * d), -r, pts[0]):
            fast = natural_map(r, u, mu, d)
            assert close(fast, natural_map_numpy(r, u, mu, d))
    assert close(natural_map(pts[0], pts[1], mu, d, rho=2.0), natural_map_numpy(pts[0], pts[1], mu, d, rho=2.0))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 14),
    d=st.sampled_from([2, 3]),
    kind=st.sampled_from(["regular", "singular", "ill-conditioned", "zero", "at rest"]),
)
def test_the_compiled_stick_start_is_the_numpy_one(seed, m, d, kind):
    """The start "every contact sticks" (``_System.stick_starts``): its solve, refinement and acceptance compiled and in
    NumPy, bit for bit, on a regular W, a singular one (the refinement), an ill-conditioned one (the second solve,
    δ = 0), a zero one (only the regularization δI is left) and at rest (q = 0: signed zeros)."""
    fast, slow, rng = systems(seed, m, d, kind == "singular")
    if kind in ("ill-conditioned", "zero", "at rest"):
        N = m * d
        Q, _ = np.linalg.qr(rng.normal(size=(N, N)))
        W = (Q * np.logspace(0, -15, N)) @ Q.T if kind == "ill-conditioned" else np.zeros((N, N))
        W = W if kind != "at rest" else fast.W
        q = np.zeros(N) if kind == "at rest" else fast.q
        mu = fast.mu
        fast, slow = nn._System(W, q, mu, d), nn._System(W, q, mu, d)
        slow.fast = None
        assert fast.fast is not None
    got, want = fast.stick_starts(), slow.stick_starts()
    assert len(got) == len(want) >= 1
    for g, w in zip(got, want):
        assert g[0] == w[0] == "stick"
        for x, y in zip(g[1:], w[1:]):
            assert close(x, y)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(**SYSTEMS)
def test_the_compiled_refined_solve_is_the_numpy_one(seed, m, d, singular, delta):
    """A refined Newton solve (``_System.solve(A, B, rhs, refine=A₀)``: a re-solve's step from its guess on the guess's
    own piece) compiled and in NumPy, bit for bit, with the Jacobian blocks at points in every piece of the cone
    projection; both raise the same errors on a non-finite and on a singular matrix."""
    fast, slow, rng = systems(seed, m, d, singular)
    for r in points(rng, m, d, fast.mu):
        phi, u, z, _ = slow.evaluate(r)
        A, B, A0 = slow.jacobian_blocks(u, z, max(delta, 1e-12), unregularized=True)
        want = slow.solve(A, B, -phi, refine=A0) if np.all(np.isfinite(A)) else None
        got = fast.solve(A, B, -phi, refine=A0) if want is not None else None
        assert want is None or close(got, want)
    A = np.zeros((m, d, d))
    for bad, error in ((np.nan, ValueError), (0.0, np.linalg.LinAlgError)):
        B = np.full((m, d, d), bad)
        for system in (fast, slow):
            with pytest.raises(error):
                system.solve(A, B, np.ones(m * d), refine=A)


def test_the_compiled_stick_start_says_when_the_numpy_solve_would_fail():
    """Its codes stand for the NumPy solve's errors, after which the start is skipped: 1 where J has a non-finite entry
    (``lu_solver``'s ValueError), 2 where the solve is not finite (an exactly singular J: the LinAlgError)."""
    fast = kernels()
    N, d = 6, 3
    q, rho, rho_c = np.ones(N), np.ones(N), np.ones(2)
    W = np.eye(N)
    W[0, 1] = np.inf
    assert fast.stick_start(W, q, rho, rho_c, 0.0, d)[0] == 1
    assert fast.stick_start(np.zeros((N, N)), q, rho, rho_c, 0.0, d)[0] == 2
    code, x, vn = fast.stick_start(np.eye(N), q, rho, rho_c, 0.0, d)
    assert code == 0 and close(x, -q) and vn == 0.0
    W = np.random.default_rng(3).normal(size=(N, N))  # the acceptance norm is ‖W x + q‖, as NumPy's
    code, x, vn = fast.stick_start(W @ W.T, q, rho, rho_c, 1e-12, d)
    assert code == 0 and close(vn, np.linalg.norm((W @ W.T) @ x + q))


def _numpy_residual(r, u, q, mu, d):
    """:func:`~gaussqp.friction.coulomb_law.natural_map_residual` in NumPy alone: the module sees no loaded kernels (its
    natural map too)."""
    import gaussqp.friction.coulomb_law as law

    saved = law.loaded
    law.loaded = lambda: False
    try:
        return law.natural_map_residual(r, u, q, mu, d)
    finally:
        law.loaded = saved


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 40), d=st.sampled_from([2, 3]))
def test_the_compiled_projection_and_residual_are_the_numpy_ones(seed, m, d):
    """The cone projection (:func:`gaussqp.friction.coulomb_law.project_cone`), the velocity change
    (:func:`~gaussqp.friction.coulomb_law.velocity_change`) and the natural-map residual with its norms
    (:func:`~gaussqp.friction.coulomb_law.natural_map_residual`): compiled and NumPy, bit
    for bit, with points in every piece of the projection and on its boundaries, signed zeros and data scaled over
    twenty decades."""
    import gaussqp.friction.coulomb_law as law

    kernels()  # loaded: the dispatch takes the compiled kernels
    assert law._loaded_kernels(d) is not None
    rng = np.random.default_rng(seed)
    mu = rng.choice([0.0, 0.3, 1.0, 2.5], size=m)
    pts = points(rng, m, d, mu) + [-np.zeros(m * d), rng.normal(size=m * d) * 10.0 ** rng.integers(-10, 10, m * d)]
    for x in pts:
        assert close(law.project_cone(x, mu, d), law.project_cone_numpy(x, mu, d))
        for u in (np.zeros(m * d), -x, pts[0], rng.normal(size=m * d) * 1e-8):
            q = rng.normal(size=m * d) * 10.0 ** rng.integers(-6, 6)
            fast, slow = law.natural_map_residual(x, u, q, mu, d), _numpy_residual(x, u, q, mu, d)
            for field in ("absolute", "relative", "siconos", "per_contact", "q_norm", "velocity_change"):
                assert close(getattr(fast, field), getattr(slow, field)), field
            assert close(fast.velocity_change_relative, slow.velocity_change_relative)
            phi = law.natural_map_numpy(x, u, mu, d)
            assert close(law.velocity_change(phi, u, mu, d), law.velocity_change_numpy(phi, u, mu, d))


def test_the_residual_of_blocks_summed_in_another_order_stays_numpys():
    """Found in review: NumPy's ``norm`` sums a Fortran-ordered (m, d) array in its memory order and a float32 one in
    float32; those inputs keep the NumPy code (a 1-ulp change of ‖q‖ otherwise), C-ordered and 1-D ones go compiled."""
    import gaussqp.friction.coulomb_law as law

    kernels()
    rng = np.random.default_rng(9)
    m, d = 5, 3
    mu = np.full(m, 0.4)
    r, u, q = (rng.normal(size=(m, d)) * 10.0 ** rng.integers(-3, 6, (m, d)) for _ in range(3))
    for layout in (np.asfortranarray, lambda a: a.T.copy().T, lambda a: a.astype(np.float32), np.ascontiguousarray):
        args = [layout(x) for x in (r, u, q)]
        fast, slow = law.natural_map_residual(*args, mu, d), _numpy_residual(*args, mu, d)
        for field in ("absolute", "relative", "siconos", "per_contact", "q_norm", "velocity_change"):
            assert close(getattr(fast, field), getattr(slow, field)), (layout, field)
    assert law._sums_in_order(r) and law._sums_in_order(r.ravel()[::2]) and law._sums_in_order([1, 2])
    assert not law._sums_in_order(np.asfortranarray(r)) and not law._sums_in_order(r.astype(np.float32))


def test_the_projection_keeps_numpys_broadcast_and_errors():
    """A single μ for every block, a size that is not made of blocks and an empty vector go to the NumPy code, which
    broadcasts, raises or returns as before."""
    import gaussqp.friction.coulomb_law as law

    kernels()
    x = np.array([1.0, 2.0, 0.5, -1.0, 0.1, 0.2])
    assert close(law.project_cone(x, 0.5, 3), law.project_cone_numpy(x, np.full(2, 0.5), 3))
    with pytest.raises(ValueError, match="not made of blocks of dimension 3"):
        law.project_cone(x[:5], np.ones(2), 3)
    assert law.project_cone(np.zeros(0), np.zeros(0), 3).shape == (0,)


@pytest.mark.parametrize("seed", range(12))
def test_f9_map_is_the_same_with_either_kernels(seed, monkeypatch):
    """F9's stacked map and its Jacobian (:class:`gaussqp.friction.mixed_law.MixedSystem`) on a problem mixing coulomb
    contacts with every other kind: the compiled rows (coulomb and one-row contacts) give the NumPy ones' values, bit for
    bit."""
    import gaussqp.friction.mixed_law as ml
    from test_coulomb_mixed import random_any  # tests/friction is on sys.path

    p = random_any(seed)
    sysm = ml.MixedSystem(p)
    x = np.random.default_rng(seed).normal(size=sysm.size)
    E1, J1, _ = sysm.evaluate(x)
    V1, G1 = sysm.evaluate(x, jacobian=False)[0], sysm.jacobian(x)  # the map alone, the Jacobian alone
    monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", False)
    E0, J0, _ = sysm.evaluate(x)
    assert close(E1, E0) and close(J1, J0)
    assert close(V1, E0) and close(G1, J0)


@pytest.mark.parametrize("seed", range(4))
def test_f9_map_in_3d_is_the_same_with_either_kernels(seed, monkeypatch):
    """The same on the humanoid (3D), its contacts made coulomb, frictionless unilateral, frictionless bilateral or
    told sliding at random, at random points (every piece of the projections is met over the contacts)."""
    import gaussqp.friction.mixed_law as ml

    rng = np.random.default_rng(seed)
    p = problems.load("real/humanoid_lying")
    q = p.with_blocks(**_random_kinds(p, rng))
    one = int(np.flatnonzero(p.has_tangent)[seed])  # one coulomb contact alone: NumPy's one-row products are ddot's
    alone = p.with_blocks(
        J_n=np.asarray(p.J_n)[[one]], normal_drift=np.asarray(p.normal_drift)[[one]], types=["unilateral"],
        J_t=np.asarray(p.J_t)[2 * one : 2 * one + 2], tangent_drift=np.asarray(p.tangent_drift)[2 * one : 2 * one + 2],
        friction=np.asarray(p.friction)[[one]], modes=["coulomb"], slip=np.zeros((1, 2)), has_tangent=[True],
    )  # fmt: skip
    for sysm in (ml.MixedSystem(q), ml.MixedSystem(alone)):
        _same_map_either_way(sysm, rng, monkeypatch)


def _same_map_either_way(sysm, rng, monkeypatch) -> None:
    for x in (rng.normal(size=sysm.size), 0.1 * rng.normal(size=sysm.size), np.zeros(sysm.size)):
        E1, J1, _ = sysm.evaluate(x)
        V1, G1 = sysm.evaluate(x, jacobian=False)[0], sysm.jacobian(x)
        monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", False)
        E0, J0, _ = sysm.evaluate(x)
        monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", True)
        assert close(E1, E0) and close(J1, J0) and close(V1, E0) and close(G1, J0)


@pytest.mark.parametrize("seed", range(3))
def test_f9_map_with_one_coordinate_is_the_same_with_either_kernels(seed, monkeypatch):
    """One coordinate (n = 1): NumPy's products with J_nᵀ and J_tᵀ are one-row products (a ddot, not the kernels'
    dgemv), so F9 keeps its NumPy map there; many contacts, so that the rows are long enough to round differently."""
    import gaussqp.friction.mixed_law as ml
    from gaussqp.model.problem import ContactProblem

    rng = np.random.default_rng(seed)
    m = 12
    p = ContactProblem.from_blocks(
        np.array([[2.0]]), np.array([3.0]), rng.normal(size=(m, 1)), rng.normal(size=m), ["unilateral"] * m,
        rng.normal(size=(m, 1)), rng.normal(size=m), rng.uniform(0.1, 1.0, size=m), ["coulomb"] * m, None, [True] * m,
        2,
    )  # fmt: skip
    _same_map_either_way(ml.MixedSystem(p), rng, monkeypatch)


def test_plain_gives_the_kernels_one_argument_type():
    from gaussqp.friction.compiled import plain

    x = np.arange(6.0)
    assert plain(x) is x  # already one: no copy
    ro = np.arange(6.0)
    ro.flags.writeable = False
    for y in (ro, np.arange(12.0)[::2], np.arange(6), np.asfortranarray(np.ones((2, 3)))):
        z = plain(y)
        assert z.dtype == np.float64 and z.flags.c_contiguous and z.flags.writeable
        assert np.array_equal(z, y)


def test_the_setting_turns_them_off_at_run_time(monkeypatch):
    monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", False)
    assert kernels() is None
    assert nn._System(np.eye(3), np.ones(3), np.ones(1), 3).fast is None


def test_the_environment_variable_turns_them_off(monkeypatch):
    monkeypatch.setenv("GAUSSQP_COMPILED", "0")
    assert kernels() is None
    monkeypatch.setenv("GAUSSQP_COMPILED", "1")
    assert kernels() is not None


def test_a_broken_numba_falls_back_to_the_numpy_kernels_with_a_warning(monkeypatch):
    """numba installed but failing to import with another error than ImportError (a missing llvmlite library raises
    OSError): the NumPy kernels run, once warned, and the route still answers."""
    import builtins
    import sys

    import gaussqp.friction.compiled as compiled

    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "numba" or name.startswith("numba."):
            raise OSError("Could not find/load shared object file: libllvmlite.so")
        return real_import(name, *args, **kwargs)

    import gaussqp.friction

    monkeypatch.delitem(sys.modules, "gaussqp.friction.compiled_kernels", raising=False)
    for name in ("gaussqp.linalg.jit", "gaussqp.linalg.blas_probe"):  # numba's importers, imported again
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.delattr(gaussqp.friction, "compiled_kernels", raising=False)
    for name in [k for k in sys.modules if k == "numba" or k.startswith("numba.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(builtins, "__import__", broken)
    compiled._load.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="cannot be imported"):
            assert kernels() is None
        assert compiled.unavailable.startswith("OSError")
        p = problems.load("real/humanoid_lying").mode_free(sliding=True)
        assert gaussqp.solve(p, crosscheck=False).status == "solved"
    finally:
        monkeypatch.undo()
        compiled._load.cache_clear()
        compiled.unavailable = None
    assert kernels() is not None


def test_blas_that_rounds_otherwise_keeps_the_numpy_kernels(monkeypatch):
    """numba's BLAS (SciPy's) giving other bits than NumPy's on the kernels' products: the kernels would not be bit for
    bit, so neither the Newton kernels nor Lemke's load; one warning each, the reason kept; the routes still answer."""
    import gaussqp.friction.compiled as compiled
    import gaussqp.linalg.blas_probe as probe
    import gaussqp.linalg.lemke as L

    assert probe.disagreement() is None  # this installation: NumPy's and numba's products agree

    def failing():
        raise RuntimeError("a lowering error")

    monkeypatch.setattr(probe, "disagreement", failing)  # the probe itself failing: nothing known, NumPy kept
    compiled._load.cache_clear()
    with pytest.warns(RuntimeWarning, match="the probe failed: RuntimeError: a lowering error"):
        assert kernels() is None
    monkeypatch.setattr(probe, "disagreement", lambda: "dgemv (5, 27)")
    compiled._load.cache_clear()
    L._load_compiled.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="BLAS products differ"):
            assert kernels() is None
        with pytest.warns(RuntimeWarning, match="BLAS products differ"):
            assert L.compiled_pivots() is None
        assert "dgemv (5, 27)" in compiled.unavailable and "dgemv (5, 27)" in L.compiled_unavailable
        assert (
            gaussqp.solve(problems.load("real/humanoid_lying").mode_free(sliding=True), crosscheck=False).status
            == "solved"
        )
    finally:
        monkeypatch.undo()
        compiled._load.cache_clear()
        L._load_compiled.cache_clear()
        compiled.unavailable = L.compiled_unavailable = None
    assert kernels() is not None and L.compiled_pivots() is not None


def sparse_problem(seed: int, m: int = 100, d: int = 3):
    """A sparse local problem above ``COULOMB_NN_DENSE_MAX`` unknowns: W = H Hᵀ + 0.01 I of a contact graph in which
    each contact touches two of m bodies (W ~5 % nonzero), friction coefficients of every kind."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    bodies = m
    H = sp.lil_matrix((m * d, 6 * bodies))
    for j in range(m):
        for b in rng.choice(bodies, size=2, replace=False):
            H[j * d : (j + 1) * d, 6 * b : 6 * b + 6] = rng.normal(size=(d, 6))
    H = sp.csr_matrix(H)
    W = sp.csr_matrix(H @ H.T + 0.01 * sp.eye(m * d))
    q = rng.normal(size=m * d)
    mu = rng.choice([0.0, 0.3, 1.0, 2.5], size=m)
    return W, q, mu, d


@pytest.mark.parametrize("seed", range(4))
def test_the_sparse_newton_maps_are_the_numpy_ones(seed):
    """The sparse Newton's maps (SciPy's product with W, then the compiled ``maps_at``) and its Jacobian's blocks give
    the NumPy kernels' numbers, bit for bit, at points in every piece of the projection."""
    W, q, mu, d = sparse_problem(seed)
    fast, slow = nn._System(W, q, mu, d), nn._System(W, q, mu, d)
    slow.fast = None
    assert fast.sparse and fast.fast is not None
    m = mu.size
    for r in points(np.random.default_rng(seed), m, d, mu):
        ef, es = fast.evaluate(r), slow.evaluate(r)
        for a, b in zip(ef, es):
            assert close(a, b)
        _, u, z, _ = es
        for a, b in zip(fast.jacobian_blocks(u, z, 1e-3, True), slow.jacobian_blocks(u, z, 1e-3, True)):
            assert close(a, b)


@pytest.mark.parametrize("seed", range(3))
def test_the_sparse_newton_gives_the_same_answer_with_either_kernels(seed, monkeypatch):
    """The sparse Newton method (SuperLU steps) from the same start: the same iterates, bit for bit."""
    W, q, mu, d = sparse_problem(seed)
    with_fast = nn.solve_newton(W, q, mu, d, max_iter=60)
    monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", False)
    without = nn.solve_newton(W, q, mu, d, max_iter=60)
    assert with_fast.linear_algebra == without.linear_algebra == "sparse"
    assert with_fast.iterations == without.iterations > 0
    assert close(with_fast.r, without.r) and with_fast.residual == without.residual


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_product_with_a_csr_matrix_is_scipys(seed):
    """``csr_velocity`` is SciPy's ``W @ r`` then NumPy's ``+ q``, bit for bit, on CSR matrices with unsorted indices,
    stored zeros, empty rows and entries of every magnitude (the sums in storage order, as ``csr_matvec``'s)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    N = 60
    W = sp.random(N, N, density=0.2, random_state=seed, format="csr")
    W.data *= 10.0 ** rng.uniform(-12, 12, size=W.data.size)
    W.data[::7] = 0.0  # stored zeros
    W.indices = W.indices.copy()
    for i in range(N):  # unsorted indices within each row
        lo, hi = W.indptr[i], W.indptr[i + 1]
        perm = rng.permutation(hi - lo)
        W.indices[lo:hi], W.data[lo:hi] = W.indices[lo:hi][perm], W.data[lo:hi][perm]
    W.has_sorted_indices = False
    r, q = rng.normal(size=N) * 10.0 ** rng.uniform(-5, 5, size=N), rng.normal(size=N)
    got = kernels().csr_velocity(nn._unsigned(W.indptr), nn._unsigned(W.indices), W.data, r, q)
    assert close(got, np.asarray(W @ r).ravel() + q)


def _same_sparse_iteration(fast, slow, r, delta: float, reference: str, target: float | None = None) -> tuple:
    """One sparse iteration from ``r`` (the SuperLU step, then the backtracking) compiled (``fast``:
    ``_compiled_sparse_search``) and in NumPy (``slow``: ``_search``): the same outcome, bit for bit. ``reference``
    "unreachable" (−1: no Armijo decrease passes) with a ``target`` leaves only the Newton step's target test."""
    phi, u, z, res = slow.evaluate(r)
    merit = float(phi @ phi)
    ref = {"merit": merit, "larger": 2.0 * merit, "smaller": 0.5 * merit, "unreachable": -1.0}[reference]
    target = 1e-12 if target is None else target * res
    A, B = slow.jacobian_blocks(u, z, delta)
    try:
        step = slow.solve(A, B, -phi)
    except (np.linalg.LinAlgError, RuntimeError, ValueError):
        step = None
    expected = nn._search(slow, r, phi, merit, ref, target, A, B, step, nn._DIRECTIONS)
    got = nn._compiled_sparse_search(fast, r, phi, merit, ref, target, A, B, step)
    assert got[:3] == expected[:3]  # accepted, direction, step length
    for a, b in zip(got[3:], expected[3:]):
        assert (a is None and b is None) or close(a, b)
    return got


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("reference", ["merit", "larger", "smaller"])
def test_the_compiled_sparse_iteration_is_the_numpy_one(seed, reference):
    """The sparse Newton's backtracking compiled (``compiled_kernels.line_search_csr``) against ``_search``, bit for
    bit, at points in every piece of the projection: with a Newton step and without one (None: a failed LU), with
    nonmonotone references above and below the merit, and with no Armijo decrease possible, where the Newton step's
    target test alone decides (the steepest-descent fallback has its own test below)."""
    W, q, mu, d = sparse_problem(seed)
    fast, slow = nn._System(W, q, mu, d), nn._System(W, q, mu, d)
    slow.fast = None
    assert fast.sparse and fast.fast is not None
    directions = set()
    for r in points(np.random.default_rng(seed), mu.size, d, mu):
        for delta in (1e-3, 1e-8):
            _same_sparse_iteration(fast, slow, r, delta, reference)
        # no Armijo decrease can pass: the Newton step is accepted by the target test alone (a target above the
        # residual), or by none (a target below the trial points' residuals), as _search decides
        accepted = _same_sparse_iteration(fast, slow, r, 1e-3, "unreachable", target=1e9)
        assert accepted[0] and accepted[1] == "newton"
        _same_sparse_iteration(fast, slow, r, 1e-3, "unreachable", target=0.5)
        phi, u, z, _ = slow.evaluate(r)
        A, B = slow.jacobian_blocks(u, z, 1e-3)
        merit = float(phi @ phi)
        ref = {"merit": merit, "larger": 2.0 * merit, "smaller": 0.5 * merit}[reference]
        got = nn._compiled_sparse_search(fast, r, phi, merit, ref, 1e-12, A, B, None)  # no Newton step
        expected = nn._search(slow, r, phi, merit, ref, 1e-12, A, B, None, nn._DIRECTIONS)
        assert got[:3] == expected[:3]
        for a, b in zip(got[3:], expected[3:]):
            assert (a is None and b is None) or close(a, b)
        directions.add(got[1])
    assert directions - {"newton"}  # the projected or the steepest descent ran too


def test_the_compiled_sparse_search_falls_back_to_the_steepest_descent(monkeypatch):
    """When the compiled backtracking finds no decrease along the Newton and projected steps (direction 2), the
    steepest descent is searched by ``_search``: the outcome is ``_search``'s along ``−Jᵀφ`` alone, accepted where it
    descends."""
    W, q, mu, d = sparse_problem(0)
    fast = nn._System(W, q, mu, d)
    monkeypatch.setattr(fast.fast, "line_search_csr", lambda *a: (2, 0.0, *a[4:5] * 6))
    accepted = 0
    for r in points(np.random.default_rng(0), mu.size, d, mu):
        phi, u, z, _ = fast.evaluate(r)
        A, B = fast.jacobian_blocks(u, z, 1e-3)
        merit = float(phi @ phi)
        got = nn._compiled_sparse_search(fast, r, phi, merit, merit, 1e-12, A, B, None)
        expected = nn._search(fast, r, phi, merit, merit, 1e-12, A, B, None, ("gradient",))
        assert got[:3] == expected[:3] and got[1] == "gradient"
        for a, b in zip(got[3:], expected[3:]):
            assert (a is None and b is None) or close(a, b)
        accepted += got[0]
    assert accepted  # the steepest descent descended from some of these points


@pytest.mark.parametrize("seed", range(2))
def test_the_sparse_newton_runs_its_backtracking_compiled(seed, monkeypatch):
    """A sparse run with the kernels loaded searches by ``line_search_csr`` (each iteration), and its iterates are
    those of the NumPy run, bit for bit."""
    W, q, mu, d = sparse_problem(seed)
    calls = []
    compiled = kernels()
    monkeypatch.setattr(compiled, "line_search_csr", lambda *a, f=compiled.line_search_csr: calls.append(1) or f(*a))
    fast = nn.solve_newton(W, q, mu, d, max_iter=40, reg_theta=0.1)
    monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED", False)
    slow = nn.solve_newton(W, q, mu, d, max_iter=40, reg_theta=0.1)
    assert fast.linear_algebra == "sparse" and len(calls) == fast.iterations > 0
    assert [h["residual"] for h in fast.history] == [h["residual"] for h in slow.history]
    assert close(fast.r, slow.r)


def test_a_sparse_system_loads_the_kernels_only_past_the_work_that_pays_their_load(monkeypatch):
    """Not loaded in the process: a sparse system runs the NumPy maps (counting the unknowns they evaluate) until that
    count reaches ``COULOMB_NN_COMPILED_SPARSE_WORK_MIN``; loaded already: the compiled kernels."""
    W, q, mu, d = sparse_problem(0)
    monkeypatch.setattr(nn, "loaded", lambda: False)
    monkeypatch.setattr(nn, "_SPARSE_WORK", [0])
    monkeypatch.setattr(nn, "COULOMB_NN_COMPILED_SPARSE_WORK_MIN", 3 * q.size)
    sysm = nn._System(W, q, mu, d)
    assert sysm.sparse and sysm.fast is None
    for _ in range(3):
        sysm.evaluate(np.zeros(q.size))
    assert nn._SPARSE_WORK[0] == 3 * q.size
    assert nn._System(W, q, mu, d).fast is not None  # the count has reached the threshold
    monkeypatch.setattr(nn, "loaded", lambda: True)
    monkeypatch.setattr(nn, "_SPARSE_WORK", [0])
    assert nn._System(W, q, mu, d).fast is not None


def test_a_dense_route_loads_the_kernels_once_its_numpy_kernels_have_cost_the_load(monkeypatch):
    """Not loaded in the process and numba not running: a dense Newton run and F9's map use the NumPy kernels and count
    their time; once that time reaches ``COULOMB_NN_COMPILED_AFTER_SECONDS``, or once many solves are announced (a
    Solver's second problem), a dense system takes the compiled kernels."""
    import gaussqp.friction.compiled as compiled
    from gaussqp.linalg.kernel_loading import LoadRule

    monkeypatch.setattr(compiled, "loaded", lambda: False)
    monkeypatch.setattr("gaussqp.linalg.kernel_loading.any_kernels_loaded", lambda: False)
    monkeypatch.setattr(compiled, "_RULE", LoadRule("COULOMB_NN_COMPILED_AFTER_SECONDS"))
    monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED_AFTER_SECONDS", 3600.0)
    W, q, mu, d = sparse_problem(0)
    W, q, mu = W.toarray()[:60, :60], q[:60], mu[:20]
    assert nn._System(W, q, mu, d).fast is None
    assert nn.solve_newton(W, q, mu, d, max_iter=5).linear_algebra == "dense"
    spent = compiled._RULE.numpy_seconds
    assert spent > 0.0  # the NumPy run counted its time
    p = problems.load("real/ant_standing").mode_free(sliding=True)
    assert gaussqp.solve(p, formulation="coulomb_mixed", crosscheck=False).status == "solved"
    assert compiled._RULE.numpy_seconds > spent  # and F9's NumPy map its own
    assert nn._System(W, q, mu, d).fast is None
    monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED_AFTER_SECONDS", compiled._RULE.numpy_seconds)
    assert nn._System(W, q, mu, d).fast is not None  # the NumPy kernels have cost what the load costs
    monkeypatch.setattr(gaussqp.settings, "COULOMB_NN_COMPILED_AFTER_SECONDS", 3600.0)
    assert nn._System(W, q, mu, d).fast is None
    compiled.expect_many_calls()
    assert nn._System(W, q, mu, d).fast is not None  # a rollout announced


def test_a_one_shot_dense_solve_does_not_load_the_kernels_and_a_rollout_does():
    """In a fresh process: the humanoid lying mode-free, solved once, runs without numba (a few milliseconds instead of
    the kernels' ~0.5 s load); a Solver's second state announces a rollout, and its Newton run loads them."""
    import subprocess
    import sys

    code = (
        "import sys, gaussqp\nfrom gaussqp import problems\n"
        "p = problems.load('real/humanoid_lying').mode_free(sliding=True)\n"
        "s = gaussqp.solve(p, crosscheck=False)\n"
        "print(s.status, s.solver, 'numba' in sys.modules)\n"
        "solver = gaussqp.Solver(p, crosscheck=False)\n"
        "r = [solver.solve(p.with_force(p.F * f)) for f in (1.0, 1.001)]\n"
        "print(r[-1].status, 'numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["solved", "nonsmooth_newton", "False", "solved", "True"]


def test_the_judges_map_alone_does_not_load_the_kernels():
    """A sparse mode-free problem below the sparse path's work threshold is solved without numba: the judge's natural
    map uses the compiled kernel only when a route has loaded it (a fresh process, so that nothing is loaded)."""
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py: pip install 'gaussqp[fclib]'")
    path = Path(__file__).resolve().parents[1] / "data" / "fclib" / "Box_Stacks-i0122-82-5.hdf5"
    code = (
        "import sys, gaussqp\nfrom gaussqp.io import fclib\n"
        f"s = gaussqp.solve(fclib.load({str(path)!r}), crosscheck=False)\n"
        "print(s.status, s.extras['nonsmooth_newton']['linear_algebra'], 'numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["solved", "sparse", "False"]


def _random_kinds(p, rng) -> dict:
    """``with_blocks`` arguments making each contact of ``p`` (3D) coulomb, frictionless unilateral, frictionless
    bilateral or told sliding at random (no told sticking contact), with random slip directions."""
    pick = np.where(np.asarray(p.has_tangent, dtype=bool), rng.choice(4, size=p.m), rng.choice([1, 2], size=p.m))
    types = ["bilateral" if k == 2 else "unilateral" for k in pick]
    modes = [("coulomb", "frictionless", "frictionless", "sliding")[k] for k in pick]
    slip = rng.normal(size=(p.m, 2))
    return dict(types=types, modes=modes, slip=slip / np.linalg.norm(slip, axis=1)[:, None])


def _humanoid_mixed(seed: int):
    """The humanoid with random contact kinds (:func:`_random_kinds`; the compiled Newton stage then evaluates the
    whole map) and a random load."""
    rng = np.random.default_rng(seed)
    p = problems.load("real/humanoid_lying")
    kinds = _random_kinds(p, rng)
    F = np.asarray(p.F) * rng.uniform(0.5, 2.0, size=p.n) + rng.normal(size=p.n)
    return p.with_blocks(F=F, **kinds)


def _newton_both_ways(p, start, budget_limit, monkeypatch):
    import gaussqp.formulations.coulomb_mixed as cm
    import gaussqp.friction.mixed_law as ml

    sysm = ml.MixedSystem(p)
    assert sysm.loop_data() is not None
    x0 = cm._sticking_start(sysm) if start == "stick" else np.zeros(sysm.size)
    out = []
    for compiled_loop in (True, False):
        if not compiled_loop:  # the Python loop over the same compiled map
            monkeypatch.setattr(ml.MixedSystem, "loop_data", lambda self: None)
        unknowns = p.n + p.m * p.dimension
        budget = cm.WorkBudget(budget_limit * (unknowns**3 + 1), unknowns) if budget_limit else None
        history: list = []
        x, k = cm._newton(sysm, x0, cm.COULOMB_POLISH_RTOL, history, budget)
        out.append((x, k, history, None if budget is None else (budget.spent, budget.exhausted)))
    monkeypatch.undo()
    return out


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("start", ["stick", "zero"])
@pytest.mark.parametrize("budget_limit", [None, 3])
def test_the_compiled_f9_newton_runs_the_python_iterations(seed, start, budget_limit, monkeypatch):
    """F9's Newton stage as one compiled call (``compiled_kernels.mixed_newton_loop``) gives the Python loop's iterates
    bit for bit: the same point, iterations, history (residuals, steps, the stop: converged, 'no descent', 'work budget
    spent') and the same work spent, from both starts, with and without a work budget (3 steps: it stops there)."""
    (x1, k1, h1, b1), (x0, k0, h0, b0) = _newton_both_ways(_humanoid_mixed(seed), start, budget_limit, monkeypatch)
    assert np.array_equal(x1, x0) and k1 == k0 and h1 == h0 and b1 == b0
    if budget_limit:
        assert b1[1] is True and h1[-1]["stopped"] == "work budget spent"


def test_the_compiled_f9_newton_meets_every_ending(monkeypatch):
    """Over the random humanoids the loop ends every way the Python loop does (converged, no descent, budget spent): the
    bit-for-bit comparison above covers each ending, not only the common one."""
    endings = set()
    for seed in range(10):
        for start in ("stick", "zero"):
            for limit in (None, 3):
                (_, _, h, b), _ = _newton_both_ways(_humanoid_mixed(seed), start, limit, monkeypatch)
                endings.add(h[-1].get("stopped", "converged") if h else "converged")
    assert endings == {"converged", "no descent", "work budget spent"}


@pytest.mark.parametrize("seed", range(6))
def test_f9_sticking_start_is_the_same_with_either_kernels(seed, monkeypatch):
    """F9's start "every contact sticks" (the equality KKT system by least squares, :func:`gaussqp.linalg.dense.
    min_norm_lstsq`) with the compiled gelsy or with SciPy's: the same point bit for bit, on the random humanoids
    (coulomb, frictionless, bilateral and told sliding contacts: every kind's rows in the system) and the mode-free
    one."""
    import gaussqp.formulations.coulomb_mixed as cm
    import gaussqp.friction.mixed_law as ml

    p = problems.load("real/humanoid_lying").mode_free() if seed == 0 else _humanoid_mixed(seed)
    sysm = ml.MixedSystem(p)
    assert cm.kernels_when_worth() is not None  # loaded by this module's skip test
    compiled = cm._sticking_start(sysm)
    monkeypatch.setattr(cm, "kernels_when_worth", lambda: None)
    numpy = cm._sticking_start(sysm)
    assert np.array_equal(compiled, numpy) and np.all(np.isfinite(numpy))


@pytest.mark.parametrize("shape", [(6, 6), (9, 5), (5, 9), (12, 12)])
@pytest.mark.parametrize("rank_drop", [0, 2])
def test_the_compiled_gelsy_is_min_norm_lstsq(shape, rank_drop):
    """The compiled least squares (LAPACK's gelsy through SciPy's bindings) gives
    :func:`gaussqp.linalg.dense.min_norm_lstsq`'s numbers bit for bit, square, tall and wide, full rank or not."""
    from gaussqp.linalg.dense import min_norm_lstsq

    rng = np.random.default_rng(sum(shape) + rank_drop)
    m, n = shape
    r = min(m, n) - rank_drop
    A = rng.normal(size=(m, r)) @ rng.normal(size=(r, n))
    b = rng.normal(size=m)
    got = kernels().gelsy_lstsq(A, b, max(m, n) * np.finfo(float).eps)
    assert np.array_equal(got, min_norm_lstsq(A, b))
    assert np.array_equal(min_norm_lstsq(A, b, kernels()), got)  # the dispatch: its tolerance, its kernel
    with pytest.raises(ValueError):  # a right-hand side of another length: SciPy's error, never a broadcast
        min_norm_lstsq(A, np.ones(1), kernels())


@pytest.mark.parametrize("shape", [(7, 7), (20, 9), (3, 11)])
def test_the_compiled_gram_matrix_is_numpys(shape):
    """``J.T @ J`` as NumPy computes it (BLAS's syrk and the mirrored triangle), bit for bit."""
    J = np.random.default_rng(shape[0]).normal(size=shape)
    assert np.array_equal(kernels().gram(J), J.T @ J)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 30), d=st.sampled_from([2, 3]))
def test_the_compiled_natural_map_norms_are_the_numpy_ones(seed, m, d):
    """:func:`~gaussqp.friction.coulomb_law.natural_map_norms` (F9's report: ‖φ‖, ‖r‖, ‖u‖ and each contact's velocity
    change) by one compiled call and in NumPy alone, bit for bit, and the same as the functions it stands for."""
    import gaussqp.friction.coulomb_law as law

    kernels()
    rng = np.random.default_rng(seed)
    mu = rng.choice([0.0, 0.3, 1.0, 2.5], size=m)
    for r in points(rng, m, d, mu):
        for u in (np.zeros(m * d), -r, rng.normal(size=m * d) * 10.0 ** rng.integers(-8, 8, m * d)):
            fast = law.natural_map_norms(r, u, mu, d)
            saved = law.loaded
            law.loaded = lambda: False
            try:
                slow = law.natural_map_norms(r, u, mu, d)
            finally:
                law.loaded = saved
            assert all(close(a, b) for a, b in zip(fast, slow))
            phi = law.natural_map(r, u, mu, d)
            reference = (np.linalg.norm(phi), np.linalg.norm(r), np.linalg.norm(u), law.velocity_change(phi, u, mu, d))
            assert all(close(a, b) for a, b in zip(fast, reference))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(0, 30))
def test_the_compiled_block_norms_are_numpys(seed, m):
    """F9's per-contact residuals (``compiled_kernels.block_norms``): each block's ``numpy.linalg.norm``, bit for bit,
    on blocks of one to five rows after some leading rows, over twenty decades."""
    fast = kernels()
    rng = np.random.default_rng(seed)
    offsets = (rng.integers(0, 30) + np.concatenate([[0], np.cumsum(rng.integers(1, 6, m))])).astype(np.int64)
    E = rng.normal(size=int(offsets[-1]) + 2) * 10.0 ** rng.integers(-10, 10, int(offsets[-1]) + 2)
    expected = np.array([float(np.linalg.norm(E[offsets[j] : offsets[j + 1]])) for j in range(m)])
    assert close(fast.block_norms(E, offsets), expected)


@pytest.mark.parametrize("seed", range(8))
def test_f9_residuals_are_the_same_with_either_kernels(seed, monkeypatch):
    """F9's judged residuals (``coulomb_mixed.residuals``: the per-contact norms by ``block_norms`` on the system's
    block offsets) with the compiled kernels and with NumPy's, bit for bit, in 2D and 3D. Found in review: the kernel's
    own test builds its offsets itself, so wrong offsets in the route passed every test."""
    import gaussqp.formulations.coulomb_mixed as cm
    import gaussqp.friction.mixed_law as ml
    from test_coulomb_mixed import random_any  # tests/friction is on sys.path

    fast_kernels = kernels()
    monkeypatch.setattr(cm, "kernels_when_worth", lambda: fast_kernels)
    monkeypatch.setattr(ml, "kernels_when_worth", lambda: fast_kernels)
    sysm = ml.MixedSystem(random_any(seed, dimension=2 + seed % 2))
    x = np.random.default_rng(seed).normal(size=sysm.size)
    fast = cm.residuals(sysm, x)
    monkeypatch.setattr(cm, "kernels_when_worth", lambda: None)
    monkeypatch.setattr(ml, "kernels_when_worth", lambda: None)
    slow = cm.residuals(sysm, x)
    assert close(fast["per_contact"], slow["per_contact"])
    assert (fast["dynamics"], fast["contact"], fast["max"]) == (slow["dynamics"], slow["contact"], slow["max"])
