"""Real robots through the Pinocchio importer: solo12 standing on its four feet.

Run ``python -m problems.real.pinocchio_scenes`` (needs ``gaussqp[models]``: ``pin`` and ``example-robot-data``)
to rewrite ``problems/data/real/pinocchio_solo12_four_feet.json``. The file records where the problem comes from
(``source``: robot, package versions, the state and how it was chosen) and what gaussqp certifies on it
(``parameters``), which ``tests/io/test_real_pinocchio_library.py`` checks without any extra.

The scene
---------
- Robot: example-robot-data's ``solo_description/robots/solo12.urdf`` with a free-flyer root (Pinocchio's
  ``JointModelFreeFlyer``: n = 18), found through the installed distribution's files (the ``cmeel.prefix`` share
  directory of the ``example-robot-data`` wheel).
- Configuration: the SRDF's ``group_state`` ``"standing"`` (``srdf/solo.srdf``, read by
  ``pinocchio.loadReferenceConfigurations``), unchanged. Velocity ``v = 0``.
- Contacts: the four foot frames ``FL_FOOT``, ``FR_FOOT``, ``HL_FOOT``, ``HR_FOOT``, unilateral point contacts with
  normal ``+z`` and μ = :data:`MU`; the ground is the plane through the feet (the importer does not compute
  distances: the contacts listed touch). At rest they are all ``sticking``.
- Torques: the static equilibrium of the standing robot. The foot forces ``f`` (12 numbers) are the
  minimum-norm solution of the base's six equations ``J_baseᵀ f = g_base`` (``g = nle(q, 0)``, the gravity
  torques; ``J_base`` the base columns of the feet's linear Jacobians), and the joint torques are what the twelve
  joint equations then require, ``tau_joints = g_joints − J_jointsᵀ f`` (``tau_base = 0``). So the answer is
  known: ``a = 0`` with those forces, unique when the rows are independent.
- Bilateral variant: the same feet as Pinocchio ``RigidConstraintModel`` ``CONTACT_3D`` constraints
  (``LOCAL_WORLD_ALIGNED``), solved by ``pinocchio.constraintDynamics`` (proximal ``mu = 0``) and by gaussqp; the
  gap between the two is recorded.
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import time
from pathlib import Path

import numpy as np

import gaussqp
from gaussqp.io.gaussqp_format import to_dict
from gaussqp.mechanics.frames import contact_frame

#: Coulomb's coefficient at the feet (rubber-like feet on a hard floor)
MU = 0.6
#: the four feet of solo12, in the SRDF's order of legs
FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
#: where the JSON goes
OUT = Path(__file__).resolve().parents[1] / "data" / "real" / "pinocchio_solo12_four_feet.json"
#: the robot's directory inside the example-robot-data wheel
SOLO_DIR = "cmeel.prefix/share/example-robot-data/robots/solo_description"


def solo_paths() -> tuple[Path, Path]:
    """The installed solo12 URDF and the solo SRDF (through the example-robot-data distribution's files)."""
    root = Path(metadata.distribution("example-robot-data").locate_file(SOLO_DIR))
    urdf, srdf = root / "robots" / "solo12.urdf", root / "srdf" / "solo.srdf"
    if not urdf.is_file() or not srdf.is_file():
        raise FileNotFoundError(f"solo12 not found under {root}: install gaussqp[models] (example-robot-data)")
    return urdf, srdf


def standing_state(model, data) -> dict:
    """q (SRDF "standing"), v = 0 and the static-equilibrium torques (module docstring)."""
    import pinocchio as pin

    q = np.array(model.referenceConfigurations["standing"], dtype=float)
    v = np.zeros(model.nv)
    g = pin.computeGeneralizedGravity(model, data, q)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    J = np.vstack([pin.getFrameJacobian(model, data, model.getFrameId(f), pin.LOCAL_WORLD_ALIGNED)[:3] for f in FEET])
    f = np.linalg.lstsq(J[:, :6].T, g[:6], rcond=None)[0]  # minimum-norm foot forces balancing the base
    tau = g - J.T @ f
    tau[:6] = 0.0
    return {
        "q": q,
        "v": v,
        "tau": tau,
        "foot_forces": f.reshape(4, 3),
        "feet": {name: data.oMf[model.getFrameId(name)].translation.tolist() for name in FEET},
    }


def solo12_four_feet() -> tuple[dict, "gaussqp.ContactProblem"]:
    """The solo12 scene: its JSON document (problem, source, parameters) and the problem."""
    import pinocchio as pin
    from gaussqp.io.pinocchio import FrameContact, import_pinocchio, load_model

    urdf, srdf = solo_paths()
    model = load_model(urdf, floating_base=True)
    pin.loadReferenceConfigurations(model, str(srdf))
    data = model.createData()
    state = standing_state(model, data)
    q, v, tau = state["q"], state["v"], state["tau"]
    contacts = [FrameContact(f, normal=(0.0, 0.0, 1.0), friction=MU) for f in FEET]
    imp = import_pinocchio(model, q, v, tau, contacts, name="pinocchio_solo12_four_feet")
    problem = imp.problem
    start = time.perf_counter()
    sol = gaussqp.solve(problem)
    elapsed = time.perf_counter() - start

    # the bilateral variant: Pinocchio's constraintDynamics against gaussqp on the same rows
    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for f in FEET:
        frame = model.frames[model.getFrameId(f)]
        cm = pin.RigidConstraintModel(
            pin.ContactType.CONTACT_3D, model, frame.parentJoint, frame.placement, pin.LOCAL_WORLD_ALIGNED
        )
        cm.name = f
        models.append(cm)
        datas.append(cm.createData())
    cd_data = model.createData()
    pin.initConstraintDynamics(model, cd_data, models, datas)
    settings = pin.ProximalSettings(1e-14, 1e-14, 0.0, 100)
    a_pin = pin.constraintDynamics(model, cd_data, q, v, tau, models, datas, settings).copy()
    lam_pin = cd_data.lambda_c.copy()
    bilateral = import_pinocchio(model, q, v, tau, constraint_models=models).problem
    sol_b = gaussqp.solve(bilateral)

    versions = {name: metadata.version(name) for name in ("pin", "example-robot-data", "numpy")}
    versions["gaussqp"] = metadata.version("gaussqp")
    mass = float(sum(inertia.mass for inertia in model.inertias))
    lam_ref = state["foot_forces"]
    # gaussqp's rows per foot: normal n = z and the tangents t₁, t₂ of gaussqp.mechanics.frames.contact_frame(z); the
    # foot forces in world x, y, z are λ_t₁ t₁ + λ_t₂ t₂ + λ_n n (the shipped file was written when t₁ = x, t₂ = y)
    n, t1, t2 = contact_frame((0.0, 0.0, 1.0))
    lam_gq = (
        sol.lambda_tangent @ np.vstack([t1, t2]) + np.outer(sol.lambda_normal, n)
        if sol.lambda_normal is not None
        else None
    )
    doc = to_dict(problem)
    doc["description"] = (
        "solo12 (example-robot-data) standing on its four feet at the SRDF's 'standing' "
        f"configuration, at rest, with static-equilibrium joint torques; four unilateral point "
        f"contacts with μ = {MU}, all sticking"
    )
    doc["source"] = (
        f"example-robot-data {versions['example-robot-data']} solo_description/robots/solo12.urdf "
        f"(free-flyer root) and srdf/solo.srdf group_state 'standing'; pin {versions['pin']}; "
        "imported by gaussqp.io.pinocchio.import_pinocchio (M = crba, F = nle - tau, rows in "
        "LOCAL_WORLD_ALIGNED axes); v = 0; tau = static equilibrium (minimum-norm foot forces "
        "balancing the base, joint torques from the joint equations, tau_base = 0); written by "
        "python -m problems.real.pinocchio_scenes"
    )
    doc["parameters"] = {
        "robot": "solo12",
        "versions": versions,
        "state": {
            "q": q.tolist(),
            "v": v.tolist(),
            "tau": tau.tolist(),
            "how": "q: SRDF group_state 'standing'; v = 0; tau: static equilibrium (see source)",
        },
        "mass": mass,
        "gravity": float(np.linalg.norm(model.gravity.linear)),
        "contacts": [
            {
                "frame": f,
                "kind": "point",
                "type": "unilateral",
                "normal": [0.0, 0.0, 1.0],
                "friction": MU,
                "mode": o.mode,
                "position": state["feet"][f],
            }
            for f, o in zip(FEET, imp.origins)
        ],
        "expected": {
            "acceleration": [0.0] * model.nv,
            "foot_forces_xyz": lam_ref.tolist(),
            "why": "tau is the static equilibrium of these foot forces at v = 0",
        },
        "gaussqp": {
            "status": str(sol.status),
            "formulation": sol.formulation,
            "certified": bool(sol.certified),
            "unique": {k: v for k, v in sol.unique.items()},
            "time_s": round(elapsed, 4),
            "max_abs_acceleration": float(np.abs(sol.acceleration).max()),
            "gap_to_expected_forces": float(np.abs(lam_gq - lam_ref).max()),
            "mu_min": None if sol.sticking is None else float(sol.sticking.mu_min),
            "sticking_margin": (
                None if sol.sticking is None or sol.sticking.margin is None else float(sol.sticking.margin)
            ),
        },
        "bilateral_variant": {
            "what": "the four feet as Pinocchio CONTACT_3D RigidConstraintModels (LOCAL_WORLD_ALIGNED), "
            "pinocchio.constraintDynamics with ProximalSettings(1e-14, 1e-14, mu=0, 100) vs gaussqp.solve",
            "status": str(sol_b.status),
            "certified": bool(sol_b.certified),
            "gap_acceleration": float(np.abs(sol_b.acceleration - a_pin).max()),
            "gap_forces": float(np.abs(sol_b.lambda_normal - lam_pin).max()),
            "pinocchio_max_abs_acceleration": float(np.abs(a_pin).max()),
        },
    }
    return doc, problem


def main() -> None:
    doc, problem = solo12_four_feet()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    g, b = doc["parameters"]["gaussqp"], doc["parameters"]["bilateral_variant"]
    print(
        f"{OUT}: n = {problem.n}, contacts = {problem.m}, status {g['status']} ({g['formulation']}, certified "
        f"{g['certified']}), unique {g['unique']}, |a| {g['max_abs_acceleration']:.1e}, forces vs equilibrium "
        f"{g['gap_to_expected_forces']:.1e}, time {g['time_s']} s; bilateral variant vs constraintDynamics: "
        f"a {b['gap_acceleration']:.1e}, λ {b['gap_forces']:.1e}"
    )


if __name__ == "__main__":
    main()
