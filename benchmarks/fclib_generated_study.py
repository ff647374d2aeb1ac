"""The cross-validation study of issue #27 (items 4-5): gaussqp's mode-free Coulomb route against Siconos's NSGS, PROX
and NSN-AC on FCLIB problems generated from MuJoCo scenes and on the FCLIB files at hand.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/fclib_generated_study.py --work /tmp/study [--workers 1]

1. ``problems/fclib_scenes.py`` writes the set into ``WORK/generated``: ``--count`` (300) problems of seed 1 aimed at
   10-250 contacts, and 9 larger ones of seed 2 aimed at 500-1,500 (one per scene; a scene beyond the MuJoCo
   importer's dense limits is skipped by the generator, with the reason printed). Only the global files enter the
   study (the local forms of the same problems would repeat them).
2. ``WORK/set`` links those files and the FCLIB files of ``--fclib`` (``shared/data/fclib``).
3. ``gaussqp crossval WORK/set`` with the routes ``coulomb_fixed_point`` (Clarabel) and the Siconos peers, the time
   limit ``--time-limit`` per run, results in ``WORK/out`` (re-running resumes).
4. The report's small files (``report.md``, ``report.html``, ``report.json``, the profile PNGs, ``skipped.json``,
   ``problems.json``, ``versions.json``) are copied to ``benchmarks/results/fclib_generated_study/``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "fclib_generated_study"
ROUTES = "coulomb_fixed_point,siconos_fc3d_nsgs,siconos_fc3d_prox,siconos_fc3d_nsn_ac"
SMALL_FILES = (
    "report.md",
    "report.html",
    "report.json",
    "profile_time.png",
    "profile_residual.png",
    "skipped.json",
    "problems.json",
    "versions.json",
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, help="working directory (generated files, results)")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--fclib", default=str(ROOT.parent / "shared" / "data" / "fclib"))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=5.0)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from gaussqp.cli import main as gaussqp_main
    from gaussqp.problems import fclib_scenes

    work = Path(args.work)
    generated, study = work / "generated", work / "set"
    fclib_scenes.generate(generated, args.count, seed=1, min_contacts=10, max_contacts=250, progress=print)
    fclib_scenes.generate(
        generated, len(fclib_scenes.SCENES), seed=2, min_contacts=500, max_contacts=1500, progress=print
    )
    study.mkdir(parents=True, exist_ok=True)
    sources = [f for f in generated.glob("*.hdf5") if not f.name.endswith("-local.hdf5")]
    sources += sorted(Path(args.fclib).glob("*.hdf5"))
    for f in sources:
        link = study / f.name
        if not link.exists():
            link.symlink_to(f.resolve())
    code = gaussqp_main(
        [
            "crossval",
            str(study),
            "--formulations",
            ROUTES,
            "--solvers",
            "clarabel,siconos",
            "--peers",
            "siconos",
            "--workers",
            str(args.workers),
            "--time-limit",
            str(args.time_limit),
            "--out",
            str(work / "out"),
            "--quiet",
        ]
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    for name in SMALL_FILES:
        if (work / "out" / name).exists():
            shutil.copy2(work / "out" / name, RESULTS / name)
    print(f"report copied to {RESULTS}")
    return code


if __name__ == "__main__":
    sys.exit(main())
