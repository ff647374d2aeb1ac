"""Issue #25 item 4: the public entry points given something that is not a problem, or an option of the wrong
type, raise a typed error naming the argument and the fix (they raised AttributeError / TypeError, or read
``crosscheck="yes"`` as true)."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import errors
from gaussqp.grasp import Grasp, GraspContact

NOT_PROBLEMS = [None, 42, np.eye(2), {"M": [[1.0]]}, b"x"]


@pytest.fixture(scope="module")
def problem():
    return gaussqp.problems.load("singular_pendulum")


@pytest.mark.parametrize("x", NOT_PROBLEMS, ids=lambda x: type(x).__name__)
@pytest.mark.parametrize("entry", [gaussqp.solve, gaussqp.check], ids=["solve", "check"])
def test_not_a_problem_is_a_typed_error(entry, x):
    with pytest.raises(errors.WrongTypeError, match=r"^problem: .*fix: give a gaussqp\.ContactProblem"):
        entry(x)


@pytest.mark.parametrize("entry", [gaussqp.solve, gaussqp.check], ids=["solve", "check"])
def test_a_problem_name_says_how_to_load_it(entry):
    with pytest.raises(errors.WrongTypeError, match=r"gaussqp\.problems\.load\('rod_wall_guide'\)"):
        entry("rod_wall_guide")


def test_check_refuses_a_local_problem_saying_where_it_goes():
    local = gaussqp.LocalContactProblem(W=np.eye(3), q=[-1.0, 0.0, 0.0], mu=[0.5], dimension=3)
    with pytest.raises(errors.WrongTypeError, match="gaussqp.solve"):
        gaussqp.check(local)


@pytest.mark.parametrize(
    "option, value",
    [
        ("crosscheck", "yes"),
        ("crosscheck", 1),
        ("crosscheck", None),
        ("certify", "no"),
        ("formulation", None),
        ("formulation", 3),
        ("solver", 3),
        ("tolerance", []),
        ("tolerance", 3),
    ],
)
def test_options_of_the_wrong_type_are_typed_errors(problem, option, value):
    with pytest.raises(errors.InputError, match=f"^{option}: "):
        gaussqp.solve(problem, **{option: value})


@pytest.mark.parametrize("option, value", [("crosscheck", "yes"), ("tolerance", [])])
def test_solver_and_solve_many_options_too(problem, option, value):
    with pytest.raises(errors.InputError, match=f"^{option}: "):
        gaussqp.Solver(problem, **{option: value})
    with pytest.raises(errors.InputError, match=f"^{option}: "):
        gaussqp.solve_many([problem], **{option: value})


@pytest.mark.parametrize("x", [None, 42, "ab", GraspContact([0.0, 0.0], [0.0, 1.0])], ids=repr)
def test_grasp_of_not_a_list_is_a_typed_error(x):
    with pytest.raises(errors.InputError, match=r"^contacts: .*fix: give a list of gaussqp\.grasp\.GraspContact"):
        Grasp(x)


@pytest.mark.parametrize(
    "fn",
    [
        "analyze",
        "equilibrium",
        "force_closure",
        "form_closure",
        "epsilon",
        "min_weight",
        "internal_forces",
        "hand_closure",
        "hand_equilibrium",
        "dynamic_check",
        "plot",
        "dumps",
        "from_contact_problem",
    ],
)
def test_grasp_functions_refuse_not_a_grasp(fn, tmp_path):
    import gaussqp.grasp as g

    args = (str(tmp_path / "x.png"),) if fn == "plot" else ()
    with pytest.raises(errors.GaussQPError):
        getattr(g, fn)(None, *args)
