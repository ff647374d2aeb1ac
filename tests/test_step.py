"""One Moreau–Jean step (gaussqp.step, issue 12 part C): order of convergence on a free fall, energy of the
bouncing ball with e = 0 and e = 1, a symmetric flat landing of the rocking block, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import ContactRows, MechanicalSystem, State, step
from gaussqp.errors import StepError, UnknownValueError

G = 9.81


def ball_system(e, m: float = 1.0, r: float = 0.1, ceiling: float | None = None) -> MechanicalSystem:
    """A ball of radius r above the plane y = 0 (q = (y,)), optionally under a ceiling y = ceiling."""

    def contacts(q):
        if ceiling is None:
            return ContactRows(gaps=[q[0] - r], normals=[[1.0]], restitution=e)
        return ContactRows(gaps=[q[0] - r, ceiling - r - q[0]], normals=[[1.0], [-1.0]], restitution=e)

    return MechanicalSystem(
        mass=lambda q: np.array([[m]]), force=lambda q, v, t: np.array([-m * G]), contacts=contacts, name="ball"
    )


def energy(q, v, m=1.0, r=0.1):
    return 0.5 * m * float(v[0]) ** 2 + m * G * (float(q[0]) - r)


def fall(h: float, T: float, theta: float) -> float:
    s = State(q=np.array([100.0]), v=np.array([0.0]))
    sysm = ball_system(0.0)
    for _ in range(round(T / h)):
        s = step(sysm, s, h, theta=theta).state
    return float(s.q[0])


def test_free_fall_first_order_in_h():
    """θ = 1: q_N = q_0 − g h² N(N + 1)/2 = exact − g T h/2 (first order, by hand); the error halves with h.
    θ = 1/2: the trapezoidal positions are exact for a constant force."""
    T = 0.4
    exact = 100.0 - 0.5 * G * T * T
    errs = []
    for h in (0.04, 0.02, 0.01):
        q = fall(h, T, theta=1.0)
        assert exact - q == pytest.approx(G * T * h / 2, rel=1e-9)
        errs.append(exact - q)
    assert errs[0] / errs[1] == pytest.approx(2.0, rel=1e-9) and errs[1] / errs[2] == pytest.approx(2.0, rel=1e-9)
    assert fall(0.04, T, theta=0.5) == pytest.approx(exact, abs=1e-9)


def test_plastic_ball_comes_to_rest_and_dissipates():
    """e = 0, θ = 1: in flight the discrete energy drops by ½ m g² h² per step (by hand), the landing removes the
    rest of the kinetic energy, the ball ends at rest. Inactive at step k means g_k + h v_k > 0, so
    g_{k+1} = g_k + h (v_k − g h) > −g h²: the predicted activation bounds the penetration by g h²."""
    h = 0.01
    s = State(q=np.array([1.0]), v=np.array([0.0]))
    sysm = ball_system(0.0)
    E = [energy(s.q, s.v)]
    landed = None
    for k in range(80):
        res = step(sysm, s, h)
        s = res.state
        assert s.q[0] >= 0.1 - G * h * h
        E.append(energy(s.q, s.v))
        if res.impulses[0] > 0 and landed is None:
            landed = k
            assert res.solution.certified
    assert landed is not None
    assert np.all(np.diff(E) <= 1e-12)
    assert s.v[0] == pytest.approx(0.0, abs=1e-9)
    assert s.q[0] - 0.1 < 0.05  # within one step's travel of the plane


def test_elastic_ball_conserves_energy_to_order_h():
    """e = 1: the impact step reverses the normal velocity exactly (u⁺ = −u⁻); over 2 s (several bounces) the
    total energy stays within O(h) of its initial value (θ = 1/2), and the ball keeps bouncing to its height."""
    h = 0.005
    s = State(q=np.array([1.0]), v=np.array([0.0]))
    sysm = ball_system(1.0)
    E0 = energy(s.q, s.v)
    bounces, Es = 0, []
    for _ in range(400):
        res = step(sysm, s, h, theta=0.5)
        if res.impulses[0] > 0:
            bounces += 1
            assert res.state.v[0] == pytest.approx(-s.v[0], rel=1e-7)
        s = res.state
        Es.append(energy(s.q, s.v))
    assert bounces >= 2
    assert max(abs(e - E0) for e in Es) <= 0.05 * E0


def test_rocking_block_flat_landing_is_symmetric():
    """The library's rocking block geometry (q = (x, y, θ), corners A1/A2) dropped flat, frictionless, e = 0:
    both corners land in the same step, take equal impulses m|ẏ⁻|/2 + (weight over the step)/2, and the block
    stops (v⁺ = 0)."""
    from gaussqp.problems.sticking_examples import rocking_block

    m, L, l = 1.0, 1.0, 2.0

    def contacts(q):
        x, y, th = q
        rows = rocking_block(theta=float(th), m=m, L=L, l=l)
        gaps = [y - l / 2 * np.cos(th) + L / 2 * np.sin(th), y - l / 2 * np.cos(th) - L / 2 * np.sin(th)]
        return ContactRows(gaps=gaps, normals=np.asarray(rows.J_n), restitution=0.0)

    IG = m * (l * l + L * L) / 12
    sysm = MechanicalSystem(
        mass=lambda q: np.diag([m, m, IG]),
        force=lambda q, v, t: np.array([0.0, -m * G, 0.0]),
        contacts=contacts,
        name="rocking block",
    )
    s = State(q=np.array([0.0, l / 2 + 0.05, 0.0]), v=np.array([0.0, -1.0, 0.0]))
    h = 0.01
    for _ in range(20):
        res = step(sysm, s, h)
        v_before = s.v
        s = res.state
        if res.impulses.any():
            P = res.impulses
            assert P[0] == pytest.approx(P[1], rel=1e-7)
            assert P.sum() == pytest.approx(m * (-v_before[1]) + m * G * h, rel=1e-7)
            assert s.v == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
            assert res.solution.certified
            break
    else:
        pytest.fail("the block never landed")


def test_ball_squeezed_with_restitution_has_no_step():
    """A ball touching floor (e = 1/2) and ceiling (e = 0) moving down at 1: Newton's law asks v⁺ >= 1/2 on the
    floor and −v⁺ + 0·1 >= 0 on the ceiling at once — infeasible, and step says so (StepError naming the status).
    (With e = 1/2 on both the rows allow v⁺ = 1/2 exactly.)"""
    sysm = ball_system([0.5, 0.0], ceiling=0.2)
    s = State(q=np.array([0.1]), v=np.array([-1.0]))
    with pytest.raises(StepError, match="infeasible"):
        step(sysm, s, 0.01)


@pytest.mark.parametrize(
    "kw,field", [({"theta": 0.3}, "theta"), ({"h": 0.0}, "h"), ({"activation": "x"}, "activation")]
)
def test_step_bad_input(kw, field):
    s = State(q=np.array([1.0]), v=np.array([0.0]))
    args = {"h": 0.01, **kw}
    h = args.pop("h")
    with pytest.raises(UnknownValueError) as err:
        step(ball_system(0.0), s, h, **args)
    assert err.value.field == field


def test_step_returns_the_step_problem():
    s = State(q=np.array([0.1]), v=np.array([-2.0]), t=1.0)
    res = step(ball_system(0.5), s, 0.01)
    assert isinstance(res.problem, gaussqp.ImpactProblem) and res.problem.h == 0.01
    assert list(res.active) == [0] and res.state.t == pytest.approx(1.01)
    # Newton's law over the step: u⁺ = −e u⁻ = 1 (the weight's impulse is absorbed by the percussion)
    assert res.state.v[0] == pytest.approx(1.0, rel=1e-9)
    assert res.impulses[0] == pytest.approx(3.0 + G * 0.01, rel=1e-9)


def test_example_script_runs(tmp_path):
    """examples/bouncing_and_rocking.py on short horizons: writes its PNG, every step certified."""
    pytest.importorskip("matplotlib", reason="needs the optional extra gaussqp[plots]")
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "examples" / "bouncing_and_rocking.py"
    spec = importlib.util.spec_from_file_location("bouncing_and_rocking", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path = mod.main(["--out", str(tmp_path), "--quick"])
    assert path.is_file() and path.stat().st_size > 10_000
    rec = mod.simulate(mod.ball(0.5), State(q=np.array([1.0]), v=np.array([0.0])), 0.01, 1.0)
    assert rec["certified"].all()


def test_a_sliding_box_under_coulomb_friction_stops_when_the_closed_form_says():
    """Mode ``coulomb`` (the solver decides stick/slip, issue #12): a box sliding at v0 on the floor loses μ g h
    of speed per step on average and sticks after v0/(μ g) seconds (the closed form), then stays at rest."""
    import gaussqp.timestepping as ts

    m, mu, g, h, v0 = 2.0, 0.5, 9.81, 1e-2, 3.0
    system = ts.MechanicalSystem(
        mass=lambda q: m * np.eye(2),
        force=lambda q, v, t: np.array([0.0, -m * g]),
        contacts=lambda q: ts.ContactRows(
            gaps=np.array([q[1]]),
            normals=np.array([[0.0, 1.0]]),
            friction=np.array([mu]),
            modes="coulomb",
            tangents=np.array([[1.0, 0.0]]),
            dimension=2,
        ),
    )
    state, stopped = ts.State(np.zeros(2), np.array([v0, 0.0])), None
    for k in range(90):
        r = ts.step(system, state, h)
        assert r.solution.status == "solved"
        assert r.solution.formulation == ("coulomb_fixed_point" if len(r.active) else "gauss_qp")
        state = r.state
        if stopped is None and abs(state.v[0]) < 1e-9:
            stopped = state.t
    assert stopped == pytest.approx(v0 / (mu * g), abs=2 * h)
    assert abs(state.v[0]) < 1e-9 and state.v[0] + 0.0 >= -1e-9


def test_a_resting_contact_with_a_round_off_gap_stays_active():
    """A ball resting with a gap of round-off size (1e-18 m, radius 0) stays on the plane: the contact is active at
    every step and the velocity stays zero. With an activation test at exactly 0 it went into free flight on every
    other step (v = −g h, then an impact)."""
    sysm = ball_system(0.0, r=0.0)
    s = State(q=np.array([1e-18]), v=np.array([0.0]))
    for _ in range(6):
        res = step(sysm, s, 0.01)
        assert list(res.active) == [0]
        assert res.state.v[0] == pytest.approx(0.0, abs=1e-15)
        assert res.impulses[0] == pytest.approx(G * 0.01, rel=1e-9)
        s = res.state
    # a real gap (a thousandth of one step's fall, 1e-7 m at h = 0.01) is not closed early
    far = step(sysm, State(q=np.array([1e-3 * G * 0.01**2]), v=np.array([0.0])), 0.01)
    assert list(far.active) == [] and far.state.v[0] == pytest.approx(-G * 0.01)
