"""Metrics and report of a cross-validation study (issue #14) on a hand-built results table with known numbers:
rates recomputed from the rows, shifted geometric means and Dolan--Moré profiles by hand, the PNG, the
Markdown's disagreement rows with their commands, the HTML self-contained, a wrong-claim route flagged."""

from __future__ import annotations

import base64
import math
import re

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="needs the optional extra gaussqp[studies] (pandas)")

from gaussqp.errors import FileFormatError, MagnitudeError, UnknownValueError  # noqa: E402
from gaussqp.settings import PRESETS, STUDY_SGM_SHIFT  # noqa: E402
from gaussqp.studies.metrics import (  # noqa: E402
    classify,
    performance_profile,
    performance_ratios,
    route_metrics,  # noqa: E402
    shifted_geometric_mean,
)
from gaussqp.studies.report import load_table, write_report  # noqa: E402

A, B, C = "F/clarabel/high", "F/osqp/high", "G/wrong/high"
TIME_LIMIT = 10.0
TOL = PRESETS["high"].residual
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _row(problem, formulation, solver, status, certified, agrees, time, residual, reference):
    return {
        "problem": problem,
        "set": "synthetic",
        "formulation": formulation,
        "solver": solver,
        "tolerance": "high",
        "status": status,
        "certified": certified,
        "claimed_success": status == "solved",
        "residual": residual,
        "certificates": "C1;C2" if certified else "",
        "build_time": time / 4,
        "solve_time": time / 2,
        "certify_time": time / 4,
        "total_time": time,
        "acceleration_gap": (0.25 if agrees is False else 0.0),
        "generalized_force_gap": (0.5 if agrees is False else 0.0),
        "reference": reference,
        "agrees_with_reference": agrees,
        "correct": status == "solved" and certified and agrees is not False,
        "honest_failure": status in {"failed", "timeout", "inaccurate"},
        "error": "boom" if status == "error" else "",
        "command": f"gaussqp solve synthetic:{problem} --formulation {formulation} --solver {solver} "
        "--tolerance high --json",
    }


def _table():
    """5 problems, 3 routes. A solves all (times 1 2 4 8 3); B solves p1-p3 in 2 s, fails p4 honestly and never
    runs p5; C claims p1 (uncertified, contradicted) and p2 (certified, contradicted), times out on p3 and
    raises on p4."""
    ex, cons, none = "exact:F/clarabel/high", "consensus:2", "none"
    ref = {"p1": ex, "p2": ex, "p3": ex, "p4": cons, "p5": none}
    rows = []
    for p, t in zip(["p1", "p2", "p3", "p4", "p5"], [1.0, 2.0, 4.0, 8.0, 3.0]):
        rows.append(_row(p, "F", "clarabel", "solved", True, True if p != "p5" else None, t, 1e-8, ref[p]))
    for p in ["p1", "p2", "p3"]:
        rows.append(_row(p, "F", "osqp", "solved", True, True, 2.0, 1e-8, ref[p]))
    rows.append(_row("p4", "F", "osqp", "failed", False, None, 2.0, float("nan"), ref["p4"]))
    rows.append(_row("p1", "G", "wrong", "solved", False, False, 0.5, 0.5, ref["p1"]))
    rows.append(_row("p2", "G", "wrong", "solved", True, False, 0.5, 1e-9, ref["p2"]))
    rows.append(_row("p3", "G", "wrong", "timeout", False, None, TIME_LIMIT, float("nan"), ref["p3"]))
    rows.append(_row("p4", "G", "wrong", "error", False, None, float("nan"), float("nan"), ref["p4"]))
    return rows


def _hand_sgm(values):
    s = STUDY_SGM_SHIFT
    return math.exp(sum(math.log(v + s) for v in values) / len(values)) - s


# ---------------------------------------------------------------- metrics


def test_rates_equal_counts_recomputed_from_the_table():
    df = pd.DataFrame(_table())
    m = route_metrics(df, time_limit=TIME_LIMIT).set_index("route")
    assert list(m.index) == [A, B, C]
    for route, group in df.groupby(df["formulation"] + "/" + df["solver"] + "/" + df["tolerance"]):
        claimed = group["status"] == "solved"
        contradicted = group["agrees_with_reference"].map(lambda a: a is False)
        correct = claimed & group["certified"] & ~contradicted
        honest = group["status"].isin(["failed", "timeout", "inaccurate"])
        row = m.loc[route]
        assert row["runs"] == len(group)
        assert row["success"] == claimed.sum() and row["success_rate"] == pytest.approx(claimed.mean())
        assert row["correct"] == correct.sum() and row["correct_rate"] == pytest.approx(correct.mean())
        assert row["honest_failures"] == honest.sum()
        assert row["honest_failure_rate"] == pytest.approx(honest.mean())
        assert row["wrong_claims"] == (claimed & contradicted).sum()
        assert row["errors"] == (group["status"] == "error").sum()
    # the known numbers
    assert (m.loc[A, "correct"], m.loc[B, "correct"], m.loc[C, "correct"]) == (5, 3, 0)
    assert (m.loc[C, "wrong_claims"], m.loc[C, "certified_wrong"], m.loc[C, "honest_failures"]) == (2, 1, 1)
    assert m.loc[B, "honest_failure_rate"] == pytest.approx(0.25)


def test_a_table_is_classified_once_and_the_result_is_the_same():
    """classify returns a frame it classified as it is, so the report, its metrics and the CLI classify once; the
    metrics of a classified frame equal those of the raw rows."""
    rows = _table()
    frame = classify(rows)
    assert classify(frame) is frame
    raw = classify(pd.DataFrame(rows))
    assert raw is not frame and raw.equals(frame)
    a = route_metrics(rows, time_limit=TIME_LIMIT)
    b = route_metrics(frame, time_limit=TIME_LIMIT)
    assert a.equals(b)


def test_shifted_geometric_means_by_hand_on_three_routes():
    m = route_metrics(_table(), time_limit=TIME_LIMIT).set_index("route")
    # time: the solve alone (solve_time, half the total in _row); correct runs keep their time, every other run is
    # charged the time limit
    raw = {A: _hand_sgm([0.5, 1, 2, 4, 1.5]), B: _hand_sgm([1, 1, 1, TIME_LIMIT]), C: _hand_sgm([TIME_LIMIT] * 4)}
    assert raw[C] == pytest.approx(TIME_LIMIT)
    best = min(raw.values())
    for route, value in raw.items():
        assert m.loc[route, "sgm_time_seconds"] == pytest.approx(value, rel=1e-12)
        assert m.loc[route, "sgm_time"] == pytest.approx(value / best, rel=1e-12)
    assert m["sgm_time"].min() == 1.0 and m.loc[A, "sgm_time"] == 1.0
    # residual: a run that is not correct is charged max(its residual, the preset's tolerance)
    raw_r = {
        A: _hand_sgm([1e-8] * 5),
        B: _hand_sgm([1e-8, 1e-8, 1e-8, TOL]),
        C: _hand_sgm([0.5, max(1e-9, TOL), TOL, TOL]),
    }
    best_r = min(raw_r.values())
    for route, value in raw_r.items():
        assert m.loc[route, "sgm_residual_raw"] == pytest.approx(value, rel=1e-5)
        assert m.loc[route, "sgm_residual"] == pytest.approx(value / best_r, rel=1e-5)


def test_shifted_geometric_mean_keeps_tiny_values_and_refuses_negative_ones():
    assert shifted_geometric_mean([1e-15, 1e-15, 1e-15]) == pytest.approx(1e-15, rel=1e-6)
    assert shifted_geometric_mean([0.0, 0.0]) == 0.0
    assert shifted_geometric_mean([5.0]) == pytest.approx(5.0)
    assert math.isnan(shifted_geometric_mean([]))
    with pytest.raises(MagnitudeError):
        shifted_geometric_mean([1.0, -1.0])
    with pytest.raises(MagnitudeError):
        shifted_geometric_mean([1.0, math.inf])


def test_time_penalty_defaults_to_the_recorded_limit_or_the_slowest_run():
    rows = _table()
    slowest = max(r["solve_time"] for r in rows if not math.isnan(r["solve_time"]))  # the solve alone
    m = route_metrics(rows).set_index("route")  # no limit given or recorded: the slowest run
    assert m.loc[C, "sgm_time_seconds"] == pytest.approx(slowest)
    for r in rows:
        r["time_limit"] = 20.0
    m = route_metrics(rows).set_index("route")
    assert m.loc[C, "sgm_time_seconds"] == pytest.approx(20.0)


def test_performance_profile_by_hand():
    rows = _table()
    ratios = performance_ratios(rows)
    expected = pd.DataFrame(
        {A: [1, 1, 2, 1, 1], B: [2, 1, 1, np.inf, np.inf], C: [np.inf] * 5},
        index=["p1", "p2", "p3", "p4", "p5"],
        dtype=float,
    )
    np.testing.assert_array_equal(ratios.loc[expected.index, expected.columns].to_numpy(), expected.to_numpy())
    rho = performance_profile(rows, taus=[1.0, 1.5, 2.0, 1e6])
    assert list(rho.loc[1.0, [A, B, C]]) == [4 / 5, 2 / 5, 0.0]
    assert list(rho.loc[1.5, [A, B, C]]) == [4 / 5, 2 / 5, 0.0]
    assert list(rho.loc[2.0, [A, B, C]]) == [1.0, 3 / 5, 0.0]
    assert list(rho.loc[1e6, [A, B, C]]) == [1.0, 3 / 5, 0.0]  # the fraction each route solved correctly
    default = performance_profile(rows)
    assert list(default.index) == [1.0, 2.0]  # the breakpoints: 1 and every finite ratio
    # every curve is non-decreasing in τ
    assert (np.diff(default.to_numpy(), axis=0) >= 0).all()


def test_performance_profile_refuses_bad_arguments():
    with pytest.raises(UnknownValueError):
        performance_profile(_table(), metric="speed")
    with pytest.raises(MagnitudeError):
        performance_profile(_table(), taus=[0.5])


def test_bad_tables_are_refused_naming_the_column():
    rows = _table()
    with pytest.raises(FileFormatError, match="total_time"):
        route_metrics([{k: v for k, v in r.items() if k != "total_time"} for r in rows])
    bad = [dict(r) for r in rows]
    bad[0]["total_time"] = -1.0
    with pytest.raises(MagnitudeError, match="total_time"):
        route_metrics(bad)
    bad = [dict(r) for r in rows]
    bad[0]["agrees_with_reference"] = "maybe"
    with pytest.raises(UnknownValueError, match="agrees_with_reference"):
        route_metrics(bad)
    bad = [dict(r) for r in rows]
    bad[0]["tolerance"] = "extreme"
    with pytest.raises(UnknownValueError, match="tolerance"):
        route_metrics(bad)


def test_a_repeated_run_counts_once_and_stored_flags_are_checked():
    rows = _table()
    again = dict(
        rows[-1], status="failed", honest_failure=True
    )  # C on p4 run again (a resumed study): the last row counts
    frame = classify(rows + [again])
    assert len(frame) == len(rows)
    assert frame[(frame["route"] == C) & (frame["problem"] == "p4")]["status"].item() == "failed"
    assert not frame["stored_flags_differ"].any()
    lying = [dict(r) for r in rows]
    lying[-4]["correct"] = True  # C's uncertified, contradicted claim stored as correct
    frame = classify(lying)
    assert frame["stored_flags_differ"].sum() == 1 and not frame["correct"].iloc[-4]


# ---------------------------------------------------------------- report


def test_report_files_tables_and_flags(tmp_path):
    paths = write_report(_table(), tmp_path, time_limit=TIME_LIMIT)
    assert set(paths) == {"markdown", "html", "json", "profile_time", "profile_residual"}
    for key in ("profile_time", "profile_residual"):
        data = paths[key].read_bytes()
        assert data.startswith(PNG_MAGIC)
        import matplotlib.image

        image = matplotlib.image.imread(paths[key])
        assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    md = paths["markdown"].read_text(encoding="utf-8")
    lines = md.splitlines()
    # the headline rows, with the wrong-claim route flagged and the others not
    row = {route: next(line for line in lines if line.startswith(f"| {route} |")) for route in (A, B, C)}
    assert "WRONG CLAIMS" in row[C] and "WRONG CLAIMS" not in row[A] and "WRONG CLAIMS" not in row[B]
    assert "100.0% (5/5)" in row[A] and "75.0% (3/4)" in row[B] and "0.0% (0/4)" in row[C]
    assert f"Routes that made wrong claims (a claim our check rejects or the reference contradicts): {C}" in md
    # the disagreements: exactly C on p1 and p2, each with its command
    section = md.split("## Disagreements with the reference")[1].split("## ")[0]
    disagreement_rows = [line for line in section.splitlines() if re.match(r"\| p\d ", line)]
    assert len(disagreement_rows) == 2
    for problem, line in zip(["p1", "p2"], disagreement_rows):
        command = f"gaussqp solve synthetic:{problem} --formulation G --solver wrong --tolerance high --json"
        assert line.startswith(f"| {problem} | {C} |") and f"`{command}`" in line
    # how the reference was chosen: 3 exact, 1 consensus, 1 none
    refs = md.split("## How the reference was chosen")[1]
    assert re.search(r"\| exact \| 3 \|", refs) and re.search(r"\| consensus \| 1 \|", refs)
    assert re.search(r"\| none \| 1 \|", refs)


def test_html_is_self_contained(tmp_path):
    paths = write_report(_table(), tmp_path, time_limit=TIME_LIMIT)
    page = paths["html"].read_text(encoding="utf-8")
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]*", "", page)  # base64 may hold "//"
    assert "http://" not in text and "https://" not in text and "//" not in text and "url(" not in text
    assert "<link" not in page and "<script" not in page and "@import" not in page
    sources = re.findall(r"""src\s*=\s*["']([^"']*)["']""", page)
    assert len(sources) == 2 and all(s.startswith("data:image/png;base64,") for s in sources)
    assert base64.b64decode(sources[0].split(",", 1)[1]) == paths["profile_time"].read_bytes()
    assert len(re.findall(r"src\s*=", page)) == 2
    # the same tables: the flagged route, the disagreements' commands (HTML-escaped), the reference counts
    assert 'class="flag">WRONG CLAIMS' in page
    assert "gaussqp solve synthetic:p2 --formulation G --solver wrong --tolerance high --json" in page
    assert '<td>exact</td><td class="num">3</td>' in page


def test_report_without_disagreements_says_so(tmp_path):
    rows = [r for r in _table() if r["solver"] != "wrong"]
    md = write_report(rows, tmp_path)["markdown"].read_text(encoding="utf-8")
    assert "No run disagrees with its problem's reference." in md
    assert "No route made a wrong claim (a claim our check rejects or the reference contradicts)." in md
    assert "WRONG CLAIMS" not in md


def test_load_table_reads_csv_back(tmp_path):
    pd.DataFrame(_table()).to_csv(tmp_path / "results.csv", index=False)
    table = load_table(tmp_path)
    expected = route_metrics(_table(), time_limit=TIME_LIMIT)
    got = route_metrics(table, time_limit=TIME_LIMIT)
    pd.testing.assert_frame_equal(got, expected)


def test_load_table_prefers_parquet(tmp_path):
    pytest.importorskip("pyarrow", reason="needs the optional extra gaussqp[studies] (pyarrow)")
    df = pd.DataFrame(_table())
    df["agrees_with_reference"] = df["agrees_with_reference"].astype(object)
    df.to_parquet(tmp_path / "results.parquet", index=False)
    pd.DataFrame(_table()[:2]).to_csv(tmp_path / "results.csv", index=False)  # ignored: the Parquet wins
    table = load_table(tmp_path)
    assert len(table) == len(df)
    pd.testing.assert_frame_equal(
        route_metrics(table, time_limit=TIME_LIMIT), route_metrics(_table(), time_limit=TIME_LIMIT)
    )


def test_load_table_without_results_names_the_directory(tmp_path):
    with pytest.raises(FileFormatError, match="results.parquet or results.csv"):
        load_table(tmp_path)


def test_an_empty_table_gives_an_empty_report(tmp_path):
    empty = pd.DataFrame(columns=list(_table()[0]))
    assert route_metrics(empty).empty
    paths = write_report(empty, tmp_path)
    assert "0 runs, 0 problems, 0 routes;" in paths["markdown"].read_text(encoding="utf-8")
    assert paths["profile_time"].read_bytes().startswith(PNG_MAGIC)


def test_a_right_verdict_is_a_success_and_a_wrong_one_a_wrong_claim():
    """Issue #27 item 5: a certified infeasible/unbounded verdict that the reference does not contradict is a
    correct claim (with or without a reference); uncertified or contradicted, it is a wrong claim."""
    base = _row("q", "F", "clarabel", "infeasible", True, True, 1.0, 1e-9, "exact:F/enumeration/high")
    cases = [
        (base, (0, 1, 1, 0)),
        (dict(base, agrees_with_reference=None, reference="none"), (0, 1, 1, 0)),
        (dict(base, status="unbounded"), (0, 1, 1, 0)),
        (dict(base, certified=False), (0, 1, 0, 1)),
        (dict(base, agrees_with_reference=False), (0, 1, 0, 1)),
    ]
    for row, expected in cases:
        m = route_metrics([row]).iloc[0]
        assert (m["honest_failures"], m["success"], m["correct"], m["wrong_claims"]) == expected, row
    # a right verdict is charged its own time, not the penalty, and is on the performance profile
    m = route_metrics([base], time_limit=TIME_LIMIT).iloc[0]
    assert m["sgm_time_seconds"] == pytest.approx(base["solve_time"])
    assert performance_ratios([base]).iloc[0, 0] == 1.0


def test_the_same_problem_id_in_two_sets_is_two_problems():
    rows = _table()
    other = [dict(r, set="other") for r in rows if r["problem"] == "p1"]
    frame = classify(rows + other)
    assert len(frame) == len(rows) + len(other)
    ratios = performance_ratios(rows + other)
    assert len(ratios) == 6 and "other/p1" in ratios.index and "synthetic/p1" in ratios.index
    assert route_metrics(rows + other).set_index("route").loc[A, "runs"] == 6
