"""The audit's report: a table for machines, PNG timelines and one HTML page for people, and
the text summary printed on the terminal.

:func:`write_report` writes into a folder

- ``contacts.parquet`` (or ``contacts.csv`` without pyarrow): one row per (state, contact): time, step, status,
  key, geoms, rigid mode, engine normal force, envelope ``[lo, hi]``, distance outside, engine friction force,
  friction max, Coulomb residual, hold margin, creep, flags; ``states.parquet``/``.csv``: one row per state;
- ``audit.json``: the JSON contract (``gaussqp audit --json``);
- ``timeline.png``: the status band (certified solved / uncertified / no or several rigid solutions / error, and
  flagged states), each of the most loaded contacts' engine normal force inside its envelope over time (the band
  is the certified ``[lo, hi]``), the engine acceleration's gap to the rigid one, and the count of flags by kind;
- ``report.html``: the summary, the timeline embedded (``data:image/png;base64``: one self-contained file), and
  the flagged states with their reasons.

matplotlib (extra ``plots``) and pandas (extra ``studies``) are imported when called.
"""

from __future__ import annotations

import base64
import html
import json
import pathlib

import numpy as np

from ..results import to_jsonable
from .core import AuditReport

__all__ = ["contact_rows", "state_rows", "text_summary", "write_report"]

#: contacts drawn in the timeline (the most loaded over the rollout)
TIMELINE_CONTACTS = 6
#: status band colours
_COLOURS = {
    "solved": "#2ca02c",
    "uncertified": "#ff7f0e",
    "infeasible": "#d62728",
    "several": "#9467bd",
    "error": "#7f7f7f",
}


def _key(state, c, seen) -> str:
    base = c.label
    seen[base] = seen.get(base, -1) + 1
    return f"{base}#{seen[base]}"


def contact_rows(report: AuditReport) -> list[dict]:
    rows = []
    for s in report.states:
        seen: dict[str, int] = {}
        for c in s.contacts:
            lo, hi = c.normal_range
            rows.append(
                {
                    "step": s.step,
                    "time": s.time,
                    "status": s.status,
                    "certified": s.certified,
                    "key": _key(s, c, seen),
                    "index": c.index,
                    "kind": c.kind,
                    "geom1": c.geoms[0] if c.geoms else "",
                    "geom2": c.geoms[1] if c.geoms else "",
                    "mode": c.mode or "",
                    "engine_normal": c.engine_normal,
                    "range_lo": np.nan if lo is None else lo,
                    "range_hi": np.nan if hi is None else hi,
                    "distance_outside": np.nan if c.envelope_distance is None else c.envelope_distance,
                    "engine_friction": c.engine_friction,
                    "tangent_max": np.nan if c.tangent_max is None else c.tangent_max,
                    "engine_coulomb_residual": c.engine_coulomb_residual,
                    "hold_margin": np.nan if c.hold_margin is None else c.hold_margin,
                    "creep": c.creep,
                    "engine_tangential_speed": c.tangential_speed,
                    "flags": "; ".join(c.flags),
                }
            )
    return rows


def state_rows(report: AuditReport) -> list[dict]:
    return [
        {
            "step": s.step,
            "time": s.time,
            "status": s.status,
            "certified": s.certified,
            "acceleration_unique": "" if s.acceleration_unique is None else str(s.acceleration_unique),
            "unique_forces": "" if s.unique_forces is None else str(s.unique_forces),
            "engine_acceleration_gap": np.nan if s.engine_acceleration_gap is None else s.engine_acceleration_gap,
            "contacts": len(s.contacts),
            "flags": len(s.flags),
            "flag_text": " | ".join(s.flags[:20]),
            "seconds": s.seconds,
            "formulation": s.formulation,
        }
        for s in report.states
    ]


def _band(s) -> str:
    if s.status == "error":
        return "error"
    if s.status == "infeasible" and s.certified:
        return "infeasible"
    if s.acceleration_unique is False:
        return "several"
    return "solved" if s.certified and s.status == "solved" else "uncertified"


def _write_table(rows: list[dict], path_stem: pathlib.Path) -> pathlib.Path:
    import pandas as pd

    df = pd.DataFrame(rows)
    try:
        p = path_stem.with_suffix(".parquet")
        df.to_parquet(p, index=False)
    except ImportError:  # no pyarrow: CSV
        p = path_stem.with_suffix(".csv")
        df.to_csv(p, index=False)
    return p


def timeline(report: AuditReport, path: pathlib.Path) -> pathlib.Path:
    """``timeline.png`` (module docstring), drawn on matplotlib's Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = contact_rows(report)
    st = report.states
    t = np.array([s.time for s in st]) if st else np.zeros(0)
    load: dict[str, float] = {}
    for r in rows:
        load[r["key"]] = max(load.get(r["key"], 0.0), abs(r["engine_normal"]))
    keys = sorted(load, key=lambda k: -load[k])[:TIMELINE_CONTACTS]
    nk = len(keys)
    fig = Figure(figsize=(11, 2.2 * (nk + 3)))
    FigureCanvasAgg(fig)
    axs = fig.subplots(nk + 3, 1, sharex=True, gridspec_kw={"height_ratios": [0.5] + [1] * nk + [1, 0.8]})
    ax = axs[0]
    for s in st:
        ax.axvspan(s.time, s.time + (t[1] - t[0] if len(t) > 1 else 1.0), color=_COLOURS[_band(s)], lw=0)
    flagged = [s.time for s in st if s.flags]
    ax.plot(flagged, [0.5] * len(flagged), "k|", ms=8)
    ax.set_yticks([])
    ax.set_title(
        f"{report.model}: {len(st)} states — status (green certified, orange uncertified, red no rigid "
        f"solution, purple several, grey error; | flagged)",
        fontsize=9,
    )
    for ax, key in zip(axs[1 : 1 + nk], keys):
        sel = [r for r in rows if r["key"] == key]
        tt = np.array([r["time"] for r in sel])
        lo = np.array([r["range_lo"] for r in sel])
        hi = np.array([r["range_hi"] for r in sel])
        en = np.array([r["engine_normal"] for r in sel])
        ax.fill_between(
            tt,
            lo,
            np.where(np.isfinite(hi), hi, np.nan),
            color="#9ecae1",
            alpha=0.6,
            step="mid",
            label="rigid envelope [lo, hi]",
        )
        ax.plot(tt, en, ".", ms=2, color="#08519c", label="engine normal force")
        bad = np.array([bool(r["flags"]) for r in sel])
        if bad.any():
            ax.plot(tt[bad], en[bad], "x", ms=4, color="#d62728", label="flagged")
        ax.set_ylabel("N", fontsize=8)
        ax.set_title(key, fontsize=8, loc="left")
        ax.legend(fontsize=7, loc="upper right")
    ax = axs[1 + nk]
    gap = np.array([np.nan if s.engine_acceleration_gap is None else s.engine_acceleration_gap for s in st])
    if len(gap) and np.any(np.isfinite(gap) & (gap > 0)):
        ax.semilogy(t, np.where(gap > 0, gap, np.nan), ".", ms=2)
    ax.set_ylabel("‖Δa‖_M / ‖a_free‖_M", fontsize=8)
    ax.set_title("engine acceleration's gap to the rigid one", fontsize=8, loc="left")
    ax = axs[2 + nk]
    kinds = sorted({f.split(":")[0] for s in st for f in s.flags})
    for kind in kinds:
        ax.plot(t, [sum(1 for f in s.flags if f.split(":")[0] == kind) for s in st], ".", ms=2, label=kind)
    if kinds:
        ax.legend(fontsize=7, loc="upper right")
    ax.set_ylabel("flags", fontsize=8)
    ax.set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return path


def text_summary(report: AuditReport) -> str:
    """The terminal's summary: counts, flags by kind, the first flagged states, time per state."""
    s = report.summary()
    lines = [
        f"audit        {s['model']} ({s['engine']}): {s['states']} states, {s['certified']} certified rigid "
        f"answers; statuses {s['statuses']}",
        f"contacts     up to {s['max_contacts']} per state (mean {s['mean_contacts']:.1f}); "
        f"{s['creeping_contacts']} creeping contact-states",
        f"accel gap    max {s['engine_acceleration_gap']['max']}, median {s['engine_acceleration_gap']['median']} "
        "(‖a_engine − a‖_M / ‖a_free‖_M)",
        f"flagged      {s['flagged_states']} states"
        + (": " + ", ".join(f"{k} {v}" for k, v in sorted(s["flags"].items())) if s["flags"] else ""),
        f"time         {s['seconds']:.1f} s, {s['seconds_per_state']:.3f} s per state (rigid answer + envelopes "
        f"{s['rigid_seconds_per_state']:.3f} s)",
    ]
    judged = [st.engine_answer for st in report.states if st.engine_answer is not None]
    if judged:  # an adapter with its own judge of the engine's whole answer (Siconos)
        ok = sum(1 for j in judged if j.get("certified_solution"))
        lines.append(
            f"engine answer {ok} of {len(judged)} certified a solution of the rigid problem by our judge"
            + "".join(
                f" (claimed success: {j.get('claimed_success')})"
                for j in judged[:1]
                if j.get("claimed_success") is not None
            )
        )
    for f in s["first_flagged"][:5]:
        lines.append(f"  step {f['step']} (t = {f['time']:.4g}): " + "; ".join(f["flags"][:3]))
    return "\n".join(lines)


def write_report(report: AuditReport, out) -> dict[str, pathlib.Path]:
    """Write the report's files into the folder ``out`` (created); returns their paths by kind."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"json": out / "audit.json"}
    files["json"].write_text(json.dumps(to_jsonable(report.as_dict())))
    files["contacts"] = _write_table(contact_rows(report) or [{"step": None}], out / "contacts")
    files["states"] = _write_table(state_rows(report) or [{"step": None}], out / "states")
    files["png"] = timeline(report, out / "timeline.png")
    png = base64.b64encode(files["png"].read_bytes()).decode()
    s = report.summary()
    flagged = [st for st in report.states if st.flags]
    rows = "".join(
        f"<tr><td>{st.step}</td><td>{st.time:.4g}</td><td>{html.escape(st.status)}</td>"
        f"<td>{html.escape('; '.join(st.flags[:8]))}{' …' if len(st.flags) > 8 else ''}</td></tr>"
        for st in flagged[:500]
    )
    summary = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(json.dumps(to_jsonable(v)))}</td></tr>"
        for k, v in s.items()
        if k != "first_flagged"
    )
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>gaussqp audit: {html.escape(report.model)}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:auto}}td,th{{border:1px solid #ccc;padding:2px 6px;
font-size:13px;text-align:left;vertical-align:top}}table{{border-collapse:collapse}}</style></head><body>
<h1>Audit of {html.escape(report.engine)}'s contact answers: {html.escape(report.model)}</h1>
<p>Each state's rigid problem (mode-free Coulomb) solved and certified by gaussqp; each contact's engine normal force
against its certified envelope (the range over every force distribution of the rigid answer), the engine forces'
Coulomb residual, creep (rigid sticking, engine slipping) and the engine acceleration's gap to the rigid one.</p>
<h2>Summary</h2><table>{summary}</table>
<h2>Timeline</h2><img alt="timeline" style="max-width:100%" src="data:image/png;base64,{png}">
<h2>Flagged states ({len(flagged)})</h2><table><tr><th>step</th><th>time</th><th>status</th><th>flags</th></tr>{rows}
</table></body></html>"""
    files["html"] = out / "report.html"
    files["html"].write_text(page)
    return files
