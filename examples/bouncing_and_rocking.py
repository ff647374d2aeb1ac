"""A ball bouncing on a plane and a rocking block, advanced with gaussqp.step (Moreau–Jean), with their energy and
contact impulses plotted to a PNG (needs matplotlib: pip install .[plots]).

    python examples/bouncing_and_rocking.py [--out figures] [--quick]

- the ball (mass 1, radius 0.1) dropped from 1 m with restitution e = 0.8, 0.5 and 0: its height, its total
  energy (each impact keeps e² of the kinetic energy: Newton's law in Moreau's form) and the percussions;
- the library's rocking block (gaussqp.problems.sticking_examples.rocking_block geometry: width 1, height 2,
  corners A1/A2; frictionless contacts, e = 0.5) released at rest tilted 0.25 rad on its corner A2: it falls back,
  A1 hits the plane, A2 lifts off, and it rocks with a decaying amplitude; its angle, its energy and the
  impulses at A1 and A2.

Every step is solved and certified by gaussqp (a step whose answer is not certified is counted and reported).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from gaussqp import ContactRows, MechanicalSystem, State, step
from gaussqp.problems.sticking_examples import rocking_block

G = 9.81


def ball(e: float, m: float = 1.0, r: float = 0.1) -> MechanicalSystem:
    """The ball: q = (y,), gap y − r, applied force −m g."""
    return MechanicalSystem(
        mass=lambda q: np.array([[m]]),
        force=lambda q, v, t: np.array([-m * G]),
        contacts=lambda q: ContactRows(gaps=[q[0] - r], normals=[[1.0]], restitution=e),
        name=f"ball e={e}",
    )


def block(e: float = 0.0, m: float = 1.0, L: float = 1.0, l: float = 2.0) -> MechanicalSystem:
    """The rocking block: q = (x, y, θ), M = diag(m, m, m(l² + L²)/12), the corners' gaps
    h1 = y − l/2 cos θ + L/2 sin θ, h2 = y − l/2 cos θ − L/2 sin θ and their rows from
    :func:`gaussqp.problems.sticking_examples.rocking_block` (frictionless)."""
    IG = m * (l * l + L * L) / 12

    def contacts(q):
        _, y, th = q
        gaps = [y - l / 2 * math.cos(th) + L / 2 * math.sin(th), y - l / 2 * math.cos(th) - L / 2 * math.sin(th)]
        return ContactRows(
            gaps=gaps, normals=np.asarray(rocking_block(theta=float(th), m=m, L=L, l=l).J_n), restitution=e
        )

    return MechanicalSystem(
        mass=lambda q: np.diag([m, m, IG]),
        force=lambda q, v, t: np.array([0.0, -m * G, 0.0]),
        contacts=contacts,
        name="rocking block",
    )


def simulate(system: MechanicalSystem, state: State, h: float, T: float, theta: float = 0.5) -> dict:
    """Advance ``system`` from ``state`` to time T; record t, q, v, the percussions and the certified flags."""
    out = {"t": [state.t], "q": [state.q], "v": [state.v], "P": [], "certified": []}
    for _ in range(round(T / h)):
        res = step(system, state, h, theta=theta)
        state = res.state
        out["t"].append(state.t)
        out["q"].append(state.q)
        out["v"].append(state.v)
        out["P"].append(res.impulses)
        out["certified"].append(res.solution.certified)
    return {k: np.array(v) for k, v in out.items()}


def energy(rec: dict, M: np.ndarray, height_index: int, offset: float, m: float = 1.0) -> np.ndarray:
    """Kinetic plus potential energy along a record."""
    kin = 0.5 * np.einsum("ki,ij,kj->k", rec["v"], M, rec["v"])
    return kin + m * G * (rec["q"][:, height_index] - offset)


def main(argv=None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="figures")
    ap.add_argument("--quick", action="store_true", help="coarse steps and short horizons (for the tests)")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h, T_ball, T_block = (0.01, 1.2, 0.8) if args.quick else (0.002, 3.0, 3.0)
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    uncertified = 0
    for e, color in ((0.8, "C0"), (0.5, "C1"), (0.0, "C2")):
        rec = simulate(ball(e), State(q=np.array([1.0]), v=np.array([0.0])), h, T_ball)
        uncertified += int((~rec["certified"]).sum())
        axes[0, 0].plot(rec["t"], rec["q"][:, 0], color=color, label=f"e = {e}")
        axes[0, 1].plot(rec["t"], energy(rec, np.eye(1), 0, 0.1), color=color, label=f"e = {e}")
        axes[0, 2].plot(rec["t"][1:], rec["P"][:, 0], color=color, label=f"e = {e}")
    axes[0, 0].set(title="ball: height y (m)", xlabel="t (s)")
    axes[0, 1].set(title="ball: total energy (J)", xlabel="t (s)")
    axes[0, 2].set(title="ball: percussion per step (N s)", xlabel="t (s)")
    L, l, th0 = 1.0, 2.0, 0.25
    q0 = np.array([0.0, l / 2 * math.cos(th0) + L / 2 * math.sin(th0), th0])
    rec = simulate(block(e=0.5), State(q=q0, v=np.zeros(3)), h, T_block)
    uncertified += int((~rec["certified"]).sum())
    IG = (l * l + L * L) / 12
    axes[1, 0].plot(rec["t"], rec["q"][:, 2])
    axes[1, 0].set(title="rocking block: angle θ (rad)", xlabel="t (s)")
    axes[1, 1].plot(rec["t"], energy(rec, np.diag([1.0, 1.0, IG]), 1, l / 2))
    axes[1, 1].set(title="rocking block: energy above rest (J)", xlabel="t (s)")
    axes[1, 2].plot(rec["t"][1:], rec["P"][:, 0], label="A1")
    axes[1, 2].plot(rec["t"][1:], rec["P"][:, 1], label="A2", linestyle="--")
    axes[1, 2].set(title="rocking block: percussions (N s)", xlabel="t (s)")
    for ax in axes.ravel():
        ax.grid(alpha=0.3)
    for ax in (axes[0, 0], axes[0, 1], axes[0, 2], axes[1, 2]):
        ax.legend()
    fig.suptitle(f"gaussqp.step (Moreau–Jean, θ = 1/2, h = {h}); uncertified steps: {uncertified}")
    fig.tight_layout()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "bouncing_and_rocking.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"wrote {path} ({uncertified} uncertified steps)")
    return path


if __name__ == "__main__":
    main()
