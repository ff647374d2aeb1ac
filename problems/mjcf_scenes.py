"""Small MuJoCo scenes whose answer is known in closed form, as MJCF text: the audit's tests and benchmarks
(``benchmarks/audit_rollouts.py``, ``benchmarks/mujoco_verdicts.py``) and the MuJoCo tests build them here.

Each function returns the XML of one scene (gravity ``G`` along −z, time step 2 ms, MuJoCo's default condim 3
unless told); the closed forms are in each docstring. Nothing here imports MuJoCo.
"""

from __future__ import annotations

import math
from pathlib import Path

#: gravity of every scene (m/s²)
G = 9.81

#: an MJCF file (shipped with the problem library): two fingertips on slide joints squeezing a 0.2 kg box along x,
#: μ = 0.8, motors of at most 20 N (keyframe ``pinch``: 10 N each). Statics by hand: two hard fingers never close the
#: grasp (the torque about the line joining them), and they hold the box while 2 μ · 20 N ≥ m g; at 10 N every
#: contact sticks with μ_min = m g / (2 · 10 N) = 0.0981. The grasp of ``gaussqp grasp FILE --object box``.
PINCH_GRASP = Path(__file__).resolve().parent / "data" / "mujoco" / "pinch_grasp.xml"

#: an MJCF file: three fingertips on radial slide joints at 120° in a horizontal plane squeezing a 0.2 kg ball of
#: radius 0.03 m, μ = 0.8, motors of at most 20 N (keyframe ``grip``: 10 N each). Statics by hand: three hard fingers
#: at 120° close the grasp (the README's ring); they hold the ball while 3 μ · 20 N ≥ m g; at 10 N each the normal
#: forces are 10 N (the three balance in the plane) and every contact sticks with μ_min = m g / (3 · 10 N) = 0.0654.
THREE_FINGER_GRASP = Path(__file__).resolve().parent / "data" / "mujoco" / "three_finger_grasp.xml"

#: the rolling and torsional friction entries of every geom (MuJoCo's defaults); only the sliding μ varies
_SPIN_ROLL = "0.005 0.0001"


def table_xml(cone: str = "pyramidal", condim: int = 3) -> str:
    """A table of 7 kg (a 5 kg top, four 0.5 kg spherical feet 0.7 m × 0.5 m apart) on a floor with μ = 0.7.

    At rest the rigid statics leaves the four normal forces undetermined: each lies in ``[0, W/2]`` with
    ``W = 7 g`` (:data:`TABLE_W`), their sum ``W``; the acceleration is 0.
    """
    return f"""<mujoco model="table4">
  <option gravity="0 0 -{G}" timestep="0.002" cone="{cone}"/>
  <default><geom condim="{condim}"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="0.7 {_SPIN_ROLL}"/>
    <body name="table" pos="0 0 0.52">
      <freejoint/>
      <geom name="top" type="box" size="0.4 0.3 0.02" pos="0 0 0.25" mass="5"/>
      <geom name="leg1" type="sphere" size="0.02" pos="0.35 0.25 -0.25" mass="0.5"/>
      <geom name="leg2" type="sphere" size="0.02" pos="-0.35 0.25 -0.25" mass="0.5"/>
      <geom name="leg3" type="sphere" size="0.02" pos="0.35 -0.25 -0.25" mass="0.5"/>
      <geom name="leg4" type="sphere" size="0.02" pos="-0.35 -0.25 -0.25" mass="0.5"/>
    </body>
  </worldbody>
</mujoco>"""


#: the weight of :func:`table_xml`'s table (N)
TABLE_W = 7.0 * G


def ramp_xml(theta_deg: float, mu: float, cone: str = "pyramidal", h: float = 0.1) -> str:
    """A 1 kg cube of side 0.2 on a plane tilted by ``theta_deg`` about y, friction ``mu`` on both geoms, its centre
    ``h`` above the plane along the plane's normal (``h = 0.1``: touching).

    Rigid answer: at rest when ``mu ≥ tan θ`` (acceleration 0, total normal force ``g cos θ``), else sliding down
    the slope with ``g (sin θ − μ cos θ)``.
    """
    th = math.radians(theta_deg)
    return f"""<mujoco model="ramp">
  <option gravity="0 0 -{G}" timestep="0.002" cone="{cone}"/>
  <worldbody>
    <geom name="ramp" type="plane" size="5 5 0.1" euler="0 {theta_deg} 0" friction="{mu} {_SPIN_ROLL}"/>
    <body name="box" pos="{h * math.sin(th):.9f} 0 {h * math.cos(th):.9f}" euler="0 {theta_deg} 0">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.1 0.1" mass="1" friction="{mu} {_SPIN_ROLL}"/>
    </body>
  </worldbody>
</mujoco>"""


def pinch_xml(mu: float = 1.0, N: float = 1.0, m: float = 0.1, cone: str = "pyramidal") -> str:
    """A box of mass ``m`` held by two spherical fingertips on horizontal slide joints, each pushed inward by a motor
    of force ``N`` (keyframe ``grip``).

    Rigid statics: each contact has ``λ_n = N`` and a vertical friction ``m g / 2`` (the box's torque balance splits
    the weight evenly); the hold margin is ``μ N − m g / 2``. MuJoCo's soft contacts let the box creep down.
    """
    return f"""<mujoco model="pinch">
  <option gravity="0 0 -{G}" timestep="0.002" cone="{cone}"/>
  <worldbody>
    <body name="f1" pos="0.07 0 0.5"><joint name="s1" type="slide" axis="1 0 0"/>
      <geom name="tip1" type="sphere" size="0.02" mass="0.05" friction="{mu} {_SPIN_ROLL}"/></body>
    <body name="f2" pos="-0.07 0 0.5"><joint name="s2" type="slide" axis="1 0 0"/>
      <geom name="tip2" type="sphere" size="0.02" mass="0.05" friction="{mu} {_SPIN_ROLL}"/></body>
    <body name="obj" pos="0 0 0.5"><freejoint/>
      <geom name="obj" type="box" size="0.05 0.05 0.05" mass="{m}" friction="{mu} {_SPIN_ROLL}"/></body>
  </worldbody>
  <actuator><motor name="m1" joint="s1"/><motor name="m2" joint="s2"/></actuator>
  <keyframe><key name="grip" ctrl="{-N} {N}"/></keyframe>
</mujoco>"""
