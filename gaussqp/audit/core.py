"""The audit core: one engine state and the engine's answer, against rigid mechanics.

An engine adapter (:mod:`gaussqp.audit.mujoco_`; an adapter is one small module) turns each of its states into an
:class:`EngineState`: the rigid contact problem of that state (a :class:`~gaussqp.ContactProblem`, contacts at rest
in mode ``coulomb``: stick or slip left to the solver), and the engine's own answer mapped onto the same contacts
(its generalized acceleration, each contact's normal force and friction force in the problem's coordinates, its
contact speeds). :func:`audit_state` then computes, with our own checks only:

- the rigid answer, certified (:func:`gaussqp.solve`, mode-free Coulomb; when the default route's answer is not
  certified, the other mode-free route ``coulomb_mixed`` is tried), and its force envelopes
  (:func:`gaussqp.force_ranges`: each contact's certified normal-force range and largest friction force);
- per contact: the engine's normal force against its range (``outside_envelope`` beyond
  :data:`~gaussqp.settings.AUDIT_ENVELOPE_RTOL` of the state's force scale), its friction force against the largest
  rigid one, the engine forces' Coulomb-law residual (:func:`coulomb_residual`; ``coulomb_violation`` beyond
  :data:`~gaussqp.settings.AUDIT_COULOMB_RTOL`), the rigid hold margin, and **creep**: a contact the rigid answer
  holds sticking while the engine has it slipping (its tangential speed above
  :data:`~gaussqp.settings.AUDIT_CREEP_RTOL` of the velocity scale, or its tangential acceleration above that of
  ``‖g‖``);
- per state: the engine acceleration's distance to the rigid one in the kinetic metric relative to the free
  acceleration's, ``‖a_e − a‖_M / ‖M⁻¹F‖_M`` (``acceleration_gap`` beyond
  :data:`~gaussqp.settings.AUDIT_ACCELERATION_RTOL`), states with no rigid solution (``no_rigid_solution``, a
  certified infeasibility) or several (``several_rigid_solutions``: the acceleration certified not unique), and
  answers we could not certify (``uncertified``).

:func:`audit_states` runs many states with a progress bar, on a local process pool or Dask (the study runner's
engines, :mod:`gaussqp.studies.runner`); the problems travel packed (:func:`gaussqp.studies.runner.pack`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..certificates.force_envelopes import force_ranges
from ..errors import GaussQPError, WrongTypeError
from ..model.problem import ContactProblem
from ..results import json_float, to_jsonable
from ..settings import (
    AUDIT_ACCELERATION_RTOL,
    AUDIT_COULOMB_RTOL,
    AUDIT_CREEP_RTOL,
    AUDIT_ENVELOPE_RTOL,
    AUDIT_TANGENT_RTOL,
    SCALE_FLOOR,
)

__all__ = [
    "AuditReport",
    "ContactAudit",
    "EngineContact",
    "EngineState",
    "StateAudit",
    "audit_state",
    "audit_states",
    "coulomb_residual",
]


@dataclass
class EngineContact:
    """One contact of the rigid problem and the engine's answer on it.

    ``index`` is the contact's index in the problem; ``label`` and ``geoms`` name it; ``kind`` "contact",
    "equality", "joint limit", … ; ``tangent_map`` (k × (d−1)) maps the problem's ``λ_t`` to the engine's sliding
    friction force (k = 2: MuJoCo's two sliding components; None: no friction); ``mu`` the sliding friction
    coefficient (physical); ``engine_normal`` the engine's normal force, ``engine_tangent`` its friction force in
    the problem's coordinates (``λ_t``, d−1) and ``engine_friction`` the physical sliding friction force (k);
    ``tangential_speed`` the engine's slip speed at the state (physical units), ``slipping_velocity`` whether it
    moves tangentially faster than the importer's ``velocity_tol``, ``engine_slip`` the unit direction of that
    motion in the problem's tangent coordinates (None at rest); the rigid problem poses it sliding only when its
    mode there is "sliding" (an adapter may pose a creeping contact at rest). ``normal_velocity`` is its normal
    relative velocity at the state. ``index = −1``: an engine contact that is not in the rigid problem because it
    separates at the state's velocity (``normal_velocity`` above ``velocity_tol``): rigid mechanics gives it no
    force."""

    index: int
    label: str
    kind: str = "contact"
    geoms: tuple[str, str] | None = None
    tangent_map: np.ndarray | None = None
    mu: float = 0.0
    engine_normal: float = 0.0
    engine_tangent: np.ndarray | None = None
    engine_friction: np.ndarray | None = None
    tangential_speed: float = 0.0
    slipping_velocity: bool = False
    mujoco_id: int = -1
    engine_slip: np.ndarray | None = None
    normal_velocity: float = 0.0


@dataclass
class EngineState:
    """One state of an engine: the rigid ``problem`` (packed for another process: ``packed``), the engine's
    ``contacts`` (:class:`EngineContact`, the problem's contacts in order), its generalized acceleration
    ``engine_acceleration`` (the engine's layout, the problem's coordinates), the scales a verdict needs
    (``velocity_scale``, ``gravity``), what the importer ``left_out``, and the ``time``/``step`` of the state."""

    time: float
    step: int
    contacts: list[EngineContact]
    engine_acceleration: np.ndarray
    velocity_scale: float
    gravity: float
    problem: ContactProblem | None = None
    packed: tuple | None = None
    left_out: tuple = ()
    engine: str = "mujoco"
    error: str | None = None
    velocity_tol: float = 0.0

    def get_problem(self) -> ContactProblem:
        if self.problem is None:
            from ..studies.runner import unpack

            self.problem = unpack(self.packed)
        return self.problem

    def for_transport(self) -> "EngineState":
        """A copy that pickles: the problem packed (the problem classes do not pickle)."""
        from ..studies.runner import pack

        import dataclasses

        return dataclasses.replace(
            self, problem=None, packed=self.packed or (None if self.problem is None else pack(self.problem))
        )


@dataclass
class ContactAudit:
    """The verdict on one contact (fields as in the JSON contract: ``mode`` the rigid answer's law,
    ``normal_range``, ``tangent_max``, the engine's forces, ``engine_coulomb_residual``, ``hold_margin``,
    ``creep``, ``flags``)."""

    index: int
    label: str
    geoms: tuple[str, str] | None
    kind: str
    mode: str | None
    engine_normal: float
    normal_range: tuple[float | None, float | None]
    normal_attained: tuple[float | None, float | None]
    engine_friction: float
    tangent_max: float | None
    engine_coulomb_residual: float
    hold_margin: float | None
    creep: bool
    tangential_speed: float
    envelope_distance: float | None
    flags: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "index": self.index,
            "label": self.label,
            "geoms": None if self.geoms is None else list(self.geoms),
            "kind": self.kind,
            "mode": self.mode,
            "normal_force": {
                "engine": json_float(self.engine_normal),
                "range": [json_float(v) for v in self.normal_range],
                "attained": [json_float(v) for v in self.normal_attained],
                "distance_outside": json_float(self.envelope_distance),
            },
            "tangent_force": {"engine": json_float(self.engine_friction), "max": json_float(self.tangent_max)},
            "engine_coulomb_residual": json_float(self.engine_coulomb_residual),
            "hold_margin": json_float(self.hold_margin),
            "creep": self.creep,
            "engine_tangential_speed": json_float(self.tangential_speed),
            "flags": list(self.flags),
        }


@dataclass
class StateAudit:
    """The verdict on one state (the JSON contract's state object, :meth:`as_dict`); ``engine_answer``: what an
    adapter's own judge says of the engine's answer as a whole (e.g. Siconos's: a certified solution of the rigid
    problem or not), None when the adapter has no such judge."""

    time: float
    step: int
    status: str
    certified: bool
    acceleration: np.ndarray | None
    acceleration_unique: bool | None
    unique_forces: bool | None
    engine_acceleration_gap: float | None
    contacts: list[ContactAudit]
    flags: list[str]
    formulation: str = ""
    envelopes_certified: bool | None = None
    seconds: float = 0.0
    force_scale: float = 0.0
    left_out: tuple = ()
    message: str = ""
    engine_answer: dict | None = None

    @classmethod
    def failed(
        cls, time: float, step: int, message: str, *, flag: str | None = None, left_out: tuple = ()
    ) -> "StateAudit":
        """The state of an audit that could not run: status ``error``, not certified, the flag ``error: …``
        (``flag`` when given, else ``message``) and ``message`` saying why."""
        return cls(
            time,
            step,
            "error",
            False,
            None,
            None,
            None,
            None,
            [],
            [f"error: {flag or message}"],
            message=message,
            left_out=left_out,
        )

    def as_dict(self) -> dict:
        return {
            "time": self.time,
            "step": self.step,
            "status": self.status,
            "certified": self.certified,
            "acceleration": None if self.acceleration is None else to_jsonable(self.acceleration),
            "acceleration_unique": self.acceleration_unique,
            "unique_forces": self.unique_forces,
            "engine_acceleration_gap": json_float(self.engine_acceleration_gap),
            "contacts": [c.as_dict() for c in self.contacts],
            "flags": list(self.flags),
            "formulation": self.formulation,
            "envelopes_certified": self.envelopes_certified,
            "seconds": self.seconds,
            "force_scale": self.force_scale,
            "left_out": [list(x) for x in self.left_out],
            "message": self.message,
            "engine_answer": to_jsonable(self.engine_answer),
        }

    def summary(self) -> str:
        """The state's verdict as text: the rigid answer's status and whether it is certified, what is unique, the
        engine acceleration's gap, the flags, then one line per contact (the engine's normal force against its
        certified range, the largest friction force, the rigid answer's law, creep)."""

        def num(x) -> str:
            return "-" if x is None else f"{x:.4g}"

        out = [
            f"state        step {self.step} (t = {self.time:.4g}): {self.status}"
            f"{'  (certified)' if self.certified else '  (NOT certified)'}, {self.formulation or '-'}",
            f"unique       acceleration={_yes(self.acceleration_unique)}  forces={_yes(self.unique_forces)}",
            f"accel gap    {num(self.engine_acceleration_gap)} (‖a_engine − a‖_M / ‖a_free‖_M)",
            f"flags        {'; '.join(self.flags) if self.flags else 'none'}",
        ]
        if self.message:
            out.append(f"message      {self.message}")
        for c in self.contacts:
            lo, hi = c.normal_range
            out.append(
                f"  contact {c.index} {c.label}: engine normal {c.engine_normal:.4g} in [{num(lo)}, {num(hi)}], "
                f"friction {c.engine_friction:.4g} (max {num(c.tangent_max)}), {c.mode or '-'}"
                + ("; creep" if c.creep else "")
                + (f"; {', '.join(c.flags)}" if c.flags else "")
            )
        return "\n".join(out)

    def __repr__(self) -> str:
        return (
            f"StateAudit(step={self.step}, time={self.time:.4g}, status={self.status!r}, "
            f"certified={self.certified}, contacts={len(self.contacts)}, flags={len(self.flags)})"
        )


def _yes(x) -> str:
    return "undecided" if x is None else ("yes" if x else "no")


@dataclass
class AuditReport:
    """Every audited state, in order, and the summary (:meth:`summary`)."""

    model: str
    engine: str
    states: list[StateAudit]
    seconds: float = 0.0
    options: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        s = self.summary()
        return (
            f"AuditReport(model={self.model!r}, engine={self.engine!r}, states={s['states']}, "
            f"certified={s['certified']}, flagged_states={s['flagged_states']})"
        )

    def summary(self) -> dict:
        """The counts of the report (states, certified rigid answers, statuses, flagged states and flags by kind,
        the first flagged states, creeping contacts, acceleration gaps, times): what ``gaussqp audit`` prints
        (:func:`gaussqp.audit.report.text_summary` writes it as text) and the JSON's ``summary``."""
        st = self.states
        flagged = [s for s in st if s.flags]
        kinds: dict[str, int] = {}
        for s in st:
            for f in {f.split(":")[0] for f in s.flags}:
                kinds[f] = kinds.get(f, 0) + 1
        statuses: dict[str, int] = {}
        for s in st:
            statuses[s.status] = statuses.get(s.status, 0) + 1
        gaps = [s.engine_acceleration_gap for s in st if s.engine_acceleration_gap is not None]
        contacts = [len(s.contacts) for s in st]
        calm = [s for s in flagged if not any(f.startswith("impact") for f in s.flags)]
        return {
            "model": self.model,
            "engine": self.engine,
            "states": len(st),
            "flagged_states_outside_impacts": len(calm),
            "certified": sum(1 for s in st if s.certified),
            "statuses": statuses,
            "flagged_states": len(flagged),
            "flags": kinds,
            "first_flagged": [{"step": s.step, "time": s.time, "flags": s.flags[:5]} for s in flagged[:10]],
            "creeping_contacts": sum(1 for s in st for c in s.contacts if c.creep),
            "max_contacts": max(contacts, default=0),
            "mean_contacts": float(np.mean(contacts)) if contacts else 0,
            "engine_acceleration_gap": {
                "max": json_float(max(gaps)) if gaps else None,
                "median": json_float(float(np.median(gaps))) if gaps else None,
            },
            "seconds": self.seconds,
            "seconds_per_state": self.seconds / max(len(st), 1),
            "rigid_seconds_per_state": float(np.mean([s.seconds for s in st])) if st else 0.0,
        }

    def as_dict(self) -> dict:
        return {
            "states": [s.as_dict() for s in self.states],
            "summary": self.summary(),
            "options": to_jsonable(self.options),
        }


# ---------------------------------------------------------------- one state


def coulomb_residual(lam_n: float, lam_t, mu: float, slip_direction=None) -> float:
    """How far forces ``(λ_n, λ_t)`` (problem coordinates, cone ``‖λ_t‖ <= μ λ_n``) are from Coulomb's law, in
    force units: the cone violation ``max(0, ‖λ_t‖ − μ λ_n, −λ_n)`` and, at a slipping contact (``slip_direction``
    the unit direction of its relative tangential motion), the distance to maximal dissipation
    ``‖λ_t + μ λ_n s‖``."""
    lt = np.zeros(0) if lam_t is None else np.asarray(lam_t, dtype=float).ravel()
    cone = max(0.0, float(np.linalg.norm(lt)) - mu * max(lam_n, 0.0), -lam_n)
    if slip_direction is None or lt.size == 0:
        return cone
    s = np.asarray(slip_direction, dtype=float).ravel()
    return max(cone, float(np.linalg.norm(lt + mu * max(lam_n, 0.0) * s)))


def _num(bound) -> str:
    return "n/a" if bound is None or bound.value is None else f"{bound.value:.4g}"


def _mass_norm(M, v) -> float:
    return math.sqrt(max(float(v @ (M @ v)), 0.0))


def audit_state(state: EngineState, *, crosscheck: bool = False, tolerance: str = "high") -> StateAudit:
    """The audit of one engine state (module docstring)."""
    t0 = time.perf_counter()
    from ..dispatch import solve  # the top layer (the audit sits above dispatch)

    if state.error is not None:
        return StateAudit.failed(state.time, state.step, state.error, left_out=state.left_out)
    p = state.get_problem()
    flags: list[str] = []
    try:
        sol = solve(p, crosscheck=crosscheck, tolerance=tolerance)
        if not sol.certified and len(p.coulomb):  # the other mode-free Coulomb route (F9) before giving up
            try:
                other = solve(p, formulation="coulomb_mixed", crosscheck=False, tolerance=tolerance)
                if other.certified:
                    sol = other
            except GaussQPError:
                pass
    except GaussQPError as exc:
        return StateAudit.failed(
            state.time, state.step, str(exc), flag=f"{type(exc).__name__}: {exc}", left_out=state.left_out
        )
    status = str(sol.status)
    certified = bool(sol.certified)
    M = np.asarray(p.M.toarray() if hasattr(p.M, "toarray") else p.M, dtype=float)
    free = np.linalg.lstsq(M, -p.F, rcond=None)[0]
    free_norm = _mass_norm(M, free)
    a = sol.acceleration if status == "solved" else None
    unique_a = sol.unique.get("acceleration") if status == "solved" else None
    gap = None
    if a is not None:
        gap = _mass_norm(M, np.asarray(state.engine_acceleration) - a) / max(free_norm, SCALE_FLOOR)
    if status == "infeasible" and certified:
        flags.append(
            "no_rigid_solution: the rigid problem has no solution (certified: "
            + ", ".join(
                c.id
                for c in sol.certificates
                if c.holds and c.id in ("farkas", "coulomb_farkas", "sliding_enumeration")
            )
            + ")"
        )
    elif not certified:
        flags.append(f"uncertified: the rigid answer is {status} and not certified ({sol.formulation})")
    if unique_a is False:
        flags.append("several_rigid_solutions: the rigid acceleration is certified not unique (Painlevé)")
    fr = None
    if status == "solved" and certified:
        try:
            fr = force_ranges(
                p,
                sol,
                tangent_maps={c.index: c.tangent_map for c in state.contacts if c.tangent_map is not None},
                tangent_rtol=AUDIT_TANGENT_RTOL,
            )
        except GaussQPError as exc:
            flags.append(f"no_envelope: {exc}")
    bad = [
        ec.label
        for ec in state.contacts
        if not (
            math.isfinite(ec.engine_normal)
            and (ec.engine_tangent is None or bool(np.all(np.isfinite(ec.engine_tangent))))
        )
    ]
    if not np.all(np.isfinite(state.engine_acceleration)) or bad:  # NaN compares False with every bound: say it
        flags.append(
            "engine_not_finite: the engine's answer has NaN or infinite entries ("
            + ("acceleration" if not np.all(np.isfinite(state.engine_acceleration)) else "")
            + (
                f"{', ' if not np.all(np.isfinite(state.engine_acceleration)) else ''}forces of "
                f"{len(bad)} contact(s), e.g. {bad[0]}"
                if bad
                else ""
            )
            + ")"
        )
    if gap is not None and gap > AUDIT_ACCELERATION_RTOL:
        flags.append(f"acceleration_gap: ‖a_engine − a‖_M = {gap:.3g} of the free acceleration's")
    # the state's force scale: the largest finite envelope bound, or the engine's largest normal force, or ‖M⁻¹F‖ M
    bounds = [abs(v) for e in (fr.contacts if fr else []) for v in e.normal_range if v is not None and math.isfinite(v)]
    engine_max = max([abs(c.engine_normal) for c in state.contacts] + [0.0])
    fscale = max(bounds + [engine_max, SCALE_FLOOR])
    vs = max(state.velocity_scale, SCALE_FLOOR)
    audits = []
    d1 = p.dimension - 1
    approaching = [
        ec
        for ec in state.contacts
        if ec.index >= 0 and ec.kind == "contact" and ec.normal_velocity < -state.velocity_tol
    ]
    if approaching and state.velocity_tol > 0:
        flags.append(
            f"impact: {len(approaching)} contact(s) approaching faster than {state.velocity_tol:.3g} "
            f"(e.g. {approaching[0].label}, {approaching[0].normal_velocity:.3g}): an impact, which the "
            "acceleration-level problem does not describe (the engine resolves it over several steps)"
        )
    for ec in state.contacts:
        i = ec.index
        if i < 0:  # separating at the state's velocity: rigid mechanics gives it no force
            cflags = []
            if ec.engine_normal > AUDIT_ENVELOPE_RTOL * fscale:
                cflags.append(
                    f"separating_with_force: normal velocity {ec.normal_velocity:.3g} > "
                    f"{state.velocity_tol:.3g}, engine normal force {ec.engine_normal:.4g}"
                )
            friction = float(np.linalg.norm(ec.engine_friction)) if ec.engine_friction is not None else 0.0
            audits.append(
                ContactAudit(
                    i,
                    ec.label,
                    ec.geoms,
                    ec.kind,
                    "separating",
                    ec.engine_normal,
                    (0.0, 0.0),
                    (0.0, 0.0),
                    friction,
                    0.0,
                    0.0,
                    None,
                    False,
                    ec.tangential_speed,
                    max(ec.engine_normal, 0.0),
                    cflags,
                )
            )
            flags.extend(f"{f.split(':')[0]}: {ec.label}: {f.split(':', 1)[1].strip()}" for f in cflags)
            continue
        env = fr.contacts[i] if fr is not None else None
        cflags = []
        lo, hi = (env.normal_min.value, env.normal_max.value) if env is not None else (None, None)
        att = (env.normal_min.attained, env.normal_max.attained) if env is not None else (None, None)
        dist = None
        if lo is not None and hi is not None:
            dist = max(lo - ec.engine_normal, ec.engine_normal - hi, 0.0)
            if dist > AUDIT_ENVELOPE_RTOL * fscale:
                cflags.append(f"outside_envelope: normal {ec.engine_normal:.4g} not in [{lo:.4g}, {hi:.4g}]")
        elif env is not None:
            cflags.append(
                "envelope_not_certified: "
                + "; ".join(b.reason for b in (env.normal_min, env.normal_max) if b.value is None)
            )
        friction = float(np.linalg.norm(ec.engine_friction)) if ec.engine_friction is not None else 0.0
        tmax = env.tangent_max.value if env is not None else None
        if tmax is not None and math.isfinite(tmax) and friction - tmax > AUDIT_ENVELOPE_RTOL * fscale:
            cflags.append(f"friction_above_envelope: friction {friction:.4g} > largest rigid {tmax:.4g}")
        # the engine's Coulomb residual, at the engine's own motion: slipping at the state's velocity, or starting to
        mu_p = float(p.friction[i]) if bool(p.has_tangent[i]) else 0.0
        slip = None
        if ec.engine_tangent is not None and d1 and bool(p.has_tangent[i]):
            if ec.engine_slip is not None:
                slip = np.asarray(ec.engine_slip, dtype=float)
            else:
                T = p.J_t[i * d1 : (i + 1) * d1]
                T = T.toarray() if hasattr(T, "toarray") else np.asarray(T)
                wt = T @ np.asarray(state.engine_acceleration) + p.tangent_drift[i * d1 : (i + 1) * d1]
                if np.linalg.norm(wt) > AUDIT_CREEP_RTOL * state.gravity:
                    slip = wt / np.linalg.norm(wt)
        resid = (
            coulomb_residual(ec.engine_normal, ec.engine_tangent, mu_p, slip) / fscale if ec.kind == "contact" else 0.0
        )
        creep = False
        mode = env.law if env is not None else None
        if mode == "sticking" and ec.kind == "contact":
            if ec.tangential_speed > AUDIT_CREEP_RTOL * vs or slip is not None:
                creep = True
                how = (
                    f"slips at speed {ec.tangential_speed:.3g}"
                    if ec.tangential_speed > AUDIT_CREEP_RTOL * vs
                    else "starts to slip (tangential acceleration)"
                )
                cflags.append(
                    f"creep: the rigid answer holds it sticking (hold margin {_num(env.hold_margin)}); the engine {how}"
                )
        if resid > AUDIT_COULOMB_RTOL and not creep:  # a creeping contact's residual is its creep, flagged as such
            cflags.append(f"coulomb_violation: residual {resid:.3g} of the force scale")
        hm = env.hold_margin.value if env is not None and env.hold_margin is not None else None
        audits.append(
            ContactAudit(
                i,
                ec.label,
                ec.geoms,
                ec.kind,
                mode,
                ec.engine_normal,
                (lo, hi),
                att,
                friction,
                tmax,
                resid,
                hm,
                creep,
                ec.tangential_speed,
                dist,
                cflags,
            )
        )
        flags.extend(f"{f.split(':')[0]}: {ec.label}: {f.split(':', 1)[1].strip()}" for f in cflags)
    if fr is not None and not fr.certified:
        flags.append("envelope_not_certified: some envelope bound could not be verified")
    return StateAudit(
        state.time,
        state.step,
        status,
        certified,
        None if (a is None or unique_a is False) else a,
        unique_a,
        None if fr is None else fr.unique_forces,
        gap,
        audits,
        flags,
        sol.formulation,
        None if fr is None else fr.certified,
        time.perf_counter() - t0,
        fscale,
        state.left_out,
        sol.message,
    )


def _audit_chunk(states: list[EngineState], crosscheck: bool, tolerance: str) -> list[StateAudit]:
    return [audit_state(s, crosscheck=crosscheck, tolerance=tolerance) for s in states]


def check_count_argument(field_name: str, value, least: int) -> None:
    """A count argument of the audit (``workers``, ``settle``, ``every``): an integer at least ``least``, else a
    :class:`~gaussqp.errors.WrongTypeError` naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise WrongTypeError(field_name, f"is {value!r}", f"give an integer >= {least}")


def audit_states(
    states,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    progress: bool = False,
    crosscheck: bool = False,
    tolerance: str = "high",
    chunk: int | None = None,
    total: int | None = None,
) -> list[StateAudit]:
    """Audit many :class:`EngineState` (an iterable; order kept): in this process (``workers = 1``), on a local
    process pool of ``workers`` processes, or on Dask (``scheduler``: "tcp://HOST:PORT", or "local" for a
    ``LocalCluster`` of ``workers``), with a progress bar (tqdm) when ``progress``."""
    from ..progress import Progress
    from ..settings import AUDIT_CHUNK

    check_count_argument("workers", workers, 1)
    states = list(states)
    bar = Progress(total or len(states), progress, desc="audit", unit="state")
    out: list[StateAudit] = []
    try:
        if workers <= 1 and scheduler is None:
            for s in states:
                out.append(audit_state(s, crosscheck=crosscheck, tolerance=tolerance))
                bar.update()
            return out
        size = chunk or max(1, min(AUDIT_CHUNK, math.ceil(len(states) / (4 * max(workers, 1)))))
        chunks = [[s.for_transport() for s in states[k : k + size]] for k in range(0, len(states), size)]
        results: dict[int, list[StateAudit]] = {}
        if scheduler is not None:
            from dask.distributed import Client, LocalCluster, as_completed

            cluster = (
                LocalCluster(n_workers=max(workers, 1), threads_per_worker=1, processes=True)
                if scheduler == "local"
                else None
            )
            with Client(cluster if cluster is not None else scheduler) as client:
                futs = {
                    client.submit(_audit_chunk, c, crosscheck, tolerance, pure=False): k for k, c in enumerate(chunks)
                }
                for f in as_completed(futs):
                    results[futs[f]] = f.result()
                    for _ in results[futs[f]]:
                        bar.update()
            if cluster is not None:
                cluster.close()
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed as done

            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                futs = {pool.submit(_audit_chunk, c, crosscheck, tolerance): k for k, c in enumerate(chunks)}
                for f in done(futs):
                    results[futs[f]] = f.result()
                    for _ in results[futs[f]]:
                        bar.update()
        for k in range(len(chunks)):
            out.extend(results[k])
        return out
    finally:
        bar.close()
