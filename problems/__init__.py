"""The problem library: the papers' worked examples and generated families.

Installed as ``gaussqp.problems``. Shipped problems are ``data/<name>.json`` files written
by the builders of :mod:`.examples` at their default parameters (``python -m
gaussqp.problems`` regenerates them; a test checks they match the builders).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from gaussqp.errors import FileFormatError
from gaussqp.io.gaussqp_format import dump, load as _load_file
from gaussqp.model.problem import ContactProblem

from . import families
from .examples import EXAMPLES as _FRICTIONLESS, cartesian_manipulator_velocity
from .sliding_examples import EXAMPLES as _SLIDING
from .sticking_examples import EXAMPLES as _STICKING

#: every example builder, by name (frictionless examples, the sticking paper's, the tutorial's sliding ones)
EXAMPLES = {**_FRICTIONLESS, **_STICKING, **_SLIDING}

DATA = Path(__file__).resolve().parent / "data"


def names() -> list[str]:
    """Names of the shipped problems built by :data:`EXAMPLES` (the papers' examples)."""
    return sorted(p.stem for p in DATA.glob("*.json"))


def real_names() -> list[str]:
    """Names of the shipped real-robot problems, ``"real/<name>"`` (``data/real/*.json``, written by the scripts
    of :mod:`gaussqp.problems.real` from MuJoCo and Pinocchio models; each file records its source, state and
    what gaussqp certified in its ``source`` and ``parameters``), then the FCLIB problems (``data/real/*.npz``,
    their ``source`` and ``parameters`` as JSON text members)."""
    return sorted(f"real/{p.stem}" for p in (DATA / "real").glob("*.json")) + sorted(
        f"real/{p.stem}" for p in (DATA / "real").glob("*.npz")
    )  # the FCLIB problems (problems/real/fclib_files.py)


#: the shipped FCLIB files made by the generator of MuJoCo scenes (:mod:`.fclib_scenes`)
GENERATED = DATA / "fclib_generated"


def generated_names() -> list[str]:
    """Names of the shipped generated FCLIB problems, ``"fclib_generated/<file stem>"`` (``data/fclib_generated/
    *.hdf5``, written by ``python -m gaussqp.problems.fclib_scenes``; reading them needs h5py, the extra
    ``gaussqp[fclib]``)."""
    return sorted(f"fclib_generated/{p.stem}" for p in GENERATED.glob("*.hdf5"))


def path(name: str) -> Path:
    """The shipped file of ``name``: ``data/<name>.json``, or ``data/<name>.npz`` when only that exists, or
    ``data/<name>.hdf5`` for a generated FCLIB problem."""
    if name.startswith("fclib_generated/"):
        return DATA / f"{name}.hdf5"
    json_path = DATA / f"{name}.json"
    return json_path if json_path.exists() or not (DATA / f"{name}.npz").exists() else DATA / f"{name}.npz"


def load(name: str) -> ContactProblem:
    """Load a shipped problem by name (:func:`names`, ``"real/<name>"`` of :func:`real_names`, or
    ``"fclib_generated/<name>"`` of :func:`generated_names`, read by :func:`gaussqp.io.fclib.load`)."""
    known = names() + real_names() + generated_names()
    if name not in known:
        raise FileFormatError(
            "problem", f"{name!r} is not a shipped problem", f"use one of {', '.join(known)} (gaussqp list)"
        )
    if name.startswith("fclib_generated/"):
        from gaussqp.io.fclib import load as load_fclib

        return load_fclib(path(name))
    return _load_file(path(name))


def build(name: str, **params) -> ContactProblem:
    """Build an example with non-default parameters."""
    if name not in EXAMPLES:
        raise FileFormatError("problem", f"{name!r} has no builder", f"use one of {', '.join(EXAMPLES)}")
    return EXAMPLES[name](**params)


def _rod_velocity(theta: float, theta_dot: float, x_dot: float = 0.0, l: float = 1.0) -> np.ndarray:
    """(ẋ, ẏ, θ̇) of a rod whose end (x - l cos θ, y - l sin θ) stays on the ground: ẏ = l cos θ θ̇."""
    return np.array([x_dot, l * math.cos(theta) * theta_dot, theta_dot])


#: q̇ of each shipped state: the velocity its drifts and slip signs assume (every contact is active, so
#: ``n_i q̇ = 0``; sticking contacts have ``T_i q̇ = 0``; sliding ones ``sign(T_i q̇) = s_i`` or an
#: impending slip ``T_i q̇ = 0``). Free components (a sliding rod's ẋ) are chosen to match the slip.
VELOCITIES = {
    "hyperstatic_block": lambda: np.zeros(2),
    "rod_wall_guide": lambda: np.zeros(3),  # θ̇ = 0
    "cartesian_manipulator": cartesian_manipulator_velocity,
    "singular_pendulum": lambda: np.zeros(3),  # θ >= 0 active at θ = 0: θ̇ = 0
    "two_mass_spring": lambda: np.zeros(3),
    "hard_finger_grasp": lambda: np.zeros(4),
    "hard_finger_grasp_6dof": lambda: np.zeros(6),
    "rocking_block": lambda: np.zeros(3),
    "rocking_block_A2": lambda: np.zeros(3),
    "block_pendulum": lambda: np.array([0.0, 0.0, 0.0, 1.0]),  # θ̇ = ẋ = ẏ = 0, α̇ = 1 (sticking Ex. 3)
    "three_finger": lambda: np.zeros(6),
    # slip -1: the end moves towards -x (T q̇ = ẋ + l sin θ θ̇ = -1)
    "painleve_rod": lambda: _rod_velocity(math.pi / 6, 0.0, x_dot=-1.0),
    "painleve_rod_paradox": lambda: _rod_velocity(math.atan(2.0), 4.0, x_dot=-1.0 - math.sin(math.atan(2.0)) * 4.0),
    "painleve_klein": lambda: np.array([1.0, 0.0, 0.0]),  # both ends slip towards +x (translation)
    "falling_ladder": lambda: np.zeros(3),  # θ̇ = 0: the shipped slips are impending (T q̇ = 0)
}


def velocity(name: str) -> np.ndarray:
    """q̇ of the shipped problem ``name`` (see :data:`VELOCITIES`)."""
    if name not in VELOCITIES:
        raise FileFormatError(
            "problem", f"{name!r} has no recorded state velocity", f"use one of {', '.join(VELOCITIES)}"
        )
    return np.asarray(VELOCITIES[name](), dtype=float)


def regenerate() -> list[Path]:
    """Write data/<name>.json for every example builder at default parameters."""
    out = []
    for name, builder in EXAMPLES.items():
        dump(builder(), path(name))
        out.append(path(name))
    return out


__all__ = [
    "DATA",
    "EXAMPLES",
    "GENERATED",
    "VELOCITIES",
    "build",
    "families",
    "generated_names",
    "load",
    "names",
    "path",
    "real_names",
    "regenerate",
    "velocity",
]
