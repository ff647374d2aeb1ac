"""Formulation registry (docs/DESIGN.md §3): name -> formulation object.

F4 (``sticking_socp``) and F5 (``facetized_inner``, ``facetized_outer``, 8 facets; other
counts through :meth:`FacetizedQP.with_facets`) solve the all-sticking problem; F6
(``sliding_lcp``, ``sliding_fixed_point``, ``sliding_enumeration``) sliding friction and stick/slip;
``coulomb_enumeration`` (F6) Coulomb's law with the mode left to the solver, exact in 2D; F8
(``coulomb_fixed_point``) mode-free Coulomb contacts by convex iteration and a Newton polish; F9
(``coulomb_mixed``) the same mixed with every other contact kind and a singular M, in (a, λ).
"""

from __future__ import annotations

from .base import Formulation, PROGRAMS
from .registry import FORMULATIONS, get_formulation, register
from .bilateral_kkt import BilateralKKT
from .delassus import AugmentedStickingLCP, DelassusQP, LCPLemke
from .gauss_qp import GaussQP
from .projected import ProjectedAcceleration, ProjectedEliminated
from .sliding import CoulombEnumeration, SlidingEnumeration, SlidingFixedPoint, SlidingLCP
from .facetized import FacetizedQP
from .coulomb import CoulombFixedPoint
from .coulomb_mixed import CoulombMixed
from .sticking_socp import StickingSOCP

for _f in (
    GaussQP(),
    ProjectedAcceleration(),
    ProjectedEliminated(),
    DelassusQP(),
    LCPLemke(),
    BilateralKKT(),
    StickingSOCP(),
    FacetizedQP("inner"),
    FacetizedQP("outer"),
    SlidingLCP(),
    SlidingFixedPoint(),
    SlidingEnumeration(),
    AugmentedStickingLCP(),
    CoulombEnumeration(),
    CoulombEnumeration("inner"),
    CoulombEnumeration("outer"),
    CoulombFixedPoint(),
    CoulombMixed(),
):
    register(_f)


__all__ = ["FORMULATIONS", "Formulation", "PROGRAMS", "get_formulation", "register"]
