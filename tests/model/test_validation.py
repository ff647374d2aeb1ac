"""Every bad-input class raises a typed error naming the field and the fix."""

import numpy as np
import pytest

import gaussqp
from gaussqp import errors
from gaussqp.model.problem import Contact, ContactProblem

M2 = np.eye(2)


def make(**kw):
    base = dict(M=M2, F=[0.0, 1.0], contacts=[Contact("unilateral", normal=[0.0, 1.0])], dimension=2)
    base.update(kw)
    return ContactProblem(base["M"], base["F"], base["contacts"], dimension=base["dimension"])


@pytest.mark.parametrize(
    "kw, exc, field",
    [
        (dict(M=np.eye(3)[:2]), errors.ShapeError, "mass_matrix"),
        (dict(F=[1.0, 2.0, 3.0]), errors.ShapeError, "force"),
        (dict(contacts=[Contact("unilateral", normal=[1.0, 0.0, 0.0])]), errors.ShapeError, "contacts[0].normal"),
        (dict(M=np.array([[1.0, 0.5], [0.0, 1.0]])), errors.NotSymmetricError, "mass_matrix"),
        (dict(M=np.diag([1.0, -0.1])), errors.IndefiniteMassError, "mass_matrix"),
        (dict(M=np.array([[1.0, np.nan], [np.nan, 1.0]])), errors.NonFiniteError, "mass_matrix"),
        (dict(F=[np.inf, 0.0]), errors.NonFiniteError, "force"),
        (dict(contacts=[Contact("unilateral", normal=[0.0, np.nan])]), errors.NonFiniteError, "contacts[0].normal"),
        (
            dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], friction=-0.2)]),
            errors.NegativeFrictionError,
            "contacts[0].friction",
        ),
        (dict(contacts=[Contact("sideways", normal=[0.0, 1.0])]), errors.UnknownValueError, "contacts[0].type"),
        (
            dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], mode="rolling")]),
            errors.UnknownValueError,
            "contacts[0].mode",
        ),
        (
            dict(
                contacts=[Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.3, tangent=[[1.0, 0.0]])]
            ),
            errors.MissingSlipError,
            "contacts[0].slip",
        ),
        (
            dict(
                contacts=[
                    Contact(
                        "unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.3, tangent=[[1.0, 0.0]], slip=[0.0]
                    )
                ]
            ),
            errors.MissingSlipError,
            "contacts[0].slip",
        ),
        (
            dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], tangent=[[1.0, 0.0], [0.0, 1.0]])]),
            errors.TangentShapeError,
            "contacts[0].tangent",
        ),
        (
            dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5)]),
            errors.TangentShapeError,
            "contacts[0].tangent",
        ),
        (dict(dimension=7), errors.UnknownValueError, "dimension"),
    ],
)
def test_bad_input(kw, exc, field):
    with pytest.raises(exc) as info:
        make(**kw)
    assert info.value.field == field
    msg = str(info.value)
    assert msg.startswith(field + ":") and "fix:" in msg
    assert isinstance(info.value, errors.GaussQPError) and isinstance(info.value, ValueError)


def test_slightly_asymmetric_roundoff_is_accepted():
    M = np.array([[2.0, 1.0 + 1e-13], [1.0, 2.0]])
    assert make(M=M).n == 2


def test_block_constructor_validates_too():
    with pytest.raises(errors.ShapeError, match="J_t"):
        ContactProblem.from_blocks(np.eye(3), np.zeros(3), np.ones((2, 3)), J_t=np.ones((3, 3)), dimension=2)
    with pytest.raises(errors.UnknownValueError, match=r"contacts\[1\].type"):
        ContactProblem.from_blocks(np.eye(3), np.zeros(3), np.ones((2, 3)), types=["bilateral", "both"])


def test_problem_is_immutable():
    p = make()
    with pytest.raises(AttributeError):
        p.F = np.zeros(2)
    with pytest.raises(ValueError):
        p.F[0] = 3.0


@pytest.mark.parametrize(
    "text, exc, field",
    [
        ("{not json", errors.FileFormatError, "file"),
        ("[1, 2]", errors.FileFormatError, "file"),
        (
            '{"format": "gaussqp/2", "mass_matrix": [[1]], "force": [0], "contacts": []}',
            errors.FormatVersionError,
            "format",
        ),
        ('{"mass_matrix": [[1]], "force": [0], "contacts": []}', errors.FileFormatError, "format"),
        ('{"format": "gaussqp/1", "force": [0], "contacts": []}', errors.FileFormatError, "mass_matrix"),
        (
            '{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "contacts": [], "colour": 1}',
            errors.FileFormatError,
            "colour",
        ),
        (
            '{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "contacts": [{"type": "unilateral"}]}',
            errors.FileFormatError,
            "contacts[0].normal",
        ),
        (
            '{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "contacts": [{"type": "unilateral", "normal": [1], "nromal_drift": 1}]}',
            errors.FileFormatError,
            "contacts[0].nromal_drift",
        ),
        (
            '{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "contacts": [{"type": "unilateral", "normal": [1], "friction": "high"}]}',
            errors.FileFormatError,
            "contacts[0].friction",
        ),
        (
            '{"format": "gaussqp/1", "mass_matrix": {"shape": [2, 2], "row": [0, 5], "col": [0, 1], "data": [1, 1]}, "force": [0, 0], "contacts": []}',
            errors.FileFormatError,
            "mass_matrix.row",
        ),
        (
            '{"format": "gaussqp/1", "mass_matrix": [[1, 0], [0, -1]], "force": [0, 0], "contacts": []}',
            errors.IndefiniteMassError,
            "mass_matrix",
        ),
    ],
)
def test_bad_files(text, exc, field):
    with pytest.raises(exc) as info:
        gaussqp.loads(text)
    assert info.value.field == field and "fix:" in str(info.value)


def test_unknown_formulation_and_solver():
    p = make()
    with pytest.raises(errors.UnknownFormulationError, match="gauss_qp"):
        gaussqp.solve(p, formulation="newton")
    with pytest.raises(errors.UnknownSolverError, match="clarabel"):
        gaussqp.solve(p, solver="gurobi-ish")


def test_formulation_that_does_not_apply_is_refused():
    p = ContactProblem(np.diag([1.0, 0.0]), [0.0, 1.0], [Contact("unilateral", normal=[0.0, 1.0])])
    with pytest.raises(errors.NotApplicableError, match="M ≻ 0"):
        gaussqp.solve(p, formulation="lcp_lemke")


def test_sliding_problem_goes_to_f6_and_is_refused_by_the_convex_routes():
    p = ContactProblem(
        M2,
        [0.0, 1.0],
        [Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.3, tangent=[[1.0, 0.0]], slip=[1.0])],
    )
    sol = gaussqp.solve(p)
    assert sol.formulation == "sliding_lcp" and sol.status == "solved" and sol.certified
    with pytest.raises(errors.NotApplicableError, match="sliding"):
        gaussqp.solve(p, formulation="gauss_qp")


def test_sliding_routes_refuse_what_they_cannot_do():
    M = np.diag([1.0, 1.0, 0.0])  # singular: the LCP route needs M ≻ 0
    ct = Contact(
        "unilateral", normal=[0.0, 1.0, 0.0], mode="sliding", friction=0.3, tangent=[[1.0, 0.0, 0.0]], slip=[1.0]
    )
    p = ContactProblem(M, [0.0, 1.0, 0.0], [ct])
    with pytest.raises(errors.NotApplicableError, match="M ≻ 0"):
        gaussqp.solve(p, formulation="sliding_lcp")
    uni = ContactProblem(
        np.eye(2),
        [0.0, 1.0],
        [Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.1, tangent=[[1.0, 0.0]], slip=[1.0])],
    )
    with pytest.raises(errors.NotApplicableError, match="bilateral"):
        gaussqp.solve(uni, formulation="sliding_fixed_point")
    many = ContactProblem(
        np.eye(2),
        [0.0, 1.0],
        [Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.1, tangent=[[1.0, 0.0]], slip=[1.0])] * 13,
    )
    from gaussqp.friction.enumeration import enumerate_solutions

    with pytest.raises(errors.TooLargeError, match="13 contacts"):
        enumerate_solutions(many)
    with pytest.raises(errors.NotApplicableError, match="13 enumerated contacts"):
        gaussqp.solve(many, formulation="sliding_enumeration")


def test_npz_with_pickled_object_is_refused(tmp_path):
    path = tmp_path / "evil.npz"
    np.savez(path, format=np.array("gaussqp/1"), mass_matrix=np.array([object()], dtype=object))
    with pytest.raises(errors.FileFormatError, match="pickle"):
        gaussqp.load(path)


def test_missing_file(tmp_path):
    with pytest.raises(errors.FileFormatError, match="does not exist"):
        gaussqp.load(tmp_path / "nope.json")


# ---------------------------------------------------------------------- hostile input (issue 9, "Bad input")
import time  # noqa: E402

import scipy.sparse as sp  # noqa: E402

from gaussqp import settings as limits  # noqa: E402


def _doc(M="[[1, 0], [0, 1]]", F="[0, 1]", contacts='[{"type": "unilateral", "normal": [0, 1]}]', extra="") -> str:
    return f'{{"format": "gaussqp/1", "mass_matrix": {M}, "force": {F}, "contacts": {contacts}{extra}}}'


def _contact(**kw) -> str:
    fields = {"type": '"unilateral"', "normal": "[0, 1]", **kw}
    return "[{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}]"


HOSTILE_JSON = [
    # overflow: an integer literal beyond float64 (OverflowError converting it before), 5000 digits
    # (ValueError of Python's int-digit limit before), a float literal that rounds to infinity
    ("400-digit integer", _doc(F="[0, " + "1" * 400 + "]"), errors.MagnitudeError, "force"),
    ("5000-digit integer", _doc(F="[0, " + "9" * 5000 + "]"), errors.MagnitudeError, "force"),
    ("1e400 literal", _doc(M="[[1e400, 0], [0, 1]]"), errors.MagnitudeError, "mass_matrix"),
    ("finite 1e300 entry", _doc(F="[0, 1e300]"), errors.MagnitudeError, "force"),
    ("1e60 friction", _doc(contacts=_contact(friction="1e60")), errors.MagnitudeError, "contacts[0].friction"),
    (
        "subnormal mass entry (fuzz: M⁻¹ overflowed, an SVD failed on NaN)",
        _doc(M="[[1e-320, 0], [0, 1]]"),
        errors.MagnitudeError,
        "mass_matrix",
    ),
    # nesting: RecursionError before; and deep but parseable nesting in metadata
    (
        "deep nesting",
        _doc(extra=', "parameters": {"a": ' + "[" * 20000 + "]" * 20000 + "}"),
        errors.InputTooLargeError,
        "file",
    ),
    (
        "nesting over the limit",
        _doc(extra=', "parameters": {"a": ' + "[" * 70 + "]" * 70 + "}"),
        errors.InputTooLargeError,
        "file",
    ),
    # duplicate keys: the last one silently won
    ("duplicate top key", _doc(extra=', "force": [5, 5]'), errors.FileFormatError, "force"),
    (
        "duplicate contact key",
        _doc(contacts='[{"type": "unilateral", "normal": [0, 1], "type": "bilateral"}]'),
        errors.FileFormatError,
        "type",
    ),
    # booleans, strings and null where numbers belong (true became mu = 1)
    ("true friction", _doc(contacts=_contact(friction="true")), errors.FileFormatError, "contacts[0].friction"),
    (
        "numeric string drift",
        _doc(contacts=_contact(normal_drift='"1.5"')),
        errors.FileFormatError,
        "contacts[0].normal_drift",
    ),
    ("boolean in M", _doc(M="[[true, 0], [0, 1]]"), errors.FileFormatError, "mass_matrix"),
    (
        "boolean in normal",
        _doc(contacts=_contact(normal="[false, true]")),
        errors.FileFormatError,
        "contacts[0].normal",
    ),
    ("string in force", _doc(F='[0, "9.81"]'), errors.FileFormatError, "force"),
    ("null in force", _doc(F="[0, null]"), errors.FileFormatError, "force"),
    (
        "boolean slip",
        _doc(contacts=_contact(mode='"sliding"', friction="0.3", tangent="[[1, 0]]", slip="true")),
        errors.FileFormatError,
        "contacts[0].slip",
    ),
    ("float dimension", _doc(extra=', "dimension": 2.0'), errors.UnknownValueError, "dimension"),
    ("boolean dimension", _doc(extra=', "dimension": true'), errors.UnknownValueError, "dimension"),
    ("numeric name", _doc(extra=', "name": 5'), errors.FileFormatError, "name"),
    (
        "list as contact type",
        _doc(contacts=_contact(type='["unilateral"]')),
        errors.FileFormatError,
        "contacts[0].type",
    ),
    (
        "ragged tangent",
        _doc(contacts=_contact(mode='"sticking"', friction="0.3", tangent="[[1, 0], [1]]")),
        errors.ShapeError,
        "contacts[0].tangent",
    ),
    # sparse triplets: huge declared shapes (MemoryError / hang before), wrapping negative indices,
    # truncated non-integer indices and shapes, lengths that broadcast, a shape that is not a list
    (
        "declared shape 3e16",
        _doc(M='{"shape": [3e16, 3e16], "row": [], "col": [], "data": []}'),
        errors.InputTooLargeError,
        "mass_matrix.shape[0]",
    ),
    (
        "declared vector shape 3e16",
        _doc(F='{"shape": [3e16], "index": [], "data": []}'),
        errors.InputTooLargeError,
        "force.shape[0]",
    ),
    (
        "huge sparse M, one entry",
        _doc(
            M='{"shape": [20000, 20000], "row": [0], "col": [0], "data": [1]}',
            F='{"shape": [20000], "index": [], "data": []}',
            contacts="[]",
        ),
        errors.InputTooLargeError,
        "mass_matrix",
    ),
    (
        "negative row index",
        _doc(M='{"shape": [2, 2], "row": [0, -1], "col": [0, -1], "data": [1, 1]}'),
        errors.FileFormatError,
        "mass_matrix.row",
    ),
    (
        "fractional col index",
        _doc(M='{"shape": [2, 2], "row": [0, 1], "col": [0, 1.7], "data": [1, 1]}'),
        errors.FileFormatError,
        "mass_matrix.col",
    ),
    (
        "fractional shape",
        _doc(M='{"shape": [2.7, 2.7], "row": [0, 1], "col": [0, 1], "data": [1, 1]}'),
        errors.FileFormatError,
        "mass_matrix.shape[0]",
    ),
    (
        "NaN shape (a bare ValueError of math.floor in the first fuzz campaign)",
        _doc(F='{"shape": [NaN], "index": [], "data": []}'),
        errors.FileFormatError,
        "force.shape[0]",
    ),
    (
        "Infinity shape",
        _doc(F='{"shape": [Infinity], "index": [], "data": []}'),
        errors.FileFormatError,
        "force.shape[0]",
    ),
    (
        "boolean shape",
        _doc(M='{"shape": [true, true], "row": [0], "col": [0], "data": [1]}', F="[0]", contacts="[]"),
        errors.FileFormatError,
        "mass_matrix.shape[0]",
    ),
    (
        "data broadcast",
        _doc(M='{"shape": [2, 2], "row": [0, 1], "col": [0, 1], "data": [1]}'),
        errors.FileFormatError,
        "mass_matrix",
    ),
    (
        "shape as object",
        _doc(F='{"shape": {"n": 2}, "index": [1], "data": [1]}'),
        errors.FileFormatError,
        "force.shape",
    ),
    (
        "negative vector index",
        _doc(F='{"shape": [2], "index": [-1], "data": [3]}'),
        errors.FileFormatError,
        "force.index",
    ),
    (
        "vector lengths broadcast",
        _doc(F='{"shape": [2], "index": [0, 1], "data": [3]}'),
        errors.FileFormatError,
        "force",
    ),
    (
        "vector of the wrong declared size",
        _doc(contacts=_contact(normal='{"shape": [5], "index": [1], "data": [1]}')),
        errors.ShapeError,
        "contacts[0].normal",
    ),
]


@pytest.mark.parametrize("case, text, exc, field", HOSTILE_JSON, ids=[c[0] for c in HOSTILE_JSON])
def test_hostile_json_gives_a_typed_error_naming_the_field(case, text, exc, field):
    """Each input raised a bare exception, hung or was accepted wrongly before (issue 9)."""
    start = time.perf_counter()
    with pytest.raises(exc) as info:
        gaussqp.loads(text)
    assert time.perf_counter() - start < 5.0
    assert info.value.field == field and "; fix: " in str(info.value)


def test_integer_valued_sizes_and_indices_are_accepted():
    """2.0 is a whole number (JSON Schema's "integer"); only fractions are refused."""
    p = gaussqp.loads(_doc(M='{"shape": [2.0, 2], "row": [0, 1.0], "col": [0, 1], "data": [1, 1]}'))
    assert p.n == 2 and p.M[1, 1] == 1.0


C1 = [Contact("unilateral", normal=[0.0, 1.0])]
BIG = sp.coo_matrix(([1.0], ([0], [0])), shape=(3 * 10**9, 3 * 10**9))


def _blocks(**kw):
    base = dict(M=np.eye(2), F=[0.0, 1.0], J_n=[[0.0, 1.0]])
    base.update(kw)
    M, F, J = base.pop("M"), base.pop("F"), base.pop("J_n")
    return ContactProblem.from_blocks(M, F, J, **base)


HOSTILE_DIRECT = [
    (
        "bool friction",
        lambda: make(contacts=[Contact("unilateral", normal=[0.0, 1.0], friction=True)]),
        errors.NonNumericError,
        "contacts[0].friction",
    ),
    (
        "string drift",
        lambda: make(contacts=[Contact("unilateral", normal=[0.0, 1.0], normal_drift="1.5")]),
        errors.NonNumericError,
        "contacts[0].normal_drift",
    ),
    (
        "list drift",
        lambda: make(contacts=[Contact("unilateral", normal=[0.0, 1.0], normal_drift=[1.0, 2.0])]),
        errors.ShapeError,
        "contacts[0].normal_drift",
    ),
    (
        "bool in normal list",
        lambda: make(contacts=[Contact("unilateral", normal=[True, 0.5])]),
        errors.NonNumericError,
        "contacts[0].normal",
    ),
    (
        "complex normal",
        lambda: make(contacts=[Contact("unilateral", normal=np.array([0.0, 1.0 + 1e-3j]))]),
        errors.NonNumericError,
        "contacts[0].normal",
    ),
    (
        "string normal",
        lambda: make(contacts=[Contact("unilateral", normal=["0", "1"])]),
        errors.NonNumericError,
        "contacts[0].normal",
    ),
    ("boolean M", lambda: make(M=np.eye(2, dtype=bool)), errors.NonNumericError, "mass_matrix"),
    (
        "object M",
        lambda: make(M=np.array([[1.0, None], [None, 1.0]], dtype=object)),
        errors.NonNumericError,
        "mass_matrix",
    ),
    ("None force", lambda: make(F=None), errors.NonNumericError, "force"),
    ("ragged force", lambda: make(F=[0.0, [1.0, 2.0]]), errors.ShapeError, "force"),
    ("complex sparse M", lambda: make(M=sp.eye(2, dtype=complex, format="csr")), errors.NonNumericError, "mass_matrix"),
    ("1e300 in M", lambda: make(M=np.diag([1e300, 1.0])), errors.MagnitudeError, "mass_matrix"),
    (
        "1e60 drift",
        lambda: make(contacts=[Contact("unilateral", normal=[0.0, 1.0], normal_drift=1e60)]),
        errors.MagnitudeError,
        "contacts[0].normal_drift",
    ),
    ("float dimension", lambda: make(dimension=2.0), errors.UnknownValueError, "dimension"),
    ("bool dimension", lambda: make(dimension=True), errors.UnknownValueError, "dimension"),
    ("array dimension", lambda: make(dimension=np.array([2, 3])), errors.UnknownValueError, "dimension"),
    (
        "list type",
        lambda: make(contacts=[Contact(["unilateral"], normal=[0.0, 1.0])]),
        errors.UnknownValueError,
        "contacts[0].type",
    ),
    (
        "array mode",
        lambda: make(contacts=[Contact("unilateral", normal=[0.0, 1.0], mode=np.array(["a", "b"]))]),
        errors.UnknownValueError,
        "contacts[0].mode",
    ),
    ("contacts not a list", lambda: ContactProblem(np.eye(2), [0.0, 1.0], 5), errors.ShapeError, "contacts"),
    ("numeric name", lambda: ContactProblem(np.eye(2), [0.0, 1.0], C1, name=5), errors.WrongTypeError, "name"),
    ("empty M", lambda: ContactProblem(np.zeros((0, 0)), []), errors.ShapeError, "mass_matrix"),
    ("huge sparse M", lambda: ContactProblem(BIG, np.zeros(1)), errors.InputTooLargeError, "mass_matrix"),
    (
        "dense M over the block limit",
        lambda: ContactProblem(np.zeros((limits.DENSE_BLOCK_MAX + 1,) * 2), np.zeros(limits.DENSE_BLOCK_MAX + 1)),
        errors.InputTooLargeError,
        "mass_matrix",
    ),
    ("huge sparse J_n", lambda: _blocks(J_n=sp.coo_matrix((3 * 10**9, 2))), errors.InputTooLargeError, "J_n"),
    ("types not a sequence", lambda: _blocks(types=5), errors.UnknownValueError, "types"),
    ("types too short", lambda: _blocks(J_n=np.eye(2), types=["unilateral"]), errors.ShapeError, "types"),
    ("has_tangent strings", lambda: _blocks(has_tangent=["yes"]), errors.NonNumericError, "has_tangent"),
    (
        "slip array of the wrong shape",
        lambda: _blocks(J_t=[[1.0, 0.0]], modes="sliding", friction=[0.2], slip=np.ones((3, 3))),
        errors.ShapeError,
        "slip",
    ),
    (
        "slip list too short",
        lambda: _blocks(J_n=np.eye(2), J_t=np.eye(2), modes="sliding", friction=[0.2, 0.2], slip=[[1.0]]),
        errors.ShapeError,
        "slip",
    ),
    (
        "slip not a sequence",
        lambda: _blocks(J_t=[[1.0, 0.0]], modes="sliding", friction=[0.2], slip=1.0),
        errors.ShapeError,
        "slip",
    ),
]


@pytest.mark.parametrize("case, build, exc, field", HOSTILE_DIRECT, ids=[c[0] for c in HOSTILE_DIRECT])
def test_hostile_direct_construction_gives_a_typed_error(case, build, exc, field):
    """Python objects passed to the constructors directly: bare exceptions or silent coercion before."""
    start = time.perf_counter()
    with pytest.raises(exc) as info:
        build()
    assert time.perf_counter() - start < 5.0
    assert info.value.field == field and "; fix: " in str(info.value)


@pytest.mark.parametrize(
    "values, exc",
    [
        ([1.0, np.nan, 1e60], errors.NonFiniteError),  # NaN beside an entry beyond the bound: NaN is named
        ([1e60, -np.inf], errors.NonFiniteError),
        ([-np.inf], errors.NonFiniteError),
        ([np.nan], errors.NonFiniteError),
        ([0.0, -1e51], errors.MagnitudeError),
        ([0.0, 1e-51, 1.0], errors.MagnitudeError),
        ([0.0, 0.0], None),
        ([-1e50, 1e-50, 0.0], None),
    ],
)
def test_finite_and_bounded_entries(values, exc):
    """check_finite_bounded: one reduction decides finiteness (the maximum propagates NaN), then the magnitudes."""
    from gaussqp.model.validation import check_finite_bounded

    data = np.array(values, dtype=float)
    for arr in (data, data.reshape(1, -1), data[::-1]):
        if exc is None:
            check_finite_bounded("x", arr)
        else:
            with pytest.raises(exc) as info:
                check_finite_bounded("x", arr)
            assert info.value.field == "x"


def test_index_sets_are_flatnonzero_of_the_labels():
    """The index sets computed with the problem are numpy.flatnonzero of its type and mode labels, on random
    labels, and the sticking contacts' tangent rows are tangent_rows of them (read-only)."""
    rng = np.random.default_rng(7)
    for _ in range(30):
        m, d = int(rng.integers(0, 9)), int(rng.choice([2, 3]))
        types = list(rng.choice(["bilateral", "unilateral"], m))
        modes = [
            str(rng.choice(["frictionless", "sticking", "sliding"] + (["coulomb"] if t == "unilateral" else [])))
            for t in types
        ]
        p = ContactProblem.from_blocks(
            np.eye(3), np.zeros(3), rng.standard_normal((m, 3)), types=types, J_t=rng.standard_normal((m * (d - 1), 3)),
            friction=np.full(m, 0.5), modes=modes, slip=np.ones((m, d - 1)), dimension=d,
        )  # fmt: skip
        for name, labels in (("bilateral", p.types), ("unilateral", p.types)):
            np.testing.assert_array_equal(getattr(p, name), np.flatnonzero(labels == name))
        for name in ("frictionless", "sticking", "sliding", "coulomb"):
            got = getattr(p, name)
            assert got.dtype == np.intp
            np.testing.assert_array_equal(got, np.flatnonzero(p.modes == name))
        rows = p.tangent_rows(p.sticking)
        np.testing.assert_array_equal(rows, p.tangent_rows(list(p.sticking)))
        assert not rows.flags.writeable


@pytest.mark.parametrize("sparse_mass, field", [(True, "J_n"), (False, "mass_matrix")])
def test_the_first_error_names_the_field_it_always_named(sparse_mass, field):
    """Two bad fields: a dense M's entries are read before the rows, a sparse M's (only its shape first) after them,
    as before each array was validated once."""
    import scipy.sparse as sp

    M = np.diag([1.0, 1e-60])  # an entry below ABS_ENTRY_MIN
    J_n = np.array([[1e60, 0.0]])  # an entry beyond ABS_ENTRY_MAX
    with pytest.raises(errors.MagnitudeError) as info:
        ContactProblem.from_blocks(sp.csr_matrix(M) if sparse_mass else M, [0.0, 1.0], J_n)
    assert info.value.field == field


def test_tangent_rows_built_by_the_constructor_keep_their_size_limit():
    """J_t built from zeros (no J_t given) is bounded as a given one is: m (d-1) n entries beyond ENTRIES_MAX refused,
    naming J_t (the contacts' own limit bounds only m n)."""
    import scipy.sparse as sp

    n, m = 10_000, 501  # m n = 5.0e6 entries in J_n; J_t would hold 5 m n = 2.5e7 > ENTRIES_MAX
    J_n = np.zeros((m, n))
    J_n[:, 0] = 1.0
    with pytest.raises(errors.InputTooLargeError) as info:
        ContactProblem.from_blocks(sp.identity(n, format="csr"), np.zeros(n), J_n, dimension=6)
    assert info.value.field == "J_t"


def test_labels_of_a_str_subclass_are_read_by_their_text():
    """A label of a str subclass (one overriding ``__eq__`` is unhashable) is a valid label: the index sets read the
    text of the problem's label arrays."""

    class Label(str):
        def __eq__(self, other):
            return str.__eq__(self, other)

        __hash__ = None  # type: ignore[assignment]

    p = ContactProblem.from_blocks(np.eye(2), np.zeros(2), np.array([[1.0, 0.0]]), types=[Label("bilateral")],
                                   modes=[Label("frictionless")])  # fmt: skip
    np.testing.assert_array_equal(p.bilateral, [0])
    np.testing.assert_array_equal(p.frictionless, [0])
    q = ContactProblem(
        np.eye(2), np.zeros(2), [Contact(Label("bilateral"), normal=[1.0, 0.0], mode=Label("frictionless"))]
    )
    np.testing.assert_array_equal(q.bilateral, [0])
