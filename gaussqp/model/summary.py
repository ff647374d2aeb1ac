"""What every contact problem says about itself, whatever its form: :class:`ProblemSummary`.

gaussqp has two problem types: the global :class:`~gaussqp.ContactProblem` (``M a + F = Jᵀλ``, a mass matrix and
contact rows) and the local :class:`~gaussqp.LocalContactProblem` (``u = W r + q``, FCLIB's Delassus form). Both
have ``form`` ("global" / "local", the NPZ format's ``form`` member), ``name``, ``description``, ``m``,
``dimension``, ``modes`` (a local problem's contacts are all ``"coulomb"``: its stick/slip is left to the solver)
and the index sets ``sticking``, ``sliding``, ``coulomb``, and ``summary()``, this record. Code that walks problems
of both forms (``gaussqp list``, ``gaussqp info``, the study sets, the study routes) reads these, not the type.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .system_class import SystemClass

#: the two problem forms (the ``form`` of a problem, of its summary and of the NPZ format)
FORMS = ("global", "local")


@dataclass(frozen=True)
class ProblemSummary:
    """A problem's description, common to both forms.

    ``unknowns`` is the size of the problem's primal vector: ``n`` coordinates of a global problem, the ``m·d``
    reaction coordinates of a local one (the size of its W). ``system_class`` is the global problem's
    :class:`~gaussqp.model.system_class.SystemClass`, None for a local problem (no mass matrix to classify);
    ``class_key`` is ``"mass/constraints/modes"``, or ``"local"``. ``modes`` counts the contacts per mode."""

    form: str
    name: str
    description: str
    m: int
    dimension: int
    unknowns: int
    class_key: str
    #: the equation and sizes in words, e.g. ``"n=6, m=4: 0 bilateral, 4 unilateral; M definite, rank 6"``
    detail: str = ""
    modes: dict = field(default_factory=dict)
    system_class: SystemClass | None = None

    @property
    def n(self) -> int | None:
        """Coordinates of a global problem; None for a local one."""
        return self.system_class.n if self.system_class is not None else None

    @property
    def has_mass(self) -> bool:
        """True when the problem has a mass matrix (the global form): what structural reports and force envelopes need."""
        return self.system_class is not None

    def headline(self) -> str:
        """One line: form, sizes, class (``gaussqp list``, ``gaussqp solve``)."""
        c = self.system_class
        if c is None:
            return f"local u = W r + q, m={self.m} contacts, d={self.dimension}, coulomb"
        return f"n={c.n:<3} m={self.m:<3} M {c.mass:<9} {c.constraints:<10} {c.modes:<12}"

    def as_dict(self) -> dict:
        out = {
            "form": self.form,
            "name": self.name,
            "detail": self.detail,
            "m": self.m,
            "dimension": self.dimension,
            "unknowns": self.unknowns,
            "class": self.class_key,
            "modes": dict(self.modes),
        }
        if self.system_class is not None:
            out["n"] = self.system_class.n
            out["system_class"] = self.system_class.as_dict()
        return out


def mode_counts(modes) -> dict:
    """{mode: count}, sorted by mode."""
    out: dict[str, int] = {}
    for x in modes:
        out[str(x)] = out.get(str(x), 0) + 1
    return dict(sorted(out.items()))


__all__ = ["FORMS", "ProblemSummary", "mode_counts"]
