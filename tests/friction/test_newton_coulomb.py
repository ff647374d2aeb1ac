"""The globalized nonsmooth Newton kernel of the mode-free Coulomb route (issue #27 part 1) and its hook in
``coulomb_fixed_point``: closed forms, agreement with the convex iteration, non-symmetric and rank-deficient W,
every FCLIB file of the workplace certified by our residual, the fallback path."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

import gaussqp
from gaussqp.formulations import coulomb
from gaussqp.friction import nonsmooth_newton as nn
from gaussqp.friction.coulomb_law import natural_map_residual, project_cone_jacobian
from gaussqp.settings import COULOMB_NN_PIVOT_THRESHOLD, COULOMB_NN_SPARSE_ORDERING, COULOMB_RESIDUAL_RTOL

G = 9.81
ROOT = Path(__file__).resolve().parents[2]
#: the workplace's FCLIB files (../shared/data/fclib next to the checkout), or GAUSSQP_FCLIB_DIR
FCLIB_DIRS = (
    [Path(os.environ["GAUSSQP_FCLIB_DIR"])]
    if os.environ.get("GAUSSQP_FCLIB_DIR")
    else [ROOT.parent / "shared" / "data" / "fclib", ROOT / "tests" / "data" / "fclib"]
)


def residual(W, q, mu, d, r) -> float:
    """Our certificate's number, recomputed here from the data: ‖φ_1(r)‖/‖q‖ with u = W r + q."""
    return natural_map_residual(r, np.asarray(W @ r).ravel() + q, q, mu, d).relative


# ------------------------------------------------------------------------------------------------ closed forms
def block_on_plane(push: float, mass: float = 2.0, mu: float = 0.5, d: int = 3, angle: float = 0.7):
    """A point mass on the plane, pushed horizontally: the local form W = I/m (blocks normal, tangents),
    q = the free velocity (acceleration) (−g, push/m · direction)."""
    direction = np.array([np.cos(angle), np.sin(angle)]) if d == 3 else np.array([1.0])  # a unit vector
    W = np.eye(d) / mass
    q = np.concatenate([[-G], push / mass * direction])
    return W, q, np.array([mu]), direction


@pytest.mark.parametrize("d", [2, 3])
def test_block_pushed_below_mu_m_g_sticks_with_the_closed_form(d):
    W, q, mu, direction = block_on_plane(6.0, d=d)
    out = nn.solve_newton(W, q, mu, d)
    assert out.converged and out.start == "stick" and out.iterations == 0  # exact at rest: the all-stick solve
    assert np.allclose(out.r, np.concatenate([[2 * G], -6.0 * direction]), rtol=1e-12)  # r_t = −push
    assert np.allclose(out.u, 0, atol=1e-12)


@pytest.mark.parametrize("d", [2, 3])
def test_block_pushed_above_mu_m_g_slides_with_the_closed_form(d):
    W, q, mu, direction = block_on_plane(15.0, d=d)
    out = nn.solve_newton(W, q, mu, d)
    assert out.converged and out.iterations >= 1
    assert np.allclose(out.r, np.concatenate([[2 * G], -0.5 * 2 * G * direction]), rtol=1e-10)
    assert np.allclose(out.u, np.concatenate([[0.0], (15.0 / 2 - 0.5 * G) * direction]), atol=1e-10)
    assert residual(W, q, mu, d, out.r) <= 1e-12


@pytest.mark.parametrize("d", [2, 3])
def test_single_contact_moving_away_is_separated(d):
    W = np.eye(d) * 3.0
    q = np.concatenate([[2.0], np.full(d - 1, 0.4)])
    out = nn.solve_newton(W, q, np.array([0.3]), d)
    assert out.converged and np.allclose(out.r, 0, atol=1e-14) and np.allclose(out.u, q)


@pytest.mark.parametrize("d", [2, 3])
def test_route_answers_the_block_by_newton_with_the_known_force(d):
    p = gaussqp.LocalContactProblem(*block_on_plane(15.0, d=d)[:3], d)
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.extras["path"] == "newton"
    assert sol.extras["fixed_point_iterations"] == 0 and sol.extras["newton_iterations"] >= 1
    assert sol.lambda_normal[0] == pytest.approx(2 * G)
    assert np.linalg.norm(sol.lambda_tangent[0]) == pytest.approx(0.5 * 2 * G)
    assert sol.natural_map_residual.relative <= COULOMB_RESIDUAL_RTOL


def test_global_box_on_plane_through_the_dispatcher_is_newton_and_certified():
    M = 2.0 * np.eye(3)
    applied = np.array([15.0 * np.cos(0.7), 15.0 * np.sin(0.7), -2.0 * G])
    c = gaussqp.Contact("unilateral", np.eye(3)[2], friction=0.5, mode="coulomb", tangent=np.eye(3)[:2])
    p = gaussqp.ContactProblem(M, -applied, [c], dimension=3)
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.formulation == "coulomb_fixed_point" and sol.extras["path"] == "newton"
    a_t = 15.0 / 2 - 0.5 * G
    assert np.allclose(sol.acceleration, [a_t * np.cos(0.7), a_t * np.sin(0.7), 0.0], atol=1e-9)


# ------------------------------------------------------------------------------------------------ blocks
def test_vectorized_cone_jacobian_is_the_reference_one():
    rng = np.random.default_rng(3)
    for d in (2, 3):
        m = 400
        z = rng.normal(size=m * d)
        mu = rng.uniform(0, 1.5, size=m)
        mu[::7] = 0.0
        assert np.allclose(nn.cone_projection_jacobian(z, mu, d), project_cone_jacobian(z, mu, d), atol=1e-14)


def test_newton_jacobian_matches_finite_differences():
    """J = I − P'(I − ρ D W) of the kernel against central differences of φ_ρ at a generic point."""
    rng = np.random.default_rng(4)
    m, d = 5, 3
    A = rng.normal(size=(m * d, m * d))
    W, q, mu = A @ A.T + np.eye(m * d), rng.normal(size=m * d), rng.uniform(0.1, 0.9, m)
    s = nn._System(W, q, mu, d)
    r = rng.normal(size=m * d)
    phi, u, z, _ = s.evaluate(r)
    Ab, Bb = s.jacobian_blocks(u, z, 0.0)
    J = np.einsum("jab,jbn->jan", Bb, W.reshape(m, d, -1)).reshape(m * d, m * d)
    J.reshape(m, d, m, d)[np.arange(m), :, np.arange(m), :] += Ab
    h = 1e-7
    fd = np.column_stack([(s.evaluate(r + h * e)[0] - s.evaluate(r - h * e)[0]) / (2 * h) for e in np.eye(m * d)])
    assert np.allclose(J, fd, atol=1e-5)


# ------------------------------------------------------------------------------------------------ random problems
@st.composite
def well_posed(draw):
    """A small SPD W close to the identity with small friction: the solution is unique, so two routes must agree."""
    m = draw(st.integers(1, 4))
    d = draw(st.sampled_from([2, 3]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(m * d, m * d)) * 0.15
    W = np.eye(m * d) + B @ B.T
    q = rng.normal(size=m * d)
    mu = rng.uniform(0.0, 0.3, size=m)
    return W, q, mu, d


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(well_posed())
def test_newton_agrees_with_the_convex_iteration_on_well_posed_problems(prob):
    W, q, mu, d = prob
    out = nn.solve_newton(W, q, mu, d)
    assert out.converged and residual(W, q, mu, d, out.r) <= 1e-11
    ref = coulomb.solve_local(W, q, mu, d)
    assert residual(W, q, mu, d, ref.r) <= COULOMB_RESIDUAL_RTOL
    assert np.allclose(out.r, ref.r, atol=1e-8 * max(1.0, np.abs(ref.r).max()))


def test_non_symmetric_w_converges_and_is_certified():
    rng = np.random.default_rng(5)
    m, d = 30, 3
    A = rng.normal(size=(m * d, m * d))
    S = A @ A.T / (m * d) + 0.1 * np.eye(m * d)
    K = rng.normal(size=(m * d, m * d)) * 0.02
    W = S + (K - K.T)  # gyroscopic skew part (Capsules)
    q = rng.normal(size=m * d)
    mu = rng.uniform(0.1, 0.8, size=m)
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, d))
    assert sol.status == "solved" and sol.extras["path"] == "newton"
    r = np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()
    assert residual(W, q, mu, d, r) <= COULOMB_RESIDUAL_RTOL


def hyperstatic_table(push: float, legs: int = 4, mu: float = 0.6, mass: float = 3.0):
    """A rigid table (6 coordinates) on ``legs`` feet: W = J M⁻¹ Jᵀ of size 3·legs and rank 6 (rank-deficient
    for legs >= 3), pushed horizontally along x."""
    I = np.diag([0.2, 0.3, 0.4])
    M = np.block([[mass * np.eye(3), np.zeros((3, 3))], [np.zeros((3, 3)), I]])
    angles = 2 * np.pi * np.arange(legs) / legs
    rows = []
    for a in angles:
        p = np.array([0.5 * np.cos(a), 0.4 * np.sin(a), -0.3])
        for e in (np.array([0, 0, 1.0]), np.array([1.0, 0, 0]), np.array([0, 1.0, 0])):
            rows.append(np.concatenate([e, np.cross(p, e)]))  # e·(v + ω × p)
    J = np.array(rows)
    F = np.zeros(6)
    F[2] = mass * G
    F[0] = -push
    Minv = np.linalg.inv(M)
    return J @ Minv @ J.T, J @ Minv @ (-F), np.full(legs, mu)


@pytest.mark.parametrize("push", [5.0, 40.0])
def test_rank_deficient_w_converges_and_is_certified(push):
    W, q, mu = hyperstatic_table(push)
    assert np.linalg.matrix_rank(W) == 6 < W.shape[0]
    out = nn.solve_newton(W, q, mu, 3)
    assert out.converged and residual(W, q, mu, 3, out.r) <= 1e-11
    R = out.r.reshape(-1, 3)
    assert R[:, 0].sum() == pytest.approx(3.0 * G)  # the feet carry the weight (the normal resultant is unique)
    if push < 0.6 * 3.0 * G:
        assert np.allclose(out.u, 0, atol=1e-10) and -R[:, 1].sum() == pytest.approx(push)  # at rest
    else:
        assert -R[:, 1].sum() == pytest.approx(0.6 * 3.0 * G)  # sliding: the friction saturates


def test_warm_start_from_the_answer_needs_no_iteration_and_a_nearby_state_few():
    W, q, mu = hyperstatic_table(40.0)
    out = nn.solve_newton(W, q, mu, 3)
    again = nn.solve_newton(W, q, mu, 3, r0=out.r)
    assert again.start == "guess" and again.iterations == 0 and again.converged
    near = nn.solve_newton(W, q * 1.01, mu, 3, r0=out.r)
    # "guess step": one Newton step from the guess on its own piece, evaluated as a start (issue #27 item 3)
    assert near.start in ("guess", "guess step") and near.converged and near.iterations <= 3


def test_sparse_and_dense_linear_algebra_give_the_same_answer():
    rng = np.random.default_rng(6)
    m, d = 150, 3  # 450 unknowns > COULOMB_NN_DENSE_MAX: SuperLU on the sparse W
    A = sp.random(m * d, m * d, density=0.01, random_state=7, format="csr")
    W = sp.csr_matrix(A @ A.T + sp.identity(m * d))
    q = rng.normal(size=m * d)
    mu = rng.uniform(0.1, 0.5, size=m)
    a = nn.solve_newton(W, q, mu, d)
    b = nn.solve_newton(W.toarray(), q, mu, d)  # dense, but sparse enough: still SuperLU
    assert a.linear_algebra == "sparse" and a.converged and b.converged
    assert np.allclose(a.r, b.r, atol=1e-9 * np.abs(a.r).max())


def test_sparse_delassus_is_j_minv_jt():
    rng = np.random.default_rng(8)
    blocks = [rng.normal(size=(k, k)) for k in (1, 1, 3, 6, 6)]
    M = sp.block_diag([B @ B.T + k * np.eye(k) for B, k in zip(blocks, (1, 1, 3, 6, 6))], format="csr")
    perm = rng.permutation(M.shape[0])
    M = sp.csr_matrix(M[perm][:, perm])  # blocks interleaved: found as connected components
    J = sp.random(12, M.shape[0], density=0.3, random_state=9, format="csr")
    W, Minv = nn.sparse_delassus(M, J)
    ref = J.toarray() @ np.linalg.inv(M.toarray()) @ J.toarray().T
    assert sp.issparse(W) and np.allclose(W.toarray(), ref, atol=1e-12 * np.abs(ref).max())
    x = rng.normal(size=M.shape[0])
    assert np.allclose(Minv @ x, np.linalg.solve(M.toarray(), x))


# ------------------------------------------------------------------------------------------------ fallback
def test_a_newton_that_stops_falls_back_to_the_convex_iteration_and_still_certifies(monkeypatch):
    real = nn.solve_newton
    monkeypatch.setattr(coulomb, "solve_newton", lambda *a, **k: real(*a, **{**k, "max_iter": 0}))
    monkeypatch.setattr(coulomb, "COULOMB_PROX_WORK_MAX", 0)  # and no proximal rounds
    monkeypatch.setattr(
        coulomb, "convex_start", lambda *a: None
    )  # nor the convex program's start (its one step solves it), nor the sweeps' (neither does theirs)
    monkeypatch.setattr(coulomb, "sweep_start", lambda *a: (None, {"reason": "not run: a test"}))
    W, q, mu = hyperstatic_table(40.0)  # sliding: neither start is a solution
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, 3))
    assert sol.extras["path"] == "convex iteration"
    assert sol.extras["nonsmooth_newton"]["reason"] == nn.MAX_ITER
    assert sol.extras["fixed_point_iterations"] >= 1
    assert sol.status == "solved" and sol.natural_map_residual.relative <= COULOMB_RESIDUAL_RTOL
    assert "fallback" in sol.route and "nonsmooth_newton" in sol.times


def test_the_convex_iterations_answer_counts_the_work_of_the_stages_before_it(monkeypatch):
    """Where the convex iteration answers, its Newton iterations are its polish's plus the schedule's and the rounds'
    (as on the other paths: the work done)."""
    real = nn.solve_newton
    monkeypatch.setattr(coulomb, "solve_newton", lambda *a, **k: real(*a, **{**k, "max_iter": 2}))
    monkeypatch.setattr(coulomb, "COULOMB_PROX_WORK_MAX", 0)
    monkeypatch.setattr(coulomb, "convex_start", lambda *a: None)
    monkeypatch.setattr(coulomb, "sweep_start", lambda *a: (None, {"reason": "not run: a test"}))
    polish: list = []
    real_local = coulomb.solve_local

    def counted(*a, **k):
        out = real_local(*a, **k)
        polish.append(out.newton_iterations)
        return out

    monkeypatch.setattr(coulomb, "solve_local", counted)
    W, q, mu = hyperstatic_table(40.0)
    ans = coulomb._solve_connected(W, q, mu, 3)
    assert ans.path == "convex iteration" and len(polish) == 1
    schedule = ans.newton_kernel["iterations"]
    assert schedule > 0 and ans.newton_iterations == polish[0] + schedule + ans.proximal["iterations"]


def test_a_stalled_newton_reports_it_and_returns_its_best_point():
    W, q, mu = hyperstatic_table(40.0)
    out = nn.solve_newton(W, q, mu, 3, max_iter=1)
    assert not out.converged and out.reason == nn.MAX_ITER and out.iterations == 1
    assert residual(W, q, mu, 3, out.r) == pytest.approx(out.residual)


def _socp_recording(monkeypatch, preset: float, residuals: list, point_when=lambda tol: True):
    """A convex iteration on the hyperstatic table whose SOCPs are recorded (the tolerance asked, in order) and whose
    answers' residuals are ``residuals`` (the start's first); an SOCP gives a new point (the shift moves) when
    ``point_when(tol)``, else fails as a backend error does (cvxpy's values left at the previous program's)."""
    from types import SimpleNamespace

    from gaussqp.settings import Tolerance

    W, q, mu = hyperstatic_table(40.0)
    socp = coulomb._ShiftSOCP(W, q, mu, 3, None, Tolerance("asked", solver=preset, residual=1e-6, crosscheck=1e-6))
    rng = np.random.default_rng(0)
    asked = []

    def solve_program(prob, backend, tol, needs):  # no point: a backend error, cvxpy's values left as they were
        asked.append(tol)
        if not point_when(tol):
            return backend, "failed", {}
        socp.R.value = rng.uniform(0.1, 1.0, size=(mu.size, 3))
        return backend, "solved", {}

    given = iter(residuals)
    monkeypatch.setattr(coulomb, "solve_program", solve_program)
    monkeypatch.setattr(coulomb, "natural_map_residual", lambda *a: SimpleNamespace(relative=next(given)))
    return socp, q, asked


@pytest.mark.parametrize("preset", [1e-5, 1e-9, 1e-13])
@pytest.mark.parametrize(
    "residuals",
    [
        pytest.param([1.0, 1e-3, "max", 1e-3, 8e-4], id="below the switch, then hysteresis"),
        pytest.param([1.0, 1e-3, 2e-3, 1e-2, 8e-4], id="the residual stops falling, then hysteresis"),
    ],
)
def test_the_convex_iteration_solves_its_last_socps_to_the_routes_accuracy_whatever_the_preset(
    monkeypatch, preset, residuals
):
    """The SOCPs are solved to the preset's tolerance while the residual of their start falls and is above
    COULOMB_SOCP_TIGHT_RESIDUAL_MAX, then (for good) to COULOMB_SOCP_RTOL or the preset's when tighter, under a name
    no looser preset follows (a tight SOCP's inaccurate point is kept); the history records each one's tolerance."""
    from gaussqp.backends.base import retry_presets
    from gaussqp.settings import COULOMB_SOCP_RTOL, COULOMB_SOCP_TIGHT_RESIDUAL_MAX

    residuals = [COULOMB_SOCP_TIGHT_RESIDUAL_MAX if r == "max" else r for r in residuals]
    socp, q, asked = _socp_recording(monkeypatch, preset, residuals)
    history: list = []
    socp.run(np.zeros(q.size), 4, history)
    tight = min(preset, COULOMB_SOCP_RTOL)
    assert [t.solver for t in asked] == [preset, preset, tight, tight] == [h["socp_rtol"] for h in history]
    assert retry_presets(asked[-1]) == [asked[-1]]


def test_a_tight_socp_without_a_point_is_solved_again_to_the_preset(monkeypatch):
    """A tight SOCP whose backend failed gives no point (cvxpy's values are still the previous program's): the same
    SOCP is solved again to the preset's tolerance, and the history records that one."""
    from gaussqp.settings import COULOMB_SOCP_RTOL

    socp, q, asked = _socp_recording(monkeypatch, 1e-9, [5e-6, 4e-6, 3e-6], point_when=lambda tol: tol.solver == 1e-9)
    socp.R.value = np.ones((q.size // 3, 3))  # a previous program's point, which a failed solve leaves in place
    history: list = []
    r, k = socp.run(np.zeros(q.size), 2, history)
    assert [t.solver for t in asked] == [COULOMB_SOCP_RTOL, 1e-9] * 2 and k == 2
    assert [h["socp_rtol"] for h in history] == [1e-9, 1e-9] and not np.array_equal(r, socp.sigma * np.ones(q.size))


def test_a_stalled_polish_restarts_from_one_point_once(monkeypatch):
    """The restarts of solve_local go back to the convex iteration from the best point: a restart that brings no
    better point leaves the same best point, and the same SOCPs from it would repeat the same run."""
    from gaussqp.settings import COULOMB_RESTARTS

    W, q, mu = hyperstatic_table(40.0)
    runs = []

    def run(self, r0, max_iter, history):  # the same answer from the same start: a deterministic program
        runs.append(r0.copy())
        return np.full(q.size, 0.5), 1

    monkeypatch.setattr(coulomb._ShiftSOCP, "run", run)
    monkeypatch.setattr(coulomb, "_newton", lambda W, q, mu, d, r, target, history: (r.copy(), 1))  # a stall
    out = coulomb.solve_local(W, q, mu, 3)
    assert COULOMB_RESTARTS >= 2 and len(runs) == 2 and out.fixed_point_iterations == 2
    assert np.array_equal(runs[1], np.full(q.size, 0.5))  # the restart from the best point


# ------------------------------------------------------------------------------------------------ FCLIB
def fclib_files() -> list:
    files = {}
    for d in FCLIB_DIRS:
        if d.is_dir():
            for f in sorted(d.glob("*.hdf5")):
                files.setdefault(f.name, f)
    return [pytest.param(f, id=f.stem) for f in files.values()] or [
        pytest.param(None, marks=pytest.mark.skip(reason=f"no FCLIB file in {', '.join(map(str, FCLIB_DIRS))}"))
    ]


@pytest.mark.parametrize("path", fclib_files())
def test_every_fclib_file_is_certified_by_our_residual(path):
    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py (pip install 'gaussqp[fclib]')")
    from gaussqp.errors import UnsupportedFormatError
    from gaussqp.io import fclib

    try:
        p = fclib.load(path)
    except UnsupportedFormatError as exc:  # rolling friction: refused by the reader, not by this route
        pytest.skip(f"refused by the reader: {str(exc).splitlines()[0]}")
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "solved" and sol.certified
    r = np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()
    if isinstance(p, gaussqp.LocalContactProblem):
        W, q, mu, d = p.W, np.asarray(p.q), np.asarray(p.mu), p.dimension
    else:  # recomputed from the file's own M, H, f, w (sparse), not from the route's numbers
        cd = coulomb.condense_sparse(p)
        W, q, mu, d = cd.W, cd.q, cd.mu, p.dimension
        if q.size > 1000:  # Spheres: W 0.5 % nonzero is never made dense on the Newton path
            assert sol.extras["nonsmooth_newton"]["linear_algebra"] == "sparse"
    assert residual(W, q, mu, d, r) <= COULOMB_RESIDUAL_RTOL
    assert sol.extras["path"] in ("newton", "proximal newton", "convex iteration")
    assert sol.extras["nonsmooth_newton"]["iterations"] >= 0


def test_the_damping_schedule_solves_a_quadruped_the_weak_damping_alone_does_not():
    """The shipped quadruped (77 contacts on four feet: W rank-deficient, its spectrum over decades): the Newton with
    θ = COULOMB_NN_REG_THETA alone stalls far from a solution; the route's schedule (COULOMB_NN_REG_THETAS) goes on to
    a stronger damping and is certified by the Newton path, with the attempts recorded."""
    from gaussqp import problems
    from gaussqp.settings import COULOMB_NN_REG_THETA, COULOMB_NN_REG_THETAS

    p = problems.load("fclib_generated/quadruped-s0-i0016-m77")
    cd = coulomb.condense(p)
    weak = nn.solve_newton(cd.W, cd.q, cd.mu, 3, reg_theta=COULOMB_NN_REG_THETA)
    assert weak.residual > 1e-4  # the case the schedule exists for
    ans = coulomb.solve_mode_free(cd.W, cd.q, cd.mu, 3)
    assert ans.path == "newton"
    attempts = ans.newton_kernel["attempts"]
    assert attempts[0]["reg_theta"] == COULOMB_NN_REG_THETAS[0] and len(attempts) >= 2
    assert residual(cd.W, cd.q, cd.mu, 3, ans.r) <= COULOMB_RESIDUAL_RTOL
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "solved" and sol.certified


@pytest.mark.parametrize("sparse", [False, True])
def test_runs_on_a_shared_system_are_the_runs_alone_and_solve_the_stick_start_once(sparse, monkeypatch):
    """The damping schedule's runs share one :func:`~gaussqp.friction.nonsmooth_newton.newton_system` (W's copy and
    scales, the starts): each run gives what it gives alone, bit for bit (iterates, history, start), the stick start's
    linear solve runs for the first run only, and an answer's arrays are the caller's own (writing into one changes
    no later run)."""
    from gaussqp import problems
    from gaussqp.settings import COULOMB_NN_REG_THETAS

    from gaussqp.friction.compiled import expect_many_calls, kernels

    cd = coulomb.condense(problems.load("fclib_generated/quadruped-s0-i0016-m77"))
    W = cd.W
    if not sparse:  # 231 unknowns, W 6 % nonzero: sparse unless the dense size is raised
        monkeypatch.setattr(nn, "COULOMB_NN_DENSE_MAX", W.shape[0])
    expect_many_calls()  # the compiled kernels (when installed) from the first run: the compiled dense loop too
    system = nn.newton_system(W, cd.q, cd.mu, 3)
    assert system.sparse == sparse and (system.fast is None) == (kernels() is None)
    refined = []  # the stick start's solve is the only one refined to the unregularized system without a guess
    monkeypatch.setattr(
        system, "solve", lambda *a, f=system.solve, **k: refined.append(k.get("refine") is not None) or f(*a, **k)
    )
    if system.fast is not None and not sparse:  # the dense stick start's solve is compiled: this system's calls

        class Counting:
            def __getattr__(self, name, kernels=system.fast):
                return getattr(kernels, name)

            def stick_start(self, *a, f=system.fast.stick_start):
                refined.append(True)
                return f(*a)

        monkeypatch.setattr(system, "fast", Counting())
    for theta in COULOMB_NN_REG_THETAS:
        shared = nn.solve_newton(W, cd.q, cd.mu, 3, reg_theta=theta, stop_cycles=True, system=system)
        alone = nn.solve_newton(W, cd.q, cd.mu, 3, reg_theta=theta, stop_cycles=True)
        assert np.array_equal(shared.r, alone.r) and np.array_equal(shared.u, alone.u)
        assert (shared.residual, shared.iterations, shared.reason, shared.start) == (
            alone.residual,
            alone.iterations,
            alone.reason,
            alone.start,
        )
        assert shared.history == alone.history
        shared.r[:] = np.nan  # the caller's copy
    assert 1 <= sum(refined) <= 2  # one stick solve (two when the first is not accurate), for the first run only
    start = nn.solve_newton(W, cd.q, cd.mu, 3, max_iter=0, system=system)  # the best start itself, no iteration
    assert start.start in ("stick", "zero") and np.all(np.isfinite(start.r))  # a start the system keeps
    start.r[:] = np.nan
    start.u[:] = np.nan
    again = nn.solve_newton(W, cd.q, cd.mu, 3, max_iter=0, system=system)
    assert np.all(np.isfinite(again.r)) and np.all(np.isfinite(again.u))
    with pytest.raises(ValueError, match="unknowns"):  # another problem's system
        nn.solve_newton(W[:30, :30], cd.q[:30], cd.mu[:10], 3, system=system)


def test_the_dense_fallback_is_not_run_above_its_size_and_the_answer_says_so(monkeypatch):
    """Above COULOMB_FALLBACK_UNKNOWNS_MAX unknowns, when neither the Newton nor the proximal rounds converged, their
    best iterate is the answer (judged, not certified) and says that the convex iteration did not run; at or below,
    the fallback runs as before."""
    rng = np.random.default_rng(4)
    m, d = 6, 3
    A = rng.standard_normal((m * d, m * d))
    W = A @ A.T + 0.1 * np.eye(m * d)
    q = rng.standard_normal(m * d)
    mu = np.full(m, 0.5)
    monkeypatch.setattr(coulomb, "COULOMB_PROX_WORK_MAX", 0)  # no proximal round either: the fallback's turn
    run = coulomb.solve_mode_free(W, q, mu, d, newton_max_iter=0, solver="CLARABEL")
    assert run.path == "convex iteration" and "fallback" not in run.newton_kernel
    monkeypatch.setattr(coulomb, "COULOMB_FALLBACK_UNKNOWNS_MAX", m * d - 1)
    ans = coulomb.solve_mode_free(W, q, mu, d, newton_max_iter=0, solver="CLARABEL")
    assert ans.path == "newton" and ans.fixed_point_iterations == 0
    assert ans.newton_kernel["fallback"].startswith("not run: m·d = 18")
    np.testing.assert_allclose(ans.u, W @ ans.r + q)
    lp = gaussqp.LocalContactProblem(W, q, mu, d)
    sol = coulomb.finalize(coulomb.local_solution(lp, ans, "coulomb_fixed_point"), coulomb.get_tolerance(None))
    assert not sol.certified and sol.extras["nonsmooth_newton"]["fallback"].startswith("not run")


@pytest.mark.parametrize("d", [2, 3, 4])
def test_the_block_pattern_assembles_the_newton_matrix(d):
    """``BlockPattern.matrix`` is ``blockdiag(A) + blockdiag(B) W`` (issue #27: assembled once per pattern), also
    where W has no diagonal block (the pattern adds it) and with duplicate entries summed."""
    from gaussqp.friction.nonsmooth_newton import BlockPattern

    rng = np.random.default_rng(d)
    m = 23
    N = m * d
    W = sp.random(N, N, density=0.08, random_state=d, format="lil")
    W[:d, :d] = 0.0  # contact 0's diagonal block is absent from W's pattern
    W = sp.csr_matrix(W)
    W.eliminate_zeros()
    W.sum_duplicates()
    A, B = rng.standard_normal((m, d, d)), rng.standard_normal((m, d, d))
    pattern = BlockPattern(W, d)
    J = pattern.matrix(pattern.blocks_of(W), A, B)
    dense = np.zeros((N, N))
    Wd = W.toarray()
    for i in range(m):
        blk = slice(i * d, (i + 1) * d)
        dense[blk] = B[i] @ Wd[blk]
        dense[blk, blk] += A[i]
    assert sp.isspmatrix_csc(J) and J.has_canonical_format
    np.testing.assert_allclose(J.toarray(), dense, rtol=0, atol=1e-14)


def _tied_newton_blocks(seed: int, m: int, d: int):
    """W = H Hᵀ and blocks A, B of small integers, contacts in equal pairs (the same rows of H, the same blocks):
    many of J's entries tie, as the equal contacts of a generated quadruped's feet or a box wall make them."""
    rng = np.random.default_rng(seed)
    half = m // 2
    H = sp.random(
        half * d, 4 * m, density=0.02, random_state=seed, data_rvs=lambda k: rng.integers(-2, 3, k) + 0.0
    ).tocsr()
    H = sp.vstack([H[j * d : (j + 1) * d] for j in range(half) for _ in range(2)])
    W = sp.csr_matrix(H @ H.T + sp.eye(m * d))
    W.sum_duplicates()

    def blocks():
        A = rng.integers(-2, 3, (half, d, d)) + np.eye(d)[None]
        B = rng.integers(-2, 3, (half, d, d)) + 0.0
        return np.repeat(A, 2, axis=0), np.repeat(B, 2, axis=0)

    return W, blocks


def _random_newton_blocks(seed: int, m: int, d: int):
    """A random sparse W and random blocks, a quarter of the contacts separated (identity rows of J)."""
    rng = np.random.default_rng(seed)
    W = sp.csr_matrix(sp.random(m * d, m * d, density=0.05, random_state=seed) + sp.eye(m * d))
    W.sum_duplicates()

    def blocks():
        A, B = rng.standard_normal((m, d, d)), rng.standard_normal((m, d, d))
        A[: m // 4] = np.eye(d)
        B[: m // 4] = 0.0
        return A, B

    return W, blocks


@pytest.mark.parametrize("make", [_random_newton_blocks, _tied_newton_blocks])
@pytest.mark.parametrize("seed", range(3))
def test_the_block_pattern_factors_in_the_column_order_of_its_first_factorization(make, seed):
    """``BlockPattern.factor``: the settings' ordering (minimum degree on J + Jᵀ) orders the first J of a pattern; later
    ones are factored in that order without ordering again, with SuperLU's own pivots (by the settings' threshold, also
    where entries tie), its solutions bit for bit, and ``J x`` as ``matrix`` gives it."""
    import scipy.sparse.linalg as spla

    from gaussqp.friction.nonsmooth_newton import BlockPattern

    d, m = 3, 60
    N = m * d
    W, blocks = make(seed, m, d)
    rng = np.random.default_rng(seed)
    pattern = BlockPattern(W, d)
    Wb = pattern.blocks_of(W)
    assert pattern.columns is None
    first = True
    for _ in range(6):
        A, B = blocks()
        J = pattern.matrix(Wb, A, B)
        try:
            reference = spla.splu(
                J, permc_spec=COULOMB_NN_SPARSE_ORDERING, diag_pivot_thresh=COULOMB_NN_PIVOT_THRESHOLD
            )
        except RuntimeError:  # exactly singular (tied contacts can make it so): the ordered factorization says so too
            if not first:
                with pytest.raises(RuntimeError):
                    pattern.factor(Wb, A, B)
            continue
        factors = pattern.factor(Wb, A, B)
        assert (pattern.columns is not None) and (factors.columns is None) == first
        first = False
        rhs, x = rng.standard_normal(N), rng.standard_normal(N)
        if (
            factors.columns is not None
        ):  # J[columns][:, columns] in natural order: SuperLU's pivots with the ordering, no further permutation
            assert np.array_equal(factors.lu.perm_r, reference.perm_r[factors.columns])
            assert np.array_equal(factors.lu.perm_c, np.arange(N))
        assert np.array_equal(factors.solve(rhs), reference.solve(rhs))
        assert np.array_equal(factors @ x, J @ x)
        if make is _random_newton_blocks:  # (the tied J are singular or nearly: their solutions are compared above)
            np.testing.assert_allclose(J @ factors.solve(rhs), rhs, atol=1e-9)
    assert not first and not np.array_equal(pattern.columns, np.arange(N))  # a real reordering was exercised


def test_the_convex_iteration_goes_below_its_socps_old_floor_on_a_settling_box_pile():
    """A box pile while it settles (tests/data/generated/NOTICE.md): the bodies move, contacts slide slowly beside
    redundant neighbours (W singular). With every SOCP solved to the preset's 1e-9 the convex iteration and its polish
    stalled at 6e-7 of ‖q‖; with the last ones solved to COULOMB_SOCP_RTOL they reach ~6e-9 (the route then certifies
    this state, at the edge of its bound: not asserted, a Clarabel or BLAS version may move it). Checked here with a
    decade of margin either way, the residual recomputed from the file's data."""
    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py (pip install 'gaussqp[fclib]')")
    from gaussqp.io import fclib

    p = fclib.load(ROOT / "tests" / "data" / "generated" / "box_pile-s1-t130-k7.hdf5")
    cd = coulomb.condense_sparse(p)
    out = coulomb.solve_local(cd.W, cd.q, cd.mu, p.dimension)
    assert residual(cd.W, cd.q, cd.mu, p.dimension, out.r) <= 1e-7
    assert any(h["stage"] == "fixed_point" and h["socp_rtol"] < 1e-9 for h in out.history)
