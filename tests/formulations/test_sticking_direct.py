"""F4/F5's program handed to Clarabel in its standard form (issue #15: formulations/sticking_conic.py::_direct) against
its definition, the cvxpy program: every shipped sticking problem and generated ones (singular M, redundant rows,
infeasible, 2D and 3D, bilateral sticking contacts with their sign patterns), the disks and both polygons."""

from __future__ import annotations

import subprocess
import sys
import tempfile

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.formulations import sticking_conic
from gaussqp.problems import families

ROUTES = ("sticking_socp", "facetized_inner", "facetized_outer")


def _cases():
    out = [(n, problems.load(n)) for n in problems.names() + problems.real_names() if len(problems.load(n).sticking)]
    rng = np.random.default_rng(11)
    for k, kw in enumerate(
        [
            dict(),
            dict(rank=5),
            dict(redundant=2),
            dict(mu_factor=0.3),
            dict(dimension=2),
            dict(m_b=2, redundant=1, rank=6),
        ]
    ):
        p, *_ = families.sticking(rng, n=8, m_u=4, **kw)
        out.append((f"generated{k}", p))
    out.append(("stack", families.sticking_stack(np.random.default_rng(2), 30)[0]))
    return out


CASES = _cases()


def _solve(p, route, direct: bool, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(sticking_conic, "PARAM_ENTRIES_MAX", -1)  # every problem takes the constant-data branch
        # the conic program itself is compared: F4's active-set answer, tried first, is switched off
        m.setattr(type(gaussqp.get_formulation(route)), "active_set_first", False)
        if not direct:
            m.setattr(sticking_conic, "DIRECT_CONIC_BACKENDS", ())
        return gaussqp.get_formulation(route).solve(p)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name, p", CASES, ids=[c[0] for c in CASES])
def test_direct_equals_the_cvxpy_program(name, p, route, monkeypatch):
    if route != "sticking_socp" and p.dimension > 3:
        pytest.skip("no polygons beyond d = 3")
    fast, slow = _solve(p, route, True, monkeypatch), _solve(p, route, False, monkeypatch)
    assert fast.status == slow.status, (fast.message, slow.message)
    assert fast.certified == slow.certified
    assert fast.extras["attempts"][0]["backend"].get("direct") is True  # the direct form was the one that ran
    # the same program: the same outcome per sign pattern and the same route (a wrong direct form is caught by the
    # two-stage route downstream, which would hide it in the final answer alone)
    assert [a["status"] for a in fast.extras["attempts"]] == [a["status"] for a in slow.extras["attempts"]]
    assert fast.route == slow.route
    if fast.acceleration is not None and slow.acceleration is not None:
        scale = max(1.0, float(np.abs(slow.acceleration).max()))
        assert np.abs(fast.acceleration - slow.acceleration).max() <= 1e-6 * scale
        fscale = max(1.0, float(np.abs(slow.generalized_force).max()))
        assert np.abs(fast.generalized_force - slow.generalized_force).max() <= 1e-6 * fscale


def test_large_sparse_solve_does_not_import_cvxpy():
    # the direct paths (F4 here, F1 for the cross-check) decide their backend without cvxpy, whose import is ~1 s
    code = (
        "import sys, numpy as np, gaussqp; from gaussqp.problems import families; "
        "p, *_ = families.sticking_stack(np.random.default_rng(0), 600); s = gaussqp.solve(p); "
        "print(s.status, s.certified, 'cvxpy' in sys.modules)"
    )
    # run outside the source tree: a clean clone's gaussqp/ (without the installed gaussqp.problems) would shadow the
    # installed package on ``python -c``'s sys.path
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir()
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["solved", "True", "False"]
