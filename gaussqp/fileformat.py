"""The ``gaussqp/1`` file format: a readable JSON form and an ``.npz`` form for large problems.

JSON (schema: ``gaussqp/schema/gaussqp-1.schema.json``)::

    {"format": "gaussqp/1", "name": "...", "dimension": 2,
     "mass_matrix": [[...], ...]  or  {"shape": [n, n], "row": [...], "col": [...], "data": [...]},
     "force": [...],
     "contacts": [{"type": "unilateral", "normal": [...], "normal_drift": 0.0,
                   "friction": 0.0, "mode": "frictionless",
                   "tangent": [[...]], "tangent_drift": [...], "slip": [...]}, ...]}

Defaults: ``name`` "", ``dimension`` 2, drifts 0, ``friction`` 0, ``mode`` "frictionless".
Vectors may also be sparse ``{"shape": [n], "index": [...], "data": [...]}``. ``force`` is F in
``M a + F = J_nᵀλ_n + J_tᵀλ_t`` (gravity appears as +m g). Optional metadata keys:
``description``, ``source``, ``parameters``.

NPZ: the same data as stacked blocks (see :func:`save_npz`), read with ``allow_pickle=False``.
Both forms round-trip losslessly (float64 throughout).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .errors import FileFormatError, FormatVersionError, InputError
from .problem import Contact, ContactProblem

FORMAT = "gaussqp/1"
TOP_KEYS = {"format", "name", "dimension", "mass_matrix", "force", "contacts", "description", "source", "parameters"}
CONTACT_KEYS = {"type", "normal", "normal_drift", "friction", "mode", "tangent", "tangent_drift", "slip"}


def _err(field: str, problem: str, fix: str) -> FileFormatError:
    return FileFormatError(field, problem, fix)


def _matrix_from_json(field: str, v):
    if isinstance(v, dict):
        missing = {"shape", "row", "col", "data"} - set(v)
        if missing:
            raise _err(field, f"sparse matrix lacks {sorted(missing)}", 'give {"shape", "row", "col", "data"}')
        try:
            shape = tuple(int(s) for s in v["shape"])
            row, col = np.asarray(v["row"], dtype=np.int64), np.asarray(v["col"], dtype=np.int64)
            data = np.asarray(v["data"], dtype=float)
        except (TypeError, ValueError) as exc:
            raise _err(field, f"sparse triplets are not numeric ({exc})", "give integer row/col and numeric data") from None
        if len(shape) != 2 or not (row.size == col.size == data.size):
            raise _err(field, "sparse triplets of unequal lengths or a shape that is not 2-D",
                       "give shape [rows, cols] and row, col, data of equal length")
        if row.size and (row.min() < 0 or col.min() < 0 or row.max() >= shape[0] or col.max() >= shape[1]):
            raise _err(field, "sparse index out of range", "keep 0 <= row < shape[0] and 0 <= col < shape[1]")
        return sp.csr_matrix((data, (row, col)), shape=shape)  # duplicates are summed
    if not isinstance(v, list):
        raise _err(field, f"is a {type(v).__name__}", "give a list of rows or sparse triplets")
    return v


def _vector_from_json(field: str, v):
    if isinstance(v, dict):
        missing = {"shape", "index", "data"} - set(v)
        if missing:
            raise _err(field, f"sparse vector lacks {sorted(missing)}", 'give {"shape", "index", "data"}')
        try:
            n = int(v["shape"][0])
            out = np.zeros(n)
            np.add.at(out, np.asarray(v["index"], dtype=np.int64), np.asarray(v["data"], dtype=float))
        except (TypeError, ValueError, IndexError) as exc:
            raise _err(field, f"bad sparse vector ({exc})", "give shape [n], index and data of equal length") from None
        return out
    return v


def from_dict(doc: Any) -> ContactProblem:
    """Build a :class:`ContactProblem` from a parsed ``gaussqp/1`` JSON document."""
    if not isinstance(doc, dict):
        raise _err("file", f"top level is a {type(doc).__name__}", "the top level must be a JSON object")
    if "format" not in doc:
        raise _err("format", "is missing", f'add "format": "{FORMAT}"')
    if doc["format"] != FORMAT:
        raise FormatVersionError("format", f"is {doc['format']!r}, this gaussqp reads {FORMAT!r}",
                                 f'convert the file to "{FORMAT}" or upgrade gaussqp')
    unknown = set(doc) - TOP_KEYS
    if unknown:
        raise _err(sorted(unknown)[0], "is not a gaussqp/1 key", f"use only {sorted(TOP_KEYS)}")
    for key in ("mass_matrix", "force", "contacts"):
        if key not in doc:
            raise _err(key, "is missing", f'add "{key}"')
    if not isinstance(doc["contacts"], list):
        raise _err("contacts", f"is a {type(doc['contacts']).__name__}", "give a list of contact objects")
    contacts = []
    for i, c in enumerate(doc["contacts"]):
        f = f"contacts[{i}]"
        if not isinstance(c, dict):
            raise _err(f, f"is a {type(c).__name__}", "give a JSON object per contact")
        unknown = set(c) - CONTACT_KEYS
        if unknown:
            raise _err(f"{f}.{sorted(unknown)[0]}", "is not a contact key", f"use only {sorted(CONTACT_KEYS)}")
        for key in ("type", "normal"):
            if key not in c:
                raise _err(f"{f}.{key}", "is missing", f'add "{key}"')
        slip = c.get("slip")
        if isinstance(slip, (int, float)) and not isinstance(slip, bool):
            slip = [slip]
        try:
            contacts.append(Contact(
                type=c["type"], normal=_vector_from_json(f"{f}.normal", c["normal"]),
                normal_drift=float(c.get("normal_drift", 0.0)), friction=float(c.get("friction", 0.0)),
                mode=c.get("mode", "frictionless"),
                tangent=None if c.get("tangent") is None else np.asarray(c["tangent"], dtype=float),
                tangent_drift=None if c.get("tangent_drift") is None else c["tangent_drift"], slip=slip))
        except (TypeError, ValueError) as exc:
            if isinstance(exc, FileFormatError):
                raise
            raise _err(f, f"has a non-numeric value ({exc})", "give numbers for normal, drifts, friction, tangent") from None
    M = _matrix_from_json("mass_matrix", doc["mass_matrix"])
    F = _vector_from_json("force", doc["force"])
    return ContactProblem(M, F, contacts, dimension=doc.get("dimension", 2), name=doc.get("name", ""),
                          description=doc.get("description", ""))


def _matrix_to_json(A):
    if sp.issparse(A):
        c = sp.coo_matrix(A)
        return {"shape": list(c.shape), "row": c.row.tolist(), "col": c.col.tolist(), "data": c.data.tolist()}
    return np.asarray(A).tolist()


def to_dict(problem: ContactProblem) -> dict:
    """The ``gaussqp/1`` JSON document of ``problem`` (all fields explicit)."""
    contacts = []
    for ct in problem.contacts:
        d = {"type": ct.type, "normal": np.asarray(ct.normal).tolist(), "normal_drift": ct.normal_drift,
             "friction": ct.friction, "mode": ct.mode}
        if ct.tangent is not None:
            d["tangent"] = np.asarray(ct.tangent).tolist()
            d["tangent_drift"] = np.asarray(ct.tangent_drift).tolist()
        if ct.slip is not None:
            d["slip"] = np.asarray(ct.slip).tolist()
        contacts.append(d)
    doc = {"format": FORMAT, "name": problem.name, "dimension": problem.dimension}
    if problem.description:
        doc["description"] = problem.description
    doc.update({"mass_matrix": _matrix_to_json(problem.M), "force": np.asarray(problem.F).tolist(),
                "contacts": contacts})
    return doc


def loads(text: str) -> ContactProblem:
    """Parse a ``gaussqp/1`` JSON string."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _err("file", f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
                   "fix the JSON syntax") from None
    return from_dict(doc)


def dumps(problem: ContactProblem, indent: int | None = 1) -> str:
    return json.dumps(to_dict(problem), indent=indent)


def load(path: str | Path) -> ContactProblem:
    """Read a problem file: ``.npz`` by extension, JSON otherwise."""
    path = Path(path)
    if path.suffix == ".npz":
        return load_npz(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _err(str(path), "does not exist", "give the path of a gaussqp/1 file or a shipped problem name (gaussqp list)") from None
    except UnicodeDecodeError:
        raise _err(str(path), "is not UTF-8 text", "give a JSON file, or an .npz file with the .npz extension") from None
    return loads(text)


def dump(problem: ContactProblem, path: str | Path) -> None:
    """Write ``problem`` as JSON, or as NPZ when ``path`` ends with ``.npz``."""
    path = Path(path)
    if path.suffix == ".npz":
        save_npz(problem, path)
    else:
        path.write_text(dumps(problem) + "\n", encoding="utf-8")


def _put_matrix(arrays: dict, key: str, A) -> None:
    if sp.issparse(A):
        c = sp.coo_matrix(A)
        arrays[f"{key}_shape"] = np.array(c.shape, dtype=np.int64)
        arrays[f"{key}_row"], arrays[f"{key}_col"], arrays[f"{key}_data"] = c.row.astype(np.int64), c.col.astype(np.int64), c.data
    else:
        arrays[key] = np.asarray(A, dtype=float)


def _get_matrix(z, key: str):
    if key in z:
        return np.asarray(z[key], dtype=float)
    if f"{key}_shape" in z:
        shape = tuple(int(s) for s in z[f"{key}_shape"])
        return sp.csr_matrix((z[f"{key}_data"], (z[f"{key}_row"], z[f"{key}_col"])), shape=shape)
    raise _err(key, "is missing from the npz file", f"store '{key}' (dense) or '{key}_shape/_row/_col/_data'")


def save_npz(problem: ContactProblem, path: str | Path) -> None:
    """Write the block form: mass_matrix, force, J_n, normal_drift, J_t, tangent_drift,
    has_tangent, friction, types, modes, slip (+ format, name, description, dimension)."""
    arrays = {"format": np.array(FORMAT), "name": np.array(problem.name), "description": np.array(problem.description),
              "dimension": np.array(problem.dimension, dtype=np.int64), "force": np.asarray(problem.F),
              "normal_drift": np.asarray(problem.normal_drift), "tangent_drift": np.asarray(problem.tangent_drift),
              "has_tangent": np.asarray(problem.has_tangent), "friction": np.asarray(problem.friction),
              "types": np.asarray(problem.types, dtype="<U10"), "modes": np.asarray(problem.modes, dtype="<U12"),
              "slip": np.asarray(problem.slip)}
    _put_matrix(arrays, "mass_matrix", problem.M)
    _put_matrix(arrays, "J_n", problem.J_n)
    _put_matrix(arrays, "J_t", problem.J_t)
    np.savez_compressed(path, **arrays)


def load_npz(path: str | Path) -> ContactProblem:
    """Read the NPZ form (never unpickles: ``allow_pickle=False``)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            fmt = str(z["format"]) if "format" in z else None
            if fmt is None:
                raise _err("format", "is missing from the npz file", f"store format = {FORMAT!r}")
            if fmt != FORMAT:
                raise FormatVersionError("format", f"is {fmt!r}, this gaussqp reads {FORMAT!r}",
                                         f"convert the file to {FORMAT!r}")
            d = int(z["dimension"])
            slip = np.asarray(z["slip"], dtype=float)
            modes = [str(s) for s in z["modes"]]
            return ContactProblem.from_blocks(
                _get_matrix(z, "mass_matrix"), z["force"], _get_matrix(z, "J_n"), z["normal_drift"],
                [str(s) for s in z["types"]], _get_matrix(z, "J_t"), z["tangent_drift"], z["friction"], modes,
                [slip[i] if modes[i] == "sliding" else None for i in range(len(modes))],
                np.asarray(z["has_tangent"], dtype=bool), d, str(z["name"]), str(z["description"]))
    except FileNotFoundError:
        raise _err(str(path), "does not exist", "give the path of a gaussqp/1 .npz file") from None
    except (zipfile.BadZipFile, OSError, KeyError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise _err(str(path), f"is not a readable gaussqp/1 npz file ({type(exc).__name__}: {exc})",
                   "write it with gaussqp.save_npz (object arrays and pickles are refused)") from None
