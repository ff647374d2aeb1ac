"""`gaussqp crossval` and `gaussqp report` (issue #14 item 5): a small study end to end, its report's rates equal
counts recomputed from the results table, the exit code is 1 exactly when a route's claimed success is contradicted
by the reference, resume, and bad options."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas", reason="studies need the optional extra gaussqp[studies]")

from gaussqp.cli import main  # noqa: E402
from gaussqp.studies.report import load_table  # noqa: E402

from test_runs import registered  # noqa: E402,F401  (tests/studies is on sys.path: the test doubles' fixture)


def test_a_small_study_end_to_end(tmp_path, capsys):
    out = tmp_path / "cv"
    assert (
        main(
            [
                "crossval",
                "families:10:4",
                "--formulations",
                "gauss_qp,lcp_lemke,sliding_enumeration",
                "--solvers",
                "clarabel,direct,enumeration",
                "--out",
                str(out),
                "--workers",
                "2",
                "--quiet",
            ]
        )
        == 0
    )
    assert "runs in" in capsys.readouterr().out
    for name in ("report.md", "report.html", "profile_time.png", "results.parquet"):
        assert (out / name).exists(), name
    assert (out / "profile_time.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = load_table(out)
    assert {
        "problem",
        "set",
        "formulation",
        "solver",
        "status",
        "certified",
        "solve_time",
        "acceleration_gap",
        "generalized_force_gap",
        "agrees_with_reference",
    } <= set(table.columns)
    md = (out / "report.md").read_text(encoding="utf-8")
    for (f, s), g in table.groupby(["formulation", "solver"]):
        solved = int(g["status"].isin(["solved", "infeasible", "unbounded"]).sum())  # claims: answers and verdicts
        assert f"| {f}/{s}/high | {len(g)} | {100 * solved / len(g):.1f}% ({solved}/{len(g)})" in md
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64" in html and "http://" not in html and "https://" not in html
    # resume: nothing recomputed, the same table; the report rebuilds from the saved results
    assert (
        main(
            [
                "crossval",
                "families:10:4",
                "--formulations",
                "gauss_qp,lcp_lemke,sliding_enumeration",
                "--solvers",
                "clarabel,direct,enumeration",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    assert len(load_table(out)) == len(table)
    assert main(["report", str(out)]) == 0


def test_a_route_whose_claims_the_reference_contradicts_makes_exit_1(tmp_path, capsys, registered):  # noqa: F811
    out = tmp_path / "cv"
    code = main(
        [
            "crossval",
            "families:8:2",
            "--formulations",
            "lcp_lemke,broken_qp",
            "--solvers",
            "clarabel,direct",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 1
    assert "WRONG CLAIM" in capsys.readouterr().out
    assert "broken_qp/clarabel/high" in (out / "report.md").read_text(encoding="utf-8")


def test_bad_options_are_one_line_and_exit_2(tmp_path, capsys):
    assert main(["crossval", "families:3", "--workers", "0", "--out", str(tmp_path)]) == 2
    assert main(["crossval", "families:3", "--time-limit", "-1", "--out", str(tmp_path)]) == 2
    assert main(["report", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("gaussqp: error:") for line in err)


def test_the_exit_code_follows_the_reports_rules_for_wrong_claims():
    """``gaussqp crossval``/``report`` exit 1 on a wrong claim by the report's rules (gaussqp.studies.metrics): an
    uncertified "solved" and a contradicted one are wrong; a certified answer that differs from another where no one
    proved uniqueness is disputed, not wrong (before: any claim with agrees_with_reference False was wrong)."""
    from gaussqp.cli import _wrong_claims

    def row(problem, formulation, certified, agrees, status="solved"):
        return {
            "problem": problem,
            "formulation": formulation,
            "solver": "s",
            "tolerance": "high",
            "status": status,
            "certified": certified,
            "residual": 1e-12,
            "total_time": 0.01,
            "agrees_with_reference": agrees,
            "reference": "consensus",
        }

    disputed = [row("p", "a", True, False), row("p", "b", True, True)]
    assert _wrong_claims(disputed) == []
    uncertified = [row("q", "a", False, None)]
    assert [r["problem"] for r in _wrong_claims(uncertified)] == ["q"]
    exact = [dict(row("r", "a", True, False), reference="exact: closed form")]
    assert [r["problem"] for r in _wrong_claims(exact)] == ["r"]
    assert _wrong_claims([row("t", "a", False, None, status="failed")]) == []
