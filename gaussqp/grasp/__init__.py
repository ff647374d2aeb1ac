"""Grasp and closure analysis with exact friction cones and certificates (issue #13).

:mod:`.model` (the grasp, its map and cones), :mod:`.format` (the ``gaussqp-grasp/1`` JSON format).
"""

from .format import dump, dumps, load, loads
from .model import Grasp, GraspCheck, GraspContact, Hand, from_contact_problem, tangent_basis

__all__ = ["Grasp", "GraspCheck", "GraspContact", "Hand", "dump", "dumps", "from_contact_problem", "load", "loads",
           "tangent_basis"]
