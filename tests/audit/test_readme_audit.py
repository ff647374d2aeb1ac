"""The "Audit your simulator" example (README or its page in docs/) runs as written and says what it claims (issue #29
item 5)."""

from __future__ import annotations

import re

import pytest

from docs_text import section


def test_readme_audit_example(capsys):
    pytest.importorskip("mujoco", reason="needs the optional extra gaussqp[mujoco]")
    text = section("Audit your simulator")
    code = re.findall(r"```python\n(.*?)```", text, flags=re.S)[0]
    assert len(code.strip().splitlines()) <= 10
    scope: dict = {}
    exec(compile(code, "README[audit]", "exec"), scope)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 5 and out[-1] == "0 flagged states of 101"
    W = 7.0 * 9.81
    for line in out[:4]:
        m = re.search(r"([\d.]+) in \[([-\d.]+), ([\d.]+)\] sticking", line)
        assert m, line
        engine, lo, hi = map(float, m.groups())
        assert abs(lo) < 1e-3 and abs(hi - W / 2) < 1e-3 and abs(engine - W / 4) < 1e-2
