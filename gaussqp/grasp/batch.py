"""Many grasps at a planner's speed: :func:`analyze_many`, the table and JSON lines it writes.

The answers are those of the one-at-a-time checks, certificates included; only the way a *candidate* certificate is
found changes. Force closure (:func:`force_closures`), for the grasps of one structure (the same cone sizes) at once:

1. **Rank test** per grasp, the one of :func:`~gaussqp.grasp.closure.force_closure` (row-equilibrated ``G``).
2. **Cheap candidates, vectorized** over the grasps: one batched SVD ``G = U S R`` gives the kernel ``N`` and the
   row space ``R`` of every ``G``; alternating projections (von Neumann; Bauschke–Borwein, SIAM Rev. 38 (1996)) between
   the affine set ``{G x = 0, Σ f_n = m}`` and the shrunk cones ``‖ν_i‖ <= c f_i`` (:data:`GRASP_BATCH_SHRINK`)
   look for an internal force strictly inside the cones; the same projections between ``{z ∈ range Gᵀ, Σ z_n = 1}``
   and the shrunk cones look for ``z = Gᵀy`` in the (self-dual) cones, a wrench ``y = U S⁻¹ R z`` that cannot be
   resisted. Both are conic Farkas alternatives (Ben-Tal–Nemirovski Prop. 2.4.2): at most one exists.
3. **Clarabel directly** (no cvxpy; the idiom of :mod:`gaussqp.backends.direct`) for the grasps no projection
   settled: the margin SOCP of :func:`~gaussqp.grasp.closure.force_closure`, ``max t s.t. G x = 0, Σ f_n = m,
   (f_i − t, ν_i) ∈ SOC``, whose equality multiplier on ``G x = 0`` is the unresisted wrench when ``t* <= 0``.
4. The cvxpy path itself (:func:`~gaussqp.grasp.closure.force_closure`) for anything still undecided.

Every candidate is judged by :func:`~gaussqp.grasp.closure.force_closure_from`, the single path's verification and
certificate builders: a cheap verdict is never a guessed one. What differs from the single path is the *margin* of a
projection-found internal force: its least cone slack at ``Σ f_n = m``, a verified lower bound on the single path's
``t*`` (``value["decided_by"]`` says which step decided).

ε (``"epsilon"``): :func:`~gaussqp.grasp.quality.epsilon` itself, one grasp at a time (the two qhull hulls are the
cost), without the local exact search by default (``exact=False``: the bracket is the proof and is the same).
``"metrics"``: :func:`~gaussqp.grasp.quality.grasp_metrics` (σ_min of ``G``, isotropy, the wrench-space volume
bracket). Large sets run on a process pool (``workers``), in chunks, results in input order.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import FileFormatError, GaussQPError, MissingExtraError, UnknownValueError, WrongTypeError
from ..jsonable import to_jsonable
from ..progress import Progress
from ..settings import (
    DEFAULT_FACETS,
    GRASP_BATCH_CHUNK,
    GRASP_BATCH_ITERATIONS,
    GRASP_BATCH_POOL_MIN,
    GRASP_BATCH_RELAX,
    GRASP_BATCH_SHRINK,
    GRASP_BATCH_SLACK_RTOL,
)
from .closure import margin_program, MarginProgram, force_closure, force_closure_from, force_closures_from
from .model import Grasp, GraspCheck, check_grasp
from .quality import epsilon, grasp_metrics

CHECKS = ("force_closure", "epsilon", "metrics")


# ---------------------------------------------------------------------------------------------- cone projections
def _project_cones(X: np.ndarray, sizes: Sequence[int], c: float) -> np.ndarray:
    """Euclidean projection of every row of ``X`` onto the product of the cones ``‖ν‖ <= c f`` (blocks ``sizes``;
    a block of size 1 onto ``f >= 0``). The projection of ``(f, ν)`` onto ``{‖ν‖ <= c f}`` is itself inside, 0 when
    ``c ‖ν‖ <= −f``, else ``(f', c f' ν/‖ν‖)`` with ``f' = (f + c ‖ν‖)/(1 + c²)``."""
    out = X.copy()
    k = 0
    for s in sizes:
        f = X[:, k]
        if s == 1:
            out[:, k] = np.maximum(f, 0.0)
        else:
            V = X[:, k + 1 : k + s]
            nv = np.linalg.norm(V, axis=1)
            fp = np.maximum((f + c * nv) / (1.0 + c * c), 0.0)
            boundary = nv > c * f
            scale = np.where(nv > 0, c * fp / np.where(nv > 0, nv, 1.0), 0.0)
            out[:, k] = np.where(boundary, fp, f)
            out[:, k + 1 : k + s] = np.where(boundary[:, None], V * scale[:, None], V)
        k += s
    return out


def _slacks(X: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """Per row the least ``f_i − ‖ν_i‖`` over the blocks (``f_i`` for a block of size 1)."""
    out, k = [], 0
    for s in sizes:
        out.append(X[:, k] - (np.linalg.norm(X[:, k + 1 : k + s], axis=1) if s > 1 else 0.0))
        k += s
    return np.min(np.column_stack(out), axis=1)


class _Alternation:
    """Alternating projections between ``A = {x ∈ span(basis rows), enᵀx = total}`` and the shrunk cones, for many
    grasps at once. ``basis`` (B, k, n) has orthonormal rows; :meth:`step` advances the given rows once and returns
    which of them are now strictly inside the exact cones (``least slack > GRASP_BATCH_SLACK_RTOL · total``)."""

    def __init__(self, basis: np.ndarray, en: np.ndarray, total: float, sizes: Sequence[int], c: float):
        B, _, n = basis.shape
        self.basis, self.total, self.sizes, self.c = basis, total, sizes, c
        E = np.broadcast_to(en, (B, n))
        u = self._span(basis, E)
        uu = np.einsum("bn,bn->b", u, u)
        self.usable = uu > GRASP_BATCH_SLACK_RTOL * float(en @ en)  # else no point of A has a positive normal total
        self.u, self.uu = u, np.where(self.usable, uu, 1.0)
        self.X = self._affine(basis, self.u, self.uu, E)

    @staticmethod
    def _span(basis, X):
        return np.einsum("bkn,bk->bn", basis, np.einsum("bkn,bn->bk", basis, X))

    def _affine(self, basis, u, uu, X):
        P = self._span(basis, X)
        return P + ((self.total - np.einsum("bn,bn->b", u, P)) / uu)[:, None] * u

    def inside(self, rows: np.ndarray | slice) -> np.ndarray:
        return self.usable[rows] & (_slacks(self.X[rows], self.sizes) > GRASP_BATCH_SLACK_RTOL * self.total)

    def step(self, rows: np.ndarray, relax: float = 1.0) -> np.ndarray:
        X = self.X[rows]
        Xa = self._affine(self.basis[rows], self.u[rows], self.uu[rows], _project_cones(X, self.sizes, self.c))
        self.X[rows] = X + relax * (Xa - X)  # both in the affine set: so is the (over-)relaxed step
        return self.inside(rows)


def _candidates(Gs: np.ndarray, sizes: Sequence[int], iterations: int, c: float):
    """Per grasp of one structure (``Gs`` (B, w, n), scaled grasp maps): an internal-force candidate (row of X, when
    ``found_x``) and an unresisted-wrench candidate (row of Y, when ``found_y``). Module docstring, step 2: the
    primal and the dual searches advance in lock-step, and a grasp leaves both as soon as either finds a point."""
    B, w, n = Gs.shape
    none = np.zeros(B, dtype=bool)
    if n < w:  # rank deficient whatever the data: the rank test decides
        return np.zeros((B, n)), none, np.zeros((B, w)), none.copy()
    U, s, Vh = np.linalg.svd(Gs, full_matrices=True)
    en = np.zeros(n)
    k = 0
    for sz in sizes:
        en[k] = 1.0
        k += sz
    ok = s[:, -1] > 0
    primal = _Alternation(Vh[:, w:, :], en, float(len(sizes)), sizes, c) if n > w else None
    dual = _Alternation(Vh[:, :w, :], en, 1.0, sizes, c)
    fx = ok & primal.inside(slice(None)) if primal is not None else none.copy()
    fy = ok & ~fx & dual.inside(slice(None))
    ap = np.flatnonzero(ok & ~fx & ~fy & (primal.usable if primal is not None else none))
    ad = np.flatnonzero(ok & ~fx & ~fy & dual.usable)
    for _ in range(iterations):
        if not (ap.size or ad.size):
            break
        if ap.size and primal is not None:
            fx[ap[primal.step(ap, GRASP_BATCH_RELAX)]] = True
        if ad.size:
            fy[ad[dual.step(ad, GRASP_BATCH_RELAX)]] = True
        done = fx | fy
        ap, ad = ap[~done[ap]], ad[~done[ad]]
    X = primal.X if primal is not None else np.zeros((B, n))
    Rz = np.einsum("bkn,bn->bk", Vh[:, :w, :], dual.X)
    Y = np.einsum("bij,bj->bi", U, Rz / np.where(s > 0, s, 1.0))
    return X, fx, Y, fy


# ---------------------------------------------------------------------------------------------- force closure
def force_closures(
    grasps: Sequence[Grasp],
    *,
    iterations: int = GRASP_BATCH_ITERATIONS,
    shrink: float = GRASP_BATCH_SHRINK,
    progress: Progress | None = None,
) -> list[GraspCheck]:
    """Force closure of many grasps with the exact cones, the verdicts and certificates of
    :func:`~gaussqp.grasp.closure.force_closure` (module docstring: rank test, vectorized projections, Clarabel
    directly, the cvxpy path last).

    Parameters
    ----------
    grasps : sequence of Grasp
    iterations : int
        Alternating-projection sweeps per grasp structure (0: go straight to Clarabel).
    shrink : float
        ``c`` in ``‖ν_i‖ <= c f_i``, the shrunk cones the projections aim at (0 < c <= 1).
    progress : Progress, optional
        Updated once per grasp.

    Returns
    -------
    list of GraspCheck
        In input order; ``value["decided_by"]`` is ``"rank"``, ``"projection"``, ``"clarabel"`` or ``"cvxpy"``.

    Notes
    -----
    Murray–Li–Sastry Prop. 5.2 (interior internal force at full rank ⇔ force closure); the conic Farkas lemma
    (Ben-Tal–Nemirovski Prop. 2.4.2) for the unresisted wrench. A candidate counts only when
    :func:`~gaussqp.grasp.closure.force_closure_from` verifies it.
    """
    gs = [check_grasp(g, f"grasps[{i}]") for i, g in enumerate(grasps)]
    if not (0 < shrink <= 1):
        raise UnknownValueError("shrink", f"is {shrink!r}", "give 0 < shrink <= 1")
    out: list[GraspCheck | None] = [None] * len(gs)
    groups: dict[tuple, list[int]] = {}
    for i, g in enumerate(gs):
        groups.setdefault((g.wrench_dimension, tuple(g.sizes())), []).append(i)
    for (_, sizes), idx in groups.items():
        t0 = time.perf_counter()
        sub = [gs[i] for i in idx]
        Gs = np.stack([g.grasp_map(scaled=True) for g in sub])
        X, fx, Y, fy = _candidates(Gs, sizes, iterations, shrink)
        xs: list = [X[r] if fx[r] else None for r in range(len(idx))]
        ys: list = [Y[r] if fy[r] else None for r in range(len(idx))]
        how = ["projection"] * len(idx)
        statuses = ["projection"] * len(idx)
        program: MarginProgram | None = None
        for r in np.flatnonzero(~fx & ~fy).tolist():  # no cheap candidate: Clarabel's, verified with the others
            if program is None:
                program = margin_program(tuple(sizes), Gs.shape[1])
            xs[r], ys[r], status = program.candidates(Gs[r], sub[r].m)
            how[r] = "clarabel"
            statuses[r] = f"clarabel {status}"
        checks = force_closures_from(sub, xs, ys, "candidate")
        share = (time.perf_counter() - t0) / len(idx)
        for r, i in enumerate(idx):
            g, chk = gs[i], checks[r]
            if chk is not None and chk.certificate is not None:
                if chk.certificate.id.endswith("_rank"):
                    how[r] = "rank"
                else:
                    chk.certificate.data["backend_status"] = statuses[r]
            if chk is None and how[r] == "projection":  # a cheap candidate that did not verify: Clarabel's
                if program is None:
                    program = margin_program(tuple(sizes), Gs.shape[1])
                x, y, status = program.candidates(Gs[r], g.m)
                chk = force_closure_from(g, internal_force=x, unresisted_wrench=y, backend_status=f"clarabel {status}")
                how[r] = "clarabel"
            if chk is None:
                chk, how[r] = force_closure(g), "cvxpy"
            chk.value["decided_by"] = how[r]
            chk.times["batch_share"] = share
            out[i] = chk
            if progress is not None:
                progress.update()
    return [c for c in out if c is not None]


# ---------------------------------------------------------------------------------------------- analyze_many
@dataclass
class GraspResult:
    """The checks of one grasp of a batch: ``index`` (input order), ``name``, ``checks`` (name → GraspCheck)."""

    index: int
    name: str
    contacts: int
    dimension: int
    checks: dict = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        """Every check with a verdict (force closure, ε; not the metrics) has a certificate that verified."""
        return all(c.certified for k, c in self.checks.items() if k != "metrics")

    def row(self) -> dict:
        """One flat row of the results table (numbers and strings only)."""
        r: dict[str, Any] = {
            "index": self.index,
            "grasp": self.name,
            "contacts": self.contacts,
            "dimension": self.dimension,
            "certified": self.certified,
        }
        fc = self.checks.get("force_closure")
        if fc is not None:
            r.update(
                {
                    "force_closure": fc.holds,
                    "force_closure_certified": fc.certified,
                    "force_closure_certificate": fc.certificate.id if fc.certificate else None,
                    "force_closure_margin": fc.margin,
                    "decided_by": fc.value.get("decided_by"),
                }
            )
        eps = self.checks.get("epsilon")
        if eps is not None:
            lo, up = eps.value.get("lower"), eps.value.get("upper")
            r.update(
                {
                    "epsilon": eps.holds,
                    "epsilon_lower": lo,
                    "epsilon_upper": up,
                    "epsilon_width": None if lo is None or up is None else up - lo,
                    "epsilon_facets": eps.value.get("facets"),
                    "epsilon_certified": eps.certified,
                }
            )
        mt = self.checks.get("metrics")
        if mt is not None:
            r.update({k: mt.value.get(k) for k in ("sigma_min", "isotropy", "volume_lower", "volume_upper")})
        return r

    def to_dict(self) -> dict:
        """The JSON line: the row's identity and every check with its certificate (evidence included)."""
        return {
            "index": self.index,
            "grasp": self.name,
            "contacts": self.contacts,
            "dimension": self.dimension,
            "certified": self.certified,
            **{k: c.to_dict() for k, c in self.checks.items()},
        }


def _check_checks(checks) -> tuple[str, ...]:
    if isinstance(checks, str):
        checks = (checks,)
    try:
        cs = tuple(checks)
    except TypeError:
        raise WrongTypeError("checks", f"is a {type(checks).__name__}", f"give a list of {', '.join(CHECKS)}") from None
    bad = [c for c in cs if c not in CHECKS]
    if bad or not cs:
        raise UnknownValueError(
            "checks", f"holds {bad[0]!r}" if bad else "is empty", f"give one or more of {', '.join(CHECKS)}"
        )
    return cs


def _analyze_chunk(args) -> list[GraspResult]:
    """One chunk of :func:`analyze_many` (a process-pool task): (start index, grasps, checks, facets, norm, exact)."""
    start, gs, checks, facets, norm, exact = args
    return _analyze(start, gs, checks, facets, norm, exact, None)


def _analyze(
    start: int, gs: list, checks: tuple, facets: int, norm: str, exact: bool, progress: Progress | None
) -> list[GraspResult]:
    res = [GraspResult(start + i, g.name, g.m, g.dimension) for i, g in enumerate(gs)]
    if "force_closure" in checks:
        for r, c in zip(res, force_closures(gs, progress=progress if checks == ("force_closure",) else None)):
            r.checks["force_closure"] = c
    for r, g in zip(res, gs):
        if "epsilon" in checks:
            r.checks["epsilon"] = epsilon(g, facets=facets, norm=norm, exact=exact)
        if "metrics" in checks:
            r.checks["metrics"] = grasp_metrics(g, facets=facets, norm=norm, epsilon_check=r.checks.get("epsilon"))
        if progress is not None and checks != ("force_closure",):
            progress.update()
    return res


def _analyze_dask(tasks: list, scheduler: str | None, client: Any, workers: int, bar: Progress) -> list[GraspResult]:
    """:func:`analyze_many`'s chunks on Dask distributed (the given ``client``, or one of ``scheduler``), gathered
    in input order."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise MissingExtraError("Dask distributed is not installed: pip install 'gaussqp[dask]'") from None
    cluster = own = None
    if client is None:
        if scheduler == "local":
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        own = client = Client(cluster if cluster is not None else scheduler)
    try:
        futures = {client.submit(_analyze_chunk, t, pure=False): k for k, t in enumerate(tasks)}
        parts: dict[int, list[GraspResult]] = {}
        for f in as_completed(futures):
            parts[futures[f]] = f.result()
            for _ in parts[futures[f]]:
                bar.update()
        return [r for k in range(len(tasks)) for r in parts[k]]
    finally:
        if own is not None:
            own.close()
        if cluster is not None:
            cluster.close()


def analyze_many(
    grasps: Iterable[Grasp],
    *,
    checks: Sequence[str] | str = ("force_closure",),
    facets: int = DEFAULT_FACETS,
    norm: str = "L1",
    exact: bool = False,
    workers: int | None = None,
    progress: bool = False,
    chunk: int = GRASP_BATCH_CHUNK,
    scheduler: str | None = None,
    client: Any = None,
) -> list[GraspResult]:
    """Analyze many grasps: the checks of :func:`~gaussqp.grasp.analyze` a planner ranks by, in input order, with
    the certificates of the one-at-a-time checks (module docstring).

    Parameters
    ----------
    grasps : iterable of Grasp
    checks : ``"force_closure"`` (default), ``"epsilon"``, ``"metrics"`` (any of them)
    facets, norm : the polygons bracketing the exact cones and the ε norm (:func:`~gaussqp.grasp.epsilon`)
    exact : also run ε's local exact search (an extra upper bound; the bracket is the same without it)
    workers : process-pool size; None or 1 runs in this process (a pool only from
        :data:`~gaussqp.settings.GRASP_BATCH_POOL_MIN` grasps)
    progress : show a progress bar (tqdm when installed) on stderr
    chunk : grasps per pool (or Dask) task
    scheduler : run the chunks on Dask distributed (extra ``gaussqp[dask]``): ``"local"`` for a new
        ``LocalCluster`` of ``workers`` single-threaded processes, else a scheduler address (``tcp://HOST:PORT``)
    client : a ``distributed.Client`` already connected (instead of ``scheduler``; left open)

    Returns
    -------
    list of GraspResult
        ``results[i]`` answers ``grasps[i]``; :func:`write_table` / :func:`write_jsonl` save them.

    Notes
    -----
    Force closure: Murray–Li–Sastry Prop. 5.2 with the exact cones; ε: Ferrari & Canny (ICRA 1992), bracketed by
    inscribed and circumscribed polygons; every verdict carries a certificate verified in NumPy.
    """
    gs = [check_grasp(g, f"grasps[{i}]") for i, g in enumerate(grasps)]
    cs = _check_checks(checks)
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise UnknownValueError("workers", f"is {workers!r}", "give a positive number of processes (or None)")
    if not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 1:
        raise UnknownValueError("chunk", f"is {chunk!r}", "give a positive number of grasps per task")
    if scheduler is not None and client is not None:
        raise UnknownValueError("scheduler", "is given with client", "give one of scheduler= and client=")
    if scheduler is not None and not isinstance(scheduler, str):
        raise WrongTypeError("scheduler", f"is a {type(scheduler).__name__}", "give 'local' or 'tcp://HOST:PORT'")
    bar = Progress(len(gs), bool(progress), desc="analyze_many", unit="grasp")
    try:
        if scheduler is not None or client is not None:
            tasks = [(k, gs[k : k + chunk], cs, facets, norm, exact) for k in range(0, len(gs), chunk)]
            return _analyze_dask(tasks, scheduler, client, workers or 1, bar)
        if workers is None or workers == 1 or len(gs) < GRASP_BATCH_POOL_MIN:
            return _analyze(0, gs, cs, facets, norm, exact, bar)
        from concurrent.futures import ProcessPoolExecutor

        tasks = [(k, gs[k : k + chunk], cs, facets, norm, exact) for k in range(0, len(gs), chunk)]
        out: list[GraspResult] = []
        with ProcessPoolExecutor(max_workers=min(workers, os.cpu_count() or 1)) as pool:
            for part in pool.map(_analyze_chunk, tasks):
                out.extend(part)
                for _ in part:
                    bar.update()
        return out
    finally:
        bar.close()


# ---------------------------------------------------------------------------------------------- input and output
def read_jsonl(path) -> list[Grasp]:
    """The grasps of a JSON-lines file, one ``gaussqp-grasp/1`` object per line (blank lines skipped).

    Raises
    ------
    FileFormatError
        Naming the line (``FILE:LINE``) of a line that is not a grasp, and what is wrong with it.
    """
    from .format import loads

    p = Path(path)
    if not p.is_file():
        raise FileFormatError(
            str(p), "is not a readable file", "give a .jsonl file with one gaussqp-grasp/1 object per line"
        )
    out = []
    with p.open("rb") as f:
        for k, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                g = loads(line)
            except GaussQPError as exc:
                raise FileFormatError(
                    f"{p.name}:{k}",
                    f"is not a gaussqp-grasp/1 object ({exc})",
                    f"fix line {k} (one JSON grasp object per line)",
                ) from None
            if not g.name:
                g.name = f"{p.stem}:{k}"
            out.append(g)
    return out


def read_grasps(path) -> list[Grasp]:
    """The grasps of a ``.jsonl`` file (:func:`read_jsonl`) or of a directory's ``*.json`` / ``*.jsonl`` files (in
    name order)."""
    from .format import load

    p = Path(path)
    if p.is_dir():
        out: list[Grasp] = []
        files = sorted(q for q in p.iterdir() if q.suffix.lower() in (".json", ".jsonl"))
        if not files:
            raise FileFormatError(
                str(p), "holds no .json or .jsonl grasp file", "give a directory of gaussqp-grasp/1 files"
            )
        for q in files:
            if q.suffix.lower() == ".jsonl":
                out += read_jsonl(q)
            else:
                g = load(q)
                if not g.name:
                    g.name = q.stem
                out.append(g)
        return out
    if p.suffix.lower() == ".jsonl":
        return read_jsonl(p)
    g = load(p)
    return [g]


def write_jsonl(results: Sequence[GraspResult], path) -> None:
    """One JSON object per line (:meth:`GraspResult.to_dict`), in input order."""
    with Path(path).open("w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(to_jsonable(r.to_dict())) + "\n")


def write_table(results: Sequence[GraspResult], path) -> str:
    """The results table (:meth:`GraspResult.row`): Parquet for a ``.parquet`` path (pandas and pyarrow, the
    ``studies`` extra), else CSV. Returns the path written."""
    rows = [r.row() for r in results]
    p = Path(path)
    if p.suffix.lower() == ".parquet":
        try:
            import pandas as pd
        except ImportError:
            raise MissingExtraError(
                "a Parquet table needs pandas and pyarrow: pip install gaussqp[studies] (or write a .csv)"
            ) from None
        try:
            pd.DataFrame(rows).to_parquet(p, index=False)
        except ImportError:
            raise MissingExtraError(
                "a Parquet table needs pyarrow: pip install gaussqp[studies] (or write a .csv)"
            ) from None
        return str(p)
    import csv

    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with p.open("w", newline="", encoding="utf-8") as f:
        wr = csv.DictWriter(f, fieldnames=keys)
        wr.writeheader()
        for r in rows:
            wr.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return str(p)


__all__ = [
    "CHECKS",
    "GraspResult",
    "analyze_many",
    "force_closures",
    "read_grasps",
    "read_jsonl",
    "write_jsonl",
    "write_table",
]
