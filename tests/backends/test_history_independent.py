"""``solve(p)`` is a function of ``p`` and its arguments alone (issue #25 item 3): the direct QP path had kept one
solver object per structure and re-solved it by ``update``, so an ill-conditioned problem came back ``inaccurate``
solved alone and ``solved`` after another problem of its structure (the object's state of the first problem)."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r"""
import json, sys
import numpy as np
import gaussqp

def generate(seed):  # the ill-conditioned family of the issue's sweep: cond(M) = 1e6, rows over 6e7
    rng = np.random.default_rng([5, seed])
    n = int(rng.integers(2, 9)); m = int(rng.integers(1, min(n, 6) + 1))
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    ev = np.exp(np.linspace(0, np.log(1e6), n)); rng.shuffle(ev)
    M = (Q * ev) @ Q.T; M = 0.5 * (M + M.T)
    rs = 10 ** rng.uniform(-6, 6, m) if rng.uniform() < 0.6 else np.ones(m)
    J = rng.standard_normal((m, n)) * rs[:, None]
    bil = rng.uniform(size=m) < 0.3
    active = bil | (rng.uniform(size=m) < 0.6)
    a0 = rng.standard_normal(n)
    lam = np.where(bil, rng.standard_normal(m), np.where(active, rng.uniform(0.2, 2.0, m), 0.0)) / rs
    b = -J @ a0 + np.where(active, 0.0, rng.uniform(0.2, 2.0, m) * rs)
    F = J.T @ lam - M @ a0
    return gaussqp.ContactProblem.from_blocks(M, F, J, b, ["bilateral" if x else "unilateral" for x in bil])

for seed in [int(s) for s in sys.argv[1:-1]]:
    gaussqp.solve(generate(seed))
s = gaussqp.solve(generate(int(sys.argv[-1])))
print(json.dumps({"status": s.status.value, "a": None if s.acceleration is None else s.acceleration.tolist()}))
"""


def _run(*seeds: int) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT, *map(str, seeds)], capture_output=True, text=True, check=True,
                         env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_same_problem_gets_the_same_answer_whatever_was_solved_before():
    alone = _run(31112)
    after = _run(31029, 31112)  # same structure (n = 6, m = 4) solved first
    assert alone == after
