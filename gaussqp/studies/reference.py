"""The reference answer of each problem of a study, and every run's gap to it.

Per problem, the reference is, in this order:

1. ``exact:<formulation>`` — the certified answer of an exact route where one applies: Lemke's pivoting on the
   Delassus LCP (``lcp_lemke``, F3), the exact enumerations (``sliding_enumeration``, ``coulomb_enumeration``,
   F6) or the bilateral KKT solve (``bilateral_kkt``, F7), at the tightest tolerance run;
2. ``consensus:<k>`` — else the largest cluster of *certified* answers that agree with one another (a run
   joins the first cluster whose first member it agrees with), ``k`` its size; when two clusters that disagree
   tie for the largest there is no consensus;
3. ``none`` — no certified answer, or no consensus: ``agrees_with_reference`` is None for every run.

Agreement is :func:`gaussqp.crosscheck.crosscheck_report`'s, at the run's own tolerance preset
(``crosscheck``): answers agree on Jᵀλ always and on the acceleration when the reference says it is unique, with
the gaps at the data's scale (:func:`gaussqp.model.scales.data_scales`); a certified infeasible or unbounded
verdict agrees with either (both prove that no solution exists: F1's descent ray says "unbounded" where the piece
enumeration finds no piece and says "infeasible"); a run that failed or whose answer failed its own checks is not compared (None).
A local (Delassus) FCLIB problem has no acceleration or Jᵀλ: only its verdicts are compared.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from typing import Iterable, Mapping

import numpy as np

from ..crosscheck import crosscheck_report
from ..results import INF_OR_UNB, SOLUTION_PRESENT, Solution, Status
from ..settings import PRESETS, get_tolerance

#: the exact routes, in the order a reference is taken from them
EXACT_ROUTES = ("lcp_lemke", "bilateral_kkt", "sliding_enumeration", "coulomb_enumeration")
#: statuses of a run that produced no gaussqp answer at all
NO_ANSWER = ("error", "timeout")
_TOL_ORDER = {name: i for i, name in enumerate(PRESETS)}  # "high" first
_DECISIVE = SOLUTION_PRESENT | INF_OR_UNB


def answer_json(sol: Solution) -> str:
    """The JSON text of what the reference needs from a run: (a, λ_n, λ_t) and the uniqueness flags."""

    def arr(x):
        return None if x is None else np.asarray(x, dtype=float).tolist()

    return json.dumps(
        {
            "acceleration": arr(sol.acceleration),
            "lambda_normal": arr(sol.lambda_normal),
            "lambda_tangent": arr(sol.lambda_tangent),
            "unique": {k: (None if v is None else bool(v)) for k, v in sol.unique.items()},
        }
    )


def solution_of(row: Mapping, problem) -> Solution | None:
    """The :class:`~gaussqp.results.Solution` a stored row describes (for :func:`crosscheck_report`), or None
    for a run without a gaussqp status (error, timeout) or without a stored answer."""
    if row["status"] in NO_ANSWER or row["status"] not in {s.value for s in Status}:
        return None
    try:
        ans = json.loads(row.get("answer") or "{}")
    except json.JSONDecodeError:
        return None

    def arr(x):
        return None if x is None else np.asarray(x, dtype=float)

    sol = Solution(
        problem=problem,
        status=Status(row["status"]),
        formulation=str(row["formulation"]),
        solver=str(row["solver"]),
        acceleration=arr(ans.get("acceleration")),
        lambda_normal=arr(ans.get("lambda_normal")),
        lambda_tangent=arr(ans.get("lambda_tangent")),
    )
    sol.unique.update(ans.get("unique") or {})
    return sol


def _compare(ref: Solution, sol: Solution, tolerance: str) -> dict:
    """{acceleration_gap, generalized_force_gap, agree} of ``sol`` against ``ref``."""
    if (ref.problem is not None and ref.problem.form == "local") or (
        ref.status in SOLUTION_PRESENT and (ref.lambda_normal is None or sol.lambda_normal is None)
    ):
        # no unique quantity to compare: verdicts only (a solution against a solution is not compared)
        same = None
        if (
            ref.status in _DECISIVE
            and sol.status in _DECISIVE
            and not (ref.status in SOLUTION_PRESENT and sol.status in SOLUTION_PRESENT)
        ):
            same = ref.status == sol.status
        return {"acceleration_gap": None, "generalized_force_gap": None, "agree": same}
    if ref.status in INF_OR_UNB and sol.status in INF_OR_UNB:
        # both certify that no solution exists; the routes name the reason differently (the frictionless QP's
        # descent ray makes F1 say "unbounded", the piece enumeration finds no piece and says "infeasible")
        return {"acceleration_gap": None, "generalized_force_gap": None, "agree": True}
    rep = crosscheck_report(ref, sol, get_tolerance(tolerance).crosscheck)
    return {
        "acceleration_gap": rep.acceleration_gap,
        "generalized_force_gap": rep.generalized_force_gap,
        "agree": rep.agree,
    }


def choose_reference(rows: list[dict], sols: list[Solution | None]) -> tuple[int | None, str]:
    """(index of the reference row, label) for one problem's rows (see the module docstring)."""
    certified = [
        i for i, r in enumerate(rows) if r["certified"] and sols[i] is not None and sols[i].status in _DECISIVE
    ]
    for name in EXACT_ROUTES:
        exact = sorted(
            (i for i in certified if rows[i]["formulation"] == name),
            key=lambda i: _TOL_ORDER.get(rows[i]["tolerance"], len(_TOL_ORDER)),
        )
        if exact:
            return exact[0], f"exact:{name}"
    clusters: list[list[int]] = []
    for i in sorted(certified, key=lambda i: _TOL_ORDER.get(rows[i]["tolerance"], len(_TOL_ORDER))):
        for c in clusters:
            if _compare(sols[c[0]], sols[i], rows[i]["tolerance"])["agree"] is True:
                c.append(i)
                break
        else:
            clusters.append([i])
    if not clusters:
        return None, "none"
    size = max(len(c) for c in clusters)
    best = [c for c in clusters if len(c) == size]
    if len(best) > 1:
        return None, "none"
    return best[0][0], f"consensus:{size}"


def judge_problem(rows: list[dict], problem) -> list[dict]:
    """The rows of one problem with the reference columns filled in (``reference``, ``acceleration_gap``,
    ``generalized_force_gap``, ``agrees_with_reference``, ``correct``, ``honest_failure``)."""
    sols = [solution_of(r, problem) for r in rows]
    ref_i, label = choose_reference(rows, sols)
    out = []
    for i, r in enumerate(rows):
        r = dict(r)
        gaps = {"acceleration_gap": None, "generalized_force_gap": None, "agree": None}
        if ref_i is not None and sols[i] is not None:
            gaps = _compare(sols[ref_i], sols[i], r["tolerance"])
            if i == ref_i:
                gaps["agree"] = True
        r["reference"] = label
        r["acceleration_gap"] = math.nan if gaps["acceleration_gap"] is None else float(gaps["acceleration_gap"])
        r["generalized_force_gap"] = (
            math.nan if gaps["generalized_force_gap"] is None else float(gaps["generalized_force_gap"])
        )
        r["agrees_with_reference"] = gaps["agree"]
        out.append(verdicts(r))
    return out


def verdicts(row: dict) -> dict:
    """``correct`` and ``honest_failure`` of a row whose ``agrees_with_reference`` is set, by the rules of
    :mod:`gaussqp.studies.metrics`: ``correct`` — a claim (status solved, or a verdict infeasible/unbounded) that our
    checks certify and the reference does not contradict (a right verdict is a success);
    ``honest_failure`` — no claim and an honest status (inaccurate, failed, timeout)."""
    agrees = row.get("agrees_with_reference")
    claim = bool(row["claimed_success"]) or row["status"] in INF_OR_UNB
    row["correct"] = bool(claim and row["certified"] and agrees is not False)
    row["honest_failure"] = bool(not claim and row["status"] in ("inaccurate", "failed", "timeout"))
    return row


def attach_reference(
    rows: Iterable[dict], problems: Mapping[tuple[str, str], object] | Iterable[tuple[tuple[str, str], object]]
) -> list[dict]:
    """Every row with its reference columns: rows grouped by (set, problem), each group judged by
    :func:`judge_problem` against its problem. ``problems`` maps ``(set, problem)`` to the problem, or is an iterable
    of ``((set, problem), problem)`` pairs read once, lazily (the study runner passes its set, iterated once more,
    so that no more than one problem is held at a time). Judged rows come in the order of ``problems``; then the
    rows of problems not in ``problems`` (a set that no longer yields them, or rows of an earlier study on another
    set in the same results directory), as they are: with the reference columns they have (none for a run never
    judged), their verdicts (:func:`verdicts`) recomputed. The one implementation: the runner's
    :func:`gaussqp.studies.runner.run_study` calls it."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["set"], r["problem"])].append(r)
    pairs = problems.items() if isinstance(problems, Mapping) else problems
    out: list[dict] = []
    for key, p in pairs:
        group = groups.pop(tuple(key), None)
        if group:
            out.extend(judge_problem(group, p))
    for group in groups.values():
        out.extend(verdicts(dict(r)) for r in group)
    return out


__all__ = [
    "EXACT_ROUTES",
    "NO_ANSWER",
    "answer_json",
    "attach_reference",
    "choose_reference",
    "judge_problem",
    "solution_of",
    "verdicts",
]
