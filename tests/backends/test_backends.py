"""The single solve path (gaussqp.backends.solve_program): status mapping, no leaked backend exception,
one retry at a looser preset, silenced C output, typed errors for unknown or unfit solvers."""

from __future__ import annotations

import os

import cvxpy as cp
import numpy as np
import pytest

from gaussqp.backends import BACKENDS, get_backend, installed, solve_program
from gaussqp.backends.base import silence_c_stdout
from gaussqp.errors import UnknownSolverError, UnknownValueError
from gaussqp.settings import PRESETS, get_tolerance


def _qp():
    x = cp.Variable(2)
    return cp.Problem(cp.Minimize(cp.sum_squares(x - np.array([1.0, -2.0]))), [x[0] <= 0.5]), x


def test_solved_qp_reports_backend_status_and_answer():
    prob, x = _qp()
    backend, status, info = solve_program(prob, None, "high")
    assert backend.name == "clarabel" and status == "solved"
    np.testing.assert_allclose(x.value, [0.5, -2.0], atol=1e-7)
    assert info["attempts"] == [{"preset": "high", "cvxpy_status": "optimal"}]
    assert info["time_total"] >= 0 and "error" not in info


@pytest.mark.parametrize("solver", [b for b in BACKENDS if installed(BACKENDS[b])])
def test_infeasible_and_unbounded_are_statuses_not_exceptions(solver):
    x = cp.Variable(1)
    _, st, _ = solve_program(cp.Problem(cp.Minimize(x[0]), [x >= 1, x <= 0]), solver, "high")
    assert st == "infeasible"
    _, st, _ = solve_program(cp.Problem(cp.Minimize(x[0]), [x <= 0]), solver, "high")
    assert st in ("unbounded", "failed") if solver == "osqp" else st == "unbounded"


def test_backend_exception_is_caught_and_reported_as_failed(monkeypatch):
    prob, _ = _qp()

    def boom(*a, **k):
        raise cp.error.SolverError("simulated crash")

    monkeypatch.setattr(prob, "solve", boom)
    _, status, info = solve_program(prob, "clarabel", "high")
    assert status == "failed"
    assert "simulated crash" in info["error"]
    assert [a["preset"] for a in info["attempts"]] == ["high", "mid"]  # retried once, looser


def test_stalled_backend_is_retried_once_at_the_looser_preset(monkeypatch):
    prob, _ = _qp()
    seen = []
    real = cp.Problem.solve

    def flaky(self, *a, **k):
        seen.append(k)
        out = real(self, *a, **k)
        if len(seen) == 1:
            self._status = cp.OPTIMAL_INACCURATE
        return out

    monkeypatch.setattr(cp.Problem, "solve", flaky)
    _, status, info = solve_program(prob, "clarabel", "high")
    assert status == "solved"
    assert [a["preset"] for a in info["attempts"]] == ["high", "mid"]
    assert seen[0]["tol_gap_rel"] == PRESETS["high"].solver and seen[1]["tol_gap_rel"] == PRESETS["mid"].solver


def test_low_preset_is_not_retried(monkeypatch):
    prob, _ = _qp()
    real = cp.Problem.solve

    def inaccurate(self, *a, **k):
        out = real(self, *a, **k)
        self._status = cp.OPTIMAL_INACCURATE
        return out

    monkeypatch.setattr(cp.Problem, "solve", inaccurate)
    _, status, info = solve_program(prob, "clarabel", "low")
    assert status == "inaccurate" and len(info["attempts"]) == 1


def test_unknown_and_unfit_solvers_are_typed_errors():
    with pytest.raises(UnknownSolverError, match="unknown solver"):
        get_backend("gurobi")
    if installed(BACKENDS["osqp"]):
        with pytest.raises(UnknownSolverError, match="does not support socp"):
            get_backend("osqp", needs="socp")
    assert get_backend(None, needs="socp").name == "clarabel"
    with pytest.raises(UnknownValueError):
        get_tolerance("ultra")


def test_c_level_output_is_silenced(capfd):
    with silence_c_stdout():
        os.write(1, b"from C\n")
    print("from Python after")
    out = capfd.readouterr().out
    assert "from C" not in out and "from Python after" in out


def test_overlapping_silences_from_threads_restore_descriptor_1(capfd):
    """Threads silencing at once (deferred verdicts read concurrently) share one redirection: descriptor 1 is what it
    was once they have all left, in whatever order (the first in leaving first made the second restore the /dev/null
    it had saved)."""
    import threading

    before = os.fstat(1)
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with silence_c_stdout():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second():
        first_in.wait(5)
        with silence_c_stdout():
            second_in.set()
            first_out.wait(5)
            os.write(1, b"silenced\n")  # still silenced: the other one has left, this one has not

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    after = os.fstat(1)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
    print("after")
    out = capfd.readouterr().out
    assert "silenced" not in out and "after" in out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_child_forked_during_a_silence_can_silence_and_print():
    """A process pool forks while another thread is inside a silence (holding its state): the child starts with a lock
    of its own and descriptor 1 restored, so its own solves neither hang nor print into /dev/null."""
    import threading

    inside, leave = threading.Event(), threading.Event()

    def holder():
        with silence_c_stdout():
            inside.set()
            leave.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    inside.wait(5)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, never return into pytest
        code = 1
        try:
            import signal

            signal.alarm(5)  # a hang ends the child
            with silence_c_stdout():
                pass
            stat = os.fstat(1)
            code = 0 if (stat.st_dev, stat.st_ino) != (os.stat(os.devnull).st_dev, os.stat(os.devnull).st_ino) else 2
        finally:
            os.write(write, bytes([code]))
            os._exit(code)
    os.close(write)
    got = os.read(read, 1)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    leave.set()
    t.join()
    assert got == bytes([0]) and os.waitstatus_to_exitcode(status) == 0


def test_solves_when_python_has_no_stdout(monkeypatch):
    monkeypatch.setattr("sys.stdout", None)  # pythonw, some services
    prob, x = _qp()
    _, status, _ = solve_program(prob, None, "high")
    assert status == "solved"


def test_a_backend_resolved_once_is_used_as_given(monkeypatch):
    backend = get_backend("clarabel")
    import gaussqp.backends as backends

    monkeypatch.setattr(backends, "get_backend", lambda *a, **k: pytest.fail("looked up again"))
    prob, x = _qp()
    used, status, _ = solve_program(prob, backend, "high")
    assert used is backend and status == "solved"
