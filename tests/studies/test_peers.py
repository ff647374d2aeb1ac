"""Peer routes of a study (issue #14 item 2): another library's solvers on the same problems, judged by our checks.

Two halves. A test double stands in for Siconos's interpreter (``GAUSSQP_SICONOS_PYTHON``) and answers through
the same subprocess protocol — right, wrong, or "did not converge" — so the judging of a peer's claim runs on any
machine. With Debian's ``python3-siconos`` installed, the real peer runs on the library and the FCLIB files."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.dispatch import crosscheck_report
from gaussqp.errors import MissingExtraError, UnknownValueError
from gaussqp.formulations import FORMULATIONS
from gaussqp.settings import get_tolerance
from gaussqp.studies import peers, routes_for
from gaussqp.studies.routes import check_options


@pytest.fixture
def fake_siconos(tmp_path, monkeypatch):
    """A test double of Siconos's interpreter: answers ``import siconos.numerics`` and runs the peer script's
    protocol (npz in, JSON out), solving the LCP with our Lemke; ``FAKE_PEER`` = ``right`` (the answer, info 0),
    ``wrong`` (the answer − 1, negative somewhere, with info 0: a false claim) or ``fail`` (info 1)."""
    exe = tmp_path / "fake-python"
    exe.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent("""
        import json, os, sys
        import numpy as np
        if sys.argv[1:] == ["-c", "import siconos.numerics"]:
            sys.exit(0)
        from gaussqp.linalg.lemke import lemke
        d = np.load(sys.argv[3], allow_pickle=False)
        if str(d["kind"]) != "lcp":
            sys.exit(3)
        W, q = d["W"], d["q"]
        res = lemke(W, q)
        x = np.zeros(q.size) if res.z is None else np.asarray(res.z, dtype=float)
        mode = os.environ["FAKE_PEER"]
        if mode == "wrong":
            x = x - 1.0
        json.dump({"info": 1 if mode == "fail" else 0, "time": 1e-4, "x": x.tolist(), "y": (W @ x + q).tolist(),
                   "iterations": 3, "own_error": 0.0}, open(sys.argv[4], "w"))
        """)
    )
    exe.chmod(0o755)
    monkeypatch.setenv("GAUSSQP_SICONOS_PYTHON", str(exe))
    monkeypatch.setenv("FAKE_PEER", "right")
    return exe


def test_peer_names_are_study_options_and_peers_are_opt_in():
    assert check_options(["siconos_lcp_lemke", "gauss_qp"], ["siconos", "direct"])[0] == (
        "siconos_lcp_lemke",
        "gauss_qp",
    )
    block = problems.load("hyperstatic_block")
    assert not any(r.peer for r in routes_for(block))  # no peer unless asked
    assert peers.resolve_peers(None) == peers.resolve_peers("none") == ()
    with pytest.raises(UnknownValueError, match="peers"):
        peers.resolve_peers("pinocchio")


def test_a_peer_that_cannot_run_here_is_an_error_saying_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("GAUSSQP_SICONOS_PYTHON", str(tmp_path / "no-such-python"))
    with pytest.raises(MissingExtraError, match="python3-siconos"):
        peers.resolve_peers("siconos")
    assert peers.resolve_peers("auto") == ()  # auto: only the peers that can run


def test_peer_routes_follow_the_problem_kind(fake_siconos):
    block = problems.load("hyperstatic_block")  # frictionless, M ≻ 0: the LCP of lcp_lemke
    names = [r.formulation for r in routes_for(block, peers=("siconos",))]
    assert {"siconos_lcp_lemke", "siconos_lcp_pgs", "siconos_lcp_enum"} <= set(names)
    assert not any("fc3d" in n or "fc2d" in n for n in names)
    rod = problems.load("painleve_rod")  # sliding: no peer solves it
    assert not any(r.peer for r in routes_for(rod, peers=("siconos",)))
    only = routes_for(block, formulations=["siconos_lcp_pgs"], peers=("siconos",))
    assert [(r.formulation, r.solver) for r in only] == [("siconos_lcp_pgs", "siconos")]
    assert only[0].backend is None


@pytest.mark.parametrize("mode", ["right", "wrong", "fail"])
def test_a_peers_claim_is_judged_by_our_checks(fake_siconos, monkeypatch, mode):
    monkeypatch.setenv("FAKE_PEER", mode)
    p = problems.load("hyperstatic_block")
    run = peers.run_peer(p, "siconos_lcp_lemke")
    assert run.claimed_success is (mode != "fail")
    ours = FORMULATIONS["lcp_lemke"].solve(p)
    gap = np.linalg.norm(run.solution.acceleration - ours.acceleration) / max(np.linalg.norm(ours.acceleration), 1)
    if mode == "wrong":  # a false claim: our judge rejects the answer it was given
        assert not run.solution.certified and gap > 1e-3
    else:  # the peer's answer (right, whatever the peer claims) passes our judge
        assert run.solution.certified and gap <= 1e-9
        assert crosscheck_report(ours, run.solution, get_tolerance("high").crosscheck).agree is True


def test_a_false_peer_claim_in_a_study_is_a_wrong_claim_and_exit_1(fake_siconos, monkeypatch, tmp_path, capsys):
    pytest.importorskip("pandas", reason="studies need the optional extra gaussqp[studies]")
    from gaussqp.cli import main
    from gaussqp.studies.report import load_table

    monkeypatch.setenv("FAKE_PEER", "wrong")
    out = tmp_path / "cv"
    code = main(
        [
            "crossval",
            "library",
            "--formulations",
            "lcp_lemke,siconos_lcp_lemke",
            "--peers",
            "siconos",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 1
    table = load_table(out)
    peer = table[table.solver == "siconos"]
    assert len(peer) and peer.claimed_success.all() and not peer.certified.any()
    assert (peer.agrees_with_reference == False).any()  # noqa: E712 (a column of Python bools / None)
    assert peer.command.str.startswith("gaussqp peer ").all()
    assert "WRONG CLAIM" in capsys.readouterr().out
    ours = table[(table.formulation == "lcp_lemke") & table.claimed_success]
    assert len(ours) and ours.correct.all()


# --- the real peer ---------------------------------------------------------------------------------------------

needs_siconos = pytest.mark.skipif(
    not peers.available("siconos"), reason="Siconos is not installed (apt-get install python3-siconos)"
)


@needs_siconos
def test_siconos_lcp_solvers_agree_with_lemke_on_the_library():
    tol = get_tolerance("high")
    checked = 0
    for name in problems.names():
        p = problems.load(name)
        for s in peers.peer_solvers_for(p, ("siconos",)):
            if s.problem != "lcp":
                continue
            run = peers.run_peer(p, s.name)
            ours = FORMULATIONS["lcp_lemke"].solve(p)
            if not run.claimed_success:
                continue
            assert run.solution.certified, (name, s.name, run.solution.message)
            assert crosscheck_report(ours, run.solution, tol.crosscheck).agree, (name, s.name)
            checked += 1
    assert checked >= 20


@needs_siconos
def test_siconos_fc3d_on_an_fclib_file_is_judged_by_the_natural_map():
    pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib]")
    from pathlib import Path

    from gaussqp.io.fclib import load

    # a global file whose M is symmetric (CubeH8's is not at its entries' scale: it reads as a local problem)
    p = load(Path(__file__).resolve().parents[1] / "data" / "fclib" / "Box_Stacks-i0035-31-0.hdf5")
    assert isinstance(p, gaussqp.ContactProblem)
    names = [s.name for s in peers.peer_solvers_for(p, ("siconos",))]
    assert names == ["siconos_fc3d_nsgs", "siconos_fc3d_prox", "siconos_fc3d_nsn_ac"]
    run = peers.run_peer(p, "siconos_fc3d_nsgs")
    assert run.claimed_success and run.solution.certified
    assert run.solution.residuals["natural_map_relative"] <= 1e-6
    ours = FORMULATIONS["coulomb_fixed_point"].solve(p)
    a, b = ours.acceleration, run.solution.acceleration
    assert np.linalg.norm(a - b) <= 1e-5 * max(np.linalg.norm(a), 1.0)


def test_gaussqp_peer_prints_the_claim_and_our_verdict(fake_siconos, monkeypatch, capsys):
    import json

    from gaussqp.cli import main

    assert main(["peer", "hyperstatic_block", "siconos_lcp_lemke"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claimed_success"] and out["certified"] and out["judged_status"] == "solved"
    monkeypatch.setenv("FAKE_PEER", "wrong")
    assert main(["peer", "hyperstatic_block", "siconos_lcp_lemke"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claimed_success"] and not out["certified"]
    assert main(["peer", "painleve_rod", "siconos_lcp_lemke"]) == 2  # a sliding problem: no LCP of F3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not apply" in err[0]


def test_a_peer_success_claimed_on_an_infeasible_problem_is_not_certified(fake_siconos):
    """Our judge turns the peer's non-answer into a certified *infeasible* verdict of the problem: that certifies
    our verdict, not the peer's claim (found by the full study: Siconos's LCP_ENUM returns info 0 on infeasible
    LCPs)."""
    from gaussqp import Contact, ContactProblem

    p = ContactProblem(
        np.eye(1),
        [0.0],
        [
            Contact("unilateral", normal=[1.0], normal_drift=-3.0),
            Contact("unilateral", normal=[-1.0], normal_drift=-1.0),
        ],
        dimension=2,
    )
    run = peers.run_peer(p, "siconos_lcp_lemke")  # the double answers z = 0 with info 0
    assert run.claimed_success
    assert run.solution.status == "infeasible" and run.solution.certified  # our verdict on the problem
    assert not run.confirmed
