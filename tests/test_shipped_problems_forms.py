"""Every shipped problem, global or local, goes through ``gaussqp solve``, ``gaussqp info``, ``gaussqp list`` and
the ``library`` study set by the interface both problem forms share (``form``, ``m``, ``dimension``, ``modes``,
``summary()``: :mod:`gaussqp.model.summary`) — no branch on the problem's type here (issue #26 item 4)."""

from __future__ import annotations

import json

import pytest

from gaussqp import problems
from gaussqp.cli import main
from gaussqp.formulations import FORMULATIONS
from gaussqp.model.summary import FORMS
from gaussqp.studies.routes import routes_for
from gaussqp.studies.sets import LibrarySet, describe

NAMES = problems.names() + problems.real_names()


def test_the_shipped_problems_have_both_forms():
    assert {problems.load(n).form for n in NAMES} == set(FORMS)


@pytest.mark.parametrize("name", NAMES)
def test_solve_and_info(name, capsys):
    p = problems.load(name)
    s = p.summary()
    assert (s.form, s.m, s.dimension, s.name) == (p.form, p.m, p.dimension, p.name)
    assert sum(s.modes.values()) == p.m and len(p.modes) == p.m
    assert s.unknowns > 0 and (s.n is None) == (not s.has_mass) == (s.class_key == "local")
    code = main(["solve", name])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"problem      {p.name}  ({s.detail})"
    status = next(x for x in out if x.startswith("status"))
    assert code == (0 if "(certified)" in status else 1)
    assert "certificates" in out
    assert main(["info", name, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["name"], info["m"], info["dimension"]) == (p.name, p.m, p.dimension)
    assert main(["info", name]) == 0


def test_list_has_every_shipped_problem_with_its_summary(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for name in NAMES:
        s = problems.load(name).summary()
        line = next(x for x in lines if x.startswith(f"{name} "))
        assert s.headline() in line and line.endswith(s.description)


def test_library_set_describes_and_routes_every_shipped_problem():
    seen = {}
    for pid, p in LibrarySet():
        seen[pid] = p
        d = describe("library", pid, p)
        s = p.summary()
        assert (d["form"], d["class"], d["n"], d["m"], d["dimension"]) == (
            s.form,
            s.class_key,
            s.unknowns,
            s.m,
            s.dimension,
        )
        routes = routes_for(p)
        assert routes, pid  # every shipped problem has a route
        for r in routes:
            assert FORMULATIONS[r.formulation].takes(p)[0]
    assert set(NAMES) <= set(seen)
