"""The ill-conditioned family of issue #25's sweep 5: cond(M) 1e2…1e12, rows scaled over 1e±6, an active set known
by construction (shared by tests/certificates/test_certified_forces.py, tests/backends/test_history_independent.py and
benchmarks/verdict_sweep.py, whose seeds it reproduces)."""

from __future__ import annotations

import numpy as np

CONDS = [1e2, 1e4, 1e6, 1e8, 1e10, 1e12]


def generate(seed: int):
    """One problem of the family: M with eigenvalues spread over cond, rows scaled by 10^U(-6, 6), an active set
    known by construction (bilateral, active unilateral with λ > 0, inactive with slack > 0):
    ``(M, F, J, b, bilateral, active)``."""
    return generate_with_meta(seed)[:6]


def generate_with_meta(seed: int):
    """:func:`generate` and a dict of what was drawn (cond, sizes, the rows' scale spread)."""
    rng = np.random.default_rng([5, seed])
    cond = CONDS[seed % len(CONDS)]
    n = int(rng.integers(2, 9))
    m = int(rng.integers(1, min(n, 6) + 1))
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    ev = np.exp(np.linspace(0, np.log(cond), n))
    rng.shuffle(ev)
    M = (Q * ev) @ Q.T
    M = 0.5 * (M + M.T)
    scales_on = rng.uniform() < 0.6
    rs = 10 ** rng.uniform(-6, 6, m) if scales_on else np.ones(m)
    J = rng.standard_normal((m, n)) * rs[:, None]
    bil = rng.uniform(size=m) < 0.3
    active = bil | (rng.uniform(size=m) < 0.6)
    a0 = rng.standard_normal(n)
    lam = np.where(bil, rng.standard_normal(m), np.where(active, rng.uniform(0.2, 2.0, m), 0.0)) / rs
    slack = np.where(active, 0.0, rng.uniform(0.2, 2.0, m) * rs)
    b = -J @ a0 + slack
    F = J.T @ lam - M @ a0
    meta = {
        "cond": cond,
        "n": n,
        "m": m,
        "row_scale_spread": float(rs.max() / rs.min()),
        "scaled_rows": bool(scales_on),
        "m_bil": int(bil.sum()),
    }
    return M, F, J, b, bil, active, meta
