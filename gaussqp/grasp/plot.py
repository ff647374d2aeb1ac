"""A picture of a grasp: the contacts with their friction cones, and a 3D projection of the
wrench set with the ε ball. Needs matplotlib (the optional extra ``gaussqp[plots]``), imported when called."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import MissingExtraError, WrongTypeError
from ..settings import GRASP_PLOT_CONE_LENGTH
from .model import Grasp, tangent_basis
from .quality import epsilon, polytope_points


def _cone_segments(grasp: Grasp, facets: int) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """Per contact with a position: its point and the edges (physical force directions) of the inscribed cone."""
    out = []
    for i, c in enumerate(grasp.contacts):
        gen = grasp.cone_generators(i, facets, "inner")
        T = tangent_basis(c.normal)
        k = grasp.dimension - 1
        edges = []
        for row in gen:
            nu = row[1 : 1 + k] if c.nu_dim else np.zeros(k)
            d = c.normal + c.friction * (T.T @ nu)
            edges.append(d / np.linalg.norm(d))
        out.append((np.asarray(c.position, dtype=float), edges))
    return out


def plot(grasp: Grasp, path, *, facets: int = 16, norm: str = "L1") -> Path:
    """Draw the grasp into a PNG at ``path`` and return it.

    Left: the contacts (points), their inward normals and inscribed friction cones (edges drawn *outward* from the
    object, i.e. along ``−(n + μ t)`` from the contact, so that they do not hide inside it; 2D axes for a planar
    grasp, 3D otherwise). Right: the polyhedral wrench set (hull of the inscribed primitive wrenches, ``norm`` as in
    :func:`~gaussqp.grasp.quality.epsilon`) projected on ``(f_x, f_y, τ/L)`` in the plane or on the forces
    ``(f_x, f_y, f_z)`` in space, with the sphere of radius ε (the lower bound; a ball inside the set projects
    inside the projection). Source: matplotlib (Agg backend).
    """
    if not isinstance(grasp, Grasp):
        raise WrongTypeError("grasp", f"is a {type(grasp).__name__}", "give a gaussqp.grasp.Grasp")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError("plotting a grasp needs matplotlib: pip install 'gaussqp[plots]'") from exc
    from scipy.spatial import ConvexHull, QhullError

    eps = epsilon(grasp, facets=facets, norm=norm, exact=False)
    lower = float(eps.value["lower"])
    fig = plt.figure(figsize=(11, 5))
    planar = grasp.dimension == 2
    ax = fig.add_subplot(1, 2, 1) if planar else fig.add_subplot(1, 2, 1, projection="3d")
    size = max([float(np.linalg.norm(c.position)) for c in grasp.contacts] + [grasp.torque_scale])
    reach = GRASP_PLOT_CONE_LENGTH * size
    for p, edges in _cone_segments(grasp, facets):
        ax.scatter(*p, color="k", zorder=3)
        for d in edges:
            q = p - reach * d
            ax.plot(*np.column_stack([p, q]), color="tab:blue", lw=1)
        n = edges[0] if len(edges) == 1 else np.mean(edges, axis=0)
        ax.plot(*np.column_stack([p, p + reach * n / np.linalg.norm(n)]), color="tab:red", lw=1.5)
    if planar:
        ax.add_patch(plt.Circle((0, 0), size, fill=False, ls=":", color="grey"))
        ax.set_aspect("equal")
    else:
        for setter in (ax.set_xlim, ax.set_ylim, ax.set_zlim):
            setter(-size - reach, size + reach)
        ax.set_box_aspect((1, 1, 1))
    ax.set_title(f"{grasp.name or 'grasp'}\ncontacts, inward normals (red), cones (blue)", fontsize=10)

    P = polytope_points(grasp, facets, "inner", norm)
    Q = P[:3] if not planar else P
    ax3 = fig.add_subplot(1, 2, 2, projection="3d")
    try:
        hull = ConvexHull(Q.T)
        ax3.add_collection3d(
            Poly3DCollection(
                [Q.T[s] for s in hull.simplices], alpha=0.25, facecolor="tab:blue", edgecolor="tab:blue", linewidths=0.3
            )
        )
    except (QhullError, ValueError):  # a flat projection: draw the points only
        pass
    ax3.scatter(*Q, s=4, color="tab:blue")
    if lower > 0:
        u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 24), np.linspace(0, np.pi, 12))
        ax3.plot_wireframe(
            lower * np.cos(u) * np.sin(v),
            lower * np.sin(u) * np.sin(v),
            lower * np.cos(v),
            color="tab:red",
            linewidth=0.5,
        )
    lim = float(np.max(np.abs(Q))) if Q.size else 1.0
    for setter in (ax3.set_xlim, ax3.set_ylim, ax3.set_zlim):
        setter(-lim, lim)
    ax3.set_box_aspect((1, 1, 1))
    ax3.set_xlabel("f_x")
    ax3.set_ylabel("f_y")
    ax3.set_zlabel("τ / L" if planar else "f_z")
    ax3.set_title(f"wrench set ({norm}, {facets} facets)\nε ∈ [{lower:.3g}, {eps.value['upper']:.3g}]", fontsize=10)
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


__all__ = ["plot"]
