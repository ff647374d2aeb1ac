"""Audit another engine's contact answer: per state and along a rollout, the engine's forces and
acceleration against the rigid problem's certified answer and its certified force envelopes.

``gaussqp.audit(model, ...)`` is :func:`gaussqp.audit.mujoco_.audit` (MuJoCo, the first adapter); the engine-neutral
core is :mod:`gaussqp.audit.core` (an adapter builds :class:`~gaussqp.audit.core.EngineState` objects and calls
:func:`~gaussqp.audit.core.audit_states`); the report writers are in :mod:`gaussqp.audit.report`. The other engines'
adapters are imported by name, each importing its engine only when called: :mod:`gaussqp.audit.siconos_` (a Siconos
answer of an FCLIB problem), :mod:`gaussqp.audit.pinocchio_` (Pinocchio's ADMM solver, ``constraintDynamics``),
:mod:`gaussqp.audit.drake_` (a Drake ``MultibodyPlant``'s ``ContactResults``).
"""

from .core import AuditReport, ContactAudit, EngineContact, EngineState, StateAudit, audit_state, audit_states
from .mujoco_ import audit, engine_state, read_recording, states

__all__ = [
    "AuditReport",
    "ContactAudit",
    "EngineContact",
    "EngineState",
    "StateAudit",
    "audit",
    "audit_state",
    "audit_states",
    "engine_state",
    "read_recording",
    "states",
]


class _CallableModule(__import__("types").ModuleType):
    """``gaussqp.audit(...)`` calls :func:`audit` (the package is also the namespace of the audit's modules)."""

    def __call__(self, *args, **kwargs):
        return audit(*args, **kwargs)


__import__("sys").modules[__name__].__class__ = _CallableModule
