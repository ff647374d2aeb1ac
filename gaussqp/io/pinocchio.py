"""The Pinocchio importer: a robot model, its state and its contacts → a :class:`~gaussqp.ContactProblem`.

Needs the optional extra ``gaussqp[pinocchio]`` (the ``pin`` package, ``import pinocchio``); the import of
Pinocchio happens when this module is imported, which only users who want it do.

What is built, at the state ``(q, v)`` and the joint torques ``tau``::

    M = crba(q)                       (Pinocchio's upper triangle, symmetrized; armature included)
    F = nle(q, v) − tau               (Coriolis/centrifugal + gravity − applied: F is *minus* the force)

so that ``M a + F = Jᵀλ`` is Pinocchio's ``M a + nle = tau + Jᵀλ``. Each contact gives rows of the frame
Jacobian in a stated frame (``reference_frame``):

- ``"local_world_aligned"`` (default, Pinocchio's ``LOCAL_WORLD_ALIGNED``): axes parallel to the world's,
  origin at the frame. The linear part of ``J v`` is the velocity of the frame's origin in world coordinates,
  the angular part its angular velocity in world coordinates.
- ``"local"`` (``LOCAL``): the same two vectors in the frame's own axes at this instant (``Rᵀ`` times them).

Pinocchio's ``WORLD`` is refused: its linear part is the velocity of the body point that coincides with the
world's origin, not of the contact point.

**Rows and drifts of a :class:`FrameContact`.** Every row is a component, along axes fixed to the stated frame
at this instant, of the frame's *classical* acceleration (``p̈`` of its origin; ``ω̇`` for the angular rows):
``row · a + drift`` with ``row`` from :func:`pinocchio.getFrameJacobian` and ``drift`` the same component of
:func:`pinocchio.getFrameClassicalAcceleration` after ``forwardKinematics(q, v, 0)`` (the acceleration at zero
``a``, i.e. ``J̇ q̇``). A point contact with normal ``n`` (in the stated frame's axes) gives the normal row
``nᵀ J_lin`` and drift ``nᵀ p̈₀``; with friction the two tangent rows ``t₁ᵀ J_lin``, ``t₂ᵀ J_lin`` where
``t₁ = n × e/‖n × e‖`` with ``e`` the coordinate axis of smallest ``|n_k|`` (the first on ties) and
``t₂ = n × t₁`` (:func:`gaussqp.mechanics.frames.contact_frame`, the frame of the grasps too; for ``n = z``:
``t₁ = y``, ``t₂ = −x``). A bilateral point contact
holds the three components ``x, y, z``; a ``"6d"`` contact (a weld) the six ``x, y, z, angular x, angular y,
angular z``. A unilateral point contact is active when it is at zero distance: the importer does not compute
distances, the caller lists the contacts that touch.

**Pinocchio's ``RigidConstraintModel`` rows** (``constraint_models``) are bilateral and follow
:func:`pinocchio.constraintDynamics` exactly: the rows are :func:`pinocchio.getConstraintJacobian`, and the
drift is Pinocchio's ``contact1_acceleration_drift − contact2_acceleration_drift − contact_acceleration_error``
at zero ``a``. For ``CONTACT_3D`` that is the difference of the two points' classical accelerations; for
``CONTACT_6D`` Pinocchio uses the *spatial* acceleration (``d/dt`` of the frame's twist in its own coordinates),
which differs from the classical one of a ``"6d"`` :class:`FrameContact` by ``ω × v``: the two agree when the
welded frame is at rest relative to its partner, as a weld is. The Baumgarte terms (``Kp``, ``Kd``) are
included, so that gaussqp's problem is the one ``constraintDynamics`` solves (with its proximal ``mu`` driven to
0). ``constraintDynamics`` does not read the model's ``desired_contact_acceleration`` (it reads the desired
acceleration of the constraint *data*, zero when created), so neither do we; a nonzero one is reported in
:attr:`PinocchioImport.notes`.

**Modes** (point contacts with friction, from the state): with ``u`` the contact point's velocity in the stated
frame, a contact whose normal velocity ``nᵀu`` exceeds :data:`gaussqp.settings.IMPORT_VELOCITY_RTOL` times the
point's velocity terms ``Σ_j ‖J_l e_j‖ |v_j|`` (``J_l`` its linear Jacobian) is separating and left out (reported
in :attr:`PinocchioImport.left_out`);
a tangential speed ``‖(t₁ᵀu, t₂ᵀu)‖`` beyond the same tolerance makes it ``"sliding"`` with the unit slip
direction ``(t₁ᵀu, t₂ᵀu)/‖·‖``; otherwise it is ``"sticking"``. A contact whose normal velocity is below minus
the tolerance is approaching (an impact, which an acceleration problem does not model): it is kept and
reported in :attr:`PinocchioImport.approaching`. ``FrameContact.mode`` or ``modes={index: mode}`` overrides the
decision (``"sticking"``, ``"sliding"``, ``"frictionless"`` or ``"separating"``).

Example::

    import numpy as np, pinocchio as pin, gaussqp
    from gaussqp.io.pinocchio import FrameContact, import_pinocchio, load_model

    model = load_model("solo12.urdf", floating_base=True)
    q, v = pin.neutral(model), np.zeros(model.nv)
    feet = [FrameContact(f, normal=(0, 0, 1), friction=0.6) for f in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")]
    imp = import_pinocchio(model, q, v, tau=np.zeros(model.nv), contacts=feet)
    sol = gaussqp.solve(imp.problem)      # imp.origins: where each contact comes from; imp.left_out: separating
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from ..errors import MissingExtraError

try:
    import pinocchio as pin
except ImportError as exc:  # a typed error (still an ImportError) saying what to install
    raise MissingExtraError("gaussqp.io.pinocchio needs the optional extra: pip install 'gaussqp[pinocchio]'") from exc

from ..errors import (
    FileFormatError,
    InputError,
    MissingSlipError,
    NonFiniteError,
    ShapeError,
    UnknownValueError,
    WrongTypeError,
)
from ..mechanics.frames import contact_frame
from ..model.problem import Contact, ContactProblem
from ..model.validation import real_scalar
from ..settings import IMPORT_CLOSE_NAMES, IMPORT_QUATERNION_TOL, IMPORT_VELOCITY_RTOL

__all__ = [
    "FrameContact",
    "PinocchioImport",
    "RowOrigin",
    "LeftOut",
    "load_model",
    "from_pinocchio",
    "import_pinocchio",
    "tangent_basis",
    "KINDS",
    "TYPES",
    "REFERENCE_FRAMES",
    "MODE_OVERRIDES",
]

#: contact kinds of :class:`FrameContact`
KINDS = ("point", "6d")
#: contact types of :class:`FrameContact`
TYPES = ("unilateral", "bilateral")
#: accepted ``reference_frame`` names and the Pinocchio frame each stands for
REFERENCE_FRAMES = {"local_world_aligned": pin.ReferenceFrame.LOCAL_WORLD_ALIGNED, "local": pin.ReferenceFrame.LOCAL}
#: the modes a user may impose (``"separating"`` leaves the contact out)
MODE_OVERRIDES = ("sticking", "sliding", "frictionless", "separating")
#: the names of the rows of a bilateral point contact and of a weld
_AXES = ("x", "y", "z", "angular x", "angular y", "angular z")
#: model file extensions and the Pinocchio loader of each
_LOADERS = {".urdf": "urdf", ".xml": "mjcf", ".mjcf": "mjcf"}


@dataclass(frozen=True)
class FrameContact:
    """One contact at a frame of the model.

    Parameters
    ----------
    frame
        name of a frame of the Pinocchio model (``model.frames``)
    kind
        ``"point"`` (the frame's origin; 1 normal row, with friction 2 tangent rows; bilateral: 3 rows) or
        ``"6d"`` (a bilateral weld of the frame: 6 rows)
    type
        ``"unilateral"`` (point contacts only) or ``"bilateral"``
    normal
        the contact normal (3 numbers, in the axes of the stated reference frame; normalized here), pointing
        from the environment into the body: a unilateral contact pushes along it
    friction
        Coulomb's μ >= 0 of a unilateral point contact (0: frictionless)
    mode
        None (decided from the state, see the module docstring) or one of :data:`MODE_OVERRIDES`
    """

    frame: str
    kind: str = "point"
    type: str = "unilateral"
    normal: tuple = (0.0, 0.0, 1.0)
    friction: float = 0.0
    mode: str | None = None


@dataclass(frozen=True)
class RowOrigin:
    """Where one contact of the problem comes from: ``source`` ``"contact"`` (``contacts[index]``) or
    ``"constraint_model"`` (``constraint_models[index]``), the frame or constraint ``name``, the row (``"normal"``,
    or an axis ``"x"`` … ``"angular z"``), the mode and why it was chosen."""

    source: str
    index: int
    name: str
    row: str
    mode: str
    reason: str


@dataclass(frozen=True)
class LeftOut:
    """A contact that is not in the problem, and why (its normal velocity when it is separating)."""

    index: int
    frame: str
    reason: str
    normal_velocity: float


@dataclass(frozen=True)
class PinocchioImport:
    """The problem, the origin of each of its contacts (same order as ``problem``'s contacts), the contacts left
    out, and the contacts that approach (negative normal velocity, kept)."""

    problem: ContactProblem
    origins: tuple[RowOrigin, ...]
    left_out: tuple[LeftOut, ...] = ()
    approaching: tuple[int, ...] = ()
    reference_frame: str = "local_world_aligned"
    notes: tuple[str, ...] = field(default=())


# ------------------------------------------------------------------------------------------------ loading
def load_model(path: str | Path, *, floating_base: bool = False) -> "pin.Model":
    """Build a Pinocchio model from a URDF (``.urdf``) or MJCF (``.xml``, ``.mjcf``) file.

    Uses :func:`pinocchio.buildModelFromUrdf` / :func:`pinocchio.buildModelFromMJCF`; with ``floating_base`` the
    root is a :class:`pinocchio.JointModelFreeFlyer` (``q`` then starts with a position and a unit quaternion
    ``x, y, z, w``). A file that does not exist or does not parse raises :class:`~gaussqp.errors.FileFormatError`
    naming it.
    """
    p = Path(path)
    kind = _LOADERS.get(p.suffix.lower())
    if kind is None:
        raise UnknownValueError(
            str(p), f"has the extension {p.suffix!r}", "give a URDF (.urdf) or MJCF (.xml, .mjcf) file"
        )
    if not p.is_file():
        raise FileFormatError(str(p), "does not exist or is not a regular file", "check the path")
    loader = pin.buildModelFromUrdf if kind == "urdf" else pin.buildModelFromMJCF
    try:
        return loader(str(p), pin.JointModelFreeFlyer()) if floating_base else loader(str(p))
    except Exception as exc:  # Pinocchio raises ValueError/RuntimeError/IndexError from its C++ parsers
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise FileFormatError(
            str(p), f"does not parse as {kind.upper()} ({message[:200]})", f"give a valid {kind.upper()} file"
        ) from None


# ------------------------------------------------------------------------------------------------ helpers
#: the old name of :func:`gaussqp.mechanics.frames.contact_frame` (one frame for the importer and the
#: grasps), kept importable: ``(n, t₁, t₂)`` of a normal
tangent_basis = contact_frame


def _model(model) -> "pin.Model":
    if not isinstance(model, pin.Model):
        raise WrongTypeError("model", f"is a {type(model).__name__}", "give a pinocchio.Model (see load_model)")
    return model


def _state(name: str, value, length: int) -> np.ndarray:
    arr = np.asarray(value, dtype=float) if not isinstance(value, (str, bytes)) else None
    if arr is None or arr.ndim != 1 or arr.shape[0] != length:
        shape = None if arr is None else arr.shape
        raise ShapeError(name, f"has shape {shape}, expected ({length},)", f"give a vector of {length} numbers")
    if not np.all(np.isfinite(arr)):
        raise NonFiniteError(name, "contains NaN or infinity", "give finite numbers")
    return arr.copy()


def _frame_id(model, name, field_name: str) -> int:
    if not isinstance(name, str):
        raise WrongTypeError(field_name, f"is a {type(name).__name__}", "give a frame name (a string)")
    if not model.existFrame(name):
        names = [f.name for f in model.frames]
        close = difflib.get_close_matches(name, names, n=IMPORT_CLOSE_NAMES)
        hint = (
            f"close names: {', '.join(close)}"
            if close
            else f"the model's frames are {', '.join(names[:20])}" + (" …" if len(names) > 20 else "")
        )
        raise UnknownValueError(field_name, f"is {name!r}, not a frame of the model", hint)
    return int(model.getFrameId(name))


def _choice(field_name: str, value, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise UnknownValueError(field_name, f"is {value!r}", f"use one of {', '.join(allowed)}")
    return value


def _point_scale(Jl: np.ndarray, v: np.ndarray) -> float:
    """The size of a contact point's velocity terms at ``v``: ``Σ_j ‖J_l e_j‖₂ |v_j|``, ``J_l`` the point's (3, nv)
    linear Jacobian (each coordinate's contribution to the point's velocity, in any direction)."""
    return float(np.linalg.norm(Jl, axis=0) @ np.abs(v))


@dataclass
class _Rows:
    contacts: list = field(default_factory=list)
    origins: list = field(default_factory=list)

    def add(self, contact: Contact, origin: RowOrigin) -> None:
        self.contacts.append(contact)
        self.origins.append(origin)


# ------------------------------------------------------------------------------------------------ frame contacts
def _frame_contact_rows(
    k: int, fc, model, data, fid: int, ref, v: np.ndarray, override, out: _Rows, left_out: list, approaching: list
) -> None:
    f = f"contacts[{k}]"
    J = np.asarray(pin.getFrameJacobian(model, data, fid, ref)).reshape(6, model.nv)  # nv = 1 comes back 1-D
    acc = pin.getFrameClassicalAcceleration(model, data, fid, ref).vector  # linear then angular
    Jl, al = J[:3], acc[:3]
    if fc.kind == "6d" or fc.type == "bilateral":
        count = 6 if fc.kind == "6d" else 3
        for r in range(count):
            out.add(
                Contact("bilateral", normal=J[r], normal_drift=float(acc[r])),
                RowOrigin("contact", k, fc.frame, _AXES[r], "frictionless", "bilateral row"),
            )
        return
    n, t1, t2 = contact_frame(fc.normal)
    row_n = n @ Jl
    T = np.vstack([t1 @ Jl, t2 @ Jl])
    vn = float(row_n @ v)
    ut = T @ v
    # one scale for the normal and the tangential speeds: the contact point's velocity terms Σ_j ‖J_l e_j‖ |v_j|, whatever
    # the frame. The terms of the normal row alone are themselves round-off when the point moves tangentially (a box
    # sliding on a slope: 3e-26 against a normal velocity of 3e-17), which read as separating.
    tol_n = tol_t = IMPORT_VELOCITY_RTOL * _point_scale(Jl, v)
    speed = float(np.linalg.norm(ut))
    mode = override if override is not None else fc.mode
    if mode is not None:
        reason = "given"
    elif vn > tol_n:
        mode, reason = "separating", f"normal velocity {vn:.3g} > {tol_n:.3g}"
    elif float(fc.friction) == 0.0:
        mode, reason = "frictionless", "μ = 0"
    elif speed > tol_t:
        mode, reason = "sliding", f"tangential speed {speed:.3g} > {tol_t:.3g}"
    else:
        mode, reason = "sticking", f"tangential speed {speed:.3g} <= {tol_t:.3g}"
    if mode == "separating":
        left_out.append(LeftOut(k, fc.frame, reason, vn))
        return
    if vn < -tol_n:
        approaching.append(k)
    if mode == "frictionless":
        out.add(
            Contact("unilateral", normal=row_n, normal_drift=float(n @ al)),
            RowOrigin("contact", k, fc.frame, "normal", mode, reason),
        )
        return
    slip = None
    if mode == "sliding":
        if not speed > tol_t:
            raise MissingSlipError(
                f"{f}.mode",
                f"is 'sliding' but the tangential speed is {speed:.3g} (no slip direction)",
                "give a velocity that slides, or the mode 'sticking'",
            )
        slip = ut / speed
    out.add(
        Contact(
            "unilateral",
            normal=row_n,
            normal_drift=float(n @ al),
            friction=float(fc.friction),
            mode=mode,
            tangent=T,
            tangent_drift=np.array([t1 @ al, t2 @ al]),
            slip=slip,
        ),
        RowOrigin("contact", k, fc.frame, "normal", mode, reason),
    )


def _check_contact(k: int, fc) -> FrameContact:
    f = f"contacts[{k}]"
    if not isinstance(fc, FrameContact):
        raise WrongTypeError(f, f"is a {type(fc).__name__}", "give gaussqp.io.pinocchio.FrameContact objects")
    _choice(f"{f}.kind", fc.kind, KINDS)
    _choice(f"{f}.type", fc.type, TYPES)
    if fc.kind == "6d" and fc.type != "bilateral":
        raise UnknownValueError(
            f"{f}.type",
            "is 'unilateral' for a 6d contact (a weld)",
            "use type='bilateral' with kind='6d', or kind='point'",
        )
    mu = real_scalar(f"{f}.friction", fc.friction)
    if mu < 0.0:
        raise InputError(f"{f}.friction", f"is {mu}", "give μ >= 0")
    if mu > 0.0 and fc.type == "bilateral":
        raise InputError(
            f"{f}.friction",
            f"is {mu} on a bilateral contact (its 3 or 6 rows are held, friction has nothing to act on)",
            "use type='unilateral' for a frictional point contact",
        )
    try:
        contact_frame(fc.normal)
    except InputError as exc:
        raise type(exc)(f"{f}.normal", exc.problem, exc.fix) from None
    if fc.mode is not None:
        _choice(f"{f}.mode", fc.mode, MODE_OVERRIDES)
    return fc


# ------------------------------------------------------------------------------------------------ constraint models
def _constraint_drift(cm, data) -> np.ndarray:
    """The drift of a RigidConstraintModel as constraintDynamics defines it, after ``forwardKinematics(q, v, 0)``
    (``data.oMi``, ``data.v``, ``data.a``): ``acc₁ − acc₂ − Baumgarte error``."""

    def world(j: int, attr: str) -> "pin.Motion":
        return pin.Motion.Zero() if j == 0 else data.oMi[j].act(getattr(data, attr)[j])

    j1, j2 = int(cm.joint1_id), int(cm.joint2_id)
    oMc1 = data.oMi[j1] * cm.joint1_placement
    oMc2 = data.oMi[j2] * cm.joint2_placement
    ov1, ov2, oa1, oa2 = world(j1, "v"), world(j2, "v"), world(j1, "a"), world(j2, "a")
    vc1, vc2 = oMc1.actInv(ov1), oMc2.actInv(ov2)
    c1Mc2 = oMc1.actInv(oMc2)
    vc2_in_1 = c1Mc2.act(vc2)
    six = cm.type == pin.ContactType.CONTACT_6D
    p1, p2 = oMc1.translation, oMc2.translation

    def classical(ov, oa, p):  # the classical acceleration of the body point at p, world coordinates
        return oa.linear + np.cross(oa.angular, p) + np.cross(ov.angular, ov.linear + np.cross(ov.angular, p))

    Kp, Kd = float(cm.m_baumgarte_parameters.Kp), float(cm.m_baumgarte_parameters.Kd)
    if six:
        err = -Kp * (-pin.log6(c1Mc2).vector) - Kd * (vc1 - vc2_in_1).vector
    else:
        perr = -c1Mc2.translation
        verr = vc1.linear - c1Mc2.rotation @ vc2.linear
        err = np.concatenate([-Kp * perr - Kd * verr, np.zeros(3)])
    if cm.reference_frame == pin.ReferenceFrame.LOCAL_WORLD_ALIGNED:
        R1 = oMc1.rotation
        err = np.concatenate([R1 @ err[:3], R1 @ err[3:]])
        if six:
            acc1 = np.concatenate([oa1.linear + np.cross(oa1.angular, p1), oa1.angular])
            acc2 = np.concatenate([oa2.linear + np.cross(oa2.angular, p1), oa2.angular])
        else:
            acc1 = np.concatenate([classical(ov1, oa1, p1), np.zeros(3)])
            acc2 = np.concatenate([classical(ov2, oa2, p2), np.zeros(3)])
    elif cm.reference_frame == pin.ReferenceFrame.LOCAL:
        R1t = oMc1.rotation.T
        if six:
            acc1 = (oMc1.actInv(oa1) + (vc1 - vc2_in_1).cross(vc2_in_1)).vector
            acc2 = oMc1.actInv(oa2).vector
        else:
            acc1 = np.concatenate([R1t @ classical(ov1, oa1, p1), np.zeros(3)])
            acc2 = np.concatenate([R1t @ classical(ov2, oa2, p2), np.zeros(3)])
    else:
        raise UnknownValueError(
            f"constraint_models[{cm.name!r}].reference_frame",
            f"is {cm.reference_frame}",
            "use LOCAL or LOCAL_WORLD_ALIGNED (as constraintDynamics does)",
        )
    b = acc1 - acc2 - err
    return b if six else b[:3]


def _constraint_rows(constraint_models, model, data, out: _Rows, notes: list) -> None:
    try:
        cms = list(constraint_models)
    except TypeError:
        raise WrongTypeError(
            "constraint_models",
            f"is a {type(constraint_models).__name__}",
            "give a list of pinocchio.RigidConstraintModel",
        ) from None
    for k, cm in enumerate(cms):
        f = f"constraint_models[{k}]"
        if not isinstance(cm, pin.RigidConstraintModel):
            raise WrongTypeError(f, f"is a {type(cm).__name__}", "give pinocchio.RigidConstraintModel objects")
        if cm.type not in (pin.ContactType.CONTACT_3D, pin.ContactType.CONTACT_6D):
            raise UnknownValueError(f"{f}.type", f"is {cm.type}", "use CONTACT_3D or CONTACT_6D")
        if cm.reference_frame not in (pin.ReferenceFrame.LOCAL, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED):
            raise UnknownValueError(
                f"{f}.reference_frame",
                f"is {cm.reference_frame}",
                "use LOCAL or LOCAL_WORLD_ALIGNED (as constraintDynamics does)",
            )
        for j in (cm.joint1_id, cm.joint2_id):
            if not 0 <= int(j) < model.njoints:
                raise ShapeError(
                    f"{f}.joint_id",
                    f"is {j}, the model has {model.njoints} joints",
                    "build the constraint model with this model",
                )
        cd = cm.createData()
        cm.calc(model, data, cd)
        J = np.asarray(pin.getConstraintJacobian(model, data, cm, cd)).reshape(-1, model.nv)  # nv = 1: 1-D
        b = _constraint_drift(cm, data)
        name = cm.name or f"constraint {k}"
        if np.any(cm.desired_contact_acceleration.vector != 0.0):
            notes.append(
                f"{f} ({name}): its desired_contact_acceleration is not used (constraintDynamics does not "
                "read it either)"
            )
        for r in range(J.shape[0]):
            out.add(
                Contact("bilateral", normal=J[r], normal_drift=float(b[r])),
                RowOrigin("constraint_model", k, name, _AXES[r], "frictionless", "bilateral row"),
            )


# ------------------------------------------------------------------------------------------------ public API
def import_pinocchio(
    model,
    q,
    v,
    tau=None,
    contacts: Iterable[FrameContact] = (),
    *,
    constraint_models: Iterable = (),
    data=None,
    modes: Mapping[int, str] | None = None,
    reference_frame: str = "local_world_aligned",
    name: str = "",
) -> PinocchioImport:
    """The contact problem of a Pinocchio model at ``(q, v, tau)``, with the origin of every row.

    Parameters
    ----------
    model
        :class:`pinocchio.Model`
    q, v
        configuration (``model.nq``) and velocity (``model.nv``)
    tau
        joint torques (``model.nv``), zero when None
    contacts
        :class:`FrameContact` list (rows and modes as in the module docstring)
    constraint_models
        :class:`pinocchio.RigidConstraintModel` list, imported as bilateral rows exactly as
        :func:`pinocchio.constraintDynamics` states them
    data
        a :class:`pinocchio.Data` of ``model`` to compute in (a new one when None)
    modes
        ``{index in contacts: mode}`` overriding the modes decided from the state (:data:`MODE_OVERRIDES`)
    reference_frame
        ``"local_world_aligned"`` or ``"local"``, the frame of the contact Jacobians and normals
    name
        the problem's name

    Returns
    -------
    PinocchioImport
        ``problem`` (``M = crba``, ``F = nle − tau``, dimension 3), ``origins`` (one per contact of the
        problem), ``left_out`` (separating contacts), ``approaching``.

    Notes
    -----
    Sources: :func:`pinocchio.crba`, :func:`pinocchio.nonLinearEffects`, :func:`pinocchio.getFrameJacobian`,
    :func:`pinocchio.getFrameClassicalAcceleration` (after ``forwardKinematics(q, v, 0)``),
    :func:`pinocchio.getConstraintJacobian`; the drift of a ``RigidConstraintModel`` is the one of
    ``constraintDynamics`` (module docstring).
    """
    model = _model(model)
    if model.nv == 0:  # Pinocchio's Jacobians of a model without degrees of freedom crash the process
        raise ShapeError(
            "model",
            "has no degrees of freedom (nv = 0): every joint is fixed",
            "give a model with joints; a free-floating body needs load_model(..., floating_base=True) "
            "(CLI: --floating-base)",
        )
    if data is None:
        data = model.createData()
    elif not isinstance(data, pin.Data):
        raise WrongTypeError("data", f"is a {type(data).__name__}", "give model.createData(), or None")
    elif not model.check(data):
        raise ShapeError("data", "was not created by this model (its sizes differ)", "give model.createData(), or None")
    q = _state("q", q, model.nq)
    v = _state("v", v, model.nv)
    tau = np.zeros(model.nv) if tau is None else _state("tau", tau, model.nv)
    if not pin.isNormalized(model, q, IMPORT_QUATERNION_TOL):
        raise InputError(
            "q",
            "has a quaternion (or unit complex) part that is not of unit norm",
            "normalize it (pinocchio.normalize(model, q))",
        )
    ref_name = _choice("reference_frame", reference_frame, tuple(REFERENCE_FRAMES))
    ref = REFERENCE_FRAMES[ref_name]
    if isinstance(contacts, FrameContact):
        contacts = [contacts]
    try:
        contacts = [_check_contact(k, c) for k, c in enumerate(contacts)]
    except TypeError:
        raise WrongTypeError("contacts", f"is a {type(contacts).__name__}", "give a list of FrameContact") from None
    frame_ids = [_frame_id(model, c.frame, f"contacts[{k}].frame") for k, c in enumerate(contacts)]
    overrides = _overrides(modes, len(contacts))

    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    F = pin.nonLinearEffects(model, data, q, v) - tau
    pin.computeJointJacobians(model, data, q)
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    pin.updateFramePlacements(model, data)

    out, left_out, approaching = _Rows(), [], []
    for k, (fc, fid) in enumerate(zip(contacts, frame_ids)):
        _frame_contact_rows(k, fc, model, data, fid, ref, v, overrides.get(k), out, left_out, approaching)
    notes: list = []
    _constraint_rows(constraint_models, model, data, out, notes)
    problem = ContactProblem(
        M,
        F,
        out.contacts,
        dimension=3,
        name=name or model.name,
        description=f"Pinocchio model {model.name!r} (nq={model.nq}, nv={model.nv}), "
        f"{len(out.contacts)} rows in {ref_name} axes",
    )
    return PinocchioImport(problem, tuple(out.origins), tuple(left_out), tuple(approaching), ref_name, tuple(notes))


def from_pinocchio(
    model,
    q,
    v,
    tau=None,
    contacts: Iterable[FrameContact] = (),
    *,
    constraint_models: Iterable = (),
    data=None,
    modes: Mapping[int, str] | None = None,
    reference_frame: str = "local_world_aligned",
    name: str = "",
) -> ContactProblem:
    """The :class:`~gaussqp.ContactProblem` of :func:`import_pinocchio` (same arguments), without the record of
    where its rows come from."""
    return import_pinocchio(
        model,
        q,
        v,
        tau,
        contacts,
        constraint_models=constraint_models,
        data=data,
        modes=modes,
        reference_frame=reference_frame,
        name=name,
    ).problem


def _overrides(modes, count: int) -> dict:
    if modes is None:
        return {}
    if not isinstance(modes, Mapping):
        raise WrongTypeError("modes", f"is a {type(modes).__name__}", "give a dict {contact index: mode}")
    out = {}
    for key, mode in modes.items():
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or not 0 <= int(key) < count:
            raise UnknownValueError("modes", f"has the key {key!r}", f"use contact indices 0 … {count - 1}")
        out[int(key)] = _choice(f"modes[{key}]", mode, MODE_OVERRIDES)
    return out
