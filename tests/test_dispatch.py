"""Dispatcher: preference table, cross-check, DPP cache, large sparse problems."""

import numpy as np
import pytest

import gaussqp
from gaussqp.dispatch import PREFERENCES
from gaussqp.problems import families


def test_preference_table_is_used(rng):
    p, *_ = families.planted(rng, n=4, m_b=2, m_u=0)
    assert gaussqp.choose_formulation(p) == PREFERENCES[p.classify().key][0] == "bilateral_kkt"
    q, *_ = families.planted(rng, n=4, m_b=1, m_u=2)
    assert gaussqp.choose_formulation(q) == "gauss_qp"


def test_crosscheck_reports_gaps(rng):
    p, *_ = families.planted(rng, n=5, m_b=1, m_u=3)
    sol = gaussqp.solve(p)
    assert sol.crosscheck.formulation == "lcp_lemke" and sol.crosscheck.agree
    assert sol.crosscheck.acceleration_gap < 1e-6
    lcp = gaussqp.solve(p, formulation="lcp_lemke")
    assert lcp.crosscheck.formulation == "gauss_qp"


def test_a_resolve_of_the_same_structure_is_right_and_builds_no_stale_state(rng):
    """Issue #25: the direct path builds a new solver object per solve (no state of the previous problem)."""
    p, *_ = families.planted(rng, n=6, m_b=1, m_u=3)
    f = gaussqp.get_formulation("gauss_qp")
    f.solve(p)
    q = p.with_force(p.F + 0.1)
    sol = f.solve(q)
    assert sol.extras["compiled_program_reused"] is False and sol.status == "solved"
    ref = gaussqp.solve(q, crosscheck=False, formulation="lcp_lemke")
    np.testing.assert_allclose(sol.acceleration, ref.acceleration, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("solver", ["clarabel", "osqp"])
def test_large_sparse_chain(solver):
    p = families.chain(1500, lift=1.5, duplicate_every=5)
    assert p.m > 3000
    sol = gaussqp.solve(p, solver=solver, crosscheck=False)
    assert sol.status == "solved" and sol.max_residual() <= 1e-6
    # closed form: bodies pulled up harder than their weight lift off, the others rest
    Fy = p.F[1::2]
    ay = sol.acceleration[1::2]
    np.testing.assert_allclose(ay, np.where(Fy < 0, -Fy, 0.0), atol=1e-6)


def test_sticking_as_equalities_reports_cone_check():
    from gaussqp.model.problem import Contact, ContactProblem

    c = [Contact("unilateral", normal=[0, 1.0, 0], mode="sticking", friction=0.1, tangent=[[1.0, 0, 0]])]
    p = ContactProblem(np.eye(3), [-5.0, 9.81, 0.0], c)  # pushed sideways by 5 N, friction 0.1 * 9.81
    sol = gaussqp.solve(p, formulation="gauss_qp", crosscheck=False)
    # issue #25: forces outside the disks are no answer of the sticking problem — F4 proves none exists, so F1's
    # "solved" would contradict it; the residuals alone still hold (F1 solved its own equality problem)
    assert sol.status == "inaccurate" and not sol.certified and "leave the Coulomb disks" in sol.message
    assert sol.certificate("kkt_residuals").holds
    cone = sol.certificate("coulomb_cones")
    assert cone.holds is False and cone.margin == pytest.approx(0.981 - 5.0, abs=1e-6)
    f4 = gaussqp.solve(p, formulation="sticking_socp")
    assert f4.status == "infeasible" and f4.certified


def test_above_the_dense_limit_the_crosscheck_is_the_sparse_projection(monkeypatch):
    """Issue #15: Lemke's dense tableau cross-checks F1 up to CROSSCHECK_DENSE_N_MAX coordinates; above, the sparse
    projected acceleration (F2) does, and a disagreeing F2 still withdraws the 'solved' status."""
    from gaussqp import dispatch
    from gaussqp.settings import CROSSCHECK_DENSE_N_MAX

    p = families.chain(CROSSCHECK_DENSE_N_MAX // 2 + 10, lift=1.5)
    assert p.n > CROSSCHECK_DENSE_N_MAX
    sol = gaussqp.solve(p)
    assert sol.formulation == "gauss_qp" and sol.crosscheck.formulation == "projected_acceleration"
    assert sol.crosscheck.agree and sol.status == "solved" and sol.certified
    small = families.chain(20, lift=1.5)
    assert gaussqp.solve(small).crosscheck.formulation == "lcp_lemke"
    f2 = dispatch.FORMULATIONS["projected_acceleration"]
    real = f2.solve_to_compare

    def shifted(problem, *args, **kwargs):  # the route's answer, judged, then moved: reported as it is
        s, _ = real(problem, *args, **kwargs)
        s.acceleration = s.acceleration + 1.0
        return s, "answer"

    monkeypatch.setattr(f2, "solve_to_compare", shifted)
    bad = gaussqp.solve(p)
    assert bad.crosscheck.agree is False and bad.status == "inaccurate"


def test_the_sticking_crosscheck_obeys_the_dense_limit_too():
    from gaussqp.settings import CROSSCHECK_DENSE_N_MAX

    big, *_ = families.sticking_stack(np.random.default_rng(0), CROSSCHECK_DENSE_N_MAX // 3 + 5)
    assert big.n > CROSSCHECK_DENSE_N_MAX
    sol = gaussqp.solve(big)
    assert sol.formulation == "sticking_socp" and sol.crosscheck.formulation == "gauss_qp"
    assert sol.status == "solved" and sol.certified
    small, *_ = families.sticking_stack(np.random.default_rng(0), 10)
    assert gaussqp.solve(small).crosscheck.formulation == "lcp_lemke"


def test_c5_takes_the_answer_as_its_feasible_point_only_when_it_is_solved(monkeypatch):
    """The dispatcher hands C5 the judged answer's acceleration as a candidate feasible point only when the answer is
    ``solved``; an ``inaccurate`` one (here ill-conditioned: cond 9e11) is not offered, C5 finds its own point."""
    import gaussqp.dispatch as dispatch
    from illcond_family import generate_with_meta  # tests/ is on sys.path

    seen = []
    real = dispatch.structural_certificates
    monkeypatch.setattr(dispatch, "structural_certificates", lambda p, c=None: seen.append(c) or real(p, c))
    solved = gaussqp.solve(families.chain(5, lift=1.5, duplicate_every=0))
    assert not seen  # the structural certificates wait for their first read (Solution.defer)
    assert solved.certificate("C5").holds
    assert solved.status == "solved" and seen[-1] is not None and np.array_equal(seen[-1], solved.acceleration)
    M, F, J, b, bilateral, _, _ = generate_with_meta(11)
    types = ["bilateral" if x else "unilateral" for x in bilateral]
    inaccurate = gaussqp.solve(gaussqp.ContactProblem.from_blocks(M, F, J, b, types))
    _ = inaccurate.certificates
    assert inaccurate.status == "inaccurate" and inaccurate.acceleration is not None and seen[-1] is None


def test_a_state_no_route_takes_for_its_told_sticking_contacts_names_the_mode_free_fix(monkeypatch):
    """A simulator's state whose resting contacts are told sticking beside more told sliding contacts than the
    enumeration takes (a settling pile as import_mujoco poses it): the refusal names the re-posings a route accepts,
    and each is accepted (the told sticking contacts' stick or slip left to the solver, the sliding ones keeping their
    direction: the route in (a, λ); every contact's: the condensed route)."""
    import gaussqp
    from gaussqp import Contact, ContactProblem
    from gaussqp.errors import NotApplicableError
    from gaussqp.formulations.sliding import ENUMERATION_MAX

    k = ENUMERATION_MAX + 2  # point masses in 2D, each on the ground: the last one resting, the others sliding
    n = 2 * k
    contacts = []
    for i in range(k):
        normal, tangent = np.zeros(n), np.zeros((1, n))
        normal[2 * i + 1], tangent[0, 2 * i] = 1.0, 1.0
        mode, slip = ("sticking", None) if i == k - 1 else ("sliding", np.array([1.0]))
        contacts.append(Contact("unilateral", normal, friction=0.5, mode=mode, tangent=tangent, slip=slip))
    push = np.tile([2.0, -9.81], k)  # below μ g: the resting one holds
    problem = ContactProblem(np.eye(n), -push, contacts, dimension=2)
    with pytest.raises(NotApplicableError) as refused:
        gaussqp.solve(problem)
    fix = str(refused.value).split("; fix: pose ")[1]
    assert fix == (
        "problem.mode_free() leaves the stick or slip of the 1 contact(s) told 'sticking' to the solver, or "
        f"problem.mode_free(sliding=True) leaves those of every told unilateral contact, the {k - 1} sliding too to the "
        "solver"
    )
    sol = gaussqp.solve(problem.mode_free())
    assert sol.status == "solved" and sol.formulation == "coulomb_mixed"
    np.testing.assert_allclose(sol.acceleration[0::2], [2.0 - 0.5 * 9.81] * (k - 1) + [0.0], atol=1e-9)
    every = gaussqp.solve(problem.mode_free(sliding=True))  # pushed below μ g, the sliding ones told nothing: all hold
    assert every.status == "solved" and every.formulation == "coulomb_fixed_point"
    np.testing.assert_allclose(every.acceleration, 0.0, atol=1e-9)
    # where no mode-free route would take it either, no such fix is named
    from gaussqp.formulations import coulomb, coulomb_mixed, sliding

    refuse = lambda self, p, cls: (False, "refused")  # noqa: E731
    monkeypatch.setattr(coulomb_mixed, "COULOMB_MIXED_UNKNOWNS_MAX", 1)
    monkeypatch.setattr(coulomb.CoulombFixedPoint, "accepts", refuse)
    monkeypatch.setattr(sliding.CoulombEnumeration, "accepts", refuse)
    with pytest.raises(NotApplicableError) as refused:
        gaussqp.solve(problem)
    assert "fix:" not in str(refused.value) and "coulomb_mixed" in str(refused.value)
