"""``solve(p)`` is a function of ``p`` and its arguments alone (issue #25 item 3): the direct QP path had kept one
solver object per structure and re-solved it by ``update``, so an ill-conditioned problem came back ``inaccurate``
solved alone and ``solved`` after another problem of its structure (the object's state of the first problem)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import json, sys
import numpy as np
import gaussqp

sys.path.insert(0, sys.argv[1])
from illcond_family import generate as family


def generate(seed):  # seed 31112: cond(M) = 1e6, rows over 6e7, n = 6, m = 4; 31029 has the same structure
    M, F, J, b, bil, active = family(seed)
    return gaussqp.ContactProblem.from_blocks(M, F, J, b, ["bilateral" if x else "unilateral" for x in bil])

for seed in [int(s) for s in sys.argv[2:-1]]:
    gaussqp.solve(generate(seed))
s = gaussqp.solve(generate(int(sys.argv[-1])))
print(json.dumps({"status": s.status.value, "a": None if s.acceleration is None else s.acceleration.tolist()}))
"""


def _run(*seeds: int) -> dict:
    tests = str(Path(__file__).resolve().parents[1])
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, tests, *map(str, seeds)],
        capture_output=True,
        text=True,
        check=True,
        env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_same_problem_gets_the_same_answer_whatever_was_solved_before():
    alone = _run(31112)
    after = _run(31029, 31112)  # same structure (n = 6, m = 4) solved first
    assert alone == after
