"""Issue #25 item 2: "certified" covers the contact forces too. The forward error of each contact's force is bounded
relative to that force (and of the acceleration), a wrong active set cannot certify λ, and ``certified_quantities``
says which quantity is certified. Checked against exact rational answers (tests/exact_oracle.py::exact_kkt) on an
ill-conditioned family (cond(M) 1e2…1e12, rows scaled over 1e±6; the generator of the issue's sweep 5)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import gaussqp
from gaussqp.model.scales import data_scales
from gaussqp.settings import ACTIVE_RTOL, get_tolerance

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exact_oracle import exact_kkt  # noqa: E402
from illcond_family import CONDS, generate  # noqa: E402

TOL = get_tolerance("high").residual


def _solve(seed: int):
    M, F, J, b, bil, active = generate(seed)
    p = gaussqp.ContactProblem.from_blocks(M, F, J, b, ["bilateral" if x else "unilateral" for x in bil])
    return p, gaussqp.solve(p), exact_kkt(M, F, J, b, bil, active)


def test_loaded_contact_read_as_unloaded_is_not_certified():
    """The issue's case (seed 31774, n = 2, cond 1e10): λ = (2.75e6, 0) where the exact one is (−1.61e5, 4.0e4). The
    acceleration is right to 2e-8 and stays certified; the forces are not, and the answer says which."""
    p, sol, (a_ex, l_ex, consistent) = _solve(31774)
    assert consistent
    l_ex = np.array([float(x) for x in l_ex])
    assert np.abs(sol.lambda_normal - l_ex).max() > 0.5 * np.abs(l_ex).max()  # the answer's forces are wrong
    assert sol.certified is False and sol.status == "inaccurate"
    assert sol.certified_quantities == {"acceleration": True, "forces": False}
    fe = sol.certificate("forward_error")
    assert fe.holds is False and fe.data["forces_certified"] is False and fe.data["acceleration_certified"] is True
    assert fe.data["contact_force_errors"].shape == (2,) and fe.data["contact_force_errors"].max() > TOL
    out = sol.as_dict()
    assert out["certified_quantities"] == {"acceleration": True, "forces": False}
    json.dumps(out)


def test_family_certified_forces_are_right():
    """~480 problems of the family against the exact rational answer: every answer whose forces are certified has
    each contact's λ within the tolerance of the exact one, relative to that contact's exact force or, below it,
    ACTIVE_RTOL of the data's force at that contact (``force / ‖(J S)_i‖∞``: a zero multiplier to the library, the
    certificate's yardstick for an unloaded contact); every certified acceleration within 10× the tolerance (the forward error is an
    estimate, one Newton step); and the well-conditioned part stays certified."""
    certified = wrong = 0
    by_cond: dict[float, list[int]] = {}
    for seed in range(480):
        p, sol, ex = _solve(seed)
        assert ex is not None and ex[2]  # the constructed active set is the exact solution's
        a_ex = np.array([float(x) for x in ex[0]])
        l_ex = np.array([float(x) for x in ex[1]])
        cq = sol.certified_quantities
        assert sol.certified == (cq["acceleration"] is True and cq["forces"] is True)
        counts = by_cond.setdefault(CONDS[seed % len(CONDS)], [0, 0])
        counts[0] += 1
        counts[1] += bool(sol.certified)
        certified += bool(sol.certified)
        if cq["forces"]:
            sc = data_scales(p)
            zero = ACTIVE_RTOL * sc.force / np.where(sc.normal_weight > 0, sc.normal_weight, 1.0)
            wrong += bool(np.any(np.abs(sol.lambda_normal - l_ex) > TOL * np.maximum(np.abs(l_ex), zero)))
        if cq["acceleration"]:
            assert np.abs(sol.acceleration - a_ex).max() <= 10 * TOL * np.abs(a_ex).max()
    assert wrong == 0
    assert by_cond[1e2] == [80, 80] and by_cond[1e4][1] >= 78
    assert certified >= 150


def test_non_unique_multipliers_are_certified_as_a_member_of_the_set():
    """Two identical unilateral rows: λ is not unique, a per-contact forward error is not defined; the forces are
    certified as a member of the multiplier set (the normwise distance to it) and the certificate says so."""
    M = np.diag([2.0, 3.0])
    J = np.array([[0.0, 1.0], [0.0, 1.0]])
    p = gaussqp.ContactProblem.from_blocks(M, np.array([0.0, 6.0]), J, np.zeros(2), ["unilateral"] * 2)
    sol = gaussqp.solve(p)
    assert sol.unique["multipliers"] is False
    assert sol.certified is True and sol.certified_quantities == {"acceleration": True, "forces": True}
    assert sol.certificate("forward_error").data["forces_basis"].startswith("member of the solution set")


def test_cli_prints_certified_quantities(capsys):
    from gaussqp.cli import main

    main(["solve", "rod_wall_guide"])
    assert "certified    acceleration=yes  forces=yes" in capsys.readouterr().out


@pytest.mark.parametrize("force", [1.0, 2.5, 1e-6, 1e6])
def test_an_exact_answer_at_rest_on_a_massless_coordinate_is_certified(force):
    """M = diag(1, 0), the force on the massless coordinate held by a floor (a new user's trial): a = 0 and λ = F₂ are
    exact and unique, every residual 0. The acceleration's forward error was relative to the answer's size floored by
    the free acceleration, both 0 here (M⁺F = 0), so to the smallest float: "may be 3.0e+292 from the exact one",
    inaccurate. Relative to the data's acceleration unit it is round-off: solved."""
    import gaussqp
    from gaussqp import Contact, ContactProblem

    p = ContactProblem(np.diag([1.0, 0.0]), [0.0, force], [Contact("unilateral", normal=[0.0, 1.0])], dimension=2)
    s = gaussqp.solve(p)
    assert s.status == "solved" and s.certified
    assert np.array_equal(s.acceleration, [0.0, 0.0]) and s.lambda_normal[0] == pytest.approx(force, rel=1e-12)
    assert s.certificate("forward_error").data["acceleration"] <= 1e-12
