"""FCLIB benchmark problems generated from MuJoCo scenes: ``python -m problems.fclib_scenes``.

FCLIB's own collection (Acary, Brémond, Huber 2018) is stored in git-LFS and out of reach here, so this module makes
problems of the same kind and scale from MuJoCo scenes written below as MJCF strings:

============  ====================================================================================================
scene          what is simulated
============  ====================================================================================================
box_pile       boxes of random sizes and orientations dropped into an open box (floor and four walls)
sphere_pile    spheres of random radii dropped into an open box
capsule_pile   capsules dropped into an open box
mixed_pile     boxes, spheres and capsules dropped on a plane
box_stacks     columns of boxes stacked on a plane with small random offsets (FCLIB's Box_Stacks)
box_wall       a brick wall in running bond on a plane (each brick rests on two)
chain          chains of capsules joined by ball joints, dropped in coils on tilted tiles (articulated, M not
               block-diagonal)
quadruped      four-legged bodies (a box torso, hinged thighs and shins with joint springs) on tilted tiles
humanoid       humanoid-like bodies (capsule torso, head, arms, legs; ball and hinge joints with springs) on a
               heightfield of random bumps
============  ====================================================================================================

Problem ``i`` of a set of seed ``s`` is scene ``SCENES[i % 9]`` drawn from ``numpy.random.default_rng([s, i])``
(:func:`make`): its size (a number of bodies aimed at a contact count drawn log-uniformly between ``min_contacts``
and ``max_contacts``), its geometry and friction coefficient μ, and the number of MuJoCo steps that settle it.
Then, as in ``problems/coulomb_scenes.py``:

1. MuJoCo settles the scene (``mj_step`` with zero controls, timestep 2 ms, elliptic cones, condim 3 everywhere);
2. the state is put at rest (``qvel = 0``), so the drifts ``J̇q̇`` vanish and the problem is the rigid dynamics of
   the settled pose;
3. a seed-drawn share of the free bodies (or robot torsos) is pushed horizontally through ``xfrc_applied`` by up to
   :data:`MAX_PUSH` times its own friction threshold ``μ m g``, so that the answers mix sticking and sliding;
4. :func:`gaussqp.io.mujoco.import_mujoco` imports it with every contact of mode ``"coulomb"`` (stick/slip left to
   the solver: the meaning of an FCLIB problem);
5. :func:`gaussqp.io.fclib.save` writes the global form ``M v = H r + f, u = Hᵀ v + w`` (read back as acceleration
   data ``a ≡ v``, ``f = −F``); for every :data:`LOCAL_EVERY`-th problem whose ``W`` is affordable
   (``m·d <= LOCAL_MAX_UNKNOWNS``) also the local form ``u = W r + q``, ``W = Hᵀ M⁻¹ H`` (symmetrized: it is
   symmetric in exact arithmetic), ``q = Hᵀ M⁻¹ f + w``, in a second file.

Every file's ``/fclib_*/info/description`` holds the metadata as JSON after :data:`META_PREFIX` (scene, seed, index,
contacts, coordinates, bodies, settling steps, μ, pushed bodies, form, MuJoCo version, generator), read back by
:func:`metadata`. The same (seed, index) gives the same file on the same machine (MuJoCo's simulation is
deterministic on one thread); the shipped set is checked by ``tests/io/test_fclib_scenes.py``.

Command line (regenerate the shipped set, or a study's set)::

    python -m problems.fclib_scenes --out problems/data/fclib_generated --count 18 --seed 0 --max-contacts 120
    python -m problems.fclib_scenes --out /tmp/fclib_gen --count 320 --seed 1 --max-contacts 300

Needs the extras ``gaussqp[mujoco]`` and ``gaussqp[fclib]`` (``mujoco``, ``h5py``); the module imports without
them (:class:`~gaussqp.errors.MissingExtraError` when a function needs one).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from gaussqp.errors import (
    FileFormatError,
    InputTooLargeError,
    MagnitudeError,
    MissingExtraError,
    UnknownValueError,
    UnsupportedModelError,
    WrongTypeError,
)
from gaussqp.model.local_problem import LocalContactProblem
from gaussqp.model.problem import ContactProblem
from gaussqp.settings import (
    FCLIB_SCENES_LOCAL_EVERY,
    FCLIB_SCENES_LOCAL_UNKNOWNS_MAX,
    FCLIB_SCENES_CONTACTS_MAX,
    FCLIB_SCENES_COUNT_MAX,
)

#: the scenes, in the order problem ``i`` cycles through them
SCENES = (
    "box_pile",
    "sphere_pile",
    "capsule_pile",
    "mixed_pile",
    "box_stacks",
    "box_wall",
    "chain",
    "quadruped",
    "humanoid",
)
#: the description of a generated file starts with this, then the metadata as JSON
META_PREFIX = "gaussqp generated FCLIB problem; metadata: "
#: the generator's name and version in the metadata (bump when a change alters the files of a seed)
GENERATOR = "problems/fclib_scenes.py v1"
#: MuJoCo's timestep (s) of every scene
TIMESTEP = 0.002
#: settling steps drawn uniformly in this range (seed-dependent)
SETTLE_RANGE = (400, 1500)
#: largest push, in units of the pushed body's friction threshold ``μ m g``
MAX_PUSH = 2.0
#: share of the free bodies (robots: of the torsos) that are pushed
PUSH_SHARE = 0.3
#: friction coefficient μ drawn uniformly in this range, one per scene
MU_RANGE = (0.3, 0.9)
#: every LOCAL_EVERY-th problem also gets its local form (when affordable); see gaussqp.settings
LOCAL_EVERY = FCLIB_SCENES_LOCAL_EVERY
#: the local form is written only when m·d is at most this (a dense W of that size); see gaussqp.settings
LOCAL_MAX_UNKNOWNS = FCLIB_SCENES_LOCAL_UNKNOWNS_MAX
#: contacts a scene makes per body, roughly: how many bodies a target contact count needs (measured on seed 1)
CONTACTS_PER_BODY = {
    "box_pile": 3.7,
    "sphere_pile": 1.0,
    "capsule_pile": 2.0,
    "mixed_pile": 2.3,
    "box_stacks": 5.9,
    "box_wall": 6.5,
    "chain": 1.7,
    "quadruped": 0.4,
    "humanoid": 0.65,
}
MATH_INFO = (
    "Coulomb friction with the stick/slip mode unknown (De Saxcé's form). Global: M v = H r + f, "
    "u = Hᵀ v + w, r_i in the cone ‖r_T‖ <= μ r_N. The data are a MuJoCo state at rest read at the "
    "acceleration level (v is the acceleration, f = qfrc_smooth with the push, w = J̇q̇ = 0); local: "
    "u = W r + q, W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w."
)


def _mujoco():
    try:
        import mujoco
    except ImportError as exc:  # exercised only without the extra
        raise MissingExtraError("problems.fclib_scenes needs MuJoCo: pip install 'gaussqp[mujoco]'") from exc
    return mujoco


# ---------------------------------------------------------------- MJCF of the scenes


def _f(x: float) -> str:
    return f"{float(x):.6g}"


def _v(*xs: float) -> str:
    return " ".join(_f(x) for x in xs)


def _header(name: str, mu: float, memory_mb: int, assets: str = "") -> str:
    return (
        f"<mujoco model='{name}'><option timestep='{TIMESTEP}' cone='elliptic' integrator='implicitfast'/>"
        f"<size memory='{memory_mb}M'/>{assets}"
        f"<default><geom condim='3' friction='{_f(mu)} 0.005 0.0001' solref='0.01 1'/>"
        "<joint damping='0.5'/></default><worldbody>"
        "<light pos='0 0 5' dir='0 0 -1'/>"
    )


def _footer() -> str:
    return "</worldbody></mujoco>"


def _memory_mb(bodies: int) -> int:
    """MuJoCo's arena for a scene of ``bodies`` bodies (its dense constraint Jacobian grows with the square)."""
    return int(min(4000, 64 + 0.02 * bodies * bodies))


def _container(half: float, wall: float = 0.4) -> str:
    """Floor plane and four walls of an open box of inner half width ``half``."""
    t = 0.05
    walls = "".join(
        f"<geom type='box' size='{_v(sx, sy, wall)}' pos='{_v(px, py, wall)}'/>"
        for sx, sy, px, py in (
            (t, half + 2 * t, half + t, 0),
            (t, half + 2 * t, -half - t, 0),
            (half, t, 0, half + t),
            (half, t, 0, -half - t),
        )
    )
    return f"<geom name='floor' type='plane' size='{_v(half + 1, half + 1, 0.1)}'/>" + walls


def _tiles(rng: np.random.Generator, half: float, tile: float = 0.25, tilt_deg: float = 8.0) -> str:
    """Uneven ground: a grid of static boxes of half size ``tile``, each tilted up to ``tilt_deg`` degrees about a
    random horizontal axis and raised up to 2 cm, over a floor plane."""
    out = [f"<geom name='floor' type='plane' size='{_v(half + 1, half + 1, 0.1)}'/>"]
    k = max(1, int(math.ceil(half / tile)))
    for i in range(-k, k):
        for j in range(-k, k):
            ang = math.radians(float(rng.uniform(0, tilt_deg)))
            phi = float(rng.uniform(0, 2 * math.pi))
            axis = (math.cos(phi), math.sin(phi), 0.0)
            z = float(rng.uniform(-0.02, 0.0))
            pos = _v((i + 0.5) * 2 * tile, (j + 0.5) * 2 * tile, z)
            out.append(
                f"<geom type='box' size='{_v(tile, tile, 0.05)}' pos='{pos}' "
                f"axisangle='{_v(*axis, math.degrees(ang))}'/>"
            )
    return "".join(out)


def _quat(rng: np.random.Generator) -> str:
    q = rng.standard_normal(4)
    return _v(*(q / np.linalg.norm(q)))


def _grid(count: int, spacing: float, half: float, z0: float):
    """``count`` drop positions: layers of a square grid of pitch ``spacing`` inside ``±half``, from height z0."""
    per_side = max(1, int((2 * half) // spacing))
    per_layer = per_side * per_side
    for k in range(count):
        layer, r = divmod(k, per_layer)
        i, j = divmod(r, per_side)
        yield (-half + spacing * (i + 0.5), -half + spacing * (j + 0.5), z0 + layer * spacing)


def _pile(
    rng: np.random.Generator, bodies: int, mu: float, name: str, shapes: tuple[str, ...], contained: bool
) -> tuple[str, dict]:
    """``bodies`` free bodies of ``shapes`` dropped from a grid of layers into an open box (``contained``) or on a
    plane, each of random size and orientation."""
    size = 0.05
    spacing = 2.6 * size * 1.5
    half = max(0.25, 0.5 * spacing * math.ceil(math.sqrt(bodies / 3)))
    ground = (
        _container(half) if contained else f"<geom name='floor' type='plane' size='{_v(half + 2, half + 2, 0.1)}'/>"
    )
    parts = [_header(name, mu, _memory_mb(bodies)), ground]
    for k, (x, y, z) in enumerate(_grid(bodies, spacing, half, 2 * size)):
        shape = shapes[int(rng.integers(len(shapes)))]
        s = size * float(rng.uniform(0.6, 1.2))
        x += float(rng.uniform(-0.2, 0.2)) * spacing / 2
        y += float(rng.uniform(-0.2, 0.2)) * spacing / 2
        if shape == "box":
            geom = f"type='box' size='{_v(s, s * rng.uniform(0.6, 1.4), s * rng.uniform(0.5, 1.0))}'"
        elif shape == "sphere":
            geom = f"type='sphere' size='{_f(s)}'"
        else:
            geom = f"type='capsule' size='{_v(0.5 * s, s * rng.uniform(0.5, 1.2))}'"
        parts.append(f"<body name='b{k}' pos='{_v(x, y, z)}' quat='{_quat(rng)}'><freejoint/><geom {geom}/></body>")
    parts.append(_footer())
    return "".join(parts), {"bodies": bodies}


def _box_stacks(rng: np.random.Generator, bodies: int, mu: float, name: str) -> tuple[str, dict]:
    columns = max(1, int(round(math.sqrt(bodies / 4))))
    height = max(1, int(math.ceil(bodies / columns)))
    h = 0.05
    parts = [_header(name, mu, _memory_mb(bodies)), f"<geom name='floor' type='plane' size='{_v(5, 5, 0.1)}'/>"]
    k = 0
    for c in range(columns):
        cx, cy = 0.5 * (c % 4), 0.5 * (c // 4)
        for level in range(height):
            if k == bodies:
                break
            dx, dy = (float(rng.uniform(-0.01, 0.01)) for _ in range(2))
            yaw = float(rng.uniform(-0.1, 0.1))
            parts.append(
                f"<body name='b{k}' pos='{_v(cx + dx, cy + dy, h + level * (2 * h + 0.001))}' "
                f"axisangle='0 0 1 {_f(math.degrees(yaw))}'><freejoint/>"
                f"<geom type='box' size='{_v(0.1, 0.1, h)}'/></body>"
            )
            k += 1
    parts.append(_footer())
    return "".join(parts), {"bodies": k, "columns": columns}


def _box_wall(rng: np.random.Generator, bodies: int, mu: float, name: str) -> tuple[str, dict]:
    per_row = max(2, int(round(math.sqrt(bodies))))
    rows = max(1, int(math.ceil(bodies / per_row)))
    lx, ly, lz = 0.1, 0.05, 0.04
    parts = [_header(name, mu, _memory_mb(bodies)), f"<geom name='floor' type='plane' size='{_v(5, 5, 0.1)}'/>"]
    k = 0
    for r in range(rows):
        shift = lx if r % 2 else 0.0
        for c in range(per_row):
            if k == bodies:
                break
            x = -per_row * lx + shift + c * (2 * lx + 0.002) + float(rng.uniform(-0.003, 0.003))
            y = float(rng.uniform(-0.003, 0.003))
            parts.append(
                f"<body name='b{k}' pos='{_v(x, y, lz + r * (2 * lz + 0.001))}'>"
                f"<freejoint/><geom type='box' size='{_v(lx, ly, lz)}'/></body>"
            )
            k += 1
    parts.append(_footer())
    return "".join(parts), {"bodies": k, "per_row": per_row}


def _chain(rng: np.random.Generator, bodies: int, mu: float, name: str) -> tuple[str, dict]:
    links = max(4, min(30, bodies))
    chains = max(1, int(math.ceil(bodies / links)))
    side = math.ceil(math.sqrt(chains))
    half = 0.3 * side + 0.3
    parts = [_header(name, mu, _memory_mb(chains * links)), _tiles(rng, half)]
    r, length = 0.02, 0.05
    for c in range(chains):
        x0 = -half + 0.3 + 0.6 * (c % side) + float(rng.uniform(-0.05, 0.05))
        y0 = -half + 0.3 + 0.6 * (c // side) + float(rng.uniform(-0.05, 0.05))
        parts.append(
            f"<body name='c{c}_0' pos='{_v(x0, y0, 0.12)}' euler='0 0 {_f(rng.uniform(0, 360))}'>"
            f"<freejoint/><geom type='capsule' fromto='0 0 0 {_f(length)} 0 0' size='{_f(r)}'/>"
        )
        # a constant turn about a near-vertical axis with a component along the link: the chain is a rising helix
        # (no link overlaps a link of the next turn), a little noise per link
        axis = np.array([0.3, float(rng.uniform(-0.1, 0.1)), 1.0])
        axis /= np.linalg.norm(axis)
        for k in range(1, links):
            turn = float(rng.uniform(18, 24))
            parts.append(
                f"<body name='c{c}_{k}' pos='{_f(length)} 0 0' axisangle='{_v(*axis, turn)}'>"
                f"<joint type='ball' damping='0.01' armature='0.0001'/>"
                f"<geom type='capsule' fromto='0 0 0 {_f(length)} 0 0' size='{_f(r)}'/>"
            )
        parts.append("</body>" * links)
    parts.append(_footer())
    return "".join(parts), {"bodies": chains * links, "chains": chains, "links": links}


def _quadruped(rng: np.random.Generator, bodies: int, mu: float, name: str) -> tuple[str, dict]:
    robots = max(1, int(round(bodies / 9)))
    half = 0.6 * math.ceil(math.sqrt(robots))
    parts = [_header(name, mu, _memory_mb(9 * robots)), _tiles(rng, half)]
    for k in range(robots):
        x = -half + 1.2 * (k % math.ceil(math.sqrt(robots))) + 0.6
        y = -half + 1.2 * (k // math.ceil(math.sqrt(robots))) + 0.6
        stiff = float(rng.uniform(5, 30))
        legs = []
        for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            a = float(rng.uniform(-15, 15))
            legs.append(
                f"<body pos='{_v(0.2 * sx, 0.12 * sy, 0)}'>"
                f"<joint type='hinge' axis='0 1 0' stiffness='{_f(stiff)}' ref='0'/>"
                f"<geom type='capsule' fromto='0 0 0 {_v(0.05 * sx, 0.05 * sy, -0.15)}' size='0.03'/>"
                f"<body pos='{_v(0.05 * sx, 0.05 * sy, -0.15)}' euler='0 {_f(a)} 0'>"
                f"<joint type='hinge' axis='0 1 0' stiffness='{_f(stiff)}'/>"
                f"<geom type='capsule' fromto='0 0 0 0 0 -0.15' size='0.025'/></body></body>"
            )
        parts.append(
            f"<body name='torso{k}' pos='{_v(x, y, 0.45)}' euler='0 0 {_f(rng.uniform(0, 360))}'><freejoint/>"
            f"<geom type='box' size='0.25 0.15 0.05' mass='5'/>{''.join(legs)}</body>"
        )
    parts.append(_footer())
    return "".join(parts), {"bodies": 9 * robots, "robots": robots}


def _humanoid(rng: np.random.Generator, bodies: int, mu: float, name: str) -> tuple[str, dict]:
    robots = max(1, int(round(bodies / 11)))
    side = math.ceil(math.sqrt(robots))
    half = 1.0 * side
    nrow = ncol = 24
    bumps = rng.uniform(0.0, 1.0, size=(nrow, ncol))
    elevation = " ".join(_f(x) for x in bumps.ravel())
    assets = (
        f"<asset><hfield name='terrain' nrow='{nrow}' ncol='{ncol}' size='{_v(half, half, 0.08, 0.1)}' "
        f"elevation='{elevation}'/></asset>"
    )
    parts = [
        _header(name, mu, _memory_mb(11 * robots), assets),
        "<geom type='hfield' hfield='terrain'/>",
        f"<geom name='floor' type='plane' pos='0 0 -0.05' size='{_v(half + 2, half + 2, 0.1)}'/>",
    ]
    for k in range(robots):
        x = -half + 2.0 * (k % side) + 1.0
        y = -half + 2.0 * (k // side) + 1.0
        s = float(rng.uniform(10, 40))
        limb = f"<joint type='ball' stiffness='{_f(s)}'/>"
        hinge = f"<joint type='hinge' axis='0 1 0' stiffness='{_f(s)}'/>"

        def arm(sign):
            return (
                f"<body pos='0 {_f(0.18 * sign)} 0.2'>{limb}"
                f"<geom type='capsule' fromto='0 0 0 0 {_f(0.05 * sign)} -0.22' size='0.035'/>"
                f"<body pos='0 {_f(0.05 * sign)} -0.22'>{hinge}"
                "<geom type='capsule' fromto='0 0 0 0.05 0 -0.2' size='0.03'/></body></body>"
            )

        def leg(sign):
            return (
                f"<body pos='0 {_f(0.09 * sign)} -0.25'>{limb}"
                "<geom type='capsule' fromto='0 0 0 0 0 -0.32' size='0.05'/>"
                f"<body pos='0 0 -0.32'>{hinge}"
                "<geom type='capsule' fromto='0 0 0 0 0 -0.3' size='0.04'/>"
                "<body pos='0 0 -0.33'><joint type='hinge' axis='0 1 0' stiffness='20'/>"
                "<geom type='box' pos='0.05 0 0' size='0.09 0.045 0.025'/></body></body></body>"
            )

        tilt = rng.uniform(-90, 90, size=2)
        parts.append(
            f"<body name='torso{k}' pos='{_v(x, y, 1.2)}' euler='{_v(*tilt, rng.uniform(0, 360))}'>"
            "<freejoint/><geom type='capsule' fromto='0 0 -0.25 0 0 0.25' size='0.12'/>"
            "<geom type='sphere' pos='0 0 0.42' size='0.1'/>"
            f"{arm(1)}{arm(-1)}{leg(1)}{leg(-1)}</body>"
        )
    parts.append(_footer())
    return "".join(parts), {"bodies": 11 * robots, "robots": robots}


def _builder(scene: str) -> Callable[[np.random.Generator, int, float, str], tuple[str, dict]]:
    if scene == "box_pile":
        return lambda rng, b, mu, n: _pile(rng, b, mu, n, ("box",), True)
    if scene == "sphere_pile":
        return lambda rng, b, mu, n: _pile(rng, b, mu, n, ("sphere",), True)
    if scene == "capsule_pile":
        return lambda rng, b, mu, n: _pile(rng, b, mu, n, ("capsule",), True)
    if scene == "mixed_pile":
        return lambda rng, b, mu, n: _pile(rng, b, mu, n, ("box", "sphere", "capsule"), False)
    return {
        "box_stacks": _box_stacks,
        "box_wall": _box_wall,
        "chain": _chain,
        "quadruped": _quadruped,
        "humanoid": _humanoid,
    }[scene]


def scene_xml(scene: str, seed: int, index: int = 0, target_contacts: int = 50) -> tuple[str, dict]:
    """The MJCF of ``scene`` for ``(seed, index)`` aimed at about ``target_contacts`` contacts, and its parameters
    (bodies, μ, settling steps, …). The draws are those of :func:`make`."""
    _check_scene(scene)
    rng = np.random.default_rng([_check_int("seed", seed), _check_int("index", index)])
    return _draw(scene, rng, _check_int("target_contacts", target_contacts, minimum=1))


def _draw(scene: str, rng: np.random.Generator, target: int) -> tuple[str, dict]:
    mu = float(rng.uniform(*MU_RANGE))
    steps = int(rng.integers(SETTLE_RANGE[0], SETTLE_RANGE[1] + 1))
    bodies = max(1, int(round(target / CONTACTS_PER_BODY[scene])))
    xml, params = _builder(scene)(rng, bodies, mu, scene)
    return xml, {"mu": mu, "steps": steps, **params}


# ---------------------------------------------------------------- settle, push, import


@dataclass(frozen=True)
class Generated:
    """One generated problem: the global ``problem`` (a :class:`~gaussqp.ContactProblem`, every frictional contact
    of mode ``"coulomb"``), its ``local`` form when made (else None), and ``meta`` (the metadata written to the
    files)."""

    problem: ContactProblem
    local: LocalContactProblem | None
    meta: dict


def _check_int(name: str, value, minimum: int = 0, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise WrongTypeError(name, f"is {value!r}", "give an integer")
    if value < minimum:
        raise MagnitudeError(name, f"is {value}", f"give an integer >= {minimum}")
    if maximum is not None and value > maximum:
        raise InputTooLargeError(name, f"is {value}", f"give at most {maximum} (gaussqp.settings)")
    return int(value)


def _check_scene(scene) -> str:
    if not isinstance(scene, str) or scene not in SCENES:
        raise UnknownValueError("scene", f"is {scene!r}", f"use one of {', '.join(SCENES)}")
    return scene


def _settle_and_import(xml: str, params: dict, rng: np.random.Generator, name: str):
    mujoco = _mujoco()
    from gaussqp.io.mujoco import import_mujoco

    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, params["steps"])
    if int(d.warning[int(mujoco.mjtWarning.mjWARN_BADQACC)].number):  # MuJoCo resets silently
        raise UnsupportedModelError(
            "scene", f"{name}: MuJoCo's simulation went unstable while settling", "use another seed"
        )
    d.qvel[:] = 0.0
    mujoco.mj_forward(m, d)
    # push a share of the free bodies (the root of each articulated body) horizontally
    roots = [b for b in range(1, m.nbody) if m.body_parentid[b] == 0 and m.body_jntnum[b] > 0]
    g = float(np.linalg.norm(m.opt.gravity))
    pushed = []
    for b in roots:
        if rng.uniform() < PUSH_SHARE:
            mass = float(m.body_subtreemass[b])
            phi = float(rng.uniform(0, 2 * math.pi))
            push = float(rng.uniform(0, MAX_PUSH)) * params["mu"] * mass * g
            d.xfrc_applied[b, :2] = push * math.cos(phi), push * math.sin(phi)
            pushed.append(int(b))
    mujoco.mj_forward(m, d)
    imp = import_mujoco(m, d, modes={i: "coulomb" for i in range(d.ncon)}, name=name)
    return imp, pushed, int(d.ncon), mujoco.__version__


def condense(problem: ContactProblem) -> LocalContactProblem:
    """The local form ``u = W r + q`` of a global problem read from FCLIB (``M v = H r + f``, ``u = Hᵀ v + w``):
    ``W = Hᵀ M⁻¹ H`` (symmetrized, as it is in exact arithmetic), ``q = Hᵀ M⁻¹ f + w``, with ``H`` the columns
    of FCLIB's layout (contact j: its normal row then its tangent rows), by a Cholesky factorization of ``M``.

    Raises
    ------
    gaussqp.errors.InputTooLargeError
        ``m·d`` is above :data:`LOCAL_MAX_UNKNOWNS` (a dense W of that size is not written).
    gaussqp.errors.UnknownValueError
        The problem has bilateral rows (FCLIB's local form has none).
    """
    d = problem.dimension
    if problem.m * d > LOCAL_MAX_UNKNOWNS:
        raise InputTooLargeError(
            "problem",
            f"has {problem.m * d} contact unknowns",
            f"condense at most {LOCAL_MAX_UNKNOWNS} (gaussqp.settings.FCLIB_SCENES_LOCAL_UNKNOWNS_MAX)",
        )
    if len(problem.bilateral):
        raise UnknownValueError("problem", "has bilateral rows", "condense a problem with unilateral contacts only")
    if not np.all(problem.has_tangent):
        raise UnknownValueError(
            "problem",
            "has contacts without tangent rows",
            "condense a problem whose contacts all have d - 1 tangent rows",
        )
    # FCLIB's layout: contact j's normal row, then its d - 1 tangent rows (Hᵀ), and the drifts likewise
    Jn, Jt = sp.csr_matrix(problem.J_n), sp.csr_matrix(problem.J_t)
    order = np.argsort(
        np.concatenate(
            [np.arange(problem.m) * d, (np.arange(problem.m)[:, None] * d + np.arange(1, d)[None, :]).ravel()]
        )
    )
    Ht = sp.vstack([Jn, Jt], format="csr")[order]
    w = np.concatenate([problem.normal_drift, problem.tangent_drift])[order]
    mu = np.asarray(problem.friction, dtype=float) * (np.asarray(problem.modes) == "coulomb")
    H = Ht.T
    M = problem.M.toarray() if sp.issparse(problem.M) else np.asarray(problem.M, dtype=float)
    Hd = H.toarray() if sp.issparse(H) else np.asarray(H, dtype=float)
    c = sla.cho_factor(M)
    X = sla.cho_solve(c, np.hstack([Hd, -np.asarray(problem.F, dtype=float)[:, None]]))
    W = Hd.T @ X[:, :-1]
    W = 0.5 * (W + W.T)
    W[np.abs(W) < np.finfo(float).eps * float(np.abs(W).max(initial=0.0))] = 0.0
    q = Hd.T @ X[:, -1] + w
    return LocalContactProblem(
        sp.csr_matrix(W), q, mu, d, name=problem.name + "-local", description=problem.description
    )


def make(
    seed: int, index: int, *, min_contacts: int = 10, max_contacts: int = 300, local: bool | None = None
) -> Generated:
    """Problem ``index`` of the set of ``seed`` (module docstring): scene ``SCENES[index % len(SCENES)]``, a
    contact count aimed log-uniformly in ``[min_contacts, max_contacts]``.

    Parameters
    ----------
    seed, index : int >= 0
        The draws come from ``numpy.random.default_rng([seed, index])``.
    min_contacts, max_contacts : int
        The range of the aimed contact count (the settled scene has about that many; the metadata records the
        count found), ``1 <= min_contacts <= max_contacts <= FCLIB_SCENES_CONTACTS_MAX``.
    local : bool or None
        Also make the local form: None (default) for every :data:`LOCAL_EVERY`-th index when ``m·d`` is at most
        :data:`LOCAL_MAX_UNKNOWNS`; True or False to force it (True still refuses an unaffordable W).

    Raises
    ------
    gaussqp.errors.WrongTypeError, MagnitudeError, InputTooLargeError
        A parameter that is not an integer, negative, out of order, or above the limits of gaussqp.settings.
    gaussqp.errors.MissingExtraError
        MuJoCo is not installed.
    """
    seed = _check_int("seed", seed)
    index = _check_int("index", index)
    lo = _check_int("min_contacts", min_contacts, 1, FCLIB_SCENES_CONTACTS_MAX)
    hi = _check_int("max_contacts", max_contacts, 1, FCLIB_SCENES_CONTACTS_MAX)
    if lo > hi:
        raise MagnitudeError("min_contacts", f"is {lo} > max_contacts = {hi}", "give min_contacts <= max_contacts")
    if local is not None and not isinstance(local, bool):
        raise WrongTypeError("local", f"is {local!r}", "give True, False or None")
    scene = SCENES[index % len(SCENES)]
    rng = np.random.default_rng([seed, index])
    target = int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
    return _make(scene, seed, index, target, rng, local, f"{scene}-s{seed}-i{index:04d}")


def make_scene(scene: str, seed: int, target_contacts: int, *, local: bool = False) -> Generated:
    """One problem of ``scene`` aimed at ``target_contacts`` contacts (a growth study's sizes, where :func:`make`
    draws the scene and the size): the draws come from ``numpy.random.default_rng([seed, target_contacts])``, the
    rest is :func:`make`'s (settle, push, import, metadata with ``index = target_contacts``), named
    ``<scene>-s<seed>-t<target>``.

    Raises
    ------
    gaussqp.errors.UnknownValueError
        ``scene`` is not one of :data:`SCENES`.
    gaussqp.errors.WrongTypeError, MagnitudeError, InputTooLargeError
        ``seed`` or ``target_contacts`` not an integer, negative, or ``target_contacts`` above
        ``FCLIB_SCENES_CONTACTS_MAX``.
    gaussqp.errors.UnsupportedModelError
        MuJoCo's simulation went unstable, or the settled scene has no contact.
    """
    scene = _check_scene(scene)
    seed = _check_int("seed", seed)
    target = _check_int("target_contacts", target_contacts, 1, FCLIB_SCENES_CONTACTS_MAX)
    if not isinstance(local, bool):
        raise WrongTypeError("local", f"is {local!r}", "give True or False")
    rng = np.random.default_rng([seed, target])
    return _make(scene, seed, target, target, rng, local, f"{scene}-s{seed}-t{target}")


def _make(
    scene: str, seed: int, index: int, target: int, rng: np.random.Generator, local: bool | None, name: str
) -> Generated:
    """The problem of ``scene`` aimed at ``target`` contacts from the draws of ``rng`` (:func:`make`)."""
    xml, params = _draw(scene, rng, target)
    imp, pushed, ncon, mj_version = _settle_and_import(xml, params, rng, name)
    p = imp.problem
    if p.m == 0:
        raise UnsupportedModelError("scene", f"{name}: the settled scene has no contact", "use another seed")
    meta = {
        "scene": scene,
        "seed": seed,
        "index": index,
        "target_contacts": target,
        "contacts": int(p.m),
        "mujoco_contacts": ncon,
        "coordinates": int(p.n),
        "dimension": int(p.dimension),
        **params,
        "pushed_bodies": len(pushed),
        "mujoco": mj_version,
        "generator": GENERATOR,
        "left_out": len(imp.left_out),
        "form": "global",
    }
    description = META_PREFIX + json.dumps(meta, sort_keys=True)
    problem = ContactProblem.from_blocks(
        p.M,
        p.F,
        p.J_n,
        p.normal_drift,
        list(p.types),
        p.J_t,
        p.tangent_drift,
        p.friction,
        list(p.modes),
        None,
        p.has_tangent,
        p.dimension,
        name=name,
        description=description,
    )
    want_local = (index % LOCAL_EVERY == 0) if local is None else local
    loc = None
    if want_local and (local or p.m * p.dimension <= LOCAL_MAX_UNKNOWNS):
        lmeta = dict(meta, form="local")
        loc = condense(problem)
        loc = LocalContactProblem(
            loc.W,
            loc.q,
            loc.mu,
            loc.dimension,
            name=name + "-local",
            description=META_PREFIX + json.dumps(lmeta, sort_keys=True),
        )
    return Generated(problem, loc, meta)


def metadata(problem: ContactProblem | LocalContactProblem) -> dict:
    """The metadata of a generated problem (read back from its description), or ``{}`` for any other problem."""
    text = problem.description.partition("\n\nmath_info: ")[0]
    if not text.startswith(META_PREFIX):
        return {}
    try:
        return json.loads(text[len(META_PREFIX) :])
    except json.JSONDecodeError:
        return {}


def file_name(meta: dict) -> str:
    """``<scene>-s<seed>-i<index>-m<contacts>[-local].hdf5``."""
    suffix = "-local" if meta.get("form") == "local" else ""
    return f"{meta['scene']}-s{meta['seed']}-i{meta['index']:04d}-m{meta['contacts']}{suffix}.hdf5"


def write(generated: Generated, out: str | Path) -> list[Path]:
    """Write the global file and, when made, the local one into ``out``; returns their paths."""
    from gaussqp.io import fclib

    out = Path(out)
    paths = []
    for problem in (generated.problem, generated.local):
        if problem is None:
            continue
        meta = metadata(problem)
        path = out / file_name(meta)
        fclib.save(problem, path, info={"math_info": MATH_INFO})
        paths.append(path)
    return paths


def generate(
    out: str | Path,
    count: int,
    *,
    seed: int = 0,
    start: int = 0,
    min_contacts: int = 10,
    max_contacts: int = 300,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Write problems ``start … start + count − 1`` of ``seed`` (:func:`make`) into the directory ``out`` (created
    when missing); a problem whose scene MuJoCo cannot settle, or whose size is beyond the importer's limits (a
    coupled block of M above ``gaussqp.settings.DENSE_BLOCK_MAX`` coordinates; a pile's M is sparse, one block per
    body, above ``gaussqp.settings.MUJOCO_DENSE_COORDINATES_MAX`` coordinates), is reported through ``progress``
    and skipped.

    Raises
    ------
    gaussqp.errors.WrongTypeError, MagnitudeError, InputTooLargeError
        Bad parameters (before anything is written).
    gaussqp.errors.FileFormatError
        ``out`` exists and is not a directory.
    """
    count = _check_int("count", count, 0, FCLIB_SCENES_COUNT_MAX)
    seed, start = _check_int("seed", seed), _check_int("start", start)
    for name, v in (("min_contacts", min_contacts), ("max_contacts", max_contacts)):
        _check_int(name, v, 1, FCLIB_SCENES_CONTACTS_MAX)
    if min_contacts > max_contacts:
        raise MagnitudeError(
            "min_contacts", f"is {min_contacts} > max_contacts = {max_contacts}", "give min_contacts <= max_contacts"
        )
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise FileFormatError(str(out), "is not a directory", "give a directory for the generated files")
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for index in range(start, start + count):
        t0 = time.perf_counter()
        try:
            g = make(seed, index, min_contacts=min_contacts, max_contacts=max_contacts)
        except (UnsupportedModelError, InputTooLargeError) as exc:  # unstable, or beyond the importer's limits
            if progress:
                progress(f"skipped seed {seed} index {index}: {exc}")
            continue
        written = write(g, out)
        paths += written
        if progress:
            progress(
                f"{', '.join(p.name for p in written)} (n = {g.meta['coordinates']}, {time.perf_counter() - t0:.2f} s)"
            )
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory of the FCLIB files")
    ap.add_argument("--count", type=int, required=True, help="problems to generate")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first problem index")
    ap.add_argument("--min-contacts", type=int, default=10)
    ap.add_argument("--max-contacts", type=int, default=300)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    paths = generate(
        args.out,
        args.count,
        seed=args.seed,
        start=args.start,
        min_contacts=args.min_contacts,
        max_contacts=args.max_contacts,
        progress=None if args.quiet else lambda s: print(s, flush=True),
    )
    total = sum(p.stat().st_size for p in paths)
    print(f"wrote {len(paths)} files ({total / 1e6:.2f} MB) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
