"""The audit adapters read ``.npz`` answers and recordings through the bounded, pickle-free reader of the problem
files (``gaussqp.io.gaussqp_format.read_npz_arrays``): an object array, a header that lies about its size or a stray
non-array member is a typed error naming the file, never a pickle load or an allocation from the header."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from gaussqp.audit.siconos_ import read_answer
from gaussqp.errors import FileFormatError, InputError
from gaussqp.settings import ENTRIES_MAX


def test_an_answer_npz_is_read_and_checked(tmp_path):
    f = tmp_path / "r.npz"
    np.savez(f, r=np.arange(6.0))
    assert np.array_equal(read_answer(f, 6), np.arange(6.0))
    np.savez(f, reaction=np.arange(6.0))
    with pytest.raises(FileFormatError, match="r: is missing"):
        read_answer(f, 6)


def test_an_object_array_is_refused_without_unpickling(tmp_path):
    f = tmp_path / "r.npz"
    np.savez(f, r=np.array([{"x": 1}, None], dtype=object))
    with pytest.raises(FileFormatError, match="object array"):
        read_answer(f, 2)


def test_a_header_declaring_more_than_the_limit_is_refused_before_reading(tmp_path):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f8", "fortran_order": False, "shape": (ENTRIES_MAX + 1,)}
    )  # a header only: the data are not there, and must not be allocated
    f = tmp_path / "r.npz"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("r.npy", buf.getvalue())
    with pytest.raises(InputError, match="declared entries"):
        read_answer(f, 6)


def test_a_recording_with_a_stray_member_is_refused(tmp_path):
    pytest.importorskip("mujoco", reason="reading a recording against a model needs the optional extra gaussqp[mujoco]")
    import mujoco

    from gaussqp.audit.mujoco_ import read_recording

    model = mujoco.MjModel.from_xml_string(
        "<mujoco><worldbody><body><freejoint/><geom size='.1'/></body></worldbody></mujoco>"
    )
    f = tmp_path / "rec.npz"
    np.savez(f, qpos=np.zeros((3, model.nq)), qvel=np.zeros((3, model.nv)))
    assert read_recording(f, model)["qpos"].shape == (3, model.nq)
    with zipfile.ZipFile(f, "a") as z:
        z.writestr("notes.txt", "not an array")
    with pytest.raises(FileFormatError, match="notes.txt: is not an expected npz member"):
        read_recording(f, model)
