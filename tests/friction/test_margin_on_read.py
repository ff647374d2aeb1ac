"""The sticking margin is measured when it is first read (issue #28: a control loop that reads neither the margin nor
μ_min pays for neither): what the solve decides from it, multiplier uniqueness inside the cones, is decided by
``margin_lower``, the least slack the answer's own multipliers achieve on Λ(a), when that is above the boundary
threshold; the margin's programs then run on the first read of a field they fill, once, on the solve's data."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.friction import multiplier_conic as mc, sticking_analysis as sa
from gaussqp.friction.sticking_analysis import MARGIN_FIELDS
from gaussqp.settings import BOUNDARY_RTOL


def _count_margins(monkeypatch) -> list:
    calls: list = []
    real = mc.MultiplierSetConic.margin

    def counted(self, *args, **kw):
        calls.append(1)
        return real(self, *args, **kw)

    monkeypatch.setattr(mc.MultiplierSetConic, "margin", counted)
    return calls


def _humanoid():
    """The humanoid lying, all sticking: 14 contacts on 27 coordinates, its multipliers not unique (Λ(a) not a point)."""
    sol = gaussqp.solve(problems.load("real/humanoid_lying"), crosscheck=False)
    assert sol.status == "solved" and sol.unique["multipliers"] is False
    return sol


@pytest.mark.parametrize("field", sorted(MARGIN_FIELDS) + ["as_dict", "mu_min"])
def test_the_margin_runs_on_the_first_read_only(monkeypatch, field):
    calls = _count_margins(monkeypatch)
    sol = _humanoid()
    v = sol.sticking
    assert calls == [] and v.margin_pending is not None  # uniqueness decided, no margin program run
    threshold = BOUNDARY_RTOL * float(np.abs(sol.generalized_force).max())
    assert v.margin_lower > threshold
    if field == "as_dict":
        v.as_dict()
    else:
        getattr(v, field)  # μ_min's programs start from the margin's point: they settle it first
    assert len(calls) == 1 and v.margin_pending is None
    assert 0 < v.margin_lower <= v.margin and v.signs == {} and v.boundary_contacts == []
    assert v.multipliers is not None and v.acceleration is not None
    _ = (v.margin, v.boundary_contacts, v.as_dict(), v.mu_min)
    assert len(calls) == 1


def test_the_margin_read_later_is_the_one_read_at_once(monkeypatch):
    """The margin read later is the one read at once, whatever the caller did to the answer's arrays in between."""
    at_once = _humanoid().sticking
    fields = {f: getattr(at_once, f) for f in ("margin", "boundary_contacts", "boundary_test", "signs")}
    sol = _humanoid()
    sol.acceleration[:] = 1e3
    sol.lambda_normal[:] = 0.0
    later = sol.sticking
    assert {f: getattr(later, f) for f in fields} == fields
    assert np.array_equal(later.multipliers[0], at_once.multipliers[0])


def test_without_a_deciding_lower_end_the_solve_measures_the_margin(monkeypatch):
    """When the answer's multipliers do not prove a margin above the threshold (here: reported unavailable), the solve
    runs the margin's program to decide uniqueness, as before the lower end existed: the same decision."""
    calls = _count_margins(monkeypatch)
    monkeypatch.setattr(sa, "_slacks_at", lambda *a, **k: None)
    sol = gaussqp.solve(problems.load("real/humanoid_lying"), crosscheck=False)
    assert sol.sticking.margin_lower is None
    assert calls == [1] and sol.sticking.margin_pending is None
    assert sol.unique["multipliers"] is False and sol.sticking.margin > 0


def test_a_margin_on_the_boundary_still_leaves_uniqueness_undecided(monkeypatch):
    """A lower end below the threshold decides nothing: the margin's own value does (here made 0: a contact on its
    cone boundary), as before."""
    monkeypatch.setattr(sa, "_slacks_at", lambda *a, **k: {0: 0.0})
    real = sa.margin
    monkeypatch.setattr(sa, "margin", lambda *a, **k: (0.0, real(*a, **k)[1]))
    sol = gaussqp.solve(problems.load("real/humanoid_lying"), crosscheck=False)
    assert sol.sticking.margin_lower == 0.0 and sol.sticking.margin == 0.0
    assert sol.unique["multipliers"] is None and "undecided" in sol.message


def test_concurrent_first_reads_of_margin_and_mu_min_run_each_once(monkeypatch):
    calls = _count_margins(monkeypatch)
    v = _humanoid().sticking
    seen: dict = {}
    names = ["margin", "mu_min", "boundary_contacts", "mu_min_lower"] * 2
    threads = [
        threading.Thread(target=lambda k=k, f=f: seen.__setitem__(k, getattr(v, f))) for k, f in enumerate(names)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == len(names) and len(calls) == 1
    assert v.margin_pending is None and v.mu_min_pending is None and seen[0] == v.margin and seen[1] == v.mu_min


def test_an_error_in_the_margin_s_programs_reaches_the_read_and_leaves_them_pending():
    v = _humanoid().sticking
    real, calls = v.margin_pending, []

    def fails_once():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a program raised")
        return real()

    object.__setattr__(v, "margin_pending", fails_once)
    with pytest.raises(RuntimeError, match="a program raised"):
        _ = v.margin
    assert v.margin_pending is fails_once
    assert v.margin > 0 and len(calls) == 2


def test_assigned_values_copies_and_pickles_settle_the_margin_first():
    v = _humanoid().sticking
    v.margin = 5.0  # the programs run first; the value given stays, the others are filled
    assert (v.margin, v.margin_pending) == (5.0, None) and v.multipliers is not None
    for clone in (lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy, copy.copy):
        v = _humanoid().sticking
        w = clone(v)
        assert v.margin_pending is None and w.margin == v.margin and w.boundary_contacts == v.boundary_contacts


def _with_sticking_contacts() -> list[str]:
    names = [n for n in problems.names() + problems.real_names() if not n.startswith("real/fclib")]
    return [n for n in names if any(str(m) == "sticking" for m in problems.load(n).modes)]


@pytest.mark.parametrize("name", _with_sticking_contacts())
def test_every_shipped_sticking_problem_gets_the_eager_margin_s_uniqueness_verdict(name):
    """Whatever decided it (the lower end or the margin measured in the solve), the uniqueness verdict is the one the
    margin itself gives: a non-unique multiplier set stays non-unique inside the cones (False) exactly when the margin
    is above the boundary threshold, and is undecided (None) when it is not; and the lower end never exceeds it."""
    sol = gaussqp.solve(problems.load(name), crosscheck=False)
    v = sol.sticking
    if sol.status != "solved" or v is None:
        pytest.skip(f"{name}: {sol.status}, no feasible sticking verdict")
    if v.margin_lower is not None and v.margin is not None:
        assert v.margin_lower <= v.margin
    got = sol.unique.get("multipliers")
    if got is None or got is False:
        threshold = BOUNDARY_RTOL * float(np.abs(sol.generalized_force).max(initial=0.0))
        on_boundary = v.margin is not None and v.margin <= threshold
        assert got is (None if on_boundary else False)


def test_a_program_optimum_below_a_value_achieved_is_replaced_by_it():
    """Three floor contacts and a frictional bilateral pin, common μ just above μ_min (a generated case): the margin's
    conic program returned −0.0071 (its admissible forces ~1e3 times the load), while the answer's own multipliers, put
    exactly on Λ(a), achieve 8.1e-4 on every contact. The margin is that achieved value, at that point and with its
    signs, and uniqueness inside the cones stays False (the program's value had made it "undecided")."""
    M = np.array([
        [0.0011580475106154453, 0.00025399800064108415, 0.00021871565141824378, -0.00012536108551727736, -0.00010582662630823128, 4.591313232458079e-05],
        [0.00025399800064108415, 0.001583453481132146, 0.00039352406949076196, -6.795581911551894e-05, -0.00044179488736224257, 3.0458937680805583e-05],
        [0.00021871565141824378, 0.00039352406949076196, 0.0017254855150014388, -4.523700033337707e-05, -0.00029205792300732365, 0.00015669545351450773],
        [-0.00012536108551727736, -6.795581911551894e-05, -4.523700033337707e-05, 0.0016176169162680821, 6.639570128217132e-06, 0.00024169964397195522],
        [-0.00010582662630823128, -0.00044179488736224257, -0.00029205792300732365, 6.639570128217132e-06, 0.0021415574763664815, 0.0001283981807832643],
        [4.591313232458079e-05, 3.0458937680805583e-05, 0.00015669545351450773, 0.00024169964397195522, 0.0001283981807832643, 0.0018622786510473423],
    ])  # fmt: skip
    F = np.array([
        -0.005108077956345721, -0.0006060065083669775, 0.016927012902164116, 7.002371440990148e-05,
        0.00010049209081003435, -0.0005162080116746708,
    ])  # fmt: skip
    Jn = np.array([
        [1.0, 0.0, 0.0, 0.0, -0.5, -1.0], [1.0, 0.0, 0.0, 0.0, -0.5, 1.0], [1.0, 0.0, 0.0, 0.0, -0.5, -1.0],
        [0.0, 1.0, 0.0, -0.23153360053396743, 0.0, 1.0],
    ])  # fmt: skip
    Jt = np.array([
        [0.0, 1.0, 0.0, 0.5, -0.0, 1.0], [0.0, 0.0, 1.0, 1.0, -1.0, 0.0], [0.0, 1.0, 0.0, 0.5, -0.0, 1.0],
        [0.0, 0.0, 1.0, -1.0, -1.0, 0.0], [0.0, 1.0, 0.0, 0.5, 0.0, -1.0], [0.0, 0.0, 1.0, 1.0, 1.0, -0.0],
        [0.0, 0.0, 1.0, -0.7375584100090067, -1.0, 0.0], [1.0, 0.0, 0.0, -0.0, 0.23153360053396743, 0.7375584100090067],
    ])  # fmt: skip
    types = ["unilateral", "unilateral", "unilateral", "bilateral"]
    p = gaussqp.ContactProblem.from_blocks(M, F, Jn, None, types, Jt, None, np.full(4, 1.0817987994169556), "sticking",
                                           None, None, 3)  # fmt: skip
    sol = gaussqp.solve(p, crosscheck=False)
    v = sol.sticking
    assert sol.status == "solved" and sol.unique["multipliers"] is False and not sol.message
    assert v.margin_lower == pytest.approx(8.137e-4, rel=1e-3)
    assert v.margin == v.margin_lower and v.multipliers is not None
    # the evidence holds: at the reported multipliers every sticking contact's slack is at least the margin
    lam_n, lam_t = v.multipliers
    for i in range(p.m):
        slack = p.friction[i] * v.signs.get(i, 1) * lam_n[i] - np.linalg.norm(lam_t[i])
        assert slack >= v.margin - 1e-12
