"""Cross-validation studies, the running half (issue #14): sets, routes, runs in worker processes with a time
limit, the reference and the gaps, the stored table and resuming, Dask distributed."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from gaussqp.errors import FileFormatError, UnknownFormulationError, UnknownValueError
from gaussqp.formulations import FORMULATIONS, register
from gaussqp.formulations.gauss_qp import GaussQP
from gaussqp.studies import (
    COLUMNS,
    FamilySet,
    LibrarySet,
    ResultsStore,
    parse_set,
    read_table,
    routes_for,
    run_stats,
    run_study,
)
from gaussqp.studies.runner import pack, unpack
from gaussqp.studies.sets import FAMILY_KINDS, class_key, problem_size

FORMS = ["gauss_qp", "lcp_lemke", "sliding_enumeration"]


class SleepyQP(GaussQP):
    """Test double: F1 that sleeps far past any time limit before solving."""

    name = "sleepy_qp"

    def _solve(self, problem, solver, tol):
        time.sleep(30)
        return super()._solve(problem, solver, tol)


class BrokenQP(GaussQP):
    """Test double: a broken backend that returns a wrong acceleration (shifted by one in every coordinate) with
    the status ``solved`` and the certificates of the right answer: only the comparison with the reference can
    catch it."""

    name = "broken_qp"

    def solve(self, problem, solver=None, tolerance=None, verdict=True):
        sol = super().solve(problem, solver=solver, tolerance=tolerance, verdict=verdict)
        if sol.acceleration is not None:
            sol.acceleration = sol.acceleration + 1
        return sol


@pytest.fixture
def registered():
    """Register the test doubles for one test and remove them after."""
    added = [register(SleepyQP()), register(BrokenQP())]
    yield
    for f in added:
        FORMULATIONS.pop(f.name, None)


def _rows(df):
    return df.to_dict("records") if hasattr(df, "to_dict") else list(df)


# --- sets ------------------------------------------------------------------------------------------------------


def test_family_set_is_deterministic_cycles_the_kinds_and_is_a_prefix_of_a_larger_set():
    a = list(FamilySet(14, 3))
    b = list(FamilySet(14, 3))
    c = list(FamilySet(21, 3))
    assert [pid for pid, _ in a] == [f"{FAMILY_KINDS[i % 7]}_{i}" for i in range(14)]
    for (pa, p), (pb, q), (pc, r) in zip(a, b, c):
        assert pa == pb == pc
        assert np.array_equal(p.M, q.M) and np.array_equal(p.F, r.F)
    assert not np.array_equal(a[0][1].F, next(iter(FamilySet(1, 4)))[1].F)
    keys = {pid.split("_")[0]: class_key(p) for pid, p in a}
    assert keys["singular"].startswith("singular/") and keys["unbounded"].startswith("singular/")
    assert keys["sticking"].endswith("/sticking") and keys["sliding"].endswith("/sliding")


def test_filters_by_system_class_and_size():
    full = list(LibrarySet())
    sliding = list(LibrarySet(system_class="definite/unilateral/sliding"))
    assert sliding and all(class_key(p) == "definite/unilateral/sliding" for _, p in sliding)
    assert len(sliding) < len(full)
    small = list(LibrarySet(max_n=3, max_m=2))
    assert small and all(problem_size(p)[0] <= 3 and problem_size(p)[1] <= 2 for _, p in small)
    assert {pid for pid, _ in small} < {pid for pid, _ in full}
    with pytest.raises(UnknownValueError, match="max_n"):
        LibrarySet(max_n=-1)


def test_parse_set_forms_and_errors(tmp_path):
    assert parse_set("library").name == "library"
    assert parse_set("families").name.startswith("families:")
    assert parse_set("families:12:5").name == "families:12:5"
    for bad in ("families:x", "families:1:2:3"):
        with pytest.raises(UnknownValueError, match="families"):
            parse_set(bad)
    with pytest.raises(FileFormatError, match="set"):
        parse_set(str(tmp_path / "missing"))
    with pytest.raises(FileFormatError, match="no .json"):
        parse_set(str(tmp_path))
    from gaussqp.io.gaussqp_format import dump

    for pid, p in FamilySet(3, 0):
        dump(p, tmp_path / f"{pid}.json")
    (tmp_path / "broken.json").write_text("{not json")
    s = parse_set(str(tmp_path))
    got = [pid for pid, _ in s]
    assert got == sorted(f"{pid}.json" for pid, _ in FamilySet(3, 0))
    assert "broken.json" in s.skipped  # a file the reader refuses is on record, not a crash


def test_fclib_set_reads_global_and_local_files_and_records_the_rest():
    pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib]")
    from pathlib import Path

    s = parse_set(str(Path(__file__).resolve().parents[1] / "data" / "fclib"), max_n=500)
    items = list(s)
    assert any(class_key(p) == "local" for _, p in items)
    assert any(class_key(p).endswith("/coulomb") for _, p in items)
    assert any("rolling" in why for why in s.skipped.values())
    local = next(p for _, p in items if class_key(p) == "local")
    assert {r.formulation for r in routes_for(local)} == {"coulomb_fixed_point"}
    assert np.array_equal(unpack(pack(local)).q, local.q)


def test_pack_is_arrays_and_unpack_rebuilds_the_same_global_problem():
    """The packed form is the NPZ members (arrays, cheap to rebuild), not the JSON form, whose validation took
    seconds on a large FCLIB file and was counted against the run's time limit."""
    from gaussqp import problems

    p = problems.load("real/quadruped_standing")  # sparse J, mixed modes
    data = pack(p)
    assert all(isinstance(v, np.ndarray) for v in data.values())
    q = unpack(data)
    assert q.name == p.name and list(q.types) == list(p.types) and list(q.modes) == list(p.modes)
    for a, b in ((q.M, p.M), (q.J_n, p.J_n), (q.J_t, p.J_t)):
        assert np.array_equal(
            np.asarray(a.todense() if hasattr(a, "todense") else a),
            np.asarray(b.todense() if hasattr(b, "todense") else b),
        )
    assert np.array_equal(q.F, p.F) and np.array_equal(q.friction, p.friction)


# --- routes ----------------------------------------------------------------------------------------------------


def test_routes_every_accepting_formulation_times_backends_and_tolerances():
    from gaussqp import problems

    rod = problems.load("painleve_rod")  # sliding: only the F6 routes, without backend
    r = routes_for(rod, tolerances=("high", "low"))
    assert {x.formulation for x in r} >= {"sliding_lcp", "sliding_enumeration"}
    assert all(x.solver in ("direct", "enumeration") for x in r)
    assert {x.tolerance for x in r} == {"high", "low"}
    block = problems.load("hyperstatic_block")
    r = routes_for(block, formulations=["gauss_qp", "lcp_lemke"], solvers=["clarabel", "direct"])
    assert [(x.formulation, x.solver) for x in r] == [("gauss_qp", "clarabel"), ("lcp_lemke", "direct")]
    assert not any(x.formulation.startswith("facetized") for x in routes_for(block))
    assert any(x.formulation.startswith("facetized") for x in routes_for(block, facetized=True))
    with pytest.raises(UnknownFormulationError, match="nope"):
        routes_for(block, formulations=["nope"])
    with pytest.raises(UnknownValueError, match="tolerances"):
        routes_for(block, tolerances=("ultra",))


# --- a study end to end, resume, time limit, a broken route ---------------------------------------------------


def test_small_study_end_to_end_then_resume_recomputes_nothing(tmp_path):
    pytest.importorskip("pandas", reason="the results as a DataFrame need the optional extra gaussqp[studies]")
    out = tmp_path / "study"
    df = run_study("library", formulations=FORMS, out=out, workers=2, time_limit=60, progress=False)
    df2 = run_study(FamilySet(30, 0), formulations=FORMS, out=out, workers=2, time_limit=60, progress=False)
    rows = _rows(df2)
    assert list(df2.columns) == list(COLUMNS)
    assert {r["set"] for r in rows} == {"library", "families:30:0"}
    assert len(rows) == len(_rows(df)) + run_stats["runs"] and run_stats["runs"] > 30
    table = read_table(out)
    assert len(table) == len(rows)
    assert (out / "results.jsonl").read_text().count("\n") == len(rows)
    for r in rows:
        claim = r["claimed_success"] or r["status"] in ("infeasible", "unbounded")  # a right verdict is correct too
        assert r["correct"] == (claim and r["certified"] and r["agrees_with_reference"] is not False)
        assert r["claimed_success"] == (r["status"] == "solved")
        assert r["command"].startswith("gaussqp solve ") and f"--formulation {r['formulation']}" in r["command"]
        if r["reference"].startswith("exact:") and r["formulation"] == r["reference"][6:]:
            assert r["agrees_with_reference"] is True
    # every route of this set agrees with the reference it has; each problem has one, exact or by consensus
    assert not [r for r in rows if r["agrees_with_reference"] is False]
    refs = {r["reference"] for r in rows}
    # a problem without any certified run has no reference (real/walker_lying: sticking, where F1 and Lemke's forces
    # leave the disks, so neither answers it, as gaussqp solve says; sticking_socp is not among FORMS)
    for r in rows:
        if r["reference"] == "none":
            assert not any(x["certified"] for x in rows if x["problem"] == r["problem"] and x["set"] == r["set"])
    assert {"exact:lcp_lemke", "exact:sliding_enumeration"} <= refs
    assert any(x.startswith("consensus:") for x in refs)
    statuses = {r["status"] for r in rows if r["set"] != "library"}
    assert {"solved", "infeasible", "unbounded"} <= statuses
    # each family problem's command reads the problem file the study wrote
    fam = next(r for r in rows if r["problem"].startswith("singular_"))
    assert (out / "problems" / "families_30_0" / "singular_1.json").exists()
    assert str((out / "problems" / "families_30_0" / "singular_1.json").resolve()) in fam["command"]
    # resume: nothing recomputed, same table
    df3 = run_study(FamilySet(30, 0), formulations=FORMS, out=out, workers=2, time_limit=60, progress=False)
    assert run_stats["runs"] == 0
    key = ["set", "problem", "formulation", "solver", "tolerance", "status", "reference", "agrees_with_reference"]
    assert sorted(tuple(str(r[k]) for k in key) for r in _rows(df3)) == sorted(
        tuple(str(r[k]) for k in key) for r in rows
    )
    # a killed study's line, cut short, is run again rather than trusted
    text = (out / "results.jsonl").read_text().splitlines()
    i = next(i for i, line in enumerate(text) if '"families:30:0"' in line)
    text[i] = text[i][:40]
    (out / "results.jsonl").write_text("\n".join(text) + "\n")
    run_study(FamilySet(30, 0), formulations=FORMS, out=out, workers=1, time_limit=60, progress=False)
    assert run_stats["runs"] == 1


def test_time_limit_records_timeout_rows_and_the_study_goes_on(tmp_path, registered):
    t0 = time.perf_counter()
    df = run_study(
        FamilySet(3, 0, kinds=("frictionless",)),
        formulations=["sleepy_qp", "lcp_lemke"],
        solvers=["clarabel", "direct"],
        out=tmp_path,
        workers=2,
        time_limit=1.5,
        progress=False,
    )
    rows = _rows(df)
    sleepy = [r for r in rows if r["formulation"] == "sleepy_qp"]
    lemke = [r for r in rows if r["formulation"] == "lcp_lemke"]
    assert len(sleepy) == 3 and all(r["status"] == "timeout" for r in sleepy)
    assert all(not r["correct"] and r["honest_failure"] and "time limit" in r["error"] for r in sleepy)
    assert len(lemke) == 3 and all(r["status"] == "solved" and r["correct"] for r in lemke)
    assert time.perf_counter() - t0 < 25  # killed at the limit, not waited for (each sleeps 30 s)


def test_broken_backend_is_caught_by_the_reference(tmp_path, registered):
    df = run_study(
        FamilySet(14, 2, kinds=("frictionless", "redundant", "sticking")),
        formulations=["gauss_qp", "lcp_lemke", "broken_qp"],
        solvers=["clarabel", "direct"],
        out=tmp_path,
        workers=2,
        time_limit=60,
        progress=False,
    )
    rows = _rows(df)
    broken = [r for r in rows if r["formulation"] == "broken_qp" and r["reference"].startswith("exact:")]
    assert len(broken) >= 10
    assert all(r["claimed_success"] and r["certified"] for r in broken)  # it lies: solved, with certificates
    assert all(r["agrees_with_reference"] is False and not r["correct"] for r in broken)
    assert all(r["acceleration_gap"] > 1e-3 for r in broken)
    # F1's certified answers all agree; on a sticking problem whose F1 forces leave the disks its 'solved' is withdrawn,
    # as gaussqp solve --formulation gauss_qp withdraws it (not an answer of the sticking problem)
    honest = [r for r in rows if r["formulation"] == "gauss_qp" and r["certified"]]
    assert honest and all(r["agrees_with_reference"] is True and r["correct"] for r in honest)
    withdrawn = [r for r in rows if r["formulation"] == "gauss_qp" and not r["certified"]]
    assert all(r["status"] == "inaccurate" and r["problem"].startswith("sticking_") for r in withdrawn)


def test_csv_without_pandas_round_trips(tmp_path, monkeypatch):
    import gaussqp.studies.store as store

    monkeypatch.setattr(store, "has_pandas", lambda: False)
    df = run_study(FamilySet(7, 0), formulations=["lcp_lemke"], out=tmp_path, workers=1, progress=False)
    assert (tmp_path / "results.csv").exists() and not (tmp_path / "results.parquet").exists()
    back = read_table(tmp_path)
    rows = _rows(df)
    assert len(back) == len(rows) == 4  # lcp_lemke accepts the 4 problems with M ≻ 0 of the 7
    for a, b in zip(sorted(back, key=lambda r: r["problem"]), sorted(rows, key=lambda r: r["problem"])):
        assert a["status"] == b["status"] and a["certified"] is b["certified"]
        # certified, or withdrawn where Lemke's forces leave the disks of a sticking problem (as gaussqp solve does)
        assert a["certified"] or (a["status"] == "inaccurate" and a["problem"].startswith("sticking_"))
        assert a["agrees_with_reference"] is b["agrees_with_reference"]
        assert (math.isnan(a["acceleration_gap"]) and math.isnan(b["acceleration_gap"])) or a["acceleration_gap"] == b[
            "acceleration_gap"
        ]
    assert json.loads(back[0]["answer"])["acceleration"] is None or len(json.loads(back[0]["answer"])["acceleration"])
    assert ResultsStore(tmp_path).load()  # the journal


def test_bad_options_are_typed_errors(tmp_path):
    with pytest.raises(UnknownValueError, match="workers"):
        run_study("library", workers=0, out=tmp_path)
    with pytest.raises(UnknownValueError, match="time_limit"):
        run_study("library", time_limit=-1, out=tmp_path)
    with pytest.raises(UnknownFormulationError):
        run_study("library", formulations=["nope"], out=tmp_path)
    (tmp_path / "file").write_text("")
    with pytest.raises(FileFormatError, match="out"):
        run_study("library", out=tmp_path / "file")


# --- Dask distributed --------------------------------------------------------------------------------------------


def test_dask_local_cluster_equals_the_process_pool(tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs the optional extra gaussqp[dask]")
    s = FamilySet(14, 5)
    pool = _rows(run_study(s, formulations=FORMS, out=tmp_path / "pool", workers=2, progress=False))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        dask = _rows(
            run_study(s, formulations=FORMS, out=tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False)
        )
    assert run_stats["runs"] == len(dask) == len(pool) > 14

    def key(r):
        return (r["problem"], r["formulation"], r["solver"], r["tolerance"])

    a, b = sorted(pool, key=key), sorted(dask, key=key)
    for x, y in zip(a, b):
        assert key(x) == key(y)
        for c in ("status", "certified", "reference", "agrees_with_reference", "correct", "certificates"):
            assert x[c] == y[c], (key(x), c)
        for c in ("acceleration_gap", "generalized_force_gap"):
            assert (math.isnan(x[c]) and math.isnan(y[c])) or x[c] == pytest.approx(y[c], abs=1e-12), (key(x), c)


def test_a_route_without_the_disks_has_the_verdict_of_gaussqp_solve(tmp_path):
    """A planar box on two sticking contacts pushed by 12 N > μ m g = 7.85 N (found by a new user's trial): F1 and the
    LCP route state the sticking contacts as equalities and return forces outside the disks. ``gaussqp solve
    --formulation lcp_lemke`` withdraws that ``solved``; a study's run did not, took the route as the exact reference
    and called the right ``infeasible`` of ``sticking_socp`` a wrong claim. The run's verdict is the command's."""
    pytest.importorskip("pandas", reason="the results as a DataFrame need the optional extra gaussqp[studies]")
    import gaussqp
    from gaussqp import Contact, ContactProblem

    mu, m, push = 0.4, 2.0, 12.0
    contacts = [
        Contact("unilateral", normal=[0.0, 1.0, s * 0.5], friction=mu, mode="sticking", tangent=[[1.0, 0.0, 0.25]])
        for s in (-1.0, 1.0)
    ]
    p = ContactProblem(np.diag([m, m, 0.5]), [-push, m * 9.81, 0.0], contacts, dimension=2, name="box_push_12")
    assert gaussqp.solve(p, formulation="lcp_lemke", crosscheck=False).status == "inaccurate"
    assert gaussqp.solve(p, formulation="sticking_socp", crosscheck=False).status == "infeasible"
    folder = tmp_path / "set"
    folder.mkdir()
    gaussqp.dump(p, folder / "box.json")
    df = run_study(
        str(folder), formulations=["lcp_lemke", "sticking_socp"], out=tmp_path / "out", workers=1, progress=False
    )
    rows = {r["formulation"]: r for r in _rows(df)}
    assert rows["lcp_lemke"]["status"] == "inaccurate" and not rows["lcp_lemke"]["correct"]
    assert rows["sticking_socp"]["status"] == "infeasible" and rows["sticking_socp"]["correct"]
    assert not rows["lcp_lemke"]["reference"].startswith("exact:lcp_lemke")


def test_what_a_process_does_once_is_not_a_runs_time(monkeypatch):
    """Before its first timed run a process compiles or loads the compiled kernels and the routes' lazy imports
    (``runner.warm_process``, untimed): a study's first mode-free run was charged 6.9 s of numba's compilation where its
    solve takes 10 ms (a new user's trial). A run goes through it before its clock starts; after it the kernels are
    loaded."""
    import gaussqp.studies.runner as runner
    from gaussqp.studies.routes import Route

    _, problem = next(iter(FamilySet(1, 0)))
    order = []
    monkeypatch.setattr(runner, "warm_process", lambda: order.append("warm"))
    monkeypatch.setattr(runner.time, "perf_counter", lambda f=time.perf_counter: order.append("clock") or f())
    route = Route("gauss_qp", "clarabel", "high")
    task = runner.Task("s", "p", pack(problem), route, FORMULATIONS["gauss_qp"], "gaussqp solve p")
    row = runner.run_task(task)
    assert row["status"] == "solved" and order[0] == "warm" and "clock" in order
    monkeypatch.undo()
    # a warm-up that fails is only a warm-up: the run goes on (and fails in its own row if the route does)
    runner.warm_process.cache_clear()
    monkeypatch.setattr(runner, "_warm_routes", lambda: 1 / 0)
    runner.warm_process()
    assert runner.run_task(task)["status"] == "solved"


def test_the_warm_up_loads_the_newton_kernels_at_the_routes_argument_types():
    """The warm-up's point mass converges at its start, so its solves never called the Newton matrix or a line search;
    a study's first problem that iterates then loaded them (~0.25 s, CubeH8's first run: 130 ms against 11 ms). The
    warm-up runs a dense and a sparse Newton that iterate: every kernel is loaded, and a dense and a sparse Newton run
    after it add no compiled signature to any kernel (the routes' argument types)."""
    import gaussqp.studies.runner as runner
    from gaussqp.friction import nonsmooth_newton as nn
    from gaussqp.friction.compiled import kernels

    fast = kernels()
    if fast is None:
        pytest.skip("numba is not installed: pip install 'gaussqp[fast]'")
    runner._warm_routes()
    names = ("maps_at", "jacobian_blocks", "newton_loop", "csr_velocity", "line_search_csr")
    before = {k: len(getattr(fast, k).signatures) for k in names}
    assert all(before.values())
    rng = np.random.default_rng(3)
    R = rng.normal(size=(30, 20))
    dense = nn.solve_newton(R @ R.T, rng.normal(size=30), np.full(10, 0.5), 3, max_iter=5, r0=np.zeros(30))
    import scipy.sparse as sp

    W = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(300, 300), format="csr")  # sparse, above the dense size
    sparse = nn.solve_newton(W, rng.normal(size=300), np.full(100, 0.5), 3, max_iter=5)
    assert dense.linear_algebra == "dense" and sparse.linear_algebra == "sparse"
    assert dense.iterations and sparse.iterations
    assert {k: len(getattr(fast, k).signatures) for k in names} == before
