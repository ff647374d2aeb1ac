"""Bounded fuzz tests of the input layer (issue 9): mutated shipped problems, through each loader.

Every outcome must be a valid :class:`ContactProblem` or a :class:`gaussqp.errors.GaussQPError`,
never another exception; an accepted problem must survive the structural calls
(``classify``, ``equalities``, ``inequalities``) and :func:`gaussqp.check` without a bare exception. The long campaign
(>= 100,000 inputs per loader) is ``benchmarks/fuzz_campaign.py``.
"""

from __future__ import annotations

import copy
import io
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gaussqp
from gaussqp import errors
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.problems import DATA

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from fuzz_campaign import document_paths  # noqa: E402  (one walker for the campaign and this test)

DOCS = [json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))]
SHIPPED = [gaussqp.loads(json.dumps(d)) for d in DOCS]
FUZZ = settings(
    max_examples=200,
    deadline=5000,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _outcome(build) -> str:
    """Run ``build``; a GaussQPError is fine, anything else but a valid problem fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            p = build()
        except errors.GaussQPError as exc:
            assert str(exc)
            return "typed"
        assert isinstance(p, ContactProblem)
        p.classify()
        p.equalities
        p.inequalities
        try:  # a typed refusal is allowed here (e.g. a friction bound that does not apply), a bare one not
            gaussqp.check(p)
        except errors.GaussQPError:
            pass
    return "accepted"


# ---------------------------------------------------------------------- JSON

KEYS = ["shape", "index", "data", "row", "col", "type", "normal", "mode", "slip", "friction", "format", "nromal"]
LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-3, max_value=3),
    st.text(max_size=4),
    st.sampled_from(["unilateral", "bilateral", "sliding", "sticking", "gaussqp/1"]),
)
VALUE = st.recursive(
    LEAF,
    lambda ch: st.one_of(st.lists(ch, max_size=4), st.dictionaries(st.sampled_from(KEYS), ch, max_size=4)),
    max_leaves=12,
)
EDIT = st.tuples(st.integers(min_value=0, max_value=10**6), st.sampled_from(["replace", "delete", "append"]), VALUE)


def _edit(doc, pick: int, op: str, value) -> None:
    paths = [p for p in document_paths(doc) if p]
    path = paths[pick % len(paths)]
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    node = parent[path[-1]]
    if op == "delete":
        del parent[path[-1]]
    elif op == "append" and isinstance(node, list):
        node.append(value)
    else:
        parent[path[-1]] = value


@FUZZ
@given(
    which=st.integers(0, len(DOCS) - 1),
    edits=st.lists(EDIT, min_size=1, max_size=3),
    cut=st.one_of(st.none(), st.integers(min_value=0)),
    junk=st.sampled_from(["", "[" * 5000, "1" * 400, "}", "true"]),
)
def test_mutated_json_gives_a_problem_or_a_typed_error(which, edits, cut, junk):
    doc = copy.deepcopy(DOCS[which])
    for pick, op, value in edits:
        _edit(doc, pick, op, value)
    text = json.dumps(doc)
    if cut is not None:
        i = cut % (len(text) + 1)
        text = text[:i] + junk + text[i:]
    _outcome(lambda: gaussqp.loads(text))


# ---------------------------------------------------------------------- NPZ


def _members(p: ContactProblem) -> dict:
    buf = io.BytesIO()
    gaussqp.save_npz(p, buf)
    with np.load(io.BytesIO(buf.getvalue()), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


MEMBERS = [_members(p) for p in SHIPPED]
ARRAYS = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.complex128, np.bool_, np.int64, np.float32, np.dtype("<U3")]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
)
NPZ_EDIT = st.tuples(
    st.integers(min_value=0), st.one_of(st.none(), ARRAYS, st.just(np.array([None, object()], dtype=object)))
)


@FUZZ
@given(
    which=st.integers(0, len(MEMBERS) - 1),
    edits=st.lists(NPZ_EDIT, min_size=1, max_size=3),
    flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=3),
    compressed=st.booleans(),
)
def test_mutated_npz_gives_a_problem_or_a_typed_error(which, edits, flips, compressed):
    m = dict(MEMBERS[which])
    for pick, arr in edits:
        key = sorted(m)[pick % len(m)] if m else "force"
        if arr is None:
            m.pop(key, None)
        else:
            m[key] = arr
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **m)
    data = bytearray(buf.getvalue())
    for pos, byte in flips:
        data[pos % len(data)] = byte
    _outcome(lambda: gaussqp.load_npz(io.BytesIO(bytes(data))))


# ---------------------------------------------------------------------- direct construction

PY = st.one_of(
    LEAF,
    ARRAYS,
    st.lists(LEAF, max_size=4),
    st.lists(st.lists(LEAF, max_size=3), max_size=3),
    st.sampled_from(
        [
            np.bool_(True),
            np.int64(3),
            1 + 2j,
            sp.eye(2, dtype=complex, format="csr"),
            sp.coo_matrix((3 * 10**9, 3 * 10**9)),
            sp.csr_matrix((2, 3)),
            np.zeros((0, 0)),
            np.array([[1.0, 0.0], [0.0, 1e300]]),
            object(),
        ]
    ),
)
FIELDS = ("type", "normal", "normal_drift", "friction", "mode", "tangent", "tangent_drift", "slip")
BLOCKS = (
    "M",
    "F",
    "J_n",
    "normal_drift",
    "types",
    "J_t",
    "tangent_drift",
    "friction",
    "modes",
    "slip",
    "has_tangent",
    "dimension",
)


def _block_args(p: ContactProblem) -> dict:
    return {
        "M": np.array(p.M),
        "F": np.array(p.F),
        "J_n": np.array(p.J_n),
        "normal_drift": np.array(p.normal_drift),
        "types": list(p.types),
        "J_t": np.array(p.J_t),
        "tangent_drift": np.array(p.tangent_drift),
        "friction": np.array(p.friction),
        "modes": list(p.modes),
        "slip": np.array(p.slip),
        "has_tangent": np.array(p.has_tangent),
        "dimension": p.dimension,
    }


@FUZZ
@given(
    which=st.integers(0, len(SHIPPED) - 1),
    blocks=st.booleans(),
    edits=st.lists(st.tuples(st.integers(min_value=0), PY), min_size=1, max_size=2),
)
def test_mutated_construction_gives_a_problem_or_a_typed_error(which, blocks, edits):
    p = SHIPPED[which]
    if blocks:
        a = _block_args(p)
        for pick, value in edits:
            a[BLOCKS[pick % len(BLOCKS)]] = value
        _outcome(lambda: ContactProblem.from_blocks(*(a[k] for k in BLOCKS)))
        return
    contacts, M, F, d = list(p.contacts), np.array(p.M), np.array(p.F), p.dimension
    for pick, value in edits:
        if contacts and pick % 5:
            i = pick % len(contacts)
            fields = {f: getattr(contacts[i], f) for f in FIELDS}
            fields[FIELDS[pick % len(FIELDS)]] = value
            contacts[i] = Contact(**fields)
        else:
            M, F, d = (value, F, d) if pick % 3 == 0 else (M, value, d) if pick % 3 == 1 else (M, F, value)
    _outcome(lambda: ContactProblem(M, F, contacts, dimension=d))


def test_the_fuzzers_reach_both_outcomes():
    """The mutators are not vacuous: unmutated input is accepted, a known-bad one is refused."""
    assert _outcome(lambda: gaussqp.loads(json.dumps(DOCS[0]))) == "accepted"
    assert _outcome(lambda: gaussqp.loads(json.dumps({**DOCS[0], "force": True}))) == "typed"
    m = dict(MEMBERS[0], force=MEMBERS[0]["force"].astype(complex))
    buf = io.BytesIO()
    np.savez(buf, **m)
    assert _outcome(lambda: gaussqp.load_npz(io.BytesIO(buf.getvalue()))) == "typed"


@pytest.mark.parametrize("p", SHIPPED, ids=[p.name for p in SHIPPED])
def test_npz_round_trip_of_every_shipped_problem_through_bytes(p):
    q = gaussqp.load_npz(io.BytesIO(_save(p)))
    assert gaussqp.dumps(p) == gaussqp.dumps(q)


def _save(p: ContactProblem) -> bytes:
    buf = io.BytesIO()
    gaussqp.save_npz(p, buf)
    return buf.getvalue()
