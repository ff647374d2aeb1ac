"""``benchmarks/settling_piles.py`` makes the settling pile of the test data (tests/data/generated/NOTICE.md) from the
scene's MJCF: the same arrays, with the MuJoCo version it was made with."""

from __future__ import annotations

import numpy as np
import pytest

from benchmark_scripts import ROOT, load_benchmark

#: the MuJoCo version the test data was made with
MADE_WITH = "4.0.0"


def test_the_script_makes_the_settling_pile_of_the_test_data(tmp_path, capsys):
    mujoco = pytest.importorskip("mujoco", reason="needs the optional extra gaussqp[mujoco]")
    pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib]")
    if mujoco.__version__ != MADE_WITH:
        pytest.skip(f"the test data was made with MuJoCo {MADE_WITH}, this is {mujoco.__version__}")
    from gaussqp.io import fclib

    script = load_benchmark("settling_piles")
    assert script.main(["--states", "8", "--first", "7", "--out", str(tmp_path)]) == 0
    assert "state 7: 91 contacts, n = 210" in capsys.readouterr().out
    made = fclib.load(tmp_path / "box_pile-s1-t130-k7.hdf5")
    shipped = fclib.load(ROOT / "tests" / "data" / "generated" / "box_pile-s1-t130-k7.hdf5")
    assert (made.n, made.m, made.dimension) == (shipped.n, shipped.m, shipped.dimension)
    for name in ("M", "J_n", "J_t"):
        a, b = getattr(made, name), getattr(shipped, name)
        assert (abs(a - b)).max() == 0.0, name
    for name in ("F", "normal_drift", "tangent_drift", "friction"):
        assert np.array_equal(np.asarray(getattr(made, name)), np.asarray(getattr(shipped, name))), name
