"""Smoke test of ``benchmarks/revision_ab.py``: an object of an earlier revision is loaded as a module of its own,
swapped in wherever today's object is held and swapped back, and the benchmark runs both sides on a few humanoid
states. HEAD is the revision (a shallow clone has no other)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from benchmark_scripts import ROOT, load_benchmark

from gaussqp.certificates import instance, judge

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None
    or subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode != 0,
    reason="needs git and the checkout's history (the benchmark reads a module's source at a revision)",
)

bench = load_benchmark("revision_ab")


def test_the_old_object_is_swapped_in_everywhere_and_back():
    current = instance.unique_multipliers
    switch, pairs = bench.make_switch("HEAD", ["gaussqp.certificates.instance:unique_multipliers"])
    ((places, _, old),) = pairs
    assert old is not current and old.__name__ == current.__name__
    # only the named object is old: its helpers (and their per-problem memos) are today's
    assert old.__globals__["multiplier_row_rank"] is instance.multiplier_row_rank
    assert old.__globals__["_active_sets"] is instance._active_sets
    assert (instance, "unique_multipliers") in places and (judge, "unique_multipliers") in places
    switch(False)
    assert instance.unique_multipliers is old and judge.unique_multipliers is old
    switch(True)
    assert instance.unique_multipliers is current and judge.unique_multipliers is current


def test_both_sides_run(capsys):
    assert bench.main(["--before", "HEAD", "--swap", "gaussqp.certificates.instance:unique_multipliers",
                       "--states", "2", "--rows", "sticking", "--crosscheck", "off"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "| sticking, cross-check off |" in out and "paired ratio" in out
    assert instance.unique_multipliers is judge.unique_multipliers


def test_a_revision_without_the_module_is_a_one_line_exit():
    with pytest.raises(SystemExit, match="revision_ab: no gaussqp/nowhere.py"):
        bench.old_object("HEAD", "gaussqp.nowhere", "x")
