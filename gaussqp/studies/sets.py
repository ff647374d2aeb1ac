"""Test sets of a cross-validation study: classes that yield ``(problem_id, problem)`` lazily.

A set is iterated once per study (and again to judge against the reference); nothing is held in memory
beyond the problem being yielded. Every set takes the same filters: the system class (its key
``"mass/constraints/modes"``, e.g. ``"definite/unilateral/frictionless"``, or ``"local"`` for an FCLIB local
problem) and the sizes ``max_n`` (coordinates) and ``max_m`` (contacts).

- :class:`LibrarySet` — every shipped contact problem (:func:`gaussqp.problems.names`, ``real_names``,
  ``generated_names``); :class:`GeneratedFclibSet` — the shipped generated FCLIB files (``fclib_generated``);
- :class:`FamilySet` — generated families (:mod:`gaussqp.problems.families`), deterministic by seed;
- :class:`DirectorySet` — a directory of ``gaussqp/1`` ``.json`` / ``.npz`` files;
- :class:`FclibSet` — a directory of FCLIB ``.hdf5`` / ``.h5`` files (global problems are ContactProblems with
  ``coulomb`` contacts, local ones :class:`~gaussqp.LocalContactProblem`, which only the Coulomb route solves);
- :func:`parse_set` — the CLI's ``SET`` argument: ``library``, ``families[:COUNT[:SEED]]`` or a directory.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Iterator

import numpy as np

from ..errors import FileFormatError, GaussQPError, UnknownValueError
from ..io.open_file import reader_named
from ..model.any_problem import PROBLEM_TYPES, Problem
from ..model.problem import ContactProblem
from ..settings import (
    STUDY_FAMILY_COUNT,
    STUDY_FAMILY_N_MAX,
    STUDY_FAMILY_N_MIN,
    STUDY_FAMILY_SEED,
    STUDY_MUJOCO_COUNT,
    STUDY_MUJOCO_EVERY,
    STUDY_SLIDING_FRICTION,
)

#: the generated families, in the order :class:`FamilySet` cycles through them
FAMILY_KINDS = ("frictionless", "singular", "redundant", "sticking", "sliding", "infeasible", "unbounded")
#: file suffixes of :class:`DirectorySet` and :class:`FclibSet`: their readers' (:data:`gaussqp.io.open_file.FILE_READERS`)
GAUSSQP_SUFFIXES = reader_named("gaussqp").suffixes
FCLIB_SUFFIXES = reader_named("fclib").suffixes


def class_key(problem: Problem) -> str:
    """``"mass/constraints/modes"`` of the problem's system class (:meth:`ContactProblem.classify`), ``"local"``
    for a local (Delassus) problem, which has no mass matrix to classify."""
    return problem.summary().class_key


def problem_size(problem: Problem) -> tuple[int, int]:
    """(n, m): coordinates and contacts; a local problem's n is the size of its W (m·d)."""
    s = problem.summary()
    return int(s.unknowns), int(s.m)


#: the file of a study's directory describing each problem (:func:`describe`), written by the runner, read by the report
PROBLEMS_FILE = "problems.json"


def problem_family(problem: Problem) -> str:
    """The family a report groups the problem in: the scene of a problem made by the FCLIB generator
    (``problems/fclib_scenes.py``, its metadata in the description) with its form (``box_pile``,
    ``box_pile (local)``), else ``"local"`` or the system class key (:func:`class_key`)."""
    try:
        from ..problems.fclib_scenes import metadata
    except ImportError:  # the problem library is not installed beside the package
        meta = {}
    else:
        meta = metadata(problem)
    if meta.get("scene"):
        return str(meta["scene"]) + (" (local)" if meta.get("form") == "local" else "")
    return class_key(problem)


def describe(set_name: str, problem_id: str, problem: Problem) -> dict:
    """One entry of :data:`PROBLEMS_FILE`: ``set``, ``problem``, ``class`` (:func:`class_key`), ``family``
    (:func:`problem_family`), ``form`` (``local``/``global``), ``n``, ``m`` (:func:`problem_size`), ``dimension``."""
    n, m = problem_size(problem)
    return {
        "set": set_name,
        "problem": problem_id,
        "class": class_key(problem),
        "family": problem_family(problem),
        "form": problem.form,
        "n": n,
        "m": m,
        "dimension": int(problem.dimension),
    }


class ProblemSet(ABC):
    """A set of problems yielded lazily as ``(problem_id, problem)``, ids unique within the set.

    Parameters
    ----------
    system_class
        keep only problems whose :func:`class_key` is one of these (a string or a collection)
    max_n, max_m
        keep only problems with at most this many coordinates / contacts
    """

    #: the set's name in the results table (``set`` column)
    name: str = ""
    #: problems of the last iteration that could not be read, id -> the reader's message (never silently dropped:
    #: the runner writes them to ``skipped.json`` beside the results)
    skipped: dict[str, str]

    def __init__(
        self,
        *,
        system_class: str | tuple[str, ...] | list[str] | None = None,
        max_n: int | None = None,
        max_m: int | None = None,
    ):
        if isinstance(system_class, str):
            system_class = (system_class,)
        self.system_class = None if system_class is None else tuple(system_class)
        for field, v in (("max_n", max_n), ("max_m", max_m)):
            if v is not None and (not isinstance(v, (int, np.integer)) or v < 0):
                raise UnknownValueError(field, f"{v!r} is not a size", "give a nonnegative integer or None")
        self.max_n, self.max_m = max_n, max_m
        self.skipped = {}

    @abstractmethod
    def _items(self) -> Iterator[tuple[str, Problem]]:
        """Every problem of the set, unfiltered."""

    def source(self, problem_id: str) -> str | None:
        """What ``gaussqp solve`` reads to reproduce the problem (a shipped name or a file path), or None when the
        problem exists only in memory (a generated family: the runner writes it to a file)."""
        return None

    def keep(self, problem: Problem) -> bool:
        """True when ``problem`` passes the filters."""
        if self.system_class is not None and class_key(problem) not in self.system_class:
            return False
        n, m = problem_size(problem)
        return (self.max_n is None or n <= self.max_n) and (self.max_m is None or m <= self.max_m)

    def __iter__(self) -> Iterator[tuple[str, Problem]]:
        for pid, p in self._items():
            if self.keep(p):
                yield pid, p

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class LibrarySet(ProblemSet):
    """Every shipped contact problem: the papers' examples (:func:`gaussqp.problems.names`), the real-robot and
    FCLIB ones (``real/<name>``, :func:`gaussqp.problems.real_names`), then the generated FCLIB files
    (``fclib_generated/<name>``, :func:`gaussqp.problems.generated_names`; without h5py they are listed in
    ``skipped`` with the reason); only contact problems (no grasp files)."""

    name = "library"

    def _names(self) -> list[str]:
        from .. import problems  # installed beside the package; imported only when the set is used

        return problems.names() + problems.real_names() + problems.generated_names()

    def _items(self) -> Iterator[tuple[str, Problem]]:
        from .. import problems

        self.skipped = {}
        for pid in self._names():
            try:
                p = problems.load(pid)
            except GaussQPError as e:  # a missing extra (h5py) or a refused file: on record, the study goes on
                self.skipped[pid] = str(e)
                continue
            if isinstance(p, PROBLEM_TYPES):
                yield pid, p

    def source(self, problem_id: str) -> str | None:
        return problem_id


def _sliding(rng: np.random.Generator, n: int) -> ContactProblem:
    """An all-sliding problem: a planted sticking problem (:func:`families.sticking`, M ≻ 0) whose unilateral
    contacts slide along random unit directions with friction :data:`STUDY_SLIDING_FRICTION`: a sliding problem
    with no planted answer (it may have none, several, or be infeasible; the exact enumeration decides)."""
    from ..problems import families

    d = int(rng.choice([2, 3]))
    p, _, _ = families.sticking(rng, n=n, m_u=int(rng.integers(1, 4)), m_b=int(rng.integers(0, 2)), dimension=d)
    contacts = []
    for c in p.contacts:
        if c.mode == "sticking":
            s = rng.standard_normal(d - 1)
            s /= np.linalg.norm(s)
            c = dataclasses.replace(c, mode="sliding", slip=s, friction=STUDY_SLIDING_FRICTION)
        contacts.append(c)
    return ContactProblem(
        p.M,
        p.F,
        contacts,
        dimension=d,
        name="sliding_generated",
        description="generated all-sliding problem (random slip directions)",
    )


def family_problem(kind: str, seed: int, index: int) -> ContactProblem:
    """Problem ``index`` of family ``kind`` for ``seed``: drawn from ``numpy.random.default_rng([seed, index])``,
    so each problem depends on (seed, index) alone (a set of 10 is the first 10 of a set of 1,000).

    Families (:mod:`gaussqp.problems.families`): ``frictionless`` (planted KKT point, M ≻ 0), ``singular``
    (planted, rank M = n-1 or n-2, kernel blocked), ``redundant`` (planted with dependent rows), ``sticking``
    (planted all-sticking, d = 2 or 3), ``sliding`` (:func:`_sliding`), ``infeasible`` (contradictory unilateral
    rows), ``unbounded`` (free kernel direction with a descent)."""
    from ..problems import families

    if kind not in FAMILY_KINDS:
        raise UnknownValueError("kinds", f"{kind!r} is not a generated family", f"use one of {', '.join(FAMILY_KINDS)}")
    rng = np.random.default_rng([seed, index])
    n = int(rng.integers(STUDY_FAMILY_N_MIN, STUDY_FAMILY_N_MAX + 1))
    if kind == "frictionless":
        m_b = int(rng.integers(0, 3))
        p = families.planted(rng, n=n, m_b=m_b, m_u=int(rng.integers(1, 5)), max_active=n - m_b)[0]
    elif kind == "singular":
        p = families.planted(
            rng, n=n, m_b=1, m_u=int(rng.integers(1, 4)), rank=n - int(rng.integers(1, 3)), max_active=n - 3
        )[0]
    elif kind == "redundant":
        p = families.planted(
            rng, n=n, m_b=2, m_u=int(rng.integers(1, 4)), redundant=int(rng.integers(1, 3)), max_active=n - 2
        )[0]
    elif kind == "sticking":
        p = families.sticking(
            rng, n=n + 2, m_u=int(rng.integers(1, 4)), m_b=int(rng.integers(0, 2)), dimension=int(rng.choice([2, 3]))
        )[0]
    elif kind == "sliding":
        p = _sliding(rng, n + 2)
    elif kind == "infeasible":
        p = families.infeasible(rng, n=n)
    else:
        p = families.unbounded(rng, n=n)
    return p


class GeneratedFclibSet(LibrarySet):
    """The shipped generated FCLIB files alone (:func:`gaussqp.problems.generated_names`, made from MuJoCo scenes by
    ``problems/fclib_scenes.py``): the set ``fclib_generated``; ids ``fclib_generated/<name>``."""

    name = "fclib_generated"

    def _names(self) -> list[str]:
        from .. import problems

        return problems.generated_names()


class FamilySet(ProblemSet):
    """``count`` generated problems cycling through ``kinds`` (:data:`FAMILY_KINDS`), problem i of kind
    ``kinds[i % len(kinds)]`` built by :func:`family_problem` (deterministic by ``seed`` and i); ids
    ``"<kind>_<i>"``. The set's name is ``families:<count>:<seed>``."""

    def __init__(
        self,
        count: int = STUDY_FAMILY_COUNT,
        seed: int = STUDY_FAMILY_SEED,
        *,
        kinds: tuple[str, ...] | list[str] = FAMILY_KINDS,
        **filters,
    ):
        super().__init__(**filters)
        if not isinstance(count, (int, np.integer)) or count < 0:
            raise UnknownValueError("count", f"{count!r} is not a problem count", "give a nonnegative integer")
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise UnknownValueError("seed", f"{seed!r} is not a seed", "give a nonnegative integer")
        kinds = tuple(kinds)
        bad = [k for k in kinds if k not in FAMILY_KINDS]
        if bad or not kinds:
            raise UnknownValueError(
                "kinds", f"{bad or 'none'} not generated families", f"use some of {', '.join(FAMILY_KINDS)}"
            )
        self.count, self.seed, self.kinds = int(count), int(seed), kinds
        self.name = f"families:{self.count}:{self.seed}"

    def _items(self) -> Iterator[tuple[str, Problem]]:
        for i in range(self.count):
            kind = self.kinds[i % len(self.kinds)]
            yield f"{kind}_{i}", family_problem(kind, self.seed, i)


class DirectorySet(ProblemSet):
    """The ``gaussqp/1`` files (``.json``, ``.npz``) of a directory, sorted, read by
    :func:`gaussqp.io.gaussqp_format.load`; ids are the file names."""

    suffixes = GAUSSQP_SUFFIXES

    def __init__(self, path: str | Path, **filters):
        super().__init__(**filters)
        self.path = Path(path)
        if not self.path.is_dir():
            raise FileFormatError(
                "set",
                f"{str(self.path)!r} is not a directory",
                "give a directory of gaussqp/1 or FCLIB files, 'library' or 'families[:COUNT[:SEED]]'",
            )
        self.name = str(self.path)

    def files(self) -> list[Path]:
        return sorted(f for f in self.path.iterdir() if f.is_file() and f.suffix.lower() in self.suffixes)

    def _read(self, f: Path) -> Problem:
        from ..io.gaussqp_format import load

        return load(f)

    def _items(self) -> Iterator[tuple[str, Problem]]:
        self.skipped = {}
        for f in self.files():
            try:
                p = self._read(f)
            except GaussQPError as e:  # a file this reader refuses (typed error): on record, the study goes on
                self.skipped[f.name] = str(e)
                continue
            yield f.name, p

    def source(self, problem_id: str) -> str | None:
        return str((self.path / problem_id).resolve())


class FclibSet(DirectorySet):
    """The FCLIB files (``.hdf5``, ``.h5``) of a directory, read by :func:`gaussqp.io.fclib.load` (the optional
    extra ``gaussqp[fclib]``): a global problem is a ContactProblem with ``coulomb`` contacts, a local one a
    :class:`~gaussqp.LocalContactProblem` (only the Coulomb route solves it)."""

    suffixes = FCLIB_SUFFIXES

    def _read(self, f: Path) -> Problem:
        from ..io.fclib import load

        return load(f)


class MujocoSet(ProblemSet):
    """States of a MuJoCo model (the optional extra ``gaussqp[mujoco]``): from the model's initial state
    (:func:`gaussqp.io.mujoco.load_mujoco`), ``every`` steps of MuJoCo's own simulation with zero controls between
    ``count`` sampled states, each imported by :func:`gaussqp.io.mujoco.import_mujoco` (default options: resting
    contacts sticking or sliding as the state says). Ids are ``<model>@<k>``; a state the importer refuses is
    listed in ``skipped``. The problems are generated, so the study saves them for the reproducing commands."""

    def __init__(self, path: str | Path, count: int = STUDY_MUJOCO_COUNT, every: int = STUDY_MUJOCO_EVERY, **filters):
        super().__init__(**filters)
        self.path = Path(path)
        if not self.path.is_file():
            raise FileFormatError("set", f"{str(self.path)!r} is not a file", "give a MuJoCo .xml or .mjb model file")
        for name, v in (("count", count), ("every", every)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise UnknownValueError(name, f"is {v!r}", "give a positive integer")
        self.count, self.every = count, every
        self.name = f"mujoco:{self.path.name}"

    def _items(self) -> Iterator[tuple[str, Problem]]:
        from ..io.mujoco import import_mujoco, load_mujoco

        model, data = load_mujoco(self.path)  # MissingExtraError, naming the extra, without MuJoCo
        import mujoco

        self.skipped = {}
        for k in range(self.count):
            for _ in range(self.every):
                mujoco.mj_step(model, data)
            pid = f"{self.path.stem}@{k}"
            try:
                yield pid, import_mujoco(model, data, name=pid).problem
            except GaussQPError as e:
                self.skipped[pid] = str(e)


class UnionSet(ProblemSet):
    """Several sets as one (a directory holding both gaussqp/1 and FCLIB files); ids stay those of each part."""

    def __init__(self, parts: list[ProblemSet], name: str, **filters):
        super().__init__(**filters)
        self.parts, self.name = parts, name

    def _items(self) -> Iterator[tuple[str, Problem]]:
        self.skipped = {}
        for part in self.parts:
            yield from part._items()
            self.skipped.update(part.skipped)

    def source(self, problem_id: str) -> str | None:
        for part in self.parts:
            if isinstance(part, DirectorySet) and (part.path / problem_id).exists():
                return part.source(problem_id)
        return None


def parse_set(spec: str | ProblemSet, **filters) -> ProblemSet:
    """The set named by ``spec``: ``"library"``, ``"fclib_generated"`` (:class:`GeneratedFclibSet`),
    ``"mujoco:MODEL[:COUNT]"`` (:class:`MujocoSet`),
    ``"families[:COUNT[:SEED]]"`` (defaults
    :data:`~gaussqp.settings.STUDY_FAMILY_COUNT`, :data:`~gaussqp.settings.STUDY_FAMILY_SEED`) or a directory
    (its gaussqp/1 files, its FCLIB files, or both); a :class:`ProblemSet` is returned as is. ``filters`` are
    :class:`ProblemSet`'s (``system_class``, ``max_n``, ``max_m``)."""
    if isinstance(spec, ProblemSet):
        return spec
    if not isinstance(spec, str):
        raise UnknownValueError(
            "set", f"{spec!r} is not a set", "give 'library', 'families[:COUNT[:SEED]]' or a directory"
        )
    if spec == "library":
        return LibrarySet(**filters)
    if spec == "fclib_generated" and not Path(spec).is_dir():
        return GeneratedFclibSet(**filters)
    head, *rest = spec.split(":")
    if head == "families" and not Path(spec).is_dir():
        if len(rest) > 2 or not all(r.isdigit() for r in rest):
            raise UnknownValueError(
                "set",
                f"{spec!r} is not families[:COUNT[:SEED]]",
                "write e.g. 'families', 'families:1000' or 'families:1000:7'",
            )
        count = int(rest[0]) if rest else STUDY_FAMILY_COUNT
        seed = int(rest[1]) if len(rest) > 1 else STUDY_FAMILY_SEED
        return FamilySet(count, seed, **filters)
    if head == "mujoco" and len(rest) >= 1:
        model, count = rest[0], STUDY_MUJOCO_COUNT
        if len(rest) == 2 and rest[1].isdigit():
            count = int(rest[1])
        elif len(rest) > 1:
            model = ":".join(rest)
        return MujocoSet(model, count, **filters)
    path = Path(spec)
    if not path.is_dir():
        raise FileFormatError(
            "set",
            f"{spec!r} is neither 'library', 'families[:COUNT[:SEED]]' nor a directory",
            "give one of those (a directory of gaussqp/1 .json/.npz or FCLIB .hdf5 files)",
        )
    parts: list[ProblemSet] = []
    g, f = DirectorySet(path), FclibSet(path)
    if g.files():
        parts.append(g)
    if f.files():
        parts.append(f)
    if not parts:
        raise FileFormatError(
            "set", f"{spec!r} holds no .json, .npz, .hdf5 or .h5 file", "give a directory of gaussqp/1 or FCLIB files"
        )
    if len(parts) == 1:
        part = parts[0]
        return type(part)(path, **filters)
    return UnionSet(parts, str(path), **filters)


__all__ = [
    "FAMILY_KINDS",
    "PROBLEMS_FILE",
    "DirectorySet",
    "FamilySet",
    "FclibSet",
    "GeneratedFclibSet",
    "LibrarySet",
    "ProblemSet",
    "UnionSet",
    "class_key",
    "describe",
    "family_problem",
    "parse_set",
    "problem_family",
    "problem_size",
]
