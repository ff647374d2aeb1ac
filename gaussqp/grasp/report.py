"""Every grasp check at once: what ``gaussqp grasp FILE`` prints and ``--json`` writes.

:func:`analyze` runs, on one :class:`~gaussqp.grasp.Grasp`, force closure and form closure
(:mod:`.closure`), the Ferrari–Canny ε bracketed with the exact cones (:mod:`.quality`), the internal forces, the
min-weight metric, equilibrium under the grasp's wrench when it has one, and with a hand its equilibrium and
closure under the joint-torque limits (:mod:`.hand`). Each entry is a :class:`~gaussqp.grasp.GraspCheck` with its
certificate either way; :meth:`GraspReport.to_dict` is the JSON object (``force_closure: {holds, margin,
certificate}``, ``form_closure: {holds, certificate}``, ``epsilon: {lower, upper, facets}`` in the L2 norm of the
scaled wrench ``(force, torque / L)``, ``equilibrium``, ``internal_forces: {dimension}``, …). Every certificate
carries its ``evidence``: the unresisted wrench ``y`` with ``Gᵀy``, the interior forces, the separating wrench, the
equilibrium forces, with a ``verify`` text naming what a reader checks on them with the grasp file alone.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..jsonable import to_jsonable
from .closure import equilibrium, force_closure, form_closure, internal_forces, min_weight
from .hand import hand_closure, hand_equilibrium
from .model import Grasp, GraspCheck, check_grasp
from .quality import epsilon
from ..settings import DEFAULT_FACETS


@dataclass
class GraspReport:
    """The checks of one grasp (module docstring); ``checks`` in the order they ran, ``times`` per check."""

    grasp: Grasp
    facets: int
    norm: str
    checks: dict = field(default_factory=dict)
    times: dict = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        """Every check ran to a verdict whose certificate verified (an undecided ε bracket is not certified)."""
        return all(c.certified for c in self.checks.values())

    def summary(self, name: str | None = None) -> str:
        """The checks as text, what ``gaussqp grasp`` prints: one line per check with its verdict (yes, no,
        undecided), whether it is certified, and its detail (margin, certificate id, ε bracket, dim ker G); then,
        when a verdict is not certified, why. ``name`` replaces the grasp's own name in the first line."""
        from ..results import format_value as fmt

        g = self.grasp
        kinds = ", ".join(sorted({c.kind for c in g.contacts}))
        out = [f"grasp {name or g.name}: {g.m} contacts ({kinds}), {g.dimension}D, torque scale L = {g.torque_scale:g}"]

        def line(label: str, c: GraspCheck, detail: str) -> None:
            verdict = {True: "yes", False: "no", None: "undecided"}[c.holds]
            out.append(f"  {label:<24} {verdict:<10} {'certified' if c.certified else 'NOT certified':<14} {detail}")

        def proof(c: GraspCheck) -> str:
            return c.certificate.id if c.certificate else c.reason

        fc, fo, eps = self.checks["force_closure"], self.checks["form_closure"], self.checks["epsilon"]
        line("force closure", fc, f"margin {fmt(fc.margin)}; " + proof(fc))
        line("form closure", fo, proof(fo))
        line(
            f"epsilon ({self.norm})",
            eps,
            f"[{fmt(eps.value.get('lower'))}, {fmt(eps.value.get('upper'))}] with "
            f"{self.facets} facets"
            + (
                f"; local search {fmt(eps.value.get('exact'))} (an upper bound)"
                if eps.value.get("exact") is not None
                else ""
            ),
        )
        itf, mw = self.checks["internal_forces"], self.checks["min_weight"]
        line("internal forces", itf, f"dim ker G = {itf.value.get('dimension')}")
        line("min-weight (LP)", mw, fmt(mw.margin))
        for key, label in (
            ("equilibrium", "equilibrium (wrench)"),
            ("hand_closure", "hand closure (τ limits)"),
            ("hand_equilibrium", "hand equilibrium"),
            ("dynamic", "dynamic hold (M, F)"),
        ):
            if key in self.checks:
                line(label, self.checks[key], proof(self.checks[key]))
        if not self.certified:
            out.append(
                "not every verdict is certified: "
                + "; ".join(f"{k}: {c.reason}" for k, c in self.checks.items() if not c.certified)
            )
        return "\n".join(out)

    def __repr__(self) -> str:
        held = ", ".join(
            f"{k}={ {True: 'yes', False: 'no', None: 'undecided'}[c.holds] }" for k, c in self.checks.items()
        )
        return f"GraspReport({self.grasp.name!r}: {held}; certified={self.certified})"

    def to_dict(self) -> dict:
        g = self.grasp
        out: dict = {
            "grasp": g.name,
            "contacts": g.m,
            "dimension": g.dimension,
            "torque_scale": g.torque_scale,
            "kinds": sorted({c.kind for c in g.contacts}),
            "certified": self.certified,
        }
        fc, fo, eps = self.checks["force_closure"], self.checks["form_closure"], self.checks["epsilon"]
        out["force_closure"] = {
            "holds": fc.holds,
            "certified": fc.certified,
            "margin": to_jsonable(fc.margin),
            "certificate": _cert(fc),
        }
        out["form_closure"] = {"holds": fo.holds, "certified": fo.certified, "certificate": _cert(fo)}
        out["epsilon"] = {
            "lower": to_jsonable(eps.value.get("lower")),
            "upper": to_jsonable(eps.value.get("upper")),
            # a local minimum of the exact support function over directions: an upper bound on the
            # exact ε, checked to lie in the bracket; the bracket is the proof
            "local_search": to_jsonable(eps.value.get("exact")),
            "facets": self.facets,
            "norm": self.norm,
            "wrench_norm": "L2 of (force, torque / torque_scale)",
            "holds": eps.holds,
            "certified": eps.certified,
            "certificate": _cert(eps),
        }
        itf = self.checks["internal_forces"]
        out["internal_forces"] = {"dimension": itf.value.get("dimension"), "rank": itf.value.get("rank")}
        mw = self.checks["min_weight"]
        out["min_weight"] = {
            "value": to_jsonable(mw.value.get("value", mw.margin)),
            "holds": mw.holds,
            "certified": mw.certified,
            "certificate": _cert(mw),
        }
        if "equilibrium" in self.checks:
            eq = self.checks["equilibrium"]
            out["equilibrium"] = {"holds": eq.holds, "certified": eq.certified, "certificate": _cert(eq)}
            if eq.holds:  # physical units: per contact the normal force, the tangential force (N) and the torsion
                out["equilibrium"]["forces"] = [
                    {
                        "normal": f["normal"],
                        "tangential": to_jsonable(f["tangential"]),
                        "torsion": f["torsion"],
                        "force": to_jsonable(f["force"]),
                    }
                    for f in g.physical_forces(eq.value["forces"])
                ]
                out["equilibrium"]["forces_coordinates"] = to_jsonable(eq.value["forces"])
                out["equilibrium"]["units"] = (
                    "forces: physical (N, N·m); forces_coordinates: the cone coordinates "
                    "x_i = (f_n, f_t/μ[, τ/μ_t]) of the grasp map"
                )
            else:
                out["equilibrium"]["separating_wrench"] = to_jsonable(eq.value.get("separating_wrench"))
        for name in ("hand_equilibrium", "hand_closure"):
            if name in self.checks:
                c = self.checks[name]
                out[name] = {
                    "holds": c.holds,
                    "certified": c.certified,
                    "margin": to_jsonable(c.margin),
                    "certificate": _cert(c),
                }
        out["reasons"] = {k: c.reason for k, c in self.checks.items() if c.reason}
        out["times"] = {k: round(v, 6) for k, v in self.times.items()}
        return out


def _cert(c: GraspCheck) -> dict | None:
    """The check's certificate as JSON: its verdict and, always, its ``evidence`` (the vectors it rests on, with
    what to check on them: :meth:`gaussqp.results.Certificate.as_dict`)."""
    return None if c.certificate is None else c.certificate.as_dict(with_data=False)


def analyze(grasp: Grasp, *, facets: int = DEFAULT_FACETS, norm: str = "L1", solver: str | None = None) -> GraspReport:
    """Run every check of the module docstring on ``grasp`` (``facets``: the polygons bracketing the exact cones in ε;
    ``norm``: "L1" or "Linf" for ε)."""
    check_grasp(grasp)
    rep = GraspReport(grasp, facets, norm)
    runs = [
        ("force_closure", lambda: force_closure(grasp, solver=solver)),
        ("form_closure", lambda: form_closure(grasp, solver=solver)),
        ("epsilon", lambda: epsilon(grasp, facets=facets, norm=norm)),
        ("internal_forces", lambda: internal_forces(grasp, solver=solver)),
        ("min_weight", lambda: min_weight(grasp)),
    ]
    if grasp.wrench is not None:
        runs.append(("equilibrium", lambda: equilibrium(grasp, solver=solver)))
    if grasp.hand is not None:
        runs.append(("hand_closure", lambda: hand_closure(grasp)))
        if grasp.wrench is not None:
            runs.append(("hand_equilibrium", lambda: hand_equilibrium(grasp)))
    for name, run in runs:
        t0 = time.perf_counter()
        rep.checks[name] = run()
        rep.times[name] = time.perf_counter() - t0
    return rep


__all__ = ["GraspReport", "analyze"]
