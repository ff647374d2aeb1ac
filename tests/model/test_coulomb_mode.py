"""The mode "coulomb" (stick/slip left to the solver): accepted as data, refused by every formulation that
needs the modes, solved only by those that decide them (coulomb_fixed_point, coulomb_mixed, the enumeration), never read as
frictionless."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import Contact, ContactProblem
from gaussqp.cli import main
from gaussqp.errors import NotApplicableError, UnknownValueError
from gaussqp.formulations import FORMULATIONS
from gaussqp.io.gaussqp_format import dumps, loads


def box(mode="coulomb", other="sticking"):
    """A 3D box of unit mass on two contacts: one with ``mode``, one with ``other``."""
    M, F = np.eye(3), np.array([0.0, 0.0, 9.81])
    T = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    cs = [
        Contact("unilateral", normal=[0, 0, 1.0], friction=0.5, mode=mode, tangent=T),
        Contact(
            "unilateral",
            normal=[0, 0, 1.0],
            friction=0.5,
            mode=other,
            tangent=T,
            slip=[1.0, 0.0] if other == "sliding" else None,
        ),
    ]
    return ContactProblem(M, F, cs, dimension=3, name="coulomb box")


def test_coulomb_contacts_are_data_and_classified_as_such():
    p = box()
    assert list(p.coulomb) == [0] and list(p.sticking) == [1]
    assert box(other="coulomb").classify().modes == "coulomb"
    assert p.classify().modes == "mixed"
    q = loads(dumps(p))
    assert list(q.modes) == ["coulomb", "sticking"]


def test_bilateral_coulomb_is_refused_naming_the_field():
    with pytest.raises(UnknownValueError, match=r"contacts\[0\]\.mode"):
        ContactProblem(
            np.eye(2), [0, 1.0], [Contact("bilateral", normal=[0, 1.0], friction=0.3, mode="coulomb", tangent=[1.0, 0])]
        )


@pytest.mark.parametrize("other", ["sticking", "sliding", "frictionless", "coulomb"])
def test_only_the_mode_deciding_formulations_read_a_coulomb_contact(other):
    """Each formulation that needs the modes refuses, in accepts() and in solve() — a coulomb contact is never
    solved as if it were frictionless (the formulations select contacts by mode). ``coulomb_fixed_point``
    (``decides_modes``, issue #12) takes it, with frictionless or other coulomb contacts beside it, and
    ``coulomb_mixed`` with any contact beside it; the exact 2D
    enumeration refuses this 3D box; the facetized enumerations (modes on polygons) are tested in
    tests/friction/test_coulomb_enumeration.py."""
    p = box(other=other)
    cls = p.classify()
    for name, f in FORMULATIONS.items():
        if name.startswith("coulomb_enumeration_"):
            continue
        ok, why = f.accepts(p, cls)
        if name == "coulomb_fixed_point" and other in ("frictionless", "coulomb") or name == "coulomb_mixed":
            assert ok, (name, why)
            continue
        assert not ok, name
        if not f.decides_modes:
            with pytest.raises(NotApplicableError, match="coulomb"):
                f.solve(p)
    if other in ("frictionless", "coulomb"):
        sol = gaussqp.solve(p)
        assert sol.formulation == "coulomb_fixed_point" and sol.status == "solved"
        assert float(np.sum(sol.lambda_normal)) == pytest.approx(9.81)
    else:  # told sticking / sliding beside it: the mixed route (F9) decides the coulomb contact
        sol = gaussqp.solve(p)
        assert sol.formulation == "coulomb_mixed" and sol.status == "solved"
        assert float(np.sum(sol.lambda_normal)) == pytest.approx(9.81)
        if other == "sticking":  # told sticking pins the box: no tangential acceleration
            np.testing.assert_allclose(sol.acceleration, 0.0, atol=1e-9)


def test_check_reports_no_certificate_for_undecided_modes():
    rep = gaussqp.check(box())
    assert rep.certificates == [] and "coulomb" in rep.skipped
    assert rep.system_class.n == 3


def test_cli_exits_2_with_one_line(tmp_path, capsys):
    f = tmp_path / "p.json"
    f.write_text(dumps(box()))
    assert main(["solve", str(f), "--formulation", "gauss_qp"]) == 2  # a route that needs every mode told
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "coulomb" in err[0]
    assert main(["solve", str(f)]) == 0  # 'auto' picks the mixed route, which decides it
