"""The optional metadata of gaussqp/1 JSON: ``source`` (a string) and ``parameters`` (an object), written by
``dump``/``dumps``/``to_dict`` and accepted by the reader."""

from __future__ import annotations

import json

import pytest

import gaussqp
from gaussqp.errors import WrongTypeError
from gaussqp.io.gaussqp_format import dump, dumps, load, loads


def test_metadata_is_written_and_the_file_still_loads(tmp_path):
    p = gaussqp.problems.load("rod_wall_guide")
    f = tmp_path / "p.json"
    dump(p, f, source="MuJoCo model x.xml, keyframe 0", parameters={"qpos": [0.0, 1.0], "certified": True})
    doc = json.loads(f.read_text())
    assert doc["source"].startswith("MuJoCo") and doc["parameters"]["qpos"] == [0.0, 1.0]
    assert load(f).n == p.n
    assert "source" not in json.loads(dumps(p))


@pytest.mark.parametrize("kw", [dict(source={"a": 1}), dict(parameters=[1, 2])])
def test_metadata_of_the_wrong_type_is_refused(kw):
    with pytest.raises(WrongTypeError):
        dumps(gaussqp.problems.load("rod_wall_guide"), **kw)
    assert loads(dumps(gaussqp.problems.load("rod_wall_guide"))).m == 2
