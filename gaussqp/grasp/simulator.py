"""Grasps from a simulator state: :func:`grasp_from_mujoco`.

The MuJoCo side (which contacts touch the object, their inward normals, μ and condim, the hand's Jacobian rows
and actuator torque limits, the object's weight) is read by :func:`gaussqp.io.mujoco.read_grasp`, in the importer
layer; this module makes the :class:`~gaussqp.grasp.Grasp` of it (the grasp layer sits above the importers:
``gaussqp/grasp/format.py`` reads JSON through ``gaussqp.io``, so the importers never build grasps themselves).
"""

from __future__ import annotations

from .model import Grasp, GraspContact, Hand


def grasp_from_mujoco(model, data, object_body, *, name: str | None = None) -> Grasp:
    """The grasp on ``object_body`` (a body name or index) of a MuJoCo ``model`` at the state of ``data``.

    Parameters
    ----------
    model, data : ``mujoco.MjModel``, ``mujoco.MjData`` (left unchanged)
    object_body : str or int
    name : the grasp's name (default ``"MODEL:BODY"``)

    Returns
    -------
    Grasp
        Contacts from :func:`gaussqp.io.mujoco.read_grasp` (positions from the object's centre of mass, inward
        normals, condim 1/3/4 as frictionless/hard/soft), its weight as ``wrench``, and a :class:`Hand` with the
        Jacobian of every degree of freedom that is not the object's and the actuators' torque limits.

    Notes
    -----
    MuJoCo's elliptic condim-4 cone ``(f_t/μ)² + (τ/μ_t)² <= f_n²`` is the soft finger's cone exactly (MuJoCo
    documentation, "Contact"; Kao, Lynch, Burdick in the *Handbook of Robotics* §38 for the soft-finger model).
    """
    from ..io.mujoco import read_grasp

    return grasp_of_reading(read_grasp(model, data, object_body, name=name))


def grasp_of_reading(reading) -> Grasp:
    """The :class:`Grasp` of a :class:`gaussqp.io.mujoco.MujocoGrasp` (what :func:`grasp_from_mujoco` returns);
    the hand carries MuJoCo's ``M`` and ``F`` on its joints, so that :func:`gaussqp.grasp.dynamic_check` runs with
    ``object_mass_matrix=reading.object_mass_matrix``."""
    r = reading
    contacts = [
        GraspContact(p, n, float(mu), kind, float(mut))
        for p, n, mu, kind, mut in zip(r.positions, r.normals, r.friction, r.kinds, r.torsional)
    ]
    hand = (
        None
        if r.jacobian is None
        else Hand(
            jacobian=r.jacobian, torque_limits=r.torque_limits, mass_matrix=r.hand_mass_matrix, force=r.hand_force
        )
    )
    return Grasp(contacts, wrench=r.wrench, hand=hand, name=r.name, description=r.description)


__all__ = ["grasp_from_mujoco", "grasp_of_reading"]
