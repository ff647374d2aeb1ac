"""Routes of a cross-validation study: every (formulation, solver, tolerance) that can solve a problem.

A route is a registered formulation (:data:`gaussqp.formulations.FORMULATIONS`) that ``accepts`` the problem,
with every installed backend (:data:`gaussqp.backends.BACKENDS`, :func:`~gaussqp.backends.installed`) that
supports the program it builds (``qp`` or ``socp``) when it is a cvxpy formulation, or ``"direct"`` /
``"enumeration"`` when it is a pivoting, linear-algebra or enumeration route (``kind == "direct"``), at each
tolerance preset asked for. A local (Delassus) problem ``u = W r + q`` is asked the same way
(:meth:`~gaussqp.formulations.base.Formulation.takes`): its routes are the formulations with ``accepts_local``
(the mode-free Coulomb route ``coulomb_fixed_point``). With ``peers``,
the peers' solvers that apply (:mod:`gaussqp.studies.peers`: formulation ``siconos_…``, solver ``siconos``) are
routes too.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..backends import BACKENDS, installed
from ..errors import GaussQPError, UnknownFormulationError, UnknownSolverError, UnknownValueError
from ..formulations import FORMULATIONS, Formulation
from ..model.any_problem import Problem
from ..settings import PRESETS
from .peers import PEER_SOLVERS, PEERS, peer_solvers_for

#: the facetized variants (F5 polygons, the polygonal Coulomb enumerations): approximations of the exact cones,
#: left out of a study unless asked for (by name in ``formulations``, or ``facetized=True``)
FACETIZED = ("facetized_inner", "facetized_outer", "coulomb_enumeration_inner", "coulomb_enumeration_outer")
#: the formulation of a local (Delassus) problem (kept for compatibility: the registry's ``accepts_local`` decides)
LOCAL_FORMULATION = next(name for name, f in FORMULATIONS.items() if f.accepts_local)


@dataclass(frozen=True)
class Route:
    """One way to solve a problem: ``formulation`` (registered name), ``solver`` (backend name, or ``"direct"`` /
    ``"enumeration"`` for a route without backend) and ``tolerance`` (preset name)."""

    formulation: str
    solver: str
    tolerance: str

    @property
    def backend(self) -> str | None:
        """The backend name handed to the solver (None for a direct or enumeration route)."""
        return None if self.solver in ("direct", "enumeration", *PEERS) else self.solver

    @property
    def peer(self) -> bool:
        """True for a peer library's solver (:mod:`gaussqp.studies.peers`)."""
        return self.solver in PEERS

    @property
    def name(self) -> str:
        return f"{self.formulation}/{self.solver}"


def direct_label(name: str) -> str:
    """``"enumeration"`` for the exact enumeration routes, ``"direct"`` for the other routes without backend."""
    return "enumeration" if "enumeration" in name else "direct"


def program_needs(f: Formulation, problem: Problem) -> str:
    """The cone class of the program ``f`` builds for ``problem``: the F4/F5 family decides it per problem
    (second-order cones only when a sticking contact has an exact cone), the others declare ``needs``."""
    per_problem = getattr(f, "_needs", None)
    return per_problem(problem) if callable(per_problem) else f.needs


def _check_names(field: str, given, known) -> tuple[str, ...] | None:
    if given is None:
        return None
    given = (given,) if isinstance(given, str) else tuple(given)
    bad = [g for g in given if g not in known]
    if bad:
        err = {"formulations": UnknownFormulationError, "solvers": UnknownSolverError}.get(field)
        msg = f"{field}: {', '.join(map(repr, bad))} unknown; use some of {', '.join(known)}"
        if err is not None:
            raise err(msg)
        raise UnknownValueError(field, f"{', '.join(map(repr, bad))} unknown", f"use some of {', '.join(known)}")
    return given


def check_options(formulations=None, solvers=None, tolerances=("high",)) -> tuple:
    """(formulations, solvers, tolerances) as tuples (None: all), each name checked: an unknown one is an error
    naming the field and the known names, before anything runs."""
    forms = _check_names("formulations", formulations, [*FORMULATIONS, *PEER_SOLVERS])
    solv = _check_names("solvers", solvers, [*BACKENDS, "direct", "enumeration", *PEERS])
    tols = _check_names("tolerances", tolerances, list(PRESETS))
    if not tols:
        raise UnknownValueError("tolerances", "no tolerance preset given", f"give some of {', '.join(PRESETS)}")
    return forms, solv, tols


def routes_for(
    problem: Problem,
    *,
    formulations=None,
    solvers=None,
    tolerances=("high",),
    facetized: bool = False,
    peers: tuple[str, ...] = (),
) -> list[Route]:
    """Every route that can solve ``problem``, in registry order, then backend order, then tolerance order.

    Parameters
    ----------
    formulations
        names to keep (None: every registered formulation but :data:`FACETIZED`)
    solvers
        backend names and/or ``"direct"``, ``"enumeration"`` to keep (None: all installed)
    tolerances
        preset names (:data:`gaussqp.settings.PRESETS`)
    facetized
        include the :data:`FACETIZED` variants when ``formulations`` is None
    peers
        peer libraries whose solvers are routes too (:func:`gaussqp.studies.peers.resolve_peers` checks that
        they can run)
    """
    forms, solv, tols = check_options(formulations, solvers, tolerances)
    backends = [b for b in BACKENDS.values() if installed(b) and (solv is None or b.name in solv)]
    pairs: list[tuple[str, str]] = []
    cls = problem.summary().system_class  # None for a local problem (no mass matrix to classify)
    for name, f in FORMULATIONS.items():
        if forms is not None and name not in forms:
            continue
        if forms is None and name in FACETIZED and not facetized:
            continue
        try:
            ok, _ = f.takes(problem, cls)
        except GaussQPError:  # a formulation that cannot even tell: not a route for this problem
            ok = False
        if not ok:
            continue
        if f.kind == "direct":
            label = direct_label(name)
            if solv is None or label in solv:
                pairs.append((name, label))
        else:
            needs = program_needs(f, problem)
            pairs += [(name, b.name) for b in backends if needs in b.supports]
    pairs += [
        (ps.name, ps.peer)
        for ps in peer_solvers_for(problem, tuple(peers))
        if (forms is None or ps.name in forms) and (solv is None or ps.peer in solv)
    ]
    return [Route(f, s, t) for f, s in pairs for t in tols]


__all__ = ["FACETIZED", "LOCAL_FORMULATION", "Route", "check_options", "direct_label", "program_needs", "routes_for"]
