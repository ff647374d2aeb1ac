"""μ_min's lower end from one program (issue #28 item 4, part 3): the ratio step just below the upper end is strictly
feasible, and its stationarity dual is a conic Farkas vector of Λ(a) ∩ cones(θ), verified in NumPy
(gaussqp.friction.mu_min.farkas_lower_end). A certificate is accepted where it proves emptiness and refused where it
was tampered with or claims more than it proves; the verdict's bracket is then narrower than MU_BRACKET_RTOL."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.backends import direct_backend
from gaussqp.friction import mu_min as mm
from gaussqp.friction.multiplier_conic import MultiplierSetConic
from gaussqp.friction.multiplier_set import active_tolerance
from gaussqp.settings import DIRECT_CONIC_BACKENDS, MU_BRACKET_RTOL, PRESETS

HIGH = PRESETS["high"]


def _setup(name: str):
    """The shipped problem, its certified sticking verdict and the Clarabel form of its Λ(a)."""
    p = problems.load(name)
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "solved" and sol.sticking is not None
    a, lam_n = sol.acceleration, sol.lambda_normal
    backend = direct_backend("clarabel", "socp", DIRECT_CONIC_BACKENDS)
    assert backend is not None
    conic = MultiplierSetConic(p, a, active_tolerance(p, a), lam_n, backend, HIGH)
    return p, sol, conic


def _dual(conic: MultiplierSetConic, theta: float) -> np.ndarray:
    """The stationarity dual of the ratio step at ``theta`` with unit weights (a strictly feasible program)."""
    ans = conic.ratio_step(theta, np.ones(len(conic.L.sticking)), {})
    assert ans.status == "solved" and ans.y is not None
    return ans.y


@pytest.fixture(scope="module")
def humanoid():
    return _setup("real/humanoid_lying")


def test_the_verdicts_bracket_is_proven_by_one_program_and_narrower_than_the_bisections_target(humanoid):
    p, sol, conic = humanoid
    lo, hi = sol.sticking.mu_min_lower, sol.sticking.mu_min
    assert lo is not None and hi is not None and 0.0 < lo < hi
    assert hi - lo <= MU_BRACKET_RTOL * hi  # the bisection's tail (1e-6 wide) is gone
    # independent of the certificate: Clarabel finds Λ(a) ∩ cones(μ) empty a little below the lower end, and not
    # empty at the upper end
    assert conic.feasible(np.full(p.m, lo * (1 - 1e-4)), {}).status == "infeasible"
    assert conic.feasible(np.full(p.m, hi * (1 + 1e-6)), {}).status == "solved"


def test_a_ratio_steps_dual_below_mu_min_is_accepted(humanoid):
    p, sol, conic = humanoid
    best = sol.sticking.mu_min
    theta = best * (1 - 1e-6)
    got = mm.farkas_lower_end(p, conic.det, {}, conic.r, _dual(conic, theta), theta, best)
    assert got is not None and theta <= got < best


def test_a_tampered_certificate_is_refused(humanoid):
    p, sol, conic = humanoid
    best = sol.sticking.mu_min
    theta = best * (1 - 1e-6)
    y = _dual(conic, theta)
    assert mm.farkas_lower_end(p, conic.det, {}, conic.r, y, theta, best) is not None
    # the sign flipped: rᵀy > 0 proves nothing
    assert mm.farkas_lower_end(p, conic.det, {}, conic.r, -y, theta, best) is None
    # noise of 1e-4 of its size: outside the dual cone on the contacts that bind at θ
    rng = np.random.default_rng(0)
    noisy = y + 1e-4 * np.abs(y).max() * rng.standard_normal(y.shape)
    assert mm.farkas_lower_end(p, conic.det, {}, conic.r, noisy, theta, best) is None
    # not a vector of the problem's coordinates, or not finite
    assert mm.farkas_lower_end(p, conic.det, {}, conic.r, y[:-1], theta, best) is None
    assert mm.farkas_lower_end(p, conic.det, {}, conic.r, np.full_like(y, np.nan), theta, best) is None
    # at or above the achieved ratio nothing can be proven
    assert mm.farkas_lower_end(p, conic.det, {}, conic.r, y, best, best) is None


def test_a_certificate_claiming_more_than_it_proves_is_refused(humanoid):
    """A dual found 1e-3 below μ_min proves emptiness up to about there, not at 1e-6 below."""
    p, sol, conic = humanoid
    best = sol.sticking.mu_min
    far = best * (1 - 1e-3)
    y = _dual(conic, far)
    got = mm.farkas_lower_end(p, conic.det, {}, conic.r, y, far, best)
    assert got is not None and got < best * (1 - 1e-4)
    assert mm.farkas_lower_end(p, conic.det, {}, conic.r, y, best * (1 - 1e-6), best) is None


def test_a_small_mu_min_is_bracketed_and_proven():
    """real/stacker_boxes (μ_min ≈ 1.7e-3): the ratio steps' duals prove nothing there once judged on their row-space
    part with θ_y from the contacts above round-off (their 1e-6-wide "proof" had rested on a round-off allowance of
    max|y|·max|J| ≈ 34); the feasibility programs prove the lower end, 0.7 % below, as before the dual proof."""
    p, sol, _ = _setup("real/stacker_boxes")
    lo, hi = sol.sticking.mu_min_lower, sol.sticking.mu_min
    assert lo is not None and hi is not None and 0.0 < lo < hi
    assert hi - lo <= 1e-2 * hi


def test_a_kernel_component_does_not_widen_the_allowance():
    """y + K z with J z = 0 proves what y proves (J y and rᵀy are unchanged): a vector that proves nothing is refused
    however large K is (the allowance was max|y|·max|J|, which K inflated without bound). The sweep's d_sticking
    problem of seed 0 (n = 11, rank J = 9) found by a review; at θ = 2 μ_min the set is not empty."""
    import importlib.util

    from gaussqp.backends import direct_backend
    from gaussqp.friction.multiplier_conic import MultiplierSetConic
    from gaussqp.friction.multiplier_set import active_tolerance
    from gaussqp.settings import DIRECT_CONIC_BACKENDS, PRESETS

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("verdict_sweep", root / "benchmarks" / "verdict_sweep.py")
    assert spec is not None and spec.loader is not None
    vs = importlib.util.module_from_spec(spec)
    sys.modules["verdict_sweep"] = vs
    spec.loader.exec_module(vs)
    p, _, _ = vs.gen_sticking(np.random.default_rng([4, 0]))
    sol = gaussqp.solve(p, crosscheck=False)
    mu = sol.sticking.mu_min
    E, _ = p.equalities
    G, _ = p.inequalities
    J = np.vstack([np.asarray(B.todense() if hasattr(B, "todense") else B).reshape(-1, p.n) for B in (E, G)])
    z = np.linalg.svd(J)[2][-1]
    assert np.abs(J @ z).max() < 1e-12
    a = sol.acceleration
    conic = MultiplierSetConic(
        p,
        a,
        active_tolerance(p, a),
        sol.lambda_normal,
        direct_backend("clarabel", "socp", DIRECT_CONIC_BACKENDS),
        PRESETS["high"],
    )
    assert conic.feasible(np.full(p.m, 2 * mu), {}).status == "solved"  # not empty at 2 μ_min
    y0 = -conic.r / (conic.r @ conic.r)  # rᵀy0 = −1 and nothing else
    for K in (0.0, 1e6, 1e9, 1e12):
        assert mm.farkas_lower_end(p, conic.det, {}, conic.r, y0 + K * z, 2 * mu, 3 * mu) is None


def test_the_claim_is_never_above_what_the_vector_proves(humanoid):
    p, sol, conic = humanoid
    best = sol.sticking.mu_min
    far = best * (1 - 1e-3)
    y = _dual(conic, far)
    theta_y = mm.farkas_lower_end(p, conic.det, {}, conic.r, y, far, best)
    assert theta_y is not None
    assert mm.farkas_lower_end(p, conic.det, {}, conic.r, y, theta_y * (1 + 1e-7), best) is None


def test_without_a_proof_the_feasibility_programs_prove_the_lower_end_as_before(monkeypatch):
    p = problems.load("real/humanoid_lying")
    monkeypatch.setattr(mm, "farkas_lower_end", lambda *args: None)
    sol = gaussqp.solve(p, crosscheck=False)
    lo, hi = sol.sticking.mu_min_lower, sol.sticking.mu_min
    assert sol.status == "solved" and lo is not None and hi is not None and 0.0 < lo < hi
    assert hi - lo <= 10 * mm.MU_LOWER_PROOF_RTOL * hi
    assert hi - lo > MU_BRACKET_RTOL * hi  # the bracket of the feasibility programs (2e-5 here), not of the dual


def test_the_verdict_on_the_humanoid_reads_the_same_upper_end_with_and_without_the_proof(monkeypatch):
    p = problems.load("real/humanoid_lying")
    new = gaussqp.solve(p, crosscheck=False).sticking
    monkeypatch.setattr(mm, "farkas_lower_end", lambda *args: None)
    old = gaussqp.solve(p, crosscheck=False).sticking
    assert new.mu_min == pytest.approx(old.mu_min, rel=1e-9)
    assert new.mu_min_lower >= old.mu_min_lower


def test_a_proof_step_that_still_gains_is_a_ratio_step(monkeypatch):
    """Steps stopped early (after the first that gains < 50 %): the proof's program at best (1 − δ) is above μ_min,
    proves nothing, and its point lowers the upper end; the proof is asked again until it holds. The bracket is
    proven as narrow, and the upper end is the same as with every step."""
    p = problems.load("real/humanoid_lying")
    full = gaussqp.solve(p, crosscheck=False).sticking
    monkeypatch.setattr(mm, "MU_RATIO_STEPS_NEAR_RTOL", 0.5)
    early = gaussqp.solve(p, crosscheck=False).sticking
    assert early.mu_min == pytest.approx(full.mu_min, rel=1e-8)
    assert 0.0 < early.mu_min_lower < early.mu_min
    assert early.mu_min - early.mu_min_lower <= MU_BRACKET_RTOL * early.mu_min
