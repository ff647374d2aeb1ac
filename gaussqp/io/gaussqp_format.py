"""The ``gaussqp/1`` file format: a readable JSON form and an ``.npz`` form for large problems.

JSON (schema: ``gaussqp/io/schema/gaussqp-1.schema.json``)::

    {"format": "gaussqp/1", "name": "...", "dimension": 2,
     "mass_matrix": [[...], ...]  or  {"shape": [n, n], "row": [...], "col": [...], "data": [...]},
     "force": [...],
     "contacts": [{"type": "unilateral", "normal": [...], "normal_drift": 0.0,
                   "friction": 0.0, "mode": "frictionless",
                   "tangent": [[...]], "tangent_drift": [...], "slip": [...]}, ...]}

Defaults: ``name`` "", ``dimension`` 2, drifts 0, ``friction`` 0, ``mode`` "coulomb" for a contact with
``friction`` > 0 (stick/slip decided by the solver; a bilateral frictional contact must give "sticking" or
"sliding") and "frictionless" without.
Vectors may also be sparse ``{"shape": [n], "index": [...], "data": [...]}``. ``force`` is F in
``M a + F = J_nᵀλ_n + J_tᵀλ_t`` (gravity appears as +m g). Optional metadata keys:
``description``, ``source``, ``parameters``.

NPZ: the same data as stacked blocks (see :func:`save_npz`), never unpickled. The NPZ form also holds a local
(Delassus) problem ``u = W r + q`` (:class:`gaussqp.LocalContactProblem`): member ``form`` = ``"local"`` with
``delassus`` (W, dense or ``delassus_shape/_row/_col/_data``), ``free_velocity`` (q), ``friction`` (μ),
``dimension``, ``name``, ``description`` (the JSON form has no local problem).
Both forms round-trip losslessly (float64 throughout).

Reading is strict and bounded: JSON numbers only where numbers belong (``true`` is not
1, ``"1.5"`` is not 1.5), duplicate keys refused, sizes and sparse indices whole numbers in range
(``2.0`` is accepted, ``2.7`` and ``-1`` are not), index and data lists of equal length, declared
shapes and file sizes within :mod:`gaussqp.settings` before anything is allocated, nesting at most
``NESTING_DEPTH_MAX`` deep, NPZ members real-valued (complex, boolean, string and object arrays
refused where numbers belong). Every refusal is an :class:`~gaussqp.errors.InputError` naming
the field; unknown top-level and contact keys are refused, and so are unknown NPZ members (the metadata members
``source`` and ``parameters`` are strings). ``tangent`` is a list of rows and ``tangent_drift`` a list, in 2D too,
as the schema says.
"""

from __future__ import annotations

import json
import math
import os
import reprlib
import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

import numpy as np
import scipy.sparse as sp

from ..errors import FileFormatError, FormatVersionError, InputError, ShapeError, WrongTypeError
from ..model.validation import check_count
from ..settings import COORDINATES_MAX, ENTRIES_MAX, FILE_BYTES_MAX
from ..model.local_problem import LocalContactProblem
from ..model.problem import Contact, ContactProblem
from .strict_json import (
    decode as _decode,
    json_count as _json_count,
    json_kind as _json_kind,
    json_number as _json_number,
    json_numbers as _json_numbers,
    json_text as _json_text,
)

FORMAT = "gaussqp/1"
TOP_KEYS = {"format", "name", "dimension", "mass_matrix", "force", "contacts", "description", "source", "parameters"}
CONTACT_KEYS = {"type", "normal", "normal_drift", "friction", "mode", "tangent", "tangent_drift", "slip"}


def _err(field: str, problem: str, fix: str) -> FileFormatError:
    return FileFormatError(field, problem, fix)


def _json_shape(field: str, value: Any, ndim: int, limits: tuple[int, ...]) -> tuple[int, ...]:
    if type(value) is not list or len(value) != ndim:
        raise _err(
            field,
            f"is {_json_kind(value) if type(value) is not list else f'a list of {len(value)}'}",
            f"give a list of {ndim} whole number(s)",
        )
    return tuple(_json_count(f"{field}[{k}]", v, lim) for k, (v, lim) in enumerate(zip(value, limits)))


def _json_indices(field: str, value: Any, bound: int) -> np.ndarray:
    """Integer-valued sparse indices in ``[0, bound)`` (no negative indices that wrap, no truncation)."""
    idx = _json_numbers(field, value, 1)
    if idx.ndim != 1:
        raise _err(field, "is not a list of indices", "give a list of whole numbers")
    if idx.size and not np.all(idx == np.floor(idx)):
        raise _err(field, f"holds a non-integer index {idx[idx != np.floor(idx)][0]:g}", "give whole-number indices")
    if idx.size and (idx.min() < 0 or idx.max() >= bound):
        bad = idx[(idx < 0) | (idx >= bound)][0]
        raise _err(field, f"holds the index {bad:g} outside [0, {bound})", f"keep every index in 0..{bound - 1}")
    return idx.astype(np.int64)


def _sparse_keys(field: str, v: dict, keys: tuple[str, ...]) -> None:
    missing = set(keys) - set(v)
    if missing:
        raise _err(field, f"sparse form lacks {sorted(missing)}", "give {" + ", ".join(f'"{k}"' for k in keys) + "}")


def _equal_lengths(field: str, names: tuple[str, ...], arrays: tuple[np.ndarray, ...]) -> None:
    if len({a.size for a in arrays}) > 1:
        sizes = ", ".join(f"{k} {a.size}" for k, a in zip(names, arrays))
        raise _err(field, f"sparse lists of unequal lengths ({sizes})", "give one index per value in each list")


def _matrix_from_json(field: str, v: Any) -> np.ndarray | sp.csr_matrix:
    """A dense matrix (list of rows) or sparse triplets ``{"shape", "row", "col", "data"}``."""
    if isinstance(v, dict):
        _sparse_keys(field, v, ("shape", "row", "col", "data"))
        shape = _json_shape(f"{field}.shape", v["shape"], 2, (COORDINATES_MAX, COORDINATES_MAX))
        row = _json_indices(f"{field}.row", v["row"], shape[0])
        col = _json_indices(f"{field}.col", v["col"], shape[1])
        data = _json_numbers(f"{field}.data", v["data"], 1)
        _equal_lengths(field, ("row", "col", "data"), (row, col, data))
        return sp.csr_matrix((data.ravel(), (row, col)), shape=shape)  # duplicates are summed
    if not isinstance(v, list):
        raise _err(field, f"is {_json_kind(v)}", "give a list of rows or sparse triplets")
    return _json_numbers(field, v, 2)


def _vector_from_json(field: str, v: Any, n: int | None) -> np.ndarray:
    """A dense vector, or sparse ``{"shape": [n], "index", "data"}`` (declared n checked before allocating)."""
    if not isinstance(v, dict):
        return _json_numbers(field, v, 1)
    _sparse_keys(field, v, ("shape", "index", "data"))
    (size,) = _json_shape(f"{field}.shape", v["shape"], 1, (COORDINATES_MAX,))
    if n is not None and size != n:
        raise ShapeError(field, f"declares shape [{size}], expected [{n}]", f"give a vector of {n} entries")
    index = _json_indices(f"{field}.index", v["index"], size)
    data = _json_numbers(f"{field}.data", v["data"], 1)
    _equal_lengths(field, ("index", "data"), (index, data))
    out = np.zeros(size)
    np.add.at(out, index, data.ravel())  # duplicates are summed, as in sparse matrices
    return out


def _optional(c: dict, key: str, read):
    return None if c.get(key) is None else read(c[key])


def _exact_ndim(field: str, arr: np.ndarray, ndim: int) -> np.ndarray:
    """``arr`` when it has exactly ``ndim`` dimensions, as the schema's denseMatrix / denseVector say; the Python
    constructor's shortcuts (one tangent row as a flat list in 2D, a scalar drift) are not part of the format."""
    if arr.ndim != ndim:
        what = (
            "a list of rows, one per tangent direction: [[...]] in 2D too"
            if ndim == 2
            else "a list of numbers, one per tangent direction: [c] in 2D"
        )
        raise _err(field, f"has {arr.ndim} dimension(s), the gaussqp/1 schema {ndim}", f"write {what}")
    return arr


def _contact_from_json(f: str, c: Any, n: int | None) -> Contact:
    if not isinstance(c, dict):
        raise _err(f, f"is {_json_kind(c)}", "give a JSON object per contact")
    unknown = set(c) - CONTACT_KEYS
    if unknown:
        raise _err(f"{f}.{sorted(unknown)[0]}", "is not a contact key", f"use only {sorted(CONTACT_KEYS)}")
    for key in ("type", "normal"):
        if key not in c:
            raise _err(f"{f}.{key}", "is missing", f'add "{key}"')
    return Contact(
        type=_json_text(f"{f}.type", c["type"]),
        normal=_vector_from_json(f"{f}.normal", c["normal"], n),
        normal_drift=_json_number(f"{f}.normal_drift", c.get("normal_drift", 0.0)),
        friction=_json_number(f"{f}.friction", c.get("friction", 0.0)),
        mode=_json_text(f"{f}.mode", c["mode"]) if "mode" in c else None,  # None: the default of Contact
        tangent=_optional(c, "tangent", lambda v: _exact_ndim(f"{f}.tangent", _json_numbers(f"{f}.tangent", v, 2), 2)),
        tangent_drift=_optional(
            c,
            "tangent_drift",
            lambda v: _exact_ndim(f"{f}.tangent_drift", _json_numbers(f"{f}.tangent_drift", v, 1), 1),
        ),
        slip=_optional(c, "slip", lambda v: _json_numbers(f"{f}.slip", v, 1)),
    )


def _check_top(doc: Any) -> None:
    if not isinstance(doc, dict):
        raise _err("file", f"top level is {_json_kind(doc)}", "the top level must be a JSON object")
    if "format" not in doc:
        raise _err("format", "is missing", f'add "format": "{FORMAT}"')
    if doc["format"] != FORMAT:
        raise FormatVersionError(
            "format",
            f"is {reprlib.repr(doc['format'])}, this gaussqp reads {FORMAT!r}",
            f'convert the file to "{FORMAT}" or upgrade gaussqp',
        )
    unknown = set(doc) - TOP_KEYS
    if unknown:
        raise _err(sorted(unknown)[0], "is not a gaussqp/1 key", f"use only {sorted(TOP_KEYS)}")
    for key in ("mass_matrix", "force", "contacts"):
        if key not in doc:
            raise _err(key, "is missing", f'add "{key}"')
    for key in ("name", "description", "source"):
        if key in doc:
            _json_text(key, doc[key])
    if "parameters" in doc and not isinstance(doc["parameters"], dict):
        raise _err("parameters", f"is {_json_kind(doc['parameters'])}", "give a JSON object (or drop it)")
    if not isinstance(doc["contacts"], list):
        raise _err("contacts", f"is {_json_kind(doc['contacts'])}", "give a list of contact objects")


def from_dict(doc: Any) -> ContactProblem:
    """Build a :class:`ContactProblem` from a parsed ``gaussqp/1`` JSON document.

    Every value is type-checked (JSON numbers only where numbers belong, integer-valued sizes and
    indices in range, declared shapes within :mod:`gaussqp.settings` before allocation); errors are
    :class:`~gaussqp.errors.InputError` subclasses naming the field.
    """
    _check_top(doc)
    M = _matrix_from_json("mass_matrix", doc["mass_matrix"])
    n = M.shape[0] if M.ndim == 2 and M.shape[0] == M.shape[1] else None
    check_count(
        "contacts",
        "rows × coordinates (contacts × n)",
        float(len(doc["contacts"])) * (n or 1),
        ENTRIES_MAX,
        "give fewer contacts (see gaussqp.settings)",
    )
    contacts = [_contact_from_json(f"contacts[{i}]", c, n) for i, c in enumerate(doc["contacts"])]
    F = _vector_from_json("force", doc["force"], n)
    if "dimension" not in doc:
        # the default dimension 2 asks one tangent row per contact: a file without "dimension" whose contacts have
        # more says what is missing, not that its tangents are wrong
        rows = {len(c.tangent) for c in contacts if c.tangent is not None and len(c.tangent) > 1}
        if rows:
            k = min(rows)
            raise _err(
                "dimension",
                f"is not given (2 is assumed, one tangent row per contact), but a contact has {k} tangent rows",
                f'add "dimension": {k + 1}',
            )
    return ContactProblem(
        M,
        F,
        contacts,
        dimension=doc.get("dimension", 2),
        name=doc.get("name", ""),
        description=doc.get("description", ""),
    )


def _matrix_to_json(A):
    if sp.issparse(A):
        c = sp.coo_matrix(A)
        return {"shape": list(c.shape), "row": c.row.tolist(), "col": c.col.tolist(), "data": c.data.tolist()}
    return np.asarray(A).tolist()


def to_dict(problem: ContactProblem, *, source: str | None = None, parameters: dict | None = None) -> dict:
    """The ``gaussqp/1`` JSON document of ``problem`` (all fields explicit), with the optional metadata
    ``source`` (a string: where the problem comes from) and ``parameters`` (a JSON object: the state, an
    importer's options, what gaussqp certified, ...)."""
    if source is not None and not isinstance(source, str):
        raise WrongTypeError(
            "source", f"is a {type(source).__name__}", "give a string (put structured data in 'parameters')"
        )
    if parameters is not None and not isinstance(parameters, dict):
        raise WrongTypeError("parameters", f"is a {type(parameters).__name__}", "give a dict of JSON values")
    if isinstance(problem, LocalContactProblem):
        raise WrongTypeError(
            "problem",
            "is a LocalContactProblem (u = W r + q), which has no gaussqp/1 JSON form",
            "write it as .npz (gaussqp.save_npz) or as FCLIB .hdf5 (gaussqp.io.fclib.save)",
        )
    if not isinstance(problem, ContactProblem):
        raise WrongTypeError("problem", f"is a {type(problem).__name__}", "give a gaussqp.ContactProblem")
    contacts = []
    for ct in problem.contacts:
        d = {
            "type": ct.type,
            "normal": np.asarray(ct.normal).tolist(),
            "normal_drift": ct.normal_drift,
            "friction": ct.friction,
            "mode": ct.mode,
        }
        if ct.tangent is not None:
            d["tangent"] = np.asarray(ct.tangent).tolist()
            d["tangent_drift"] = np.asarray(ct.tangent_drift).tolist()
        if ct.slip is not None:
            d["slip"] = np.asarray(ct.slip).tolist()
        contacts.append(d)
    doc = {"format": FORMAT, "name": problem.name, "dimension": problem.dimension}
    if problem.description:
        doc["description"] = problem.description
    doc.update(
        {"mass_matrix": _matrix_to_json(problem.M), "force": np.asarray(problem.F).tolist(), "contacts": contacts}
    )
    if source is not None:
        doc["source"] = source
    if parameters is not None:
        doc["parameters"] = parameters
    return doc


def loads(text: str | bytes) -> ContactProblem:
    """Parse a ``gaussqp/1`` JSON string (bytes must be UTF-8)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise _err("file", "is not UTF-8 text", "save the JSON file as UTF-8") from None
    if not isinstance(text, str):
        raise _err("file", f"is a {type(text).__name__}", "give the JSON text as a string")
    return from_dict(_decode(text))


def dumps(
    problem: ContactProblem, indent: int | None = 1, *, source: str | None = None, parameters: dict | None = None
) -> str:
    """The JSON text of :func:`to_dict`."""
    return json.dumps(to_dict(problem, source=source, parameters=parameters), indent=indent)


def _regular_file(path: Path) -> None:
    """Refuse what is not a regular file (a directory, ``/dev/zero``, a FIFO) before opening it:
    reading a device or a pipe need not end."""
    if not path.exists():
        raise _err(
            str(path), "does not exist", "give the path of a gaussqp/1 file or a shipped problem name (gaussqp list)"
        )
    if not path.is_file():
        raise _err(
            str(path), "is not a regular file (a directory, a device or a pipe)", "give the path of a gaussqp/1 file"
        )


#: the first eight bytes of every HDF5 file (FCLIB's format), as the HDF5 specification fixes them
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _is_hdf5(path: Path) -> bool:
    """Whether ``path`` holds HDF5's signature where the HDF5 specification lets the superblock begin: at byte 0, 512,
    1024, 2048, … (a user block of 512 · 2^k bytes may precede it); a few reads, whatever the file's size."""
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, 2)
            offset = 0
            while offset + len(HDF5_SIGNATURE) <= size:
                fh.seek(offset)
                if fh.read(len(HDF5_SIGNATURE)) == HDF5_SIGNATURE:
                    return True
                offset = 512 if offset == 0 else 2 * offset
    except OSError:  # unreadable: the reader below says so
        return False
    return False


def _read_bounded(path: Path) -> bytes:
    """At most ``FILE_BYTES_MAX`` bytes of ``path`` (the size is checked on what is read, not trusted)."""
    with path.open("rb") as fh:
        data = fh.read(FILE_BYTES_MAX + 1)
    check_count(str(path), "bytes", len(data), FILE_BYTES_MAX, "store large problems as sparse .npz files")
    return data


def load(path: str | Path) -> ContactProblem | LocalContactProblem:
    """Read a problem file: ``.npz`` by extension (a local problem when its ``form`` says so), JSON otherwise (regular files of at most ``FILE_BYTES_MAX``)."""
    path = Path(path)
    _regular_file(path)
    if path.suffix == ".npz":
        return load_npz(path)
    if _is_hdf5(path):  # before the size limit: FCLIB files of thousands of contacts exceed it
        raise _err(
            str(path),
            "is an HDF5 file, not a gaussqp/1 file",
            "read an FCLIB problem with gaussqp.io.fclib.load (or any supported format with "
            "gaussqp.io.open_file.open_problem)",
        )
    try:
        data = _read_bounded(path)
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _err(
            str(path), "is not UTF-8 text", "give a JSON file, or an .npz file with the .npz extension"
        ) from None
    except OSError as exc:
        raise _err(
            str(path), f"cannot be read ({exc.strerror or type(exc).__name__})", "check the path and its permissions"
        ) from None
    return loads(text)


def dump(
    problem: ContactProblem | LocalContactProblem,
    path: str | Path,
    *,
    source: str | None = None,
    parameters: dict | None = None,
) -> None:
    """Write ``problem`` as JSON, or as NPZ when ``path`` ends with ``.npz`` (NPZ keeps no metadata: ``source``
    and ``parameters`` are written to JSON only; a LocalContactProblem has only the NPZ form)."""
    path = Path(path)
    if path.suffix == ".npz":
        save_npz(problem, path)
    else:
        path.write_text(dumps(problem, source=source, parameters=parameters) + "\n", encoding="utf-8")


def _put_matrix(arrays: dict, key: str, A) -> None:
    if sp.issparse(A):
        c = sp.coo_matrix(A)
        arrays[f"{key}_shape"] = np.array(c.shape, dtype=np.int64)
        arrays[f"{key}_row"], arrays[f"{key}_col"], arrays[f"{key}_data"] = (
            c.row.astype(np.int64),
            c.col.astype(np.int64),
            c.data,
        )
    else:
        arrays[key] = np.asarray(A, dtype=float)


def npz_members(problem: ContactProblem | LocalContactProblem) -> dict[str, np.ndarray]:
    """The NPZ form's members as arrays, without writing them: the block form (mass_matrix, force, J_n,
    normal_drift, J_t, tangent_drift, has_tangent, friction, types, modes, slip + format, name, description,
    dimension) or, for a :class:`gaussqp.LocalContactProblem`, the local form (``form`` = "local", delassus,
    free_velocity, friction, dimension, name, description). :func:`problem_from_npz_members` reads them back."""
    if isinstance(problem, LocalContactProblem):
        arrays = {
            "format": np.array(FORMAT),
            "form": np.array(LOCAL_FORM),
            "name": np.array(problem.name),
            "description": np.array(problem.description),
            "dimension": np.array(problem.dimension, dtype=np.int64),
            "free_velocity": np.asarray(problem.q),
            "friction": np.asarray(problem.mu),
        }
        _put_matrix(arrays, "delassus", problem.W)
        return arrays
    if not isinstance(problem, ContactProblem):
        raise WrongTypeError(
            "problem",
            f"is a {type(problem).__name__}",
            "give a gaussqp.ContactProblem or a gaussqp.LocalContactProblem",
        )
    arrays = {
        "format": np.array(FORMAT),
        "name": np.array(problem.name),
        "description": np.array(problem.description),
        "dimension": np.array(problem.dimension, dtype=np.int64),
        "force": np.asarray(problem.F),
        "normal_drift": np.asarray(problem.normal_drift),
        "tangent_drift": np.asarray(problem.tangent_drift),
        "has_tangent": np.asarray(problem.has_tangent),
        "friction": np.asarray(problem.friction),
        "types": np.asarray(problem.types, dtype="<U10"),
        "modes": np.asarray(problem.modes, dtype="<U12"),
        "slip": np.asarray(problem.slip),
    }
    _put_matrix(arrays, "mass_matrix", problem.M)
    _put_matrix(arrays, "J_n", problem.J_n)
    _put_matrix(arrays, "J_t", problem.J_t)
    return arrays


def save_npz(problem: ContactProblem | LocalContactProblem, path: str | Path) -> None:
    """Write :func:`npz_members` of ``problem`` to ``path`` (compressed NPZ)."""
    np.savez_compressed(path, **npz_members(problem))


#: the value of the NPZ member ``form`` for a local (Delassus) problem; without ``form`` a file is a ContactProblem
LOCAL_FORM = "local"

#: the metadata members of an NPZ file (0-d strings: where the problem comes from, its state as JSON text), as the
#: JSON keys ``source`` and ``parameters``; checked to be strings, not used by the problem
NPZ_METADATA = {"source", "parameters"}

#: the NPZ members gaussqp reads; any other member is refused, as an unknown JSON key is (a misspelt member,
#: ``J_t_shap``, would otherwise be skipped and the problem read without it)
NPZ_KEYS = {
    "format",
    "name",
    "description",
    "dimension",
    "force",
    "normal_drift",
    "tangent_drift",
    "has_tangent",
    "friction",
    "types",
    "modes",
    "slip",
} | {f"{k}{s}" for k in ("mass_matrix", "J_n", "J_t") for s in ("", "_shape", "_row", "_col", "_data")}

#: the NPZ members of the local form (``form`` = :data:`LOCAL_FORM`); a member of one form is refused in the other
NPZ_LOCAL_KEYS = {"format", "form", "name", "description", "dimension", "free_velocity", "friction"} | {
    f"delassus{s}" for s in ("", "_shape", "_row", "_col", "_data")
}

#: what can go wrong decoding bytes that are not a well-formed zip of .npy members
_DECODE_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    SyntaxError,
    TypeError,
    KeyError,
    IndexError,
    OverflowError,
    NotImplementedError,
    RuntimeError,
    RecursionError,
    struct.error,
)


def _read_npy(key: str, f: IO[bytes]) -> np.ndarray:
    """One ``.npy`` member: the header is read and checked (no object dtype, declared size within
    ``ENTRIES_MAX``) before the data are read, so nothing is allocated from a lying header."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise _err(key, f"has .npy format version {version}", "write the file with gaussqp.save_npz")
    if dtype.hasobject:
        raise _err(
            key, "is an object array (it would need pickle)", "store numeric or string arrays; pickles are never loaded"
        )
    if any(not isinstance(s, int) or s < 0 for s in shape):
        raise _err(key, f"declares the shape {shape}", "write the file with gaussqp.save_npz")
    count = math.prod(shape)
    check_count(key, "declared entries", count, ENTRIES_MAX, "give a smaller problem (see gaussqp.settings)")
    if dtype.itemsize == 0:
        return np.zeros(shape, dtype=dtype)
    nbytes = count * dtype.itemsize
    data = f.read(nbytes)
    if len(data) != nbytes:
        raise _err(key, f"is truncated ({len(data)} of {nbytes} bytes)", "write the file again with gaussqp.save_npz")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def read_npz_arrays(
    source: str | Path | IO[bytes],
    keys: frozenset | set | None = None,
    fix: str = "write it with numpy.savez",
    refusal: str = "is not an expected npz member",
) -> dict[str, np.ndarray]:
    """The arrays of an NPZ archive, read without pickles and within the limits: the archive's uncompressed size
    (:data:`~gaussqp.settings.FILE_BYTES_MAX`) is checked before anything is decompressed, each member's header
    (no object dtype, declared size within :data:`~gaussqp.settings.ENTRIES_MAX`) before its data are read.
    ``keys``: the member names allowed (None: any ``.npy`` member); another member is refused (``refusal``, ``fix``).

    Raises
    ------
    gaussqp.errors.FileFormatError
        A member that is not an allowed ``.npy`` array, one stored twice, a lying or truncated header.
    gaussqp.errors.MagnitudeError
        The archive or a member is larger than the limits.
    zipfile.BadZipFile, ValueError, OSError
        Not a zip archive or not readable (the callers turn these into a :class:`FileFormatError`).
    """
    with zipfile.ZipFile(source) as zf:
        infos = zf.infolist()
        for i in infos:
            if not (i.filename.endswith(".npy") and (keys is None or i.filename[:-4] in keys)):
                allowed = "arrays (.npy members)" if keys is None else f"only {sorted(keys)}"
                raise _err(i.filename, refusal, f"store {allowed}, {fix}")
        check_count(
            "file",
            "uncompressed bytes",
            sum(i.file_size for i in infos),
            FILE_BYTES_MAX,
            "store large problems sparse (row/col/data triplets)",
        )
        out: dict[str, np.ndarray] = {}
        for info in infos:
            key = info.filename[:-4]
            if key in out:
                raise _err(key, "is stored twice in the npz file", fix)
            with zf.open(info) as f:
                out[key] = _read_npy(key, f)
        return out


def _npz_members(source: str | Path | IO[bytes]) -> dict[str, np.ndarray]:
    """The arrays of a gaussqp/1 NPZ archive (:func:`read_npz_arrays` with the format's member names)."""
    return read_npz_arrays(
        source,
        NPZ_KEYS | NPZ_LOCAL_KEYS | NPZ_METADATA,
        "gaussqp.save_npz writes them",
        "is not a gaussqp/1 npz member",
    )


_KIND = {
    "b": "booleans",
    "c": "complex numbers",
    "U": "strings",
    "S": "bytes",
    "O": "objects",
    "V": "records",
    "M": "datetimes",
    "m": "time differences",
    "i": "integers",
    "u": "integers",
    "f": "floats",
}


def _npz_get(z: dict, key: str, kinds: str, ndims: tuple[int, ...], what: str) -> np.ndarray:
    """``z[key]``, refused unless its dtype kind is in ``kinds`` and its ndim in ``ndims``."""
    if key not in z:
        raise _err(key, "is missing from the npz file", f"store '{key}' ({what})")
    arr = z[key]
    if arr.dtype.kind not in kinds:
        raise _err(
            key,
            f"holds {_KIND.get(arr.dtype.kind, arr.dtype.str)} (dtype {arr.dtype.str})",
            f"store {what} (complex, boolean, string or object arrays are not converted)",
        )
    if arr.ndim not in ndims:
        raise ShapeError(key, f"has {arr.ndim} dimensions, expected {' or '.join(map(str, ndims))}", f"store {what}")
    return arr


def _npz_real(z: dict, key: str, ndim: int) -> np.ndarray:
    return _npz_get(z, key, "iuf", (ndim,), f"a {ndim}-D float64 array").astype(float)


def _npz_text(z: dict, key: str, default: str | None = None) -> str:
    if default is not None and key not in z:
        return default
    return str(_npz_get(z, key, "U", (0,), "a string")[()])


def _npz_sparse(z: dict, key: str) -> sp.csr_matrix:
    shape = _npz_get(z, f"{key}_shape", "iu", (1,), "the shape as 2 integers")
    if shape.size != 2 or (shape < 0).any():
        raise _err(f"{key}_shape", f"is {shape.tolist()}", "store 2 non-negative integers")
    rows, cols = (int(s) for s in shape)
    check_count(f"{key}_shape", "declared rows", rows, ENTRIES_MAX, "give a smaller problem (see gaussqp.settings)")
    check_count(
        f"{key}_shape", "declared columns", cols, COORDINATES_MAX, "give a smaller problem (see gaussqp.settings)"
    )
    row = _npz_get(z, f"{key}_row", "iu", (1,), "integer row indices")
    col = _npz_get(z, f"{key}_col", "iu", (1,), "integer column indices")
    data = _npz_real(z, f"{key}_data", 1)
    if not row.size == col.size == data.size:
        raise _err(
            key,
            f"has {row.size} rows, {col.size} columns and {data.size} values",
            "store one row and one column index per value",
        )
    for name, idx, bound in (("row", row, rows), ("col", col, cols)):
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= bound):
            raise _err(f"{key}_{name}", f"holds an index outside [0, {bound})", f"keep every index in 0..{bound - 1}")
    return sp.csr_matrix((data, (row.astype(np.int64), col.astype(np.int64))), shape=(rows, cols))


def _npz_matrix(z: dict, key: str) -> np.ndarray | sp.csr_matrix:
    if key in z:
        return _npz_real(z, key, 2)
    if f"{key}_shape" in z:
        return _npz_sparse(z, key)
    raise _err(key, "is missing from the npz file", f"store '{key}' (dense) or '{key}_shape/_row/_col/_data'")


def problem_from_npz_members(z: dict) -> ContactProblem | LocalContactProblem:
    """The problem whose NPZ members (:func:`npz_members`, or an NPZ file's decoded members) are ``z``: every
    member checked (format, form, no stray member, kinds and dimensions) and the problem built by its constructor."""
    for key in sorted(NPZ_METADATA & set(z)):
        _npz_get(z, key, "U", (0,), "one string")
    fmt = _npz_text(z, "format")
    if fmt != FORMAT:
        raise FormatVersionError(
            "format", f"is {reprlib.repr(fmt)}, this gaussqp reads {FORMAT!r}", f"convert the file to {FORMAT!r}"
        )
    form = _npz_text(z, "form", "global")
    if form not in ("global", LOCAL_FORM):
        raise _err(
            "form",
            f"is {reprlib.repr(form)}",
            f"store {LOCAL_FORM!r} for a local problem u = W r + q, or leave 'form' out for a ContactProblem",
        )
    keys = NPZ_LOCAL_KEYS if form == LOCAL_FORM else NPZ_KEYS
    stray = sorted(set(z) - keys - NPZ_METADATA)
    if stray:
        raise _err(
            stray[0], f"is not a member of the {form} form", f"store only {sorted(keys)} (gaussqp.save_npz writes them)"
        )
    if form == LOCAL_FORM:
        return LocalContactProblem(
            _npz_matrix(z, "delassus"),
            _npz_real(z, "free_velocity", 1),
            _npz_real(z, "friction", 1),
            int(_npz_get(z, "dimension", "iu", (0,), "the integer 2 or 3")[()]),
            _npz_text(z, "name", ""),
            _npz_text(z, "description", ""),
        )
    dimension = int(_npz_get(z, "dimension", "iu", (0,), "an integer from 2 to 6")[()])
    return ContactProblem.from_blocks(
        _npz_matrix(z, "mass_matrix"),
        _npz_real(z, "force", 1),
        _npz_matrix(z, "J_n"),
        _npz_real(z, "normal_drift", 1),
        [str(s) for s in _npz_get(z, "types", "U", (1,), "one string per contact")],
        _npz_matrix(z, "J_t"),
        _npz_real(z, "tangent_drift", 1),
        _npz_real(z, "friction", 1),
        [str(s) for s in _npz_get(z, "modes", "U", (1,), "one string per contact")],
        _npz_real(z, "slip", 2),
        _npz_get(z, "has_tangent", "b", (1,), "one boolean per contact"),
        dimension,
        _npz_text(z, "name", ""),
        _npz_text(z, "description", ""),
    )


def load_npz(path: str | Path | IO[bytes]) -> ContactProblem | LocalContactProblem:
    """Read the NPZ form from a path or a binary file object (a LocalContactProblem when ``form`` is "local").

    Never unpickles: object arrays are refused from their header, before any data are read; every
    member's declared size and the archive's uncompressed size are checked against
    :mod:`gaussqp.settings` first, and dtypes must be real (complex arrays are refused, not truncated).
    """
    name = str(path) if isinstance(path, (str, Path)) else "npz file"
    try:
        if isinstance(path, (str, Path)):
            _regular_file(Path(path))
            check_count(name, "bytes", os.stat(path).st_size, FILE_BYTES_MAX, "store large problems sparse")
        z = _npz_members(path)
    except FileNotFoundError:
        raise _err(name, "does not exist", "give the path of a gaussqp/1 .npz file") from None
    except InputError:
        raise
    except _DECODE_ERRORS as exc:
        raise _err(
            name,
            f"is not a readable gaussqp/1 npz file ({type(exc).__name__}: {reprlib.repr(str(exc))})",
            "write it with gaussqp.save_npz (object arrays and pickles are refused)",
        ) from None
    return problem_from_npz_members(z)
