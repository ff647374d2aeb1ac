"""Grasp quality ε: gaussqp's bracket against a facetized-cone baseline of the kind Dex-Net / GraspIt compute
(issue #13 acceptance: the side-by-side table).

The baseline is written here (no code copied from those tools): each hard finger's friction cone is replaced
by a pyramid of ``k`` edges on the cone (4: ``n ± μ t_1``, ``n ± μ t_2``; 8: every 45°), soft fingers are treated
as hard ones (torsion ignored, as those tools do), the wrenches ``(f, τ / L)`` of the edges go to qhull, and ε is
the smallest facet distance; it returns ``-1`` when qhull fails (a flat set, e.g. the 3D two-finger grasp) and
``0`` when the origin is outside — a bare number, no certificate. gaussqp's
:func:`gaussqp.grasp.quality.epsilon` gives the exact-cone ε bracketed by inscribed / circumscribed polytopes, the
local exact value, a verdict and a verified certificate either way.

Run: ``python benchmarks/grasp_quality.py``
"""

from __future__ import annotations

import time

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from gaussqp.errors import InputTooLargeError
from gaussqp.grasp.model import Grasp, GraspContact, tangent_basis
from gaussqp.grasp.closure import force_closure
from gaussqp.grasp.quality import epsilon


def baseline_epsilon(grasp: Grasp, edges: int) -> float:
    """Pyramid cones with ``edges`` edges, qhull ε of the edges' wrenches; −1 on a qhull failure, 0 without closure."""
    L = grasp.torque_scale
    W = []
    for c in grasp.contacts:
        n, p = np.asarray(c.normal), np.asarray(c.position)
        T = tangent_basis(n)
        if len(n) == 2:
            dirs = [n + c.friction * T[0], n - c.friction * T[0]] if c.friction > 0 else [n]
        else:
            th = 2 * np.pi * np.arange(edges) / edges
            dirs = [n + c.friction * (np.cos(a) * T[0] + np.sin(a) * T[1]) for a in th] if c.friction > 0 else [n]
        for f in dirs:
            tau = (p[0] * f[1] - p[1] * f[0]) if len(n) == 2 else np.cross(p, f)
            W.append(np.concatenate([f, np.atleast_1d(tau) / L]))
    try:
        hull = ConvexHull(np.array(W))
    except QhullError:
        return -1.0
    d = -hull.equations[:, -1]
    return 0.0 if np.min(d) <= 0 else float(np.min(d))


def grasps() -> dict[str, Grasp]:
    out = {}
    out["two fingers, planar (μ 0.5)"] = Grasp(
        [GraspContact([-1.0, 0], [1.0, 0], 0.5), GraspContact([1.0, 0], [-1.0, 0], 0.5)]
    )
    out["two fingers, 3D (μ 0.5)"] = Grasp(
        [GraspContact([-1.0, 0, 0], [1.0, 0, 0], 0.5), GraspContact([1.0, 0, 0], [-1.0, 0, 0], 0.5)]
    )
    ring2, ring3 = [], []
    for j in range(3):
        a = 2 * np.pi * j / 3
        p2 = np.array([np.cos(a), np.sin(a)])
        ring2.append(GraspContact(p2, -p2, 0.4))
        p3 = np.array([np.cos(a), np.sin(a), 0.0])
        ring3.append(GraspContact(p3, -p3, 0.5))
    out["three fingers at 120°, planar (μ 0.4)"] = Grasp(ring2)
    out["three fingers at 120°, 3D (μ 0.5)"] = Grasp(ring3)
    th = np.arctan(0.4)
    tilt = []
    for j in range(3):
        a = 2 * np.pi * j / 3
        p = np.array([np.cos(a), np.sin(a), 0.0])
        tilt.append(GraspContact(p, -p * np.cos(th) + np.array([0, 0, np.sin(th)]), 0.5))
    out["three fingers tilted 21.8° (μ 0.5)"] = Grasp(tilt)
    out["four fingers on a box (μ 0.5)"] = Grasp(
        [
            GraspContact([-1.0, 0.3, 0.2], [1.0, 0, 0], 0.5),
            GraspContact([-1.0, -0.3, -0.2], [1.0, 0, 0], 0.5),
            GraspContact([1.0, 0.3, -0.2], [-1.0, 0, 0], 0.5),
            GraspContact([1.0, -0.3, 0.2], [-1.0, 0, 0], 0.5),
        ]
    )
    out["soft parallel jaw (μ 0.5, μ_t 0.1)"] = Grasp(
        [
            GraspContact([-1.0, 0, 0], [1.0, 0, 0], 0.5, "soft", 0.1),
            GraspContact([1.0, 0, 0], [-1.0, 0, 0], 0.5, "soft", 0.1),
        ]
    )
    from gaussqp.problems import grasps as shipped  # the library's examples (gaussqp list)

    for name in shipped.names():
        out[f"example {name}"] = shipped.load(name)
    return out


def timed(f, *a, **k):
    t = time.perf_counter()
    r = f(*a, **k)
    return r, time.perf_counter() - t


def main() -> None:
    rows = []
    for name, g in grasps().items():
        b4, tb4 = timed(baseline_epsilon, g, 4)
        b8, tb8 = timed(baseline_epsilon, g, 8)
        fc, tfc = timed(force_closure, g)
        e8, t8 = timed(epsilon, g, facets=8)
        e32, t32 = timed(epsilon, g, facets=32)
        try:
            ei, ti = timed(epsilon, g, facets=6, norm="Linf")
            linf = f"[{ei.value['lower']:.4g}, {ei.value['upper']:.4g}] ({ti * 1e3:.0f} ms)"
        except InputTooLargeError:
            linf = "refused: too many Minkowski points"
        verdict = {True: "closure", False: "no closure", None: "undecided"}
        rows.append(
            (
                name,
                f"{b4:.4g}",
                f"{b8:.4g}",
                f"{tb8 * 1e3:.1f}",
                f"[{e8.value['lower']:.4g}, {e8.value['upper']:.4g}]",
                f"[{e32.value['lower']:.4g}, {e32.value['upper']:.4g}]",
                "—" if e32.value["exact"] is None else f"{e32.value['exact']:.4g}",
                f"{verdict[e8.holds]} / {verdict[e32.holds]}",
                f"{e32.certificate.id} {'✓' if e32.certified else '✗'}",
                f"{t8 * 1e3:.1f} / {t32 * 1e3:.1f}",
                linf,
                f"{verdict[fc.holds]} {'✓' if fc.certified else '✗'} ({tfc * 1e3:.0f} ms)",
            )
        )
    head = (
        "grasp",
        "baseline k=4",
        "baseline k=8",
        "ms",
        "gaussqp ε, 8 facets",
        "gaussqp ε, 32 facets",
        "exact (local)",
        "verdict 8 / 32",
        "certificate",
        "ms 8 / 32",
        "gaussqp L∞ ε, 6 facets",
        "force closure (exact cones)",
    )
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
