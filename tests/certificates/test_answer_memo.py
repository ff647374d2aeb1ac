"""Issue #28 part 2: residuals and backward error kept per answer (``gaussqp.model.memo.per_answer``): the same values
give the kept result, other values are computed afresh, and what is kept cannot be changed by a reader."""

from __future__ import annotations

import pytest

import gaussqp
from gaussqp.certificates import backward_error as be_mod
from gaussqp.certificates.backward_error import backward_error
from gaussqp.certificates.residuals import kkt_residuals
from gaussqp.problems import families
from gaussqp.settings import ANSWER_MEMO_SIZE


def test_kept_by_the_answers_values_and_shared_read_only(rng):
    p, *_ = families.planted(rng, n=6, m_b=1, m_u=4)
    sol = gaussqp.solve(p, crosscheck=False)
    a, ln, lt = sol.acceleration, sol.lambda_normal, sol.lambda_tangent
    r1 = kkt_residuals(p, a, ln, lt)
    r1["dynamics"] = 1e9  # a copy: the kept residuals are not changed by a reader
    r2 = kkt_residuals(p, a.copy(), ln.copy(), lt.copy())  # other arrays, the same values: the kept ones
    assert r2["dynamics"] < 1e-6
    b1 = backward_error(p, a.copy(), ln.copy(), lt.copy())
    assert backward_error(p, a, ln, lt) is b1
    with pytest.raises(ValueError):
        b1.delta_force[0] = 1.0  # shared: read-only
    # another answer (a moved by 1 %) is measured afresh, and measured worse
    worse = kkt_residuals(p, 1.01 * a, ln, lt)
    assert max(worse.values()) > max(r2.values())
    assert backward_error(p, 1.01 * a, ln, lt) is not b1


def test_only_the_last_answers_are_kept(rng, monkeypatch):
    p, *_ = families.planted(rng, n=5, m_b=0, m_u=3)
    sol = gaussqp.solve(p, crosscheck=False)
    calls = []
    real = be_mod._kept  # the end of a computation, by the compiled kernel or by NumPy
    monkeypatch.setattr(be_mod, "_kept", lambda *a: calls.append(1) or real(*a))
    answers = [(sol.acceleration * (1 + 1e-3 * k), sol.lambda_normal, sol.lambda_tangent) for k in range(4)]
    for ans in answers:
        backward_error(p, *ans)
    computed = len(calls)
    backward_error(p, *answers[-1])  # kept
    assert len(calls) == computed
    backward_error(p, *answers[-1 - ANSWER_MEMO_SIZE])  # beyond the memo: computed again
    assert len(calls) > computed
