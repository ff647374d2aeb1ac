"""Benchmarks (not tests): times measured side by side in one run, printed as ratios.

1. ``solve`` with a cached compiled (DPP) program vs a direct Clarabel / OSQP call on the same matrices;
2. our Lemke vs the QP route (F1 through cvxpy) on the same contact problems;
3. all-sticking 3D stacks: F4 vs F5 (inscribed, circumscribed) vs the LCP route, up to thousands of contacts;
4. our Lemke vs Siconos's C Lemke on the same LCPs, when Debian's python3-siconos is importable
   (an optional peer, never a runtime dependency), and 5. who solves degenerate LCPs;
for sizes up to thousands of contacts (planar chains, sparse).

Run: ``python benchmarks/bench.py [--quick]``
"""

from __future__ import annotations

import argparse
import time

import clarabel
import numpy as np
import osqp
import scipy.sparse as sp

import gaussqp
from gaussqp.mechanics.delassus import constrained_delassus
from gaussqp.formulations import PROGRAMS, sticking_conic
from gaussqp.friction.verdict import analyze
from gaussqp.settings import get_tolerance
from gaussqp.linalg.lemke import lemke
from gaussqp.problems import families


def best_of(fn, repeat=3):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return min(ts), out


def direct_clarabel(p):
    """Same F1 data straight to Clarabel: P = M, q = F, rows E (zero cone) and G (nonneg cone)."""
    E, e = p.equalities
    G, g = p.inequalities
    P = sp.triu(sp.csc_matrix(p.M), format="csc")
    A = sp.vstack([sp.csc_matrix(E), -sp.csc_matrix(G)], format="csc")
    b = np.concatenate([-e, g])
    cones = ([clarabel.ZeroConeT(E.shape[0])] if E.shape[0] else []) + [clarabel.NonnegativeConeT(G.shape[0])]
    s = clarabel.DefaultSettings()
    s.verbose = False
    s.tol_gap_abs = s.tol_gap_rel = s.tol_feas = 1e-9
    sol = clarabel.DefaultSolver(P, np.asarray(p.F), A, b, cones, s).solve()
    assert str(sol.status) == "Solved", sol.status
    return np.array(sol.x)


def direct_osqp(p):
    E, e = p.equalities
    G, g = p.inequalities
    A = sp.vstack([sp.csc_matrix(E), sp.csc_matrix(G)], format="csc")
    lo = np.concatenate([-e, -g])
    hi = np.concatenate([-e, np.full(G.shape[0], np.inf)])
    m = osqp.OSQP()
    m.setup(
        sp.triu(sp.csc_matrix(p.M), format="csc"),
        np.asarray(p.F),
        A,
        lo,
        hi,
        eps_abs=1e-9,
        eps_rel=1e-9,
        max_iter=200000,
        polishing=True,
        verbose=False,
    )
    r = m.solve()
    return np.array(r.x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)

    print("1. solve through cvxpy (cached DPP program) vs direct backend call, small dense problems")
    print(
        f"{'n':>4} {'m':>4} {'gaussqp F1 [ms]':>16} {'clarabel direct':>16} {'ratio':>7} {'osqp via F1':>12} {'osqp direct':>12} {'ratio':>7}"
    )
    f1 = gaussqp.get_formulation("gauss_qp")
    for n, mu in ((6, 4), (12, 8), (20, 15)):
        p, *_ = families.planted(rng, n=n, m_b=1, m_u=mu)
        f1.solve(p)  # compile once
        q = p.with_force(p.F * 1.01)
        tc, sc = best_of(lambda: f1.solve(q, solver="clarabel"))
        tcd, xc = best_of(lambda: direct_clarabel(q))
        f1.solve(q, solver="osqp")
        to, so = best_of(lambda: f1.solve(q, solver="osqp"))
        tod, xo = best_of(lambda: direct_osqp(q))
        assert np.allclose(sc.acceleration, xc, atol=1e-6) and np.allclose(so.acceleration, xo, atol=1e-6)
        print(
            f"{n:>4} {p.m:>4} {tc * 1e3:>16.2f} {tcd * 1e3:>16.2f} {tc / tcd:>7.1f} {to * 1e3:>12.2f} {tod * 1e3:>12.2f} {to / tod:>7.1f}"
        )

    print(
        "\n1b. F4 (all-sticking SOCP, verdict off): cached DPP program vs a fresh compile, small dense 3D problems"
        " (planted, feasible)"
    )
    print(
        f"{'n':>4} {'contacts':>9} {'F4 cached [ms]':>15} {'F4 compiled [ms]':>17} {'ratio':>7} {'|a cached - a fresh|':>21}"
    )
    f4 = gaussqp.get_formulation("sticking_socp")
    # the cvxpy program itself, whose DPP cache this row measures: not Clarabel's direct form, not the active-set answer
    saved = (sticking_conic.DIRECT_CONIC_BACKENDS, type(f4).active_set_first)
    sticking_conic.DIRECT_CONIC_BACKENDS, type(f4).active_set_first = (), False
    for n, mu in ((6, 2), (12, 4), (30, 10)):
        p, *_ = families.sticking(rng, n=n, m_u=mu, m_b=0)
        f4.solve(p, verdict=False)  # compile once
        q, *_ = families.sticking(rng, n=n, m_u=mu, m_b=0)  # same structure, new data
        tc, sc = best_of(lambda: f4.solve(q, verdict=False), repeat=5)

        def fresh():
            PROGRAMS.clear()
            return f4.solve(q, verdict=False)

        tf, sf = best_of(fresh, repeat=5)
        assert sc.extras["attempts"][0]["backend"]["compiled_program_reused"] and sc.status == sf.status == "solved"
        print(
            f"{n:>4} {p.m:>9} {tc * 1e3:>15.2f} {tf * 1e3:>17.2f} {tc / tf:>7.2f} "
            f"{np.abs(sc.acceleration - sf.acceleration).max():>21.1e}"
        )
    sticking_conic.DIRECT_CONIC_BACKENDS, type(f4).active_set_first = saved

    sizes = (10, 100, 500) if args.quick else (10, 100, 500, 1000, 2000)
    print("\n2. Lemke (constrained Delassus LCP) vs the QP route, planar chains (sparse)")
    print(f"{'bodies':>7} {'contacts':>9} {'F1 clarabel [s]':>16} {'Lemke [s]':>10} {'ratio':>7} {'gap a':>9}")
    lcps = []
    for nb in sizes:
        p = families.chain(nb, lift=1.5, duplicate_every=0)
        tq, sq = best_of(lambda: f1.solve(p), repeat=1)
        tl, sl = best_of(lambda: gaussqp.get_formulation("lcp_lemke").solve(p), repeat=1)
        cd = constrained_delassus(p)
        lcps.append((nb, cd.A_c, cd.w_c))
        gap = np.abs(sq.acceleration - sl.acceleration).max()
        print(f"{nb:>7} {p.m:>9} {tq:>16.3f} {tl:>10.3f} {tq / tl:>7.2f} {gap:>9.1e}")

    print(
        "\n3. all-sticking 3D contacts (sparse stacks): F4 (SOCP) vs F5 inscribed/circumscribed (8 facets) vs the"
        " LCP route (A_c^st, Lemke); F4's sticking verdict (margin, boundary, mu_min) as solve computes it (read"
        " off the unique multipliers) and by programs (margin SOCP, mu_min bisection);"
        " F4 on the same stack with mu = 0.2 (infeasible, conic Farkas certificate)"
    )
    print(
        f"{'contacts':>9} {'n':>6} {'F4 [s]':>8} {'F5 in [s]':>10} {'F5 out [s]':>11} {'LCP [s]':>8} "
        f"{'F4/LCP':>7} {'F5in/F4':>8} {'verdict [s]':>12} {'by programs [s]':>16} {'F4 infeas. [s]':>15} "
        f"{'max |a-a0|':>11}"
    )
    f4 = gaussqp.get_formulation("sticking_socp")
    for m in (10, 100, 300) if args.quick else (10, 100, 300, 1000, 2000):
        p, a0, _ = families.sticking_stack(np.random.default_rng(m), m)
        t4, s4 = best_of(lambda: f4.solve(p, verdict=False), repeat=1)
        ti, si = best_of(lambda: gaussqp.get_formulation("facetized_inner").solve(p), repeat=1)
        to, so = best_of(lambda: gaussqp.get_formulation("facetized_outer").solve(p), repeat=1)
        lem = gaussqp.get_formulation("lcp_lemke")
        if lem.accepts(p, p.classify())[0]:
            tl, sl = best_of(lambda: lem.solve(p), repeat=1)
        else:
            tl, sl = float("nan"), None
        sv = f4.solve(p, verdict=True)
        tv = sv.timing.detail["verdict"]  # read off the unique multipliers here (independent rows)
        tp, slow = best_of(
            lambda: analyze(p, s4.acceleration, True, None, get_tolerance(None), lam_n=s4.lambda_normal), repeat=1
        )
        assert sv.sticking.boundary_test.startswith("exact (unique")
        assert abs(slow.mu_min - sv.sticking.mu_min) <= 1e-5 * sv.sticking.mu_min <= 0.6
        # the same stack with μ = 0.2: all-sticking infeasible, proved by a conic Farkas vector
        q = gaussqp.ContactProblem.from_blocks(
            p.M,
            p.F,
            p.J_n,
            p.normal_drift,
            list(p.types),
            p.J_t,
            p.tangent_drift,
            np.full(p.m, 0.2),
            list(p.modes),
            dimension=3,
        )
        tf, sf = best_of(lambda: f4.solve(q, verdict=False), repeat=1)
        assert sf.status == "infeasible" and sf.certified and sf.certificate("coulomb_farkas").holds
        sols = [x for x in (s4, si, so, sl) if x is not None]
        assert all(x.status == "solved" for x in sols), [x.status for x in sols]
        err = max(float(np.abs(x.acceleration - a0).max()) for x in sols)
        print(
            f"{m:>9} {p.n:>6} {t4:>8.2f} {ti:>10.2f} {to:>11.2f} {tl:>8.2f} {t4 / tl:>7.1f} {ti / t4:>8.2f} "
            f"{tv:>12.3f} {tp:>16.2f} {tf:>15.2f} {err:>11.1e}"
        )

    print("\n4. our Lemke vs Siconos's C Lemke on the same LCPs")
    try:
        import siconos.numerics as sn  # Debian python3-siconos
    except ImportError:
        print(
            "   siconos not importable here (apt-get install python3-siconos, then run with Debian's python3): skipped"
        )
        return
    print("   (Siconos: lcp_lexicolemke, the C lexicographic Lemke of siconos-numerics; same pivot limit)")
    print(
        f"{'bodies':>7} {'LCP size':>9} {'gaussqp [s]':>12} {'siconos [s]':>12} {'ratio':>7} {'|z-z_sic|':>10} {'LCP err ours':>13} {'LCP err sic':>12}"
    )
    quick = args.quick
    for nb, A, w in lcps:
        tg, rg = best_of(lambda: lemke(A, w), repeat=1)

        def sic():
            lcp = sn.LCP(A, w)
            z, ww = np.zeros(len(w)), np.zeros(len(w))
            opts = sn.SolverOptions(sn.SICONOS_LCP_LEMKE)
            opts.iparam[0] = 50 * len(w) + 100
            info = sn.lcp_lexicolemke(lcp, z, ww, opts)
            return info, z

        ts, (info, z) = best_of(sic, repeat=1)
        if info != 0 or not rg.success:
            print(f"{nb:>7} {len(w):>9}   gaussqp status {rg.status}, siconos info {info}: no comparison")
            continue
        print(
            f"{nb:>7} {len(w):>9} {tg:>12.3f} {ts:>12.3f} {tg / ts:>7.2f} {np.abs(z - rg.z).max():>10.1e} "
            f"{lcp_error(A, w, rg.z):>13.1e} {lcp_error(A, w, z):>12.1e}"
        )

    print("\n5. degenerate LCPs (planted problems with redundant rows, rank-deficient A_c): who solves them")
    n_ok = {"gaussqp": 0, "siconos": 0}
    n_right = {"gaussqp": 0, "siconos": 0}  # reported success AND relative LCP error <= 1e-8
    worst = {"gaussqp": 0.0, "siconos": 0.0}
    trials = 300 if quick else 2000
    for seed in range(trials):
        r = np.random.default_rng(seed)
        n = int(r.integers(2, 10))
        p, *_ = families.planted(
            r, n=n, m_b=min(int(r.integers(0, 3)), n - 1), m_u=int(r.integers(1, 8)), redundant=int(r.integers(1, 4))
        )
        cd = constrained_delassus(p)
        rg = lemke(cd.A_c, cd.w_c)
        scale = max(1.0, np.abs(cd.w_c).max())
        if rg.success:
            err = lcp_error(cd.A_c, cd.w_c, rg.z) / scale
            n_ok["gaussqp"] += 1
            n_right["gaussqp"] += err <= 1e-8
            worst["gaussqp"] = max(worst["gaussqp"], err)
        lcp = sn.LCP(cd.A_c, cd.w_c)
        z, ww = np.zeros(len(cd.w_c)), np.zeros(len(cd.w_c))
        opts = sn.SolverOptions(sn.SICONOS_LCP_LEMKE)
        if sn.lcp_lexicolemke(lcp, z, ww, opts) == 0:
            err = lcp_error(cd.A_c, cd.w_c, z) / scale
            n_ok["siconos"] += 1
            n_right["siconos"] += err <= 1e-8
            worst["siconos"] = max(worst["siconos"], err)
    for who in ("gaussqp", "siconos"):
        print(
            f"   {who:>8}: reports success on {n_ok[who]}/{trials}, of which {n_right[who]} have relative LCP "
            f"error <= 1e-8; worst error among reported successes {worst[who]:.1e}"
        )


def lcp_error(M, q, z):
    """max(|min(z, Mz + q)|): the natural-map residual of the LCP, the same measure for both codes."""
    return float(np.abs(np.minimum(z, M @ z + q)).max(initial=0.0))


if __name__ == "__main__":
    main()
