"""The structural report of ``gaussqp check``: the system class, the structural certificates C1–C6,
the sticking criteria C8, the P-matrix test of sliding problems and the friction bounds C7 — decided
on the data alone, without solving.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.arguments import check_problem
from ..model.problem import ContactProblem
from ..model.system_class import SystemClass
from ..results import Certificate
from .structural import structural_certificates
from ..settings import STRUCTURAL_N_MAX


@dataclass
class CheckReport:
    """What :func:`check` returns: the system class and the structural certificates."""

    problem: ContactProblem
    system_class: SystemClass
    certificates: list[Certificate] = field(default_factory=list)
    skipped: str = ""
    friction_bounds: list = field(default_factory=list)

    def certificate(self, cid: str) -> Certificate | None:
        return next((c for c in self.certificates if c.id == cid), None)

    def as_dict(self) -> dict:
        d = {
            "problem": self.problem.name,
            "system_class": self.system_class.as_dict(),
            "certificates": [c.as_dict() for c in self.certificates],
            "skipped": self.skipped,
        }
        if self.system_class.modes != "frictionless":
            d["friction_bounds"] = [b.as_dict() for b in self.friction_bounds]
        return d


def check(problem: ContactProblem) -> CheckReport:
    """Structural report without solving: system class, certificates C1-C6 and C8, the P-matrix test of
    the sliding LCP (58), and the C7 friction bounds.

    Parameters
    ----------
    problem : ContactProblem
        The problem (every contact's mode given; a problem with ``coulomb`` contacts gets no certificate, and
        the report says why).

    Returns
    -------
    CheckReport
        The system class, the certificates (each with its source in the papers, whether it holds, a signed
        margin and what it implies) and the friction bounds.

    Examples
    --------
    >>> import gaussqp
    >>> rep = gaussqp.check(gaussqp.problems.load("rod_wall_guide"))
    >>> [(c.id, c.holds) for c in rep.certificates][:3]
    [('C1', True), ('C2', True), ('C3', True)]
    """
    from .friction_bounds import friction_bounds
    from .sliding_verdict import p_matrix_certificate

    cls = check_problem(problem, local=False).classify()
    if len(problem.coulomb):
        return CheckReport(
            problem,
            cls,
            [],
            skipped=(
                f"{len(problem.coulomb)} contact(s) have mode 'coulomb' (stick/slip left to the solver): the certificates "
                "C1-C8 and the friction bounds are criteria of problems whose every mode is given; none is reported"
            ),
        )
    if problem.n > STRUCTURAL_N_MAX:
        return CheckReport(
            problem, cls, [], skipped=f"structural certificates skipped: n = {problem.n} > {STRUCTURAL_N_MAX}"
        )
    certs = structural_certificates(problem)
    if len(problem.sliding) and problem.mass_factor.definite and not len(problem.sticking):
        certs.append(p_matrix_certificate(problem))
    return CheckReport(problem, cls, certs, friction_bounds=friction_bounds(problem))
