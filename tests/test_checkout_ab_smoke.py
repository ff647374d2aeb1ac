"""Smoke test of ``benchmarks/checkout_ab.py``: the package at a revision is unpacked under another name, imports
itself (not today's package) and solves beside today's, paired state by state. HEAD is the revision (a shallow clone
has no other); the NumPy code on both sides (no compilation of a second package's kernels in the test)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_scripts import ROOT, load_benchmark

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None
    or subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode != 0,
    reason="needs git and the checkout's history (the benchmark unpacks the package at a revision)",
)

bench = load_benchmark("checkout_ab")


def test_the_earlier_package_is_its_own(monkeypatch, capsys):
    monkeypatch.setenv("GAUSSQP_COMPILED", "0")
    name = bench.package_at("HEAD")
    assert name.startswith("gaussqp_at_")
    assert bench.main(["--before", "HEAD", "--states", "2", "--rows", "frictionless", "--crosscheck", "off",
                       "--no-kernels"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "| frictionless, cross-check off | from_blocks + solve |" in out and "paired ratio" in out
    old = sys.modules[name]
    # every module of the earlier package is its own: none of them is today's, none imports today's
    mine = [m for k, m in sys.modules.items() if k == name or k.startswith(name + ".")]
    assert len(mine) > 10
    for mod in mine:
        assert mod.__name__.split(".")[0] == name
        for value in vars(mod).values():
            # a module (``import gaussqp.settings as settings``) by its name, anything else by its defining module
            owner = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
            assert not (isinstance(owner, str) and owner.split(".")[0] == "gaussqp"), (mod.__name__, value)
    # no module of the earlier package's source names today's package
    assert not any(re.search(r"\bgaussqp\b", path.read_text()) for path in Path(old.__file__).parent.rglob("*.py"))
    assert old.solve is not __import__("gaussqp").solve


def test_an_unknown_revision_is_a_one_line_exit():
    with pytest.raises(SystemExit, match="checkout_ab: no revision 'no-such-revision'"):
        bench.package_at("no-such-revision")
