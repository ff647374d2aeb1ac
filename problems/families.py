"""Generated problem families for tests and benchmarks.

- :func:`planted` — random problems with a *planted* KKT point: an acceleration a0 and
  multipliers λ0 (λ_u >= 0, complementary to a0) are drawn first, then drifts and F are
  set so that (a0, λ0) solves the problem. M may be singular, rows may be redundant.
- :func:`infeasible` — contradictory unilateral rows (a Farkas vector exists).
- :func:`unbounded` — singular M with a free descent direction in ker M.
- :func:`chain` — a planar chain of point masses on the ground with bilateral links, sparse,
  from a few to thousands of contacts.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gaussqp.model.problem import Contact, ContactProblem


def random_psd(rng: np.random.Generator, n: int, rank: int | None = None, cond: float = 1e3) -> np.ndarray:
    """Symmetric PSD n×n matrix of the given rank, nonzero eigenvalues log-spaced in [1, cond]."""
    rank = n if rank is None else rank
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    ev = np.zeros(n)
    ev[:rank] = np.exp(rng.uniform(0.0, np.log(cond), rank))
    M = (Q * ev) @ Q.T
    return 0.5 * (M + M.T)


def planted(
    rng: np.random.Generator,
    n: int = 5,
    m_b: int = 1,
    m_u: int = 3,
    rank: int | None = None,
    redundant: int = 0,
    active_fraction: float = 0.6,
    cond: float = 1e3,
    max_active: int | None = None,
) -> tuple[ContactProblem, np.ndarray, np.ndarray]:
    """A problem with a planted solution; returns (problem, a0, generalized force Jᵀλ0).

    ``redundant`` extra rows are random combinations of earlier rows of the same kind
    (bilateral combos of bilateral rows; unilateral combos of unilateral rows with
    nonnegative weights, so they stay consistent with the planted point). When M is
    singular, ker M is made to meet the constraints so the problem stays bounded: every
    kernel direction is blocked by a bilateral or by a pair of opposite unilateral rows.
    ``max_active`` caps the number of active unilateral rows (None: no cap; ``n - m_b`` keeps the
    planted point feasible in exact arithmetic, not only up to the round-off of the drifts).
    """
    M = random_psd(rng, n, rank, cond=cond)
    Jb = rng.standard_normal((m_b, n))
    Ju = rng.standard_normal((m_u, n))
    if rank is not None and rank < n:
        # block kernel directions: add rows that see ker M
        w, V = np.linalg.eigh(M)
        K = V[:, w < 1e-9 * max(w.max(), 1.0)]
        Jb = np.vstack([Jb, K.T + 0.1 * rng.standard_normal(K.T.shape)]) if K.size else Jb
    if redundant and Jb.shape[0]:
        Jb = np.vstack([Jb, rng.standard_normal((redundant, Jb.shape[0])) @ Jb])
    a0 = rng.standard_normal(n)
    active = rng.uniform(size=m_u) < active_fraction
    if max_active is not None:  # more active rows than the bilateral rows leave room for are consistent only up
        active[np.flatnonzero(active)[max(max_active, 0) :]] = False  # to the round-off of b = -J a0
    slack = np.where(active, 0.0, rng.uniform(0.1, 2.0, m_u))
    if redundant and m_u:
        C = rng.uniform(0.0, 1.0, (redundant, m_u))  # nonnegative combinations: implied constraints
        Ju = np.vstack([Ju, C @ Ju])
        slack = np.concatenate([slack, C @ slack])
        active = slack <= 0
    lam_u = np.where(active, rng.uniform(0.0, 3.0, Ju.shape[0]), 0.0)
    lam_b = rng.standard_normal(Jb.shape[0])
    b_b = -Jb @ a0
    b_u = -Ju @ a0 + slack
    J = np.vstack([Jb, Ju])
    lam = np.concatenate([lam_b, lam_u])
    F = J.T @ lam - M @ a0
    types = ["bilateral"] * Jb.shape[0] + ["unilateral"] * Ju.shape[0]
    p = ContactProblem.from_blocks(M, F, J, np.concatenate([b_b, b_u]), types, name="planted")
    return p, a0, J.T @ lam


def infeasible(rng: np.random.Generator, n: int = 4, gap: float = 1.0) -> ContactProblem:
    """Two opposite unilateral rows n a + b1 >= 0, -n a + b2 >= 0 with b1 + b2 = -gap < 0."""
    nrow = rng.standard_normal(n)
    extra = rng.standard_normal((2, n))
    J = np.vstack([nrow, -nrow, extra])
    b = np.array([0.3, -0.3 - gap, 1.0, 1.0])
    return ContactProblem.from_blocks(random_psd(rng, n), rng.standard_normal(n), J, b, "unilateral", name="infeasible")


def unbounded(rng: np.random.Generator, n: int = 4) -> ContactProblem:
    """Singular M whose kernel direction v is free (J v = 0) and Fᵀv < 0: F1 unbounded below."""
    M = random_psd(rng, n, n - 1)
    w, V = np.linalg.eigh(M)
    v = V[:, 0]
    Q = rng.standard_normal((2, n))
    J = Q - np.outer(Q @ v, v)  # rows orthogonal to v
    F = rng.standard_normal(n)
    F = F - (F @ v) * v - 1.0 * v
    return ContactProblem.from_blocks(M, F, J, np.zeros(2), ["bilateral", "unilateral"], name="unbounded")


def chain(
    n_bodies: int = 10,
    m: float = 1.0,
    g: float = 9.81,
    lift: float | None = None,
    duplicate_every: int = 0,
    seed: int = 0,
) -> ContactProblem:
    """Planar chain of point masses resting on the ground, linked horizontally (sparse).

    Body i has q = (x_i, y_i), contact y_i >= 0 (unilateral), and a bilateral link
    x_{i+1} - x_i = L. Some bodies are pulled up (``lift`` times their weight, random
    subset) so that contacts open; ``duplicate_every`` > 0 adds a second, identical ground
    contact every k bodies (hyperstatic, redundant rows).
    """
    rng = np.random.default_rng(seed)
    n = 2 * n_bodies
    M = sp.diags(np.full(n, m), format="csr")
    F = np.zeros(n)
    F[1::2] = m * g
    if lift is not None:
        pulled = rng.uniform(size=n_bodies) < 0.3
        F[1::2][pulled] -= lift * m * g
    rows, cols, vals, types = [], [], [], []
    r = 0

    def add_row(entries: list[tuple[int, float]], kind: str) -> None:
        nonlocal r
        for col, val in entries:
            rows.append(r)
            cols.append(col)
            vals.append(val)
        types.append(kind)
        r += 1

    for i in range(n_bodies):
        add_row([(2 * i + 1, 1.0)], "unilateral")
        if duplicate_every and i % duplicate_every == 0:
            add_row([(2 * i + 1, 1.0)], "unilateral")
    for i in range(n_bodies - 1):
        add_row([(2 * i + 2, 1.0), (2 * i, -1.0)], "bilateral")
    J = sp.csr_matrix((vals, (rows, cols)), shape=(r, n))
    return ContactProblem.from_blocks(M, F, J, np.zeros(r), types, name=f"chain_{n_bodies}")


def sticking(
    rng: np.random.Generator,
    n: int = 8,
    m_u: int = 3,
    m_b: int = 1,
    dimension: int = 3,
    rank: int | None = None,
    redundant: int = 0,
    mu: float = 0.5,
    mu_factor: float = 1.0,
    detach_fraction: float = 0.2,
) -> tuple[ContactProblem, np.ndarray, np.ndarray]:
    """All-sticking problems with a planted solution; returns (problem, a0, generalized force J^T λ0).

    ``m_u`` unilateral sticking contacts with random normal and d-1 tangent rows, ``m_b``
    frictionless bilateral rows; ``redundant`` extra sticking contacts copy earlier ones (same
    rows: hyperstatic). The planted (a0, λ0) is a KKT point of F1 with every active contact force
    strictly inside its cone for friction ``mu``; the problem carries ``mu * mu_factor``, so it
    is feasible by construction when ``mu_factor >= 1`` and may not be below. A fraction of the
    contacts detaches (positive normal acceleration, zero force). ``rank`` < n makes M singular
    (the planted KKT point keeps the problem bounded).
    """
    d1 = dimension - 1
    M = random_psd(rng, n, rank, cond=1e2)
    Nrows = rng.standard_normal((m_u, n))
    Trows = rng.standard_normal((m_u * d1, n))
    for k in range(redundant):
        j = int(rng.integers(0, m_u))
        Nrows = np.vstack([Nrows, Nrows[j]])
        Trows = np.vstack([Trows, Trows[j * d1 : (j + 1) * d1]])
    mu_ = Nrows.shape[0]
    B = rng.standard_normal((m_b, n))
    a0 = rng.standard_normal(n)
    detach = rng.uniform(size=mu_) < detach_fraction
    for k in range(m_u, mu_):  # a duplicate shares its original's activity
        detach[k] = detach[int(np.flatnonzero((Nrows[:m_u] == Nrows[k]).all(axis=1))[0])]
    slack = np.where(detach, rng.uniform(0.5, 1.5, mu_), 0.0)
    b_n = slack - Nrows @ a0
    b_t = -Trows @ a0
    b_b = -B @ a0
    lam_n = np.where(detach, 0.0, rng.uniform(0.5, 2.0, mu_))
    dirs = rng.standard_normal((mu_, d1))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    lam_t = (lam_n * mu * rng.uniform(0.0, 0.9, mu_))[:, None] * dirs
    lam_b = rng.standard_normal(m_b)
    gen0 = Nrows.T @ lam_n + Trows.T @ lam_t.ravel() + B.T @ lam_b
    F = gen0 - M @ a0
    contacts = [Contact("bilateral", normal=B[i], normal_drift=b_b[i]) for i in range(m_b)]
    contacts += [
        Contact(
            "unilateral",
            normal=Nrows[i],
            normal_drift=b_n[i],
            mode="sticking",
            friction=mu * mu_factor,
            tangent=Trows[i * d1 : (i + 1) * d1],
            tangent_drift=b_t[i * d1 : (i + 1) * d1],
        )
        for i in range(mu_)
    ]
    p = ContactProblem(
        M,
        F,
        contacts,
        dimension=dimension,
        name="sticking_planted",
        description="generated all-sticking problem with a planted solution",
    )
    return p, a0, gen0


def sticking_stack(
    rng: np.random.Generator, bodies: int, mu: float = 0.6, mass: float = 1.0, detach_fraction: float = 0.1
) -> tuple[ContactProblem, np.ndarray, np.ndarray]:
    """A sparse 3D all-sticking family for benchmarks: a stack of ``bodies`` point masses (3 dof each),
    contact k between body k-1 and body k (body -1 is the ground), each with a random orthonormal frame
    (normal, two tangents), unilateral and sticking. A planted solution as in :func:`sticking`: random a0,
    forces strictly inside the cones for ``mu``, a fraction of detaching contacts; ``F = Jᵀλ0 - M a0``.
    Rows are scipy.sparse (two 3-blocks per row), so the size reaches thousands of contacts."""
    n = 3 * bodies
    frames = np.linalg.qr(rng.standard_normal((bodies, 3, 3)))[0]
    rows_n, rows_t, cols_n, cols_t, vals_n, vals_t = [], [], [], [], [], []
    for k in range(bodies):
        nrm, t1, t2 = frames[k].T
        for sign, body in ((1.0, k), (-1.0, k - 1)):
            if body < 0:
                continue
            idx = list(range(3 * body, 3 * body + 3))
            rows_n += [k] * 3
            cols_n += idx
            vals_n += list(sign * nrm)
            for j, t in enumerate((t1, t2)):
                rows_t += [2 * k + j] * 3
                cols_t += idx
                vals_t += list(sign * t)
    Jn = sp.csr_matrix((vals_n, (rows_n, cols_n)), shape=(bodies, n))
    Jt = sp.csr_matrix((vals_t, (rows_t, cols_t)), shape=(2 * bodies, n))
    M = sp.diags(np.full(n, mass), format="csr")
    a0 = rng.standard_normal(n)
    detach = rng.uniform(size=bodies) < detach_fraction
    b_n = np.where(detach, rng.uniform(0.5, 1.5, bodies), 0.0) - Jn @ a0
    b_t = -(Jt @ a0)
    lam_n = np.where(detach, 0.0, rng.uniform(0.5, 2.0, bodies))
    dirs = rng.standard_normal((bodies, 2))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    lam_t = (lam_n * mu * rng.uniform(0.0, 0.9, bodies))[:, None] * dirs
    gen0 = Jn.T @ lam_n + Jt.T @ lam_t.ravel()
    F = gen0 - M @ a0
    p = ContactProblem.from_blocks(
        M,
        F,
        Jn,
        b_n,
        "unilateral",
        Jt,
        b_t,
        np.full(bodies, mu),
        "sticking",
        dimension=3,
        name="sticking_stack",
        description=f"{bodies} point masses stacked on 3D sticking contacts",
    )
    return p, a0, gen0


def box_corner_contacts(
    mode: str, friction: float, a: float = 0.5, b: float = 0.4, h: float = 0.3, slip=None
) -> list[Contact]:
    """The four coplanar bottom corners ``(±a, ±b, -h)`` of a box as 3D contacts, for coordinates
    (x, y, z, rx, ry, rz) about its centre of mass: normal row ``(e_z, r × e_z)``, tangent rows for e_x, e_y.
    The normal rows span three dimensions only (a hyperstatic support: the multipliers are not unique)."""

    def row(e: np.ndarray, r: np.ndarray) -> np.ndarray:
        return np.concatenate([e, np.cross(r, e)])

    ex, ey, ez = np.eye(3)
    out = []
    for sx in (1, -1):
        for sy in (1, -1):
            r = np.array([sx * a, sy * b, -h])
            out.append(
                Contact(
                    "unilateral",
                    normal=row(ez, r),
                    mode=mode,
                    friction=friction,
                    tangent=[row(ex, r), row(ey, r)],
                    slip=slip,
                )
            )
    return out
