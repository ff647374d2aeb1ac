"""MuJoCo verdict study (issue #25): resting and sliding scenes, every accepting route, contradictions and wrong claims.

Scenes (MJCF strings below, built for this study):

* ``ramp``: a box (m = 1, half-size 0.1, μ) on a plane tilted by θ about y, settled N MuJoCo steps. Closed form
  (rigid, ``drift="jacdot"``): sticking contacts need μ >= tan θ and then ``a = 0``; a box sliding with slip
  direction s (unit, in the ramp plane) has linear acceleration ``g sin θ d − μ g cos θ s`` (``d`` the downhill unit
  vector) and no angular acceleration while μ ≤ 1 (the cube's half-width over its half-height: beyond, the moment
  of friction about the centre tips it onto its front edge, and there is no closed form here); mode-free Coulomb at rest: ``a = 0`` when μ > tan θ, else
  ``g (sin θ − μ cos θ) d``.
* ``box``: a box resting on a plane (4 corner contacts): ``a = 0``.
* ``table``: one body, a top and four leg geoms, on a plane: ``a = 0``.
* ``stack``: three boxes stacked on a plane (12 contacts, 3 bodies): ``a = 0``.
* ``repro_tilted_box``: tests/data/verdicts/wrongclaim_tilted_box_0.json (the issue's reproducer) (θ = 20°, μ = 0.8: must stick).

Each state is imported by :func:`gaussqp.io.mujoco.import_mujoco` under the importer's choices: modes from the state
(default), every contact ``"sticking"``, every contact ``"coulomb"``; ``drift="jacdot"`` (default) and
``drift="mujoco"``. Each imported problem is solved by the default route (tolerance presets high, mid, low) and by
every formulation of :data:`gaussqp.formulations.FORMULATIONS` that accepts it (high). Per problem:

(i)  contradicting certified verdicts across routes: one certified ``solved``, another certified ``infeasible`` or
     ``unbounded``; or two certified ``solved`` whose accelerations differ by more than ``ATOL_REL`` (in
     ``S = diag(M)^(-1/2)``-equilibrated units, relative to ``max(|S⁻¹a|, |S F|)``), neither saying the acceleration
     is not unique. A polygon (F5) solves another problem than the disks': its status contradicts only in its
     bracket's direction (the inscribed polygon solvable where the disks are not, the circumscribed one infeasible
     where the disks are solvable), and a facetized-law enumeration's status is compared with nothing;
(ii) wrong claims: a certified answer contradicting the closed form (``drift="jacdot"`` only: MuJoCo's Baumgarte
     reference adds a penetration correction that the closed form does not have): a certified ``infeasible`` where
     the closed form has a solution, a certified ``solved`` where it has none, or an acceleration off by more than
     ``CLOSED_TOL`` g.

Also runs ``gaussqp crossval mujoco:SCENE.xml:COUNT`` on each scene (``--crossval``) and records its wrong claims.

Usage::

    python benchmarks/mujoco_verdicts.py [--json OUT] [--quick] [--crossval]

Exit code 1 when any contradiction or wrong claim is found.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp.formulations import FORMULATIONS, get_formulation  # noqa: E402
from gaussqp.problems.mjcf_scenes import ramp_xml  # noqa: E402

G = 9.81
ATOL_REL = 1e-5
CLOSED_TOL = 1e-3  # in units of g
#: a sliding cube (half-width = half-height) translates only while μ ≤ 1: the rear contacts carry
#: N (1 − μ h / w) / 2 ≥ 0 (moment balance about the centre)
CUBE_TIPS_ABOVE_MU = 1.0
REPRO = Path(__file__).resolve().parents[1] / "tests" / "data" / "verdicts" / "wrongclaim_tilted_box_0.json"
CERT_STATUSES = ("solved", "infeasible", "unbounded")


BOX_XML = f"""<mujoco model="box">
  <option gravity="0 0 -{G}" timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="0.6 0.005 0.0001"/>
    <body name="box" pos="0 0 0.1001">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.15 0.1" mass="2" friction="0.6 0.005 0.0001"/>
    </body>
  </worldbody>
</mujoco>"""

TABLE_XML = f"""<mujoco model="table">
  <option gravity="0 0 -{G}" timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="0.7 0.005 0.0001"/>
    <body name="table" pos="0 0 0.5001">
      <freejoint/>
      <geom name="top" type="box" size="0.4 0.3 0.02" pos="0 0 0.23" mass="5"/>
      <geom name="leg1" type="box" size="0.02 0.02 0.25" pos="0.35 0.25 0" mass="0.5"/>
      <geom name="leg2" type="box" size="0.02 0.02 0.25" pos="-0.35 0.25 0" mass="0.5"/>
      <geom name="leg3" type="box" size="0.02 0.02 0.25" pos="0.35 -0.25 0" mass="0.5"/>
      <geom name="leg4" type="box" size="0.02 0.02 0.25" pos="-0.35 -0.25 0" mass="0.5"/>
    </body>
  </worldbody>
</mujoco>"""

STACK_XML = f"""<mujoco model="stack">
  <option gravity="0 0 -{G}" timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="0.8 0.005 0.0001"/>
    <body name="b1" pos="0 0 0.1001"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="b2" pos="0 0 0.3003"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="b3" pos="0 0 0.5005"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
  </worldbody>
</mujoco>"""


def scenes(quick: bool):
    """(scene id, xml, settle steps, info) — info carries what the closed form needs."""
    thetas = [10.0, 20.0, 30.0] if not quick else [20.0]
    factors = [0.5, 0.9, 1.1, 2.0] if not quick else [0.5, 2.0]
    steps = [20, 200, 1000] if not quick else [200]
    for th in thetas:
        for fac in factors:
            mu = round(fac * math.tan(math.radians(th)), 6)
            for n in steps:
                yield (
                    f"ramp_th{th:g}_mu{mu:g}_N{n}",
                    ramp_xml(th, mu, h=0.1 + 1e-4),
                    n,
                    {"kind": "ramp", "theta": th, "mu": mu},
                )
    for n in [50, 500] if not quick else [200]:
        yield f"box_N{n}", BOX_XML, n, {"kind": "rest"}
        yield f"table_N{n}", TABLE_XML, n, {"kind": "rest"}
        yield f"stack_N{n}", STACK_XML, n, {"kind": "rest", "ncon": 12}


def closed_form(info, problem, imp, data, modes_choice):
    """(expected status, expected acceleration or None, why) for drift="jacdot"; None when there is no closed form."""
    nv = problem.n
    modes = {c.mode for c in problem.contacts}
    # the closed forms are those of a body on a full face: MuJoCo's soft state may rock on an edge (2 contacts of the
    # box on the ramp), and then the rigid problem imported is another one, with no closed form here
    if data.ncon < info.get("ncon", 4) or len(problem.contacts) < info.get("ncon", 4):
        return None
    if info["kind"] == "rest":
        if modes <= {"sticking", "coulomb"}:
            return "solved", np.zeros(nv), "at rest, friction holds: a = 0"
        return None
    th = math.radians(info["theta"])
    mu = info["mu"]
    d = np.array([math.cos(th), 0.0, -math.sin(th)])
    nrm = np.array([math.sin(th), 0.0, math.cos(th)])
    if abs(mu - math.tan(th)) < 1e-6:
        return None
    if modes == {"sticking"}:
        if mu > math.tan(th):
            return "solved", np.zeros(nv), "sticking, μ > tan θ: a = 0"
        return "infeasible", None, "sticking with μ < tan θ: no sticking forces exist"
    if modes == {"coulomb"}:
        if mu > math.tan(th):
            return "solved", np.zeros(nv), "Coulomb, μ > tan θ: sticks, a = 0"
        a = np.zeros(nv)
        a[:3] = G * (math.sin(th) - mu * math.cos(th)) * d
        return "solved", a, "Coulomb, μ < tan θ: slides, a = g (sin θ − μ cos θ) d"
    if modes == {"sliding"}:
        if mu > CUBE_TIPS_ABOVE_MU:
            return (
                None  # friction's moment about the centre tips the sliding cube: a rear contact lifts, no closed form
            )
        v = np.array(data.qvel[:3])
        vt = v - (v @ nrm) * nrm
        if np.linalg.norm(vt) == 0:
            return None
        s = vt / np.linalg.norm(vt)
        a = np.zeros(nv)
        a[:3] = G * math.sin(th) * d - mu * G * math.cos(th) * s
        return "solved", a, "sliding with slip s from qvel: a = g sin θ d − μ g cos θ s"
    return None


def eq_scale(M):
    dg = np.diag(np.asarray(M, dtype=float)).copy()
    return np.where(dg > 0, 1 / np.sqrt(np.where(dg > 0, dg, 1)), 1.0)


def routes_for(problem):
    cls = problem.classify()
    out = [("auto", "high"), ("auto", "mid"), ("auto", "low")]
    for name in FORMULATIONS:
        try:
            ok, _ = get_formulation(name).accepts(problem, cls)
        except Exception:  # noqa: BLE001
            ok = False
        if ok:
            out.append((name, "high"))
    return out


def solve_route(problem, name, tol):
    t0 = time.perf_counter()
    try:
        sol = gaussqp.solve(problem, formulation=name, tolerance=tol)
    except Exception as exc:  # noqa: BLE001
        return {
            "route": f"{name}@{tol}",
            "status": f"raised {type(exc).__name__}",
            "certified": False,
            "error": str(exc)[:200],
            "time": time.perf_counter() - t0,
        }
    st = str(sol.status.value if hasattr(sol.status, "value") else sol.status)
    return {
        "route": f"{name}@{tol}",
        "status": st,
        "certified": bool(sol.certified),
        "formulation": sol.formulation,
        "acceleration": None if sol.acceleration is None else np.asarray(sol.acceleration, float).tolist(),
        "unique_a": (sol.unique or {}).get("acceleration"),
        "time": time.perf_counter() - t0,
    }


def _polygon(route: str) -> str | None:
    """ "inner" / "outer" for an F5 polygon route (a proven bracket of the disks), "law" for the facetized-law
    enumerations (an approximation of the disks' law, not a bracket: DESIGN.md, F6), else None."""
    name = route.split("@")[0]
    if name.startswith("coulomb_enumeration_"):
        return "law"
    if name.startswith("facetized_"):
        return name.split("_")[1]
    return None


def _statuses_contradict(r1: dict, r2: dict) -> bool:
    """Do two certified statuses contradict? Between two routes of the disks' problem: one solved and the other not, or
    infeasible against unbounded. A polygon solves another problem: only its bracket's direction is checked (the
    inscribed polygon solvable and the disks infeasible; the circumscribed polygon infeasible and the disks solvable);
    a facetized-law enumeration's status is compared with nothing."""
    s1, s2 = r1["status"], r2["status"]
    if s1 == s2:
        return False
    k1, k2 = _polygon(r1["route"]), _polygon(r2["route"])
    if "law" in (k1, k2):
        return False
    if k1 and k2:  # inner and outer: inner solvable with outer infeasible is the only contradiction
        inner, outer = (r1, r2) if k1 == "inner" else (r2, r1)
        return inner["status"] == "solved" and outer["status"] == "infeasible"
    if k1 or k2:
        poly, disks = (r1, r2) if k1 else (r2, r1)
        kind = k1 or k2
        if kind == "inner":
            return poly["status"] == "solved" and disks["status"] == "infeasible"
        return poly["status"] == "infeasible" and disks["status"] == "solved"
    return (s1 == "solved") != (s2 == "solved") or {s1, s2} == {"infeasible", "unbounded"}


def analyse(problem, results, expected):
    M = np.asarray(problem.M.toarray() if hasattr(problem.M, "toarray") else problem.M, dtype=float)
    F = np.asarray(problem.F, dtype=float)
    S = eq_scale(M)
    cert = [r for r in results if r["certified"] and r["status"] in CERT_STATUSES]
    contradictions, wrong = [], []
    for i in range(len(cert)):
        for j in range(i + 1, len(cert)):
            r1, r2 = cert[i], cert[j]
            if _statuses_contradict(r1, r2):
                contradictions.append(
                    f"{r1['route']} certified {r1['status']} vs {r2['route']} certified {r2['status']}"
                )
            elif r1["status"] == r2["status"] == "solved" and r1["acceleration"] and r2["acceleration"]:
                if r1["unique_a"] is False or r2["unique_a"] is False:
                    continue
                if any(k in r["route"] for r in (r1, r2) for k in ("_inner", "_outer")):
                    continue  # a polygon's law is another law: its acceleration may differ from the disks'
                a1, a2 = np.array(r1["acceleration"]), np.array(r2["acceleration"])
                sc = max(np.abs(a1 / S).max(), np.abs(a2 / S).max(), np.abs(S * F).max(), 1e-300)
                gap = np.abs((a1 - a2) / S).max() / sc
                if gap > ATOL_REL:
                    contradictions.append(
                        f"{r1['route']} and {r2['route']} certified solved, accelerations differ by "
                        f"{gap:.2e} (rel, equilibrated); max|Δa| = {np.abs(a1 - a2).max():.3e}"
                    )
    if expected is not None:
        est, ea, why = expected
        for r in cert:
            if _polygon(r["route"]):  # another problem than the disks': only the bracket's direction is a claim
                if _statuses_contradict(r, {"route": "closed form", "status": est}):
                    wrong.append(f"{r['route']} certified {r['status']}; closed form: {est} ({why})")
                continue
            if r["status"] != est:
                wrong.append(f"{r['route']} certified {r['status']}; closed form: {est} ({why})")
            elif est == "solved" and ea is not None and r["acceleration"] is not None:
                err = np.abs(np.array(r["acceleration"]) - ea).max() / G
                if err > CLOSED_TOL:
                    wrong.append(f"{r['route']} certified solved, |a − closed form|∞ = {err:.3e} g ({why})")
    return contradictions, wrong


def study_problem(pid, problem, expected, log):
    results = [solve_route(problem, n, t) for n, t in routes_for(problem)]
    contradictions, wrong = analyse(problem, results, expected)
    summary = {r["route"]: f"{r['status']}{'*' if r['certified'] else ''}" for r in results}
    log.append(
        {
            "problem": pid,
            "expected": None if expected is None else expected[0],
            "expected_why": None if expected is None else expected[2],
            "routes": results,
            "contradictions": contradictions,
            "wrong_claims": wrong,
        }
    )
    flag = ("  CONTRADICTION" if contradictions else "") + ("  WRONG CLAIM" if wrong else "")
    print(f"{pid:58} {' '.join(f'{k}={v}' for k, v in summary.items())}{flag}", flush=True)
    for c in contradictions + wrong:
        print(f"      {c}", flush=True)


def run_crossval(xml_dir: Path, names, count: int, out_root: Path):
    rows = {}
    for name in names:
        out = out_root / f"cv_{name}"
        cmd = [
            sys.executable,
            "-m",
            "gaussqp.cli",
            "crossval",
            f"mujoco:{xml_dir / (name + '.xml')}:{count}",
            "--out",
            str(out),
            "--quiet",
            "--time-limit",
            "60",
        ]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        wrong = None
        rep = out / "report.md"
        text = rep.read_text() if rep.exists() else ""
        try:
            import pandas as pd

            df = (
                pd.read_parquet(out / "results.parquet")
                if (out / "results.parquet").exists()
                else pd.read_csv(out / "results.csv")
            )
            claimed = df[(df["certified"] == True) & (df["agrees_with_reference"] == False)]  # noqa: E712
            wrong = int(len(claimed))
            wrong_rows = claimed[["problem", "formulation", "solver", "status"]].to_dict("records")
        except Exception as exc:  # noqa: BLE001
            wrong_rows = [f"could not read results: {exc}"]
        rows[name] = {
            "command": " ".join(cmd),
            "exit": p.returncode,
            "wrong_claims": wrong,
            "wrong_rows": wrong_rows,
            "time": time.perf_counter() - t0,
            "stdout_tail": p.stdout[-1500:],
            "stderr_tail": p.stderr[-800:],
            "report_has_no_wrong_line": "No route claimed success" in text,
        }
        print(
            f"crossval {name}: exit {p.returncode}, wrong claims {wrong} ({time.perf_counter() - t0:.0f} s)", flush=True
        )
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--quick", action="store_true", help="a few scenes only (the smoke test)")
    ap.add_argument("--crossval", action="store_true", help="also run `gaussqp crossval mujoco:SCENE.xml:COUNT`")
    ap.add_argument("--crossval-count", type=int, default=3)
    ap.add_argument("--only", default=None, help="substring of the scene ids to run")
    args = ap.parse_args(argv)
    import mujoco

    from gaussqp.io.mujoco import import_mujoco

    log = []
    t0 = time.perf_counter()
    xml_dir = Path(tempfile.mkdtemp(prefix="mujoco_verdicts_"))
    scene_files = {}
    for sid, xml, nsteps, info in scenes(args.quick):
        scene_files[sid.rsplit("_N", 1)[0]] = xml
        if args.only and not any(o in sid for o in args.only.split(",")):
            continue
        model = mujoco.MjModel.from_xml_string(xml)
        data = mujoco.MjData(model)
        for _ in range(nsteps):
            mujoco.mj_step(model, data)
        mujoco.mj_forward(model, data)
        for drift in ("jacdot", "mujoco"):
            for mode_choice in ("state", "sticking", "coulomb"):
                pid = f"{sid}/{drift}/{mode_choice}"
                modes = None if mode_choice == "state" else {k: mode_choice for k in range(data.ncon)}
                try:
                    imp = import_mujoco(model, data, drift=drift, modes=modes, name=pid)
                except Exception as exc:  # noqa: BLE001
                    print(f"{pid:58} import refused: {type(exc).__name__}: {str(exc)[:150]}")
                    log.append({"problem": pid, "import_error": f"{type(exc).__name__}: {exc}"})
                    continue
                p = imp.problem
                expected = closed_form(info, p, imp, data, mode_choice) if drift == "jacdot" else None
                study_problem(pid, p, expected, log)
    if REPRO.exists() and (not args.only or "repro" in args.only):
        p = gaussqp.load(str(REPRO))
        expected = ("solved", np.zeros(p.n), "θ = 20°, μ = 0.8 > tan θ, sticking: a = 0 (rigid)")
        study_problem("repro_tilted_box_0 (json)", p, expected, log)
    cv = {}
    if args.crossval:
        for name, xml in scene_files.items():
            (xml_dir / f"{name}.xml").write_text(xml)
        names = sorted(scene_files) if not args.quick else sorted(scene_files)[:1]
        cv = run_crossval(xml_dir, names, args.crossval_count, xml_dir)
    n_con = sum(len(r.get("contradictions", [])) for r in log)
    n_wrong = sum(len(r.get("wrong_claims", [])) for r in log)
    print(
        f"\n{len(log)} problems in {time.perf_counter() - t0:.0f} s: {n_con} contradicting pairs of certified verdicts, "
        f"{n_wrong} certified answers contradicting the closed form"
        + (f"; crossval wrong claims {sum((v['wrong_claims'] or 0) for v in cv.values())}" if cv else "")
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"problems": log, "crossval": cv}, indent=1, default=str))
    return 1 if (n_con or n_wrong or any((v["wrong_claims"] or 0) for v in cv.values())) else 0


if __name__ == "__main__":
    sys.exit(main())
