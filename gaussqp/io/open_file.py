"""Open any file gaussqp reads — a problem file or a robot model — by its extension.

One registry, :data:`FILE_READERS`, holds one :class:`Reader` record per reader: its name, the extensions it is chosen
by, what it returns, the function that loads a file, the optional extra it needs and the :class:`ImportOptions` it
uses. ``gaussqp/1`` JSON and NPZ (:mod:`gaussqp.io.gaussqp_format`), FCLIB HDF5 (:mod:`gaussqp.io.fclib`, extra
``gaussqp[fclib]``), MuJoCo models (:mod:`gaussqp.io.mujoco`, extra ``gaussqp[mujoco]``) and URDF models through
Pinocchio (:mod:`gaussqp.io.pinocchio`, extra ``gaussqp[pinocchio]``). The optional importers are imported only when
a file of theirs is opened. This is what the command line's ``solve``, ``check``, ``info`` and ``import`` read, and
its ``--importer`` choices and help are built from the registry: adding a reader is adding a record.
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
from ..settings import FILE_BYTES_MAX


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


@dataclass(frozen=True)
class Reader:
    """One reader of :data:`FILE_READERS`: everything gaussqp knows about it, in one place.

    ``name`` (the CLI's ``--importer`` value), ``what`` (a phrase for messages: "a MuJoCo model"), ``suffixes`` (the
    lower-case extensions that choose it), ``returns`` (what :attr:`Opened.problem` is), ``load(path, options) ->
    Opened``, ``module`` (the module that reads the format), ``extra`` and ``package`` (the optional extra that
    brings the package it needs, imported first so that a missing one is a typed error naming the ``pip install``),
    ``uses`` (the :class:`ImportOptions` fields it reads: any other one set is refused, so that an option never
    silently does nothing)."""

    name: str
    what: str
    suffixes: tuple[str, ...]
    returns: str
    load: Callable[[Path, ImportOptions], "Opened"] | None
    module: str | None = None
    extra: str | None = None
    package: str | None = None
    uses: frozenset[str] = frozenset()


#: a shipped problem's name (not a file): the CLI checks its options against this record
LIBRARY = Reader("library", "a shipped problem", (), "ContactProblem", None)


def check_options(reader: str | Reader, options: ImportOptions) -> None:
    """Refuse an option that ``reader`` (a :class:`Reader` or its name) does not use (:attr:`Reader.uses`), naming
    it."""
    rec = reader if isinstance(reader, Reader) else reader_named(reader)
    default = ImportOptions()
    for f in fields(ImportOptions):
        value, unset = getattr(options, f.name), getattr(default, f.name)
        given = value is not None if unset is None else bool(value != unset)  # arrays: compared as "given"
        if f.name not in rec.uses and given:
            used = ", ".join(sorted(rec.uses)) or "none"
            raise UnknownValueError(
                f.name,
                f"is given, but {rec.what} does not use it (it uses: {used})",
                f"drop {f.name}, or give a file of a reader that uses it",
            )


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


def reader_named(name: str) -> Reader:
    """The :class:`Reader` called ``name`` (a file reader of :data:`FILE_READERS`, or ``"library"``)."""
    for rec in FILE_READERS + (LIBRARY,):
        if rec.name == name:
            return rec
    raise UnknownValueError("importer", f"is {name!r}", f"use one of {reader_names()}")


def reader_names() -> list[str]:
    """The file readers' names, in registry order: the CLI's ``--importer`` choices."""
    return [rec.name for rec in FILE_READERS]


def reader_suffixes() -> list[str]:
    """Every extension a reader is chosen by, sorted."""
    return sorted(x for rec in FILE_READERS for x in rec.suffixes)


def by_suffix(suffix: str) -> Reader | None:
    """The reader chosen by the extension ``suffix`` (any case), or None."""
    suffix = suffix.lower()
    return next((rec for rec in FILE_READERS if suffix in rec.suffixes), None)


def readers_help(with_options: bool = False) -> str:
    """The readers by extension, for help texts: ``.json/.npz gaussqp, .hdf5/.h5 fclib, …``; with ``with_options``
    only the readers that use some :class:`ImportOptions` (the model importers)."""
    return ", ".join(
        f"{'/'.join(rec.suffixes)} {rec.name}"
        for rec in FILE_READERS
        if rec.suffixes and (rec.uses or not with_options)
    )


def reader_of(path: str | Path, importer: str | None = None) -> str:
    """The reader name of ``path``: ``importer`` when given, else by extension (:data:`FILE_READERS`; others are
    read as gaussqp/1 JSON)."""
    if importer is not None:
        if importer not in reader_names():
            raise UnknownValueError("importer", f"is {importer!r}", f"use one of {sorted(reader_names())}")
        return importer
    # any other extension is read as gaussqp/1 JSON, whose reader says what is wrong with a file that is not
    rec = by_suffix(Path(path).suffix)
    return "gaussqp" if rec is None else rec.name


def _module(reader: str, path: Path):
    """The reader's module; a missing optional extra is a typed error naming the file and the pip command."""
    rec = reader_named(reader)
    try:
        if rec.package:  # the importers import their package lazily: fail here, naming the file
            importlib.import_module(rec.package)
        return importlib.import_module(rec.module)
    except ImportError as exc:  # the optional package (pinocchio, mujoco, h5py) is not installed
        raise FileFormatError(
            str(path),
            f"needs the {reader} reader, which cannot be imported here ({exc})",
            f"pip install 'gaussqp[{rec.extra or reader}]'",
        ) from None


def read_vector(name: str, value: Any) -> np.ndarray | None:
    """A real vector given as an array/list or as a file (``.npy`` without pickles, ``.json``, or text)."""
    if value is None:
        return None
    if isinstance(value, (str, Path)):
        path = Path(value)
        if not path.is_file():
            raise FileFormatError(name, f"names {str(path)!r}, which is not a file", "give an existing file")
        if path.stat().st_size > FILE_BYTES_MAX:
            raise FileFormatError(name, f"{str(path)!r} is larger than {FILE_BYTES_MAX} bytes", "give a vector file")
        try:
            if path.suffix.lower() == ".npy":
                value = np.load(path, allow_pickle=False)
            elif path.suffix.lower() == ".json":
                value = json.loads(path.read_text(encoding="utf-8"))
            else:  # numbers separated by whitespace and/or commas, on any number of lines
                value = [float(t) for t in re.split(r"[\s,]+", path.read_text(encoding="utf-8").strip()) if t]
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            raise FileFormatError(
                name,
                f"{str(path)!r} is not a vector file ({' '.join(str(exc).split())[:120]})",
                "give .npy, .json (a list of numbers) or whitespace/comma separated numbers",
            )
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
            kw["normal"] = tuple(
                real_array(f"contact {parts[0]} normal", [_number(v, spec) for v in val.split(",")], 1)
            )
        else:
            raise UnknownValueError(
                "contact",
                f"{spec!r} has the part {part!r}",
                "use point|6d, bilateral|unilateral, mu=NUMBER, normal=X,Y,Z",
            )
    if kw.get("kind") == "6d" and "type" not in kw:
        kw["type"] = "bilateral"
    return FrameContact(**kw)


def _number(text: str, spec: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UnknownValueError(
            "contact", f"{spec!r} has {text!r} where a number belongs", "write e.g. mu=0.6"
        ) from None


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
    model, data = mod.load_mujoco(
        path,
        keyframe=options.keyframe,
        qpos=read_vector("qpos", options.qpos),
        qvel=read_vector("qvel", options.qvel),
        settle=options.settle,
    )
    rep = mod.import_mujoco(
        model, data, drift=options.drift, frictionloss=options.frictionloss, torsional=options.torsional, name=path.stem
    )
    params = {
        "qpos": np.asarray(data.qpos).tolist(),
        "qvel": np.asarray(data.qvel).tolist(),
        "keyframe": options.keyframe,
        "settle": options.settle,
        **dict(rep.options),
    }
    return Opened(
        rep.problem,
        "mujoco",
        rep,
        tuple(f"{what}: {why}" for what, why in rep.left_out),
        source=f"MuJoCo model {path.name}",
        parameters=to_jsonable(params),
    )


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
    params = {
        "q": q.tolist(),
        "v": v.tolist(),
        "contacts": list(options.contacts),
        "floating_base": options.floating_base,
        "reference_frame": rep.reference_frame,
    }
    return Opened(
        rep.problem, "pinocchio", rep, left, source=f"Pinocchio model {path.name}", parameters=to_jsonable(params)
    )


#: the readers, one record each (:class:`Reader`); a file whose extension none claims is read as gaussqp/1 JSON
FILE_READERS: tuple[Reader, ...] = (
    Reader(
        "gaussqp",
        "a gaussqp/1 file",
        (".json", ".npz"),
        "ContactProblem",
        _open_gaussqp,
        module="gaussqp.io.gaussqp_format",
    ),
    Reader(
        "fclib",
        "an FCLIB file",
        (".hdf5", ".h5"),
        "ContactProblem (global) or LocalContactProblem (local)",
        _open_fclib,
        module="gaussqp.io.fclib",
        extra="fclib",
        package="h5py",
    ),
    Reader(
        "mujoco",
        "a MuJoCo model",
        (".xml", ".mjcf", ".mjb"),
        "ContactProblem; report: MujocoImport",
        _open_mujoco,
        module="gaussqp.io.mujoco",
        extra="mujoco",
        package="mujoco",
        uses=frozenset({"keyframe", "qpos", "qvel", "settle", "drift", "frictionloss", "torsional"}),
    ),
    Reader(
        "pinocchio",
        "a Pinocchio model",
        (".urdf",),
        "ContactProblem; report: PinocchioImport",
        _open_pinocchio,
        module="gaussqp.io.pinocchio",
        extra="pinocchio",
        package="pinocchio",
        uses=frozenset({"qpos", "qvel", "tau", "floating_base", "contacts"}),
    ),
)


def _legacy_tables() -> dict:
    """The six tables the registry replaced, built from it for code that still reads them."""
    return {
        "READERS": {x: rec.name for rec in FILE_READERS for x in rec.suffixes},
        "EXTRAS": {rec.name: rec.extra for rec in FILE_READERS if rec.extra},
        "PACKAGES": {rec.name: rec.package for rec in FILE_READERS if rec.package},
        "USES": {rec.name: rec.uses for rec in FILE_READERS + (LIBRARY,)},
        "WHAT": {rec.name: rec.what for rec in FILE_READERS + (LIBRARY,)},
        "OPENERS": {rec.name: rec.load for rec in FILE_READERS},
    }


def __getattr__(name: str):
    """``READERS``, ``EXTRAS``, ``PACKAGES``, ``USES``, ``WHAT``, ``OPENERS``: the old parallel tables, computed
    from :data:`FILE_READERS` on each use, with a :class:`DeprecationWarning`."""
    if name in ("READERS", "EXTRAS", "PACKAGES", "USES", "WHAT", "OPENERS"):
        import warnings

        warnings.warn(
            f"gaussqp.io.open_file.{name} is built from FILE_READERS (one Reader record per reader); read the records",
            DeprecationWarning,
            stacklevel=2,
        )
        return _legacy_tables()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_problem(path: str | Path, options: ImportOptions | None = None, *, importer: str | None = None) -> Opened:
    """Read ``path`` with the reader of its extension (:data:`FILE_READERS`) or ``importer``.

    Raises :class:`~gaussqp.errors.InputError` subclasses naming the file or the field: an unknown extension, a
    file that does not parse, a missing optional extra (with the ``pip install`` that brings it)."""
    path = Path(path)
    reader = reader_named(reader_of(path, importer))
    if not path.is_file():
        raise FileFormatError(str(path), "is not a regular file (or does not exist)", "give the path of a file")
    options = options or ImportOptions()
    check_options(reader, options)
    if reader.package:  # a missing optional extra: a typed error naming the file and the pip install, for any reader
        _module(reader.name, path)
    if importer is None and by_suffix(path.suffix) is None:
        try:
            return reader.load(path, options)
        except FileFormatError as exc:  # say which file, and why it was read as JSON
            raise FileFormatError(
                f"{path} ({exc.field})",
                f"read as gaussqp/1 JSON (extension {path.suffix or 'none'!r} "
                f"is not one of {', '.join(reader_suffixes())}): {exc.problem}",
                exc.fix,
            ) from None
    return reader.load(path, options)
