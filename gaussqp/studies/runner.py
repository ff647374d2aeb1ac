"""Running a cross-validation study: every route on every problem of a set, each run in a worker
process with a time limit, the rows stored as they finish, then judged against each problem's reference.

Engines: a local :class:`concurrent.futures.ProcessPoolExecutor` of ``workers`` processes (the default), or a
Dask distributed cluster (``scheduler="tcp://HOST:PORT"``, or ``dask=True`` for a ``LocalCluster`` of
``workers`` processes) running the same :func:`run_task`. No scheduler of our own: the pool or Dask hands the
runs to the workers.

Time limit, local pool: at most ``workers`` runs are in flight, so each starts when it is submitted; a run still
going ``time_limit`` seconds after it started is recorded with status ``timeout``, the pool's processes are
killed and a new pool takes the other runs in flight again (they restart). On Dask a worker runs each task in a
thread and gives up waiting after ``time_limit`` (recording ``timeout``), but Dask cannot kill the thread: the
abandoned run keeps its worker's CPU until it ends.
"""

from __future__ import annotations

import functools
import json
import math
import multiprocessing
import shlex
import sys
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Callable, Iterable

from ..certificates.judge import withdraw_outside_the_disks
from ..errors import NotApplicableError, UnknownValueError
from ..formulations import FORMULATIONS, Formulation
from ..linalg.blas_threads import one_blas_thread
from ..model.problem import unknowns
from ..certificates.compiled import expect_many_calls as expect_many_checks
from ..friction.compiled import expect_many_calls
from ..progress import Progress
from ..settings import COULOMB_NN_DENSE_MAX, STUDY_FLUSH_INTERVAL, STUDY_TIME_LIMIT, get_tolerance
from .reference import answer_json, attach_reference, verdicts
from .peers import resolve_peers
from .routes import Route, check_options, routes_for
from .sets import PROBLEMS_FILE, ProblemSet, describe, parse_set
from .store import COLUMNS, ResultsStore, key_of, to_frame


def pack(problem) -> dict:
    """A problem as plain data for another process (the problem classes are immutable and do not pickle): its NPZ
    members, arrays (:func:`gaussqp.io.gaussqp_format.npz_members`), for either form. Arrays, not the JSON form:
    rebuilding a problem of 10⁵ entries from JSON lists took seconds, counted against the run's time limit."""
    from ..io.gaussqp_format import npz_members

    return npz_members(problem)


def unpack(data: dict):
    """The problem :func:`pack` packed, rebuilt (and validated) by its constructor."""
    from ..io.gaussqp_format import problem_from_npz_members

    return problem_from_npz_members(data)


@dataclass
class Task:
    """One run: problem ``problem_id`` of set ``set_name`` (``problem``: :func:`pack`'s data) on ``route``.
    ``formulation`` is the registered object
    itself (so a formulation registered by the caller runs in the worker too); ``command`` reproduces the run."""

    set_name: str
    problem_id: str
    problem: object
    route: Route
    formulation: Formulation | None
    command: str
    time_limit: float = STUDY_TIME_LIMIT

    @property
    def key(self) -> tuple:
        return (self.set_name, self.problem_id, self.route.formulation, self.route.solver, self.route.tolerance)


def _base_row(task: Task) -> dict:
    r = task.route
    return {
        "problem": task.problem_id,
        "set": task.set_name,
        "formulation": r.formulation,
        "solver": r.solver,
        "tolerance": r.tolerance,
        "status": "error",
        "certified": False,
        "claimed_success": False,
        "residual": math.nan,
        "certificates": "",
        "build_time": math.nan,
        "solve_time": math.nan,
        "certify_time": math.nan,
        "total_time": math.nan,
        "acceleration_gap": math.nan,
        "generalized_force_gap": math.nan,
        "reference": "none",
        "agrees_with_reference": None,
        "correct": False,
        "honest_failure": False,
        "error": "",
        "command": task.command,
        "answer": "",
    }


def _time(v: float | None) -> float:
    return math.nan if v is None else float(v)


@functools.lru_cache(maxsize=1)
def warm_process() -> None:
    """What a process does once, before its first timed run and untimed: a run's time is its solve, as a peer's is its
    solve without its process start (issue #27 item 5). The compiled kernels are compiled at their first call in a
    fresh installation (numba, ~10 s; loaded from numba's cache after, ~0.1 s), and the routes import what they use
    lazily: a study's first run of a mode-free route was charged 6.9 s where its solve takes 10 ms. Here a point mass
    on two mode-free contacts is solved with its cross-check (the dense Newton method, F9's map), frictionless by
    Lemke's method, and a dense and a sparse Newton run that iterate load every kernel of the Newton method at the
    routes' argument types (the point mass converges at its start, so its solves call neither the Newton matrix nor a
    line search). A local pool's parent
    warms up before it forks its workers (:func:`run_local`), so that the warm-up is not counted against the first
    runs' time limit; a Dask worker warms up in its first task."""
    expect_many_calls()
    expect_many_checks()
    try:
        _warm_routes()
    except Exception:  # noqa: BLE001 - a warm-up only: a route that fails here fails again in its own run, as an error row
        pass


def _warm_routes() -> None:
    """:func:`warm_process`'s solves."""
    import numpy as np

    from ..dispatch import solve
    from ..friction.compiled import kernels
    from ..model.problem import Contact, ContactProblem

    for d in (2, 3):
        tangent = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]][: d - 1]
        for mode in ("coulomb", "frictionless"):
            contacts = [
                Contact("unilateral", normal=[0.0, x, 1.0], friction=0.5, mode=mode, tangent=tangent)
                for x in (-0.5, 0.5)
            ]
            p = ContactProblem(np.diag([1.0, 1.0, 2.0]), [1.0, 0.0, 9.81], contacts, dimension=d)
            solve(p, crosscheck=True, formulation="lcp_lemke" if mode == "frictionless" else "auto")
    if kernels() is not None:
        # a dense and a sparse Newton run that iterate: every kernel loaded at the routes' argument types
        import scipy.sparse as sp

        from ..friction.nonsmooth_newton import solve_newton

        solve_newton(np.eye(3), np.array([-1.0, 2.0, 0.0]), np.full(1, 0.5), 3, max_iter=1)  # sticking is not exact
        N = 3 * (COULOMB_NN_DENSE_MAX // 3 + 1)  # above the dense size, W 1 % nonzero: the sparse Newton
        W = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(N, N), format="csr")
        solve_newton(W, np.tile([-1.0, 2.0, 0.0], N // 3), np.full(N // 3, 0.5), 3, max_iter=1)


def run_task(task: Task) -> dict:
    """Run one task in this process and return its row of the results table (without the reference columns).

    The route is solved as ``gaussqp solve --formulation F --solver S --tolerance T --no-crosscheck`` solves it:
    ``accepts``, then :meth:`Formulation.solve` (the formulation's program, the backend, the judge); a local
    problem through :func:`gaussqp.solve` (the mode-free Coulomb route). Any exception is the row's ``error``
    (status ``"error"``), never raised. Times: ``solve_time`` is the backend's (cvxpy's ``solve`` call) or, for a
    route without backend, the whole formulation's; ``build_time`` the rest of the formulation (building the
    program, recovering (a, λ)); ``certify_time`` the judge's; ``total_time`` the wall time of the run."""
    row = _base_row(task)
    r = task.route
    warm_process()  # a study is a loop of solves: the compiled kernels loaded (and compiled) before the first run
    t0 = time.perf_counter()
    if r.peer:
        return _run_peer_task(task, row, t0)
    try:
        problem = unpack(task.problem)
        f = task.formulation if task.formulation is not None else FORMULATIONS[r.formulation]
        ok, why = f.takes(problem)  # either form: a local problem by accepts_local
        if not ok:
            raise NotApplicableError(f"formulation {r.formulation!r} does not accept this problem: {why}")
        with one_blas_thread(unknowns(problem)):
            sol = f.solve(
                problem, solver=r.backend if f.kind == "cvxpy" else None, tolerance=get_tolerance(r.tolerance)
            )
        withdraw_outside_the_disks(sol)  # as gaussqp.solve: a route without the disks answers only inside them
    except Exception as e:  # a route's failure is a row of the study, whatever it is
        row["error"] = _error_text(e)
        row["total_time"] = time.perf_counter() - t0
        return row
    row["total_time"] = time.perf_counter() - t0
    status = str(getattr(sol.status, "value", sol.status))
    row["status"] = status
    row["certified"] = bool(sol.certified)
    row["claimed_success"] = status == "solved"
    _record_answer(row, sol)
    t = sol.timing  # the fixed fields every route fills (gaussqp.results.Timing)
    row["build_time"], row["certify_time"] = _time(t.build), _time(t.certify)
    row["solve_time"] = _time(t.solve if t.solve is not None else t.total)
    row["error"] = ""
    return row


def _error_text(e: BaseException) -> str:
    """A run's exception as one line of the ``error`` column."""
    return f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__


def _record_answer(row: dict, sol) -> None:
    """The columns a run's answer fills, ours or a peer's: the largest recomputed residual, the certificates that
    hold, and the answer's JSON (from which the reference is recomputed)."""
    vals = [float(v) for v in sol.residuals.values() if v is not None]
    row["residual"] = max(vals) if vals else math.nan
    row["certificates"] = ";".join(c.id for c in sol.certificates if c.holds)
    row["answer"] = answer_json(sol)


def _run_peer_task(task: Task, row: dict, t0: float) -> dict:
    """:func:`run_task` of a peer route (:func:`gaussqp.studies.peers.run_peer`): ``status`` is the peer's claim
    (``solved``/``failed``; ``timeout`` when its process outlived the time limit), ``certified`` our judge's
    verdict on its answer; ``solve_time`` the peer's own timer, ``build_time`` our local form, ``certify_time``
    our judge; a failed claim's ``error`` says what the peer reported."""
    from .peers import run_peer

    r = task.route
    try:
        run = run_peer(unpack(task.problem), r.formulation, r.tolerance, task.time_limit)
    except Exception as e:  # a route's failure is a row of the study, whatever it is
        row["error"] = _error_text(e)
        row["total_time"] = time.perf_counter() - t0
        return row
    row["total_time"] = time.perf_counter() - t0
    row["build_time"], row["solve_time"] = run.times["build"], run.times["solve"]
    row["certify_time"] = run.times["certify"]
    if run.report.get("timeout"):
        row.update(status="timeout", error=f"time limit of {task.time_limit:g} s reached")
        return row
    if "crash" in run.report:
        row["error"] = run.report["crash"]
        return row
    sol = run.solution
    row["status"] = "solved" if run.claimed_success else "failed"
    row["claimed_success"] = run.claimed_success
    row["certified"] = run.confirmed
    _record_answer(row, sol)
    rep = run.report
    row["error"] = (
        ""
        if run.claimed_success
        else f"peer info={rep['info']} after {rep['iterations']} iterations, own error {rep['own_error']:.2e}"
    )
    return row


def _timeout_row(task: Task, limit: float) -> dict:
    row = _base_row(task)
    row.update(status="timeout", total_time=float(limit), error=f"time limit of {limit:g} s reached")
    return row


def _error_row(task: Task, e: BaseException) -> dict:
    row = _base_row(task)
    row["error"] = f"{type(e).__name__}: {e}".splitlines()[0]
    return row


def run_task_limited(task: Task, time_limit: float) -> dict:
    """:func:`run_task` in a thread of this process, given up after ``time_limit`` seconds (a ``timeout`` row; the
    thread is left to finish): the time limit on a Dask worker, which cannot kill its tasks."""
    box: list[dict] = []
    th = threading.Thread(target=lambda: box.append(run_task(task)), daemon=True)
    th.start()
    th.join(time_limit)
    return box[0] if box else _timeout_row(task, time_limit)


def _kill(pool: ProcessPoolExecutor) -> None:
    """Stop the pool's processes now (a run past its time limit is in one of them)."""
    kill = getattr(pool, "kill_workers", None)  # Python >= 3.14
    if callable(kill):
        kill()
    else:
        for p in list((getattr(pool, "_processes", None) or {}).values()):
            p.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def _pool(workers: int) -> ProcessPoolExecutor:
    methods = multiprocessing.get_all_start_methods()
    # fork: the workers inherit what the caller registered (a formulation added with register) and start at once
    ctx = multiprocessing.get_context("fork") if "fork" in methods and sys.version_info < (3, 14) else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx)


def run_local(tasks: Iterable[Task], *, workers: int, time_limit: float, on_row: Callable[[dict], None]) -> None:
    """Run ``tasks`` on a local process pool of ``workers`` processes, at most ``workers`` in flight, calling
    ``on_row`` with each finished row (timeouts and errors included)."""
    pending = deque(tasks)
    running: dict = {}
    warm_process()  # before the workers fork from this process: they inherit it, outside every run's time limit
    pool = _pool(workers)
    try:
        while pending or running:
            while pending and len(running) < workers:
                t = pending.popleft()
                running[pool.submit(run_task, t)] = (t, time.monotonic() + time_limit)
            wait(
                list(running),
                timeout=max(0.0, min(d for _, d in running.values()) - time.monotonic()),
                return_when=FIRST_COMPLETED,
            )
            broken = False
            for fut in [f for f in running if f.done()]:
                t, _ = running.pop(fut)
                try:
                    on_row(fut.result())
                except BrokenProcessPool as e:  # a worker died (a crash in a solver): this run is an error
                    broken = True
                    on_row(_error_row(t, e))
            now = time.monotonic()
            expired = [f for f, (_, d) in running.items() if d <= now]
            if expired or broken:
                for f in expired:
                    t, _ = running.pop(f)
                    on_row(_timeout_row(t, time_limit))
                for f, (t, _) in list(running.items()):
                    pending.appendleft(t)  # killed with the pool: run again
                running.clear()
                _kill(pool)
                pool = _pool(workers)
    finally:
        _kill(pool) if running else pool.shutdown(wait=True)


def run_dask(
    tasks: Iterable[Task], *, scheduler: str | None, workers: int, time_limit: float, on_row: Callable[[dict], None]
) -> None:
    """Run ``tasks`` on Dask distributed: the cluster at ``scheduler`` (``tcp://HOST:PORT``), or a new
    ``LocalCluster`` of ``workers`` single-threaded processes when it is None; each task is
    :func:`run_task_limited` (the time limit) and ``on_row`` gets each row as it finishes."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as e:
        raise NotApplicableError(f"Dask distributed is not installed ({e}): pip install 'gaussqp[dask]'") from e
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        window = max(1, 4 * sum(client.nthreads().values()))
        it = iter(tasks)
        live = {}
        ac = as_completed()
        for t in it:
            fut = client.submit(run_task_limited, t, time_limit, pure=False)
            live[fut.key] = t
            ac.add(fut)
            if len(live) >= window:
                break
        for fut in ac:
            t = live.pop(fut.key)
            try:
                on_row(fut.result())
            except Exception as e:  # the worker lost the task (it died): an error row, the study goes on
                on_row(_error_row(t, e))
            nxt = next(it, None)
            if nxt is not None:
                f2 = client.submit(run_task_limited, nxt, time_limit, pure=False)
                live[f2.key] = nxt
                ac.add(f2)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _command(source: str, route: Route) -> str:
    if route.peer:
        return " ".join(["gaussqp", "peer", shlex.quote(source), route.formulation, "--tolerance", route.tolerance])
    parts = ["gaussqp", "solve", shlex.quote(source), "--formulation", route.formulation]
    if route.backend is not None:
        parts += ["--solver", route.backend]
    parts += ["--tolerance", route.tolerance, "--no-crosscheck", "--json"]
    return " ".join(parts)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def run_study(
    set: str | ProblemSet,
    *,
    formulations=None,
    solvers=None,
    tolerances=("high",),
    out=None,
    workers: int = 1,
    scheduler: str | None = None,
    dask: bool = False,
    time_limit: float = STUDY_TIME_LIMIT,
    facetized: bool = False,
    progress: bool = True,
    system_class=None,
    max_n: int | None = None,
    max_m: int | None = None,
    peers=None,
):
    """Run every route on every problem of ``set``, judge each run against the problem's reference, store the
    results in ``out`` and return them.

    Parameters
    ----------
    set
        ``"library"``, ``"families[:COUNT[:SEED]]"``, a directory, or a :class:`~gaussqp.studies.sets.ProblemSet`
    formulations, solvers, tolerances
        restrict the routes (:func:`~gaussqp.studies.routes.routes_for`)
    out
        directory of the results (``results.jsonl`` journal, ``results.parquet`` or ``results.csv`` table,
        ``problems/`` files of generated problems for the reproducing commands, ``skipped.json``); a re-run with
        the same ``out`` resumes: finished (set, problem, formulation, solver, tolerance) runs are not run again.
        None: nothing stored.
    workers
        local worker processes (or the Dask ``LocalCluster``'s with ``dask=True``)
    scheduler
        address of a Dask distributed scheduler (``tcp://HOST:PORT``): the runs go there
    dask
        run on a new Dask ``LocalCluster`` of ``workers`` processes
    time_limit
        seconds per run; a run past it is a ``timeout`` row
    facetized
        include the facetized variants (F5 polygons, polygonal Coulomb enumerations)
    progress
        a progress bar (tqdm) or counter line on stderr
    system_class, max_n, max_m
        filters of the set (:class:`~gaussqp.studies.sets.ProblemSet`)
    peers
        peer libraries whose solvers run too (:func:`gaussqp.studies.peers.resolve_peers`: None or ``"none"``,
        ``"auto"`` for every one available here, or names, each of which must be available)

    Returns
    -------
    pandas.DataFrame with the columns of :data:`gaussqp.studies.store.COLUMNS` (a list of dicts without pandas),
    one row per (problem, route) of this directory (earlier studies' rows included); the number of runs executed
    by this call (0 on a full resume) is ``df.attrs["runs"]`` and ``run_stats["runs"]``.
    """
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise UnknownValueError("workers", f"{workers!r} is not a worker count", "give an integer >= 1")
    if not isinstance(time_limit, (int, float)) or not time_limit > 0:
        raise UnknownValueError("time_limit", f"{time_limit!r} is not a time limit", "give seconds > 0")
    check_options(formulations, solvers, tolerances)
    peer_names = resolve_peers(peers)
    filters = {"system_class": system_class, "max_n": max_n, "max_m": max_m}
    pset = parse_set(set, **filters) if not isinstance(set, ProblemSet) else set
    store = ResultsStore(out) if out is not None else None
    rows: dict[tuple, dict] = {}
    if store is not None:
        rows = {key_of(r): r for r in store.load()}
    done = {k for k in rows}

    described: dict[str, dict] = {}  # problems.json: each problem's class and size, for the report's tables

    def tasks():
        for pid, p in pset:
            described[f"{pset.name}\t{pid}"] = describe(pset.name, pid, p)
            source = pset.source(pid)
            todo = [
                r
                for r in routes_for(
                    p,
                    formulations=formulations,
                    solvers=solvers,
                    tolerances=tolerances,
                    facetized=facetized,
                    peers=peer_names,
                )
                if (pset.name, pid, r.formulation, r.solver, r.tolerance) not in done
            ]
            if not todo:
                continue
            if source is None:
                source = _problem_file(store, pset.name, pid, p)
            data = pack(p)
            for r in todo:
                yield Task(pset.name, pid, data, r, FORMULATIONS.get(r.formulation), _command(source, r), time_limit)

    todo = list(tasks())
    count = {"runs": 0}
    bar = Progress(len(todo), progress, desc="crossval", unit="run")
    last = [time.monotonic()]

    def on_row(row: dict) -> None:
        rows[key_of(row)] = row
        count["runs"] += 1
        if store is not None:
            store.append(row)
            if time.monotonic() - last[0] >= STUDY_FLUSH_INTERVAL:
                store.write_table([verdicts(dict(r)) for r in rows.values()])
                last[0] = time.monotonic()
        bar.update()

    try:
        if scheduler is not None or dask:
            run_dask(todo, scheduler=scheduler, workers=workers, time_limit=time_limit, on_row=on_row)
        else:
            run_local(todo, workers=workers, time_limit=time_limit, on_row=on_row)
    finally:
        bar.close()
    del todo
    judged = _judge(pset, list(rows.values()))
    if store is not None:
        store.write_table(judged)
        store.compact(judged)
        (store.dir / "skipped.json").write_text(json.dumps(getattr(pset, "skipped", {}), indent=1) + "\n")
        (store.dir / PROBLEMS_FILE).write_text(json.dumps(list(described.values()), indent=1) + "\n")
    run_stats.update(runs=count["runs"], rows=len(judged))
    try:
        df = to_frame(judged)
    except ImportError:
        return judged
    df.attrs["runs"] = count["runs"]
    return df


#: what the last :func:`run_study` did in this process: ``runs`` (runs executed now, 0 on a full resume) and
#: ``rows`` (rows of the table)
run_stats: dict = {"runs": 0, "rows": 0}


def _problem_file(store: ResultsStore | None, set_name: str, pid: str, problem) -> str:
    """A file holding a generated problem, for the reproducing command (``out/problems/``), or a placeholder when
    nothing is stored."""
    if store is None:
        return f"{set_name}/{pid}"
    from ..io.gaussqp_format import dump

    path = store.dir / "problems" / _safe(set_name) / f"{_safe(pid)}.json"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        dump(problem, path)
    return str(path.resolve())


def _judge(pset: ProblemSet, rows: list[dict]) -> list[dict]:
    """Every row with its reference columns, as the table stores them: :func:`gaussqp.studies.reference.attach_reference`
    over the set, iterated once more (lazily); rows of problems the set does not yield keep the reference columns
    they have (a later study in the same directory on another set)."""
    judged = attach_reference(rows, (((pset.name, pid), p) for pid, p in pset))
    return [{k: r.get(k) for k in COLUMNS} for r in judged]


__all__ = ["Task", "run_dask", "run_local", "run_stats", "run_study", "run_task", "run_task_limited"]
