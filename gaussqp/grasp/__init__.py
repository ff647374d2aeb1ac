"""Grasp and closure analysis with exact friction cones and certificates.

:mod:`.model` (the grasp, its map and cones), :mod:`.format` (the ``gaussqp-grasp/1`` JSON format),
:mod:`.closure` (equilibrium, force and form closure, internal forces, min-weight, largest disturbance),
:mod:`.quality` (the Ferrari–Canny ε bracketed by inscribed and circumscribed cones), :mod:`.hand` (torque limits,
the dynamic check through F4), :mod:`.report` (every check at once, the CLI's ``gaussqp grasp``), :mod:`.plot`,
:mod:`.batch` (many grasps at once: :func:`analyze_many`), :mod:`.simulator`
(:func:`grasp_from_mujoco`).
"""

from .batch import GraspResult, analyze_many, force_closures, read_grasps, read_jsonl, write_jsonl, write_table
from .closure import (
    equilibrium,
    force_closure,
    force_closure_from,
    form_closure,
    internal_forces,
    largest_disturbance,
    min_weight,
)
from .format import dump, dumps, load, loads
from .hand import dynamic_check, hand_closure, hand_contact_problem, hand_equilibrium
from .model import Grasp, GraspCheck, GraspContact, Hand, from_contact_problem, tangent_basis
from .plot import plot
from .quality import epsilon, grasp_metrics, polytope_points, support_function
from .report import GraspReport, analyze
from .simulator import grasp_from_mujoco

__all__ = [
    "Grasp",
    "GraspCheck",
    "GraspContact",
    "GraspReport",
    "GraspResult",
    "Hand",
    "analyze",
    "analyze_many",
    "dump",
    "dumps",
    "dynamic_check",
    "epsilon",
    "equilibrium",
    "force_closure",
    "force_closure_from",
    "force_closures",
    "form_closure",
    "from_contact_problem",
    "grasp_from_mujoco",
    "grasp_metrics",
    "hand_closure",
    "hand_contact_problem",
    "hand_equilibrium",
    "internal_forces",
    "largest_disturbance",
    "load",
    "loads",
    "min_weight",
    "plot",
    "polytope_points",
    "read_grasps",
    "read_jsonl",
    "support_function",
    "tangent_basis",
    "write_jsonl",
    "write_table",
]
