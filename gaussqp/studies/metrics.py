"""Per-route metrics of a cross-validation study: rates, shifted geometric means, performance profiles.

A study's results table has one row per (problem, route) run (the columns are listed in
:data:`REQUIRED_COLUMNS` and :data:`OPTIONAL_COLUMNS`); a *route* is the triple (formulation, solver,
tolerance preset). For each route :func:`route_metrics` counts

- **claims**: the route said it has the answer: ``status == "solved"``, or a verdict that no solution exists
  (``infeasible``/``unbounded``, :data:`VERDICT_STATUSES`); the ``success`` column counts them;
- **correct**: a claim that our own checks confirm (``certified``: for an answer, our recomputed residuals; for a
  verdict, its verified certificate) and that the reference answer does not contradict (``agrees_with_reference``
  is not False). A certified infeasible or unbounded verdict that is right is a success like a solution. This is the issue's "correct rate"; qpbenchmark's correct rate is the fraction of runs whose success
  flag was honest, so it also counts an honest failure as correct -- here honest failures are counted apart;
- **honest failure**: no claim, and a status that says so (``inaccurate``, ``failed``, ``timeout``);
- **wrong claim**: a claim that our checks reject (``certified`` False: a peer's ``info == 0`` on an answer whose
  recomputed residual fails, even when the problem has no reference) or that the reference contradicts
  (``certified_wrong`` counts the claims that passed our checks and are still contradicted, the worst case).
  A certified answer that differs from a *consensus* reference when no uniqueness of the compared quantity is
  established (neither an exact reference nor the answer's own ``unique`` flags, stored in the ``answer`` column)
  is not contradicted: it is a solution by our check, and the consensus is only another one (Coulomb friction
  problems may have several solutions; ill-conditioned hyperstatic ones have certified answers far apart). It is
  counted as correct and flagged ``disputed``, so the report can list it;
- **errors**: runs that raised (``status == "error"``),

and summarizes time and residual by **shifted geometric means** normalized to the best route
(qpbenchmark's method: ``sgm(v) = exp(mean(log(v + s))) - s`` with the shift ``s`` =
:data:`gaussqp.settings.STUDY_SGM_SHIFT` = 10, each route's mean divided by the smallest), also given in seconds.
**Time is the solve alone** (the ``time`` column of :func:`classify`): the table's ``solve_time`` when recorded --
a peer's own timer around its solver call inside its process, so neither the interpreter's start nor the file
exchange is charged to it; our route's own solve time -- else ``total_time``. A run that is not correct is charged
a penalty, as qpbenchmark charges a run whose solver found no solution: its time is the time limit, its residual
the larger of its own and the preset's residual tolerance (:data:`gaussqp.settings.PRESETS`); a correct run with
no recorded time or residual is charged the same (an unknown is not counted as fast or accurate). qpbenchmark
charges only the runs with no claimed solution; we charge every run that is not correct, so a fast wrong answer
does not make a route look fast. A correct verdict is charged its own time and no residual.

:func:`performance_profile` computes the Dolan--Moré performance profile (E. D. Dolan, J. J. Moré,
"Benchmarking optimization software with performance profiles", Math. Program. 91 (2002), eq. (1)-(2)): for
problem p and route s, ``r_ps = t_ps / min_s t_ps`` over the routes that solved p correctly, ``r_ps = ∞`` when
route s did not (a failure, or no run of s on p), and ``ρ_s(τ) = |{p : r_ps <= τ}| / |P|`` over every problem
of the table. The FCLIB study of Acary et al. summarizes solvers the same way.

pandas is needed (the optional extra ``gaussqp[studies]``); it is imported when a function is called.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np

from ..errors import FileFormatError, MagnitudeError, MissingExtraError, NonNumericError, UnknownValueError
from ..settings import STUDY_PROFILE_RESIDUAL_FLOOR, STUDY_PROFILE_TIME_FLOOR, STUDY_SGM_SHIFT, get_tolerance

if TYPE_CHECKING:
    import pandas as pd

#: the columns that identify a route
ROUTE_KEYS = ("formulation", "solver", "tolerance")

#: the columns the metrics read (the results table's contract has more; see :data:`OPTIONAL_COLUMNS`)
REQUIRED_COLUMNS = (
    "problem",
    "formulation",
    "solver",
    "tolerance",
    "status",
    "certified",
    "residual",
    "total_time",
    "agrees_with_reference",
)

#: columns read when present: the stored flags (compared with the recomputed ones), the reference's kind, the
#: gaps, the reproducing command, a per-run time limit
OPTIONAL_COLUMNS = (
    "set",
    "claimed_success",
    "correct",
    "honest_failure",
    "reference",
    "acceleration_gap",
    "generalized_force_gap",
    "command",
    "error",
    "time_limit",
    "build_time",
    "solve_time",
    "certify_time",
    "certificates",
    "answer",
)

#: statuses of a run that gave up and said so
HONEST_FAILURE_STATUSES = frozenset({"inaccurate", "failed", "timeout"})

#: statuses that are verdicts rather than answers: a claim that no solution exists, correct when certified and not
#: contradicted
VERDICT_STATUSES = frozenset({"infeasible", "unbounded"})

#: the metrics a performance profile can compare, each with its floor (values below it are compared as it)
PROFILE_FLOORS = {
    "time": STUDY_PROFILE_TIME_FLOOR,
    "total_time": STUDY_PROFILE_TIME_FLOOR,
    "solve_time": STUDY_PROFILE_TIME_FLOOR,
    "build_time": STUDY_PROFILE_TIME_FLOOR,
    "certify_time": STUDY_PROFILE_TIME_FLOOR,
    "residual": STUDY_PROFILE_RESIDUAL_FLOOR,
}

#: the columns of :func:`route_metrics`
METRIC_COLUMNS = (
    "formulation",
    "solver",
    "tolerance",
    "route",
    "runs",
    "success",
    "success_rate",
    "correct",
    "correct_rate",
    "honest_failures",
    "honest_failure_rate",
    "wrong_claims",
    "certified_wrong",
    "errors",
    "timeouts",
    "disputed",
    "sgm_time_seconds",
    "sgm_time",
    "sgm_residual_raw",
    "sgm_residual",
    "median_time_seconds",
    "max_time_seconds",
)


def require_pandas():
    """pandas, or :class:`MissingExtraError` saying what to install."""
    try:
        import pandas
    except ImportError as exc:
        raise MissingExtraError("study metrics need pandas: pip install 'gaussqp[studies]'") from exc
    return pandas


def route_label(formulation: Any, solver: Any, tolerance: Any) -> str:
    """The route's name in reports and profiles: ``formulation/solver/tolerance``."""
    return f"{formulation}/{solver}/{tolerance}"


def _tri(value: Any, column: str) -> bool | None:
    """True, False or None (unknown) from a table cell: a bool, None/NaN/NA, 0/1, or the strings a CSV gives."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in {"true", "1"}:
            return True
        if text in {"false", "0"}:
            return False
        if text in {"", "none", "nan", "<na>", "null"}:
            return None
    elif isinstance(value, (int, np.integer)) and int(value) in (0, 1):
        return bool(value)
    elif isinstance(value, (float, np.floating)) and math.isnan(value):
        return None
    elif np.ndim(value) == 0 and bool(require_pandas().isna(value)):
        return None
    raise UnknownValueError(column, f"has the value {value!r}", "use True, False or an empty cell (unknown)")


def _numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    pd = require_pandas()
    try:
        values = pd.to_numeric(frame[column], errors="raise").to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise NonNumericError(
            column,
            f"has a value that is not a number ({exc})",
            "write seconds / residuals as numbers, NaN when unknown",
        ) from exc
    if (values[np.isfinite(values)] < 0).any() or np.isneginf(values).any():
        raise MagnitudeError(column, "has a negative value", "times and residuals are >= 0 (NaN when unknown)")
    return values


#: the key of a DataFrame's ``attrs`` that :func:`classify` sets on the frames it returns
CLASSIFIED = "gaussqp_classified"


def classify(table: pd.DataFrame | Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The results table, checked and normalized, with each run classified.

    Parameters
    ----------
    table
        A pandas DataFrame or an iterable of row dicts, with at least the columns :data:`REQUIRED_COLUMNS`.

    Returns
    -------
    DataFrame
        One row per (problem, route) -- a repeated pair keeps its last row (a resumed study may append a
        run again) -- with ``problem_key`` (the problem, or ``set/problem`` when one id appears in two sets),
        ``route`` (:func:`route_label`), the flags recomputed from ``status``,
        ``certified`` and ``agrees_with_reference`` by the rules of the module docstring: ``claimed_success``
        (status solved), ``claim`` (solved or a verdict), ``correct`` (= ``right``), ``honest_failure``,
        ``wrong_claim``, ``certified_wrong``, ``error_run``; ``agrees`` (True / False / None), ``residual``,
        ``total_time`` and ``time`` (the solve alone: ``solve_time`` when recorded, else ``total_time``) as
        floats, and ``stored_flags_differ``: True where the
        table's own ``claimed_success`` / ``correct`` / ``honest_failure`` (when present) differ from the
        recomputed ones. A frame this function returned is returned as it is (its ``attrs`` carry
        :data:`CLASSIFIED`): the report, the metrics, the profiles and the CLI classify a table once.

    Raises
    ------
    FileFormatError
        A required column is missing.
    UnknownValueError, NonNumericError, MagnitudeError
        A flag that is not a boolean, a time or residual that is not a number or is negative.
    """
    pd = require_pandas()
    if isinstance(table, pd.DataFrame) and table.attrs.get(CLASSIFIED):
        return table
    frame = table.copy() if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table))
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise FileFormatError(
            "results table",
            f"has no column {', '.join(missing)}",
            f"give one row per (problem, route) run with the columns {', '.join(REQUIRED_COLUMNS)}",
        )
    for column in ("problem", "formulation", "solver", "tolerance", "status"):
        frame[column] = frame[column].astype(str)
    # a problem is (set, problem) when the table has sets: the same id in two sets is two problems, and is then
    # shown as set/problem
    if "set" in frame.columns and (frame.groupby("problem")["set"].nunique(dropna=False) > 1).any():
        frame["problem_key"] = frame["set"].astype(str) + "/" + frame["problem"]
    else:
        frame["problem_key"] = frame["problem"]
    frame = frame.drop_duplicates(subset=["problem_key", *ROUTE_KEYS], keep="last").reset_index(drop=True)

    status = frame["status"].to_numpy(dtype=object)
    certified = np.array([_tri(v, "certified") is True for v in frame["certified"]], dtype=bool)
    agrees = [_tri(v, "agrees_with_reference") for v in frame["agrees_with_reference"]]
    differs = np.array([a is False for a in agrees], dtype=bool)
    exact_ref = (
        np.array([str(r).startswith("exact:") for r in frame["reference"]], dtype=bool)
        if "reference" in frame.columns
        else np.zeros(len(frame), dtype=bool)
    )
    unique = (
        np.array([_claims_uniqueness(a) for a in frame["answer"]], dtype=bool)
        if "answer" in frame.columns
        else np.zeros(len(frame), dtype=bool)
    )
    claimed = status == "solved"
    claim = claimed | np.isin(status, list(VERDICT_STATUSES))
    disputed = claim & certified & differs & ~exact_ref & ~unique
    contradicted = differs & ~disputed
    correct = claim & certified & ~contradicted
    honest = ~claim & np.isin(status, list(HONEST_FAILURE_STATUSES))

    stored_differ = np.zeros(len(frame), dtype=bool)
    for column, recomputed in (("claimed_success", claimed), ("correct", correct), ("honest_failure", honest)):
        if column in frame.columns:
            stored = np.array([_tri(v, column) for v in frame[column]], dtype=object)
            stored_differ |= np.array([s is not None and s != r for s, r in zip(stored, recomputed)], dtype=bool)
    stored_differ &= ~disputed  # the stored reference judging calls a disputed answer contradicted (listed apart)

    frame["route"] = [route_label(*k) for k in zip(*(frame[c] for c in ROUTE_KEYS))]
    frame["residual"] = _numbers(frame, "residual")
    frame["total_time"] = _numbers(frame, "total_time")
    solve = _numbers(frame, "solve_time") if "solve_time" in frame.columns else np.full(len(frame), np.nan)
    frame["time"] = np.where(np.isfinite(solve), solve, frame["total_time"].to_numpy(dtype=float))
    frame["certified"] = certified
    frame["agrees"] = pd.Series(agrees, dtype=object, index=frame.index)
    frame["claimed_success"] = claimed
    frame["claim"] = claim
    frame["correct"] = correct
    frame["honest_failure"] = honest
    # "right" is "correct": a confirmed answer or a confirmed infeasible/unbounded verdict -- neither is charged a
    # penalty time nor left out of the performance profile (a route that proves "no solution" fast is fast)
    frame["right"] = correct
    frame["wrong_claim"] = claim & (contradicted | ~certified)
    frame["certified_wrong"] = claim & contradicted & certified
    frame["disputed"] = disputed
    frame["error_run"] = status == "error"
    frame["stored_flags_differ"] = stored_differ
    frame.attrs[CLASSIFIED] = True
    return frame


def _claims_uniqueness(answer: Any) -> bool:
    """True when a run's stored answer (the ``answer`` column, :func:`gaussqp.studies.reference.answer_json`) says
    its acceleration or generalized force is unique."""
    if not isinstance(answer, str) or not answer:
        return False
    try:
        unique = json.loads(answer).get("unique") or {}
    except (json.JSONDecodeError, AttributeError):
        return False
    return bool(unique.get("acceleration") is True or unique.get("generalized_force") is True)


def shifted_geometric_mean(values: Iterable[float], *, shift: float = STUDY_SGM_SHIFT) -> float:
    """The shifted geometric mean ``exp(mean(log(v_i + s))) - s`` of non-negative values.

    Computed as ``s · expm1(mean(log1p(v_i / s)))`` (the same number, without the cancellation of ``exp(·) - s``
    for values far below ``s``). Source: qpbenchmark ``shgeom`` (github.com/qpsolvers/qpbenchmark), after H.
    Mittelmann's benchmarks (plato.asu.edu/ftp/shgeom.html). NaN for no values.

    Raises
    ------
    MagnitudeError
        A value is negative or not finite, or the shift is not positive.
    """
    v = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    if not (np.isfinite(shift) and shift > 0):
        raise MagnitudeError("shift", f"is {shift!r}", "use a positive shift (qpbenchmark uses 10)")
    if v.size == 0:
        return math.nan
    if not np.isfinite(v).all() or (v < 0).any():
        raise MagnitudeError("values", "has a negative or non-finite value", "charge failures a finite penalty")
    return float(shift * np.expm1(np.mean(np.log1p(v / shift))))


def penalty_time(frame: pd.DataFrame, time_limit: float | None = None) -> tuple[float, str]:
    """The time charged to a run that is not correct, and a sentence saying where it comes from.

    ``time_limit`` when given; else the largest value of the table's ``time_limit`` column when it has one;
    else -- no limit recorded -- the slowest recorded run (a failure then costs as much as the slowest run,
    a lower bound of what a limit would charge). NaN when the table has no time at all.
    """
    if time_limit is not None:
        limit = float(time_limit)
        if not (np.isfinite(limit) and limit > 0):
            raise MagnitudeError("time_limit", f"is {time_limit!r}", "give the study's per-run limit in seconds (> 0)")
        return limit, f"the time limit ({limit:g} s)"
    if "time_limit" in frame.columns:
        limits = _numbers(frame, "time_limit")
        limits = limits[np.isfinite(limits) & (limits > 0)]
        if limits.size:
            return float(limits.max()), f"the time limit recorded in the table ({limits.max():g} s)"
    times = frame["time"].to_numpy(dtype=float)
    times = times[np.isfinite(times)]
    if times.size:
        return float(times.max()), f"the slowest recorded run ({times.max():.3g} s; the table records no time limit)"
    return math.nan, "nothing (the table records no time)"


def _normalize(values: np.ndarray) -> np.ndarray:
    """Each value divided by the smallest finite one (qpbenchmark: 1.0 is the best); a best of 0 gives 1 to
    the routes at 0 and ∞ to the others."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return np.full_like(values, np.nan)
    best = finite.min()
    if best > 0:
        return values / best
    return np.where(values == 0, 1.0, np.where(np.isnan(values), np.nan, np.inf))


def route_metrics(
    table: pd.DataFrame | Iterable[Mapping[str, Any]], *, time_limit: float | None = None
) -> pd.DataFrame:
    """Per route (formulation, solver, tolerance): counts, rates and normalized shifted geometric means.

    Parameters
    ----------
    table
        The results table (DataFrame or row dicts); see :func:`classify`.
    time_limit
        Seconds charged to each run that is not correct (see :func:`penalty_time` for the default).

    Returns
    -------
    DataFrame
        One row per route, sorted by route, with the columns :data:`METRIC_COLUMNS`: ``runs``; the counts
        ``success`` (claims: solved or a verdict), ``correct``, ``honest_failures``, ``wrong_claims``,
        ``certified_wrong``, ``errors``, ``timeouts`` and the rates ``success_rate``, ``correct_rate``,
        ``honest_failure_rate`` (fractions of the route's runs); ``sgm_time_seconds`` and ``sgm_residual_raw``,
        the shifted geometric means over the route's runs with the penalties of the module docstring, and
        ``sgm_time`` / ``sgm_residual``, the same divided by the best route's (1.0 is the best);
        ``median_time_seconds`` and ``max_time_seconds`` of the route's correct runs (absolute, no penalty). The
        means are over each route's own runs: routes that accept different problems are compared on different
        sets (the performance profile is over all problems).
    """
    pd = require_pandas()
    frame = classify(table)
    if frame.empty:
        return pd.DataFrame(columns=list(METRIC_COLUMNS))
    penalty, _ = penalty_time(frame, time_limit)
    time_charged = np.where(frame["right"] & np.isfinite(frame["time"]), frame["time"], penalty)
    tolerance = np.array([get_tolerance(t).residual for t in frame["tolerance"]], dtype=float)
    residual = frame["residual"].to_numpy(dtype=float)
    own = np.where(np.isfinite(residual), residual, 0.0)
    answer = frame["correct"] & frame["claimed_success"]
    residual_charged = np.where(answer & np.isfinite(residual), residual, np.maximum(own, tolerance))
    # a confirmed verdict has no answer whose residual means anything: its certificate was verified, charge nothing
    residual_charged = np.where(frame["right"] & ~frame["claimed_success"], 0.0, residual_charged)
    frame = frame.assign(_time=time_charged, _residual=residual_charged)

    rows = []
    for keys, group in frame.groupby(list(ROUTE_KEYS), sort=True):
        runs = len(group)
        counts = {
            name: int(group[column].sum())
            for name, column in (
                ("success", "claim"),
                ("correct", "correct"),
                ("honest_failures", "honest_failure"),
                ("wrong_claims", "wrong_claim"),
                ("certified_wrong", "certified_wrong"),
                ("errors", "error_run"),
            )
        }
        counts["timeouts"] = int((group["status"] == "timeout").sum())
        counts["disputed"] = int(group["disputed"].sum())
        times = group["_time"].to_numpy(dtype=float)
        own_times = group.loc[group["right"], "time"].to_numpy(dtype=float)
        own_times = own_times[np.isfinite(own_times)]
        rows.append(
            {
                "formulation": keys[0],
                "solver": keys[1],
                "tolerance": keys[2],
                "route": route_label(*keys),
                "runs": runs,
                **counts,
                "success_rate": counts["success"] / runs,
                "correct_rate": counts["correct"] / runs,
                "honest_failure_rate": counts["honest_failures"] / runs,
                "sgm_time_seconds": (shifted_geometric_mean(times) if np.isfinite(times).all() else math.nan),
                "sgm_residual_raw": shifted_geometric_mean(group["_residual"].to_numpy(dtype=float)),
                "median_time_seconds": float(np.median(own_times)) if own_times.size else math.nan,
                "max_time_seconds": float(own_times.max()) if own_times.size else math.nan,
            }
        )
    out = pd.DataFrame(rows)
    out["sgm_time"] = _normalize(out["sgm_time_seconds"].to_numpy(dtype=float))
    out["sgm_residual"] = _normalize(out["sgm_residual_raw"].to_numpy(dtype=float))
    return out[list(METRIC_COLUMNS)].sort_values("route").reset_index(drop=True)


def performance_ratios(table: pd.DataFrame | Iterable[Mapping[str, Any]], metric: str = "time") -> pd.DataFrame:
    """The Dolan--Moré performance ratios ``r_ps = t_ps / min_s t_ps`` (problems × routes).

    ``t_ps`` is ``max(metric, floor)`` (:data:`PROFILE_FLOORS`) of route s's run on problem p when that run is
    correct; a run that is not correct, has no value, or does not exist has ``r_ps = ∞``, and so has every
    route on a problem no route solved correctly. Source: Dolan & Moré (2002), eq. (1).

    Raises
    ------
    UnknownValueError
        ``metric`` is not one of :data:`PROFILE_FLOORS`.
    """
    pd = require_pandas()
    if metric not in PROFILE_FLOORS:
        raise UnknownValueError("metric", f"is {metric!r}", f"use one of {', '.join(PROFILE_FLOORS)}")
    frame = classify(table)
    if metric not in frame.columns:
        raise FileFormatError("results table", f"has no column {metric}", "profile a column the table records")
    values = _numbers(frame, metric)
    usable = frame["right"].to_numpy(dtype=bool) & np.isfinite(values)
    cost = np.where(usable, np.maximum(np.where(usable, values, 0.0), PROFILE_FLOORS[metric]), np.inf)
    grid = (
        pd.DataFrame({"problem": frame["problem_key"], "route": frame["route"], "cost": cost})
        .pivot(index="problem", columns="route", values="cost")
        .sort_index(axis=0)
        .sort_index(axis=1)
    )
    costs = grid.to_numpy(dtype=float)
    costs = np.where(np.isnan(costs), np.inf, costs)  # no run of that route on that problem
    best = costs.min(axis=1, initial=np.inf, keepdims=True)
    with np.errstate(invalid="ignore"):
        ratios = np.where(np.isfinite(best), costs / best, np.inf)
    return pd.DataFrame(ratios, index=grid.index, columns=grid.columns)


def performance_profile(
    table: pd.DataFrame | Iterable[Mapping[str, Any]], metric: str = "time", *, taus: Iterable[float] | None = None
) -> pd.DataFrame:
    """The Dolan--Moré performance profile ``ρ_s(τ) = |{p : r_ps <= τ}| / |P|`` of every route.

    Parameters
    ----------
    table
        The results table; see :func:`classify`.
    metric
        The compared quantity, one of :data:`PROFILE_FLOORS` (lower is better).
    taus
        The values of τ (>= 1); by default 1 and every finite ratio of the table, sorted (ρ is a step function
        that changes only there).

    Returns
    -------
    DataFrame
        Index ``tau`` (sorted), one column per route, values in [0, 1]. ``ρ_s(1)`` is the fraction of problems
        on which route s was (one of) the best; ``ρ_s(τ)`` for large τ tends to the fraction it solved
        correctly. P is every problem of the table (:func:`performance_ratios`). Source: Dolan & Moré (2002),
        eq. (2).
    """
    pd = require_pandas()
    ratios = performance_ratios(table, metric)
    r = ratios.to_numpy(dtype=float)
    if taus is None:
        grid = np.unique(np.concatenate([[1.0], r[np.isfinite(r)]]))
    else:
        grid = np.sort(np.asarray(list(taus), dtype=float))
        if grid.size == 0 or not np.isfinite(grid).all() or (grid < 1).any():
            raise MagnitudeError(
                "taus",
                "has a value below 1 or not finite, or is empty",
                "give finite τ >= 1 (r_ps >= 1 by construction)",
            )
    n = r.shape[0]
    rho = (r[None, :, :] <= grid[:, None, None]).sum(axis=1) / n if n else np.zeros((grid.size, r.shape[1]))
    return pd.DataFrame(rho, index=pd.Index(grid, name="tau"), columns=ratios.columns)
