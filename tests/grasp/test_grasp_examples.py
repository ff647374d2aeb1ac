"""The grasp examples (problems/grasps.py) and their shipped files (problems/data/grasps/*.json): every example
loads, round-trips through JSON, carries its provenance, and its data are what its docstring says; the hand and
dynamic verdicts it states hold. (Closure verdicts of the grasp closure checks are listed in ``EXPECTED``.)"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

import gaussqp.grasp as gg
from gaussqp.grasp.hand import dynamic_check, hand_closure, hand_equilibrium
from gaussqp.problems import grasps as E

ROOT = Path(__file__).resolve().parents[2]
NAMES = sorted(E.EXAMPLES)


def same_numbers(x, y) -> bool:
    """The same array within round-off of its largest entry: the builders compute with BLAS, whose kernels round
    differently from machine to machine (the files were written on one)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    scale = max(float(np.abs(x).max(initial=0.0)), float(np.abs(y).max(initial=0.0)))
    return x.shape == y.shape and bool(np.all(np.abs(x - y) <= 1e-14 * scale))


def same_document(x, y) -> bool:
    """Two JSON documents equal, their numeric arrays within round-off (:func:`same_numbers`)."""
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(same_document(x[k], y[k]) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        try:
            return same_numbers(np.array(x, dtype=float), np.array(y, dtype=float))
        except (TypeError, ValueError):  # not an array of numbers
            return len(x) == len(y) and all(same_document(a, b) for a, b in zip(x, y))
    return x == y


def same(a: gg.Grasp, b: gg.Grasp):
    assert a.name == b.name and a.dimension == b.dimension and a.m == b.m
    assert a.torque_scale == pytest.approx(b.torque_scale, rel=1e-15)
    assert same_numbers(a.grasp_map(False), b.grasp_map(False))
    assert (a.wrench is None) == (b.wrench is None)
    if a.wrench is not None:
        assert same_numbers(a.wrench, b.wrench)
    for ca, cb in zip(a.contacts, b.contacts):
        assert (ca.kind, ca.friction, ca.torsional_friction) == (cb.kind, cb.friction, cb.torsional_friction)
    assert (a.hand is None) == (b.hand is None)
    if a.hand is not None:
        for k in ("jacobian", "torque_limits", "mass_matrix", "force"):
            assert same_numbers(getattr(a.hand, k), getattr(b.hand, k)), k


def test_every_example_has_its_file_and_the_files_are_the_examples():
    assert E.names() == NAMES
    assert set(E.EXPECTED) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_file_loads_and_equals_the_builder(name):
    built, shipped = E.EXAMPLES[name](), gg.load(E.path(name))
    same(built, shipped)
    same(shipped, gg.loads(gg.dumps(shipped)))  # round trip
    doc = json.loads(E.path(name).read_text(encoding="utf-8"))
    assert same_document(doc, json.loads(json.dumps(E.document(name))))  # regenerated files are current
    assert doc["source"] == f"problems/grasps.py::{name}"
    assert doc["parameters"]["expected"] == E.EXPECTED[name]
    builder = E.parallel_jaw if name.startswith("parallel_jaw") else E.EXAMPLES[name]
    assert "Expected" in builder.__doc__  # where it comes from and what is expected
    if "finger" in name:
        assert "sticking paper ex." in builder.__doc__.lower()
    M = E.object_mass_matrix(name)
    assert (M is None) == (built.hand is None)
    if M is not None:
        assert np.allclose(doc["parameters"]["object_mass_matrix"], M)
        assert np.all(np.linalg.eigvalsh(M) > 0)


def test_the_grasp_files_are_package_data():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"data/grasps/*.json"' in text


@pytest.mark.parametrize("name", [n for n in NAMES if E.EXPECTED[n]["dynamic"] is not None])
def test_hand_verdicts_as_documented(name):
    gr = E.EXAMPLES[name]()
    exp = E.EXPECTED[name]
    eq = hand_equilibrium(gr)
    assert eq.holds is exp["hand_equilibrium"] and eq.certified
    # with every torque limit > 0 the closure under limits is force closure (gaussqp/grasp/hand.py docstring)
    cl = hand_closure(gr)
    assert cl.holds is exp["force_closure"] and cl.certified
    dyn = dynamic_check(gr, object_mass_matrix=E.object_mass_matrix(name))
    assert dyn.holds is exp["dynamic"] and dyn.certified and dyn.margin > 0
    assert 0 < dyn.value["mu_min"] <= min(c.friction for c in gr.contacts)


def _strictly_positive_kernel(G: np.ndarray) -> float:
    """max t: G x = 0, x >= t, Σx = 1 (HiGHS), an independent form-closure LP on frictionless wrenches."""
    w, m = G.shape
    c = np.zeros(m + 1)
    c[-1] = -1
    Aeq = np.zeros((w + 1, m + 1))
    Aeq[:w, :m], Aeq[w, :m] = G, 1
    beq = np.zeros(w + 1)
    beq[w] = 1
    r = linprog(
        c,
        A_ub=np.hstack([-np.eye(m), np.ones((m, 1))]),
        b_ub=np.zeros(m),
        A_eq=Aeq,
        b_eq=beq,
        bounds=[(None, None)] * (m + 1),
        method="highs",
    )
    assert r.status == 0
    x = r.x[:m]
    assert np.linalg.norm(G @ x) < 1e-9
    return float(-r.fun)


def test_seven_contact_fixture_data_positively_span_the_wrench_space():
    gr = E.fixture_seven()
    G = gr.grasp_map(True)
    assert G.shape == (6, 7) and np.linalg.matrix_rank(G) == 6
    assert all(c.kind == "frictionless" for c in gr.contacts)
    assert _strictly_positive_kernel(G) > 0.1
    # each contact is on a face of the cube with the face's inward normal
    for c in gr.contacts:
        k = int(np.argmax(np.abs(c.normal)))
        assert abs(c.position[k]) == 1.0 and np.sign(c.position[k]) == -np.sign(c.normal[k])


def test_six_contact_fixture_data_cannot_be_form_closure():
    G = E.fixture_six().grasp_map(True)
    assert G.shape == (6, 6) and np.linalg.matrix_rank(G) == 6  # only x = 0 balances: no positive internal force
    z = np.linalg.svd(G)[0][:, -1]
    assert np.linalg.norm(G.T @ z) > 0.1  # full rank: the certificate is a dual direction, not a kernel vector


def test_spatial_fingers_have_the_documented_kinematics():
    p, J = E.finger_jacobian((0.3, 0.7, -1.1), 0.06, 0.05)
    h = 1e-7
    for k in range(3):
        q = np.array([0.3, 0.7, -1.1])
        q[k] += h
        assert np.allclose((E.finger_jacobian(q, 0.06, 0.05)[0] - p) / h, J[:, k], atol=1e-6)
    gr = E.sphere_three_fingers()
    assert gr.hand.jacobian.shape == (9, 9) and np.linalg.matrix_rank(gr.hand.jacobian) == 9
    assert np.allclose([np.linalg.norm(c.position) for c in gr.contacts], 0.05)
    box = E.box_four_fingers()
    assert box.m == 4 and box.hand.jacobian.shape == (12, 12)
