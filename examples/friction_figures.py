"""Regenerate the tutorial's Fig. 1(b)(c) and Fig. 2(b)(c) as PNG files (needs matplotlib: pip install .[plots]).

    python examples/friction_figures.py [--out figures] [--theta 0.6] [--quick]

- fig1b.png: Painlevé–Klein rod at angle θ, (μ1, μ2) plane: the exact uniqueness region (the hLCP (41)
  matrix is a P-matrix, exact by principal minors — equivalently the four sign pieces of (37) are
  coherently oriented), the Prop. 9 square (38), and the paper's dashed line |μ1 - μ2| = 2/tan θ.
- fig1c.png: μ_max^b(θ) of (38) against 2/tan θ.
- fig2b.png: falling ladder, Prop. 13's bound μ_max^ub(θ) along θ, with the exact critical common μ.
- fig2c.png: ladder at θ = π/4, the (μ_b, μ_u) region where the LCP matrix (58) is a P-matrix, and the
  Prop. 13 square.

Every region is computed by gaussqp's own functions; nothing is digitized from the paper.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from gaussqp.errors import NotApplicableError
from gaussqp.certificates.friction_bounds import common_mu_bound, sigma_ratio
from gaussqp.problems.sliding_examples import falling_ladder, painleve_klein, painleve_klein_mu_max
from gaussqp.friction.sliding import sliding_lcp, p_matrix_test, reduce


def _is_p(red, mu_b, mu_u) -> bool:
    try:
        return bool(p_matrix_test(sliding_lcp(red, mu_b, mu_u).M).holds)
    except NotApplicableError:  # A_nb - A_tb[μξ] singular: the hLCP has no unique solution
        return False


def fig1b(ax, theta: float, k: int) -> None:
    crit = 2 / math.tan(theta)
    mus = np.linspace(0, 2.2 * crit, k)
    P = np.array([[_is_p(reduce(painleve_klein(theta, m1, m2)), None, None) for m1 in mus] for m2 in mus])
    ax.contourf(mus, mus, P.astype(float), levels=[0.5, 1.5], colors=["0.8"])
    b = sigma_ratio(*(lambda r: (r.A_nb, r.A_tb))(reduce(painleve_klein(theta))))
    ax.plot([0, b, b], [b, b, 0], "k:", label=f"Prop. 9 square, μ < {b:.3f} (38)")
    x = np.linspace(0, mus[-1], 2)
    ax.plot(x, x + crit, "k--", label="|μ1 - μ2| = 2/tan θ (paper)")
    ax.plot(x, x - crit, "k--")
    ax.plot([], [], "s", color="0.8", label="exact: (41) matrix is P (one solution for every load)")
    ax.set(
        xlim=(0, mus[-1]), ylim=(0, mus[-1]), xlabel="μ1", ylabel="μ2", title=f"Painlevé–Klein rod, θ = {theta:.2f} rad"
    )
    ax.legend(fontsize=7, loc="upper right")


def fig1c(ax) -> None:
    th = np.linspace(0.02, math.pi / 2 - 0.02, 400)
    ax.plot(th, [painleve_klein_mu_max(t) for t in th], "k-", label="μ_max^b(θ) (38)")
    ax.plot(th, 2 / np.tan(th), "k--", label="2/tan θ")
    num = [sigma_ratio(r.A_nb, r.A_tb) for r in (reduce(painleve_klein(t)) for t in th[::20])]
    ax.plot(th[::20], num, "o", ms=3, color="0.4", label="σ_min(A_nb)/σ_max(A_tb), computed")
    ax.set(ylim=(0, 5), xlabel="θ (rad)", ylabel="μ", title="Painlevé–Klein friction bound")
    ax.legend(fontsize=7)


def fig2b(ax, k: int) -> None:
    th = np.linspace(0.1, math.pi / 2 - 0.1, k)
    bound, crit = [], []
    grid = np.linspace(0, 4, 401)
    for t in th:
        red = reduce(falling_ladder(t))
        bound.append(common_mu_bound(red)["value"])
        crit.append(next((m for m in grid if not _is_p(red, [m], [m])), np.nan))
    ax.plot(th, bound, "k-", label="Prop. 13 bound μ_max^ub(θ)")
    ax.plot(th, crit, "k--", label="exact: first common μ where (58) is not P")
    ax.set(xlabel="θ (rad)", ylabel="μ", title="Falling ladder (2 m, 1 kg)")
    ax.legend(fontsize=7)


def fig2c(ax, k: int) -> None:
    red = reduce(falling_ladder(math.pi / 4))
    mus = np.linspace(0, 3, k)
    P = np.array([[_is_p(red, [mb], [mu]) for mb in mus] for mu in mus])
    ax.contourf(mus, mus, P.astype(float), levels=[0.5, 1.5], colors=["0.2"])
    b = common_mu_bound(red)["value"]
    ax.plot([0, b, b], [b, b, 0], "w-", label=f"Prop. 13 square, μ < {b:.3f}")
    ax.plot([], [], "s", color="0.2", label="(58) matrix is P")
    ax.set(xlabel="μ_b (wall)", ylabel="μ_u (ground)", title="Ladder at θ = π/4")
    ax.legend(fontsize=7, loc="upper right")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="figures", help="output directory")
    ap.add_argument("--theta", type=float, default=0.6, help="Painlevé–Klein angle for fig1b (rad)")
    ap.add_argument("--quick", action="store_true", help="coarse grids")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    k = 41 if args.quick else 121
    for name, draw in (
        ("fig1b", lambda ax: fig1b(ax, args.theta, k)),
        ("fig1c", fig1c),
        ("fig2b", lambda ax: fig2b(ax, 12 if args.quick else 40)),
        ("fig2c", lambda ax: fig2c(ax, k)),
    ):
        fig, ax = plt.subplots(figsize=(4.5, 4))
        draw(ax)
        fig.tight_layout()
        fig.savefig(out / f"{name}.png", dpi=120)
        plt.close(fig)
        print(out / f"{name}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
