"""Issue #25 item 4: the readers refuse what their own format does not allow — the JSON loader 2D tangent shortcuts
its schema rejects, NPZ members it does not know — and the constructors read neither the hidden data of masked
arrays nor booleans as numbers (:func:`gaussqp.step`'s contact rows included)."""

from __future__ import annotations

import io
import json
import warnings
import zipfile

import numpy as np
import pytest

import gaussqp
from gaussqp import Contact, ContactProblem, ContactRows, MechanicalSystem, State, errors


def _doc(**contact) -> dict:
    return {
        "format": "gaussqp/1",
        "dimension": 2,
        "mass_matrix": [[1.0, 0.0], [0.0, 1.0]],
        "force": [0.0, 9.81],
        "contacts": [{"type": "unilateral", "normal": [0.0, 1.0], "friction": 0.5, "mode": "sticking", **contact}],
    }


@pytest.mark.parametrize(
    "contact, field",
    [
        ({"tangent": [1.0, 0.0]}, "contacts[0].tangent"),
        ({"tangent": [[1.0, 0.0]], "tangent_drift": 0.0}, "contacts[0].tangent_drift"),
    ],
)
def test_json_tangent_shortcuts_the_schema_rejects_are_refused(contact, field):
    jsonschema = pytest.importorskip("jsonschema")
    from pathlib import Path

    schema = json.loads((Path(gaussqp.__file__).parent / "io" / "schema" / "gaussqp-1.schema.json").read_text())
    doc = _doc(**contact)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    with pytest.raises(errors.FileFormatError, match="fix: write") as err:
        gaussqp.loads(json.dumps(doc))
    assert err.value.field == field


def test_json_tangent_as_the_schema_says_is_read():
    p = gaussqp.loads(json.dumps(_doc(tangent=[[1.0, 0.0]], tangent_drift=[0.0])))
    assert p.has_tangent[0] and p.modes[0] == "sticking"


def _npz_bytes(problem, extra: dict) -> bytes:
    buf = io.BytesIO()
    gaussqp.save_npz(problem, buf)
    with zipfile.ZipFile(buf, "a") as zf:
        for key, arr in extra.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(arr), allow_pickle=False)
            zf.writestr(f"{key}.npy", member.getvalue())
    return buf.getvalue()


def test_npz_unknown_member_is_refused_naming_it():
    p = gaussqp.problems.load("singular_pendulum")
    with pytest.raises(errors.FileFormatError, match=r"^J_t_shap\.npy: is not a gaussqp/1 npz member"):
        gaussqp.load_npz(io.BytesIO(_npz_bytes(p, {"J_t_shap": np.array([3, 2])})))
    with pytest.raises(errors.FileFormatError, match=r"^notes\.txt"):
        buf = io.BytesIO(_npz_bytes(p, {}))
        with zipfile.ZipFile(buf, "a") as zf:
            zf.writestr("notes.txt", "hello")
        gaussqp.load_npz(io.BytesIO(buf.getvalue()))


def test_npz_metadata_members_are_read_as_strings_only():
    p = gaussqp.problems.load("singular_pendulum")
    q = gaussqp.load_npz(io.BytesIO(_npz_bytes(p, {"source": np.array("here"), "parameters": np.array("{}")})))
    np.testing.assert_array_equal(q.M, p.M)
    with pytest.raises(errors.FileFormatError, match=r"^source: holds floats"):
        gaussqp.load_npz(io.BytesIO(_npz_bytes(p, {"source": np.array(1.0)})))


def test_the_shipped_npz_files_still_load():
    for name in ("real/fclib_CubeH8", "real/fclib_Box_Stacks-i0035-31-0"):
        assert gaussqp.problems.load(name).m > 0


MASKED = np.ma.masked_array([0.0, 9.81], mask=[False, True])


@pytest.mark.parametrize(
    "build, field",
    [
        (lambda: ContactProblem(np.eye(2), MASKED), "force"),
        (lambda: ContactProblem(np.ma.masked_array(np.eye(2), mask=np.eye(2, dtype=bool)), [0.0, 1.0]), "mass_matrix"),
        (lambda: ContactProblem(np.eye(2), [0.0, 1.0], [Contact("unilateral", normal=MASKED)]), "contacts[0].normal"),
        (lambda: ContactProblem(np.eye(2), [np.ma.masked, 1.0]), "force"),
        (lambda: ContactProblem.from_blocks(np.eye(2), [0.0, 1.0], [MASKED]), "J_n"),
    ],
)
def test_masked_entries_are_refused_not_read_through(build, field):
    """A typed error naming the field, and no warning of NumPy's on the way (a masked entry in a list)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(errors.NonNumericError) as err:
            build()
    assert err.value.field == field


def test_a_masked_array_without_masked_entries_is_its_data():
    p = ContactProblem(np.eye(2), np.ma.masked_array([0.0, 9.81]))
    np.testing.assert_array_equal(p.F, [0.0, 9.81])


def _ball(**rows):
    def contacts(q):
        return ContactRows(**{"gaps": [q[0] - 0.1], "normals": [[1.0, 0.0]], **rows})

    return MechanicalSystem(mass=lambda q: np.eye(2), force=lambda q, v, t: np.array([-9.81, 0.0]), contacts=contacts)


@pytest.mark.parametrize(
    "rows, field",
    [
        ({"normals": [[True, False]]}, "contacts(q).normals"),
        (
            {"normals": [[1.0, 0.0]], "tangents": [[False, True]], "friction": [0.5], "modes": "sticking"},
            "contacts(q).tangents",
        ),
        ({"tangents": [[0.0, 1.0]], "friction": [True], "modes": "sticking"}, "contacts(q).friction"),
        ({"tangents": [[0.0, 1.0]], "friction": [0.5], "modes": "sliding", "slip": [[True]]}, "contacts(q).slip"),
        ({"normals": MASKED[None, :]}, "contacts(q).normals"),
    ],
)
def test_step_rows_refuse_booleans_and_masked_entries(rows, field):
    with pytest.raises(errors.NonNumericError) as err:
        gaussqp.step(_ball(**rows), State(q=np.array([0.05, 0.0]), v=np.array([-1.0, 0.0])), 0.01)
    assert err.value.field == field


def test_an_hdf5_file_given_to_load_is_named_with_the_reader_that_reads_it(tmp_path, monkeypatch):
    """``gaussqp.load`` reads gaussqp/1 files; an FCLIB (HDF5) file gets a typed error naming FCLIB's reader, and any
    other binary file the generic one."""
    h5 = tmp_path / "problem.hdf5"
    h5.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(range(128, 256)))
    with pytest.raises(errors.FileFormatError, match=r"HDF5 file.*gaussqp\.io\.fclib\.load"):
        gaussqp.load(h5)
    other = tmp_path / "problem.bin"
    other.write_bytes(bytes(range(128, 256)))
    with pytest.raises(errors.FileFormatError, match="is not UTF-8 text"):
        gaussqp.load(other)
    # the superblock after a user block (at 512 · 2^k bytes, as the HDF5 specification allows), and a file above the
    # size limit: still named as HDF5 (an FCLIB file of thousands of contacts is above it)
    block = tmp_path / "user_block.h5"
    block.write_bytes(bytes(range(128, 256)) * 8 + b"\x89HDF\r\n\x1a\n" + bytes(64))
    with pytest.raises(errors.FileFormatError, match=r"HDF5 file.*gaussqp\.io\.fclib\.load"):
        gaussqp.load(block)
    for at in (256, 1536):  # the signature elsewhere than a superblock offset (0, 512 · 2^k): not HDF5
        off = tmp_path / f"off{at}.bin"
        off.write_bytes((bytes(range(128, 256)) * 16)[:at] + b"\x89HDF\r\n\x1a\n")
        with pytest.raises(errors.FileFormatError, match="is not UTF-8 text"):
            gaussqp.load(off)
    big = tmp_path / "big.hdf5"
    big.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(4096))
    from gaussqp.io import gaussqp_format

    monkeypatch.setattr(gaussqp_format, "FILE_BYTES_MAX", 1024)
    with pytest.raises(errors.FileFormatError, match=r"HDF5 file"):
        gaussqp.load(big)
