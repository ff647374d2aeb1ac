"""The report of a cross-validation study: ``report.md``, a self-contained ``report.html``, ``report.json`` and the
profile PNGs.

:func:`write_report` turns a results table (one row per (problem, route) run, see
:mod:`gaussqp.studies.metrics`) into

- ``profile_time.png`` and ``profile_residual.png``: Dolan--Moré performance profiles (log τ axis, one step
  curve per route, the legend below the axes so it never covers a curve), drawn with matplotlib's Agg canvas (no
  display, no global pyplot state);
- ``report.md``: the headline table per route (runs, claims, correct rate, wrong claims, honest failures,
  timeouts, errors, absolute times in seconds -- shifted geometric mean, median and largest of the correct runs --
  and shifted geometric means of time and residual normalized to the best, qpbenchmark's report), the results by
  problem family (the scene of a generated FCLIB problem, else the system class) and by size, every run that is
  not correct with its reason, the problems the set could not read with the reader's reason, the runs the
  reference contradicts with the one-line command that reproduces each, how the reference was chosen per problem,
  and the versions of every solver;
- ``report.html``: the same tables and the profiles embedded as ``data:image/png;base64`` -- one file, no
  external stylesheet, script, font or image, so it can be mailed or archived as is;
- ``report.json``: the same content as data.

Times are the solve alone (:mod:`gaussqp.studies.metrics`): a peer's own timer inside its process (not its
interpreter's start), ours the route's solve. The study's directory may hold ``skipped.json`` (problems the set
could not read, id → reason) and ``problems.json`` (each problem's class, family and size), both written by
:func:`gaussqp.studies.runner.run_study`; the report reads them when present, and ``versions.json`` (written here
the first time, so a report rebuilt later names the versions that ran the study).

:func:`load_table` reads ``results.parquet`` (pandas + pyarrow) or ``results.csv`` back from a study's
directory. pandas and matplotlib are imported when called (extras ``gaussqp[studies]``, ``gaussqp[plots]``).
"""

from __future__ import annotations

import base64
import html
import json
import math
import pathlib
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np

from ..errors import FileFormatError, MissingExtraError
from ..settings import get_tolerance
from .metrics import (
    HONEST_FAILURE_STATUSES,
    VERDICT_STATUSES,
    classify,
    penalty_time,
    performance_ratios,
    require_pandas,
    route_metrics,
)
from .sets import PROBLEMS_FILE

if TYPE_CHECKING:
    import pandas as pd

#: the file names of a study's directory
TABLE_FILES = ("results.parquet", "results.csv")

#: the profiles drawn: file stem -> (metric, axis label)
PROFILES = {
    "profile_time": ("time", "solve time"),
    "profile_residual": ("residual", "residual"),
}

#: the files of a study's directory the report reads when present (written by the runner) or writes (versions)
SKIPPED_FILE, VERSIONS_FILE = "skipped.json", "versions.json"

#: the packages whose versions the report names (the solvers first, DAQP the small dense QPs' and numba the compiled
#: Newton kernels' when installed: both change times, not answers), then the peer libraries
VERSION_PACKAGES = (
    "gaussqp",
    "clarabel",
    "osqp",
    "scs",
    "daqp",
    "cvxpy",
    "numpy",
    "scipy",
    "numba",
    "mujoco",
    "h5py",
    "pandas",
    "matplotlib",
)

#: the size bands of the results by size: (label, largest contact count)
SIZE_BANDS = (
    ("1-10 contacts", 10),
    ("11-100 contacts", 100),
    ("101-300 contacts", 300),
    ("301-1000 contacts", 1000),
    ("> 1000 contacts", math.inf),
)

#: what the table of disputed answers means
DISPUTED_TEXT = (
    "Each answer below passes our check (its recomputed residual is within the tolerance), and differs "
    "from the consensus of other certified answers; neither the reference nor the answer establishes that "
    "the compared quantity is unique (a Coulomb friction problem may have several solutions, and an "
    "ill-conditioned one certified answers far apart). Counted as correct, not as wrong claims; a "
    "uniqueness certificate would decide."
)

#: the Markdown report lists at most this many failed runs (report.json and report.html hold all)
MARKDOWN_MAX_FAILURES = 400

#: reference kinds, in the order of the report's table
REFERENCE_KINDS = ("exact", "consensus", "none")

#: the profile's τ axis extends this factor past the largest finite ratio, so the last step is visible
_TAU_MARGIN = 2

#: the τ axis labels its minor ticks when it ends below this (fewer than two decades: few major ticks)
_MINOR_LABELS_UP_TO = 100

#: the ρ axis extends this far past [0, 1], so curves at 0 and 1 are not hidden by the frame
_RHO_MARGIN = 0.03

#: figure size (inches) and resolution of the profiles
_FIGSIZE = (7, 4.5)
_DPI = 100

_CSS = """body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:90%}th,td{border:1px solid #bbb;padding:.25em .5em}
th{background:#eee}td.num{text-align:right}code{font-size:90%}.flag{color:#b00;font-weight:bold}
img{max-width:100%}"""


def load_table(out_dir: str | pathlib.Path) -> pd.DataFrame:
    """The results table of a study directory: ``results.parquet`` when present (and pyarrow installed), else
    ``results.csv``.

    Raises
    ------
    FileFormatError
        The directory holds neither file (or only a Parquet file and pyarrow is missing).
    """
    pd = require_pandas()
    directory = pathlib.Path(out_dir)
    parquet, csv = (directory / name for name in TABLE_FILES)
    if parquet.is_file():
        try:
            return pd.read_parquet(parquet)
        except ImportError:
            if not csv.is_file():
                raise MissingExtraError(f"reading {parquet} needs pyarrow: pip install 'gaussqp[studies]'") from None
    if csv.is_file():
        return pd.read_csv(csv, keep_default_na=True)
    raise FileFormatError(
        str(directory),
        "holds no results.parquet or results.csv",
        "point at the --out directory of a `gaussqp crossval` run",
    )


# ---------------------------------------------------------------- formatting


def _pct(count: int, runs: int) -> str:
    return f"{100 * count / runs:.1f}% ({count}/{runs})" if runs else "—"


def _ratio(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if math.isinf(x):
        return "∞"
    return f"{x:.2f}" if x < 1000 else f"{x:.3g}"


def _sci(x: Any) -> str:
    try:
        value = float(x)
    except (TypeError, ValueError):
        return "—"
    return "—" if math.isnan(value) else f"{value:.2e}"


def _text(x: Any) -> str:
    if x is None or (np.ndim(x) == 0 and bool(require_pandas().isna(x))):
        return ""
    return str(x)


class _Table:
    """A table rendered to Markdown and HTML; cells are plain text, ``code`` marks the columns shown as code."""

    def __init__(
        self,
        headers: list[str],
        rows: list[list[str]],
        *,
        numeric: Iterable[int] = (),
        code: Iterable[int] = (),
        flag: Iterable[int] = (),
    ):
        self.headers, self.rows = headers, rows
        self.numeric, self.code, self.flag = set(numeric), set(code), set(flag)

    def markdown(self) -> str:
        def cell(i: int, value: str) -> str:
            value = value.replace("\n", " ").replace("|", "\\|")
            if i in self.code and value:
                return f"``{value}``" if "`" in value else f"`{value}`"
            if i in self.flag and value:
                return f"**{value}**"
            return value

        lines = [
            "| " + " | ".join(self.headers) + " |",
            "|" + "|".join("---:" if i in self.numeric else "---" for i in range(len(self.headers))) + "|",
        ]
        lines += ["| " + " | ".join(cell(i, v) for i, v in enumerate(row)) + " |" for row in self.rows]
        return "\n".join(lines)

    def html(self) -> str:
        def cell(i: int, value: str) -> str:
            body = html.escape(value)
            if i in self.code and value:
                body = f"<code>{body}</code>"
            cls = ' class="num"' if i in self.numeric else (' class="flag"' if i in self.flag and value else "")
            return f"<td{cls}>{body}</td>"

        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "\n".join("<tr>" + "".join(cell(i, v) for i, v in enumerate(row)) + "</tr>" for row in self.rows)
        return f"<table>\n<tr>{head}</tr>\n{body}\n</table>"


# ---------------------------------------------------------------- content


def _seconds(x: Any) -> str:
    try:
        value = float(x)
    except (TypeError, ValueError):
        return "—"
    return "—" if math.isnan(value) else f"{value:.3g}"


def _headline(metrics: pd.DataFrame) -> _Table:
    rows = []
    for m in metrics.itertuples(index=False):
        rows.append(
            [
                m.route,
                str(m.runs),
                _pct(m.success, m.runs),
                _pct(m.correct, m.runs),
                str(m.wrong_claims) + (f" ({m.certified_wrong} certified)" if m.certified_wrong else ""),
                str(m.disputed),
                _pct(m.honest_failures, m.runs),
                str(m.timeouts),
                str(m.errors),
                _seconds(m.sgm_time_seconds),
                _seconds(m.median_time_seconds),
                _seconds(m.max_time_seconds),
                _ratio(m.sgm_time),
                _ratio(m.sgm_residual),
                "WRONG CLAIMS" if m.wrong_claims else "",
            ]
        )
    return _Table(
        [
            "route",
            "runs",
            "claims",
            "correct rate",
            "wrong claims",
            "disputed",
            "honest failures",
            "timeouts",
            "errors",
            "SGM time (s)",
            "median time (s)",
            "max time (s)",
            "SGM time (ratio)",
            "SGM residual (ratio)",
            "flag",
        ],
        rows,
        numeric=range(1, 14),
        flag=[14],
    )


def _disputed(frame: pd.DataFrame) -> tuple[_Table, list[dict]]:
    """Certified answers that differ from a consensus reference while no uniqueness is established."""
    part = frame.loc[frame["disputed"]].sort_values(["problem_key", "route"])
    records = [
        {
            "problem": str(r["problem_key"]),
            "route": str(r["route"]),
            "residual": float(r["residual"]),
            "generalized_force_gap": float(r.get("generalized_force_gap", math.nan)),
            "reference": _text(r.get("reference")),
            "command": _text(r.get("command")),
        }
        for _, r in part.iterrows()
    ]
    rows = [
        [d["problem"], d["route"], _sci(d["residual"]), _sci(d["generalized_force_gap"]), d["reference"], d["command"]]
        for d in records
    ]
    return _Table(
        ["problem", "route", "residual", "generalized-force gap", "reference", "command"],
        rows,
        numeric=[2, 3],
        code=[5],
    ), records


def _disagreements(frame: pd.DataFrame) -> _Table:
    contradicted = np.array([a is False for a in frame["agrees"]], dtype=bool) & ~frame["disputed"].to_numpy(bool)
    bad = frame.loc[contradicted].sort_values(["problem_key", "route"])
    rows = []
    for _, r in bad.iterrows():
        rows.append(
            [
                str(r["problem_key"]),
                str(r["route"]),
                str(r["status"]),
                "yes" if r["certified"] else "no",
                "yes" if r["wrong_claim"] else "",
                _sci(r.get("acceleration_gap")),
                _sci(r.get("generalized_force_gap")),
                _text(r.get("reference")),
                _text(r.get("command")),
            ]
        )
    return _Table(
        [
            "problem",
            "route",
            "status",
            "certified",
            "wrong claim",
            "acceleration gap",
            "generalized-force gap",
            "reference",
            "command",
        ],
        rows,
        numeric=[5, 6],
        code=[8],
        flag=[4],
    )


def _references(frame: pd.DataFrame) -> tuple[_Table, dict[str, int]]:
    if "reference" in frame.columns:
        per_problem = frame.groupby("problem_key")["reference"].agg(
            lambda s: next((str(v) for v in s if _text(v)), "none")
        )
    else:
        per_problem = frame.groupby("problem_key")["problem_key"].agg(lambda s: "none")
    kinds = per_problem.map(lambda ref: ref.split(":", 1)[0] if ref.split(":", 1)[0] in REFERENCE_KINDS else "none")
    counts = {kind: int((kinds == kind).sum()) for kind in REFERENCE_KINDS}
    meaning = {
        "exact": "the certified answer of an exact route (enumeration, direct solve)",
        "consensus": "the consensus of the certified answers (consensus:k = k routes agreed)",
        "none": "no reference: no exact route and no consensus; a claim is still judged by our own check",
    }
    rows = [[kind, str(counts[kind]), meaning[kind]] for kind in REFERENCE_KINDS]
    return _Table(["reference", "problems", "meaning"], rows, numeric=[1]), counts


# ---------------------------------------------------------------- problems, failures, skipped, versions


def _read_json(path: pathlib.Path, default):
    """A JSON file of the study's directory, or ``default`` when absent (a file that does not parse is refused)."""
    if not path.is_file():
        return default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FileFormatError(str(path), f"is not JSON ({exc})", "rerun the study or delete the file") from None


def _problem_info(frame: pd.DataFrame, problems: Iterable[Mapping[str, Any]] | None) -> pd.DataFrame:
    """Per row of ``frame``: ``family`` and ``contacts`` from the runner's problem descriptions (``problems.json``);
    ``"unknown"`` / NaN where the study recorded none."""
    info = {}
    for p in problems or []:
        info[(str(p.get("set", "")), str(p.get("problem", "")))] = p
    sets = frame["set"].astype(str) if "set" in frame.columns else _series(frame, "")
    fam, contacts = [], []
    for s_, pid in zip(sets, frame["problem"]):
        p = info.get((s_, str(pid)), {})
        fam.append(str(p.get("family") or p.get("class") or "unknown"))
        contacts.append(float(p["m"]) if p.get("m") is not None else math.nan)
    return frame.assign(family=fam, contacts=contacts)


def _series(frame: pd.DataFrame, value: Any):
    """A column of ``frame``'s length filled with ``value``."""
    return require_pandas().Series([value] * len(frame), index=frame.index, dtype=object)


def _band(m: float) -> str:
    if math.isnan(m):
        return "size unknown"
    return next(label for label, top in SIZE_BANDS if m <= top)


def _grouped(frame: pd.DataFrame, column: str, order: list[str] | None = None) -> tuple[_Table, list[dict]]:
    """Per (group, route): problems, runs, correct, wrong claims, timeouts, errors, median solve time of the correct
    runs."""
    records = []
    groups = order if order is not None else sorted(frame[column].unique())
    for g in groups:
        part = frame[frame[column] == g]
        if part.empty:
            continue
        for route, runs in part.groupby("route", sort=True):
            ok = runs.loc[runs["correct"], "time"].to_numpy(dtype=float)
            ok = ok[np.isfinite(ok)]
            records.append(
                {
                    column: str(g),
                    "route": str(route),
                    "problems": int(part["problem_key"].nunique()),
                    "runs": int(len(runs)),
                    "correct": int(runs["correct"].sum()),
                    "wrong_claims": int(runs["wrong_claim"].sum()),
                    "timeouts": int((runs["status"] == "timeout").sum()),
                    "errors": int(runs["error_run"].sum()),
                    "median_time_seconds": float(np.median(ok)) if ok.size else math.nan,
                }
            )
    rows = [
        [
            r[column],
            str(r["problems"]),
            r["route"],
            _pct(r["correct"], r["runs"]),
            str(r["wrong_claims"]),
            str(r["timeouts"]),
            str(r["errors"]),
            _seconds(r["median_time_seconds"]),
        ]
        for r in records
    ]
    return _Table(
        [column, "problems", "route", "correct rate", "wrong claims", "timeouts", "errors", "median time (s)"],
        rows,
        numeric=[1, 3, 4, 5, 6, 7],
    ), records


def failure_reason(row: Mapping[str, Any]) -> str:
    """Why a run is not correct, in one line: the error, the time limit, the claim our check rejected (with the
    residual against the preset's tolerance), the reference's contradiction, or what the route reported."""
    status = str(row.get("status"))
    error = _text(row.get("error"))
    residual = row.get("residual")
    try:
        tol = get_tolerance(str(row.get("tolerance"))).residual
    except Exception:  # noqa: BLE001 -- an unknown preset was refused by classify already; the text stays useful
        tol = math.nan
    if status == "error":
        return "error: " + (error or "no message")
    if status == "timeout":
        return error or "time limit reached"
    if row.get("wrong_claim"):
        if row.get("agrees") is False:
            return (
                f"claim contradicted by the reference ({_text(row.get('reference'))}): acceleration gap "
                f"{_sci(row.get('acceleration_gap'))}, generalized-force gap "
                f"{_sci(row.get('generalized_force_gap'))}"
            )
        return (
            f"claimed {status}, our check rejects it: residual {_sci(residual)} against the tolerance "
            f"{_sci(tol)}" + (f" ({error})" if error else "")
        )
    text = f"{status}" + (f": {error}" if error else "")
    if residual is not None and not (isinstance(residual, float) and math.isnan(residual)):
        text += f" (residual {_sci(residual)})"
    return text


def _failures(frame: pd.DataFrame) -> tuple[_Table, list[dict]]:
    bad = frame.loc[~frame["correct"]].sort_values(["problem_key", "route"])
    records = []
    for _, r in bad.iterrows():
        records.append(
            {
                "problem": str(r["problem_key"]),
                "family": str(r["family"]),
                "contacts": None if math.isnan(r["contacts"]) else int(r["contacts"]),
                "route": str(r["route"]),
                "status": str(r["status"]),
                "wrong_claim": bool(r["wrong_claim"]),
                "reason": failure_reason(r),
                "time_seconds": None if math.isnan(r["time"]) else float(r["time"]),
                "command": _text(r.get("command")),
            }
        )
    rows = [
        [
            f["problem"],
            f["family"],
            "" if f["contacts"] is None else str(f["contacts"]),
            f["route"],
            f["status"],
            "WRONG CLAIM" if f["wrong_claim"] else "",
            f["reason"],
        ]
        for f in records
    ]
    return _Table(
        ["problem", "family", "contacts", "route", "status", "wrong claim", "reason"], rows, numeric=[2], flag=[5]
    ), records


def _skipped_table(skipped: Mapping[str, str]) -> _Table:
    return _Table(["problem (file)", "reason"], [[str(k), str(v)] for k, v in sorted(skipped.items())])


def solver_versions() -> dict[str, str]:
    """The versions of gaussqp, of every solver it can run (Clarabel, OSQP, SCS through cvxpy), of the libraries
    under them and of the peer libraries (Siconos, run in its own interpreter); ``"not installed"`` where one is
    missing."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in VERSION_PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    from .peers import peer_version, siconos_python

    sic = peer_version("siconos")
    out["siconos"] = f"{sic}, run by {siconos_python()}" if sic else f"not available ({siconos_python()})"
    return out


# ---------------------------------------------------------------- profiles


def _profile_figure(frame: pd.DataFrame, metric: str, label: str):
    """The performance profile of ``metric`` as a matplotlib Figure (Agg canvas), its legend below the axes."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import FuncFormatter
    except ImportError as exc:
        raise MissingExtraError("the report's profiles need matplotlib: pip install 'gaussqp[plots]'") from exc
    ratios = performance_ratios(frame, metric)
    r = ratios.to_numpy(dtype=float)
    finite = r[np.isfinite(r)]
    top = max(float(finite.max()) if finite.size else 1.0, 1.0) * _TAU_MARGIN
    taus = np.unique(np.concatenate([[1.0], finite, [top]]))
    n = max(r.shape[0], 1)
    columns = 2
    legend_rows = math.ceil(len(ratios.columns) / columns)
    fig = Figure(figsize=(_FIGSIZE[0], _FIGSIZE[1] + 0.25 * legend_rows))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    styles = ["-", "--", "-.", ":"]
    for k, route in enumerate(ratios.columns):
        rho = (r[:, k][None, :] <= taus[:, None]).sum(axis=1) / n
        ax.step(taus, rho, where="post", label=route, linestyle=styles[(k // 10) % len(styles)])
    ax.set_xscale("log")
    plain = FuncFormatter(lambda x, _: f"{x:g}")
    ax.xaxis.set_major_formatter(plain)
    if top <= _MINOR_LABELS_UP_TO:  # a short axis has few decades: label the minor ticks (2, 3, 5) too
        ax.xaxis.set_minor_formatter(plain)
    ax.set_xlim(1.0, top)
    ax.set_ylim(-_RHO_MARGIN, 1 + _RHO_MARGIN)
    ax.set_xlabel(f"τ (ratio to the best route's {label})")
    ax.set_ylabel("ρ(τ): fraction of problems within τ")
    ax.set_title(f"Performance profile: {label}, {r.shape[0]} problems")
    ax.grid(True, which="both", alpha=0.3)
    if len(ratios.columns):
        # below the axes, outside them: a legend inside covers the curves where they end (ρ near 1, large τ)
        fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=columns, fontsize="small", frameon=False)
        fig.tight_layout(rect=(0, 0.06 * legend_rows + 0.02, 1, 1))
    else:
        fig.tight_layout()
    return fig


def _profile_png(frame: pd.DataFrame, metric: str, label: str, path: pathlib.Path) -> pathlib.Path:
    _profile_figure(frame, metric, label).savefig(path, dpi=_DPI)
    return path


def _methods(frame: pd.DataFrame, penalty_text: str) -> list[str]:
    return [
        "A route is (formulation, solver, tolerance preset). **claim**: status `solved`, or a verdict "
        + "/".join(f"`{s}`" for s in sorted(VERDICT_STATUSES))
        + " (no solution exists). **correct**: a claim that "
        "our own checks certify (our recomputed natural-map residual for an answer, a verified certificate for a "
        "verdict) and that the reference answer does not contradict; a right infeasible/unbounded verdict is a "
        "success. **wrong claim**: a claim our check rejects (also when the problem has no reference: a peer's "
        "converged flag on an answer whose recomputed residual fails) or that the reference contradicts. "
        "**honest failure**: no claim, status " + ", ".join(f"`{s}`" for s in sorted(HONEST_FAILURE_STATUSES)) + ".",
        "Time is the solve alone: a peer's own timer around its solver call inside its process (the interpreter's "
        "start, the file exchange and our condensation of W are not charged to it), ours the route's solve "
        "(including its own final check); neither includes loading the problem. Absolute times are in seconds.",
        "SGM: shifted geometric mean exp(mean(log(v + 10))) − 10 over the route's runs (qpbenchmark's shift, "
        "10), in seconds and divided by the best route's (1.00 is the best). A run that is not correct is charged "
        f"{penalty_text} for its time and the larger of its residual and the preset's residual tolerance; the "
        "median and max times are over the correct runs only.",
        "Performance profile (Dolan & Moré 2002): r = a route's time on a problem / the best correct route's time "
        "on it, ∞ when the route's run is not correct or missing; ρ(τ) = fraction of all problems with r ≤ τ.",
    ]


def write_report(
    table: pd.DataFrame | Iterable[Mapping[str, Any]],
    out_dir: str | pathlib.Path,
    *,
    time_limit: float | None = None,
    title: str = "Cross-validation study",
    skipped: Mapping[str, str] | None = None,
    problems: Iterable[Mapping[str, Any]] | None = None,
    versions: Mapping[str, str] | None = None,
) -> dict[str, pathlib.Path]:
    """Write ``report.md``, ``report.html``, ``report.json``, ``profile_time.png`` and ``profile_residual.png``
    into ``out_dir``.

    Parameters
    ----------
    table
        The results table (DataFrame or row dicts; :func:`gaussqp.studies.metrics.classify`).
    out_dir
        The study's directory (created if missing).
    time_limit
        Seconds charged to a run that is not correct in the time SGM
        (:func:`gaussqp.studies.metrics.penalty_time` for the default).
    title
        The report's heading.
    skipped
        Problems the set could not read, id → reason; default: ``out_dir/skipped.json`` when present.
    problems
        The problems' descriptions (:func:`gaussqp.studies.sets.describe`); default: ``out_dir/problems.json``
        when present (without them the results by family and size say "unknown").
    versions
        Package → version; default: ``out_dir/versions.json`` when present, else :func:`solver_versions` (then
        written to ``versions.json``).

    Returns
    -------
    dict
        ``{"markdown", "html", "json", "profile_time", "profile_residual"}`` → path.
    """
    frame = classify(table)
    directory = pathlib.Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    if skipped is None:
        skipped = _read_json(directory / SKIPPED_FILE, {})
    if problems is None:
        problems = _read_json(directory / PROBLEMS_FILE, [])
    if versions is None:
        versions = _read_json(directory / VERSIONS_FILE, None)
        if versions is None:
            versions = solver_versions()
            (directory / VERSIONS_FILE).write_text(json.dumps(versions, indent=1) + "\n", encoding="utf-8")
    frame = _problem_info(frame, problems)
    metrics = route_metrics(frame, time_limit=time_limit)
    penalty, penalty_text = penalty_time(frame, time_limit)
    paths: dict[str, pathlib.Path] = {}
    for stem, (metric, label) in PROFILES.items():
        paths[stem] = _profile_png(frame, metric, label, directory / f"{stem}.png")

    headline = _headline(metrics)
    by_family, family_records = _grouped(frame, "family")
    frame = frame.assign(size=[_band(m) for m in frame["contacts"]])
    by_size, size_records = _grouped(frame, "size", [label for label, _ in SIZE_BANDS] + ["size unknown"])
    failures, failure_records = _failures(frame)
    skipped_table = _skipped_table(skipped)
    disagreements = _disagreements(frame)
    disputed, disputed_records = _disputed(frame)
    references, reference_counts = _references(frame)
    version_table = _Table(["package", "version"], [[k, str(v)] for k, v in versions.items()])
    wrong = metrics[metrics["wrong_claims"] > 0]
    sets = sorted({_text(s) for s in frame["set"]} - {""}) if "set" in frame.columns else []
    summary = (
        f"{len(frame)} runs, {frame['problem_key'].nunique()} problems, {len(metrics)} routes"
        + (f"; sets: {', '.join(sets)}" if sets else "")
        + f"; {len(skipped)} problem(s) skipped (not readable, listed below with the reason)"
        + (f"; time limit {penalty:g} s per run" if time_limit is not None else "")
        + "."
    )
    if wrong.empty:
        verdict = "No route made a wrong claim (a claim our check rejects or the reference contradicts)."
    else:
        verdict = (
            "Routes that made wrong claims (a claim our check rejects or the reference contradicts): "
            + "; ".join(
                f"{m.route} (wrong claims: {m.wrong_claims}"
                + (f", {m.certified_wrong} of them certified and contradicted" if m.certified_wrong else "")
                + ")"
                for m in wrong.itertuples(index=False)
            )
            + "."
        )
    differ = int(frame["stored_flags_differ"].sum())
    consistency = (
        f"Note: on {differ} rows the table's stored claimed_success/correct/honest_failure differ from "
        "the flags recomputed from status, certified and agrees_with_reference; this report uses the "
        "recomputed ones."
        if differ
        else ""
    )
    methods = _methods(frame, penalty_text)
    no_disagreement = "No run disagrees with its problem's reference."
    no_failure = "Every run is correct."
    no_skipped = "No problem was skipped."
    shown = _Table(
        failures.headers, failures.rows[:MARKDOWN_MAX_FAILURES], numeric=failures.numeric, flag=failures.flag
    )
    cut = (
        f"The first {MARKDOWN_MAX_FAILURES} of {len(failures.rows)} are shown; report.json and report.html list all."
        if len(failures.rows) > MARKDOWN_MAX_FAILURES
        else ""
    )

    md = [
        f"# {title}",
        "",
        summary,
        "",
        "## Routes",
        "",
        headline.markdown(),
        "",
        ("**" + verdict + "**") if not wrong.empty else verdict,
        "",
    ]
    if consistency:
        md += [consistency, ""]
    md += ["## How to read it", ""] + [f"- {line}" for line in methods] + [""]
    md += [
        "## Performance profiles",
        "",
        "![time profile](profile_time.png)",
        "",
        "![residual profile](profile_residual.png)",
        "",
    ]
    md += ["## Results by problem family", "", by_family.markdown() if by_family.rows else "—", ""]
    md += ["## Results by size", "", by_size.markdown() if by_size.rows else "—", ""]
    md += [
        "## Runs that are not correct, with the reason",
        "",
        shown.markdown() if failures.rows else no_failure,
        "",
    ] + ([cut, ""] if cut else [])
    md += ["## Skipped problems", "", skipped_table.markdown() if skipped_table.rows else no_skipped, ""]
    md += [
        "## Disagreements with the reference",
        "",
        disagreements.markdown() if disagreements.rows else no_disagreement,
        "",
    ]
    md += [
        "## Certified answers that differ from the consensus (uniqueness not established)",
        "",
        DISPUTED_TEXT,
        "",
        disputed.markdown() if disputed.rows else "None.",
        "",
    ]
    md += ["## How the reference was chosen", "", references.markdown(), ""]
    md += ["## Versions", "", version_table.markdown(), ""]
    paths["markdown"] = directory / "report.md"
    paths["markdown"].write_text("\n".join(md), encoding="utf-8")

    def img(stem: str, alt: str) -> str:
        data = base64.b64encode(paths[stem].read_bytes()).decode("ascii")
        return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'

    esc = html.escape
    body = [
        f"<h1>{esc(title)}</h1>",
        f"<p>{esc(summary)}</p>",
        "<h2>Routes</h2>",
        headline.html(),
        ('<p class="flag">' if not wrong.empty else "<p>") + f"{esc(verdict)}</p>",
    ]
    if consistency:
        body.append(f"<p>{esc(consistency)}</p>")
    plain = [line.replace("**", "").replace("`", "") for line in methods]
    body += ["<h2>How to read it</h2>", "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in plain) + "</ul>"]
    body += [
        "<h2>Performance profiles</h2>",
        img("profile_time", "time profile"),
        img("profile_residual", "residual profile"),
    ]
    body += ["<h2>Results by problem family</h2>", by_family.html() if by_family.rows else "<p>—</p>"]
    body += ["<h2>Results by size</h2>", by_size.html() if by_size.rows else "<p>—</p>"]
    body += [
        "<h2>Runs that are not correct, with the reason</h2>",
        failures.html() if failures.rows else f"<p>{esc(no_failure)}</p>",
    ]
    body += ["<h2>Skipped problems</h2>", skipped_table.html() if skipped_table.rows else f"<p>{esc(no_skipped)}</p>"]
    body += [
        "<h2>Disagreements with the reference</h2>",
        disagreements.html() if disagreements.rows else f"<p>{esc(no_disagreement)}</p>",
    ]
    body += [
        "<h2>Certified answers that differ from the consensus (uniqueness not established)</h2>",
        f"<p>{esc(DISPUTED_TEXT)}</p>",
        disputed.html() if disputed.rows else "<p>None.</p>",
    ]
    body += ["<h2>How the reference was chosen</h2>", references.html()]
    body += ["<h2>Versions</h2>", version_table.html()]
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{esc(title)}</title>\n<style>\n{_CSS}\n</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )
    paths["html"] = directory / "report.html"
    paths["html"].write_text(page, encoding="utf-8")

    def plain_number(x: Any) -> Any:
        if isinstance(x, (np.integer,)):
            return int(x)
        if isinstance(x, (float, np.floating)):
            return None if not math.isfinite(float(x)) else float(x)
        if isinstance(x, np.bool_):
            return bool(x)
        return x

    doc = {
        "title": title,
        "summary": summary,
        "runs": int(len(frame)),
        "problems": int(frame["problem_key"].nunique()),
        "sets": sets,
        "time_limit_seconds": plain_number(penalty),
        "penalty": penalty_text,
        "routes": [{k: plain_number(v) for k, v in r.items()} for r in metrics.to_dict("records")],
        "by_family": [{k: plain_number(v) for k, v in r.items()} for r in family_records],
        "by_size": [{k: plain_number(v) for k, v in r.items()} for r in size_records],
        "failures": failure_records,
        "disputed": disputed_records,
        "skipped": dict(skipped),
        "references": reference_counts,
        "wrong_claims": int(metrics["wrong_claims"].sum()) if len(metrics) else 0,
        "versions": dict(versions),
        "methods": [line.replace("**", "").replace("`", "") for line in methods],
    }
    paths["json"] = directory / "report.json"
    paths["json"].write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return paths
