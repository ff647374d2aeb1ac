"""Verdict sweep (issue #25): generated problems with independent checks, judging EVERY value a certified answer reports.

A *certified wrong* answer is one with ``status`` solved / infeasible / unbounded and ``certified`` True where an
independent check (exact rationals, 60-digit mpmath, or an LP of our own on exact data) contradicts the status, or
where any value it reports is wrong: the acceleration, the generalized force, each contact's multiplier (normal and
tangential), the ``unique`` flags, the sticking verdict's ``mu_min`` / ``mu_min_lower``.

Families
--------
``a_singular``   frictionless, small-integer data, singular M (rank-deficient ``L Lᵀ``), redundant rows (multiples and
                 sums of other rows); planted KKT points (exact), some planted infeasible (Farkas pair) or unbounded
                 (descent ray in ker M) problems. Uniqueness of a and λ decided exactly (rational kernels) plus an LP
                 (HiGHS) on the exact integer cone data.
``b_illcond``    the ill-conditioned family of /work/shared/repro/verdicts/S5_*.py (same generator, same seeds:
                 ``default_rng([5, seed])``): cond(M) 1e2…1e12, rows scaled over 1e±6; judged against a 60-digit mpmath
                 solve of the planted active set, or the exact rational oracle ``tests/exact_oracle.py`` when the
                 planted set is not the exact one.
``c_kernel``     integer problems with a planted kernel direction v (``M v = 0``, ``Fᵀv = 0``, ``J v`` >= 0 / = 0 on the
                 active rows: the acceleration is NOT unique, reproducer R1b_*.py); a quarter of them have the direction
                 blocked by a loaded row (unique). ``unique["acceleration"]`` is judged against the exact cone test.
``d_sticking``   all-sticking 2D / 3D contacts (M ≻ 0, duplicated contacts: hyperstatic), reproducers V1_*.py. a* from the
                 exact rational oracle (tangent rows as equalities); the sticking feasibility at the given μ and at a
                 common μ is an LP of our own on the multiplier set Λ(a*) (3D: inscribed / circumscribed 128-gons);
                 μ_min by bisection on that feasibility.

Judging (scales from the data and the exact answer, never from the answer judged). ``S = diag(M)^(-1/2)``
(1 where the diagonal is 0). Acceleration: ``max|S⁻¹(a − a*)| / max(max|S⁻¹a*|, max|S F|)`` (when a is not unique:
``M a + F = f*`` row by row, feasibility row by row, ``Fᵀa <= Fᵀa*``). Generalized force: ``max|S(f − f*)| / fs``,
``fs = max(max|S f*|, 1e-12 max|S F|)``. Multipliers, contact by contact, relative to
``σ_i = max(|λ*_i|, fs / max|S J_i|)``: the contact's exact force, floored by the multiplier that row i would need to
carry the exact generalized force alone (the exact force's size, row by row). When the multiplier set is not a point,
λ is judged for membership (``Jᵀλ = f*``, signs, complementarity, cones) at the same scales. A value is wrong above
``GAP = 1e-5`` ("edge" between 1e-6 and 1e-5 is counted, not wrong).

Usage::

    python benchmarks/verdict_sweep.py --count 2000 --seed 0 [--jobs 2] [--json out.json]
    python benchmarks/verdict_sweep.py --family b_illcond --problem-seed 31774 -v     # one problem, in detail

Exit code 1 when any answer is certified wrong (or a solve raised).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections import Counter, defaultdict
from fractions import Fraction
from math import lcm
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy.optimize import linprog  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from exact_oracle import exact_frictionless  # noqa: E402

import gaussqp  # noqa: E402
from gaussqp import Contact, ContactProblem  # noqa: E402

GAP = 1e-5
EDGE = 1e-6
MU_MAX = 1e6  # gaussqp.settings.MU_MAX: above it "no common μ" is the documented answer
POLY = 128  # facets of the 3D polygons of the independent sticking LP
#: the data floor of the force scale: forces are judged relative to max(|S f*|, FORCE_FLOOR · |S(|M||a*| + |F|)|), so an
#: absolute force error below GAP · FORCE_FLOOR = 1e-13 of the dynamics' terms (~450 ulp) is never counted
FORCE_FLOOR = 1e-8

# --------------------------------------------------------------------------------------------------------------------
# exact linear algebra (Fractions)


def _F(A):
    A = np.asarray(A, dtype=float)
    return [[Fraction(float(x)) for x in row] for row in A.reshape(A.shape[0], -1)] if A.size else []


def nullspace(rows, n):
    """Exact basis (list of Fraction vectors of length n) of {v : rows v = 0}."""
    R = [r[:] for r in rows]
    piv = []
    r = 0
    for c in range(n):
        p = next((i for i in range(r, len(R)) if R[i][c] != 0), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        pv = R[r][c]
        R[r] = [x / pv for x in R[r]]
        for i in range(len(R)):
            if i != r and R[i][c] != 0:
                f = R[i][c]
                R[i] = [x - f * y for x, y in zip(R[i], R[r])]
        piv.append(c)
        r += 1
        if r == len(R):
            break
    free = [c for c in range(n) if c not in piv]
    basis = []
    for fc in free:
        v = [Fraction(0)] * n
        v[fc] = Fraction(1)
        for i, pc in enumerate(piv):
            v[pc] = -R[i][fc]
        basis.append(v)
    return basis


def rank(rows, n):
    return n - len(nullspace(rows, n)) if rows else 0


def solve_exact(A, b):
    """The exact solution x (Fractions) of the consistent system ``A x = b`` with independent columns (A: rows of
    Fractions, b: Fractions), or None when it is inconsistent: Gaussian elimination on ``[A | b]``."""
    R = [list(row) + [Fraction(bi)] for row, bi in zip(A, b)]
    c = len(R[0]) - 1 if R else 0
    for j in range(c):
        piv = next((i for i in range(j, len(R)) if R[i][j] != 0), None)
        if piv is None:
            return None
        R[j], R[piv] = R[piv], R[j]
        for i in range(len(R)):
            if i != j and R[i][j] != 0:
                f = R[i][j] / R[j][j]
                R[i] = [x - f * y for x, y in zip(R[i], R[j])]
    if any(R[i][c] != 0 for i in range(c, len(R))):
        return None
    return [R[j][c] / R[j][j] for j in range(c)]


def cone_trivial(eq_rows, ineq_rows, n):
    """Is {v ∈ Qⁿ : eq_rows v = 0, ineq_rows v >= 0} = {0}?  Exact kernel, then (integer data) one HiGHS LP."""
    N = nullspace(eq_rows, n)
    if not N:
        return True
    if not ineq_rows:
        return False
    B = [[sum(g[k] * v[k] for k in range(n)) for v in N] for g in ineq_rows]  # (p, r)
    if nullspace(B, len(N)):
        return False  # a line in the cone
    # integer columns
    Bi = np.array([[float(x) for x in row] for row in B])
    for j in range(len(N)):
        den = lcm(*[x.denominator for x in (row[j] for row in B)])
        Bi[:, j] = [float(row[j] * den) for row in B]
        nm = np.abs(Bi[:, j]).max()
        if nm > 0:
            Bi[:, j] /= nm
    # exists z : B z >= 0, sum(B z) = 1 ?
    res = linprog(
        np.zeros(len(N)),
        A_ub=-Bi,
        b_ub=np.zeros(len(B)),
        A_eq=Bi.sum(0)[None, :],
        b_eq=[1.0],
        bounds=[(None, None)] * len(N),
        method="highs",
    )
    return res.status != 0


# --------------------------------------------------------------------------------------------------------------------
# judging helpers


def eq_scale(M):
    d = np.diag(np.asarray(M, dtype=float)).copy()
    return np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 1.0)


class Truth:
    """What the independent check knows.  status: solved / infeasible / unbounded; for solved: a_star (a point of the
    optimal set), f_star, lam_star (per contact, None if the multiplier set is not a point), unique_a, unique_lam
    (True / False / None = not decided), active (rows active at every optimum), dir_cone (for a non-unique a)."""

    def __init__(self, status, **kw):
        self.status = status
        self.a_star = kw.get("a_star")
        self.f_star = kw.get("f_star")
        self.lam_star = kw.get("lam_star")
        self.lamt_star = kw.get("lamt_star")
        self.unique_a = kw.get("unique_a")
        self.unique_lam = kw.get("unique_lam")
        self.active = kw.get("active")
        self.mu = kw.get("mu")
        self.sticking_feasible = kw.get("sticking_feasible")
        self.mu_min_bracket = kw.get("mu_min_bracket")
        #: a callable giving the μ_min bracket decided more strictly (run only when a claim is flagged)
        self.mu_min_recheck = kw.get("mu_min_recheck")
        self.note = kw.get("note", "")


def _rel(x):
    return float(x)


def judge_solution(p: ContactProblem, sol, truth: Truth, J, b, types, JT=None):
    """(verdict, problems) with verdict in right / edge / honest / wrong; problems = list of strings."""
    wrong, edge = [], []
    cert = bool(sol.certified)
    st = str(sol.status.value if hasattr(sol.status, "value") else sol.status)
    if not cert:
        return "honest", [f"status {st} not certified"]
    if st != truth.status:
        if truth.status == "undecided":
            return "right", [f"certified {st}; independent check undecided"]
        return "wrong", [f"certified status {st}, independent check says {truth.status} {truth.note}"]
    if st != "solved":
        return "right", []
    M, F = np.asarray(p.M, dtype=float), np.asarray(p.F, dtype=float)
    S = eq_scale(M)
    a = np.asarray(sol.acceleration, dtype=float)
    a_s, f_s = np.asarray(truth.a_star, dtype=float), np.asarray(truth.f_star, dtype=float)
    terms = np.abs(S * (np.abs(M) @ np.abs(a_s) + np.abs(F))).max()
    fs = max(np.abs(S * f_s).max(), FORCE_FLOOR * terms, 1e-300)

    def note(kind, err, what):
        if not np.isfinite(err) or err > GAP:
            wrong.append(f"{what}: {err:.3g}")
        elif err > EDGE:
            edge.append(f"{what}: {err:.3g}")

    # acceleration
    if truth.unique_a:
        ea = np.abs((a - a_s) / S).max() / max(np.abs(a_s / S).max(), np.abs(S * F).max(), 1e-300)
        note("a", ea, "acceleration rel. error")
    else:
        ed = np.abs(S * (M @ a + F - f_s)).max() / max(terms, 1e-300)
        note("a", ed, "acceleration off the optimal set (|S(M a + F − f*)| / terms)")
        g = J @ a + b
        # each row at its data scale: |J_i||a| + |b_i| plus the row's size times the oracle's acceleration scale (a row
        # a_k = 0 whose answer has a_k = 3e-17 is not violated "by 100 %"; seed c_kernel/97)
        sc = np.abs(J) @ np.abs(a) + np.abs(b) + np.abs(J).max(axis=1) * np.abs(a_s).max() + 1e-300
        viol = np.where(np.array(types) == "bilateral", np.abs(g), np.maximum(-g, 0)) / sc
        note("a", viol.max() if len(viol) else 0.0, "acceleration row infeasibility")
        dobj = (F @ a - F @ a_s) / (np.abs(F) @ (np.abs(a) + np.abs(a_s)) + 1e-300)
        note("a", max(dobj, 0.0), "acceleration objective above optimum")
    # generalized force
    if sol.generalized_force is not None:
        df = np.abs(S * (np.asarray(sol.generalized_force, dtype=float) - f_s)).max()
        note("f", df / fs, f"generalized force rel. error (abs error / terms = {df / max(terms, 1e-300):.2g})")
    # multipliers (normal), per contact
    lam = np.asarray(sol.lambda_normal, dtype=float)
    rown = np.abs(J * S[None, :]).max(1)
    rown = np.where(rown > 0, rown, 1.0)
    floor = fs / rown
    if truth.lam_star is not None:
        ls = np.asarray(truth.lam_star, dtype=float)
        sig = np.maximum(np.abs(ls), floor)
        el = np.abs(lam - ls) / sig
        for i in np.flatnonzero(el > EDGE):
            note(
                "lam",
                el[i],
                f"lambda_normal[{i}] = {lam[i]:.6g} vs exact {ls[i]:.6g} "
                f"(force error / terms = {abs(lam[i] - ls[i]) * rown[i] / max(terms, 1e-300):.2g})",
            )
        if truth.lamt_star is not None and sol.lambda_tangent is not None:
            lt = np.asarray(sol.lambda_tangent, dtype=float).reshape(len(ls), -1)
            lts = np.asarray(truth.lamt_star, dtype=float).reshape(len(ls), -1)
            sigt = np.maximum(np.maximum(np.abs(ls), np.linalg.norm(lts, axis=1)), floor)
            et = np.linalg.norm(lt - lts, axis=1) / sigt
            for i in np.flatnonzero(et > EDGE):
                note("lamt", et[i], f"lambda_tangent[{i}] = {lt[i]} vs exact {lts[i]}")
    else:  # membership in the multiplier set
        JJ = J if JT is None else np.vstack([J, JT])
        lt = None
        if JT is not None and sol.lambda_tangent is not None:
            lt = np.asarray(sol.lambda_tangent, dtype=float).reshape(len(lam), -1)
            full = np.concatenate([lam, lt.ravel()])
        else:
            full = lam
        em = np.abs(S * (JJ.T @ full - f_s)).max() / fs
        note("lam", em, "multipliers: |S(Jᵀλ − f*)| / fs")
        uni = np.array(types) == "unilateral"
        neg = np.where(uni, np.maximum(-lam, 0), 0) / floor
        note("lam", neg.max() if len(neg) else 0, "multipliers: negative unilateral λ / σ")
        if truth.active is not None:
            off = np.where(~np.asarray(truth.active), np.abs(lam), 0) / floor
            note("lam", off.max() if len(off) else 0, "multipliers: λ on a row inactive at the optimum / σ")
        if lt is not None and truth.mu is not None:
            cv = np.maximum(np.linalg.norm(lt, axis=1) - truth.mu * lam, 0) / floor
            note("lam", cv.max(), "multipliers: outside the friction cone / σ")
    # unique flags
    u = sol.unique or {}
    if u.get("acceleration") is not None and truth.unique_a is not None and bool(u["acceleration"]) != truth.unique_a:
        wrong.append(f"unique['acceleration'] = {u['acceleration']} but exact test says {truth.unique_a}")
    if u.get("multipliers") is not None and truth.unique_lam is not None and bool(u["multipliers"]) != truth.unique_lam:
        wrong.append(f"unique['multipliers'] = {u['multipliers']} but exact test says {truth.unique_lam}")
    if u.get("generalized_force") is False:
        wrong.append("unique['generalized_force'] = False, but Ma+F is the same at every optimum of a convex QP")
    # sticking verdict
    sv = getattr(sol, "sticking", None)
    if sv is not None and truth.mu_min_bracket is not None:
        flags = _mu_min_flags(sv, *truth.mu_min_bracket)
        if flags and truth.mu_min_recheck is not None:
            flags = _mu_min_flags(sv, *truth.mu_min_recheck())  # the oracle's own tolerance, not our claim
        wrong += flags
    if wrong:
        return "wrong", wrong
    return ("edge" if edge else "right"), edge


def _mu_min_flags(sv, lo, hi) -> list[str]:
    """What is wrong in the verdict's ``mu_min`` / ``mu_min_lower`` against the true bracket ``[lo, hi]``."""
    wrong: list[str] = []
    mm, ml = sv.mu_min, sv.mu_min_lower
    if mm is not None:
        if np.isinf(hi) and np.isfinite(mm) and mm <= MU_MAX:
            wrong.append(f"mu_min = {mm:.6g} but no common μ up to {MU_MAX:g} is feasible (LP)")
        elif np.isfinite(hi) and hi <= MU_MAX and not np.isfinite(mm):
            wrong.append(f"mu_min = inf but common μ = {hi:.6g} is feasible (LP; true μ_min in [{lo:.6g}, {hi:.6g}])")
        elif np.isfinite(mm) and np.isfinite(hi):
            if mm < lo * (1 - 1e-6) - 1e-12:
                wrong.append(
                    f"mu_min = {mm:.8g} below the true μ_min in [{lo:.8g}, {hi:.8g}] (rel {(lo - mm) / lo:.2g})"
                )
            elif mm > hi * (1 + 1e-4) + 1e-10:
                wrong.append(
                    f"mu_min = {mm:.8g} above the true μ_min in [{lo:.8g}, {hi:.8g}] (rel {(mm - hi) / hi:.2g})"
                )
    if ml is not None and np.isfinite(hi) and ml > hi * (1 + 1e-6) + 1e-12:
        wrong.append(f"mu_min_lower = {ml:.8g} above the true μ_min <= {hi:.8g}")
    return wrong


# --------------------------------------------------------------------------------------------------------------------
# family a / c: integer data, planted KKT points, singular M


def _int_truth_solved(M, F, J, b, types, a0, lam0):
    """Exact truth for a planted integer KKT point (a0, lam0)."""
    n = M.shape[0]
    Mq, Jq = _F(M), _F(J)
    g = J @ a0 + b  # exact (integers)
    uni = np.array(types) == "unilateral"
    active = (~uni) | (g == 0)
    # direction cone of the optimal face at a0
    eq = [r for r in Mq] + [Jq[i] for i in range(len(types)) if not uni[i]]
    eq += [Jq[i] for i in range(len(types)) if uni[i] and active[i] and lam0[i] > 0]
    ineq = [Jq[i] for i in range(len(types)) if uni[i] and active[i] and lam0[i] == 0]
    unique_a = cone_trivial(eq, ineq, n)
    # multiplier cone: d with Jᵀd = 0, d_i = 0 inactive, d_i >= 0 on active unilateral rows with λ0_i = 0
    m = len(types)
    JtT = [[Jq[i][k] for i in range(m)] for k in range(n)]
    eqd = JtT + [[Fraction(int(i == j)) for j in range(m)] for i in range(m) if not active[i]]
    ineqd = [[Fraction(int(i == j)) for j in range(m)] for i in range(m) if uni[i] and active[i] and lam0[i] == 0]
    unique_lam = cone_trivial(eqd, ineqd, m)
    return Truth(
        "solved",
        a_star=a0.astype(float),
        f_star=(M @ a0 + F).astype(float),
        lam_star=lam0.astype(float) if unique_lam else None,
        unique_a=unique_a,
        unique_lam=unique_lam,
        active=active,
    )


def gen_integer(rng, kernel: bool):
    """Integer singular problem.  kernel=False: family a (random rank deficiency, redundant rows, some infeasible /
    unbounded); kernel=True: family c (planted kernel direction v: M v = 0, Fᵀv = 0)."""
    n = int(rng.integers(3, 8)) if not kernel else int(rng.integers(4, 9))
    v = None
    if kernel or rng.uniform() < 0.35:
        v = rng.integers(-2, 3, n)
        if not v.any():
            v[0] = 1
    r = int(rng.integers(1, n)) if (kernel or v is not None or rng.uniform() < 0.8) else n
    L0 = rng.integers(-2, 3, (n, r))
    L = (v @ v) * L0 - np.outer(v, v @ L0) if v is not None else L0  # vᵀL = 0
    L = L // max(1, np.gcd.reduce(np.abs(L).ravel()) or 1)
    M = (L @ L.T).astype(np.int64)
    m = int(rng.integers(1, 6))
    types = [str(t) for t in rng.choice(["bilateral", "unilateral"], m, p=[0.3, 0.7])]
    J = rng.integers(-3, 4, (m, n)).astype(np.int64)
    a0 = rng.integers(-3, 4, n).astype(np.int64)
    uni = np.array(types) == "unilateral"
    active = (~uni) | (rng.uniform(size=m) < 0.6)
    lam0 = np.where(~uni, rng.integers(-3, 4, m), np.where(active, rng.integers(0, 4, m), 0)).astype(np.int64)
    variant = "solved"
    if kernel:
        vv = v.astype(np.int64)
        for i in range(m):
            if active[i] and (not uni[i] or lam0[i] > 0):
                J[i] = (vv @ vv) * J[i] - (J[i] @ vv) * vv  # J_i v = 0
                J[i] //= max(1, np.gcd.reduce(np.abs(J[i])) or 1)
            elif active[i] and J[i] @ vv < 0:
                J[i] = -J[i]  # J_i v >= 0 on degenerate active rows
        if rng.uniform() < 0.25:  # block the direction: one loaded active unilateral row with J_i v > 0
            i = int(rng.integers(0, m))
            if uni[i]:
                J[i] = J[i] + vv
                if J[i] @ vv <= 0:
                    J[i] = vv.copy()
                active[i], lam0[i] = True, int(rng.integers(1, 4))
                variant = "blocked"
    # redundant rows (family a mostly)
    if m >= 1 and rng.uniform() < 0.5:
        k = int(rng.integers(0, m))
        c = int(rng.choice([1, 2, 3]))
        J = np.vstack([J, c * J[k]])
        types.append(types[k])
        uni = np.append(uni, uni[k])
        act = bool(active[k]) if rng.uniform() < 0.7 else bool(~uni[k] or not active[k])
        active = np.append(active, act or not uni[k])
        lam0 = np.append(
            lam0,
            int(rng.integers(0, 3)) if (active[-1] and uni[-1]) else (int(rng.integers(-2, 3)) if not uni[-1] else 0),
        )
    if m >= 2 and rng.uniform() < 0.3:
        i, j = rng.choice(len(types), 2, replace=False)
        J = np.vstack([J, J[i] + J[j]])
        types.append("unilateral")
        uni = np.append(uni, True)
        active = np.append(active, rng.uniform() < 0.5)
        lam0 = np.append(lam0, int(rng.integers(0, 3)) if active[-1] else 0)
    m = len(types)
    slack = np.where(active, 0, rng.integers(1, 4, m)).astype(np.int64)
    b = -J @ a0 + slack
    F = J.T @ lam0 - M @ a0
    truth = None
    if not kernel:
        u = rng.uniform()
        if u < 0.12:  # infeasible: a Farkas pair  w a + b1 >= 0, -w a + b2 >= 0 with b1 + b2 < 0
            w = rng.integers(-2, 3, n)
            if not w.any():
                w[0] = 1
            b1 = int(rng.integers(-3, 4))
            J = np.vstack([J, w, -w])
            b = np.append(b, [b1, -b1 - int(rng.integers(1, 3))])
            types += ["unilateral", "unilateral"]
            variant = "infeasible"
            truth = Truth("infeasible", note="(planted Farkas pair of rows)")
        elif u < 0.24 and v is not None:  # unbounded: ray v (M v = 0), J_E v = 0, J_U v >= 0, Fᵀv < 0
            vv = v.astype(np.int64)
            for i in range(m):
                if not uni[i]:
                    J[i] = (vv @ vv) * J[i] - (J[i] @ vv) * vv
                elif J[i] @ vv < 0:
                    J[i] = -J[i]
            b = -J @ a0 + np.where(uni, slack + 1, 0)
            F = -(M @ a0) - int(rng.integers(1, 4)) * vv + J.T @ np.where(~uni, lam0, 0)
            variant = "unbounded"
            truth = Truth("unbounded", note="(planted descent ray in ker M)")
    p = ContactProblem.from_blocks(
        M.astype(float),
        F.astype(float),
        J.astype(float),
        b.astype(float),
        types,
        name="verdict_sweep_" + ("c" if kernel else "a"),
    )
    if truth is None:
        truth = _int_truth_solved(M, F, J, b, types, a0, lam0)
    truth.note += f" variant={variant}"
    return p, truth, (J.astype(float), b.astype(float), types, None)


# --------------------------------------------------------------------------------------------------------------------
# family b: the S5 ill-conditioned generator (tests/illcond_family.py: the seeds of
# shared/repro/verdicts/S5_certified_generalized_force_strict_error.py) and its 60-digit oracle

from illcond_family import generate_with_meta as s5_generate  # noqa: E402  (tests/, on sys.path above)


def s5_exact(M, F, J, b, bil, active):
    import mpmath as mp

    mp.mp.dps = 60
    n, m = M.shape[0], J.shape[0]
    R = [i for i in range(m) if active[i]]
    k = len(R)
    K = mp.zeros(n + k, n + k)
    rhs = mp.zeros(n + k, 1)
    for i in range(n):
        for j in range(n):
            K[i, j] = mp.mpf(M[i, j])
        rhs[i] = -mp.mpf(F[i])
        for jj, r in enumerate(R):
            K[i, n + jj] = -mp.mpf(J[r, i])
            K[n + jj, i] = mp.mpf(J[r, i])
    for jj, r in enumerate(R):
        rhs[n + jj] = -mp.mpf(b[r])
    try:
        z = mp.lu_solve(K, rhs)
    except ZeroDivisionError:
        return False, None, None, None
    a = [z[i] for i in range(n)]
    lam = [mp.mpf(0)] * m
    for jj, r in enumerate(R):
        lam[r] = z[n + jj]
    ok = True
    for i in range(m):
        g = mp.fsum(mp.mpf(J[i, j]) * a[j] for j in range(n)) + mp.mpf(b[i])
        if not bil[i]:
            if active[i] and lam[i] < 0:
                ok = False
            if not active[i] and g < 0:
                ok = False
    w = [mp.fsum(mp.mpf(M[i, j]) * a[j] for j in range(n)) + mp.mpf(F[i]) for i in range(n)]
    return ok, np.array([float(x) for x in a]), np.array([float(x) for x in lam]), np.array([float(x) for x in w])


def gen_illcond(seed):
    M, F, J, b, bil, active, meta = s5_generate(seed)
    types = ["bilateral" if x else "unilateral" for x in bil]
    p = ContactProblem.from_blocks(M, F, J, b, types, name="verdict_sweep_b")
    ok, a_ex, lam_ex, w_ex = s5_exact(M, F, J, b, bil, active)
    note = f"cond={meta['cond']:.0e} n={meta['n']} m={meta['m']} spread={meta['row_scale_spread']:.1e}"
    if ok:
        # the planted active rows are independent generically: check exactly
        Jq = _F(J[active])
        uniq = rank(Jq, M.shape[0]) == int(active.sum()) if active.any() else True
        truth = Truth(
            "solved",
            a_star=a_ex,
            f_star=w_ex,
            lam_star=lam_ex if uniq else None,
            unique_a=True,
            unique_lam=uniq,
            active=active,
            note=note + " oracle=mpmath60",
        )
    else:
        E, e = J[bil], b[bil]
        G, g = J[~bil], b[~bil]
        ref = exact_frictionless(M, F, E, e, G, g)
        if ref is None:
            truth = Truth("infeasible", note=note + " oracle=exact")
        else:
            a_q, f_q = ref
            a_r = np.array([float(x) for x in a_q])
            gaps = [
                sum(Fraction(float(J[i, j])) * a_q[j] for j in range(len(a_q))) + Fraction(float(b[i]))
                for i in range(len(b))
            ]
            act = np.array([bil[i] or gaps[i] == 0 for i in range(len(b))])
            truth = Truth(
                "solved",
                a_star=a_r,
                f_star=np.array([float(x) for x in f_q]),
                lam_star=None,
                unique_a=True,
                unique_lam=None,
                active=act,
                note=note + " oracle=exact (planted set not exact)",
            )
    return p, truth, (J, b, types, None)


# --------------------------------------------------------------------------------------------------------------------
# family d: all-sticking


def _spd(rng, n, cond):
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    ev = np.exp(rng.uniform(0.0, np.log(cond), n))
    M = (Q * ev) @ Q.T
    return 0.5 * (M + M.T)


#: HiGHS's tightest feasibility tolerances: the re-check of a μ_min the default LP (1e-7) calls wrong
STRICT_LP = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def sticking_lp(N, T, f, active, mu, d, mode, strict=False):
    """Is there λ in Λ(a*) with every ‖λ_t,i‖ <= μ_i λ_n,i ?  mode "exact" (2D), "inner" / "outer" (3D polygons).
    ``strict``: HiGHS at :data:`STRICT_LP` (its default feasibility tolerance, 1e-7 on the scaled rows, moves μ_min
    by up to ~1e-4 relative on ill-conditioned rows: two false "wrong" flags of the 10,000-problem sweep)."""
    k, n = N.shape
    d1 = d - 1
    nv = k + k * d1
    Aeq = np.hstack([N.T, T.T])
    rows = []
    for i in range(k):
        if d == 2:
            for s in (1.0, -1.0):
                r = np.zeros(nv)
                r[i] = -mu[i]
                r[k + i] = s
                rows.append(r)
        else:
            rad = np.cos(np.pi / POLY) if mode == "inner" else 1.0
            for j in range(POLY):
                th = 2 * np.pi * j / POLY
                r = np.zeros(nv)
                r[i] = -mu[i] * rad
                r[k + 2 * i] = np.cos(th)
                r[k + 2 * i + 1] = np.sin(th)
                rows.append(r)
    bounds = [(0, None) if active[i] else (0, 0) for i in range(k)] + [(None, None)] * (k * d1)
    sc = np.abs(Aeq).max(1)
    sc = np.where(sc > 0, sc, 1)
    res = linprog(
        np.zeros(nv),
        A_ub=np.array(rows),
        b_ub=np.zeros(len(rows)),
        A_eq=Aeq / sc[:, None],
        b_eq=f / sc,
        bounds=bounds,
        method="highs",
        options=STRICT_LP if strict else None,
    )
    if res.status == 0:
        return True
    if res.status == 2:
        return False
    return None


def gen_sticking(rng):
    d = int(rng.choice([2, 3]))
    d1 = d - 1
    k = int(rng.integers(1, 4))
    n = k * d + int(rng.integers(0, 3))  # every row independent: the planted point is exactly feasible as stored
    M = _spd(rng, n, 10 ** rng.uniform(0, 3))
    N = rng.standard_normal((k, n))
    T = rng.standard_normal((k * d1, n))
    a0 = rng.standard_normal(n)
    c = -T @ a0
    active = rng.uniform(size=k) < 0.75
    mu = rng.uniform(0.1, 1.5, k) if rng.uniform() < 0.7 else np.full(k, rng.uniform(0.1, 1.5))
    lam_n = np.where(active, rng.uniform(0.1, 2.0, k), 0.0)
    dirs = rng.standard_normal((k, d1))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    lam_t = dirs * (lam_n * mu * rng.uniform(0.0, 1.3, k))[:, None]
    for i in range(k):
        if not active[i] and rng.uniform() < 0.2:
            lam_t[i] = dirs[i] * 0.5  # a tangential force on a contact that leaves: no μ works
    slack = np.where(active, 0.0, rng.uniform(0.2, 2.0, k))
    b = -N @ a0 + slack
    if rng.uniform() < 0.5:  # duplicate a contact (same rows, another drift): hyperstatic
        i = int(rng.integers(0, k))
        N = np.vstack([N, N[i]])
        T = np.vstack([T, T[i * d1 : (i + 1) * d1]])
        c = np.append(c, c[i * d1 : (i + 1) * d1])
        b = np.append(b, b[i] - (rng.uniform(0, 1.0) if rng.uniform() < 0.5 else 0.0))
        mu = np.append(mu, mu[i] if rng.uniform() < 0.5 else rng.uniform(0.1, 1.5))
        lam_n = np.append(lam_n, 0.0)
        lam_t = np.vstack([lam_t, np.zeros(d1)])
        k += 1
    F = N.T @ lam_n + T.T @ lam_t.ravel() - M @ a0
    cs = [
        Contact(
            "unilateral",
            normal=N[i],
            normal_drift=float(b[i]),
            friction=float(mu[i]),
            mode="sticking",
            tangent=T[i * d1 : (i + 1) * d1],
            tangent_drift=c[i * d1 : (i + 1) * d1],
        )
        for i in range(k)
    ]
    p = ContactProblem(M, F, cs, dimension=d, name="verdict_sweep_d")
    # independent truth
    ref = exact_frictionless(M, F, T, c, N, b)
    if ref is None:
        return p, Truth("infeasible", note="(no point satisfies the rows)"), (N, b, ["unilateral"] * k, T)
    a_q, f_q = ref
    a_s = np.array([float(x) for x in a_q])
    f_s = np.array([float(x) for x in f_q])
    gaps = [sum(Fraction(float(N[i, j])) * a_q[j] for j in range(n)) + Fraction(float(b[i])) for i in range(k)]
    act = np.array([g == 0 for g in gaps])
    mode_lo, mode_hi = ("exact", "exact") if d == 2 else ("outer", "inner")
    feas_hi = sticking_lp(N, T, f_s, act, mu, d, mode_hi)
    feas_lo = sticking_lp(N, T, f_s, act, mu, d, mode_lo)
    feasible = True if feas_hi else (False if feas_lo is False else None)
    # μ_min by bisection on the common-μ LP (log scale)

    def mu_min(mode, strict=False):
        if not sticking_lp(N, T, f_s, act, np.full(k, MU_MAX * 10), d, mode, strict):
            return np.inf
        lo, hi = 1e-12, MU_MAX * 10
        if sticking_lp(N, T, f_s, act, np.full(k, lo), d, mode, strict):
            return 0.0
        for _ in range(80):
            mid = np.sqrt(lo * hi)
            if sticking_lp(N, T, f_s, act, np.full(k, mid), d, mode, strict):
                hi = mid
            else:
                lo = mid
            if hi / lo < 1 + 1e-8:
                break
        return lo, hi

    def bracket(strict=False):
        r_lo = mu_min(mode_lo, strict)
        r_hi = mu_min(mode_hi, strict) if d == 3 else r_lo
        return (r_lo if np.isscalar(r_lo) else r_lo[0]), (r_hi if np.isscalar(r_hi) else r_hi[1])

    lo, hi = bracket()
    # multipliers: a point when the active normal rows and the tangent rows are independent (exact)
    rows = [N[i] for i in range(k) if act[i]] + list(T)
    indep = rank(_F(np.array(rows)), n) == len(rows)
    lam_s = lamt_s = None
    if indep and feasible is not False:
        A = np.array(rows)
        x = np.linalg.lstsq(A.T, f_s, rcond=None)[0]
        lam_s = np.zeros(k)
        lam_s[act] = x[: int(act.sum())]
        lamt_s = x[int(act.sum()) :].reshape(k, d1)

    def recheck():
        """The μ_min bracket decided again: exactly when the multipliers are a point (independent rows: λ* solved
        in rationals, μ_min = max_i ‖λ_t,i‖ / λ_n,i), else by the strict LP."""
        if indep and feasible is not False:
            x = solve_exact(_F(np.array(rows).T), f_q)
            if x is not None:
                xn = np.zeros(k)
                xn[act] = [float(v) for v in x[: int(act.sum())]]
                xt = np.array([float(v) for v in x[int(act.sum()) :]]).reshape(k, d1)
                ratios = [
                    np.linalg.norm(xt[i]) / xn[i] if xn[i] > 0 else (0.0 if not xt[i].any() else np.inf)
                    for i in range(k)
                ]
                r = max(ratios, default=0.0)
                return r, r
        return bracket(strict=True)

    status = {True: "solved", False: "infeasible", None: "undecided"}[feasible]
    truth = Truth(
        status,
        a_star=a_s,
        f_star=f_s,
        lam_star=lam_s,
        lamt_star=lamt_s,
        unique_a=True,
        unique_lam=(True if indep else None),
        active=act,
        mu=mu,
        sticking_feasible=feasible,
        mu_min_bracket=(lo, hi),
        mu_min_recheck=recheck,
        note=f"d={d} k={k} mu_min in [{lo:.6g}, {hi:.6g}]",
    )
    return p, truth, (N, b, ["unilateral"] * k, T)


# --------------------------------------------------------------------------------------------------------------------

FAMILIES = {
    "a_singular": lambda seed: gen_integer(np.random.default_rng([1, seed]), kernel=False),
    "b_illcond": gen_illcond,
    "c_kernel": lambda seed: gen_integer(np.random.default_rng([3, seed]), kernel=True),
    "d_sticking": lambda seed: gen_sticking(np.random.default_rng([4, seed])),
}


def run_one(job):
    family, seed = job
    t0 = time.perf_counter()
    try:
        p, truth, (J, b, types, JT) = FAMILIES[family](seed)
    except Exception as exc:  # generator / oracle trouble: not gaussqp's fault
        return {
            "family": family,
            "seed": seed,
            "verdict": "skipped",
            "certified": None,
            "status": None,
            "detail": [f"generator/oracle: {type(exc).__name__}: {exc}"],
            "truth": None,
        }
    try:
        sol = gaussqp.solve(p)
    except Exception as exc:  # a valid problem must never raise
        return {
            "family": family,
            "seed": seed,
            "verdict": "raised",
            "certified": None,
            "status": None,
            "detail": [f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=4)],
            "truth": truth.status,
        }
    try:
        verdict, detail = judge_solution(p, sol, truth, J, b, types, JT)
    except Exception as exc:
        verdict, detail = "judge_error", [f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=4)]
    st = str(sol.status.value if hasattr(sol.status, "value") else sol.status)
    return {
        "family": family,
        "seed": seed,
        "verdict": verdict,
        "certified": bool(sol.certified),
        "status": st,
        "truth": truth.status,
        "note": truth.note.strip(),
        "detail": detail,
        "unique": dict(sol.unique or {}),
        "formulation": sol.formulation,
        "time": time.perf_counter() - t0,
    }


def main(argv=None) -> int:
    global FORCE_FLOOR
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=400, help="problems in all (split evenly over the families)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", default=None)
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES), help="only these families")
    ap.add_argument("--problem-seed", type=int, action="append", help="only these problem seeds (with --family)")
    ap.add_argument("--force-floor", type=float, default=1e-8, help="data floor of the force scale (x terms)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    FORCE_FLOOR = args.force_floor
    fams = args.family or list(FAMILIES)
    if args.problem_seed:
        jobs = [(f, s) for f in fams for s in args.problem_seed]
    else:
        per = max(1, args.count // len(fams))
        base = args.seed * 1_000_000
        jobs = [(f, base + i) for i in range(per) for f in fams]
    t0 = time.perf_counter()
    if args.jobs > 1:
        from multiprocessing import get_context

        with get_context("fork").Pool(args.jobs, maxtasksperchild=200) as pool:
            out = list(pool.imap(run_one, jobs, chunksize=4))
    else:
        out = []
        for k, j in enumerate(jobs):
            out.append(run_one(j))
            if (k + 1) % 200 == 0:
                print(f"  {k + 1}/{len(jobs)} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    table = defaultdict(Counter)
    for o in out:
        table[o["family"]]["total"] += 1
        v, c = o["verdict"], o["certified"]
        if v in ("right", "edge") and c:
            table[o["family"]]["certified right"] += 1
            if v == "edge":
                table[o["family"]]["(of which edge)"] += 1
        elif v == "honest":
            table[o["family"]]["honest non-certified"] += 1
        elif v == "wrong":
            table[o["family"]]["certified WRONG"] += 1
        else:
            table[o["family"]][v] += 1
    print(f"{len(out)} problems in {time.perf_counter() - t0:.0f} s")
    cols = [
        "total",
        "certified right",
        "(of which edge)",
        "honest non-certified",
        "certified WRONG",
        "raised",
        "skipped",
        "judge_error",
    ]
    print(f"{'family':12} " + " ".join(f"{c:>21}" for c in cols))
    for f in fams:
        print(f"{f:12} " + " ".join(f"{table[f][c]:>21}" for c in cols))
    bad = [o for o in out if o["verdict"] in ("wrong", "raised", "judge_error")]
    for f in fams:
        seeds = [o["seed"] for o in bad if o["family"] == f]
        if seeds:
            print(f"{f}: bad seeds {seeds[:40]}{' …' if len(seeds) > 40 else ''}")
    for o in bad[: (len(bad) if args.verbose else 25)]:
        print(
            f"  [{o['family']} seed {o['seed']}] {o['verdict']} status={o['status']} certified={o['certified']} "
            f"truth={o['truth']} ({o.get('note', '')}) formulation={o.get('formulation')}"
        )
        for dline in o["detail"][:6]:
            print("      ", str(dline)[:400])
        print(
            f"      reproduce: python benchmarks/verdict_sweep.py --family {o['family']} --problem-seed {o['seed']} -v"
        )
    if args.verbose and len(out) <= 10:
        for o in out:
            print(json.dumps(o, indent=1, default=str))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"table": {f: dict(table[f]) for f in fams}, "bad": bad, "args": vars(args)}, indent=1, default=str
            )
        )
    return 1 if bad and any(o["verdict"] in ("wrong", "raised") for o in bad) else 0


if __name__ == "__main__":
    sys.exit(main())
