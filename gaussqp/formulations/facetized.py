"""F5: the all-sticking contact problem with facetized Coulomb disks (a QP), inscribed or circumscribed.

Sticking (54)–(59), Prop. 10, Cor. 4: F4's gap program (:mod:`gaussqp.formulations.sticking_conic`)
with every disk replaced by a polygon of ``facets`` facets. ``facetized_inner`` (inscribed: feasible ⇒
sticking feasible) and ``facetized_outer`` (circumscribed: infeasible ⇒ sticking infeasible) bracket F4;
in 2D both are exact.
"""

from __future__ import annotations

from ..friction.cones import ConeModel
from .sticking_conic import StickingConic
from ..settings import DEFAULT_FACETS


class FacetizedQP(StickingConic):
    """F5 with ``facets`` sides; ``kind`` "inner" (inscribed) or "outer" (circumscribed).

    Solves the gap QP over ``(a, λ)`` with polygonal cones, an equivalent of the paper's (57) where
    that is defined (Assumption 1, ``A_c^st ≻ 0``), not (57) itself (module docstring)."""

    id = "F5"
    #: the MLCP without cones and the other polygon, as F4 (not the generic routes, which compare it with the MLCP
    #: without cones as if that were its problem: an infeasible polygon "disagreed" with Lemke's MLCP answer)
    crosscheck = "sticking"
    source = "sticking (54)-(59), Prop. 10, Cor. 4, Fig. 4"
    valid_when = "no sliding contacts; any M ⪰ 0; exact in 2D, a bracket in 3D; d <= 3"

    def __init__(self, kind: str = "inner", facets: int = DEFAULT_FACETS):
        self.model = ConeModel(kind, facets)
        self.name = f"facetized_{kind}"
        self.title = (
            f"facetized Coulomb disks, {'inscribed' if kind == 'inner' else 'circumscribed'} "
            f"polygons with {facets} facets (QP)"
        )

    def accepts(self, problem, cls) -> tuple[bool, str]:
        if problem.dimension > 3:
            return False, (
                f"polygons of the Coulomb cone are for d = 2 or 3, not d = {problem.dimension}: use 'sticking_socp'"
            )
        return super().accepts(problem, cls)

    def with_facets(self, facets: int) -> "FacetizedQP":
        return FacetizedQP(self.model.kind, facets)
