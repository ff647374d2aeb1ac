"""Open any file gaussqp reads — a problem file or a robot model — by its extension.

One registry, :data:`READERS`, maps an extension to a reader: ``gaussqp/1`` JSON and NPZ
(:mod:`gaussqp.io.gaussqp_format`), FCLIB HDF5 (:mod:`gaussqp.io.fclib`, extra ``gaussqp[fclib]``), MuJoCo
models (:mod:`gaussqp.io.mujoco`, extra ``gaussqp[mujoco]``) and URDF models through Pinocchio
(:mod:`gaussqp.io.pinocchio`, extra ``gaussqp[pinocchio]``). The optional importers are imported only when a
file of theirs is opened. This is what the command line's ``solve``, ``check``, ``info`` and ``import`` read.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import FileFormatError, UnknownValueError
from ..model.validation import real_array
from ..results import to_jsonable
from ..settings import MAX_FILE_BYTES

#: extension → reader name (see :data:`OPENERS`); ``importer=`` overrides it (an MJCF file read by Pinocchio)
READERS: dict[str, str] = {
    ".json": "gaussqp", ".npz": "gaussqp",
    ".hdf5": "fclib", ".h5": "fclib",
    ".xml": "mujoco", ".mjcf": "mujoco", ".mjb": "mujoco",
    ".urdf": "pinocchio",
}

#: the optional extra each reader needs (the message of a missing one names it) and the package it brings
EXTRAS: dict[str, str] = {"fclib": "fclib", "mujoco": "mujoco", "pinocchio": "pinocchio"}
PACKAGES: dict[str, str] = {"fclib": "h5py", "mujoco": "mujoco", "pinocchio": "pinocchio"}


@dataclass(frozen=True)
class ImportOptions:
    """What the model importers need besides the file (all optional).

    MuJoCo (:func:`gaussqp.io.mujoco.load_mujoco`, :func:`gaussqp.io.mujoco.import_mujoco`): ``keyframe``,
    ``qpos``, ``qvel``, ``settle`` steps, ``drift``, ``frictionloss``, ``torsional``. Pinocchio
    (:func:`gaussqp.io.pinocchio.load_model`, :func:`gaussqp.io.pinocchio.import_pinocchio`): ``qpos`` (default
    the neutral configuration), ``qvel`` (default 0), ``tau`` (default 0), ``floating_base``, and ``contacts`` —
    frame specs ``FRAME[:point|6d][:bilateral][:mu=0.6][:normal=0,0,1]`` (see :func:`parse_frame_contact`).
    Vectors are arrays or paths of ``.npy`` (no pickles), ``.json`` or whitespace/comma text files."""

    keyframe: str | int | None = None
    qpos: Any = None
    qvel: Any = None
    tau: Any = None
    settle: int = 0
    drift: str = "jacdot"
    frictionloss: str = "refuse"
    torsional: str = "exact"
    floating_base: bool = False
    contacts: tuple[str, ...] = ()


#: the :class:`ImportOptions` fields each reader uses; any other field set away from its default is refused, so
#: that an option never silently does nothing ("library": a shipped problem's name)
USES: dict[str, frozenset[str]] = {
    "gaussqp": frozenset(), "fclib": frozenset(), "library": frozenset(),
    "mujoco": frozenset({"keyframe", "qpos", "qvel", "settle", "drift", "frictionloss", "torsional"}),
    "pinocchio": frozenset({"qpos", "qvel", "tau", "floating_base", "contacts"}),
}


WHAT = {"gaussqp": "a gaussqp/1 file", "fclib": "an FCLIB file", "library": "a shipped problem",
        "mujoco": "a MuJoCo model", "pinocchio": "a Pinocchio model"}


def check_options(reader: str, options: ImportOptions) -> None:
    """Refuse an option that ``reader`` does not use (:data:`USES`), naming it."""
    default = ImportOptions()
    for f in fields(ImportOptions):
        value, unset = getattr(options, f.name), getattr(default, f.name)
        given = value is not None if unset is None else bool(value != unset)  # arrays: compared as "given"
        if f.name not in USES[reader] and given:
            used = ", ".join(sorted(USES[reader])) or "none"
            raise UnknownValueError(f.name, f"is given, but {WHAT[reader]} does not use it (it uses: {used})",
                                    f"drop {f.name}, or give a file of a reader that uses it")


@dataclass(frozen=True)
class Opened:
    """What :func:`open_problem` read: the ``problem`` (a :class:`~gaussqp.model.problem.ContactProblem`, or the
    FCLIB local form), the reader's name, the importer's full report (``MujocoImport``, ``PinocchioImport`` or
    None), and ``left_out``: one line per constraint of the source that is not in the problem."""

    problem: Any
    reader: str
    report: Any = None
    left_out: tuple[str, ...] = ()
    source: str = ""
    parameters: dict = field(default_factory=dict)


def reader_of(path: str | Path, importer: str | None = None) -> str:
    """The reader name of ``path``: ``importer`` when given, else by extension (:data:`READERS`; others are
    read as gaussqp/1 JSON)."""
    if importer is not None:
        if importer not in OPENERS:
            raise UnknownValueError("importer", f"is {importer!r}", f"use one of {sorted(OPENERS)}")
        return importer
    # any other extension is read as gaussqp/1 JSON, whose reader says what is wrong with a file that is not
    return READERS.get(Path(path).suffix.lower(), "gaussqp")


def _module(reader: str, path: Path):
    """The reader's module; a missing optional extra is a typed error naming the file and the pip command."""
    try:
        if reader in PACKAGES:  # the importers import their package lazily: fail here, naming the file
            importlib.import_module(PACKAGES[reader])
        return importlib.import_module(f"gaussqp.io.{'gaussqp_format' if reader == 'gaussqp' else reader}")
    except ImportError as exc:  # the optional package (pinocchio, mujoco, h5py) is not installed
        raise FileFormatError(str(path), f"needs the {reader} reader, which cannot be imported here ({exc})",
                              f"pip install 'gaussqp[{EXTRAS.get(reader, reader)}]'") from None


def read_vector(name: str, value: Any) -> np.ndarray | None:
    """A real vector given as an array/list or as a file (``.npy`` without pickles, ``.json``, or text)."""
    if value is None:
        return None
    if isinstance(value, (str, Path)):
        path = Path(value)
        if not path.is_file():
            raise FileFormatError(name, f"names {str(path)!r}, which is not a file", "give an existing file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise FileFormatError(name, f"{str(path)!r} is larger than {MAX_FILE_BYTES} bytes", "give a vector file")
        try:
            if path.suffix.lower() == ".npy":
                value = np.load(path, allow_pickle=False)
            elif path.suffix.lower() == ".json":
                value = json.loads(path.read_text(encoding="utf-8"))
            else:  # numbers separated by whitespace and/or commas, on any number of lines
                value = [float(t) for t in re.split(r"[\s,]+", path.read_text(encoding="utf-8").strip()) if t]
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            raise FileFormatError(name, f"{str(path)!r} is not a vector file ({' '.join(str(exc).split())[:120]})",
                                  "give .npy, .json (a list of numbers) or whitespace/comma separated numbers")
    return real_array(name, value, 1).ravel()


def parse_frame_contact(spec: str):
    """A :class:`gaussqp.io.pinocchio.FrameContact` from ``FRAME[:point|6d][:bilateral|unilateral][:mu=μ]
    [:normal=x,y,z]`` (e.g. ``FL_FOOT:mu=0.6``: a unilateral point contact with μ = 0.6 and normal +z)."""
    from .pinocchio import FrameContact

    parts = [s.strip() for s in str(spec).split(":")]
    if not parts[0]:
        raise UnknownValueError("contact", f"is {spec!r}, with no frame name", "write FRAME[:point|6d][:mu=0.6]")
    kw: dict[str, Any] = {"frame": parts[0]}
    for part in parts[1:]:
        key, _, val = part.partition("=")
        if part in ("point", "6d"):
            kw["kind"] = part
        elif part in ("bilateral", "unilateral"):
            kw["type"] = part
        elif key == "mu" and val:
            kw["friction"] = float(real_array(f"contact {parts[0]} mu", [_number(val, spec)], 1)[0])
        elif key == "normal" and val:
            kw["normal"] = tuple(real_array(f"contact {parts[0]} normal",
                                            [_number(v, spec) for v in val.split(",")], 1))
        else:
            raise UnknownValueError("contact", f"{spec!r} has the part {part!r}",
                                    "use point|6d, bilateral|unilateral, mu=NUMBER, normal=X,Y,Z")
    if kw.get("kind") == "6d" and "type" not in kw:
        kw["type"] = "bilateral"
    return FrameContact(**kw)


def _number(text: str, spec: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UnknownValueError("contact", f"{spec!r} has {text!r} where a number belongs", "write e.g. mu=0.6") from None


# ------------------------------------------------------------------------------------------------ readers
def _open_gaussqp(path: Path, options: ImportOptions) -> Opened:
    mod = _module("gaussqp", path)
    problem = mod.load_npz(path) if path.suffix.lower() == ".npz" else mod.load(path)
    return Opened(problem, "gaussqp", source=str(path))


def _open_fclib(path: Path, options: ImportOptions) -> Opened:
    problem = _module("fclib", path).load(path)
    return Opened(problem, "fclib", source=f"FCLIB file {path.name}")


def _open_mujoco(path: Path, options: ImportOptions) -> Opened:
    mod = _module("mujoco", path)
    model, data = mod.load_mujoco(path, keyframe=options.keyframe, qpos=read_vector("qpos", options.qpos),
                                  qvel=read_vector("qvel", options.qvel), settle=options.settle)
    rep = mod.import_mujoco(model, data, drift=options.drift, frictionloss=options.frictionloss,
                            torsional=options.torsional, name=path.stem)
    params = {"qpos": np.asarray(data.qpos).tolist(), "qvel": np.asarray(data.qvel).tolist(),
              "keyframe": options.keyframe, "settle": options.settle, **dict(rep.options)}
    return Opened(rep.problem, "mujoco", rep, tuple(f"{what}: {why}" for what, why in rep.left_out),
                  source=f"MuJoCo model {path.name}", parameters=to_jsonable(params))


def _open_pinocchio(path: Path, options: ImportOptions) -> Opened:
    mod = _module("pinocchio", path)
    model = mod.load_model(path, floating_base=options.floating_base)
    import pinocchio as pin

    q = read_vector("qpos", options.qpos)
    q = np.asarray(pin.neutral(model)) if q is None else q
    v = read_vector("qvel", options.qvel)
    v = np.zeros(model.nv) if v is None else v
    contacts = [parse_frame_contact(s) for s in options.contacts]
    rep = mod.import_pinocchio(model, q, v, read_vector("tau", options.tau), contacts, name=path.stem)
    left = tuple(f"contact {x.index} ({x.frame}): {x.reason}" for x in rep.left_out)
    params = {"q": q.tolist(), "v": v.tolist(), "contacts": list(options.contacts),
              "floating_base": options.floating_base, "reference_frame": rep.reference_frame}
    return Opened(rep.problem, "pinocchio", rep, left, source=f"Pinocchio model {path.name}",
                  parameters=to_jsonable(params))


#: reader name → function(path, options) -> Opened
OPENERS: dict[str, Callable[[Path, ImportOptions], Opened]] = {
    "gaussqp": _open_gaussqp, "fclib": _open_fclib, "mujoco": _open_mujoco, "pinocchio": _open_pinocchio,
}


def open_problem(path: str | Path, options: ImportOptions | None = None, *, importer: str | None = None) -> Opened:
    """Read ``path`` with the reader of its extension (:data:`READERS`) or ``importer``.

    Raises :class:`~gaussqp.errors.InputError` subclasses naming the file or the field: an unknown extension, a
    file that does not parse, a missing optional extra (with the ``pip install`` that brings it)."""
    path = Path(path)
    reader = reader_of(path, importer)
    if not path.is_file():
        raise FileFormatError(str(path), "is not a regular file (or does not exist)", "give the path of a file")
    options = options or ImportOptions()
    check_options(reader, options)
    if importer is None and path.suffix.lower() not in READERS:
        try:
            return OPENERS[reader](path, options)
        except FileFormatError as exc:  # say which file, and why it was read as JSON
            raise FileFormatError(f"{path} ({exc.field})", f"read as gaussqp/1 JSON (extension {path.suffix or 'none'!r} "
                                  f"is not one of {', '.join(sorted(READERS))}): {exc.problem}", exc.fix) from None
    return OPENERS[reader](path, options)
