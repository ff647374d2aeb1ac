"""Friction benchmark on resting-contact scenes (issue #12): the platform on nine feet with a box and towers of 3,
10 and 25 boxes (12 … 100 contacts, ``problems/coulomb_scenes.py``), at rest and pushed, solved by gaussqp's
mode-free Coulomb route and, when Siconos is available, by its NSGS, PROX and NSN-AC on the same condensed
``(W, q)``, side by side.

    .venv/bin/python benchmarks/friction_scenes.py [--json OUT.json] [--no-siconos]

Needs the extra ``gaussqp[mujoco]`` (the scenes are settled by MuJoCo). The Siconos subprocess, the condensed
form and the success criterion are those of ``benchmarks/friction_fclib.py`` (imported from it): success is
**our** recomputed natural-map residual ≤ 1e-8 of ‖q‖ for every route alike. One more column judges the answer
against the closed form: every route's reaction ``r`` gives ``a = M⁻¹(Jᵀr − F)``, compared with the statics
(``a = 0``) or, for the sliding box, ``a_x = F/m − μ g``: ``err`` is ``max|a − a_closed|`` over all
coordinates (a route can meet the residual bound on a hyperstatic problem and still be judged here by what it
predicts).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gaussqp  # noqa: E402
from gaussqp.formulations.coulomb import condense  # noqa: E402
from gaussqp.friction.coulomb_law import natural_map_residual  # noqa: E402
from friction_fclib import TOL, run_siconos, siconos_available  # noqa: E402
from steady import load_compiled_kernels  # noqa: E402

#: (label, builder arguments): the platform and the towers n = 3, 10, 25, each at rest, below and past friction
PUSHES = (0.0, 0.5, 2.0)


def cases():
    from gaussqp.problems import coulomb_scenes as cs

    for push in PUSHES:
        yield f"platform_with_box push={push:g}", lambda push=push: cs.platform_with_box(push)
    for n in (3, 10, 25):
        for push in PUSHES:
            yield f"box_tower n={n} push={push:g}", lambda n=n, push=push: cs.box_tower(n, push)


def closed_form(scene) -> np.ndarray:
    """The acceleration the statics and Coulomb's law give: 0, except ``a_x = F/m − μ g`` on a pushed box whose
    push exceeds its friction threshold."""
    a = np.zeros(scene.problem.n)
    m = scene.masses[scene.pushed]
    if scene.push_force > scene.mu * m * scene.g:
        a[scene.dofs[scene.pushed]] = scene.push_force / m - scene.mu * scene.g
    return a


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-siconos", action="store_true")
    args = ap.parse_args(argv)
    use_siconos = not args.no_siconos and siconos_available()
    rows = []
    print(load_compiled_kernels())  # a process's one-time load, not charged to the first scene
    print(
        "| scene | contacts | route | status / info | ok | res/‖q‖ | siconos res | iter | time s | err vs closed form |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, build in cases():
        scene = build()
        p = scene.problem
        cd = condense(p)  # the route's own local form (W, q) and recovery a = M⁻¹Jᵀr + a_free
        W, q, mu, d = cd.W, cd.q, cd.mu, p.dimension
        exact = closed_form(scene)

        def err(r):
            return float(np.abs(cd.MinvJt @ r + cd.a_free - exact).max())

        t0 = time.perf_counter()
        sol = gaussqp.solve(p)
        elapsed = time.perf_counter() - t0
        r = np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()
        res = natural_map_residual(r, W @ r + q, q, mu, d)
        results = [
            (
                "gaussqp coulomb_fixed_point",
                str(sol.status),
                res,
                elapsed,
                f"{sol.extras['fixed_point_iterations']}+{sol.extras['newton_iterations']}",
                err(r),
            )
        ]
        if use_siconos:
            for name, out in run_siconos(W, q, mu, d).items():
                short = name.replace("SICONOS_FRICTION_3D_", "siconos ")
                if "error" in out:
                    results.append((short, f"error {out['error']}", None, None, "", None))
                    continue
                rs = np.array(out["r"])
                with np.errstate(all="ignore"):  # a diverged run (NSN-AC on the 25-box tower) has r ~ 1e200 or NaN
                    rr, e = natural_map_residual(rs, W @ rs + q, q, mu, d), err(rs)
                status = f"info {out['info']}" + ("" if np.all(np.isfinite(rs)) else " (r not finite)")
                results.append((short, status, rr, out["time"], str(out["iterations"]), e))
        for route, status, rr, t, it, e in results:
            if rr is None:
                print(f"| {label} | {p.m} | {route} | {status} | | | | | | |")
                rows.append({"scene": label, "contacts": p.m, "route": route, "status": status})
                continue
            ok = rr.relative <= TOL
            print(
                f"| {label} | {p.m} | {route} | {status} | {'yes' if ok else 'no'} | {rr.relative:.1e} | "
                f"{rr.siconos:.1e} | {it} | {t:.3f} | {e:.1e} |",
                flush=True,
            )
            rows.append(
                {
                    "scene": label,
                    "contacts": p.m,
                    "route": route,
                    "status": status,
                    "success": ok,
                    "relative": rr.relative,
                    "siconos": rr.siconos,
                    "iterations": it,
                    "time": t,
                    "closed_form_error": e,
                }
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
