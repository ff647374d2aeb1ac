"""The Drake adapter of the audit: a ``MultibodyPlant`` state and its ``ContactResults`` (point contacts) as an
:class:`~gaussqp.audit.core.EngineState`.

Needs Drake's Python package (``pip install drake``; not declared as a gaussqp extra yet); imported only here.

The rigid problem is built from the plant at the context's state, one contact per point pair of the
``ContactResults`` (``PointPairContactInfo``: bodies A and B, the contact point ``p`` midway between the witness
points, the normal ``n = nhat_BA_W`` pointing from B into A), in gaussqp's one contact frame ``(n, t₁, t₂)`` of
:func:`gaussqp.mechanics.frames.contact_frame`:

- rows ``(n, t₁, t₂)ᵀ (J_A(p) − J_B(p))`` (``CalcJacobianTranslationalVelocity`` of the body points at ``p``, world
  axes) and drifts the same components of the bias accelerations (``CalcBiasTranslationalAcceleration``): the
  relative acceleration of A's point with respect to B's;
- ``M = CalcMassMatrix``, ``F = C(q, v)v − τ_elements − B u − τ_applied`` (``CalcInverseDynamics`` at ``v̇ = 0``
  with the force elements' contribution, gravity included, minus the actuation and applied generalized forces of
  the plant's input ports when connected), so that ``M a + F = Jᵀλ``;
- μ the pair's dynamic friction (``CalcContactFrictionFromSurfaceProperties`` of the two geometries'
  ``("material", "coulomb_friction")``, what Drake's discrete solvers use);
- modes from the state's velocity, as the MuJoCo adapter's: a pair separating faster than ``velocity_tol`` (default
  :data:`~gaussqp.settings.AUDIT_DRAKE_VELOCITY_RTOL` times ``sqrt(‖g‖ L)``, ``L`` the largest distance from the
  centre of mass to a contact point) is left out (rigid mechanics gives it no force), one slipping faster with its
  friction on its cone (:data:`~gaussqp.settings.AUDIT_CREEP_CONE_FRACTION`) slides along its slip, every other is
  mode-free (``coulomb``): a contact that moves while Drake's friction stays inside its cone is creep.

Drake's answer: the force on A, ``−contact_force()`` (which is the force on B), in ``(n, t₁, t₂)``; its
acceleration ``v̇`` (``EvalTimeDerivatives``, continuous plant) or ``(v⁺ − v)/h`` of its step at the state (a discrete
plant of step ``h``: Drake exposes no evaluable discrete update, so a copy of the root context is stepped once with
``diagram`` given, and the step's sampled contact results are read there). Before anything is judged, the problem must reproduce Drake's own dynamics
(:data:`~gaussqp.settings.AUDIT_DYNAMICS_RTOL`): ``M a_e + F`` and ``J_nᵀλ_n + J_tᵀλ_t`` both equal to Drake's
generalized contact forces (``get_generalized_contact_forces_output_port`` of every model instance) — else a force
the adapter does not model is in play (hydroelastic or deformable contact, an applied spatial force, joint damping
outside the force elements…) and :class:`~gaussqp.errors.NotApplicableError` says which check failed.

Example: ``gaussqp.audit.drake_.audit(plant, plant_context)``; a box on four corner spheres on a half space,
settled: each corner's normal force in ``[0, W/2]``, Drake's ``W/4`` inside (``tests/audit/test_audit_drake.py``).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..errors import NotApplicableError, WrongTypeError
from ..settings import AUDIT_CREEP_CONE_FRACTION, AUDIT_DRAKE_VELOCITY_RTOL, AUDIT_DYNAMICS_RTOL, SCALE_FLOOR
from .core import AuditReport, EngineContact, EngineState, audit_states

__all__ = ["audit", "engine_state"]


def _drake():
    try:
        import pydrake.multibody.plant as mbp
    except ImportError as exc:  # exercised only without the extra
        from ..errors import MissingExtraError

        raise MissingExtraError(
            "gaussqp audit of Drake needs Drake's Python package: pip install drake (not a gaussqp extra yet)"
        ) from exc
    return mbp


def _plant_context(mbp, plant, context):
    if not isinstance(plant, mbp.MultibodyPlant):
        raise WrongTypeError("plant", f"is a {type(plant).__name__}", "give a finalized pydrake MultibodyPlant")
    if not plant.is_finalized():
        raise WrongTypeError("plant", "is not finalized", "call plant.Finalize() first")
    try:
        plant.ValidateContext(context)
        return context
    except (RuntimeError, TypeError, ValueError):
        try:
            return plant.GetMyContextFromRoot(context)
        except (RuntimeError, TypeError, ValueError):
            raise WrongTypeError(
                "context",
                "is neither the plant's context nor its diagram's",
                "give plant.GetMyContextFromRoot(root_context) or the root context",
            ) from None


def _generalized_force(plant, context) -> np.ndarray:
    """``F = C v − τ_elements − B u − τ_applied`` (module docstring)."""
    from pydrake.multibody.tree import MultibodyForces

    forces = MultibodyForces(plant)
    plant.CalcForceElementsContribution(context, forces)
    F = np.asarray(plant.CalcInverseDynamics(context, np.zeros(plant.num_velocities()), forces), dtype=float)
    act = plant.get_actuation_input_port()
    if plant.num_actuators() and act.HasValue(context):
        F = F - plant.MakeActuationMatrix() @ np.asarray(act.Eval(context), dtype=float)
    app = plant.get_applied_generalized_force_input_port()
    if app.HasValue(context):
        F = F - np.asarray(app.Eval(context), dtype=float)
    return F


def _contact_forces(plant, context) -> np.ndarray:
    """Drake's generalized contact forces, all model instances in the plant's velocity layout."""
    from pydrake.multibody.tree import ModelInstanceIndex

    tau = np.zeros(plant.num_velocities())
    for k in range(plant.num_model_instances()):
        mi = ModelInstanceIndex(k)
        if plant.num_velocities(mi):
            plant.SetVelocitiesInArray(
                mi, np.asarray(plant.get_generalized_contact_forces_output_port(mi).Eval(context), dtype=float), tau
            )
    return tau


def _answer_context(plant, ctx, root, diagram):
    """(the plant context whose outputs are Drake's answer at the state ``ctx``, Drake's acceleration ``a_e``).
    A continuous plant answers at its own context (``v̇`` of ``EvalTimeDerivatives``). A discrete plant's answer is
    its next step, which Drake exposes as no evaluable update (its outputs are sampled at its periodic step): a copy
    of the root context is stepped once (``Simulator(diagram, copy).AdvanceTo(t + h)``: the step at ``t``), its
    sampled outputs are the step's contact results, ``a_e = (v⁺ − v)/h``."""
    v = np.asarray(plant.GetVelocities(ctx), dtype=float)
    h = float(plant.time_step())
    if h == 0.0:
        return ctx, np.asarray(plant.EvalTimeDerivatives(ctx).get_generalized_velocity().CopyToVector(), dtype=float)
    if diagram is None:
        raise NotApplicableError(
            "a discrete MultibodyPlant's answer is its next step, which Drake does not expose "
            "without stepping: give diagram= (the root Diagram) and its root context, and the "
            "audit steps a copy once"
        )
    from pydrake.systems.analysis import Simulator

    try:
        diagram.ValidateContext(root)
    except (RuntimeError, TypeError, ValueError):
        raise WrongTypeError(
            "context",
            "is not the root context of diagram",
            "give the diagram's root context (diagram.CreateDefaultContext() or the simulator's)",
        ) from None
    copy = root.Clone()
    Simulator(diagram, copy).AdvanceTo(copy.get_time() + h)
    after = plant.GetMyContextFromRoot(copy)
    return after, (np.asarray(plant.GetVelocities(after), dtype=float) - v) / h


def _friction(mbp, inspector, pair) -> float:
    props = [inspector.GetProximityProperties(g) for g in (pair.id_A, pair.id_B)]
    frictions = [
        p.GetProperty("material", "coulomb_friction")
        if p is not None and p.HasProperty("material", "coulomb_friction")
        else None
        for p in props
    ]
    if any(f is None for f in frictions):
        raise NotApplicableError(
            f"contact {inspector.GetName(pair.id_A)}/{inspector.GetName(pair.id_B)}: a geometry "
            "has no ('material', 'coulomb_friction') property; register it with a "
            "CoulombFriction"
        )
    return float(mbp.CalcContactFrictionFromSurfaceProperties(frictions[0], frictions[1]).dynamic_friction())


def engine_state(plant, context, *, diagram=None, step: int = 0, velocity_tol: float | None = None) -> EngineState:
    """Drake's state and answer (its ``ContactResults`` and acceleration) with the rigid problem, as an
    :class:`~gaussqp.audit.core.EngineState` (module docstring).

    Parameters
    ----------
    plant : a finalized ``pydrake.multibody.plant.MultibodyPlant`` with point contact (``ContactModel.kPoint``)
    context : its context, or the root context of the diagram it is in (the root context for a discrete plant)
    diagram : the root Diagram (needed for a discrete plant: its answer is its next step, taken on a copy)
    step : the state's label
    velocity_tol : the speed below which a contact is at rest for the rigid problem (module docstring)

    Raises
    ------
    gaussqp.errors.NotApplicableError
        Hydroelastic or deformable contacts; the problem does not reproduce Drake's dynamics or contact forces.
    gaussqp.errors.WrongTypeError
        Not a finalized plant or not its context.
    """
    mbp = _drake()
    from pydrake.multibody.tree import JacobianWrtVariable

    from ..mechanics.frames import contact_frame
    from ..model.problem import Contact, ContactProblem

    ctx = _plant_context(mbp, plant, context)
    answer, a_e = _answer_context(plant, ctx, context, diagram)
    results = plant.get_contact_results_output_port().Eval(answer)
    if results.num_hydroelastic_contacts() or results.num_deformable_contacts():
        raise NotApplicableError(
            f"Drake's contact results hold {results.num_hydroelastic_contacts()} hydroelastic and "
            f"{results.num_deformable_contacts()} deformable contacts: contact surfaces are not "
            "mapped onto point contacts; use plant.set_contact_model(ContactModel.kPoint)"
        )
    inspector = plant.get_geometry_query_input_port().Eval(ctx).inspector()
    W = plant.world_frame()
    v = np.asarray(plant.GetVelocities(ctx), dtype=float)
    M = np.asarray(plant.CalcMassMatrix(ctx), dtype=float)
    F = _generalized_force(plant, ctx)
    tau_c = _contact_forces(plant, answer)
    g = float(np.linalg.norm(np.asarray(plant.gravity_field().gravity_vector())))
    com = np.asarray(plant.CalcCenterOfMassPositionInWorld(ctx), dtype=float) if plant.num_bodies() > 1 else np.zeros(3)
    pairs = []
    for k in range(results.num_point_pair_contacts()):
        info = results.point_pair_contact_info(k)
        pair = info.point_pair()
        p = np.asarray(info.contact_point(), dtype=float)
        n = np.asarray(pair.nhat_BA_W, dtype=float)
        rows = np.zeros((3, plant.num_velocities()))
        bias = np.zeros(3)
        for sign, index in ((1.0, info.bodyA_index()), (-1.0, info.bodyB_index())):
            frame = plant.get_body(index).body_frame()
            p_B = plant.CalcPointsPositions(ctx, W, p.reshape(3, 1), frame).ravel()
            rows += sign * np.asarray(
                plant.CalcJacobianTranslationalVelocity(ctx, JacobianWrtVariable.kV, frame, p_B, W, W), dtype=float
            )
            bias += (
                sign
                * np.asarray(
                    plant.CalcBiasTranslationalAcceleration(ctx, JacobianWrtVariable.kV, frame, p_B, W, W), dtype=float
                ).ravel()
            )
        nn, t1, t2 = contact_frame(n)
        f_A = -np.asarray(info.contact_force(), dtype=float)
        names = (inspector.GetName(pair.id_A), inspector.GetName(pair.id_B))
        pairs.append((nn, t1, t2, rows, bias, f_A, names, _friction(mbp, inspector, pair), p))
    L = max([float(np.linalg.norm(pr[8] - com)) for pr in pairs] + [0.0])
    vtol = AUDIT_DRAKE_VELOCITY_RTOL * math.sqrt(g * L) if velocity_tol is None else float(velocity_tol)
    contacts, engine, left = [], [], []
    for nn, t1, t2, rows, bias, f_A, names, mu, _ in pairs:
        u = rows @ v
        un, ut = float(nn @ u), np.array([t1 @ u, t2 @ u])
        fn, ft = float(nn @ f_A), np.array([t1 @ f_A, t2 @ f_A])
        speed = float(np.linalg.norm(ut))
        label = f"{names[0]}/{names[1]}"
        if un > vtol:  # separating at the state's velocity: not in the rigid problem
            engine.append(EngineContact(-1, label, "contact", names, None, mu, fn, ft, ft, speed, False, -1, None, un))
            left.append(("contact", f"{label}: separating at {un:.3g} > {vtol:.3g}"))
            continue
        slip = None
        mode = "coulomb"
        if speed > vtol and mu > 0 and fn > 0 and float(np.linalg.norm(ft)) >= AUDIT_CREEP_CONE_FRACTION * mu * fn:
            mode, slip = "sliding", ut / speed  # Coulomb sliding; slower slip inside the cone is creep (at rest)
        if mu == 0:
            mode = "frictionless"
        contacts.append(
            Contact(
                "unilateral",
                normal=nn @ rows,
                normal_drift=float(nn @ bias),
                friction=mu,
                mode=mode,
                tangent=np.vstack([t1 @ rows, t2 @ rows]),
                tangent_drift=np.array([t1 @ bias, t2 @ bias]),
                slip=slip,
            )
        )
        engine.append(
            EngineContact(
                len(contacts) - 1, label, "contact", names, None, mu, fn, ft, ft, speed, speed > vtol, -1, slip, un
            )
        )
    tau_map = sum((rows.T @ f_A for _, _, _, rows, _, f_A, _, _, _ in pairs), np.zeros(plant.num_velocities()))
    _check_dynamics(M, F, a_e, tau_c, tau_map)
    problem = ContactProblem(M, F, contacts, dimension=3, name="drake state")
    discrete = plant.time_step() > 0
    left.append(
        (
            "drake",
            f"{'discrete' if discrete else 'continuous'} plant"
            + (f", time step {plant.time_step():g}, {plant.get_discrete_contact_approximation()}" if discrete else ""),
        )
    )
    return EngineState(
        time=float(ctx.get_time()),
        step=int(step),
        contacts=engine,
        engine_acceleration=a_e,
        velocity_scale=max(math.sqrt(g * L), SCALE_FLOOR),
        gravity=g or 1.0,
        problem=problem,
        left_out=tuple(left),
        engine="drake",
        velocity_tol=vtol,
    )


def _check_dynamics(M, F, a_e, tau_c, tau_map) -> None:
    """``M a_e + F = τ_c`` (the problem's M and F are Drake's dynamics) and ``Σ rows_kᵀ f_k = τ_c`` (the contact rows
    and the mapped forces are Drake's contact forces), each to :data:`~gaussqp.settings.AUDIT_DYNAMICS_RTOL` of the
    terms (module docstring)."""
    Ma = M @ a_e
    scale = max(
        float(np.abs(Ma).max(initial=0.0)),
        float(np.abs(F).max(initial=0.0)),
        float(np.abs(tau_c).max(initial=0.0)),
        SCALE_FLOOR,
    )
    gap = float(np.abs(Ma + F - tau_c).max(initial=0.0)) / scale
    if gap > AUDIT_DYNAMICS_RTOL:
        raise NotApplicableError(
            f"Drake's dynamics: M a + F differs from its generalized contact forces by {gap:.3g} "
            "of the terms: a force the adapter does not model is in play (an applied spatial "
            "force, joint damping, a constraint), so the rigid problem would not be Drake's"
        )
    gap = float(np.abs(tau_map - tau_c).max(initial=0.0)) / scale
    if gap > AUDIT_DYNAMICS_RTOL:
        raise NotApplicableError(
            f"Drake's contact forces: the point pairs' forces through the contact rows differ from "
            f"its generalized contact forces by {gap:.3g} of the terms (a contact the results do "
            "not list as a point pair?), so the forces cannot be mapped onto the contacts"
        )


def audit(
    plant,
    context,
    *,
    diagram=None,
    velocity_tol: float | None = None,
    crosscheck: bool = False,
    tolerance: str = "high",
) -> AuditReport:
    """Audit Drake's point-contact answer at the context's state against rigid mechanics (module docstring).

    Parameters
    ----------
    plant, context, diagram, velocity_tol : :func:`engine_state`'s
    crosscheck, tolerance : passed to :func:`gaussqp.solve` for the rigid answer

    Returns
    -------
    AuditReport
        One state (the JSON contract); ``options["drake"]`` the Drake version.
    """
    t0 = time.perf_counter()
    state = engine_state(plant, context, diagram=diagram, velocity_tol=velocity_tol)
    import pydrake

    results = audit_states([state], crosscheck=crosscheck, tolerance=tolerance)
    return AuditReport(
        "drake MultibodyPlant",
        "drake",
        results,
        time.perf_counter() - t0,
        {
            "drake": getattr(pydrake, "__version__", ""),
            "velocity_tol": state.velocity_tol,
            "tolerance": tolerance,
            "crosscheck": crosscheck,
        },
    )
