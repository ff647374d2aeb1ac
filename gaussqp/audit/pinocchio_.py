"""The Pinocchio adapter of the audit: Pinocchio's own frictional contact solver (``pin.ADMMConstraintSolver`` with
Coulomb friction cones) at a robot state, as an :class:`~gaussqp.audit.core.EngineState`.

The state is a Pinocchio model, ``(q, v, tau)`` and the frame contacts of :mod:`gaussqp.io.pinocchio`
(:class:`~gaussqp.io.pinocchio.FrameContact`: unilateral point contacts with friction μ or frictionless; a normal in
the axes of the stated reference frame). The rigid problem is :func:`gaussqp.io.pinocchio.import_pinocchio`'s, with
each contact the importer finds at rest posed mode-free (``coulomb``: stick or slip left to the rigid solver), a
contact sliding at the state's velocity kept sliding, a separating one left out (rigid mechanics gives it no force;
Pinocchio's time-step problem, ``dt`` given, still gets it and the audit checks that it gives none either; its
acceleration-level problem does not, as it describes the contacts at rest).

Pinocchio's answer: one ``PointContactConstraintModel`` per contact, between the world (joint 0) and the frame's
joint, at the frame's origin, with the contact frame ``R = [t₁ t₂ n]`` of :func:`gaussqp.mechanics.frames.contact_frame`
(gaussqp's one tangent frame; ``(t₁, t₂, n)`` is right-handed), so that Pinocchio's constraint force
``(f_x, f_y, f_z)`` is exactly ``(λ_t1, λ_t2, λ_n)`` of the rigid problem (its constraint velocity is the frame's
velocity relative to the world; checked row by row against the importer's rows,
:data:`~gaussqp.settings.AUDIT_FRAME_MAP_RTOL`). The Delassus operator is Pinocchio's
(``ConstraintCholeskyDecomposition`` of ``crba``'s M, damping :data:`~gaussqp.settings.AUDIT_PINOCCHIO_DAMPING`), and
the conic problem handed to ``ADMMConstraintSolver.solve`` (``solve_ncp``: Coulomb's law in De Saxcé's form) is

- at the acceleration level (``dt=None``, default): ``g = J_c M⁻¹(τ − nle) + J̇_c v``, the relative acceleration
  at zero contact force, with ``J̇_c v`` Pinocchio's classical frame acceleration at zero ``a``
  (``forwardKinematics(q, v, 0)``): the same problem the rigid answer solves, so Pinocchio's answer is a force
  ``f`` and its acceleration ``a_e = M⁻¹(τ − nle + J_cᵀ f)``;
- or at the velocity level of one time step ``dt`` (what a Pinocchio simulator steps): ``u⁺ = J_c v⁺ = dt(G f + g)``
  with ``g = J_c(v/dt + M⁻¹(τ − nle))`` (the cone conditions do not see the factor ``dt``), answer the force ``f``
  (the step's impulse is ``dt f``) and ``a_e = (v⁺ − v)/dt``.

Its own report (converged, iterations, primal/dual feasibility, complementarity) goes with the audit; nothing of it
is trusted: the audit core judges ``f`` and ``a_e`` against the certified rigid answer and its force envelopes. A
contact sliding at the state's velocity is audited with the acceleration-level problem only as the rigid problem
poses it (sliding law along its slip); Pinocchio's NCP applies De Saxcé's law to the tangential *acceleration*, so
its friction there can differ from Coulomb sliding friction — the audit reports it, as it should.

Not mapped (a :class:`~gaussqp.errors.NotApplicableError` says so): bilateral point contacts and ``6d`` welds (their
Pinocchio models are ``BilateralPointConstraintModel``/``WeldConstraintModel``), and ``constraint_models``
(``RigidConstraintModel``, ``pin.constraintDynamics``).

Example (a box on four corners, each corner's normal force in ``[0, W/2]``; Pinocchio gives ``W/4`` each)::

    from gaussqp.audit import pinocchio_
    rep = pinocchio_.audit(model, q, v, tau, contacts=[FrameContact(f, friction=0.5) for f in corners])
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..errors import NonFiniteError, NotApplicableError, ShapeError, WrongTypeError
from ..settings import (
    AUDIT_FRAME_MAP_RTOL,
    AUDIT_PINOCCHIO_DAMPING,
    AUDIT_PINOCCHIO_ITERATIONS_MAX,
    AUDIT_PINOCCHIO_TOL,
    SCALE_FLOOR,
)
from .core import AuditReport, EngineContact, EngineState, audit_states

__all__ = ["admm_answer", "audit", "audit_constraint_dynamics", "constraint_dynamics_state", "engine_state"]


def _pin():
    try:
        import pinocchio as pin
    except ImportError as exc:  # exercised only without the extra
        from ..errors import MissingExtraError

        raise MissingExtraError(
            "gaussqp audit of Pinocchio needs the optional extra: pip install 'gaussqp[pinocchio]'"
        ) from exc
    return pin


def _contact_frames(pin, model, data, contacts, reference_frame: str):
    """Per contact: (frame id, parent joint, origin (world), R = [t₁ t₂ n] in world axes)."""
    from ..mechanics.frames import contact_frame

    out = []
    for fc in contacts:
        fid = model.getFrameId(fc.frame)
        oMf = data.oMf[fid]
        n, t1, t2 = contact_frame(fc.normal)
        R = np.column_stack([t1, t2, n])
        if reference_frame == "local":
            R = np.asarray(oMf.rotation) @ R
        out.append((fid, int(model.frames[fid].parentJoint), np.array(oMf.translation), R))
    return out


def admm_answer(
    model, q, v, tau, contacts, *, reference_frame: str = "local_world_aligned", dt: float | None = None, settings=None
) -> dict:
    """Pinocchio's ADMM answer at ``(q, v, tau)`` for the frame ``contacts`` (module docstring): ``{"forces": (m, 3)
    rows (λ_t1, λ_t2, λ_n) per contact, "acceleration": a_e, "jacobian": J_c (3m × nv, rows t₁, t₂, n per contact),
    "report": Pinocchio's own (converged, iterations, residuals, seconds)}``.

    Parameters
    ----------
    model : pinocchio.Model
    q, v, tau : the state and the joint torques (checked by the importer)
    contacts : :class:`~gaussqp.io.pinocchio.FrameContact` (unilateral point contacts)
    reference_frame : the axes the contacts' normals are given in ("local_world_aligned" or "local")
    dt : None (the acceleration-level problem) or a time step (the velocity-level step problem)
    settings : a ``pin.ADMMSolverSettings`` (default: tolerances :data:`~gaussqp.settings.AUDIT_PINOCCHIO_TOL`,
        :data:`~gaussqp.settings.AUDIT_PINOCCHIO_ITERATIONS_MAX` iterations, ``solve_ncp``)

    Notes
    -----
    Coulomb's law in De Saxcé's form, ``K ∋ f ⟂ u + μ‖u_T‖e_n ∈ K*`` with ``u = G f + g``, ``G = J_c M⁻¹ J_cᵀ``
    (Acary, Brémond, Huber 2018, eq. (2)-(5); Pinocchio ``admm-solver.hpp``, ``solve_ncp``).
    """
    pin = _pin()
    data = model.createData()
    q, v, tau = (np.asarray(x, dtype=float) for x in (q, v, tau))
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    pin.updateFramePlacements(model, data)
    frames = _contact_frames(pin, model, data, contacts, reference_frame)
    drift = (
        np.concatenate(
            [
                R.T
                @ np.asarray(
                    pin.getFrameClassicalAcceleration(model, data, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED).linear
                )
                for fid, _, _, R in frames
            ]
        )
        if frames
        else np.zeros(0)
    )
    pin.crba(model, data, q, pin.Convention.WORLD)
    M = np.triu(data.M) + np.triu(data.M, 1).T
    nle = np.asarray(pin.nonLinearEffects(model, data, q, v))
    if not contacts:
        # no contact holds the body at this state (every one separates): free motion, Pinocchio's own forward dynamics
        # (ABA). Its ADMM solver is not called on an empty constraint set (pinocchio 3.x ends the process there, by a
        # segmentation fault)
        return {
            "forces": np.zeros((0, 3)),
            "acceleration": np.asarray(pin.aba(model, data, q, v, tau), dtype=float),
            "jacobian": np.zeros((0, model.nv)),
            "report": {
                "solver": "pinocchio aba: no contact at the state (free motion), Pinocchio's ADMM not called",
                "pinocchio": pin.__version__,
                "converged": True,
                "iterations": 0,
                "primal_feasibility": 0.0,
                "dual_feasibility": 0.0,
                "complementarity": 0.0,
                "level": "acceleration" if dt is None else f"velocity (dt = {dt:g})",
                "seconds": 0.0,
            },
            "frames": frames,
            "velocity": np.zeros((0, 3)),
            "mass": M,
        }
    a_free = np.linalg.solve(M, tau - nle)  # M⁻¹(τ − nle), in the contacts' drift g below
    cms = []
    for (fid, joint, p, R), fc in zip(frames, contacts):
        world = pin.SE3(R, p)
        cm = pin.PointContactConstraintModel(model, 0, world, joint, data.oMi[joint].inverse() * world)
        cm.setFriction(float(fc.friction))
        cms.append(pin.ConstraintModel(cm))
    cds = [cm.createData() for cm in cms]
    for cm, cd in zip(cms, cds):
        cm.calc(model, data, cd)
    Jc = np.asarray(pin.getConstraintsJacobian(model, data, cms, cds)).reshape(-1, model.nv)
    chol = pin.ConstraintCholeskyDecomposition(model, data, cms, cds)
    chol.compute(model, data, cms, cds, AUDIT_PINOCCHIO_DAMPING)
    g = Jc @ a_free + drift if dt is None else Jc @ (v / dt + a_free)
    if settings is None:
        settings = pin.ADMMSolverSettings()
        for k in (
            "absolute_feasibility_tol",
            "relative_feasibility_tol",
            "absolute_complementarity_tol",
            "relative_complementarity_tol",
        ):
            setattr(settings, k, AUDIT_PINOCCHIO_TOL)
        settings.max_iterations = AUDIT_PINOCCHIO_ITERATIONS_MAX
        settings.solve_ncp = True
        settings.stat_record = False
    result = pin.ADMMSolverResult()
    t0 = time.perf_counter()
    converged = bool(
        pin.ADMMConstraintSolver().solve(chol.getDelassusOperatorCholeskyExpression(), g, cms, cds, settings, result)
    )
    seconds = time.perf_counter() - t0
    # the step's u⁺ = dt (G f + g) with g as above: the cone conditions are invariant under the factor dt, so the
    # solver's unknown is the contact force f itself (the impulse over the step is dt f)
    f = np.asarray(result.retrieveConstraintImpulses(), dtype=float).ravel()
    a_e = np.linalg.solve(M, tau - nle + Jc.T @ f)
    report = {
        "solver": "pinocchio ADMMConstraintSolver",
        "pinocchio": pin.__version__,
        "converged": converged,
        "iterations": int(result.iterations),
        "primal_feasibility": float(result.primal_feasibility),
        "dual_feasibility": float(result.dual_feasibility),
        "complementarity": float(result.complementarity),
        "level": "acceleration" if dt is None else f"velocity (dt = {dt:g})",
        "seconds": seconds,
    }
    return {
        "forces": f.reshape(-1, 3),
        "acceleration": a_e,
        "jacobian": Jc,
        "report": report,
        "frames": frames,
        "velocity": (Jc @ v).reshape(-1, 3),
        "mass": M,
    }


def _check_contacts(contacts) -> list:
    from ..io.pinocchio import FrameContact

    contacts = list(contacts)
    for k, fc in enumerate(contacts):
        if not isinstance(fc, FrameContact):
            raise WrongTypeError(
                f"contacts[{k}]", f"is a {type(fc).__name__}", "give gaussqp.io.pinocchio.FrameContact objects"
            )
        if fc.kind != "point" or fc.type != "unilateral":
            raise NotApplicableError(
                f"contacts[{k}]: a {fc.type} {fc.kind} contact; the Pinocchio adapter maps "
                "unilateral point contacts (PointContactConstraintModel with a Coulomb cone) — "
                "bilateral points and welds are not mapped yet"
            )
    if not contacts:
        raise ShapeError("contacts", "is empty", "give the frame contacts that touch (FrameContact list)")
    return contacts


def engine_state(
    model,
    q,
    v,
    tau=None,
    contacts=(),
    *,
    reference_frame: str = "local_world_aligned",
    dt: float | None = None,
    settings=None,
    step: int = 0,
    time_: float = 0.0,
) -> EngineState:
    """Pinocchio's ADMM answer at ``(q, v, tau)`` and the rigid problem, as an
    :class:`~gaussqp.audit.core.EngineState` (module docstring; the answer is :func:`admm_answer`'s, the rigid problem
    :func:`gaussqp.io.pinocchio.import_pinocchio`'s with at-rest contacts mode-free). ``state.left_out`` also holds
    Pinocchio's own report, as ``("pinocchio", ...)``."""
    pin = _pin()
    from ..io.pinocchio import import_pinocchio

    contacts = _check_contacts(contacts)
    imp = import_pinocchio(model, q, v, tau, contacts, reference_frame=reference_frame)
    p = imp.problem.mode_free()  # stick or slip decided by the rigid solver, as the audit poses it
    tau = np.zeros(model.nv) if tau is None else np.asarray(tau, dtype=float)
    where = {o.index: i for i, o in enumerate(imp.origins) if o.source == "contact"}
    # the acceleration-level problem describes the contacts at rest (normal velocity 0): a contact separating at the
    # state's velocity is not given to it (it would hold the body at an acceleration it has left); a time step sees it
    given = [k for k in range(len(contacts)) if dt is not None or k in where]
    ans = admm_answer(
        model, q, v, tau, [contacts[k] for k in given], reference_frame=reference_frame, dt=dt, settings=settings
    )
    F, Jc, U = ans["forces"], ans["jacobian"], ans["velocity"]
    if not np.all(np.isfinite(F)) or not np.all(np.isfinite(ans["acceleration"])):
        raise NonFiniteError(
            "pinocchio answer",
            f"has NaN or infinite forces or acceleration ({ans['report']})",
            "check the model's inertias and the contact set",
        )
    Jn = np.asarray(p.J_n.toarray() if hasattr(p.J_n, "toarray") else p.J_n)
    Jt = np.asarray(p.J_t.toarray() if hasattr(p.J_t, "toarray") else p.J_t)
    out = []
    for row, k in enumerate(given):
        fc = contacts[k]
        fx, fy, fz = (float(x) for x in F[row])
        u = U[row]
        speed = float(np.hypot(u[0], u[1]))
        i = where.get(k, -1)
        if i >= 0:  # the force mapping is exact only if Pinocchio's rows are the importer's: checked
            mine = np.vstack([Jt[2 * i : 2 * i + 2], Jn[i : i + 1]]) if bool(p.has_tangent[i]) else Jn[i : i + 1]
            theirs = Jc[3 * row : 3 * row + 3] if bool(p.has_tangent[i]) else Jc[3 * row + 2 : 3 * row + 3]
            size = max(float(np.abs(theirs).max(initial=0.0)), SCALE_FLOOR)
            if float(np.abs(mine - theirs).max(initial=0.0)) > AUDIT_FRAME_MAP_RTOL * size:
                raise NotApplicableError(
                    f"contacts[{k}] ({fc.frame}): Pinocchio's constraint rows differ from the "
                    "importer's by " + f"{float(np.abs(mine - theirs).max()):.3g}; the force "
                    "mapping (t₁, t₂, n) would be wrong, so it is refused"
                )
            mode = str(p.modes[i])
            slip = np.asarray(p.slip[i], dtype=float) if mode == "sliding" else None
        else:
            slip = None
        lt = np.array([fx, fy]) if i < 0 or bool(p.has_tangent[i]) else None
        out.append(
            EngineContact(
                i,
                fc.frame,
                "contact",
                (fc.frame, "environment"),
                None,
                float(fc.friction),
                fz,
                lt,
                np.array([fx, fy]),
                speed,
                slip is not None,
                -1,
                slip,
                float(u[2]),
            )
        )
    g = float(np.linalg.norm(np.asarray(model.gravity.linear)))
    vscale = _velocity_scale(pin, model, q, v, ans["frames"], g)
    notes = tuple(("contact", f"{lo.frame}: left out of the rigid problem ({lo.reason})") for lo in imp.left_out)
    notes += tuple(
        ("impact", f"{contacts[k].frame} approaches at the state's velocity (an impact)") for k in imp.approaching
    )
    notes += (("pinocchio", "; ".join(f"{key} {val}" for key, val in ans["report"].items())),)
    return EngineState(
        time=float(time_),
        step=int(step),
        contacts=out,
        engine_acceleration=ans["acceleration"],
        velocity_scale=vscale,
        gravity=g or 1.0,
        problem=p,
        left_out=notes,
        engine="pinocchio",
        velocity_tol=0.0,
    )


def _velocity_scale(pin, model, q, v, frames, g: float) -> float:
    """``sqrt(‖g‖ L)`` with ``L`` the largest distance from the centre of mass to a contact point (the model's size
    where it touches), or the contact points' largest speed when larger."""
    data = model.createData()
    com = np.asarray(pin.centerOfMass(model, data, np.asarray(q, dtype=float)))
    L = max([float(np.linalg.norm(p - com)) for _, _, p, _ in frames] + [0.0])
    return max(math.sqrt(g * L), SCALE_FLOOR)


def audit(
    model,
    q,
    v=None,
    tau=None,
    contacts=(),
    *,
    reference_frame: str = "local_world_aligned",
    dt: float | None = None,
    settings=None,
    crosscheck: bool = False,
    tolerance: str = "high",
    workers: int = 1,
    progress: bool = False,
) -> AuditReport:
    """Audit Pinocchio's ADMM contact answer against rigid mechanics, at one state or at each of several.

    Parameters
    ----------
    model : pinocchio.Model
    q, v, tau : one state (vectors) or K states (K × nq, K × nv, K × nv arrays); ``v``, ``tau`` default to zero
    contacts : :class:`~gaussqp.io.pinocchio.FrameContact` (unilateral point contacts: the frames that touch)
    reference_frame, dt, settings : :func:`admm_answer`'s
    crosscheck, tolerance, workers, progress : :func:`gaussqp.audit.core.audit_states`'s

    Returns
    -------
    AuditReport
        The states' :class:`~gaussqp.audit.core.StateAudit` (the JSON contract); ``options["pinocchio"]`` holds
        Pinocchio's own report of each solve.
    """
    t0 = time.perf_counter()
    _pin()
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    K = Q.shape[0]
    V = (
        np.zeros((K, model.nv))
        if v is None
        else np.asarray(v, dtype=float).reshape(K, -1)
        if np.ndim(v) == 2 or K == 1
        else None
    )
    T = (
        np.zeros((K, model.nv))
        if tau is None
        else np.asarray(tau, dtype=float).reshape(K, -1)
        if np.ndim(tau) == 2 or K == 1
        else None
    )
    if V is None or T is None:
        raise ShapeError(
            "v" if V is None else "tau",
            f"has shape {np.shape(v if V is None else tau)} for {K} states",
            "give one row per state (K × nv)",
        )
    states = [
        engine_state(
            model, Q[k], V[k], T[k], contacts, reference_frame=reference_frame, dt=dt, settings=settings, step=k
        )
        for k in range(K)
    ]
    reports = [dict(s.left_out).get("pinocchio") for s in states]
    results = audit_states(states, workers=workers, progress=progress, crosscheck=crosscheck, tolerance=tolerance)
    return AuditReport(
        getattr(model, "name", "") or "pinocchio model",
        "pinocchio",
        results,
        time.perf_counter() - t0,
        {
            "pinocchio": reports,
            "dt": dt,
            "reference_frame": reference_frame,
            "tolerance": tolerance,
            "crosscheck": crosscheck,
        },
    )


def constraint_dynamics_state(
    model, q, v=None, tau=None, constraint_models=(), *, settings=None, step: int = 0
) -> EngineState:
    """``pin.constraintDynamics``'s answer (its acceleration ``ddq`` and ``data.lambda_c``) for bilateral
    ``RigidConstraintModel`` constraints, with the rigid problem of :func:`gaussqp.io.pinocchio.import_pinocchio`
    (``constraint_models=``: the rows are ``getConstraintJacobian``'s, the drifts ``constraintDynamics``' own,
    Baumgarte terms included), as an :class:`~gaussqp.audit.core.EngineState`: one equality per row, its force
    ``lambda_c`` row for row (the importer's λ is Pinocchio's ``lambda_c``, checked to 1e-9 in
    ``tests/io/test_pinocchio.py``). ``settings``: the ``pin.ProximalSettings`` of the solve (default Pinocchio's:
    the exact KKT system, ``mu = 0``, one iteration; a redundant set needs ``mu > 0``)."""
    pin = _pin()
    from ..io.pinocchio import import_pinocchio

    nv = model.nv
    v = np.zeros(nv) if v is None else np.asarray(v, dtype=float)
    tau = np.zeros(nv) if tau is None else np.asarray(tau, dtype=float)
    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for cm in constraint_models:
        if not isinstance(cm, pin.RigidConstraintModel):
            raise WrongTypeError(
                "constraint_models", f"holds a {type(cm).__name__}", "give pinocchio.RigidConstraintModel objects"
            )
        models.append(cm)
        datas.append(cm.createData())
    if not len(models):
        raise ShapeError("constraint_models", "is empty", "give the RigidConstraintModel list constraintDynamics takes")
    imp = import_pinocchio(model, q, v, tau, constraint_models=models)
    data = model.createData()
    pin.initConstraintDynamics(model, data, models, datas)
    t0 = time.perf_counter()
    a_e = np.array(
        pin.constraintDynamics(
            model, data, np.asarray(q, dtype=float), v, tau, models, datas, *(() if settings is None else (settings,))
        ),
        dtype=float,
    )
    seconds = time.perf_counter() - t0
    lam = np.array(data.lambda_c, dtype=float).ravel()
    p = imp.problem
    if lam.size != p.m:
        raise NotApplicableError(
            f"constraintDynamics returned {lam.size} constraint forces for the importer's {p.m} "
            "rows; the forces cannot be mapped"
        )
    out = [
        EngineContact(i, f"{o.name} [{o.row}]", "equality", None, None, 0.0, float(lam[i]))
        for i, o in enumerate(imp.origins)
    ]
    g = float(np.linalg.norm(np.asarray(model.gravity.linear)))
    pdata = model.createData()
    pin.forwardKinematics(model, pdata, np.asarray(q, dtype=float))
    com = np.asarray(pin.centerOfMass(model, pdata, np.asarray(q, dtype=float)))
    L = max(
        [float(np.linalg.norm(np.asarray(pdata.oMi[int(cm.joint1_id)].translation) - com)) for cm in models] + [0.0]
    )
    note = (
        "pinocchio",
        f"constraintDynamics, pinocchio {pin.__version__}, {seconds:.3g} s, finite "
        f"{bool(np.all(np.isfinite(a_e)) and np.all(np.isfinite(lam)))}",
    )
    return EngineState(
        time=0.0,
        step=int(step),
        contacts=out,
        engine_acceleration=a_e,
        velocity_scale=max(math.sqrt(g * L), SCALE_FLOOR),
        gravity=g or 1.0,
        problem=p,
        left_out=(note,) + tuple(("note", n) for n in imp.notes),
        engine="pinocchio constraintDynamics",
    )


def audit_constraint_dynamics(
    model,
    q,
    v=None,
    tau=None,
    constraint_models=(),
    *,
    settings=None,
    crosscheck: bool = False,
    tolerance: str = "high",
) -> AuditReport:
    """Audit ``pin.constraintDynamics``' answer for bilateral rigid constraints (:func:`constraint_dynamics_state`)
    against the certified rigid answer and each row's certified force range (a range, not a point, when the rows are
    redundant: Pinocchio's proximal answer is one member of the set).

    Returns
    -------
    AuditReport
        One state; a non-finite Pinocchio answer (the exact KKT of redundant rows) is reported, not hidden: its
        acceleration gap and forces are NaN and flagged.
    """
    t0 = time.perf_counter()
    state = constraint_dynamics_state(model, q, v, tau, constraint_models, settings=settings)
    results = audit_states([state], crosscheck=crosscheck, tolerance=tolerance)
    return AuditReport(
        getattr(model, "name", "") or "pinocchio model",
        "pinocchio constraintDynamics",
        results,
        time.perf_counter() - t0,
        {"pinocchio": dict(state.left_out).get("pinocchio"), "tolerance": tolerance},
    )
