"""The system class of a problem (what the dispatcher keys its preference table on) and the
names of contact types and modes.

``ContactType`` and ``Mode`` are string enums: their members compare equal to the strings used in
files and in :class:`~gaussqp.model.problem.Contact` (``"unilateral" == ContactType.UNILATERAL``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Label(str, Enum):
    """A string enum whose members are their strings everywhere: equal, hashed, printed, formatted and
    repr'd as the string (``"solved" in {Status.SOLVED}``, f-strings and messages unchanged)."""

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:  # as the string it equals, so messages read the same as with plain strings
        return repr(self.value)


class ContactType(Label):
    """Kind of constraint of a contact row."""

    BILATERAL = "bilateral"  #: ``n a + b = 0``, multiplier free
    UNILATERAL = "unilateral"  #: ``0 <= λ ⟂ n a + b >= 0``


class Mode(Label):
    """Tangential law of a contact."""

    FRICTIONLESS = "frictionless"  #: no tangential force
    STICKING = "sticking"  #: ``T a + c = 0`` and ``‖λ_t‖ <= μ |λ_n|``
    SLIDING = "sliding"  #: ``λ_t = -μ |λ_n| s``
    #: Coulomb's law with the stick/slip mode left to the solver (unilateral contacts): ``u_t = T a + c``,
    #: ``u_t = 0, ‖λ_t‖ <= μ λ_n`` or ``λ_t = -μ λ_n u_t/‖u_t‖``. What the importers give a resting frictional
    #: contact whose mode the state does not decide, and what an FCLIB problem means. Only the formulations
    #: that decide the modes solve it (F8, F9, the coulomb enumeration); the others refuse it (:data:`UNDECIDED_MODES`).
    COULOMB = "coulomb"


CONTACT_TYPES = tuple(t.value for t in ContactType)
MODES = tuple(m.value for m in Mode)
#: modes whose stick/slip decision is left to a solver; a formulation that needs every mode given refuses them
UNDECIDED_MODES = frozenset({Mode.COULOMB.value})


@dataclass(frozen=True)
class SystemClass:
    """What :meth:`ContactProblem.classify` reports about a problem's structure."""

    n: int
    mass: str  # "definite" | "singular"
    mass_rank: int
    constraints: str  # "none" | "bilateral" | "unilateral" | "mixed"
    modes: str  # the contacts' tangential laws: "frictionless" | "sticking" | "sliding" | "coulomb" | "mixed"
    m_bilateral: int
    m_unilateral: int
    normal_rank: int
    redundant: bool
    dimension: int
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def friction(self) -> str:
        """Former name of :attr:`modes` (kept for compatibility; "friction" is the coefficient μ elsewhere)."""
        return self.modes

    @property
    def key(self) -> tuple[str, str, str]:
        """(mass, constraints, modes): the key of the dispatcher's preference table."""
        return (self.mass, self.constraints, self.modes)

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "mass": self.mass,
            "mass_rank": self.mass_rank,
            "constraints": self.constraints,
            "friction": self.modes,  # JSON key kept: files and scripts read it
            "m_bilateral": self.m_bilateral,
            "m_unilateral": self.m_unilateral,
            "normal_rank": self.normal_rank,
            "redundant": self.redundant,
            "dimension": self.dimension,
            "notes": list(self.notes),
        }
