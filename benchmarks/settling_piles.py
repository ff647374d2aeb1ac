"""Issue #27's settling piles (a benchmark's data, not a test): the states of a generated scene while it settles, its
bodies still moving, written as FCLIB files for ``benchmarks/coulomb_hard.py`` (gaussqp before and after, side by
side with Siconos).

    PYTHONPATH=. python benchmarks/settling_piles.py [--scene box_pile] [--seed 1] [--contacts 130] \
        [--states 15] [--every 25] [--first 7] [--out /tmp/settling_piles]
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/coulomb_hard.py /tmp/settling_piles/*.hdf5

The scene is ``problems.fclib_scenes.scene_xml(scene, seed, contacts, contacts)`` dropped from its initial pose (the
MJCF the generated set's problems settle from, before their velocities are zeroed and a push is applied). Every
``--every`` MuJoCo steps (state k after (k + 1) · every steps), from state ``--first`` on, the state is imported with
every contact's stick/slip left to the solver (mode ``coulomb``: a simulator's state re-posed with no mode told) and
written as ``<scene>-s<seed>-t<contacts>-k<state>.hdf5``. The bodies then move (speeds up to ~20 m/s), many contacts slide
slowly against redundant neighbours (W singular: four contacts on a box's face), which is where the mode-free
route's Newton stalls near the certificate's bound (the convex iteration's SOCP accuracy, ``COULOMB_SOCP_RTOL``, was
found there). Needs ``mujoco`` and ``h5py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def states(scene: str, seed: int, contacts: int, count: int, every: int, first: int):
    """``(k, problem)`` for the states ``first … count − 1`` of the settling scene (module docstring)."""
    import mujoco

    from gaussqp.io.mujoco import import_mujoco
    from problems import fclib_scenes

    xml, _ = fclib_scenes.scene_xml(scene, seed, contacts, contacts)
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    for k in range(count):  # state k: after (k + 1) · every steps
        mujoco.mj_step(model, data, every)
        mujoco.mj_forward(model, data)  # the contacts at the state reached (mj_step's are those before its last step)
        if k < first or data.ncon == 0:
            continue
        name = f"{scene}-s{seed}-t{contacts}-k{k}"
        yield k, import_mujoco(model, data, modes={i: "coulomb" for i in range(data.ncon)}, name=name).problem


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="box_pile")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--contacts", type=int, default=130, help="the scene's aimed contact count (its body count)")
    ap.add_argument("--states", type=int, default=15, help="the states stepped (the last written is states − 1)")
    ap.add_argument("--every", type=int, default=25, help="MuJoCo steps between two states")
    ap.add_argument("--first", type=int, default=7, help="the first state written (the earlier ones are mid-air)")
    ap.add_argument("--out", default="/tmp/settling_piles")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from gaussqp.io import fclib

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for k, problem in states(args.scene, args.seed, args.contacts, args.states, args.every, args.first):
        path = out / f"{problem.name}.hdf5"
        fclib.save(problem, path)
        print(f"state {k}: {problem.m} contacts, n = {problem.n} -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
