"""The package as a user gets it: build the wheel and the sdist, check them with twine, install
each in a fresh virtual environment and run the README's first command there.

    python scripts/check_package.py [--keep DIR]

Steps: ``python -m build`` (wheel + sdist, into a temporary folder), ``twine check`` on both, the version of both
file names equal to ``gaussqp.__version__`` (the one place it is written), the problem library and the JSON schemas
inside the wheel, then a fresh ``venv`` with the wheel installed and ``gaussqp solve rod_wall_guide`` run outside
the source tree (exit 0, the answer certified), then the sdist installed over it (``--no-deps``: the dependencies
are already there) and the command run again. Exit 0 when every step passed, 1 with the failed step named. Needs
the extra ``release`` (build, twine) and the package index the dependencies come from. ``.ci/run`` runs it.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib
import tempfile
import time
import venv
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMMAND = ["solve", "rod_wall_guide"]  # the README's first command, after the install
EXPECT = "status       solved  (certified)"


def run(step: str, cmd: list[str], cwd: pathlib.Path) -> str:
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(
            f"check_package: {step} failed (exit {done.returncode}): {' '.join(map(str, cmd))}\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    print(f"check_package: {step}: ok ({time.perf_counter() - t:.1f} s)")
    return done.stdout


def version() -> str:
    text = (ROOT / "gaussqp" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"$', text, flags=re.M).group(1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", help="build into this folder and keep it (default: a temporary folder)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gaussqp-package-") as tmp:
        work = pathlib.Path(args.keep or tmp)
        dist = work / "dist"
        made = [p for p in (ROOT / "build", ROOT / "gaussqp.egg-info") if not p.exists()]
        try:
            run("build", [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], ROOT)
        finally:  # setuptools' working folders in the source tree, when this build made them
            for p in made:
                shutil.rmtree(p, ignore_errors=True)
        wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
        if len(wheels) != 1 or len(sdists) != 1:
            sys.exit(
                f"check_package: expected one wheel and one sdist in {dist}, found {[p.name for p in dist.iterdir()]}"
            )
        v = version()
        for f in (*wheels, *sdists):
            if f"gaussqp-{v}" not in f.name:
                sys.exit(f"check_package: {f.name} does not carry gaussqp.__version__ = {v}")
        run("twine check", [sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)], ROOT)
        names = zipfile.ZipFile(wheels[0]).namelist()
        needed = {
            "gaussqp/py.typed",
            "gaussqp/io/schema/gaussqp-1.schema.json",
            "gaussqp/io/schema/gaussqp-grasp-1.schema.json",
            "gaussqp/problems/data/rod_wall_guide.json",
        }
        missing = sorted(needed - set(names))
        library = len([n for n in names if n.startswith("gaussqp/problems/data/")])
        # the library files are those pyproject.toml's package data names for gaussqp.problems (one place)
        patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
            "package-data"
        ]["gaussqp.problems"]
        shipped = len({p for pattern in patterns for p in (ROOT / "problems").glob(pattern) if p.is_file()})
        if missing or library != shipped:
            sys.exit(f"check_package: the wheel lacks {missing} or holds {library} of the {shipped} library files")
        print(f"check_package: wheel contents: ok ({library} library files, schemas, py.typed)")
        env = work / "venv"
        venv.create(env, with_pip=True)
        py, exe = env / "bin" / "python", env / "bin" / "gaussqp"
        outside = work  # not the source tree, whose gaussqp/ would shadow the installed package
        run("install the wheel in a fresh venv", [str(py), "-m", "pip", "install", "-q", str(wheels[0])], outside)
        out = run("gaussqp " + " ".join(COMMAND) + " (wheel)", [str(exe), *COMMAND], outside)
        if EXPECT not in out:
            sys.exit(f"check_package: the wheel's answer is not {EXPECT!r}:\n{out}")
        run(
            "install the sdist over it",
            [str(py), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(sdists[0])],
            outside,
        )
        out = run("gaussqp " + " ".join(COMMAND) + " (sdist)", [str(exe), *COMMAND], outside)
        if EXPECT not in out:
            sys.exit(f"check_package: the sdist's answer is not {EXPECT!r}:\n{out}")
    print(f"check_package: gaussqp {v}: wheel and sdist build, pass twine check, install and run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
