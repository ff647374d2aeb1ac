"""C8 — structural criteria of the all-sticking problem (docs/DESIGN.md §4.1; sticking paper §2-§3).

- ``C8(22)``: sticking Prop. 2 — all contacts bilateral and sticking, M ≻ 0, G ≻ 0 (17): the multipliers
  are given by (21) and the all-sticking mode exists iff (22), i.e. each (λ_n,i, λ_t,i) of (21) lies in its
  Coulomb disk;
- ``C8(Cor. 1)``: the same test with zero drifts, read as a static all-sticking equilibrium (q̇ = 0);
- ``C8(Prop. 6)``: Assumption 1 (M ≻ 0, H_tᵀM⁻¹H_t ≻ 0) and the augmented contact LCP (35)-(38):
  (i) ``A_c^st ≻ 0`` ⇔ unique λ_n,u for every right-hand side; (iii) ``im ∇h_n,u ∩ im H_t = {0}`` ⇒ unique
  acceleration whenever the LCP is solvable;
- ``C8(Prop. 8)``: the set E of (47) is {0} ⇒ the MLCP (43) is solvable (an LP plus rank tests);
- ``C8(Cor. 2)``: M ≻ 0 and ``im H_t ∩ N_S = {0}`` ⇒ (43) solvable with a unique acceleration.

These criteria ignore the Coulomb disks except (22)/Cor. 1 (as the paper's do); the exact decision
with the disks is F4 (:mod:`gaussqp.formulations.sticking_conic`), and μ_min (Prop. 11) is in the
sticking verdict.

Lazy imports (the idiom of :mod:`gaussqp.backends`): ``scipy.optimize`` is imported inside the functions
that use it, not when this module is imported.
"""

from __future__ import annotations

import numpy as np

from ..linalg.polyhedral_cones import cone_is_trivial, lp_dual_bound
from ..errors import UndecidedError
from ..mechanics.delassus import constrained_delassus, delassus
from ..linalg.dense import as_dense, equilibrated_min_eigenvalue, matrix_rank, normalize_rows, singular_value_rank
from ..model.scales import data_scales
from ..settings import DEFINITE_RTOL, LP_VALUE_TOL, ROUND_OFF, SCALE_FLOOR, STICKING_DISK_RTOL, VERIFY_RTOL
from ..model.problem import ContactProblem
from ..results import Certificate

SRC = "sticking"


def _rows(problem: ContactProblem):
    n = problem.n
    return as_dense(problem.J_n).reshape(problem.m, n), as_dense(problem.J_t).reshape(-1, n)


def bilateral_sticking_criterion(problem: ContactProblem) -> list[Certificate]:
    """Sticking Prop. 2 (22) via (21), and Cor. 1 when the drifts vanish (static state)."""
    if not (len(problem.bilateral) == problem.m > 0 and len(problem.sticking) == problem.m):
        return []
    if not problem.mass_factor.definite:
        return [
            Certificate(
                "C8(22)",
                f"{SRC} Prop. 2, (21)-(22)",
                None,
                float("nan"),
                "premise fails: M is singular (see F4 for the exact test)",
                "dynamical all-sticking test",
            )
        ]
    # every contact bilateral and sticking: the rows [normals; tangents] are problem.equalities, so the
    # matrix G of (17) is the Delassus matrix W and (21) reads G λ = -w
    G, w, _ = delassus(problem)
    e = problem.equalities[1]
    # definiteness on the Jacobi-equilibrated G (reference: its own diagonal, the rows' kinetic norms
    # ‖J_i‖²_{M⁻¹}, data): the same decision in any unit of mass, length or row
    margin = equilibrated_min_eigenvalue(G, np.diag(G))
    if margin <= DEFINITE_RTOL:
        return [
            Certificate(
                "C8(22)",
                f"{SRC} Prop. 2, (17), (21)-(22)",
                None,
                margin,
                "premise fails: G of (17) is not positive definite (dependent rows); see F4",
                "dynamical all-sticking test",
            )
        ]
    lam = np.linalg.solve(G, -w)  # (21)
    m, d1 = problem.m, problem.dimension - 1
    lam_n, lam_t = lam[:m], lam[m:].reshape(m, d1)
    gaps = np.array([problem.friction[i] * abs(lam_n[i]) - np.linalg.norm(lam_t[i]) for i in range(m)])
    # each disk slack against contact i's multipliers at the data's size (λ_data = force / ‖(J S)_row‖∞,
    # :mod:`gaussqp.model.scales`), never against the multipliers being judged nor an absolute 1
    ds = data_scales(problem)
    lam_data = ds.force / ds.equality_weight  # rows of problem.equalities: [normals; tangents], as G
    scale = problem.friction * lam_data[:m] + lam_data[m:].reshape(m, d1).max(axis=1, initial=0.0)
    rel = gaps / np.maximum(scale, SCALE_FLOOR)
    holds = bool(rel.min() >= -STICKING_DISK_RTOL)
    out = [
        Certificate(
            "C8(22)",
            f"{SRC} Prop. 2, (21)-(22)",
            holds,
            float(rel.min()),
            (
                "the all-sticking problem (14) has a solution: every (21) multiplier lies in its Coulomb disk"
                if holds
                else f"no all-sticking solution: contact {int(np.argmin(gaps))} leaves its disk (stick→slip, Prop. 4)"
            ),
            "dynamical all-sticking, independent constraints",
            {"lambda_normal": lam_n, "lambda_tangent": lam_t, "disk_slack": gaps},
        )
    ]
    if not np.any(e):
        out.append(
            Certificate(
                "C8(Cor. 1)",
                f"{SRC} Cor. 1, (25)",
                holds,
                float(rel.min()),
                (
                    "zero drifts: (q, 0) is a static equilibrium with all contacts sticking under these forces"
                    if holds
                    else "zero drifts: no static all-sticking equilibrium under these forces"
                ),
                "static all-sticking equilibrium",
            )
        )
    return out


def _unilateral_sticking(problem: ContactProblem):
    U = [i for i in problem.unilateral if problem.modes[i] == "sticking"]
    return U


def augmented_lcp_criteria(problem: ContactProblem) -> list[Certificate]:
    """Sticking Prop. 6 (i) and (iii) on the augmented contact LCP (35)-(38)."""
    U = _unilateral_sticking(problem)
    if not U or len(problem.sliding):
        return []
    src = f"{SRC} Prop. 6, (35)-(38)"
    if not problem.mass_factor.definite:
        return [
            Certificate("C8(Prop. 6)", src, None, float("nan"), "premise fails: Assumption 1 needs M ≻ 0", "A_c^st ≻ 0")
        ]
    cd = constrained_delassus(problem)
    Ed = cd.J_b  # equality rows: bilateral normals and sticking tangents
    ev_min = equilibrated_min_eigenvalue(cd.A_nb, np.diag(cd.A_nb)) if cd.A_nb.size else 1.0
    if ev_min <= DEFINITE_RTOL:
        return [
            Certificate(
                "C8(Prop. 6)",
                src,
                None,
                float(ev_min),
                "premise fails: Assumption 1 (H_tᵀM⁻¹H_t ≻ 0, independent equality rows)",
                "A_c^st ≻ 0",
            )
        ]
    # on the data's scale: A_c^st divided by the unconstrained Delassus diagonal of its rows (a matrix that
    # is zero up to round-off is not "definite" relative to its own round-off eigenvalues)
    margin = equilibrated_min_eigenvalue(cd.A_c, np.einsum("ij,jk,ik->i", cd.J_u, cd.Minv, cd.J_u))
    pd = margin > DEFINITE_RTOL
    out = [
        Certificate(
            "C8(Prop. 6)",
            src + " (i)",
            pd,
            margin,
            (
                "A_c^st ≻ 0: the augmented sticking LCP (37) has a unique solution for every H_c^st (cones ignored)"
                if pd
                else f"A_c^st is not certified positive definite (its equilibrated smallest eigenvalue is at most "
                f"{DEFINITE_RTOL:g}): λ_n,u may be non-unique (Prop. 6(ii) still fixes ∇h λ modulo ker M_c^st⁻¹)"
            ),
            "A_c^st ≻ 0",
            {"A_c_st": cd.A_c},
        )
    ]
    Nu = cd.J_u
    deficit = matrix_rank(Nu) + matrix_rank(Ed) - matrix_rank(np.vstack([Nu, Ed]))
    trans = deficit == 0
    out.append(
        Certificate(
            "C8(Prop. 6 iii)",
            src + " (iii)",
            trans,
            -float(deficit),
            (
                "im ∇h_n,u ∩ im H_t = {0}: when the LCP is solvable the acceleration is unique"
                if trans
                else "im ∇h_n,u ∩ im H_t ≠ {0}: (iii) gives no uniqueness of the acceleration"
            ),
            "transversal normal and tangent images",
        )
    )
    return out


def _normal_cone_point(Tn: np.ndarray, Jn: np.ndarray, lam: np.ndarray, d: np.ndarray) -> np.ndarray | None:
    """``z = J_uᵀλ`` (λ clipped to >= 0) when it verifies, in NumPy, that ``-z ∈ im Tᵀ ∩ N_S`` is a nonzero element
    with ``dᵀz > 0``: ``z`` in the row space of T to :data:`VERIFY_RTOL` of each coordinate's terms
    ``(|T|ᵀ|y| + |J_u|ᵀλ)_j`` (y re-solved by least squares), and ``dᵀz`` above :data:`LP_VALUE_TOL` and above
    the round-off of its own terms ``|d|ᵀ(terms)``; else None."""
    lam = np.maximum(np.asarray(lam, dtype=float), 0.0)
    z = Jn.T @ lam
    y = np.linalg.lstsq(Tn.T, -z, rcond=None)[0]
    terms = np.abs(Tn).T @ np.abs(y) + np.abs(Jn).T @ lam
    if np.any(np.abs(Tn.T @ y + z) > VERIFY_RTOL * terms):
        return None
    dz = float(d @ z)
    if not (dz > LP_VALUE_TOL and dz > VERIFY_RTOL * float(np.abs(d) @ terms)):
        return None
    return z


def _separating_direction(Tn: np.ndarray, Jn: np.ndarray) -> np.ndarray | None:
    """A direction ``v`` proving ``im Tᵀ ∩ N_S = {0}`` without an LP (Gordan's alternative): ``T v = 0`` and
    ``J_u v > 0`` row by row (normalized rows ``Tn``, ``Jn``; ``v`` a unit vector), verified in NumPy, or None.

    For ``λ >= 0`` with ``1ᵀλ = 1`` and ``J_uᵀλ = Tᵀy`` (y of least norm, ``‖y‖ <= ‖J_uᵀλ‖ / σ <= 1 / σ`` with σ
    the smallest nonzero singular value of ``Tn``): ``λᵀ(J_u v) = yᵀ(T v)``, so ``min_i (J_u v)_i > ‖T v‖ / σ`` leaves
    no such λ, i.e. ``Λ = {0}`` (:func:`_separates`). ``T v`` is not exactly 0 in floating point: its computed norm, plus the round-off
    :data:`ROUND_OFF` of both products, is what the margin must exceed, and the margin must exceed
    :data:`LP_VALUE_TOL` (the LPs' own threshold). ``v`` is the least-norm solution of ``J_u Z w = 1`` on a basis Z of
    ``ker T`` (an SVD): e.g. lifting a body lying on the ground moves no contact tangentially and every contact
    away."""
    n = Tn.shape[1]
    _, sv, vt = np.linalg.svd(Tn, full_matrices=True)
    r = singular_value_rank(sv, Tn.shape)
    if r == n:
        return None  # im Tᵀ is every direction: no v
    Z = vt[r:].T
    w = np.linalg.lstsq(Jn @ Z, np.ones(Jn.shape[0]), rcond=None)[0]
    v = Z @ w
    return v if _separates(Tn, Jn, v, sv) else None


def _separates(Tn: np.ndarray, Jn: np.ndarray, v: np.ndarray, sv: np.ndarray | None = None) -> bool:
    """The NumPy check of :func:`_separating_direction`'s ``v`` (normalized here): ``min_i (J_u v)_i`` above
    ``‖T v‖ / σ`` plus the products' round-off, and above :data:`LP_VALUE_TOL`. ``σ`` is the smallest of the
    ``min(rows, n)`` singular values of ``Tn`` (``sv``: computed when not given), lowered by its own round-off
    (Weyl: :data:`ROUND_OFF` of the largest): a lower bound of every nonzero one, whatever rank rule is applied, so a
    nearly dependent T makes the bound large and the check fail (the LPs then decide)."""
    v = np.asarray(v, dtype=float)
    size = float(np.linalg.norm(v)) if v.shape == (Tn.shape[1],) else 0.0
    if not np.isfinite(size) or size == 0.0:
        return False
    v = v / size
    if sv is None:
        sv = np.linalg.svd(Tn, compute_uv=False)
    reach = 0.0
    if sv.size:
        low = float(sv[-1]) - ROUND_OFF * float(sv[0])
        if not low > 0.0:
            return False
        reach = (float(np.linalg.norm(Tn @ v)) + ROUND_OFF) / low
    return float((Jn @ v).min()) > max(LP_VALUE_TOL, reach + ROUND_OFF)


def _normal_row_in_image(Tn: np.ndarray, Jn: np.ndarray) -> np.ndarray | None:
    """A nonzero element ``z = J_uᵀλ`` of ``im Tᵀ ∩ (−N_S)`` found without an LP: the normal row ``J_u,i`` (``λ = e_i``)
    nearest ``im Tᵀ`` in one least-squares solve for all rows, verified by :func:`_normal_cone_point` along itself
    (in ``im Tᵀ`` coordinate by coordinate, ``dᵀz > 0``). It is found whenever some normal row lies in the row space
    of the tangent rows, e.g. when those span every direction (the humanoid lying: 28 tangent rows of rank 27 = n);
    None otherwise (the LPs decide)."""
    if not Jn.shape[0] or not Tn.shape[0]:
        return None
    Y = np.linalg.lstsq(Tn.T, Jn.T, rcond=None)[0]  # column i: the coefficients of J_u,i in the rows of T
    gap = np.abs(Tn.T @ Y - Jn.T).max(axis=0) / np.maximum(np.abs(Jn).max(axis=1), SCALE_FLOOR)
    i = int(np.argmin(gap))
    size = float(np.linalg.norm(Jn[i]))
    if size == 0.0:
        return None
    lam = np.zeros(Jn.shape[0])
    lam[i] = 1.0
    return _normal_cone_point(Tn, Jn, lam, Jn[i] / size)


def _one_lp(Tn: np.ndarray, Jn: np.ndarray) -> tuple[bool | None, np.ndarray | None]:
    """The one-LP test of :func:`image_meets_normal_cone` (normalized rows ``Tn``, ``Jn``): maximize ``1ᵀλ``
    subject to ``Tnᵀy + Jnᵀλ = 0``, ``λ >= 0``, ``1ᵀλ <= 1``.

    The multipliers ``Λ = {λ >= 0 : Jnᵀλ ∈ im Tnᵀ}`` form a cone and the intersection is ``Jnᵀ Λ``; the optimum is 1
    when Λ ≠ {0} and 0 when Λ = {0}. A zero optimum proven by the LP's dual bound (at most :data:`LP_VALUE_TOL`)
    proves Λ = {0}, hence the intersection {0}, whatever the rank of ``Jn``. A positive one stands only with its
    point ``z = Jnᵀλ`` verified nonzero and in ``im Tnᵀ`` (:func:`_normal_cone_point`, along ``d = z/‖z‖``). Returns
    (True, None), (False, z) or (None, None) when neither is proven (an LP failure, or ``λ ∈ ker Jnᵀ``: dependent
    rows), and the caller then runs the r + 1 LPs."""
    from scipy.optimize import linprog

    kt, ku = Tn.shape[0], Jn.shape[0]
    n = Jn.shape[1]
    Aeq = np.hstack([Tn.T, Jn.T])
    c = np.concatenate([np.zeros(kt), -np.ones(ku)])
    Aub = np.concatenate([np.zeros(kt), np.ones(ku)])[None, :]
    bub = np.ones(1)
    res = linprog(
        c, A_ub=Aub, b_ub=bub, A_eq=Aeq, b_eq=np.zeros(n), bounds=[(None, None)] * kt + [(0, None)] * ku, method="highs"
    )
    if res.status != 0:
        return None, None
    if -res.fun > LP_VALUE_TOL:
        lam = np.maximum(res.x[kt:], 0.0)
        z = Jn.T @ lam
        size = float(np.linalg.norm(z))
        if size == 0.0:
            return None, None
        z = _normal_cone_point(Tn, Jn, lam, z / size)
        return (False, z) if z is not None else (None, None)
    bound = lp_dual_bound(res, c, Aub, bub, Aeq, np.zeros(n), np.arange(kt + ku) >= kt)
    if bound is None or -bound > LP_VALUE_TOL:
        return None, None
    return True, None


def image_meets_normal_cone(
    T: np.ndarray, Ju: np.ndarray, *, scaling: np.ndarray | None = None
) -> tuple[bool | None, np.ndarray | None]:
    """Is ``im Tᵀ ∩ N_S = {0}`` with ``N_S = {-J_uᵀλ : λ >= 0}``?

    First, with no LP, a direction ``v`` with ``T v = 0``, ``J_u v > 0`` (:func:`_separating_direction`, Gordan's
    alternative: it proves {0}) or a normal row in the row space of T (:func:`_normal_row_in_image`: a verified
    nonzero element). Then one LP on the multipliers (:func:`_one_lp`: the cone ``Λ = {λ >= 0 : J_uᵀλ ∈ im Tᵀ}`` is {0} or not);
    it decides unless a nonzero ``λ ∈ Λ`` has ``J_uᵀλ = 0`` to round-off (dependent normal rows), so it runs only when
    the rows of J_u are independent at the rank rule. Otherwise (or when it proves nothing): maximize
    ``dᵀ(J_uᵀλ)`` subject to ``Tᵀy + J_uᵀλ = 0``, ``λ >= 0``, ``|J_uᵀλ| <= 1``, for each ``d`` of a positive spanning
    set of ``im J_uᵀ`` (the space the intersection lies in): an orthonormal basis ``q_1 … q_r`` of it (r = rank J_u,
    the rank rule of :func:`gaussqp.linalg.dense.singular_value_rank` on the normalized rows) and ``-Σ q_j``. The
    intersection is a convex cone K ⊂ im J_uᵀ; every optimum 0 puts all r + 1 directions in its polar, whose positive
    span is then the whole of im J_uᵀ, so K = {0}; a positive optimum is a nonzero element. One LP with independent
    rows (the humanoid's 14 normals: 1 where the r + 1 took 15), r + 1 otherwise, where the coordinate directions
    ±e_k took 2n.

    The LPs run in the Jacobi units of M (``scaling`` = S, the rows ``T S`` and ``J_u S`` normalized: S is
    invertible and row scalings do not change the images, so the answer is the same while no coordinate's
    unit or row's scale steers the box or the threshold). No LP answer is believed unchecked: a
    positive optimum stands only with its point verified in NumPy (:func:`_normal_cone_point`), a zero
    optimum only with its dual bound (:func:`gaussqp.linalg.polyhedral_cones.lp_dual_bound`) at most
    :data:`LP_VALUE_TOL`. Returns (trivial, witness z = -J_uᵀλ in the original coordinates); trivial is
    None (undecided) when an LP fails or its answer fails the check."""
    from scipy.optimize import linprog

    n = Ju.shape[1]
    kt, ku = T.shape[0], Ju.shape[0]
    if kt == 0 or ku == 0:
        return True, None
    s = np.ones(n) if scaling is None else np.asarray(scaling, dtype=float)
    Tn, Jn = normalize_rows(T * s[None, :]), normalize_rows(Ju * s[None, :])
    if _separating_direction(Tn, Jn) is not None:  # a verified proof of {0} without an LP
        return True, None
    z = _normal_row_in_image(Tn, Jn)  # a verified nonzero element without an LP
    if z is not None:
        return False, -z / s
    _, sv, vt = np.linalg.svd(Jn, full_matrices=False)
    r = singular_value_rank(sv, Jn.shape)
    if r == ku:
        trivial, z = _one_lp(Tn, Jn)
        if trivial is not None:
            return trivial, (None if z is None else -z / s)
    N = kt + ku
    Aeq = np.hstack([Tn.T, Jn.T])
    Aub = np.vstack([np.hstack([np.zeros((n, kt)), Jn.T]), np.hstack([np.zeros((n, kt)), -Jn.T])])
    bub = np.ones(2 * n)
    bounds = [(None, None)] * kt + [(0, None)] * ku
    nonneg = np.arange(N) >= kt
    Q = vt[:r]  # rows: an orthonormal basis of im J_uᵀ
    for d in [*Q, -Q.sum(axis=0)]:
        c = np.zeros(N)
        # d comes from an SVD (its error is normwise): an entry of J_u d at round-off of ‖J_u,i‖‖d‖ (a row orthogonal
        # to d) is 0, else the dual bound's check, which measures each reduced cost by its own |c_i|, fails on it
        jd = Jn @ d
        c[kt:] = -np.where(np.abs(jd) <= ROUND_OFF * np.linalg.norm(Jn, axis=1) * np.linalg.norm(d), 0.0, jd)
        res = linprog(c, A_ub=Aub, b_ub=bub, A_eq=Aeq, b_eq=np.zeros(n), bounds=bounds, method="highs")
        if res.status != 0:
            return None, None
        if -res.fun > LP_VALUE_TOL:
            z = _normal_cone_point(Tn, Jn, res.x[kt:], d)
            if z is None:
                return None, None
            return False, -z / s  # z̃ = S z: back to the original coordinates (a positive multiple of -J_uᵀλ')
        bound = lp_dual_bound(res, c, Aub, bub, Aeq, np.zeros(n), nonneg)
        if bound is None or -bound > LP_VALUE_TOL:
            return None, None
    return True, None


def unilateral_sticking_solvability(problem: ContactProblem) -> list[Certificate]:
    """Sticking Prop. 8 (E of (47) = {0} ⇒ (43) solvable) and Cor. 2 (M ≻ 0, im H_t ∩ N_S = {0})."""
    U = _unilateral_sticking(problem)
    if not U or len(problem.sliding) or len(problem.bilateral):
        return []
    Jn, Jt = _rows(problem)
    Ju = Jn[problem.unilateral]
    T = Jt[problem.tangent_rows(U)]
    R = as_dense(problem.mass_factor.R).reshape(-1, problem.n)
    try:
        xcone = cone_is_trivial(np.vstack([R, T]), Ju, problem.n)
    except UndecidedError as exc:
        return [Certificate("C8(Prop. 8)", f"{SRC} Prop. 8, (47)", None, float("nan"), f"undecided: {exc}", "E = {0}")]
    inj = matrix_rank(T) == T.shape[0]
    meet0, z = image_meets_normal_cone(T, Ju, scaling=problem.mass_factor.scaling)
    undecided = "undecided: an LP of im H_t ∩ N_S failed or its answer failed its NumPy check"
    other_fails = not xcone.trivial or not inj
    if meet0 is None and not other_fails:
        prop8 = Certificate(
            "C8(Prop. 8)",
            f"{SRC} Prop. 8, (47)",
            None,
            float("nan"),
            undecided,
            "set E of (47) is {0}",
            {"x_witness": xcone.witness, "normal_cone_witness": None},
        )
    else:
        e_trivial = xcone.trivial and inj and bool(meet0)
        prop8 = Certificate(
            "C8(Prop. 8)",
            f"{SRC} Prop. 8, (47)",
            e_trivial,
            xcone.margin if e_trivial else -1.0,
            (
                "E = {0}: the sticking MLCP (43) is solvable (cones ignored)"
                if e_trivial
                else "E ≠ {0}: Prop. 8(i) does not apply ("
                + ", ".join(
                    w
                    for w, bad in (
                        ("T_S ∩ ker M ∩ ker H_tᵀ ≠ {0}", not xcone.trivial),
                        ("ker H_t ≠ {0}", not inj),
                        ("im H_t ∩ N_S ≠ {0}", meet0 is False),
                    )
                    if bad
                )
                + ")"
            ),
            "set E of (47) is {0}",
            {"x_witness": xcone.witness, "normal_cone_witness": z},
        )
    out = [prop8]
    definite = problem.mass_factor.definite
    holds = definite and meet0
    out.append(
        Certificate(
            "C8(Cor. 2)",
            f"{SRC} Cor. 2",
            holds if definite and meet0 is not None else None,
            (float("nan") if definite and meet0 is None else 1.0 if holds else -1.0),
            (
                "M ≻ 0 and im H_t ∩ N_S = {0}: (43) is solvable with a unique acceleration"
                if holds
                else (
                    "premise fails: M is singular"
                    if not definite
                    else undecided
                    if meet0 is None
                    else "im H_t ∩ N_S ≠ {0}: Cor. 2 does not apply"
                )
            ),
            "im H_t ∩ N_S = {0}",
            {"normal_cone_witness": z},
        )
    )
    return out


def sticking_certificates(problem: ContactProblem) -> list[Certificate]:
    """Every C8 criterion whose premises the problem's class meets (empty without sticking contacts)."""
    if not len(problem.sticking):
        return []
    return (
        bilateral_sticking_criterion(problem)
        + augmented_lcp_criteria(problem)
        + unilateral_sticking_solvability(problem)
    )
