"""Real MuJoCo scenes for the problem library: ``python -m problems.real.mujoco_scenes``.

Needs the ``models`` extra (``mujoco`` and ``dm_control``, whose suite ships the model files). For each scene the
state is made with MuJoCo's own simulation (``mj_step`` from a stated initial pose, zero controls unless said),
imported with :func:`gaussqp.io.mujoco.import_mujoco` (default options unless the scene says) and solved with
:func:`gaussqp.solve`; the file ``problems/data/real/<name>.json`` records in ``"source"`` where the problem came
from (model file, dm_control and MuJoCo versions, how the state was made, qpos and qvel) and in ``"parameters"``
what gaussqp certifies (status, formulation, certified, uniqueness, time) and the gap to MuJoCo at two softness
levels: the relative gap ``max|a − qacc| / max|qacc_smooth|`` (MuJoCo's free acceleration as the unit) between
gaussqp's acceleration on the problem as stored
and MuJoCo's at the same state with every ``solimp`` at ``(1 − ε, 1 − ε, …)`` (MuJoCo's regularization
``R ∝ ε``), ε = 1e-2 and 1e-4, and every solref time constant at :data:`SWEEP_TIMECONST` (its Baumgarte terms
off), elliptic cones, solver tolerance 1e-15. Each state is settled by MuJoCo, then its residual velocities (the
creep of soft contacts) are set to zero: the state at rest, whose drifts ``J̇q̇`` vanish, so the hard limit of
MuJoCo's problem is the stored problem and the gap shrinks like ε when gaussqp finds all contacts sticking.

dm_control's ``Physics`` does not load with MuJoCo 4 (its indexer reads a field MuJoCo 4 removed), so the scenes
read the suite's XML files (``dm_control.suite.<domain>.make_model`` where the domain builds its XML) with
``mujoco.MjModel`` directly and make the initial states themselves, as stated per scene.

``python -m problems.real.mujoco_scenes --table`` prints the per-model table (all 9 models) without writing.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

import gaussqp
from gaussqp.io.gaussqp_format import to_dict
from gaussqp.io.mujoco import data_at_state, import_mujoco

OUT = Path(__file__).resolve().parents[1] / "data" / "real"
SOFTNESS = (1e-2, 1e-4)
#: the scenes written to the library (the others only enter the table)
LIBRARY = (
    "humanoid_lying",
    "quadruped_standing",
    "stacker_boxes",
    "manipulator_grasp",
    "walker_lying",
    "cheetah_standing",
    "ant_standing",
    "box_on_plane",
)


def _mujoco():
    import mujoco

    return mujoco


def _suite_dir() -> Path:
    import dm_control

    return Path(os.path.dirname(dm_control.__file__))


def _hold(m, d, joints, gain=20.0, damping=0.3):
    """qfrc_applied holding ``joints`` at their current angles (gravity compensation plus a PD term)."""
    target = {j: float(d.qpos[m.joint(j).qposadr[0]]) for j in joints}

    def control(m_, d_):
        for j, q0 in target.items():
            dof = m_.joint(j).dofadr[0]
            qa = m_.joint(j).qposadr[0]
            d_.qfrc_applied[dof] = d_.qfrc_bias[dof] - gain * (d_.qpos[qa] - q0) - damping * d_.qvel[dof]

    return control


def _settle(m, d, steps, control=None):
    mujoco = _mujoco()
    for _ in range(steps):
        if control is not None:
            mujoco.mj_forward(m, d)
            control(m, d)
        mujoco.mj_step(m, d)
    if control is not None:
        mujoco.mj_forward(m, d)
        control(m, d)
    mujoco.mj_forward(m, d)
    unstable = int(d.warning[int(mujoco.mjtWarning.mjWARN_BADQACC)].number)
    if unstable:  # MuJoCo reset the state: the scene is not what its description says
        raise RuntimeError(f"the simulation went unstable {unstable} time(s) while settling (MuJoCo reset the state)")


# ---------------------------------------------------------------- scenes: (model, data, how, model_file, options)


def humanoid_lying():
    mujoco = _mujoco()
    path = _suite_dir() / "suite" / "humanoid.xml"
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    _settle(m, d, 4000)
    return (
        m,
        d,
        "from the default standing pose qpos0, 4000 steps (20 s) with zero controls: the humanoid falls "
        "and lies on the floor",
        "dm_control/suite/humanoid.xml",
        {},
    )


def quadruped_standing():
    mujoco = _mujoco()
    from dm_control.suite import common, quadruped

    xml = quadruped.make_model(floor_size=5, terrain=False, rangefinders=False, walls_and_ball=False)
    m = mujoco.MjModel.from_xml_string(xml, common.ASSETS)
    d = mujoco.MjData(m)
    _settle(m, d, 2000)
    return (
        m,
        d,
        "quadruped.make_model(floor_size=5, no terrain, rangefinders, walls or ball); from qpos0, 2000 "
        "steps (10 s) with zero controls: it stands on its four feet (its tendon equalities couple the "
        "legs)",
        "dm_control/suite/quadruped.xml via quadruped.make_model",
        {},
    )


#: Horizontal offset between consecutive boxes of the stacker's stack (m): small enough that the stack stands
#: (at 0.01 m per box, 3 cm over four boxes of half-size 2.2 cm, it fell over while settling and the boxes ended
#: side by side on the floor), nonzero so that the contacts are not placed symmetrically.
STACK_OFFSET = 0.002


def stacker_boxes():
    mujoco = _mujoco()
    from dm_control.suite import common, stacker

    xml, assets = stacker.make_model(n_boxes=4)
    m = mujoco.MjModel.from_xml_string(xml, {**common.ASSETS, **assets})
    d = mujoco.MjData(m)
    half = float(m.geom("box0").size[0])
    for k in range(4):
        d.qpos[m.joint(f"box{k}_x").qposadr[0]] = 0.2 + STACK_OFFSET * k
        d.qpos[m.joint(f"box{k}_z").qposadr[0]] = half * (2 * k + 1) + 0.001 * k
        d.qpos[m.joint(f"box{k}_y").qposadr[0]] = 0.0
    mujoco.mj_forward(m, d)
    _settle(m, d, 3000, _hold(m, d, ["arm_root", "arm_shoulder", "arm_elbow", "arm_wrist"]))
    return (
        m,
        d,
        f"stacker.make_model(n_boxes=4): boxes stacked at x = 0.2 + {STACK_OFFSET} k, z = (2k + 1) half-size, the "
        "arm's four joints at qpos0 held by qfrc_applied (gravity compensation + PD); 3000 steps (3 s)",
        "dm_control/suite/stacker.xml via stacker.make_model",
        {},
    )


def manipulator_grasp():
    mujoco = _mujoco()
    from dm_control.suite import common, manipulator

    xml, assets = manipulator.make_model(use_peg=False, insert=False)
    m = mujoco.MjModel.from_xml_string(xml, {**common.ASSETS, **assets})
    d = mujoco.MjData(m)
    for j, v in (("arm_root", 0.0), ("arm_shoulder", -0.5), ("arm_elbow", 1.2), ("arm_wrist", 0.9)):
        d.qpos[m.joint(j).qposadr[0]] = v
    mujoco.mj_forward(m, d)
    grasp = np.array(d.site_xpos[m.site("grasp").id])
    d.qpos[m.joint("ball_x").qposadr[0]] = grasp[0]
    d.qpos[m.joint("ball_z").qposadr[0]] = grasp[2]
    d.ctrl[m.actuator("grasp").id] = 1.0
    mujoco.mj_forward(m, d)
    _settle(m, d, 2000, _hold(m, d, ["arm_root", "arm_shoulder", "arm_elbow", "arm_wrist"]))
    return (
        m,
        d,
        "manipulator.make_model(no peg): arm at (root, shoulder, elbow, wrist) = (0, -0.5, 1.2, 0.9) held "
        "by qfrc_applied (gravity compensation + PD), the ball put at the grasp site, grasp control 1; "
        "2000 steps (2 s)",
        "dm_control/suite/manipulator.xml via manipulator.make_model",
        {},
    )


def _plain(name, steps, how, options=None):
    def scene():
        mujoco = _mujoco()
        path = _suite_dir() / "suite" / f"{name}.xml"
        m = mujoco.MjModel.from_xml_path(str(path))
        d = mujoco.MjData(m)
        if m.nkey:
            mujoco.mj_resetDataKeyframe(m, d, 0)
        _settle(m, d, steps)
        return m, d, how, f"dm_control/suite/{name}.xml", dict(options or {})

    return scene


def ant_standing():
    mujoco = _mujoco()
    path = _suite_dir() / "third_party" / "ant" / "ant.xml"
    xml = path.read_text()
    xml = xml.replace('<body name="torso" pos="0 0 0.522">', '<body name="torso" pos="0 0 0.75"><freejoint/>', 1)
    xml = xml.replace("<worldbody>", '<worldbody><geom name="floor" type="plane" size="20 20 .1"/>', 1)
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    _settle(m, d, 2000)
    return (
        m,
        d,
        "dm_control/third_party/ant/ant.xml with a free joint on the torso (raised to z = 0.75) and a "
        "floor plane added (the file is a walker without either); 2000 steps (4 s)",
        "dm_control/third_party/ant/ant.xml (edited as said)",
        {},
    )


BOX = """<mujoco model="box"><option cone="elliptic"/><worldbody><geom name="floor" type="plane" size="5 5 .1"/>
<body name="box" pos="0 0 0.1"><freejoint/><geom name="box" type="box" size=".1 .2 .1"/></body></worldbody></mujoco>"""


def box_on_plane():
    mujoco = _mujoco()
    m = mujoco.MjModel.from_xml_string(BOX)
    d = mujoco.MjData(m)
    _settle(m, d, 1000)
    return (
        m,
        d,
        "a 0.2 x 0.4 x 0.2 box on a plane (XML in problems/real/mujoco_scenes.py), 1000 steps (2 s)",
        "problems/real/mujoco_scenes.py::BOX",
        {},
    )


SCENES = {
    "humanoid_lying": humanoid_lying,
    "quadruped_standing": quadruped_standing,
    "stacker_boxes": stacker_boxes,
    "manipulator_grasp": manipulator_grasp,
    "walker_lying": _plain(
        "walker", 4000, "from qpos0, 4000 steps (10 s) with zero controls: the walker falls and lies on the floor"
    ),
    "cheetah_standing": _plain("cheetah", 1000, "from qpos0, 1000 steps (10 s) with zero controls"),
    "dog_lying": _plain(
        "dog",
        2000,
        "from keyframe 0, 2000 steps (10 s) with zero controls; imported with "
        "torsional='ignore' (its ball and a few collision geoms have condim 6, the rest 3)",
        {"torsional": "ignore"},
    ),
    "ant_standing": ant_standing,
    "box_on_plane": box_on_plane,
}


# ---------------------------------------------------------------- import, solve, compare

#: solref time constant (s) of the softness sweep: MuJoCo's Baumgarte terms ``B = 2/(d·timeconst)`` and
#: ``K = 1/(d·timeconst·dampratio)²`` vanish, so its reference acceleration is ~0 and only its regularization
#: ``R = (1 − d)/d · A_ii`` (set by solimp) keeps it from the hard problem
SWEEP_TIMECONST = 1e4


def softness_gap(m0, d0, eps: float, options: dict) -> float | str:
    """Relative gap ``max|a − qacc| / max|qacc_smooth|`` (the free acceleration as the unit) between gaussqp's
    acceleration on the imported problem (default
    drift ``J̇q̇``, zero at rest) and MuJoCo's at the same state with every solimp at ``1 − eps`` and every solref at
    ``(SWEEP_TIMECONST, 1)`` (elliptic cones, solver tolerance 1e-15); gaussqp's status when it has no acceleration."""
    mujoco = _mujoco()
    m = copy.deepcopy(m0)
    for imp in (m.geom_solimp, m.pair_solimp, m.eq_solimp, m.jnt_solimp, m.tendon_solimp_lim):
        if imp.size:
            imp[:, 0] = 1 - eps
            imp[:, 1] = 1 - eps
    for ref in (m.geom_solref, m.pair_solref, m.eq_solref, m.jnt_solref, m.tendon_solref_lim):
        if ref.size:
            ref[:, 0] = SWEEP_TIMECONST
            ref[:, 1] = 1.0
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    m.opt.tolerance = 1e-15
    m.opt.iterations = 1000
    d = data_at_state(m0, d0, m)
    imp = import_mujoco(m, d, **options)
    sol = gaussqp.solve(imp.problem)
    if sol.acceleration is None:
        return str(sol.status)
    scale = max(float(np.abs(d.qacc_smooth).max()), np.finfo(float).tiny)
    return float(np.abs(sol.acceleration - d.qacc).max() / scale)


def at_rest(m, d) -> None:
    """The settled state with its residual velocities (the creep of MuJoCo's soft contacts) set to zero."""
    mujoco = _mujoco()
    d.qvel[:] = 0.0
    mujoco.mj_forward(m, d)


def run(name: str):
    import mujoco

    m, d, how, model_file, options = SCENES[name]()
    at_rest(m, d)
    how += "; then qvel set to 0 (the state at rest)"
    t0 = time.perf_counter()
    imp = import_mujoco(m, d, name=name, **options)
    t_import = time.perf_counter() - t0
    p = imp.problem
    t0 = time.perf_counter()
    try:
        sol = gaussqp.solve(p)
        status, err = str(sol.status), None
    except gaussqp.errors.GaussQPError as exc:  # reported in the table, never hidden
        sol, status, err = None, "error", f"{type(exc).__name__}: {exc}"
    t_solve = time.perf_counter() - t0
    gaps = {}
    for eps in SOFTNESS:
        try:
            gaps[f"{eps:g}"] = softness_gap(m, d, eps, options)
        except gaussqp.errors.GaussQPError as exc:
            gaps[f"{eps:g}"] = f"{type(exc).__name__}"
    try:
        import dm_control

        dmv = getattr(dm_control, "__version__", None)
        if dmv is None:
            from importlib.metadata import version

            dmv = version("dm_control")
    except ImportError:
        dmv = None
    source = (
        f"MuJoCo scene '{name}': model {model_file} (dm_control {dmv}, MuJoCo {mujoco.__version__}); "
        f"state: {how}; imported by gaussqp.io.mujoco.import_mujoco({options or ''}) at t = {d.time:g}; "
        f"qpos and qvel in parameters.state"
    )
    params = {
        "status": status,
        "error": err,
        "formulation": getattr(sol, "formulation", None) if sol is not None else None,
        "certified": bool(sol.certified) if sol is not None else False,
        "unique": dict(sol.unique) if sol is not None and isinstance(sol.unique, dict) else None,
        "n": p.n,
        "contacts": p.m,
        "dimension": p.dimension,
        "kinds": {k: sum(1 for r in imp.rows if r.kind == k) for k in sorted({r.kind for r in imp.rows})},
        "modes": {k: int(np.sum(p.modes == k)) for k in sorted(set(p.modes.tolist()))},
        "left_out": [f"{w}: {y}" for w, y in imp.left_out],
        "gap_to_mujoco": gaps,
        "time_import_s": round(t_import, 4),
        "time_solve_s": round(t_solve, 4),
        "state": {"qpos": np.asarray(d.qpos).tolist(), "qvel": np.asarray(d.qvel).tolist(), "time": float(d.time)},
    }
    return p, source, params


def write(name: str, p, source: str, params: dict) -> Path:
    doc = to_dict(p, source=source, parameters=params)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="store_true", help="print the table of all scenes, write nothing")
    ap.add_argument("names", nargs="*", help="scenes (default: the library's)")
    args = ap.parse_args(argv)
    names = args.names or (list(SCENES) if args.table else list(LIBRARY))
    print("| scene | n | contacts (d) | status | certified | formulation | gap ε=1e-2 | gap ε=1e-4 | solve time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        p, source, params = run(name)
        g = params["gap_to_mujoco"]
        fmt = lambda x: f"{x:.1e}" if isinstance(x, float) else str(x)  # noqa: E731
        print(
            f"| {name} | {params['n']} | {params['contacts']} ({params['dimension']}) | {params['status']} | "
            f"{params['certified']} | {params['formulation']} | {fmt(g['0.01'])} | {fmt(g['0.0001'])} | "
            f"{params['time_solve_s']:.2f} s |",
            flush=True,
        )
        if params["error"]:
            print(f"|  | {params['error'][:150]} |||||||", flush=True)
        if not args.table and name in LIBRARY:
            write(name, p, source, params)
    return 0


if __name__ == "__main__":
    sys.exit(main())
