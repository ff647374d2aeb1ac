"""gaussqp/1 JSON and NPZ forms: defaults, sparse triplets, lossless round trips."""

import json

import numpy as np
import scipy.sparse as sp

import gaussqp
from gaussqp import problems
from gaussqp.problem import Contact, ContactProblem
from gaussqp.problems import families


def test_defaults():
    p = gaussqp.loads('{"format": "gaussqp/1", "mass_matrix": [[2, 0], [0, 2]], "force": [0, 19.62],'
                      ' "contacts": [{"type": "unilateral", "normal": [0, 1]}]}')
    assert p.name == "" and p.dimension == 2
    assert p.normal_drift[0] == 0.0 and p.friction[0] == 0.0 and p.modes[0] == "frictionless"
    assert not p.has_tangent[0]


def test_sparse_triplets_and_sparse_vectors():
    doc = {"format": "gaussqp/1", "name": "s", "dimension": 2,
           "mass_matrix": {"shape": [3, 3], "row": [0, 1, 2, 2], "col": [0, 1, 2, 2], "data": [1, 1, 0.5, 0.5]},
           "force": {"shape": [3], "index": [1], "data": [9.81]},
           "contacts": [{"type": "unilateral", "normal": {"shape": [3], "index": [1], "data": [1.0]}}]}
    p = gaussqp.loads(json.dumps(doc))
    assert sp.issparse(p.M) and p.M[2, 2] == 1.0  # duplicates summed
    np.testing.assert_array_equal(p.contact(0).normal, [0.0, 1.0, 0.0])


def _same(p, q):
    assert gaussqp.dumps(p) == gaussqp.dumps(q)


def test_json_npz_round_trip_all_shipped(tmp_path):
    for name in problems.names():
        p = problems.load(name)
        q = gaussqp.loads(gaussqp.dumps(p))
        _same(p, q)
        gaussqp.save_npz(q, tmp_path / f"{name}.npz")
        _same(p, gaussqp.load_npz(tmp_path / f"{name}.npz"))


def test_round_trip_with_friction_fields_and_3d(tmp_path):
    c = [Contact("unilateral", normal=[0, 0, 1, 0, 0, 0], normal_drift=0.25, friction=0.4, mode="sliding",
                 tangent=np.eye(6)[:2], tangent_drift=[0.1, -0.2], slip=[3.0, 4.0]),
         Contact("bilateral", normal=[1, 0, 0, 0, 0, 0], friction=0.2, mode="sticking", tangent=np.eye(6)[3:5]),
         Contact("unilateral", normal=[0, 1, 0, 0, 0, 0])]
    p = ContactProblem(np.diag([1, 1, 1, 0.1, 0.1, 0.1]), np.arange(6.0), c, dimension=3, name="f3d",
                       description="round trip")
    np.testing.assert_allclose(p.slip[0], [0.6, 0.8])  # normalized
    for path in (tmp_path / "a.json", tmp_path / "a.npz"):
        gaussqp.dump(p, path)
        _same(p, gaussqp.load(path))


def test_round_trip_large_sparse(tmp_path):
    p = families.chain(500, lift=1.5, duplicate_every=7)
    gaussqp.save_npz(p, tmp_path / "chain.npz")
    q = gaussqp.load_npz(tmp_path / "chain.npz")
    assert sp.issparse(q.M) and sp.issparse(q.J_n)
    assert (abs(q.J_n - p.J_n)).max() == 0 and np.array_equal(q.types, p.types)
    r = gaussqp.loads(gaussqp.dumps(q))
    assert (abs(r.M - p.M)).max() == 0
