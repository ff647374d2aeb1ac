"""Issue #27's growth with contacts on generated piles and walls: time and memory of a certified mode-free solve against the
number of contacts m, and the fitted exponent (a benchmark, not a test).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/coulomb_growth.py \
        [--sizes 10,30,100,300,1000,2000,4000] [--max-contacts 300] [--scenes box_pile,sphere_pile,box_wall] \
        [--repeat 3] [--before /work/main] [--no-siconos] [--data DIR] [--write benchmarks/results/coulomb_growth.md]

For each scene and aimed contact count, :func:`problems.fclib_scenes.make_scene` generates a pile or a wall (seed
``--seed``; MuJoCo settles it, a share of the bodies is pushed, every contact is mode-free) and writes it as an FCLIB
file into ``--data`` (reused when present: generating is not timed). Each solve runs in **its own child process**
(``--child FILE``), which reads the file back with :func:`gaussqp.io.fclib.load` and measures, in CPU time with BLAS
on one thread:

- **route**: ``gaussqp.solve(problem, crosscheck=False)`` (classification, condensation, the Newton or its
  fallback, recovery, our certificate and the friction verdict), its status and our natural-map residual ÷‖q‖;
- **kernel**: the route's own linear algebra alone, ``condense_sparse`` + ``solve_mode_free`` on a fresh load;
- **memory**: the child's peak resident set (``ru_maxrss``) after loading and after solving (the second minus
  the first is what the solve added to the peak).

A fresh child per repeat (``--repeat``, median reported) keeps one run's caches from the next. ``--before DIR``
runs the same children with another checkout on ``PYTHONPATH`` (e.g. ``/work/main``: today's code) on the same
files, with ``--timeout`` seconds per child. The exponent ``k`` of ``time ∝ m^k`` is the least-squares slope of
log time against log m over the sizes with m ≥ 100 (certified answers only). With Siconos available
(``/usr/bin/python3 -c 'import siconos'``), NSGS, PROX and NSN-AC (tolerance 1e-8, from r = 0, solve time only,
inside the Siconos process) run on the dense condensed problem up to ``--siconos-max-contacts`` contacts (a dense
W beyond that is gigabytes); their answers are judged by our residual as well.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SIZES = (10, 30, 100, 300, 1000, 2000, 4000)
DEFAULT_SCENES = ("box_pile", "sphere_pile", "box_wall")
TOL = 1e-8  # the issue's accuracy: residual ÷ ‖q‖


def peak_mb() -> float:
    """This process's peak resident set so far (MB; ``ru_maxrss`` is in kB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(path: str) -> dict:
    """One measurement in this (fresh) process: the route, then the kernel on a fresh load (module docstring)."""
    import gaussqp
    from gaussqp.io import fclib

    t0 = time.process_time()
    problem = fclib.load(path)
    out: dict = {"load_s": time.process_time() - t0, "m": int(problem.m), "n": int(getattr(problem, "n", 0))}
    out["peak_load_mb"] = peak_mb()
    t0 = time.process_time()
    try:
        sol = gaussqp.solve(problem, crosscheck=False)
    except Exception as exc:  # a refusal or a failure is a result of the benchmark, reported
        out.update(route_s=time.process_time() - t0, status=f"error: {type(exc).__name__}: {str(exc)[:160]}")
        out["peak_mb"] = peak_mb()
        return out
    out["route_s"] = time.process_time() - t0
    out["peak_mb"] = peak_mb()
    out["status"] = sol.status
    out["residual"] = sol.residuals.get("natural_map_relative")
    out["path"] = sol.extras.get("path")
    kernel = sol.extras.get("nonsmooth_newton") or {}
    out["newton_iterations"] = kernel.get("iterations")
    try:
        from gaussqp.formulations.coulomb import condense_sparse, solve_mode_free

        fresh = fclib.load(path)
        t0 = time.process_time()
        cd = condense_sparse(fresh)
        ans = solve_mode_free(cd.W, cd.q, cd.mu, fresh.dimension)
        out["kernel_s"] = time.process_time() - t0
        out["kernel_path"] = getattr(ans, "path", None)
    except Exception as exc:  # the kernel alone is optional (an older checkout may lack it)
        out["kernel_error"] = f"{type(exc).__name__}: {str(exc)[:120]}"
    return out


#: the address-space limit of a child process (MB; ``--memory-limit``): a route that densifies a large W fails with
#: MemoryError there instead of taking the machine's memory
MEMORY_LIMIT_MB = 3000
LIMIT = {"mb": MEMORY_LIMIT_MB}


def run_child(path: Path, pythonpath: str, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=pythonpath)
    limit = LIMIT["mb"] * 2**20

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    try:
        run = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            preexec_fn=cap,
        )
    except subprocess.TimeoutExpired:
        return {"status": f"timeout ({timeout:g} s)"}
    if run.returncode != 0:
        return {"status": f"crashed: {(run.stderr.strip().splitlines() or ['?'])[-1][:160]}"}
    return json.loads(run.stdout.strip().splitlines()[-1])


def generate(scene: str, size: int, seed: int, data: Path) -> Path:
    """The FCLIB file of ``scene`` aimed at ``size`` contacts (generated once, then reused)."""
    from gaussqp.io import fclib
    from problems.fclib_scenes import MATH_INFO, make_scene

    path = data / f"{scene}-s{seed}-t{size}.hdf5"
    if not path.exists():
        g = make_scene(scene, seed, size)
        fclib.save(g.problem, path, info={"math_info": MATH_INFO})
    return path


def siconos_row(path: Path) -> dict:
    """Siconos's solvers on the dense condensed problem, judged by our residual; {} when unavailable."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from friction_fclib import run_siconos

    from gaussqp.formulations.coulomb import condense
    from gaussqp.friction.coulomb_law import natural_map_residual
    from gaussqp.io import fclib

    p = fclib.load(path)
    cd = condense(p)
    out = {}
    for name, r in run_siconos(cd.W, cd.q, cd.mu, p.dimension).items():
        label = name.replace("SICONOS_FRICTION_3D_", "")
        if "r" not in r:
            out[label] = {"error": str(r.get("error"))[:80]}
            continue
        x = np.asarray(r["r"])
        res = natural_map_residual(x, cd.W @ x + cd.q, cd.q, cd.mu, p.dimension).relative
        out[label] = {"time_s": r["time"], "residual": float(res)}
    return out


def exponent(rows: list[dict], key: str) -> float | None:
    """Least-squares slope of log(time) against log(m) over the certified rows with m >= 100."""
    pts = [(r["m"], r[key]) for r in rows if r.get("m", 0) >= 100 and r.get("status") == "solved" and r.get(key)]
    if len(pts) < 2:
        return None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def measure(path: Path, pythonpath: str, repeat: int, timeout: float) -> dict:
    runs = [run_child(path, pythonpath, timeout) for _ in range(repeat)]
    ok = [r for r in runs if "route_s" in r]
    if not ok:
        return runs[0]
    out = dict(ok[0])
    for key in ("route_s", "kernel_s", "peak_mb", "peak_load_mb"):
        vals = [r[key] for r in ok if r.get(key) is not None]
        out[key] = float(np.median(vals)) if vals else None
    out["repeats"] = len(ok)
    return out


def fmt(x, spec: str, none: str = "—") -> str:
    return none if x is None else format(x, spec)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    ap.add_argument("--max-contacts", type=int, default=None, help="only the sizes up to this (a quick run)")
    ap.add_argument("--scenes", default=",".join(DEFAULT_SCENES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per child process")
    ap.add_argument("--before", default=None, help="another checkout to time on the same files")
    ap.add_argument("--no-siconos", action="store_true")
    ap.add_argument("--siconos-max-contacts", type=int, default=300)
    ap.add_argument("--memory-limit", type=int, default=MEMORY_LIMIT_MB, help="MB of address space per child")
    ap.add_argument("--data", default="/tmp/gaussqp_growth", help="directory of the generated FCLIB files")
    ap.add_argument("--write", default=None, help="write the results as Markdown to this file")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    LIMIT["mb"] = args.memory_limit
    sys.path.insert(0, str(ROOT))
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.max_contacts is not None:
        sizes = [s for s in sizes if s <= args.max_contacts]
    scenes = [s for s in args.scenes.split(",") if s]
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    use_siconos = False
    if not args.no_siconos:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from friction_fclib import siconos_available

        use_siconos = siconos_available()
    here = str(ROOT)
    load0 = os.getloadavg()
    command = "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/coulomb_growth.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    lines = [
        "# Growth with contacts on generated piles (issue #27)",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; load average at start {load0[0]:.2f} / {load0[1]:.2f} / {load0[2]:.2f}. "
        f"CPU time (`time.process_time`) in a fresh child process per run, BLAS on one thread, median of "
        f"{args.repeat}; each child limited to {args.memory_limit} MB of address space and {args.timeout:g} s. Residual: our natural map ÷‖q‖; peak: the child's peak resident set (MB), after the "
        "solve (and after loading alone).",
        "",
    ]
    results: dict = {}
    for scene in scenes:
        rows, before_rows = [], []
        head = (
            "| aimed | m | n | status | res/‖q‖ | path | kernel s | route s | peak MB (load) |"
            + (" before: status | before route s |" if args.before else "")
            + (" Siconos fastest ≤ 1e-8 |" if use_siconos else "")
        )
        table = [f"## {scene}", "", head, "|" + "---|" * (head.count("|") - 1)]
        for size in sizes:
            t0 = time.perf_counter()
            try:
                path = generate(scene, size, args.seed, data)
            except Exception as exc:
                print(f"{scene} {size}: not generated ({type(exc).__name__}: {exc})", flush=True)
                table.append(f"| {size} | not generated: {type(exc).__name__} |")
                continue
            gen_s = time.perf_counter() - t0
            r = measure(path, here, args.repeat, args.timeout)
            r["aimed"] = size
            rows.append(r)
            cells = [
                str(size),
                str(r.get("m", "—")),
                str(r.get("n", "—")),
                str(r.get("status")),
                fmt(r.get("residual"), ".1e"),
                str(r.get("path")),
                fmt(r.get("kernel_s"), ".3f"),
                fmt(r.get("route_s"), ".3f"),
                f"{fmt(r.get('peak_mb'), '.0f')} ({fmt(r.get('peak_load_mb'), '.0f')})",
            ]
            if args.before:
                b = measure(path, args.before, 1, args.timeout)
                b["aimed"] = size
                before_rows.append(b)
                cells += [str(b.get("status"))[:60], fmt(b.get("route_s"), ".3f")]
            if use_siconos:
                sic = siconos_row(path) if r.get("m", 0) <= args.siconos_max_contacts else {}
                r["siconos"] = sic
                good = [(v["time_s"], k) for k, v in sic.items() if v.get("residual", 1.0) <= TOL]
                cells.append(f"{min(good)[1]} {min(good)[0]:.4f} s" if good else ("none" if sic else "not run"))
            table.append("| " + " | ".join(cells) + " |")
            print(
                f"{scene:<12} aimed {size:>5}: m = {r.get('m')}, {r.get('status')}, res {fmt(r.get('residual'), '.1e')}, "
                f"route {fmt(r.get('route_s'), '.3f')} s, kernel {fmt(r.get('kernel_s'), '.3f')} s, "
                f"peak {fmt(r.get('peak_mb'), '.0f')} MB (generated in {gen_s:.1f} s)",
                flush=True,
            )
        k_route, k_kernel = exponent(rows, "route_s"), exponent(rows, "kernel_s")
        summary = (
            f"Exponent of time ∝ m^k over m ≥ 100: route k = {fmt(k_route, '.2f')}, kernel k = {fmt(k_kernel, '.2f')}"
        )
        if args.before:
            summary += f"; before ({args.before}): route k = {fmt(exponent(before_rows, 'route_s'), '.2f')}"
        print(summary, flush=True)
        lines += table + ["", summary + " (target: k ≤ 1.3).", ""]
        results[scene] = {"rows": rows, "before": before_rows, "k_route": k_route, "k_kernel": k_kernel}
    load1 = os.getloadavg()
    lines.append(f"Load average at the end {load1[0]:.2f} / {load1[1]:.2f} / {load1[2]:.2f}.")
    if args.write:
        Path(args.write).write_text("\n".join(lines) + "\n")
        Path(args.write).with_suffix(".json").write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
