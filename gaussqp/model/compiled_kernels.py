"""Compiled kernels of the judge's per-answer checks on a dense problem and of the data scales they are judged at
(imported only by :mod:`gaussqp.certificates.compiled` and :mod:`gaussqp.model.scales`, and only with numba
installed). They live in the model layer, below both users, in one module with their helpers: numba renews a compiled
function's cache when its own file changes, not when a helper in another file does.

Each is the NumPy function it replaces written as loops, with the same operations in the same order: the products by
BLAS's ``dgemv`` (``ddot`` for a matrix of one row) on the same layouts as NumPy's ``@`` (C-ordered ``M``, ``J_n``,
``J_t`` and their transposes), the rest elementwise, the largest entries taken with NumPy's rule (a NaN anywhere makes
the maximum NaN, the second of two equal numbers, as this NumPy's ``maximum`` gives it on x86-64) and, where the NumPy
code takes Python's ``max`` of two numbers, with Python's. So they give the NumPy code's numbers bit for bit, signed
zeros included where NumPy takes its largest entry in order (``tests/certificates/test_compiled_checks.py``,
``tests/model/test_compiled_scales.py``), and the judge's decisions with or without numba are the same. Unlike NumPy
they never warn, nor raise under ``numpy.errstate(all="raise")``: an overflow is an infinity or a NaN in the residual,
which fails its check either way:

- :func:`kkt_residuals`: :func:`gaussqp.certificates.residuals.kkt_residuals` (tutorial (3)–(5)) without sliding
  contacts;
- :func:`backward_error`: :func:`gaussqp.certificates.backward_error.backward_error` (DESIGN.md §4.3) without sliding
  contacts;
- :func:`newton_step_errors`: the forward error's Newton step after the step and the rows of ``K̃⁺`` are known
  (:func:`gaussqp.certificates.instance._step_errors`);
- :func:`forward_error`: the forward error's Newton steps whole, where every active set's equilibrated KKT matrix has
  full rank (:func:`gaussqp.certificates.instance._numpy_steps`): the matrix, its singular values (``dgesdd``), its LU,
  solve and inverse (``dgetrf``, ``dgetrs``, ``dgetri``) from SciPy's LAPACK (:mod:`gaussqp.linalg.lapack_bindings`),
  with the workspaces SciPy's wrappers pass, which the NumPy reference calls too (``gaussqp.linalg.dense.singular_values``,
  ``scipy.linalg.lapack``);
- :func:`row_scales`: the data scales of a dense problem with M ≻ 0 (:func:`gaussqp.model.scales._numpy_scales`).
"""

from __future__ import annotations

import numpy as np

from ..linalg.jit import njit
from ..linalg.lapack_bindings import dgesdd, dgetrf, dgetri, dgetrs


@njit
def _mv(A, x):
    """``A @ x`` as NumPy's ``matmul`` makes it: BLAS's ``dot`` when ``A`` has one row (a 1 × 1 result), ``gemv``
    otherwise (on ``A``'s layout: a transpose is a column-ordered view)."""
    if A.shape[0] == 1:
        out = np.empty(1)
        out[0] = np.dot(np.ascontiguousarray(A[0]), x)
        return out
    return np.dot(A, x)


@njit
def _first_larger(out, x):
    """Python's ``max(out, x)`` of two numbers: ``x`` only when it is larger (a NaN second argument is passed over)."""
    if x > out:
        return x
    return out


@njit
def _larger(out, x):
    """NumPy's ``maximum(out, x)``: NaN when either is NaN, else the larger, ``x`` on a tie (so ``maximum(0, −0)`` is
    −0, as NumPy gives it)."""
    if out != out:
        return out
    if out > x:
        return out
    return x


@njit
def _smaller(x, y):
    """NumPy's ``minimum(x, y)``: NaN when either is NaN, else the smaller, ``y`` on a tie."""
    if x != x:
        return x
    if x < y:
        return x
    return y


@njit
def _relative(v, s):
    """:func:`gaussqp.model.scales.relative` of one entry: ``|v| / s`` where ``s > 0``, else ``|v|``."""
    x = abs(v)
    if s > 0:
        return x / s
    return x


@njit
def kkt_residuals(
    M, F, Jn, b, Jt, c, a, lam_n, lam_t, normal_row, dynamics_row, normal_weight, tangent_row, force, B, U, rt
):
    """``(dynamics, primal, dual, complementarity)`` of ``(a, λ_n, λ_t)``: the residuals of
    :func:`gaussqp.certificates.residuals.kkt_residuals` (``B``, ``U``: bilateral and unilateral contacts; ``rt``: the
    sticking tangent rows; the scales of :func:`gaussqp.model.scales.data_scales`)."""
    n = a.size
    m = lam_n.size
    if m:
        gen = _mv(Jn.T, lam_n)
        gen_abs = _mv(np.abs(Jn).T, np.abs(lam_n))
    else:
        gen = np.zeros(n)
        gen_abs = np.zeros(n)
    if Jt.shape[0]:
        gen = gen + _mv(Jt.T, lam_t)
        gen_abs = gen_abs + _mv(np.abs(Jt).T, np.abs(lam_t))
    r = _mv(M, a) + F - gen
    dynamics = 0.0
    for j in range(n):
        dynamics = _larger(dynamics, _relative(r[j], dynamics_row[j] + gen_abs[j]))
    gh = np.zeros(m)
    if m:
        g = _mv(Jn, a) + b
        for i in range(m):
            gh[i] = _relative(g[i], normal_row[i]) * np.sign(g[i])
    bilateral = 0.0
    for i in B:
        bilateral = _larger(bilateral, abs(gh[i]))
    unilateral = 0.0
    for i in U:
        unilateral = _larger(unilateral, _larger(0.0, -gh[i]))
    primal = _first_larger(bilateral, unilateral)
    if rt.size:
        ut = _mv(Jt[rt], a) + c[rt]
        tangent = 0.0
        for j in range(rt.size):
            tangent = _larger(tangent, _relative(ut[j], tangent_row[rt[j]]))
        primal = _first_larger(primal, tangent)
    dual = 0.0
    complementarity = 0.0
    for i in U:
        lam_hat = lam_n[i] * normal_weight[i] / force
        dual = _larger(dual, _larger(0.0, -lam_hat))
        complementarity = _larger(complementarity, _smaller(abs(lam_hat), abs(gh[i])))
    return dynamics, primal, dual, complementarity


@njit
def backward_error(
    M,
    F,
    Jn,
    b,
    Jt,
    c,
    a,
    lam_n0,
    lt0,
    normal_row,
    dynamics_row,
    normal_weight,
    tangent_row,
    tangent_weight,
    force,
    B,
    U,
    rt,
    frictionless,
):
    """The data change under which ``(a, λ̃)`` solves the problem exactly, as
    :func:`gaussqp.certificates.backward_error.backward_error` builds it: ``(forces, drifts, multipliers, ΔF, Δb, Δc,
    λ̃_n, λ̃_t)`` (``lt0``: the tangential forces, one row per contact; ``tangent_weight`` in the same shape)."""
    n = a.size
    m = lam_n0.size
    lam_n = lam_n0.copy()
    lt = lt0.copy()
    db = np.zeros(m)
    if m:
        g = _mv(Jn, a) + b
        for i in B:
            db[i] = -g[i]
        for i in U:
            # kept active when its multiplier is positive and making it active costs no more than the larger of its
            # multiplier and its violation (both at the row's scale), else made inactive
            violation = _larger(0.0, -g[i])
            lam_hat = abs(lam_n[i]) * normal_weight[i] / force
            cost = _relative(g[i], normal_row[i])
            keep = lam_n[i] > 0 and cost <= _larger(lam_hat, _relative(violation, normal_row[i]))
            if keep:
                db[i] = -g[i]
            else:
                db[i] = violation
                lam_n[i] = 0.0
    for i in frictionless:
        for k in range(lt.shape[1]):
            lt[i, k] = 0.0
    dc = np.zeros(Jt.shape[0])
    if rt.size:
        ut = _mv(Jt[rt], a) + c[rt]
        for j in range(rt.size):
            dc[rt[j]] = -ut[j]
    if m:
        gen = _mv(Jn.T, lam_n)
    else:
        gen = np.zeros(n)
    if Jt.shape[0]:
        gen = gen + _mv(Jt.T, lt.ravel())
    dF = gen - _mv(M, a) - F
    forces = 0.0
    for j in range(n):
        forces = _larger(forces, _relative(dF[j], dynamics_row[j]))
    drifts = 0.0
    for i in range(m):
        drifts = _larger(drifts, _relative(db[i], normal_row[i]))
    if rt.size:
        tangent = 0.0
        for j in range(rt.size):
            tangent = _larger(tangent, _relative(dc[rt[j]], tangent_row[rt[j]]))
        drifts = _first_larger(drifts, tangent)
    change = 0.0
    for i in range(m):
        change = _larger(change, abs(lam_n[i] - lam_n0[i]) * normal_weight[i])
    for i in range(lt.shape[0]):
        for k in range(lt.shape[1]):
            change = _larger(change, abs(lt[i, k] - lt0[i, k]) * tangent_weight[i, k])
    return forces, drifts, change / force, dF, db, dc, lam_n, lt


@njit
def _abs_max(x, lo, hi):
    """``float(np.abs(x[lo:hi]).max(initial=0.0))``."""
    out = 0.0
    for i in range(lo, hi):
        out = _larger(out, abs(x[i]))
    return out


@njit
def newton_step_errors(
    a,
    lam_n,
    dz,
    Kp,
    Kp_transposed,
    skeel_bound,
    a_t,
    lam_t,
    d,
    K,
    r_t,
    cond,
    owner,
    unilateral,
    active,
    normal_weight,
    force,
    accel,
    free_accel,
    G,
    g,
    inequality_row,
    weak_rtol,
    floor,
    tiny,
    eps,
):
    """The errors that one Newton step ``δz`` on the equilibrated KKT system of an active set bounds, after the step
    and the rows ``Kp`` of ``K̃⁺`` are computed (:func:`gaussqp.certificates.instance._newton_step`, whose NumPy lines
    these are, in order): ``(err_a, err_l, contact, admissible, amag)`` — the acceleration's error relative to its
    size ``amag``, the multipliers' normwise error, each contact's force error relative to its force (the step plus
    the smaller of its round-off and Skeel's componentwise bound through ``|K̃⁺|``, where ``skeel_bound``), and whether
    the corrected point keeps the signs of the active set. ``Kp`` holds those rows, or their transpose when
    ``Kp_transposed``. ``r_t`` is the equilibrated right-hand side ``d ⊙ (−F, −c)``."""
    n = a_t.size
    k = lam_t.size
    m = normal_weight.size
    a_max = _abs_max(a_t, 0, n)
    lam_max = _abs_max(lam_t, 0, k)
    zmag = _first_larger(a_max, lam_max / force * accel)
    roundoff = (n + k) * eps * cond * zmag
    amag = _first_larger(a_max, free_accel)
    if amag == 0.0:
        amag = accel
    amag = _first_larger(amag, tiny)
    err_a = (_abs_max(dz, 0, n) + roundoff) / amag
    err_l = (_abs_max(dz, n, n + k) * accel / force + roundoff) / _first_larger(accel, zmag)
    roundoff_z = (n + k) * eps * cond * _first_larger(a_max, lam_max)
    # Skeel: the residual's own round-off (n + k) ε (|K̃||z̃| + |r̃|) through |K̃⁺|
    Kt_abs = np.empty((n + k, n + k))
    for i in range(n + k):
        for j in range(n + k):
            Kt_abs[i, j] = abs(d[i] * K[i, j] * d[j])
    z_abs = np.empty(n + k)
    for i in range(n):
        z_abs[i] = abs(a_t[i])
    for i in range(k):
        z_abs[n + i] = abs(lam_t[i])
    prod = _mv(Kt_abs, z_abs)
    scale = (n + k) * eps
    res_round = np.empty(n + k)
    for i in range(n + k):
        res_round[i] = scale * (prod[i] + abs(r_t[i]))
    if skeel_bound:
        # NumPy's product on |K̃⁺|'s rows in the layout they come in (a row slice of LAPACK's column-major inverse: the
        # transpose of a C-ordered matrix, ``Kp_transposed``)
        skeel = _mv(np.abs(Kp).T, res_round) if Kp_transposed else _mv(np.abs(Kp), res_round)
    else:
        skeel = np.full(k, np.inf)
    num = np.zeros(m)
    den = np.full(m, floor)
    for j in range(k):
        err = abs(dz[n + j]) + _smaller(roundoff_z, skeel[j])
        size = _larger(abs(lam_t[j]), abs(lam_t[j] - dz[n + j]))
        o = owner[j]
        num[o] = _larger(num[o], err)  # np.maximum.at, in the rows' order
        den[o] = _larger(den[o], size)
    contact = np.zeros(m)
    for j in range(k):
        o = owner[j]
        contact[o] = num[o] / den[o] if np.isfinite(num[o]) else np.inf
    # a unilateral row off this active set has the exact multiplier 0 on it: its error is its whole λ̃
    for r in range(unilateral.size):
        if not active[r]:
            i = unilateral[r]
            lam_off = abs(lam_n[i]) * normal_weight[i]
            contact[i] = _larger(contact[i], lam_off / _larger(lam_off, floor))
    admissible = True
    if unilateral.size:
        na = 0
        for r in range(unilateral.size):
            if active[r]:
                na += 1
        for j in range(k - na, k):
            if not ((lam_t[j] / force - dz[n + j] / force) >= -weak_rtol):
                admissible = False
        if admissible:
            a_new = np.empty(n)
            for i in range(n):
                a_new[i] = a[i] - dz[i] * d[i]
            ga = _mv(G, a_new)
            for r in range(unilateral.size):
                if not active[r]:
                    row = inequality_row[r] if inequality_row[r] > 0 else 1.0
                    if not ((ga[r] + g[r]) / row >= -weak_rtol):
                        admissible = False
    return err_a, err_l, contact, admissible, amag


@njit
def _row_inf_norms(A, s):
    """``(|A| * s).max(axis=1, initial=0.0)``."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        v = 0.0
        for j in range(A.shape[1]):
            x = abs(A[i, j]) * s[j]
            if v != v:
                break
            if x != x or x > v:
                v = x
        out[i] = v
    return out


@njit
def _ratios(num, den):
    """``np.divide(num, den, out=np.zeros_like(num), where=den > 0)``."""
    out = np.zeros(num.size)
    for i in range(num.size):
        if den[i] > 0:
            out[i] = num[i] / den[i]
    return out


@njit
def row_scales(M, F, Jn, b, Jt, c, s, R, w, lam_max):
    """``(wn, wt, free, accel, force, normal_row, tangent_row, dynamics_row, work)`` of a dense problem with M ≻ 0
    (``R``, ``w``, ``s``: its mass factor, the eigenvalues of ``M̃`` and the Jacobi scaling; ``b``, ``c``: the drifts'
    magnitudes; ``lam_max``: ``M̃``'s largest eigenvalue), as :func:`gaussqp.model.scales._numpy_scales` computes them
    (the largest entries of nonnegative numbers, where the order does not matter)."""
    m, k = Jn.shape[0], Jt.shape[0]
    wn = _row_inf_norms(Jn, s) if m else np.zeros(0)
    wt = _row_inf_norms(Jt, s) if k else np.zeros(0)
    drift_n = _abs_max(_ratios(b, wn), 0, b.size)
    drift_t = _abs_max(_ratios(c, wt), 0, c.size)
    free = 0.0
    if np.any(F != 0.0):
        Rs = R * s.reshape(1, -1)
        y = _mv(Rs, s * F) / (w * w)
        free = _abs_max(_mv(Rs.T, y), 0, Rs.shape[1])
    accel = _first_larger(_first_larger(free, drift_n), drift_t)
    force = _first_larger(_abs_max(s * F, 0, F.size), _first_larger(lam_max, 1.0) * accel)
    if accel == 0.0 and force == 0.0:  # no load, no drift: the answer is zero; any unit judges it
        accel = 1.0
        force = 1.0
    elif force == 0.0:
        force = accel
    elif accel == 0.0:
        accel = force
    acc = s * accel
    normal_row = _mv(np.abs(Jn), acc) + b if m else np.zeros(0)
    tangent_row = _mv(np.abs(Jt), acc) + c if k else np.zeros(0)
    lam_n = np.zeros(m)
    for i in range(m):
        if wn[i] > 0:
            lam_n[i] = force / wn[i]
    lam_t = np.zeros(k)
    for i in range(k):
        if wt[i] > 0:
            lam_t[i] = force / wt[i]
    mass_terms = _mv(np.abs(M), acc)
    F_abs = np.abs(F)
    work = np.dot(acc, mass_terms) + np.dot(F_abs, acc)
    work = work + (np.dot(lam_n, b) if m else 0.0)
    work = work + (np.dot(lam_t, c) if k else 0.0)
    dynamics_row = mass_terms + F_abs
    dynamics_row = dynamics_row + (_mv(np.abs(Jn).T, lam_n) if m else np.zeros(dynamics_row.size))
    dynamics_row = dynamics_row + (_mv(np.abs(Jt).T, lam_t) if k else np.zeros(dynamics_row.size))
    return wn, wt, free, accel, force, normal_row, tangent_row, dynamics_row, work


@njit
def _fortran_copy(A):
    """A copy of ``A`` in LAPACK's column order (the factors and the inverse overwrite it)."""
    return A.T.copy().T


@njit
def _singular_values(A):
    """:func:`gaussqp.linalg.dense.singular_values` of a square ``A``: LAPACK's ``dgesdd`` with ``jobz = 'N'`` and the
    workspace SciPy's wrapper passes by default, ``max(14N + 4, 10N + 2 + 25·33) + N``; ``(values, info)``."""
    N = A.shape[0]
    a = _fortran_copy(A)
    n = np.full(1, N, dtype=np.int32)
    one = np.ones(1, dtype=np.int32)
    jobz = np.full(1, 78, dtype=np.uint8)  # 'N': the values only
    s = np.empty(max(N, 1))
    u = np.empty(1)
    vt = np.empty(1)
    iwork = np.empty(max(8 * N, 1), dtype=np.int32)
    info = np.zeros(1, dtype=np.int32)
    lwork = np.full(1, max(max(14 * N + 4, 10 * N + 2 + 25 * (25 + 8)) + N, 1), dtype=np.int32)
    work = np.empty(lwork[0])
    dgesdd(
        jobz.ctypes, n.ctypes, n.ctypes, a.ctypes, n.ctypes, s.ctypes, u.ctypes, one.ctypes, vt.ctypes, one.ctypes,
        work.ctypes, lwork.ctypes, iwork.ctypes, info.ctypes,
    )  # fmt: skip
    return s[:N], info[0]


@njit
def _lu_inverse_step(Kt, res):
    """``(K̃⁻¹ res, K̃⁻¹, ok)`` by one LU with partial pivoting of ``K̃`` (``dgetrf``), its solve (``dgetrs``) and its
    inverse (``dgetri`` with SciPy's default workspace, ``max(3N, 1)``): the calls of
    :class:`gaussqp.mechanics.active_set.KKTFactor` at full rank. The inverse comes in LAPACK's column order (a C-ordered
    array's transpose). ``ok``: both ended with ``info = 0`` and finite entries (else the caller's NumPy code, which
    takes the singular vectors then, answers)."""
    N = Kt.shape[0]
    lu = _fortran_copy(Kt)
    n = np.full(1, N, dtype=np.int32)
    one = np.ones(1, dtype=np.int32)
    piv = np.empty(max(N, 1), dtype=np.int32)
    info = np.zeros(1, dtype=np.int32)
    dgetrf(n.ctypes, n.ctypes, lu.ctypes, n.ctypes, piv.ctypes, info.ctypes)
    x = res.copy()
    trans = np.full(1, 78, dtype=np.uint8)  # 'N'
    dgetrs(trans.ctypes, n.ctypes, one.ctypes, lu.ctypes, n.ctypes, piv.ctypes, x.ctypes, n.ctypes, info.ctypes)
    if info[0] != 0 or not np.all(np.isfinite(x)):
        return x, lu, False
    lwork = np.full(1, max(3 * N, 1), dtype=np.int32)
    work = np.empty(lwork[0])
    dgetri(n.ctypes, lu.ctypes, n.ctypes, piv.ctypes, work.ctypes, lwork.ctypes, info.ctypes)
    return x, lu, info[0] == 0 and bool(np.all(np.isfinite(lu)))


@njit
def _active_rows(E, e, G, g, active, eq_weight, in_weight, coordinate):
    """``(J, c, d)`` of :func:`gaussqp.mechanics.active_set.equilibrated_kkt`: the equality rows then the active
    unilateral rows, their drifts, and the equilibration ``d = (S, 1/w)``."""
    n = coordinate.size
    me = E.shape[0]
    na = 0
    for r in range(active.size):
        if active[r]:
            na += 1
    J = np.empty((me + na, n))
    c = np.empty(me + na)
    d = np.empty(n + me + na)
    d[:n] = coordinate
    for i in range(me):
        J[i] = E[i]
        c[i] = e[i]
        d[n + i] = 1.0 / eq_weight[i]
    i = me
    for r in range(active.size):
        if active[r]:
            J[i] = G[r]
            c[i] = g[r]
            d[n + i] = 1.0 / in_weight[r]
            i += 1
    return J, c, d


@njit
def _kkt_step(
    M, F, E, e, G, g, U, B, rt, d1, coordinate, eq_weight, in_weight, normal_weight, inequality_row, force, accel,
    free_accel, a, lam_n, lam_t, active, weak_rtol, floor, tiny, eps, rank_multiple, mass_definite,
):  # fmt: skip
    """One Newton step of the forward error on the active set ``active``
    (:func:`gaussqp.certificates.instance._newton_step` where its equilibrated KKT matrix has full rank at the rank rule,
    whose NumPy lines these are, in order): ``(ok, cond, err_a, err_l, contact, admissible, da)``. ``ok`` False where
    the NumPy code takes another branch (more active rows than coordinates or a singular M, whose KKT matrix is likely
    singular and whose singular values the NumPy code takes from the whole SVD; a rank below the order; an LU that
    fails): the caller then runs the NumPy code."""
    n = a.size
    m = lam_n.size
    J, c, d = _active_rows(E, e, G, g, active, eq_weight, in_weight, coordinate)
    k = J.shape[0]
    N = n + k
    nothing = np.zeros(m)
    if k > n or not mass_definite:
        return False, 0.0, 0.0, 0.0, nothing, False, 0.0
    K = np.zeros((N, N))
    for i in range(n):
        for j in range(n):
            K[i, j] = M[i, j]
    for r in range(k):
        for j in range(n):
            K[j, n + r] = -J[r, j]
            K[n + r, j] = J[r, j]
    Kt = np.empty((N, N))
    for i in range(N):
        for j in range(N):
            Kt[i, j] = d[i] * K[i, j] * d[j]
    sv, info = _singular_values(Kt)
    if info != 0:
        return False, 0.0, 0.0, 0.0, nothing, False, 0.0
    rtol = max(N, 1) * eps * rank_multiple
    rank = 0
    if sv.size and sv[0] > 0:
        for s in sv:
            if s > rtol * sv[0]:
                rank += 1
    if rank < N or rank == 0:
        return False, 0.0, 0.0, 0.0, nothing, False, 0.0
    nb, ns = B.size, rt.size
    lam = np.empty(k)
    owner = np.empty(k, dtype=np.int64)
    for i in range(nb):
        lam[i] = lam_n[B[i]]
        owner[i] = B[i]
    for i in range(ns):
        lam[nb + i] = lam_t[rt[i]]
        owner[nb + i] = rt[i] // d1
    i = nb + ns
    for r in range(U.size):
        if active[r]:
            lam[i] = lam_n[U[r]]
            owner[i] = U[r]
            i += 1
    z = np.empty(N)
    z[:n] = a
    z[n:] = lam
    a_t = a / d[:n]
    lam_t_ = lam / d[n:]
    rhs = np.empty(N)
    for i in range(n):
        rhs[i] = -F[i]
    for i in range(k):
        rhs[n + i] = -c[i]
    res = d * (_mv(K, z) - rhs)
    dz, inverse, ok = _lu_inverse_step(Kt, res)
    if not ok:
        return False, 0.0, 0.0, 0.0, nothing, False, 0.0
    cond = sv[0] / sv[rank - 1]
    # the rows n: of the inverse in the layout gaussqp.certificates.instance._row_layout hands them on: the transpose
    # of LAPACK's column-ordered rows, C-ordered (a copy of the rows where either dimension is 1)
    if k > 1 and N > 1:
        Kp = inverse.T[:, n:].copy()
        transposed = True
    else:
        Kp = inverse[n:].copy()
        transposed = False
    err_a, err_l, contact, admissible, amag = newton_step_errors(
        a, lam_n, dz, Kp, transposed, bool(np.isfinite(cond)), a_t, lam_t_, d, K, d * rhs, cond, owner, U, active,
        normal_weight, force, accel, free_accel, G, g, inequality_row, weak_rtol, floor, tiny, eps,
    )  # fmt: skip
    return True, cond, err_a, err_l, contact, admissible, err_a * amag


@njit
def forward_error(
    M, F, E, e, G, g, U, B, rt, d1, coordinate, eq_weight, in_weight, normal_weight, inequality_row, force, accel,
    free_accel, a, lam_n, lam_t, weak_rtol, floor, tiny, eps, rank_multiple, mass_definite, weak_rows_max,
):  # fmt: skip
    """:func:`gaussqp.certificates.instance.forward_error` where every active set's step has an equilibrated KKT matrix
    of full rank (:func:`_kkt_step`): the guessed active set (``λ̂_i >= ĝ_i``), its step, the weakly active rows, the
    steps of their combinations (every one up to ``weak_rows_max`` rows, in ``itertools.product``'s order; else all of
    them active and none), the worst errors over the steps counted. Returns ``(ok, guess, weak, cond, err_a, err_l,
    contact, err_f, counted, tried, enumerated)``; ``ok`` False sends the caller to the NumPy code."""
    m = lam_n.size
    nu = U.size
    row = np.empty(nu)
    for r in range(nu):
        row[r] = inequality_row[r] if inequality_row[r] > 0 else 1.0
    ghat = (_mv(G, a) + g) / row if nu else np.zeros(0)  # each row's slack on its scale (the guess, the weak rows)
    lam_hat = np.empty(nu)
    guess = np.zeros(nu, dtype=np.bool_)
    for r in range(nu):
        lam_hat[r] = lam_n[U[r]] * normal_weight[U[r]] / force
        guess[r] = lam_hat[r] >= ghat[r]
    weak = np.zeros(nu, dtype=np.bool_)
    idx = np.zeros(0, dtype=np.int64)
    contact = np.zeros(m)
    cond = err_a = err_l = 0.0
    enumerated = True
    combos = 0  # the sets after the guess: known once its step is taken
    sets = np.zeros((1, nu), dtype=np.bool_)
    count = counted = 0
    q = -1  # -1: the guess; then the combinations of the weak rows
    while q < combos:
        alt = guess.copy()
        w = idx.size
        for j in range(w):
            alt[idx[j]] = (((q >> (w - 1 - j)) & 1) == 1) if enumerated else q == 0  # else all active, then none
        seen = False
        for s in range(count):
            same = True
            for r in range(nu):
                if sets[s, r] != alt[r]:
                    same = False
                    break
            if same:
                seen = True
                break
        q += 1
        if seen:
            continue
        sets[count] = alt
        count += 1
        ok, cond_s, err_a_s, err_l_s, contact_s, admissible_s, da = _kkt_step(
            M, F, E, e, G, g, U, B, rt, d1, coordinate, eq_weight, in_weight, normal_weight, inequality_row, force,
            accel, free_accel, a, lam_n, lam_t, alt, weak_rtol, floor, tiny, eps, rank_multiple, mass_definite,
        )  # fmt: skip
        if not ok:
            return False, guess, weak, 0.0, 0.0, 0.0, contact, 0.0, 0, 0, False
        if count == 1:
            # the guess's step: every later set is counted only where its corrected point keeps its signs
            cond, err_a, err_l, contact, counted = cond_s, err_a_s, err_l_s, contact_s.copy(), 1
            if nu:  # the weakly active rows (_weakly_active)
                reach = _mv(np.abs(G), coordinate) * da / row if np.isfinite(da) else np.full(nu, np.inf)
                for r in range(nu):
                    weak[r] = (ghat[r] <= weak_rtol + reach[r]) and (lam_hat[r] <= weak_rtol)
            idx = np.flatnonzero(weak)
            enumerated = idx.size <= weak_rows_max
            combos = (1 << idx.size) if enumerated else 2
            sets = np.zeros((combos + 1, nu), dtype=np.bool_)
            sets[0] = alt
        elif admissible_s:
            counted += 1
            cond = _first_larger(cond, cond_s)
            err_a = _first_larger(err_a, err_a_s)
            err_l = _first_larger(err_l, err_l_s)
            for i in range(m):
                contact[i] = _larger(contact[i], contact_s[i])
    err_f = np.inf
    if enumerated:
        err_f = 0.0
        for i in range(m):
            err_f = _larger(err_f, contact[i])
    return True, guess, weak, cond, err_a, err_l, contact, err_f, counted, count, enumerated
