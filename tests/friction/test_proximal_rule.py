"""The proximal rounds' second σ rule (``solve_proximal(sigma_per_residual=...)``,
:data:`~gaussqp.settings.COULOMB_PROX_SIGMA_PER_RESIDUAL`): after a converged round σ is set from the residual, as
Siconos's PROX does, instead of divided by :data:`~gaussqp.settings.COULOMB_PROX_SIGMA_FACTOR`; the route tries it
last, from zero, when its rounds stall from both their starts. Checked on a chain of the held-out set
(``tests/data/generated/chain-s3-i0006-m48.hdf5``, NOTICE.md: W of rank 86 for 144 unknowns, μ = 0.8), where the
rounds stall between 2e-7 and 4e-6 of ‖q‖ from both starts and the second rule converges."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gaussqp.certificates.natural_map import law_measure
from gaussqp.formulations import coulomb
from gaussqp.friction.compiled import kernels
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.friction.proximal_newton import solve_proximal
from gaussqp.settings import (
    COULOMB_NN_ACCEPT_RTOL,
    COULOMB_PROX_SIGMA_FACTOR,
    COULOMB_PROX_SIGMA_MAX,
    COULOMB_PROX_SIGMA_MIN,
    COULOMB_PROX_SIGMA_PER_RESIDUAL,
    COULOMB_PROX_WORK_MAX,
    COULOMB_RESIDUAL_RTOL,
)

ROOT = Path(__file__).resolve().parents[2]
RULE = "zero, σ from the residual"


@pytest.fixture(scope="module")
def chain():
    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py (pip install 'gaussqp[fclib]')")
    from gaussqp.io import fclib

    kernels()  # loaded now when installed: the route's work must not depend on the tests before (test_last_rounds)
    cd = coulomb.condense_sparse(fclib.load(ROOT / "tests" / "data" / "generated" / "chain-s3-i0006-m48.hdf5"))
    return cd.W, cd.q, cd.mu


def test_sigma_follows_the_residual_after_each_converged_round(chain):
    """With the rule, every round after a converged inner solve runs with σ = k · (the residual of the centre after
    that round: one of the residuals met so far), never the divided σ; without it the rounds stall here."""
    W, q, mu = chain
    k = COULOMB_PROX_SIGMA_PER_RESIDUAL
    out = solve_proximal(W, q, mu, 3, target=COULOMB_NN_ACCEPT_RTOL, anderson=0, sigma_per_residual=k)
    assert out.converged and out.residual <= COULOMB_NN_ACCEPT_RTOL
    met = [law_measure(natural_map_residual(np.zeros_like(q), q, q, mu, 3))]  # the first centre, r = 0 (u = q)
    checked = failed = 0
    for before, after in zip(out.history, out.history[1:]):
        met.append(before["residual"])
        if before["inner_reason"] == "converged":
            assert after["sigma"] in {max(COULOMB_PROX_SIGMA_MIN, k * x) for x in met}
            assert after["sigma"] <= k * max(met)  # (never the divided σ of the other rule: 1, 0.1, ... here)
            checked += 1
        else:  # a failed inner solve raises σ as the other rule does
            assert after["sigma"] == min(COULOMB_PROX_SIGMA_MAX, before["sigma"] * COULOMB_PROX_SIGMA_FACTOR)
            failed += 1
    assert checked >= 3 and failed >= 1
    plain = solve_proximal(W, q, mu, 3, target=COULOMB_NN_ACCEPT_RTOL)  # the route's rule, Anderson's acceleration on
    assert not plain.converged and plain.residual > 10 * COULOMB_NN_ACCEPT_RTOL


def test_the_route_tries_the_rule_last_and_it_certifies_the_chain(chain, monkeypatch):
    """The route's rounds: from the Newton's best point, from zero (both stall), then from zero with σ from the
    residual, which converges; the three attempts reported, their work counted within one budget, and the answer
    within the certificate's bound by the judge's measure."""
    W, q, mu = chain
    real = coulomb.solve_proximal
    calls: list = []

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append((kwargs.get("sigma_per_residual"), out))
        return out

    monkeypatch.setattr(coulomb, "solve_proximal", spy)
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    attempts = ans.proximal["attempts"]
    assert [a["start"] for a in attempts] == ["newton best", "zero", RULE]
    assert [a["reason"] for a in attempts] == ["stalled", "stalled", "converged"]
    assert [rule for rule, _ in calls] == [None, None, COULOMB_PROX_SIGMA_PER_RESIDUAL]
    assert sum(a["iterations"] for a in attempts) == ans.proximal["iterations"] <= COULOMB_PROX_WORK_MAX
    assert ans.path == "proximal newton" and np.array_equal(ans.r, calls[-1][1].r)
    assert law_measure(natural_map_residual(ans.r, ans.u, q, mu, 3)) <= COULOMB_RESIDUAL_RTOL


def test_the_rule_does_not_run_where_the_rounds_converge(chain, monkeypatch):
    """Where the rounds from their first start converge (here: the chain's answer given as the Newton's best point),
    the rule's attempt is never made."""
    W, q, mu = chain
    solved = coulomb.solve_mode_free(W, q, mu, 3)
    real = coulomb.solve_proximal
    rules: list = []

    def spy(*args, **kwargs):
        rules.append(kwargs.get("sigma_per_residual"))
        return real(*args, **kwargs)

    monkeypatch.setattr(coulomb, "solve_proximal", spy)
    best, report = coulomb._proximal_rounds(
        W, q, mu, 3, (("newton best", solved.r), ("zero", None), (RULE, None, COULOMB_PROX_SIGMA_PER_RESIDUAL))
    )
    assert best.residual <= COULOMB_NN_ACCEPT_RTOL and rules == [None]
    assert [a["start"] for a in report["attempts"]] == ["newton best"]
