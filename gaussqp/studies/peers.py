"""Peers of a study: another library's solvers on the same problems, judged by our own checks.

The peer is Siconos (``siconos.numerics``, the FCLIB reference library; Acary, Brémond, Huber 2018). It is never
imported by gaussqp: it runs in the interpreter that has it (:data:`~gaussqp.settings.STUDY_SICONOS_PYTHON`,
overridden by ``GAUSSQP_SICONOS_PYTHON``; Debian's ``apt-get install python3-siconos``) as a subprocess, with the
problem's matrices in an ``.npz`` file and the answer back as JSON. Each peer solver is a route of the study
(formulation ``siconos_…``, solver ``siconos``) on the problems whose local form it solves:

- ``lcp`` — Siconos's LCP solvers on the constrained contact LCP ``0 ≤ λ_u ⟂ A_c λ_u + w_c ≥ 0`` that our
  ``lcp_lemke`` (F3) solves (tutorial (31)-(33)), built by the same :func:`~gaussqp.mechanics.delassus.constrained_delassus`;
  (a, λ) are recovered as F3 recovers them (:func:`~gaussqp.formulations.delassus.recover_lcp`) and judged by
  :func:`~gaussqp.certificates.judge.finalize`, without polishing (it judges the peer's answer, not ours);
- ``fc2d`` / ``fc3d`` — Siconos's frictional-contact solvers on ``u = W r + q`` with Coulomb's law: a local
  (FCLIB) problem as given, an acceleration-level problem that F8 accepts in the condensed form F8 builds
  (:func:`~gaussqp.formulations.coulomb.condense`); judged by the recomputed natural map (and the dynamics
  residual), as F8's own answer is (:func:`~gaussqp.formulations.coulomb.global_solution`).

A peer run's ``status`` is the peer's claim (``solved`` when Siconos returns ``info == 0``, else ``failed``);
``certified`` is our verdict on its answer, so a claimed success that our checks reject is a claimed success that
is not correct (:mod:`gaussqp.studies.metrics`).

Run one peer solver on one problem: ``gaussqp peer FILE SOLVER [--tolerance T]`` (a study's reproducing command).
"""

from __future__ import annotations

import functools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import GaussQPError, MissingExtraError, UnknownValueError
from ..settings import (
    STUDY_PEER_ENUM_MAX,
    STUDY_PEER_ITER_MAX,
    STUDY_PEER_TIME_MARGIN,
    STUDY_SICONOS_PYTHON,
    STUDY_TIME_LIMIT,
    Tolerance,
    get_tolerance,
)


@dataclass(frozen=True)
class PeerSolver:
    """One solver of a peer library, a route of a study: ``name`` (the route's formulation column), ``peer``
    (the library, the route's solver column), ``problem`` (``lcp``, ``fc2d`` or ``fc3d``: the local form it
    solves), ``solver_id`` (the library's name of the solver), ``max_size`` (unknowns of an LCP or contacts of a
    friction problem above which it is not run: the enumerations are exponential), ``title``."""

    name: str
    peer: str
    problem: str
    solver_id: str
    title: str
    max_size: int | None = None


#: every peer solver, by route name (a registry as data: the runner and the CLI read it)
PEER_SOLVERS: dict[str, PeerSolver] = {
    s.name: s
    for s in (
        PeerSolver("siconos_lcp_lemke", "siconos", "lcp", "SICONOS_LCP_LEMKE", "Siconos lexicographic Lemke"),
        PeerSolver("siconos_lcp_pgs", "siconos", "lcp", "SICONOS_LCP_PGS", "Siconos projected Gauss-Seidel"),
        PeerSolver(
            "siconos_lcp_enum",
            "siconos",
            "lcp",
            "SICONOS_LCP_ENUM",
            "Siconos enumeration of the 2^k pieces",
            max_size=STUDY_PEER_ENUM_MAX,
        ),
        PeerSolver("siconos_fc2d_nsgs", "siconos", "fc2d", "SICONOS_FRICTION_2D_NSGS", "Siconos 2D NSGS"),
        PeerSolver(
            "siconos_fc2d_lemke",
            "siconos",
            "fc2d",
            "SICONOS_FRICTION_2D_LEMKE",
            "Siconos 2D friction as an LCP, by Lemke",
        ),
        PeerSolver("siconos_fc3d_nsgs", "siconos", "fc3d", "SICONOS_FRICTION_3D_NSGS", "Siconos 3D NSGS"),
        PeerSolver("siconos_fc3d_prox", "siconos", "fc3d", "SICONOS_FRICTION_3D_PROX", "Siconos 3D proximal point"),
        PeerSolver(
            "siconos_fc3d_nsn_ac",
            "siconos",
            "fc3d",
            "SICONOS_FRICTION_3D_NSN_AC",
            "Siconos 3D nonsmooth Newton (Alart-Curnier)",
        ),
    )
}
#: the peer libraries (the route's solver column)
PEERS = tuple(sorted({s.peer for s in PEER_SOLVERS.values()}))

#: the script the peer's interpreter runs: argv = input.npz output.json; the npz holds the kind, the matrices and
#: the solver; the JSON gets the answer, Siconos's ``info``, iterations, own error and the solve time
_SICONOS_SCRIPT = r"""
import json, sys, time
import numpy as np
import siconos.numerics as sn
d = np.load(sys.argv[1], allow_pickle=False)
kind, name = str(d["kind"]), str(d["solver"])
W, q = np.ascontiguousarray(d["W"], dtype=float), np.ascontiguousarray(d["q"], dtype=float)
o = sn.SolverOptions(getattr(sn, name))
o.dparam[sn.SICONOS_DPARAM_TOL] = float(d["tol"])
o.iparam[sn.SICONOS_IPARAM_MAX_ITER] = int(d["max_iter"])
x, y = np.zeros(q.size), np.zeros(q.size)
t = time.perf_counter()
if kind == "lcp":
    info = sn.linearComplementarity_driver(sn.LCP(W, q), x, y, o)
else:
    dim = 2 if kind == "fc2d" else 3
    p = sn.FrictionContactProblem(dim, q.size // dim, W, q, np.ascontiguousarray(d["mu"], dtype=float))
    info = (sn.fc2d_driver if dim == 2 else sn.fc3d_driver)(p, x, y, o)
t = time.perf_counter() - t
json.dump({"info": int(info), "time": t, "x": x.tolist(), "y": y.tolist(),
           "iterations": int(o.iparam[sn.SICONOS_IPARAM_ITER_DONE]),
           "own_error": float(o.dparam[sn.SICONOS_DPARAM_RESIDU])}, open(sys.argv[2], "w"))
"""


def siconos_python() -> str:
    """The interpreter that runs Siconos (``GAUSSQP_SICONOS_PYTHON``, else
    :data:`~gaussqp.settings.STUDY_SICONOS_PYTHON`)."""
    return os.environ.get("GAUSSQP_SICONOS_PYTHON") or STUDY_SICONOS_PYTHON


@functools.lru_cache(maxsize=None)
def _importable(python: str) -> bool:
    try:
        return (
            subprocess.run([python, "-c", "import siconos.numerics"], capture_output=True, timeout=60).returncode == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


#: what the peer's interpreter prints as its version: the library's own ``siconos.version`` (its ``__version__``
#: is a placeholder in Debian's build)
_SICONOS_VERSION = "import siconos; v = getattr(siconos, 'version', None); print(v() if callable(v) else v)"


@functools.lru_cache(maxsize=None)
def peer_version(peer: str = "siconos") -> str | None:
    """The version of a peer library as its interpreter reports it, with the Debian package's version when
    ``dpkg-query`` knows it (``"4.5.0 (Debian python3-siconos 4.4.0+dfsg-2)"``); None when it cannot be run."""
    if peer != "siconos":
        raise UnknownValueError("peers", f"{peer!r} is not a peer", f"use one of {', '.join(PEERS)}")
    try:
        run = subprocess.run([siconos_python(), "-c", _SICONOS_VERSION], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0 or not run.stdout.strip():
        return None
    version = run.stdout.strip().splitlines()[-1]
    try:
        deb = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "python3-siconos"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return version
    return (
        f"{version} (Debian python3-siconos {deb.stdout.strip()})"
        if deb.returncode == 0 and deb.stdout.strip()
        else version
    )


def available(peer: str = "siconos") -> bool:
    """True when the peer library can be run here (its interpreter imports it)."""
    if peer != "siconos":
        raise UnknownValueError("peers", f"{peer!r} is not a peer", f"use one of {', '.join(PEERS)}")
    return _importable(siconos_python())


def resolve_peers(spec) -> tuple[str, ...]:
    """The peers a study runs: ``None``/``"none"``/``()`` — none; ``"auto"`` — every peer available here;
    names (a comma-separated string or a sequence) — those, each of which must be available (else
    :class:`~gaussqp.errors.MissingExtraError` saying how to install it)."""
    if spec is None or spec == "none" or spec == ():
        return ()
    if spec == "auto":
        return tuple(p for p in PEERS if available(p))
    names = tuple(s.strip() for s in spec.split(",") if s.strip()) if isinstance(spec, str) else tuple(spec)
    for p in names:
        if p not in PEERS:
            raise UnknownValueError("peers", f"{p!r} is not a peer", f"use 'auto', 'none' or one of {', '.join(PEERS)}")
        if not available(p):
            raise MissingExtraError(
                f"peers: {p} cannot be run here ({siconos_python()} cannot import siconos.numerics); install it "
                "with 'apt-get install python3-siconos' or set GAUSSQP_SICONOS_PYTHON to an interpreter that has it"
            )
    return names


def _local_kind(problem) -> str | None:
    """``fc2d``/``fc3d`` when a peer's friction solver applies to ``problem`` (a local problem, or one that F8
    accepts), else None."""
    from ..formulations import FORMULATIONS

    # the problems of the mode-free route (the formulation that takes local problems): either form
    if not any(f.accepts_local and f.takes(problem)[0] for f in FORMULATIONS.values()):
        return None
    return {2: "fc2d", 3: "fc3d"}.get(problem.dimension)


def _lcp_applies(problem) -> bool:
    """True when ``problem`` has the contact LCP that ``lcp_lemke`` solves, with at least one unilateral row."""
    from ..formulations import FORMULATIONS

    try:
        ok, _ = FORMULATIONS["lcp_lemke"].takes(problem)  # False for a local problem (no rows to pivot on)
    except GaussQPError:
        return False
    return ok and problem.inequalities[0].shape[0] > 0


def peer_solvers_for(problem, peers: tuple[str, ...]) -> list[PeerSolver]:
    """The peer solvers of ``peers`` that apply to ``problem`` (in registry order)."""
    if not peers:
        return []
    kinds = set()
    if _lcp_applies(problem):
        kinds.add("lcp")
    k = _local_kind(problem)
    if k is not None:
        kinds.add(k)
    out = []
    for s in PEER_SOLVERS.values():
        if s.peer not in peers or s.problem not in kinds:
            continue
        if s.max_size is not None and _size(problem, s.problem) > s.max_size:
            continue
        out.append(s)
    return out


def _size(problem, kind: str) -> int:
    if kind == "lcp":
        return int(problem.inequalities[0].shape[0])
    return int(problem.m)


@dataclass
class PeerRun:
    """What one peer run gave: the judged :class:`~gaussqp.results.Solution` of its answer (None when it gave
    none), its claim, its own report, and the times (``build``: our local form, ``solve``: the peer's own timer,
    ``certify``: our judge, ``wall``: the subprocess)."""

    solution: object
    claimed_success: bool
    report: dict
    times: dict

    @property
    def confirmed(self) -> bool:
        """True when the peer claimed success and our judge certifies its answer as a solution (the peer row's
        ``certified``). A judge that turns a wrong answer into a certified ``infeasible`` verdict of the problem
        certifies our verdict, not the peer's claim."""
        sol = self.solution
        return bool(
            self.claimed_success
            and sol is not None
            and sol.certified
            and str(getattr(sol.status, "value", sol.status)) == "solved"
        )


def _die_with_parent() -> None:
    """In the peer's child process, before it runs: ask Linux to kill it when its parent dies (``prctl`` with
    ``PR_SET_PDEATHSIG``). The study's runner kills a worker whose run is past the time limit; without this the
    worker's Siconos process went on (an NSGS of 10,000 iterations for minutes) and slowed every later run."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the subprocess timeout still bounds the run
        pass


#: Linux's prctl option "signal me when my parent dies" (linux/prctl.h)
_PR_SET_PDEATHSIG = 1


def _call_siconos(kind: str, solver: PeerSolver, W, q, mu, tol: Tolerance, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="gaussqp-peer-") as tmp:
        inp, outp = Path(tmp) / "in.npz", Path(tmp) / "out.json"
        np.savez(
            inp,
            kind=np.array(kind),
            solver=np.array(solver.solver_id),
            W=np.asarray(W, dtype=float),
            q=np.asarray(q, dtype=float),
            mu=np.asarray(mu, dtype=float),
            tol=np.array(tol.solver),
            max_iter=np.array(STUDY_PEER_ITER_MAX),
        )
        try:
            run = subprocess.run(
                [siconos_python(), "-c", _SICONOS_SCRIPT, str(inp), str(outp)],
                capture_output=True,
                text=True,
                timeout=max(timeout, STUDY_PEER_TIME_MARGIN),
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
        except subprocess.TimeoutExpired:
            return {"timeout": True}
        if run.returncode != 0 or not outp.exists():
            last = (run.stderr or run.stdout or "").strip().splitlines()
            return {"crash": f"Siconos exited with code {run.returncode}" + (f": {last[-1]}" if last else "")}
        return json.loads(outp.read_text())


def run_peer(problem, name: str, tolerance="high", time_limit: float = STUDY_TIME_LIMIT) -> PeerRun:
    """Run peer solver ``name`` (:data:`PEER_SOLVERS`) on ``problem`` and judge its answer (module docstring).

    Raises :class:`~gaussqp.errors.UnknownValueError` for an unknown name, and
    :class:`~gaussqp.errors.NotApplicableError` when the solver does not apply to the problem."""
    from ..errors import NotApplicableError

    if name not in PEER_SOLVERS:
        raise UnknownValueError(
            "formulation", f"{name!r} is not a peer solver", f"use one of {', '.join(PEER_SOLVERS)}"
        )
    s = PEER_SOLVERS[name]
    if s not in peer_solvers_for(problem, (s.peer,)):
        raise NotApplicableError(
            f"peer solver {name!r} does not apply to this problem (it solves {s.problem} "
            "problems" + (f" of at most {s.max_size} unknowns" if s.max_size else "") + ")"
        )
    tol = get_tolerance(tolerance)
    t0 = time.perf_counter()
    local = _local_form(problem, s.problem)
    t1 = time.perf_counter()
    out = _call_siconos(
        s.problem,
        s,
        local["W"],
        local["q"],
        local.get("mu", np.zeros(0)),
        tol,
        time_limit - (t1 - t0) - STUDY_PEER_TIME_MARGIN,
    )
    t2 = time.perf_counter()
    times = {"build": t1 - t0, "wall": t2 - t1, "solve": float(out.get("time", t2 - t1)), "certify": math.nan}
    if out.get("timeout"):
        return PeerRun(None, False, {"timeout": True}, times)
    if "crash" in out:
        return PeerRun(None, False, out, times)
    report = {k: out[k] for k in ("info", "iterations", "own_error")}
    sol = _judge(problem, s, local, np.asarray(out["x"], dtype=float), np.asarray(out["y"], dtype=float), tol)
    times["certify"] = time.perf_counter() - t2
    return PeerRun(sol, out["info"] == 0, report, times)


def _local_form(problem, kind: str) -> dict:
    """The matrices handed to the peer: the constrained LCP (A_c, w_c) or the local friction form (W, q, μ)."""
    if kind == "lcp":
        from ..mechanics.delassus import constrained_delassus

        cd = constrained_delassus(problem)
        return {"W": cd.A_c, "q": cd.w_c, "cd": cd}
    if problem.form == "local":
        from ..linalg.dense import as_dense

        return {
            "W": as_dense(problem.W),
            "q": np.asarray(problem.q, dtype=float),
            "mu": np.asarray(problem.mu, dtype=float),
        }
    from ..formulations.coulomb import condense

    cd = condense(problem)
    return {"W": cd.W, "q": cd.q, "mu": cd.mu, "cd": cd}


def _judge(problem, s: PeerSolver, local: dict, x: np.ndarray, y: np.ndarray, tol: Tolerance):
    """Our verdict on the peer's answer ``x`` (λ_u, or the reaction r): the same judge as our own route's."""
    from ..results import SOLVED, JudgeHints, Solution

    if s.problem == "lcp":
        from ..certificates.judge import finalize
        from ..formulations.delassus import recover_lcp

        sol = Solution(
            problem=problem, status=SOLVED, formulation=s.name, solver=s.peer, hints=JudgeHints(polish_allowed=False)
        )
        sol = recover_lcp(problem, local["cd"], x, sol)
        return finalize(sol, tol)
    from ..formulations.coulomb import LocalAnswer, global_solution, local_solution

    u = np.asarray(local["W"] @ x).ravel() + local["q"]  # recomputed, not the peer's own u
    ans = LocalAnswer(x, u, 0, 0, [], s.peer, "solved", {})
    from ..certificates.judge import finalize

    if problem.form == "local":
        return finalize(local_solution(problem, ans, s.name), tol)
    return finalize(global_solution(problem, local["cd"], ans, s.name), tol)


def peer_report(run: PeerRun, solver: str) -> dict:
    """One peer run as plain data (``gaussqp peer``'s JSON): the peer's claim and report, our verdict, the times."""
    sol = run.solution
    return {
        "solver": solver,
        "claimed_success": run.claimed_success,
        "peer": run.report,
        "times": run.times,
        "certified": run.confirmed,
        "judged_status": None if sol is None else str(getattr(sol.status, "value", sol.status)),
        "residuals": {} if sol is None else {k: float(v) for k, v in sol.residuals.items() if v is not None},
    }


__all__ = [
    "PEERS",
    "PEER_SOLVERS",
    "PeerRun",
    "PeerSolver",
    "available",
    "peer_report",
    "peer_solvers_for",
    "peer_version",
    "resolve_peers",
    "run_peer",
    "siconos_python",
]
