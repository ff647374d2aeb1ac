"""Many grasps at once (issue #30 item 1): every batch answer is the one-at-a-time answer; random grasps against an
independent closure test written here; the table, JSON lines, process pool, CLI and bad input."""

from __future__ import annotations

import json
import pathlib
import re

import numpy as np
import pytest

import docs_text  # tests/docs_text.py: a section of the README or the site
from scipy.optimize import linprog

from gaussqp.cli import main as cli
from gaussqp.errors import FileFormatError, UnknownValueError
from gaussqp.grasp import (
    Grasp,
    GraspContact,
    analyze_many,
    dumps,
    epsilon,
    force_closure,
    force_closures,
    grasp_metrics,
    read_jsonl,
    write_jsonl,
    write_table,
)
from gaussqp.problems import grasps as shipped


# ---------------------------------------------------------------------------------------------- grasps
def random_grasp(rng: np.random.Generator, kind: str | None = None) -> Grasp:
    """3–5 contacts on the unit sphere, inward normals tilted at random, μ in [0.2, 1]."""
    m = int(rng.integers(3, 6))
    kind = kind or ("soft" if rng.random() < 0.3 else "hard")
    cs = []
    for _ in range(m):
        p = rng.normal(size=3)
        p /= np.linalg.norm(p)
        n = -p + 0.4 * rng.normal(size=3)
        n /= np.linalg.norm(n)
        cs.append(GraspContact(p, n, float(rng.uniform(0.2, 1.0)), kind, 0.05))
    return Grasp(cs)


def random_grasps(count: int, seed: int, kind: str | None = None) -> list[Grasp]:
    rng = np.random.default_rng(seed)
    return [random_grasp(rng, kind) for _ in range(count)]


# ---------------------------------------------------------------------------------------------- independent test
def _frame(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit tangents of ``n``, built here (QR), not the library's frame."""
    q, _ = np.linalg.qr(np.column_stack([n, np.eye(3)]))
    return q[:, 1], q[:, 2]


def pyramid_wrenches(g: Grasp, edges: int, outer: bool) -> np.ndarray:
    """Hard fingers: the wrenches (f, p × f / L) of a pyramid of ``edges`` edges inscribed in the cone (``outer``
    False) or circumscribed about it (edges at radius μ / cos(π / edges))."""
    cols = []
    r = 1.0 / np.cos(np.pi / edges) if outer else 1.0
    for c in g.contacts:
        t1, t2 = _frame(c.normal)
        for a in 2 * np.pi * np.arange(edges) / edges:
            f = c.normal + c.friction * r * (np.cos(a) * t1 + np.sin(a) * t2)
            cols.append(np.concatenate([f, np.cross(c.position, f) / g.torque_scale]))
    return np.column_stack(cols)


def polyhedral_closure(W: np.ndarray) -> bool:
    """Closure of the cone spanned by the columns of W: full row rank and W α = 0 with every α_j >= 1 (an LP,
    HiGHS through scipy: no cvxpy, no Clarabel)."""
    if np.linalg.matrix_rank(W) < W.shape[0]:
        return False
    res = linprog(
        np.zeros(W.shape[1]), A_eq=W, b_eq=np.zeros(W.shape[0]), bounds=[(1, None)] * W.shape[1], method="highs"
    )
    return res.status == 0


def independent_closure(g: Grasp) -> bool | None:
    """Inscribed pyramid in closure ⇒ closure; circumscribed pyramid not ⇒ no closure; else None (too close)."""
    if polyhedral_closure(pyramid_wrenches(g, 48, outer=False)):
        return True
    if not polyhedral_closure(pyramid_wrenches(g, 48, outer=True)):
        return False
    return None


# ---------------------------------------------------------------------------------------------- batch = single
def assert_same(batch, single) -> None:
    assert batch.holds == single.holds
    assert batch.certified and single.certified
    assert batch.certificate.id == single.certificate.id
    if batch.holds:  # a cheap internal force's least slack is a verified lower bound on the margin program's t*
        assert batch.margin <= single.margin * (1 + 1e-6) + 1e-9 and batch.margin > 0


def test_shipped_grasps_batch_equals_single():
    names = shipped.names()
    gs = [shipped.load(n) for n in names]
    res = analyze_many(gs, checks=("force_closure", "epsilon", "metrics"), facets=8)
    assert [r.index for r in res] == list(range(len(gs))) and [r.name for r in res] == [g.name for g in gs]
    for g, r in zip(gs, res):
        assert_same(r.checks["force_closure"], force_closure(g))
        one = epsilon(g, facets=8, exact=False)
        e = r.checks["epsilon"]
        assert e.holds == one.holds and e.certified == one.certified
        for k in ("lower", "upper"):
            assert abs(e.value[k] - one.value[k]) <= 1e-9 * max(1.0, abs(one.value[k]))
        m = r.checks["metrics"]
        s = np.linalg.svd(g.grasp_map(), compute_uv=False)
        assert m.value["sigma_min"] == pytest.approx(
            s[g.wrench_dimension - 1] if s.size >= g.wrench_dimension else 0.0, rel=1e-12, abs=1e-15
        )
        assert 0 <= m.value["isotropy"] <= 1
        assert m.value["volume_lower"] <= m.value["volume_upper"] * (1 + 1e-9)


def test_random_grasps_batch_equals_single_and_the_independent_test():
    gs = random_grasps(300, seed=30)
    batch = force_closures(gs)
    assert {c.value["decided_by"] for c in batch} <= {"rank", "projection", "clarabel", "cvxpy"}
    decided = {True: 0, False: 0}
    for g, b in zip(gs, batch):
        assert b.certified
        ind = independent_closure(g) if all(c.kind == "hard" for c in g.contacts) else None
        if ind is not None:
            assert b.holds == ind
            decided[ind] += 1
    assert decided[True] > 30 and decided[False] > 30  # both verdicts were checked independently
    for g, b in zip(gs[:120], batch[:120]):  # the cvxpy path takes ~15 ms a grasp
        assert_same(b, force_closure(g))


def test_every_route_of_the_batch_gives_the_single_answer():
    """No sweep (only the first projected point, then Clarabel), and many sweeps (Clarabel rare)."""
    gs = random_grasps(60, seed=7)
    single = [force_closure(g) for g in gs]
    for kw in ({"iterations": 0}, {"iterations": 200, "shrink": 0.99}):
        batch = force_closures(gs, **kw)
        for b, s in zip(batch, single):
            assert_same(b, s)
    assert "clarabel" in {c.value["decided_by"] for c in force_closures(gs, iterations=0)}


def test_rank_deficient_and_planar_grasps():
    pair = Grasp([GraspContact([-1.0, 0, 0], [1.0, 0, 0], 0.5), GraspContact([1.0, 0, 0], [-1.0, 0, 0], 0.5)])
    planar = Grasp([GraspContact([-1.0, 0], [1.0, 0], 0.5), GraspContact([1.0, 0], [-1.0, 0], 0.5)])
    frictionless = Grasp(
        [
            GraspContact(p, -np.array(p), 0.0, "frictionless")
            for p in ([1.0, 0, 0], [-1.0, 0, 0], [0, 1.0, 0], [0, -1.0, 0])
        ]
    )
    gs = [pair, planar, frictionless, pair]
    for g, b in zip(gs, force_closures(gs)):
        assert_same(b, force_closure(g))
    assert force_closures([pair])[0].value["decided_by"] == "rank"


def test_single_force_closure_goes_to_clarabel_directly(monkeypatch):
    """With no solver named, ``force_closure`` answers the random grasps without cvxpy (its programs are watched) and
    every grasp with the verdict and certificate id of the cvxpy path (Clarabel through cvxpy, named); the margin of
    a closure is the same ``t*`` to the solvers' accuracy. A candidate that does not verify may still go to cvxpy
    (the shipped frictionless fixture that misses form closure sits on the boundary, ``t* = 0``)."""
    import gaussqp.grasp.closure as closure

    random = random_grasps(60, seed=21)
    gs = random + [shipped.load(n) for n in shipped.names()]
    via_cvxpy = [force_closure(g, solver="CLARABEL") for g in gs]
    calls: list = []
    for name in ("_interior", "_unresisted_wrench"):
        original = getattr(closure, name)
        monkeypatch.setattr(closure, name, lambda *a, _f=original, **k: calls.append(a) or _f(*a, **k))
    for k, (g, old) in enumerate(zip(gs, via_cvxpy)):
        before = len(calls)
        new = force_closure(g)
        assert k >= len(random) or len(calls) == before, f"random grasp {k} went to cvxpy"
        assert new.holds == old.holds and new.certified and old.certified
        assert new.certificate.id == old.certificate.id
        if new.holds:
            assert new.margin == pytest.approx(old.margin, rel=1e-5, abs=1e-7)


def test_metrics_are_the_definitions():
    g = shipped.load(shipped.names()[0])
    m = grasp_metrics(g, facets=8)
    s = np.linalg.svd(g.grasp_map(), compute_uv=False)
    assert m.holds is None and m.value["sigma_max"] == pytest.approx(s[0])
    assert m.value["isotropy"] == pytest.approx(m.value["sigma_min"] / s[0])
    from scipy.spatial import ConvexHull

    for kind in ("inner", "outer"):  # the polytopes' volumes, qhull's on all their points
        W, _ = g.primitive_wrenches(8, kind)
        hull = ConvexHull(np.column_stack([np.zeros(W.shape[0]), W]).T)
        assert m.value[f"volume_{'lower' if kind == 'inner' else 'upper'}"] == pytest.approx(hull.volume)


# ---------------------------------------------------------------------------------------------- pool, files, CLI
def test_process_pool_keeps_input_order(monkeypatch):
    import gaussqp.grasp.batch as batch

    gs = random_grasps(40, seed=3)
    monkeypatch.setattr(batch, "GRASP_BATCH_POOL_MIN", 10)
    pooled = analyze_many(gs, workers=2, chunk=7)
    local = analyze_many(gs)
    assert [r.index for r in pooled] == list(range(40))
    assert [r.checks["force_closure"].holds for r in pooled] == [r.checks["force_closure"].holds for r in local]


def test_dask_client_keeps_input_order_and_answers():
    distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed (extra gaussqp[dask])")
    gs = random_grasps(23, seed=5)
    local = analyze_many(gs, checks=("force_closure", "epsilon"), facets=8)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        remote = analyze_many(gs, checks=("force_closure", "epsilon"), facets=8, client=client, chunk=4)
    assert [r.index for r in remote] == list(range(len(gs))) and [r.name for r in remote] == [g.name for g in gs]
    for r, o in zip(remote, local):
        for check in ("force_closure", "epsilon"):
            a, b = r.checks[check], o.checks[check]
            assert a.holds == b.holds and a.certified == b.certified and a.certificate.id == b.certificate.id
        for k in ("lower", "upper"):
            assert r.checks["epsilon"].value[k] == pytest.approx(o.checks["epsilon"].value[k], abs=1e-9)


def test_dask_options_are_checked():
    with pytest.raises(UnknownValueError, match="scheduler"):
        analyze_many(random_grasps(2, seed=1), scheduler="local", client=object())


def _jsonl(tmp_path, gs) -> pathlib.Path:
    p = tmp_path / "grasps.jsonl"
    p.write_text("".join(dumps(g, indent=None) + "\n" for g in gs), encoding="utf-8")
    return p


def test_jsonl_table_and_lines(tmp_path):
    gs = random_grasps(12, seed=5)
    p = _jsonl(tmp_path, gs)
    back = read_jsonl(p)
    assert len(back) == 12 and back[3].name == "grasps:4"
    res = analyze_many(back, checks=["force_closure", "metrics"], facets=8)
    write_table(res, tmp_path / "out.csv")
    write_jsonl(res, tmp_path / "out.jsonl")
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert len(lines) == 13 and lines[0].startswith("index,grasp,contacts")
    objs = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [o["index"] for o in objs] == list(range(12))
    assert all(o["force_closure"]["certificate"]["id"].startswith("grasp_force_closure") for o in objs)


def test_parquet_table(tmp_path):
    pd = pytest.importorskip("pandas", reason="needs pandas and pyarrow (the optional extra gaussqp[studies])")
    pytest.importorskip("pyarrow", reason="needs pyarrow (the optional extra gaussqp[studies])")
    res = analyze_many(random_grasps(5, seed=2))
    write_table(res, tmp_path / "out.parquet")
    df = pd.read_parquet(tmp_path / "out.parquet")
    assert list(df["index"]) == list(range(5)) and df["force_closure_certified"].all()


def test_cli_batch(tmp_path, capsys):
    gs = random_grasps(6, seed=11)
    p = _jsonl(tmp_path, gs)
    assert (
        cli(
            [
                "grasp",
                str(p),
                "--batch",
                "--quiet",
                "--table",
                str(tmp_path / "t.csv"),
                "--jsonl",
                str(tmp_path / "r.jsonl"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("6 grasps, ") and "6 certified" in out[0]
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 6
    assert cli(["grasp", str(p), "--batch", "--quiet", "--jsonl", "-"]) == 0
    assert [json.loads(x)["index"] for x in capsys.readouterr().out.splitlines()] == list(range(6))
    d = tmp_path / "dir"
    d.mkdir()
    for i, g in enumerate(gs[:3]):
        (d / f"g{i}.json").write_text(dumps(g), encoding="utf-8")
    assert cli(["grasp", str(d), "--batch", "--quiet", "--checks", "force_closure,epsilon"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[0].split()[1] == "g0:" and "ε [" in out[0]


def test_cli_batch_on_a_local_dask_cluster(tmp_path, capsys):
    pytest.importorskip("distributed", reason="Dask distributed is not installed (extra gaussqp[dask])")
    gs = random_grasps(5, seed=12)
    p = _jsonl(tmp_path, gs)
    assert cli(["grasp", str(p), "--batch", "--quiet", "--jsonl", "-"]) == 0
    want = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    args = ["grasp", str(p), "--batch", "--quiet", "--jsonl", "-", "--scheduler", "local", "--workers", "1"]
    assert cli(args) == 0
    got = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["index"] for r in got] == list(range(5))
    assert [r["force_closure"]["holds"] for r in got] == [r["force_closure"]["holds"] for r in want]


# ---------------------------------------------------------------------------------------------- bad input
def test_malformed_jsonl_line_names_its_number(tmp_path, capsys):
    gs = random_grasps(3, seed=1)
    p = tmp_path / "bad.jsonl"
    p.write_text(
        dumps(gs[0], indent=None) + "\n\n" + '{"format": "gaussqp-grasp/1", "contacts": 3}\n', encoding="utf-8"
    )
    with pytest.raises(FileFormatError, match=r"bad\.jsonl:3.*fix line 3"):
        read_jsonl(p)
    p.write_text(dumps(gs[0], indent=None) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(FileFormatError, match=r"bad\.jsonl:2"):
        read_jsonl(p)
    assert cli(["grasp", str(p), "--batch", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.jsonl:2" in err[0]


def test_bad_arguments():
    g = random_grasps(1, seed=0)
    with pytest.raises(UnknownValueError, match="checks.*force_closure"):
        analyze_many(g, checks=["closure"])
    with pytest.raises(UnknownValueError, match=r"grasps\[1\]"):
        analyze_many([g[0], "not a grasp"])
    with pytest.raises(UnknownValueError, match="workers"):
        analyze_many(g, workers=0)


def test_readme_batch_example_runs(capsys):
    section = docs_text.section("Many grasps at once")  # the grasps page of the site
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    assert len(code.strip().splitlines()) <= 10
    exec(compile(code, "docs[grasp batch]", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    said = re.search(r"It prints `(.*?)`", section)
    assert said and said.group(1) == out[0]


def test_progress_bar(capsys):
    analyze_many(random_grasps(3, seed=4), progress=True)
    assert "analyze_many" in capsys.readouterr().err
    analyze_many(random_grasps(3, seed=4), progress=False)
    assert capsys.readouterr().err == ""


def test_stacked_verification_is_the_one_by_one_verification():
    """``force_closures_from`` (the rank SVDs of a structure stacked) answers bit for bit as ``force_closure_from``
    grasp by grasp, on the candidates the batch found."""
    from gaussqp.grasp.closure import force_closure_from, force_closures_from

    gs = random_grasps(80, seed=12)
    batch = force_closures(gs)
    xs = [c.value.get("internal_force") for c in batch]
    ys = [c.value.get("unresisted_wrench_scaled") for c in batch]
    many = force_closures_from(gs, xs, ys)
    for g, x, y, c in zip(gs, xs, ys, many):
        one = force_closure_from(g, internal_force=x, unresisted_wrench=y)
        assert c.holds == one.holds and c.certificate.id == one.certificate.id and c.margin == one.margin
        assert c.value.get("sigma_min") == one.value.get("sigma_min")
