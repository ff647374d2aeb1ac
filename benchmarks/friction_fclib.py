"""Friction benchmark (issue #12): every FCLIB file solved by gaussqp's mode-free Coulomb route and, when Siconos
is available, by its NSGS, PROX and NSN-AC solvers at 1e-8, side by side.

    .venv/bin/python benchmarks/friction_fclib.py [DIR] [--json OUT.json] [--skip NAME ...]

DIR defaults to tests/data/fclib. Success is judged by **our** recomputed natural-map residual
(``gaussqp.friction.coulomb_law.natural_map_residual``) ≤ 1e-8 relative to ‖q‖, for every route alike; the
Siconos-normalized residual is shown too. Siconos runs in Debian's ``/usr/bin/python3`` (``apt-get install -y
python3-siconos``: it needs ``numpy<2``) as a subprocess with npz in / npz out; it is never a dependency of
gaussqp. Global files are given to Siconos in their condensed local form ``W = H M⁻¹ Hᵀ``, ``q = H M⁻¹ f + w``
(the same ``(W, q)`` gaussqp's route builds, :func:`gaussqp.formulations.coulomb.condense`), so both sides
solve the same numbers. Rolling-friction files are listed as refused.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import gaussqp
from gaussqp.errors import GaussQPError
from gaussqp.formulations.coulomb import condense
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.io import fclib

from steady import load_compiled_kernels

ROOT = Path(__file__).resolve().parents[1]
SICONOS_PYTHON = "/usr/bin/python3"
SOLVERS = ("SICONOS_FRICTION_3D_NSGS", "SICONOS_FRICTION_3D_PROX", "SICONOS_FRICTION_3D_NSN_AC")
TOL, MAX_ITER, TIMEOUT = 1e-8, 10_000, 600

SICONOS_SCRIPT = r"""
import sys, time, json
import numpy as np
import siconos.numerics as sn
data = np.load(sys.argv[1], allow_pickle=False)
W, q, mu, d = data["W"], data["q"], data["mu"], int(data["d"])
out = {}
for name in sys.argv[3].split(","):
    p = sn.FrictionContactProblem(d, mu.size, W, q, mu)
    o = sn.SolverOptions(getattr(sn, name))
    o.dparam[sn.SICONOS_DPARAM_TOL] = float(sys.argv[4])
    o.iparam[sn.SICONOS_IPARAM_MAX_ITER] = int(sys.argv[5])
    r = np.zeros(q.size); u = np.zeros(q.size)
    t = time.perf_counter()
    info = sn.fc3d_driver(p, r, u, o)
    out[name] = {"info": int(info), "time": time.perf_counter() - t, "r": r.tolist(), "u": u.tolist(),
                 "iterations": int(o.iparam[sn.SICONOS_IPARAM_ITER_DONE]),
                 "own_error": float(o.dparam[sn.SICONOS_DPARAM_RESIDU])}
json.dump(out, open(sys.argv[2], "w"))
"""


def local_form(p) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(W, q, mu, d) of a local problem, or the condensed form of a global one (M ≻ 0)."""
    if isinstance(p, gaussqp.LocalContactProblem):
        W = p.W.toarray() if sp.issparse(p.W) else np.asarray(p.W)
        return W, np.asarray(p.q), np.asarray(p.mu), p.dimension
    cd = condense(p)  # the route's own condensation
    return cd.W, cd.q, cd.mu, p.dimension


def siconos_available() -> bool:
    try:
        return (
            subprocess.run(
                [SICONOS_PYTHON, "-c", "import siconos.numerics"], capture_output=True, timeout=60
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def run_siconos(W, q, mu, d) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        inp, outp = Path(tmp) / "in.npz", Path(tmp) / "out.json"
        np.savez(inp, W=W, q=q, mu=mu, d=np.array(d))
        try:
            run = subprocess.run(
                [SICONOS_PYTHON, "-c", SICONOS_SCRIPT, str(inp), str(outp), ",".join(SOLVERS), str(TOL), str(MAX_ITER)],
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return {s: {"error": f"timeout {TIMEOUT}s"} for s in SOLVERS}
        if run.returncode != 0:
            return {s: {"error": run.stderr.strip().splitlines()[-1:] or ["failed"]} for s in SOLVERS}
        return json.loads(outp.read_text())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default=str(ROOT / "tests" / "data" / "fclib"))
    ap.add_argument("--json", default=None)
    ap.add_argument("--skip", nargs="*", default=[])
    ap.add_argument("--no-siconos", action="store_true")
    args = ap.parse_args(argv)
    use_siconos = not args.no_siconos and siconos_available()
    rows = []
    print(load_compiled_kernels())  # a process's one-time load, not charged to the first file
    print(f"{'file':<44} {'route':<28} {'ok':<4} {'res/‖q‖':>9} {'siconos':>9} {'iter':>7} {'time s':>8}")
    for f in sorted(Path(args.dir).glob("*.hdf5")):
        if any(s in f.name for s in args.skip):
            continue
        try:
            p = fclib.load(f)
        except GaussQPError as exc:
            print(f"{f.stem:<44} refused: {str(exc).splitlines()[0][:80]}")
            rows.append({"file": f.stem, "route": "refused", "reason": str(exc)})
            continue
        W, q, mu, d = local_form(p)
        t0 = time.perf_counter()
        sol = gaussqp.solve(p)
        elapsed = time.perf_counter() - t0
        r = np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()
        res = natural_map_residual(r, W @ r + q, q, mu, d)
        results = [
            (
                "gaussqp coulomb_fixed_point",
                res,
                elapsed,
                f"{sol.extras['fixed_point_iterations']}+{sol.extras['newton_iterations']}",
            )
        ]
        if use_siconos:
            for name, out in run_siconos(W, q, mu, d).items():
                if "error" in out:
                    results.append((name, None, None, str(out["error"])))
                    continue
                rs = np.array(out["r"])
                results.append(
                    (name, natural_map_residual(rs, W @ rs + q, q, mu, d), out["time"], str(out["iterations"]))
                )
        for route, rr, t, it in results:
            if rr is None:
                print(f"{f.stem:<44} {route.replace('SICONOS_FRICTION_3D_', 'siconos '):<28} error {it}")
                continue
            ok = rr.relative <= TOL
            print(
                f"{f.stem:<44} {route.replace('SICONOS_FRICTION_3D_', 'siconos '):<28} {'yes' if ok else 'no':<4} "
                f"{rr.relative:>9.2e} {rr.siconos:>9.2e} {it:>7} {t:>8.2f}",
                flush=True,
            )
            rows.append(
                {
                    "file": f.stem,
                    "route": route,
                    "success": ok,
                    "relative": rr.relative,
                    "siconos": rr.siconos,
                    "absolute": rr.absolute,
                    "iterations": it,
                    "time": t,
                }
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
