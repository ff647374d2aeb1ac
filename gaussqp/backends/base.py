"""What a backend is, and the one place where cvxpy's ``solve`` is called.

cvxpy is imported inside :func:`run_cvxpy` (and inside every function of gaussqp that builds a program),
never at module import: ``import gaussqp`` does not load cvxpy, scipy.stats or a solver (see
:mod:`gaussqp.backends`). :data:`STATUS_MAP` is keyed by cvxpy's status strings themselves (the values of
``cvxpy.OPTIMAL`` and so on, which ``tests/test_import_time.py`` checks against cvxpy).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..settings import LOOSER, PRESETS, PROGRAM_CACHE_SIZE, Tolerance

if TYPE_CHECKING:  # annotations only
    import cvxpy as cp

#: cvxpy status (``cvxpy.OPTIMAL``, ``cvxpy.OPTIMAL_INACCURATE``, ``cvxpy.INFEASIBLE``, ``cvxpy.INFEASIBLE_INACCURATE``,
#: ``cvxpy.UNBOUNDED``, ``cvxpy.UNBOUNDED_INACCURATE``: cvxpy's own strings, spelled out so that this module does not
#: import cvxpy) -> gaussqp status; anything else maps to "failed" (explicit fallback).
STATUS_MAP = {
    "optimal": "solved",
    "optimal_inaccurate": "inaccurate",
    "infeasible": "infeasible",
    "infeasible_inaccurate": "infeasible",
    "unbounded": "unbounded",
    "unbounded_inaccurate": "unbounded",
}


@dataclass(frozen=True)
class Backend:
    """A solver reached through cvxpy, with its capabilities as data."""

    name: str
    cvxpy_name: str
    module: str
    pip: str
    supports: frozenset
    settings: Callable[[Tolerance], dict]


@contextlib.contextmanager
def silence_c_stdout():
    """Send file descriptor 1 to /dev/null for the duration (C libraries print past Python's
    ``sys.stdout``: OSQP 1.x writes "Polishing not needed ..." even with ``verbose=False``, which
    would corrupt the CLI's ``--json`` output).

    Nested and concurrent uses (threads reading deferred verdicts at once) share one redirection: the first to enter
    saves descriptor 1, the last to leave restores it (each restoring its own saved copy in turn left /dev/null in place
    when two overlapped)."""
    try:  # Python's own buffer first, outside the lock (a flush may block on a full pipe)
        if sys.stdout is not None:  # None under pythonw and some services
            sys.stdout.flush()
    except (OSError, ValueError):
        pass
    with _SILENCE_LOCK:
        if _SILENCE["depth"] == 0:
            _SILENCE["saved"] = _redirect_stdout()
        _SILENCE["depth"] += 1
    try:
        yield
    finally:
        with _SILENCE_LOCK:
            _SILENCE["depth"] = max(_SILENCE["depth"] - 1, 0)
            if _SILENCE["depth"] == 0:
                _restore_stdout()


#: C libraries write to the process's descriptor 1 whatever Python's sys.stdout is (pytest, Jupyter)
_STDOUT_FD = 1
#: :func:`silence_c_stdout`'s shared state: how many are inside, and the saved descriptor 1 (None: nothing to restore)
_SILENCE: dict = {"depth": 0, "saved": None}
_SILENCE_LOCK = threading.Lock()


def _restore_stdout() -> None:
    """Descriptor 1 back from its saved copy, if one is saved."""
    saved, _SILENCE["saved"] = _SILENCE["saved"], None
    if saved is not None:
        try:
            os.dup2(saved, _STDOUT_FD)
        finally:
            os.close(saved)


def _after_fork_in_child() -> None:
    """A forked child (a process pool) starts with a lock of its own and descriptor 1 restored: the threads that held
    the lock or a silence in the parent do not exist in it."""
    global _SILENCE_LOCK
    _SILENCE_LOCK = threading.Lock()
    _SILENCE["depth"] = 0
    _restore_stdout()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _redirect_stdout() -> int | None:
    """Descriptor 1 sent to /dev/null; its saved copy, or None when there is none to silence (closed)."""
    try:
        saved = os.dup(_STDOUT_FD)
    except (OSError, ValueError):  # no descriptor 1 (closed): nothing to silence
        return None
    try:
        os.dup2(_devnull(), _STDOUT_FD)
    except OSError:
        os.close(saved)
        raise
    return saved


_DEVNULL: list[int] = []


def _devnull() -> int:
    """A descriptor on the null device, opened once per process (opening it per solve cost ~30 µs, 3 % of a small
    re-solve)."""
    if not _DEVNULL:
        _DEVNULL.append(os.open(os.devnull, os.O_WRONLY))
    return _DEVNULL[0]


def retry_presets(tol: Tolerance) -> list[Tolerance]:
    """``tol``, then the next looser preset (:data:`gaussqp.settings.LOOSER`) when there is one: the presets every
    solve path tries, in order, when the backend stalls (:func:`run_cvxpy`, :func:`gaussqp.backends.direct.solve_conic`)."""
    looser = PRESETS.get(LOOSER.get(tol.name, ""))
    return [tol] if looser is None else [tol, looser]


def run_cvxpy(prob: cp.Problem, backend: Backend, tol: Tolerance) -> tuple[str, dict]:
    """Solve ``prob`` with ``backend`` at tolerance ``tol``.

    Returns (gaussqp status, info). A backend exception is caught and reported as status
    "failed" with its message, so no backend exception leaks. When the backend stalls
    (iteration limit, inaccurate or error status) it is run once more at the next looser
    preset (:data:`gaussqp.settings.LOOSER`); the answer is judged by our own residual
    check afterwards either way, and ``info["attempts"]`` records what happened.
    """
    import cvxpy as cp

    info: dict = {"backend": backend.name, "attempts": []}
    t0 = time.perf_counter()
    status = "failed"
    for preset in retry_presets(tol):
        settings = backend.settings(preset)
        info["settings"] = settings
        try:
            with warnings.catch_warnings(), silence_c_stdout():
                warnings.simplefilter("ignore", UserWarning)  # cvxpy's "may be inaccurate": we check ourselves
                prob.solve(solver=backend.cvxpy_name, **settings)
        except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
            info["attempts"].append({"preset": preset.name, "error": f"{type(exc).__name__}: {exc}"})
            info["error"] = info["attempts"][-1]["error"]
            continue
        status = STATUS_MAP.get(prob.status, "failed")
        info["attempts"].append({"preset": preset.name, "cvxpy_status": prob.status})
        info.pop("error", None)
        if prob.status in (cp.OPTIMAL, cp.INFEASIBLE, cp.UNBOUNDED):
            break
    info["time_total"] = time.perf_counter() - t0
    info["cvxpy_status"] = prob.status
    stats = prob.solver_stats
    info["time_solve"] = getattr(stats, "solve_time", None) if stats else None
    info["time_setup"] = getattr(stats, "setup_time", None) if stats else None
    info["iterations"] = getattr(stats, "num_iters", None) if stats else None
    return status, info


class ProgramCache:
    """LRU cache of compiled cvxpy programs keyed by structure (DPP re-solves without recompiling)."""

    def __init__(self, size: int = PROGRAM_CACHE_SIZE):
        self.size = size
        self._store: OrderedDict = OrderedDict()

    def get(self, key, build: Callable):
        if key in self._store:
            self._store.move_to_end(key)
            return self._store[key], True
        prog = build()
        self._store[key] = prog
        if len(self._store) > self.size:
            self._store.popitem(last=False)
        return prog, False

    def clear(self) -> None:
        self._store.clear()
