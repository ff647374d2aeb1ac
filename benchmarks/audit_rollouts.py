"""The audits of issue #29's closing note: MuJoCo rollouts of >= 1,000 states of scenes with >= 10 contacts, and a grasp
that creeps in MuJoCo.

Scenes (MJCF below):

* ``yard``: a table on four spherical feet with a cup and a book on it, a stack of three boxes, and a box on a 25°
  ramp with μ = 0.7 > tan 25° (rigid: it sticks; MuJoCo: it creeps down); 20–28 contacts, released at rest 1e-5
  into their supports.
* ``push``: a pusher on a slide joint driven by a constant motor force (22 N, its control in the keyframe) shoves a
  row of three boxes with a fourth on top across the floor (μ = 0.5): impacts, sliding, MuJoCo's rocking boxes.
* ``pinch``: a 0.1 kg box held by two spherical fingertips pressed by 1 N motors (μ = 1): rigid statics holds it
  with margin μN − mg/2 = 0.5095 N per contact; MuJoCo's soft contacts let it slide down (creep).

Usage::

    python benchmarks/audit_rollouts.py [--out DIR] [--steps 1000] [--workers 2] [--scene yard|push|pinch|all]

Writes ``DIR/<scene>/report.html`` (+ timeline.png, Parquet tables, audit.json) and prints each text summary.
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import sys
import tempfile

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from gaussqp.problems.mjcf_scenes import pinch_xml  # noqa: E402

YARD = """<mujoco model="yard">
  <option gravity="0 0 -9.81" timestep="0.002"/>
  <default><geom friction="0.7 0.005 0.0001"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1"/>
    <geom name="ramp" type="box" size="0.6 0.4 0.05" pos="3 0 0.3" euler="0 25 0"/>
    <body name="table" pos="0 0 0.26999">
      <freejoint/>
      <geom name="top" type="box" size="0.4 0.3 0.02" pos="0 0 0.25" mass="5"/>
      <geom name="leg1" type="sphere" size="0.02" pos="0.35 0.25 -0.25" mass="0.5"/>
      <geom name="leg2" type="sphere" size="0.02" pos="-0.35 0.25 -0.25" mass="0.5"/>
      <geom name="leg3" type="sphere" size="0.02" pos="0.35 -0.25 -0.25" mass="0.5"/>
      <geom name="leg4" type="sphere" size="0.02" pos="-0.35 -0.25 -0.25" mass="0.5"/>
    </body>
    <body name="cup" pos="0.2 0.1 0.58999"><freejoint/><geom name="cup" type="box" size="0.05 0.05 0.05" mass="0.3"/></body>
    <body name="book" pos="-0.2 -0.1 0.55999"><freejoint/><geom name="book" type="box" size="0.1 0.07 0.02" mass="0.8"/></body>
    <body name="s1" pos="-1.5 0 0.09999"><freejoint/><geom name="s1" type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="s2" pos="-1.5 0 0.29998"><freejoint/><geom name="s2" type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="s3" pos="-1.5 0 0.49997"><freejoint/><geom name="s3" type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="slider" pos="3 0 0.45" euler="0 25 0"><freejoint/><geom name="slider" type="box" size="0.1 0.1 0.1" mass="1"/></body>
  </worldbody>
</mujoco>"""

PUSH = """<mujoco model="push_row">
  <option gravity="0 0 -9.81" timestep="0.002"/>
  <default><geom friction="0.5 0.005 0.0001"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="pusher" pos="-0.45 0 0.1">
      <joint name="push" type="slide" axis="1 0 0" damping="2"/>
      <geom name="pusher" type="box" size="0.05 0.12 0.05" mass="2" contype="2" conaffinity="2"/>
    </body>
    <body name="a" pos="-0.2 0 0.0999"><freejoint/><geom name="a" type="box" size="0.1 0.1 0.1" mass="1" contype="3" conaffinity="3"/></body>
    <body name="b" pos="0.0005 0 0.0999"><freejoint/><geom name="b" type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="c" pos="0.201 0 0.0999"><freejoint/><geom name="c" type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="d" pos="0.0005 0 0.2998"><freejoint/><geom name="d" type="box" size="0.1 0.1 0.1" mass="0.5"/></body>
  </worldbody>
  <actuator><motor name="push" joint="push"/></actuator>
  <keyframe><key name="push" qpos="0  -0.2 0 0.0999 1 0 0 0  0.0005 0 0.0999 1 0 0 0  0.201 0 0.0999 1 0 0 0  0.0005 0 0.2998 1 0 0 0" ctrl="22"/></keyframe>
</mujoco>"""


def yard_start(model):
    """The yard's start: the slider put on the ramp's surface, 1e-5 into it."""
    import mujoco

    d = mujoco.MjData(model)
    th = math.radians(25)
    n = np.array([math.sin(th), 0.0, math.cos(th)])
    adr = model.jnt_qposadr[model.body_jntadr[model.body("slider").id]]
    d.qpos[adr : adr + 3] = np.array([3.0, 0.0, 0.3]) + (0.15 - 1e-5) * n
    return d


def main(argv=None) -> int:
    import mujoco

    import gaussqp
    from gaussqp.audit.report import text_summary, write_report

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="gaussqp-audit-"))
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scene", default="all", choices=["yard", "push", "pinch", "all"])
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    for scene in ["yard", "push", "pinch"] if args.scene == "all" else [args.scene]:
        if scene == "yard":
            m = mujoco.MjModel.from_xml_string(YARD)
            rep = gaussqp.audit((m, yard_start(m)), steps=args.steps, workers=args.workers, progress=True)
        elif scene == "push":
            m = mujoco.MjModel.from_xml_string(PUSH)
            rep = gaussqp.audit(m, keyframe="push", steps=args.steps, workers=args.workers, progress=True)
        else:
            m = mujoco.MjModel.from_xml_string(pinch_xml())
            rep = gaussqp.audit(
                m, keyframe="grip", settle=100, steps=min(args.steps, 500), every=5, workers=args.workers, progress=True
            )
        rep.model = scene
        files = write_report(rep, out / scene)
        print(text_summary(rep))
        print(f"report       {files['html']}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
