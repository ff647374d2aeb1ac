"""Results that explain themselves (issue #31 item 3): ``Solution.summary()`` and ``repr`` say the status, whether
it is certified, what is unique, the residuals and the cross-check; the same for grasp reports and audit states."""

from __future__ import annotations

import numpy as np

import gaussqp
from gaussqp import problems
from gaussqp.audit.core import ContactAudit, StateAudit


def test_solution_summary_is_what_the_cli_prints(capsys):
    from gaussqp.cli import main

    sol = gaussqp.solve(problems.load("rod_wall_guide"))
    text = sol.summary()
    for head in (
        "problem      rod_wall_guide",
        "status       solved  (certified)",
        "certified    acceleration=yes",
        "residuals    dynamics=",
        "unique       acceleration=yes  generalized_force=yes  multipliers=yes",
        "crosscheck   agreed, over 1 route(s)",
        "             lcp_lemke (solved): agreed",
    ):
        assert any(line.startswith(head) for line in text.splitlines()), head
    assert "certificates" not in text and "kkt_residuals" in sol.summary(certificates=True)
    assert main(["solve", "rod_wall_guide"]) == 0
    printed = capsys.readouterr().out
    # the same lines, but for the numbers that move by round-off between two solves
    strip = [line.split()[0] for line in sol.summary(certificates=True).splitlines() if line.strip()]
    assert [line.split()[0] for line in printed.splitlines() if line.strip()] == strip


def test_solution_repr_says_status_certified_unique_residual_crosscheck():
    sol = gaussqp.solve(problems.load("rod_wall_guide"))
    r = repr(sol)
    assert r.startswith("Solution(status='solved', certified=True, formulation='gauss_qp'")
    assert "unique=(acceleration=yes, generalized_force=yes, multipliers=yes)" in r
    assert "max_residual=" in r and r.endswith("crosscheck='agreed')")
    plain = gaussqp.solve(problems.load("rod_wall_guide"), crosscheck=False)
    assert "crosscheck='none'" in repr(plain)


def test_an_uncertified_answer_says_so():
    sol = gaussqp.solve(problems.load("rod_wall_guide"), crosscheck=False)
    sol.status = "inaccurate"
    assert "status       inaccurate  (NOT certified)" in sol.summary()
    assert "certified=False" in repr(sol)


def test_grasp_report_summary_and_repr():
    from gaussqp.grasp import analyze, force_closure
    from gaussqp.problems import grasps

    rep = analyze(grasps.load("parallel_jaw_soft"))
    lines = rep.summary().splitlines()
    assert lines[0] == "grasp parallel_jaw_soft: 2 contacts (soft), 3D, torque scale L = 0.03"
    assert lines[1].split()[:4] == ["force", "closure", "yes", "certified"]
    assert repr(rep).startswith("GraspReport('parallel_jaw_soft': force_closure=yes, form_closure=no")
    assert repr(rep).endswith("certified=True)")
    fc = force_closure(grasps.load("parallel_jaw_soft"))
    assert repr(fc) == "GraspCheck(force_closure: yes, certified, margin=1, certificate='grasp_force_closure_interior')"


def test_audit_state_summary_and_repr():
    c = ContactAudit(
        index=0,
        label="floor/leg0",
        geoms=("floor", "leg0"),
        kind="contact",
        mode="sticking",
        engine_normal=17.2,
        normal_range=(0.0, 34.3),
        normal_attained=(0.0, 34.3),
        engine_friction=0.0,
        tangent_max=0.0,
        engine_coulomb_residual=0.0,
        hold_margin=1.0,
        creep=False,
        tangential_speed=0.0,
        envelope_distance=0.0,
    )
    st = StateAudit(
        time=0.5,
        step=100,
        status="solved",
        certified=True,
        acceleration=np.zeros(6),
        acceleration_unique=True,
        unique_forces=False,
        engine_acceleration_gap=1e-4,
        contacts=[c],
        flags=[],
        formulation="coulomb_fixed_point",
    )
    text = st.summary().splitlines()
    assert text[0] == "state        step 100 (t = 0.5): solved  (certified), coulomb_fixed_point"
    assert text[1] == "unique       acceleration=yes  forces=no"
    assert text[3] == "flags        none"
    assert text[4] == "  contact 0 floor/leg0: engine normal 17.2 in [0, 34.3], friction 0 (max 0), sticking"
    assert repr(st) == "StateAudit(step=100, time=0.5, status='solved', certified=True, contacts=1, flags=0)"
