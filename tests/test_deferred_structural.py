"""The structural certificates (C1–C8) and the friction bounds (C7) wait for their first read (``Solution.defer``,
issue #28: certificates that cost what they must). A solution's status, certification and answer do not rest on them;
reading them, or anything that shows them, computes them once, and they are then what an eager computation gives."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import threading

import numpy as np
import pytest

import gaussqp
import gaussqp.dispatch as dispatch
from gaussqp import problems
from gaussqp.certificates.friction_bounds import friction_bounds
from gaussqp.certificates.structural import structural_certificates


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = dispatch.structural_certificates

    def counting(problem, candidate=None):
        calls.append(candidate)
        return real(problem, candidate)

    monkeypatch.setattr(dispatch, "structural_certificates", counting)
    return calls


def _ids(certs):
    return [(c.id, c.holds) for c in certs]


def test_the_answer_is_read_without_them(counted):
    p = problems.load("real/humanoid_lying")
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified
    _ = (sol.acceleration, sol.lambda_normal, sol.unique, sol.sticking.margin, sol.crosscheck.agree, repr(sol))
    _ = sol.certified_quantities, sol.certificate("kkt_residuals"), sol.summary()
    assert counted == [] and "structural" not in sol.timing.detail


def test_the_first_read_computes_them_once_as_an_eager_computation_would(counted):
    p = problems.load("real/humanoid_lying")
    sol = gaussqp.solve(p)
    certify, total = sol.timing.certify, sol.timing.total
    route_ids = [c.id for c in sol.__dict__["certificates"]]
    assert sol.certificate("C5").holds  # a structural id settles
    assert len(counted) == 1 and np.array_equal(counted[0], sol.acceleration)
    eager = structural_certificates(p, sol.acceleration)
    assert _ids(sol.certificates) == _ids(eager) + [(i, sol.certificate(i).holds) for i in route_ids]
    # the same certificates, margins and data as an eager computation (JSON, evidence included)
    assert [c.as_dict() for c in sol.certificates[: len(eager)]] == [c.as_dict() for c in eager]
    assert [b.as_dict() for b in sol.friction_bounds] == [b.as_dict() for b in friction_bounds(p)]
    # timed when they ran, after the call: in neither certify nor total
    assert sol.timing.detail["structural"] > 0 and (sol.timing.certify, sol.timing.total) == (certify, total)
    _ = sol.certificates, sol.friction_bounds, sol.as_dict()
    assert len(counted) == 1


@pytest.mark.parametrize(
    "read",
    [
        lambda s: s.certificates,
        lambda s: s.friction_bounds,
        lambda s: json.dumps(s.as_dict()),
        lambda s: s.summary(certificates=True),
        copy.copy,
        copy.deepcopy,
        lambda s: pickle.loads(pickle.dumps(s)),
        lambda s: dataclasses.replace(s, message="x"),
    ],
)
def test_every_way_of_showing_them_computes_them(counted, read):
    sol = gaussqp.solve(problems.load("real/humanoid_lying"))
    read(sol)
    assert len(counted) == 1
    assert sol.certificate("C1") is not None and len(counted) == 1


def test_concurrent_first_reads_compute_them_once(counted):
    sol = gaussqp.solve(problems.load("real/humanoid_lying"))
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(len(sol.certificates))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(counted) == 1  # computed once, whichever thread read first
    assert seen == [len(sol.certificates)] * 8


def test_an_error_reaches_the_reader_and_leaves_them_deferred(monkeypatch):
    sol = gaussqp.solve(problems.load("block_pendulum"))
    real = dispatch.structural_certificates
    failures = []

    def failing_once(problem, candidate=None):
        if not failures:
            failures.append(1)
            raise RuntimeError("C1 failed")
        return real(problem, candidate)

    monkeypatch.setattr(dispatch, "structural_certificates", failing_once)
    with pytest.raises(RuntimeError, match="C1 failed"):
        _ = sol.certificates
    assert sol.certificate("C1") is not None  # the next read computes them


def test_assigning_runs_them_first_and_keeps_the_value(counted):
    sol = gaussqp.solve(problems.load("real/humanoid_lying"))
    sol.certificates = []
    assert len(counted) == 1 and sol.certificates == [] and sol.friction_bounds  # the bounds were filled first


def test_frictionless_problems_get_no_friction_bounds():
    p = problems.load("real/humanoid_lying")
    k = p.m * (p.dimension - 1)
    frictionless = p.with_blocks(
        modes=["frictionless"] * p.m, J_t=np.zeros((k, p.n)), tangent_drift=np.zeros(k), friction=np.zeros(p.m)
    )
    sol = gaussqp.solve(frictionless)
    assert "_deferred" in vars(sol) and vars(sol)["_deferred"] is not None  # deferred for frictionless problems too
    assert sol.certificate("C2") is not None and sol.friction_bounds is None
