"""Every shipped grasp example gives its expected closure verdicts, each certified (issue #13 item 3)."""

from __future__ import annotations

import pytest

from gaussqp.grasp.closure import force_closure, form_closure
from gaussqp.problems import grasps


@pytest.mark.parametrize("name", sorted(grasps.EXPECTED))
def test_example_closure_verdicts_are_the_expected_ones_and_certified(name):
    g = grasps.load(name)
    want = grasps.EXPECTED[name]
    fc, fo = force_closure(g), form_closure(g)
    assert fc.holds is want["force_closure"] and fc.certified, (fc.reason, fc.certificate)
    assert fo.holds is want["form_closure"] and fo.certified, (fo.reason, fo.certificate)
    if want["form_closure"]:  # form closure (frictionless) implies force closure
        assert fc.holds


def test_the_registry_lists_every_shipped_file():
    assert sorted(grasps.EXPECTED) == grasps.names()
