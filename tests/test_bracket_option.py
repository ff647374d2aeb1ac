"""The sticking cross-check's F5 bracket is computed only when asked (issue #28: ``bracket="off"``, the default, says
it was not computed); ``bracket="auto"`` skips it when F4's answer is certified with unique multipliers and runs it
whenever the multipliers are not unique (issue #15); ``bracket="always"`` runs it."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.errors import UnknownValueError


def test_not_computed_unless_asked():
    sol = gaussqp.solve(problems.load("real/humanoid_lying"))  # multipliers not unique: "auto" would run it
    assert sol.status == "solved" and sol.certified and sol.unique["multipliers"] is not True
    cc = sol.crosscheck
    assert cc.bracket.inner == cc.bracket.outer == "not_asked"
    routes = {r.route: r for r in cc.routes}
    for name in ("facetized_inner", "facetized_outer"):
        assert routes[name].outcome == "not compared" and "not computed" in routes[name].reason
    assert cc.agree is True  # the LCP route still compares the acceleration
    assert "inscribed not_asked, circumscribed not_asked" in sol.summary()


def test_skipped_when_certified_with_unique_multipliers():
    p = problems.load("three_finger")
    auto = gaussqp.solve(p, bracket="auto")
    assert auto.status == "solved" and auto.unique["multipliers"] is True
    cc = auto.crosscheck
    assert cc.bracket.inner == cc.bracket.outer == "skipped"
    outcomes = {r.route: r.outcome for r in cc.routes}
    assert outcomes["facetized_inner"] == outcomes["facetized_outer"] == "not compared"
    assert cc.agree is True  # the LCP route still compares the acceleration
    always = gaussqp.solve(p, bracket="always")
    assert always.crosscheck.bracket.inner == "solved" and always.crosscheck.agree is True
    # the answer does not depend on the cross-check
    assert np.array_equal(auto.acceleration, always.acceleration)
    assert np.array_equal(auto.lambda_normal, always.lambda_normal)
    assert auto.status == always.status and auto.certified == always.certified


def test_auto_runs_when_the_multipliers_are_not_unique():
    sol = gaussqp.solve(problems.load("real/humanoid_lying"), bracket="auto")
    assert sol.unique["multipliers"] is not True
    assert sol.crosscheck.bracket.inner == "solved" and sol.crosscheck.bracket.outer == "solved"


def test_auto_runs_when_the_answer_is_not_certified(monkeypatch):
    # an answer that is not "solved" (here: the judge's verdict forced to inaccurate) keeps its bracket
    from gaussqp import dispatch
    from gaussqp.results import INACCURATE

    real = dispatch.FORMULATIONS["sticking_socp"].solve

    def degraded(*args, **kwargs):
        sol = real(*args, **kwargs)
        sol.status = INACCURATE
        return sol

    monkeypatch.setattr(dispatch.FORMULATIONS["sticking_socp"], "solve", degraded)
    sol = gaussqp.solve(problems.load("three_finger"), bracket="auto")
    assert sol.crosscheck.bracket.inner == "solved"


@pytest.mark.parametrize("bad", ["sometimes", "", None, True, 1])
def test_unknown_value_is_a_typed_error(bad):
    with pytest.raises(UnknownValueError) as e:
        gaussqp.solve(problems.load("three_finger"), bracket=bad)
    assert e.value.field == "bracket"
    with pytest.raises(UnknownValueError):
        gaussqp.Solver(problems.load("three_finger"), bracket=bad)


def test_batch_api_passes_it_through():
    p = problems.load("three_finger")
    s = gaussqp.Solver(p, bracket="always")
    assert s.solve(p).crosscheck.bracket.inner == "solved"
    [sol] = gaussqp.solve_many([p], bracket="always")
    assert sol.crosscheck.bracket.inner == "solved"


def test_cli_option(capsys):
    import json

    from gaussqp.cli import main

    assert main(["solve", "three_finger", "--bracket", "always", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["crosscheck"]["bracket"]["inner"] == "solved"
    assert main(["solve", "three_finger", "--bracket", "auto", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["crosscheck"]["bracket"]["inner"] == "skipped"
    assert main(["solve", "three_finger", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["crosscheck"]["bracket"]["inner"] == "not_asked"
    with pytest.raises(SystemExit) as e:  # argparse's choices: one line on stderr, exit 2
        main(["solve", "three_finger", "--bracket", "never"])
    assert e.value.code == 2


def test_readme_example_prints_what_it_says(capsys):
    import re

    from docs_text import PAGES

    text = "".join(p.read_text(encoding="utf-8") for p in PAGES)
    [code] = {b for b in re.findall(r"```python\n(.*?)```", text, re.S) if 'bracket="always"' in b}
    exec(compile(code, "README[bracket]", "exec"), {})
    printed = capsys.readouterr().out.split()
    claimed = [line.split("#")[1].strip() for line in code.splitlines() if line.startswith("print(")]
    assert printed == claimed == ["not_asked", "skipped", "solved"]
