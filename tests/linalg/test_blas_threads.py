"""One BLAS thread while a small problem is solved (:mod:`gaussqp.linalg.blas_threads`): the libraries on one thread
inside, their threads given back after, larger problems and a limit of 0 left alone, and a solve without
``threadpoolctl``."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
import gaussqp.linalg.blas_threads as bt
import gaussqp.settings as settings
from gaussqp import problems

threadpoolctl = pytest.importorskip("threadpoolctl", reason="threadpoolctl is not installed: pip install threadpoolctl")


@pytest.fixture
def two_threads():
    """Every BLAS library on two threads for the test where it can have two (an OpenBLAS started with one thread, as
    one loaded after ``OPENBLAS_NUM_THREADS=1`` was set, keeps one), as they were after; the threads of every library
    threadpoolctl finds (skipped where none can have two)."""
    if not bt._blas_libraries():
        pytest.skip("no BLAS library found by threadpoolctl")
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        if 2 not in threads():
            pytest.skip("no BLAS library of this process can run two threads (all started with one)")
        yield threads()


def threads() -> list:
    """The threads of every BLAS library threadpoolctl finds in the process now (not only those the module limits)."""
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]


def test_a_small_problem_runs_on_one_blas_thread_and_gives_the_threads_back(two_threads):
    with bt.one_blas_thread(settings.BLAS_ONE_THREAD_SIZE_MAX):
        assert threads() == [1] * len(two_threads)
    assert threads() == two_threads
    with pytest.raises(RuntimeError), bt.one_blas_thread(1):  # given back when the block raises too
        raise RuntimeError
    assert threads() == two_threads


def test_a_larger_problem_or_a_limit_of_zero_leaves_the_threads(two_threads, monkeypatch):
    with bt.one_blas_thread(settings.BLAS_ONE_THREAD_SIZE_MAX + 1):
        assert threads() == two_threads
    monkeypatch.setattr(settings, "BLAS_ONE_THREAD_SIZE_MAX", 0)
    with bt.one_blas_thread(1):
        assert threads() == two_threads


@pytest.mark.parametrize("name", ["real/humanoid_lying", "fclib_generated/chain-s0-i0006-m32-local"])
def test_solve_runs_a_small_problem_on_one_blas_thread(name, two_threads, monkeypatch):
    """``gaussqp.solve`` (an acceleration-level problem and a local one): the route runs with every library on one
    thread; the threads are back after the answer."""
    seen = []
    original = bt.one_blas_thread

    def spy(unknowns):
        context = original(unknowns)
        seen.append(unknowns)
        return context

    import gaussqp.dispatch as dispatch

    monkeypatch.setattr(dispatch, "one_blas_thread", spy)
    inside = []
    # the first call inside the limit after an acceleration-level route, and the local problems' route
    for route in ("withdraw_outside_the_disks", "solve_local_problem"):
        original_route = getattr(dispatch, route)

        def recording(*args, _route=original_route, **kwargs):
            inside.append(threads())
            return _route(*args, **kwargs)

        monkeypatch.setattr(dispatch, route, recording)
    p = problems.load(name)
    if p.form != "local":
        p = p.mode_free()
    sol = gaussqp.solve(p)
    assert sol.certified
    assert seen and seen[0] == (p.n + p.m * p.dimension if p.form != "local" else p.m * p.dimension)
    assert inside and all(t == [1] * len(two_threads) for t in inside)
    assert threads() == two_threads


def test_without_threadpoolctl_a_solve_leaves_the_libraries(monkeypatch):
    monkeypatch.setattr(bt, "_LIBRARIES", ())
    sol = gaussqp.solve(problems.load("real/humanoid_lying"))
    assert sol.certified
    assert np.isfinite(sol.acceleration).all()


FIRST_SOLVE_LOCAL = """
import json, threadpoolctl
import gaussqp, gaussqp.dispatch as dispatch
from gaussqp import problems
seen = []
for route in ("withdraw_outside_the_disks", "solve_local_problem"):
    original = getattr(dispatch, route)
    def recording(*args, _route=original, **kwargs):
        seen.append([i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"])
        return _route(*args, **kwargs)
    setattr(dispatch, route, recording)
before = [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
local = gaussqp.solve(problems.load("fclib_generated/chain-s0-i0006-m32-local"))
robot = gaussqp.solve(problems.load("real/humanoid_lying").mode_free())
print(json.dumps({"before": before, "seen": seen, "certified": [local.certified, robot.certified]}))
"""


def test_a_process_whose_first_solve_is_local_limits_every_library():
    """Found in review: the libraries were found at the first small solve, and a local problem's solve had not
    imported SciPy's linear algebra yet, so SciPy's OpenBLAS kept its threads for the rest of the process. In a fresh
    process whose first solve is local, every BLAS library threadpoolctl finds is on one thread inside both routes."""
    import json
    import os
    import subprocess
    import sys

    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    }
    out = subprocess.run(
        [sys.executable, "-c", FIRST_SOLVE_LOCAL], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["certified"] == [True, True]
    assert len(got["seen"]) == 2 and all(t and all(n == 1 for n in t) for t in got["seen"]), got


def test_a_solver_on_a_local_problem_runs_on_one_blas_thread(two_threads, monkeypatch):
    """Found in review: ``Solver`` solves a local problem through its route's ``solve_local``, not through the
    dispatcher; it runs on one thread too, and the threads are back after."""
    import gaussqp.formulations.coulomb as coulomb

    inside = []
    original = coulomb.CoulombFixedPoint.solve_local

    def recording(self, *args, **kwargs):
        inside.append(threads())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(coulomb.CoulombFixedPoint, "solve_local", recording)
    p = problems.load("fclib_generated/chain-s0-i0006-m32-local")
    sol = gaussqp.Solver(p).solve(p)
    assert sol.certified
    assert inside and all(t == [1] * len(t) for t in inside)
    assert threads() == two_threads
