"""Every bad-input class raises a typed error naming the field and the fix."""

import numpy as np
import pytest

import gaussqp
from gaussqp import errors
from gaussqp.problem import Contact, ContactProblem

M2 = np.eye(2)


def make(**kw):
    base = dict(M=M2, F=[0.0, 1.0], contacts=[Contact("unilateral", normal=[0.0, 1.0])], dimension=2)
    base.update(kw)
    return ContactProblem(base["M"], base["F"], base["contacts"], dimension=base["dimension"])


@pytest.mark.parametrize("kw, exc, field", [
    (dict(M=np.eye(3)[:2]), errors.ShapeError, "mass_matrix"),
    (dict(F=[1.0, 2.0, 3.0]), errors.ShapeError, "force"),
    (dict(contacts=[Contact("unilateral", normal=[1.0, 0.0, 0.0])]), errors.ShapeError, "contacts[0].normal"),
    (dict(M=np.array([[1.0, 0.5], [0.0, 1.0]])), errors.NotSymmetricError, "mass_matrix"),
    (dict(M=np.diag([1.0, -0.1])), errors.IndefiniteMassError, "mass_matrix"),
    (dict(M=np.array([[1.0, np.nan], [np.nan, 1.0]])), errors.NonFiniteError, "mass_matrix"),
    (dict(F=[np.inf, 0.0]), errors.NonFiniteError, "force"),
    (dict(contacts=[Contact("unilateral", normal=[0.0, np.nan])]), errors.NonFiniteError, "contacts[0].normal"),
    (dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], friction=-0.2)]), errors.NegativeFrictionError,
     "contacts[0].friction"),
    (dict(contacts=[Contact("sideways", normal=[0.0, 1.0])]), errors.UnknownValueError, "contacts[0].type"),
    (dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], mode="rolling")]), errors.UnknownValueError,
     "contacts[0].mode"),
    (dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.3, tangent=[[1.0, 0.0]])]),
     errors.MissingSlipError, "contacts[0].slip"),
    (dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.3, tangent=[[1.0, 0.0]],
                            slip=[0.0])]), errors.MissingSlipError, "contacts[0].slip"),
    (dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], tangent=[[1.0, 0.0], [0.0, 1.0]])]),
     errors.TangentShapeError, "contacts[0].tangent"),
    (dict(contacts=[Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5)]),
     errors.TangentShapeError, "contacts[0].tangent"),
    (dict(dimension=4), errors.UnknownValueError, "dimension"),
])
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


@pytest.mark.parametrize("text, exc, field", [
    ("{not json", errors.FileFormatError, "file"),
    ("[1, 2]", errors.FileFormatError, "file"),
    ('{"format": "gaussqp/2", "mass_matrix": [[1]], "force": [0], "contacts": []}', errors.FormatVersionError, "format"),
    ('{"mass_matrix": [[1]], "force": [0], "contacts": []}', errors.FileFormatError, "format"),
    ('{"format": "gaussqp/1", "force": [0], "contacts": []}', errors.FileFormatError, "mass_matrix"),
    ('{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "contacts": [], "colour": 1}',
     errors.FileFormatError, "colour"),
    ('{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "contacts": [{"type": "unilateral"}]}',
     errors.FileFormatError, "contacts[0].normal"),
    ('{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "contacts": [{"type": "unilateral", "normal": [1], "nromal_drift": 1}]}',
     errors.FileFormatError, "contacts[0].nromal_drift"),
    ('{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "contacts": [{"type": "unilateral", "normal": [1], "friction": "high"}]}',
     errors.FileFormatError, "contacts[0]"),
    ('{"format": "gaussqp/1", "mass_matrix": {"shape": [2, 2], "row": [0, 5], "col": [0, 1], "data": [1, 1]}, "force": [0, 0], "contacts": []}',
     errors.FileFormatError, "mass_matrix"),
    ('{"format": "gaussqp/1", "mass_matrix": [[1, 0], [0, -1]], "force": [0, 0], "contacts": []}',
     errors.IndefiniteMassError, "mass_matrix"),
])
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
    p = ContactProblem(M2, [0.0, 1.0], [Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.3,
                                                tangent=[[1.0, 0.0]], slip=[1.0])])
    sol = gaussqp.solve(p)
    assert sol.formulation == "sliding_lcp" and sol.status == "solved" and sol.certified
    with pytest.raises(errors.NotApplicableError, match="sliding"):
        gaussqp.solve(p, formulation="gauss_qp")


def test_sliding_routes_refuse_what_they_cannot_do():
    M = np.diag([1.0, 1.0, 0.0])  # singular: the LCP route needs M ≻ 0
    ct = Contact("unilateral", normal=[0.0, 1.0, 0.0], mode="sliding", friction=0.3, tangent=[[1.0, 0.0, 0.0]],
                 slip=[1.0])
    p = ContactProblem(M, [0.0, 1.0, 0.0], [ct])
    with pytest.raises(errors.NotApplicableError, match="M ≻ 0"):
        gaussqp.solve(p, formulation="sliding_lcp")
    uni = ContactProblem(np.eye(2), [0.0, 1.0], [Contact("unilateral", normal=[0.0, 1.0], mode="sliding",
                                                         friction=0.1, tangent=[[1.0, 0.0]], slip=[1.0])])
    with pytest.raises(errors.NotApplicableError, match="bilateral"):
        gaussqp.solve(uni, formulation="sliding_fixed_point")
    many = ContactProblem(np.eye(2), [0.0, 1.0], [Contact("unilateral", normal=[0.0, 1.0], mode="sliding",
                                                          friction=0.1, tangent=[[1.0, 0.0]], slip=[1.0])] * 13)
    from gaussqp.sliding import enumerate_solutions
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
