"""The "Your own robot" examples (README or its page in docs/) run as written (each skipped, saying why, without its extra)."""

from __future__ import annotations

import re

import pytest

from docs_text import section as doc_section


def examples() -> dict[str, str]:
    section = doc_section("Your own robot")
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return {("mujoco" if "import mujoco" in b else "pinocchio"): b for b in blocks}


@pytest.mark.parametrize("extra", ["mujoco", "pinocchio"])
def test_readme_example_runs(extra, capsys):
    pytest.importorskip(extra, reason=f"needs the optional extra gaussqp[{extra}]")
    code = examples()[extra]
    scope: dict = {}
    exec(compile(code, f"README[{extra}]", "exec"), scope)
    sol = scope["sol"]
    assert sol.status == "solved" and sol.certified
    if extra == "mujoco":
        assert scope["imp"].problem.m == 4 and abs(sum(sol.lambda_normal) - 2 * 9.81) < 1e-6
    else:
        assert sol.unique["acceleration"] and sol.unique["multipliers"] and scope["imp"].problem.m == 12
    assert capsys.readouterr().out.startswith("solved True")
