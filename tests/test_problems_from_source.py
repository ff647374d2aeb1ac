"""Issue #25 item 6: ``from gaussqp import problems`` works when run in a clone's root, where the source tree's
``gaussqp/`` shadows the installed package (whose ``gaussqp/problems`` is the top-level ``problems/`` mapped in by
pyproject's package-dir), and it resolves to *that* tree's ``problems/``, not to another checkout's (an editable
install elsewhere); the installed layout, ``gaussqp/problems`` inside the package, keeps working.

Each case runs in a fresh interpreter with ``-S`` (no site: no .pth file, so no editable finder and no installed
gaussqp) and the environment's site-packages on PYTHONPATH after the layout under test, as a ``pip install .``
followed by ``python`` in the clone's root would see it."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

ROOT = pathlib.Path(__file__).resolve().parents[1]
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")
PROBE = (
    "import gaussqp; from gaussqp import problems; import gaussqp.problems.examples as ex; "
    "print(problems.__file__); print(ex.__file__); print(problems.load('rod_wall_guide').n)"
)


def _run(cwd: pathlib.Path, *path: pathlib.Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH")}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, path), sysconfig.get_paths()["purelib"]])
    return subprocess.run(
        [sys.executable, "-S", "-c", PROBE], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def _clone(tmp: pathlib.Path) -> pathlib.Path:
    """The files of a clone that matter here: the package, the problem library and pyproject.toml."""
    root = tmp / "clone"
    shutil.copytree(ROOT / "gaussqp", root / "gaussqp", ignore=IGNORE)
    shutil.copytree(ROOT / "problems", root / "problems", ignore=IGNORE)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _installed(tmp: pathlib.Path) -> pathlib.Path:
    """The layout of the installed wheel: ``problems/`` copied into the package as ``gaussqp/problems``."""
    site = tmp / "site"
    shutil.copytree(ROOT / "gaussqp", site / "gaussqp", ignore=IGNORE)
    shutil.copytree(ROOT / "problems", site / "gaussqp" / "problems", ignore=IGNORE)
    return site


def test_from_the_clone_root_problems_is_the_clones(tmp_path):
    clone, site = _clone(tmp_path), _installed(tmp_path)
    out = _run(clone, site)  # cwd first on sys.path: the clone's gaussqp shadows the installed one
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.split()
    assert lines[0] == str(clone / "problems" / "__init__.py")
    assert lines[1] == str(clone / "problems" / "examples.py")
    assert lines[2] == "3"


def test_the_installed_layout_is_unchanged(tmp_path):
    site = _installed(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = _run(elsewhere, site)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[0] == str(site / "gaussqp" / "problems" / "__init__.py")


def test_the_worktree_under_test_uses_its_own_problems():
    """The suite itself: ``gaussqp.problems`` belongs to the same tree as the ``gaussqp`` under test, never to another
    checkout's editable install. Imported from this tree (editable install, worktree), it is this tree's
    ``problems/``; imported from a regular install (CI's ``pip install .``), it is the copy inside that package, and
    that copy holds this tree's problem files."""
    import gaussqp
    import gaussqp.problems

    package = pathlib.Path(gaussqp.__file__).resolve().parent
    problems = pathlib.Path(gaussqp.problems.__file__).resolve().parent
    if package == (ROOT / "gaussqp").resolve():
        assert problems == (ROOT / "problems").resolve()
        return
    assert problems == package / "problems", f"gaussqp from {package} but its problems from {problems}"
    ours = sorted(p.relative_to(ROOT / "problems") for p in (ROOT / "problems").rglob("*.py"))
    assert ours, "this tree has no problems/*.py"
    for rel in ours:
        assert (problems / rel).read_bytes() == (ROOT / "problems" / rel).read_bytes(), f"installed {rel} differs"
