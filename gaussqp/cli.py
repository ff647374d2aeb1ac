"""Command line: ``gaussqp solve|check|list|formulations``.

Exit codes: 0 for a certified answer (including certified infeasibility or
unboundedness), 1 for an uncertified one (inaccurate, failed, cross-check disagreement),
2 for bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from . import __version__
from .backends import BACKENDS, installed
from .certificates.report import check
from .dispatch import PREFERENCES, solve
from .errors import GaussQPError
from .io.gaussqp_format import load
from .formulations import FORMULATIONS
from .results import to_jsonable
from .settings import PRESETS

DEFAULT_PROBLEM = "rod_wall_guide"


def _load(spec: str):
    """A path to a gaussqp/1 file, or the name of a shipped problem."""
    from . import problems

    if Path(spec).exists() or spec.endswith((".json", ".npz")):
        return load(spec)
    return problems.load(spec)


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_fmt(v) for v in np.asarray(x, dtype=float).ravel()) + "]"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x + 0.0:.6g}"  # + 0.0: no "-0"
    return str(x)


def _print_certificates(certs) -> None:
    print(f"  {'id':<22} {'holds':<6} {'margin':>11}  source / implies")
    for c in certs:
        holds = "n/a" if c.holds is None else ("yes" if c.holds else "no")
        print(f"  {c.id:<22} {holds:<6} {c.margin + 0.0:>11.3g}  {c.source}")
        print(f"  {'':<22} {'':<6} {'':>11}  -> {c.implies}")


def cmd_solve(args) -> int:
    p = _load(args.file)
    sol = solve(p, formulation=args.formulation, solver=args.solver, crosscheck=not args.no_crosscheck,
                tolerance=args.tolerance, facets=args.facets)
    if args.json:
        print(json.dumps(sol.as_dict()))
    else:
        cls = p.classify()
        print(f"problem      {p.name}  (n={p.n}, m={p.m}: {cls.m_bilateral} bilateral, {cls.m_unilateral} unilateral; "
              f"M {cls.mass}, rank {cls.mass_rank})")
        print(f"status       {sol.status}{'  (certified)' if sol.certified else '  (NOT certified)'}")
        print(f"formulation  {sol.formulation} / {sol.solver}"
              + (f"  (route: {sol.route})" if sol.route is not None else ""))
        if sol.message:
            print(f"message      {sol.message}")
        print(f"acceleration {_fmt(sol.acceleration)}")
        print(f"lambda_n     {_fmt(sol.lambda_normal)}")
        if sol.lambda_normal is not None and (len(p.sticking) or len(p.sliding)):
            print(f"lambda_t     {_fmt(sol.lambda_tangent)}")
        print(f"Jᵀλ          {_fmt(sol.generalized_force)}")
        print("residuals    " + "  ".join(f"{k}={v:.2e}" for k, v in sol.residuals.items()))
        print("unique       " + "  ".join(f"{k}={_fmt(v)}" for k, v in sol.unique.items()))
        if sol.crosscheck:
            cc = sol.crosscheck
            verdict = {True: "agreed", False: "DISAGREED", None: "not compared"}[cc["agree"]]
            print(f"crosscheck   {verdict}: {cc['formulation']} ({cc['status']}): acceleration gap "
                  f"{_fmt(cc['acceleration_gap'])}, Jᵀλ gap {_fmt(cc['generalized_force_gap'])}")
            for r in cc.get("routes", []):
                print(f"             {r['route']} ({r['status']}): {r['outcome']}"
                      + (f" — {r['reason']}" if r["reason"] else ""))
            if "bracket" in cc:
                b = cc["bracket"]
                print(f"bracket      {b['facets']} facets: inscribed {b['inner']}, circumscribed {b['outer']}, "
                      f"consistent={_fmt(b['consistent'])}")
        if sol.enumeration is not None:
            e = sol.enumeration
            print(f"solutions    {e.count} found on {e.pieces} pieces: acceleration {e.multiplicity}, "
                  f"multipliers {e.multiplier_multiplicity}"
                  + "".join(f"\n             λ_n = {_fmt(x.lam_n)} (piece {x.piece})" for x in e.solutions[:8]))
        if sol.sticking is not None:
            v = sol.sticking
            print(f"sticking     feasible={_fmt(v.feasible)}  margin={_fmt(v.margin)}  mu_min={_fmt(v.mu_min)}  "
                  f"on cone boundary={v.boundary_contacts}  detaching={v.detaching_contacts}")
        print("certificates")
        _print_certificates(sol.certificates)
        _print_bounds((sol.friction_bounds or []))
    return 0 if sol.certified else 1


def _print_bounds(bounds) -> None:
    if not bounds:
        return
    print("friction bounds (C7)")
    for b in bounds:
        holds = "n/a" if b.holds is None else _fmt(b.holds)
        print(f"  {b.id:<22} {holds:<6} {b.value:>11.4g}  {b.source}  (largest μ here: {_fmt(b.mu)})")
        print(f"  {'':<22} {'':<6} {'':>11}  -> {b.guarantees}")


def cmd_check(args) -> int:
    p = _load(args.file)
    rep = check(p)
    if args.json:
        print(json.dumps(to_jsonable(rep.as_dict())))
        return 0
    c = rep.system_class
    print(f"problem  {p.name}: n={c.n}, M {c.mass} (rank {c.mass_rank}), {c.constraints} constraints "
          f"({c.m_bilateral} bilateral, {c.m_unilateral} unilateral), {c.modes}, normal rank {c.normal_rank}"
          f"{' (redundant)' if c.redundant else ''}")
    if rep.skipped:
        print(rep.skipped)
    _print_certificates(rep.certificates)
    _print_bounds(rep.friction_bounds)
    return 0


def cmd_list(args) -> int:
    from . import problems

    for name in problems.names():
        p = problems.load(name)
        c = p.classify()
        print(f"{name:<24} n={c.n:<3} m={p.m:<3} M {c.mass:<9} {c.constraints:<10} {c.modes:<12} {p.description}")
    return 0


def cmd_formulations(args) -> int:
    print("formulations")
    for f in FORMULATIONS.values():
        print(f"  {f.name:<24} {f.id:<3} {f.kind:<7} {f.title}")
        print(f"  {'':<24} valid: {f.valid_when}; source: {f.source}")
    print("preference table (mass, constraints, modes) -> formulations")
    for k, v in PREFERENCES.items():
        print(f"  {str(k):<45} {', '.join(v)}")
    print("backends")
    for b in BACKENDS.values():
        print(f"  {b.name:<10} {'installed' if installed(b) else 'not installed (pip install ' + b.pip + ')':<30} "
              f"supports {', '.join(sorted(b.supports))}")
    print("tolerance presets: " + ", ".join(f"{t.name} (solver {t.solver:g}, residual {t.residual:g})" for t in PRESETS.values()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="gaussqp", description="Solve and certify the contact problem of multibody mechanics.")
    ap.add_argument("--version", action="version", version=f"gaussqp {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("solve", help="solve a problem file or a shipped problem")
    s.add_argument("file", nargs="?", default=DEFAULT_PROBLEM, help=f"gaussqp/1 file or shipped name (default {DEFAULT_PROBLEM})")
    s.add_argument("--formulation", default="auto", help="auto or a registered formulation (gaussqp formulations)")
    s.add_argument("--solver", default=None, help="backend for cvxpy formulations: clarabel, osqp, scs")
    s.add_argument("--tolerance", default="high", choices=list(PRESETS), help="tolerance preset")
    s.add_argument("--no-crosscheck", action="store_true", help="skip the cross-check route")
    s.add_argument("--facets", type=int, default=8,
                   help="facets of the inscribed/circumscribed polygons (F5 and the sticking bracket; default 8)")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_solve)
    c = sub.add_parser("check", help="structural report without solving: classification, certificates C1-C6 and C8, "
                                          "P-matrix test (sliding), friction bounds C7")
    c.add_argument("file")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_check)
    sub.add_parser("list", help="the problem library").set_defaults(func=cmd_list)
    sub.add_parser("formulations", help="formulation registry and installed backends").set_defaults(func=cmd_formulations)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except GaussQPError as exc:
        print(f"gaussqp: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as Unix tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
