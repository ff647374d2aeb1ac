"""The report of a cross-validation study: ``report.md``, a self-contained ``report.html`` and the profile PNGs.

:func:`write_report` turns a results table (one row per (problem, route) run, see
:mod:`gaussqp.studies.metrics`) into

- ``profile_time.png`` and ``profile_residual.png``: Dolan--Moré performance profiles (log τ axis, one step
  curve per route), drawn with matplotlib's Agg canvas (no display, no global pyplot state);
- ``report.md``: the headline table per route (runs, success, correct rate, honest failures, wrong claims,
  shifted geometric means of time and residual normalized to the best -- qpbenchmark's report), the routes
  that claimed success on an answer the reference contradicts, the per-problem table of disagreements with
  the one-line command that reproduces each run, and how the reference was chosen per problem;
- ``report.html``: the same tables and the profiles embedded as ``data:image/png;base64`` -- one file, no
  external stylesheet, script, font or image, so it can be mailed or archived as is.

:func:`load_table` reads ``results.parquet`` (pandas + pyarrow) or ``results.csv`` back from a study's
directory. pandas and matplotlib are imported when called (extras ``gaussqp[studies]``, ``gaussqp[plots]``).
"""

from __future__ import annotations

import base64
import html
import math
import pathlib
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np

from ..errors import FileFormatError, MissingExtraError
from .metrics import (HONEST_FAILURE_STATUSES, VERDICT_STATUSES, classify, penalty_time,
                      performance_ratios, require_pandas, route_metrics)

if TYPE_CHECKING:
    import pandas as pd

#: the file names of a study's directory
TABLE_FILES = ("results.parquet", "results.csv")

#: the profiles drawn: file stem -> (metric, axis label)
PROFILES = {
    "profile_time": ("total_time", "total time"),
    "profile_residual": ("residual", "residual"),
}

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
    raise FileFormatError(str(directory), "holds no results.parquet or results.csv",
                          "point at the --out directory of a `gaussqp crossval` run")


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

    def __init__(self, headers: list[str], rows: list[list[str]], *, numeric: Iterable[int] = (),
                 code: Iterable[int] = (), flag: Iterable[int] = ()):
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
        lines = ["| " + " | ".join(self.headers) + " |",
                 "|" + "|".join("---:" if i in self.numeric else "---" for i in range(len(self.headers))) + "|"]
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


def _headline(metrics: pd.DataFrame) -> _Table:
    rows = []
    for m in metrics.itertuples(index=False):
        rows.append([m.route, str(m.runs), _pct(m.success, m.runs), _pct(m.correct, m.runs),
                     _pct(m.honest_failures, m.runs), str(m.wrong_claims) + (f" ({m.certified_wrong} certified)"
                                                                             if m.certified_wrong else ""),
                     str(m.errors), _ratio(m.sgm_time), _ratio(m.sgm_residual),
                     "WRONG CLAIMS" if m.wrong_claims else ""])
    return _Table(["route", "runs", "success", "correct rate", "honest failures", "wrong claims", "errors",
                   "SGM time", "SGM residual", "flag"], rows, numeric=range(1, 9), flag=[9])


def _disagreements(frame: pd.DataFrame) -> _Table:
    contradicted = np.array([a is False for a in frame["agrees"]], dtype=bool)
    bad = frame.loc[contradicted].sort_values(["problem_key", "route"])
    rows = []
    for _, r in bad.iterrows():
        rows.append([str(r["problem_key"]), str(r["route"]), str(r["status"]), "yes" if r["certified"] else "no",
                     "yes" if r["wrong_claim"] else "", _sci(r.get("acceleration_gap")),
                     _sci(r.get("generalized_force_gap")), _text(r.get("reference")), _text(r.get("command"))])
    return _Table(["problem", "route", "status", "certified", "wrong claim", "acceleration gap",
                   "generalized-force gap", "reference", "command"], rows, numeric=[5, 6], code=[8], flag=[4])


def _references(frame: pd.DataFrame) -> tuple[_Table, dict[str, int]]:
    if "reference" in frame.columns:
        per_problem = frame.groupby("problem_key")["reference"].agg(
            lambda s: next((str(v) for v in s if _text(v)), "none"))
    else:
        per_problem = frame.groupby("problem_key")["problem_key"].agg(lambda s: "none")
    kinds = per_problem.map(lambda ref: ref.split(":", 1)[0] if ref.split(":", 1)[0] in REFERENCE_KINDS else "none")
    counts = {kind: int((kinds == kind).sum()) for kind in REFERENCE_KINDS}
    meaning = {"exact": "the certified answer of an exact route (enumeration, direct solve)",
               "consensus": "the consensus of the certified answers (consensus:k = k routes agreed)",
               "none": "no reference: no exact route and no consensus; agreement not judged"}
    rows = [[kind, str(counts[kind]), meaning[kind]] for kind in REFERENCE_KINDS]
    return _Table(["reference", "problems", "meaning"], rows, numeric=[1]), counts


def _profile_png(frame: pd.DataFrame, metric: str, label: str, path: pathlib.Path) -> pathlib.Path:
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
    fig = Figure(figsize=_FIGSIZE)
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
        ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=_DPI)
    return path


def _methods(frame: pd.DataFrame, penalty_text: str) -> list[str]:
    return [
        "A route is (formulation, solver, tolerance preset). **success**: status `solved`. **correct**: a claimed "
        "success that our recomputed residuals certify and that the reference answer does not contradict "
        "(qpbenchmark's correct rate counts how often the success flag was honest; here honest failures are "
        "counted apart). **honest failure**: no claim, status "
        + ", ".join(f"`{s}`" for s in sorted(HONEST_FAILURE_STATUSES))
        + ", or a certified " + "/".join(f"`{s}`" for s in sorted(VERDICT_STATUSES))
        + " verdict the reference confirms. **wrong claim**: a claimed success the reference contradicts.",
        "SGM: shifted geometric mean exp(mean(log(v + 10))) − 10 over the route's runs (qpbenchmark's shift, "
        "10), divided by the best route's (1.00 is the best). A run that is not correct is charged "
        f"{penalty_text} for its time and the larger of its residual and the preset's residual tolerance.",
        "Performance profile (Dolan & Moré 2002): r = a route's time on a problem / the best correct route's time "
        "on it, ∞ when the route's run is not correct or missing; ρ(τ) = fraction of all problems with r ≤ τ.",
    ]


def write_report(table: pd.DataFrame | Iterable[Mapping[str, Any]], out_dir: str | pathlib.Path, *,
                 time_limit: float | None = None, title: str = "Cross-validation study") -> dict[str, pathlib.Path]:
    """Write ``report.md``, ``report.html``, ``profile_time.png`` and ``profile_residual.png`` into ``out_dir``.

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

    Returns
    -------
    dict
        ``{"markdown": path, "html": path, "profile_time": path, "profile_residual": path}``.
    """
    frame = classify(table)
    metrics = route_metrics(frame, time_limit=time_limit)
    _, penalty_text = penalty_time(frame, time_limit)
    directory = pathlib.Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    paths: dict[str, pathlib.Path] = {}
    for stem, (metric, label) in PROFILES.items():
        paths[stem] = _profile_png(frame, metric, label, directory / f"{stem}.png")

    headline = _headline(metrics)
    disagreements = _disagreements(frame)
    references, _ = _references(frame)
    wrong = metrics[metrics["wrong_claims"] > 0]
    sets = sorted({_text(s) for s in frame["set"]} - {""}) if "set" in frame.columns else []
    summary = (f"{len(frame)} runs, {frame['problem_key'].nunique()} problems, {len(metrics)} routes"
               + (f"; sets: {', '.join(sets)}" if sets else "") + ".")
    if wrong.empty:
        verdict = "No route claimed success on an answer the reference contradicts."
    else:
        verdict = ("Routes that claimed success on an answer the reference contradicts: "
                   + "; ".join(f"{m.route} (wrong claims: {m.wrong_claims}"
                               + (f", {m.certified_wrong} of them certified" if m.certified_wrong else "") + ")"
                               for m in wrong.itertuples(index=False)) + ".")
    differ = int(frame["stored_flags_differ"].sum())
    consistency = (f"Note: on {differ} rows the table's stored claimed_success/correct/honest_failure differ from "
                   "the flags recomputed from status, certified and agrees_with_reference; this report uses the "
                   "recomputed ones." if differ else "")
    methods = _methods(frame, penalty_text)
    no_disagreement = "No run disagrees with its problem's reference."

    md = [f"# {title}", "", summary, "", "## Routes", "", headline.markdown(), "",
          ("**" + verdict + "**") if not wrong.empty else verdict, ""]
    if consistency:
        md += [consistency, ""]
    md += ["## How to read it", ""] + [f"- {line}" for line in methods] + [""]
    md += ["## Performance profiles", "", "![time profile](profile_time.png)", "",
           "![residual profile](profile_residual.png)", ""]
    md += ["## Disagreements with the reference", "",
           disagreements.markdown() if disagreements.rows else no_disagreement, ""]
    md += ["## How the reference was chosen", "", references.markdown(), ""]
    paths["markdown"] = directory / "report.md"
    paths["markdown"].write_text("\n".join(md), encoding="utf-8")

    def img(stem: str, alt: str) -> str:
        data = base64.b64encode(paths[stem].read_bytes()).decode("ascii")
        return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'

    esc = html.escape
    body = [f"<h1>{esc(title)}</h1>", f"<p>{esc(summary)}</p>", "<h2>Routes</h2>", headline.html(),
            ('<p class="flag">' if not wrong.empty else "<p>") + f"{esc(verdict)}</p>"]
    if consistency:
        body.append(f"<p>{esc(consistency)}</p>")
    plain = [line.replace("**", "").replace("`", "") for line in methods]
    body += ["<h2>How to read it</h2>", "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in plain) + "</ul>"]
    body += ["<h2>Performance profiles</h2>", img("profile_time", "time profile"),
             img("profile_residual", "residual profile")]
    body += ["<h2>Disagreements with the reference</h2>",
             disagreements.html() if disagreements.rows else f"<p>{esc(no_disagreement)}</p>"]
    body += ["<h2>How the reference was chosen</h2>", references.html()]
    page = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{esc(title)}</title>\n<style>\n{_CSS}\n</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
    paths["html"] = directory / "report.html"
    paths["html"].write_text(page, encoding="utf-8")
    return paths
