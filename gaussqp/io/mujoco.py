"""MuJoCo importer: the contact problem of a MuJoCo model at its current state.

Needs the optional extra ``gaussqp[mujoco]`` (the ``mujoco`` package, version 4): ``import gaussqp.io.mujoco``
works without it, the functions raise :class:`ImportError` saying what to install.

What is imported (docs/DESIGN.md §1 notation, ``M a + F = J_nᵀ λ_n + J_tᵀ λ_t``):

- ``M`` is MuJoCo's joint-space inertia (``mj_fullM``; armature included), ``F = −qfrc_smooth``: MuJoCo's
  ``qfrc_smooth = qfrc_passive + qfrc_actuator + qfrc_applied + (xfrc_applied mapped to joint space) − qfrc_bias``,
  where ``qfrc_passive`` holds springs, dampers, gravity compensation and fluid forces and ``qfrc_bias`` the
  Coriolis/centrifugal and gravity forces. MuJoCo's own identity is ``M qacc = qfrc_smooth + Jᵀ efc_force``.
- The rows are MuJoCo's constraint Jacobian ``efc_J`` computed with ``opt.cone = elliptic`` and
  ``opt.jacobian = dense`` on a copy of the model (the user's model and data are never modified). Above
  :data:`~gaussqp.settings.MUJOCO_DENSE_COORDINATES_MAX` coordinates (piles of hundreds of bodies) the copy has
  ``opt.jacobian = sparse``, ``M`` is MuJoCo's sparse ``data.M`` and the problem is built from sparse blocks: the
  same problem, entry for entry, without an ``nv × nv`` or ``nefc × nv`` dense array:

  * a contact of ``condim 1`` is a unilateral frictionless contact;
  * a contact of ``condim 3, 4, 6`` is unilateral with ``condim − 1`` tangent rows (2 sliding, then torsional,
    then 2 rolling), MuJoCo's elliptic cone ``Σ_k (f_k / μ_k)² <= f_n²`` with ``μ = contact.friction[:condim-1]``.
    It is mapped **exactly** onto gaussqp's isotropic cone: with ``f_k = μ_k ν_k`` the cone is ``‖ν‖ <= f_n``
    and the generalized force ``Σ_k J_kᵀ f_k = Σ_k (μ_k J_k)ᵀ ν_k``, so the gaussqp contact has friction 1 and
    tangent rows ``μ_k J_k`` (drifts ``μ_k c_k``), and ``λ_t = ν``. A condim-3 contact with equal coefficients
    keeps its rows and ``μ`` (then ``λ_t = f``). Each row's :attr:`ImportedRow.force_map` maps ``λ_t`` back to
    MuJoCo's ``efc_force``. The problem's dimension is the frictional condim; contacts of different
    frictional condim in one problem are refused unless ``torsional="ignore"`` (torsional and rolling rows
    dropped and reported);
  * an active equality constraint (connect: 3 rows, weld: 6, joint: 1, tendon: 1) gives bilateral
    frictionless contacts, one per row;
  * an active joint or tendon limit gives a unilateral frictionless contact;
  * joint and tendon friction loss (MuJoCo's ``frictionloss`` rows) has no counterpart in the contact
    problem: refused with an error naming the joint (``frictionloss="refuse"``, the default) or dropped and
    reported (``frictionloss="ignore"``).

- Drifts (the normal acceleration of a row is ``J_i a + b_i``):

  * ``drift="jacdot"`` (default): ``b = J̇ q̇``. For a contact, the relative acceleration at ``a = 0`` of the
    two material points at the contact position (``mj_jacDot`` of each body, translational and rotational)
    along the contact frame held fixed: the curvature terms of the geoms' gap function (the frame and the
    contact point moving over the surfaces) are not included, as in ``efc_J``, which is the Jacobian at the
    frozen frame. For connect and weld constraints the exact derivative of MuJoCo's own rows (the weld's
    quaternion error ``Im(q₁⁻¹ q₀ q_rel)`` differentiated twice by the product rule), for joint and tendon
    equalities the derivative of their polynomial, ``−p''(q₂) q̇₂²``; limits of hinge and slide joints and of
    fixed tendons have constant rows (``b = 0``). Rows whose ``J̇`` is not implemented (ball-joint limits,
    spatial tendons) are refused with an error that names them and suggests ``drift="mujoco"``.
  * ``drift="mujoco"``: MuJoCo's reference acceleration ``efc_aref`` (``−B·vel − K·I·(pos − margin)``, the
    Baumgarte terms of its soft constraints, plus its own ``J̇v`` for connect and weld): each row reads
    ``J_i a = aref_i``, i.e. ``b_i = −aref_i`` (tangent rows scaled by ``μ_k`` as above). gaussqp then solves
    exactly MuJoCo's problem with its softness (the regularization ``R``) removed: MuJoCo's acceleration tends
    to gaussqp's as ``R → 0`` when the contacts stick (its elliptic-cone problem and gaussqp's sticking
    contacts have the same solutions when the tangential rows are at rest; for a sliding contact MuJoCo's
    convex cone law is not Coulomb's and the two differ). With MuJoCo's Baumgarte terms switched off (a large
    solref time constant) at a state at rest, ``aref`` vanishes and MuJoCo's hard limit is the default import
    (``J̇q̇ = 0``): ``tests/io/test_mujoco.py`` and ``problems/real/mujoco_scenes.py`` measure both sweeps.

- Modes from the state (``u = J q̇`` per row): a unilateral row with ``u_n > velocity_tol`` is separating and
  left out (reported); a contact with tangential speed ``> velocity_tol`` slides with the slip direction
  ``u_t / ‖u_t‖`` (in the ``ν`` coordinates: ``μ ∘ u_t`` normalized); otherwise it sticks. The speed of
  torsional and rolling rows is counted in the length units of ``μ_k / μ_1``. ``modes={i: mode}`` overrides
  this for MuJoCo contact ``i`` (an index of ``data.contact``): "frictionless", "sticking", "sliding",
  "coulomb" (stick or slip left to the solver) or "separating". The default ``velocity_tol`` is
  :data:`gaussqp.settings.MUJOCO_VELOCITY_RTOL` times the model's velocity scale ``sqrt(‖g‖ · stat.extent)``
  (MuJoCo's soft contacts creep: a settled state may need a larger ``velocity_tol`` or ``modes``, see there).
- Planar models (e.g. dm_control's walker and cheetah, whose root joints are x, z and a rotation about y)
  have a tangent row that is zero: each contact's μ-scaled tangent block ``B = U Σ Vᵀ`` is reduced exactly to
  its rank ``r`` (rows ``Σ_r V_rᵀ``, ``ν = U_r λ_t``: the same set of generalized forces, since ``U_rᵀ`` maps the
  unit ball of ``ν`` onto the unit ball of ``λ_t``), so a planar model gives dimension-2 contacts; a block of
  rank 0 gives a frictionless contact. Normal rows that are zero (two geoms of one rigid subtree) are dropped
  and reported.

``import_mujoco`` returns a :class:`MujocoImport` (the problem, where each of its contacts came from, what was
left out and why); ``from_mujoco`` returns its problem. ``load_mujoco`` reads a model file for the CLI.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import pathlib
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import scipy.sparse as sp

from ..errors import (
    FileFormatError,
    InputTooLargeError,
    MissingExtraError,
    MissingSlipError,
    NonFiniteError,
    ShapeError,
    UnknownValueError,
    UnsupportedModelError,
    WrongTypeError,
)
from ..model.problem import Contact, ContactProblem
from ..settings import (
    ABS_ENTRY_MIN,
    MUJOCO_DENSE_COORDINATES_MAX,
    MUJOCO_GRASP_ANISOTROPY_RTOL,
    MUJOCO_ROW_RTOL,
    MUJOCO_VELOCITY_RTOL,
    MUJOCO_ZERO_ROW_RTOL,
    SETTLE_STEPS_MAX,
)

__all__ = ["ImportedRow", "MujocoImport", "from_mujoco", "import_mujoco", "load_mujoco", "state_vector"]

DRIFTS = ("jacdot", "mujoco")
FRICTIONLOSS = ("refuse", "ignore")
TORSIONAL = ("exact", "ignore")
MODE_OVERRIDES = ("frictionless", "sticking", "sliding", "coulomb", "separating")


def _mujoco():
    try:
        import mujoco
    except ImportError as exc:  # exercised only without the extra
        raise MissingExtraError("gaussqp.io.mujoco needs the optional extra: pip install 'gaussqp[mujoco]'") from exc
    return mujoco


@dataclass(frozen=True)
class ImportedRow:
    """Where one contact of the imported problem came from.

    ``kind`` is "contact", "equality", "joint limit" or "tendon limit"; ``subkind`` the equality's type
    ("connect", "weld", "joint", "tendon") or, for a contact, "frictionless" / "condim 3|4|6"; ``mujoco_id`` the
    index of ``data.contact`` (contacts) or the equality, joint or tendon id; ``name`` its MuJoCo name (contacts:
    "geom1/geom2"); ``geoms`` the two geom names of a contact; ``efc_address`` the first row of this constraint in
    MuJoCo's ``efc_*`` arrays with elliptic cones and ``component`` the row within it (a connect has 3, a weld 6);
    ``force_map`` maps ``λ_t`` to MuJoCo's friction forces ``efc_force[efc_address+1 : efc_address+condim]``
    (None when frictionless); ``normal_velocity`` and ``tangential_speed`` are what decided the mode.
    """

    kind: str
    subkind: str
    mujoco_id: int
    name: str
    geoms: tuple[str, str] | None = None
    efc_address: int = -1
    component: int = 0
    force_map: np.ndarray | None = None
    normal_velocity: float = 0.0
    tangential_speed: float = 0.0
    distance: float | None = None


@dataclass(frozen=True)
class MujocoImport:
    """The result of :func:`import_mujoco`: ``problem``, ``rows[i]`` for its contact ``i``, and ``left_out``:
    ``(what, why)`` for every constraint of MuJoCo's that is not in the problem. ``nefc`` is the number of MuJoCo
    constraint rows with elliptic cones (the length of :meth:`efc_force`); ``options`` the options used."""

    problem: ContactProblem
    rows: tuple[ImportedRow, ...]
    left_out: tuple[tuple[str, str], ...]
    nefc: int
    options: Mapping[str, Any] = field(default_factory=dict)

    def efc_force(self, lambda_normal, lambda_tangent) -> np.ndarray:
        """MuJoCo's ``efc_force`` (elliptic-cone layout, rows left out are zero) of gaussqp multipliers
        (``Solution.lambda_normal``, ``Solution.lambda_tangent``): the normal row carries ``λ_n``, the friction
        rows ``force_map @ λ_t``."""
        ln = np.asarray(lambda_normal, dtype=float).ravel()
        d1 = self.problem.dimension - 1
        if ln.shape != (len(self.rows),) or np.size(lambda_tangent) != len(self.rows) * d1:
            raise ShapeError(
                "lambda_normal, lambda_tangent",
                f"have {ln.size} and {np.size(lambda_tangent)} numbers, "
                f"expected {len(self.rows)} and {len(self.rows)} × {d1}",
                "give Solution.lambda_normal and Solution.lambda_tangent of this problem's solution",
            )
        lt = np.asarray(lambda_tangent, dtype=float).reshape(len(self.rows), d1)
        out = np.zeros(self.nefc)
        for i, row in enumerate(self.rows):
            out[row.efc_address + row.component] = ln[i]
            if row.force_map is not None:
                k, r = row.force_map.shape
                out[row.efc_address + 1 : row.efc_address + 1 + k] = row.force_map @ lt[i, :r]
        return out

    def multipliers(self, efc_force) -> tuple[np.ndarray, np.ndarray]:
        """The inverse of :meth:`efc_force`: gaussqp's ``(λ_n, λ_t)`` of MuJoCo's ``efc_force`` (elliptic layout).
        ``λ_t`` is the least-squares solution of ``force_map λ_t = f_t`` (exact when ``f_t`` is in its range)."""
        f = np.asarray(efc_force, dtype=float).ravel()
        d1 = self.problem.dimension - 1
        ln = np.zeros(len(self.rows))
        lt = np.zeros((len(self.rows), d1))
        for i, row in enumerate(self.rows):
            ln[i] = f[row.efc_address + row.component]
            if row.force_map is not None:
                k, r = row.force_map.shape
                lt[i, :r] = np.linalg.lstsq(
                    row.force_map, f[row.efc_address + 1 : row.efc_address + 1 + k], rcond=None
                )[0]
        return ln, lt


# ---------------------------------------------------------------- loading a model file


def load_mujoco(path, *, keyframe: str | int | None = None, qpos=None, qvel=None, settle: int = 0):
    """Load an MJCF (``.xml``) or compiled (``.mjb``) MuJoCo model and a state for it: ``(model, data)``.

    The state is the model's default (``qpos0``, at rest), or keyframe ``keyframe`` (its name or index), then
    ``qpos`` / ``qvel`` when given, then ``settle`` steps of MuJoCo's own simulation (``mj_step``); the data are
    left after ``mj_forward``. A file that does not exist or does not parse raises
    :class:`~gaussqp.errors.FileFormatError` naming it, an unknown keyframe
    :class:`~gaussqp.errors.UnknownValueError`.
    """
    mujoco = _mujoco()
    p = pathlib.Path(path)
    if not p.is_file():
        raise FileFormatError(str(p), "does not exist or is not a file", "give the path of a MuJoCo .xml or .mjb file")
    try:
        model = (
            mujoco.MjModel.from_binary_path(str(p))
            if p.suffix.lower() == ".mjb"
            else mujoco.MjModel.from_xml_path(str(p))
        )
    except Exception as exc:  # MuJoCo raises ValueError for parse and compile errors
        msg = " ".join(str(exc).split())
        raise FileFormatError(
            str(p),
            f"is not a MuJoCo model MuJoCo can compile ({msg})",
            "fix the model file (MuJoCo's message says where)",
        ) from None
    data = mujoco.MjData(model)
    if keyframe is not None:
        mujoco.mj_resetDataKeyframe(model, data, _keyframe_id(mujoco, model, keyframe))
    if qpos is not None:
        data.qpos[:] = state_vector("qpos", qpos, model.nq)
    if qvel is not None:
        data.qvel[:] = state_vector("qvel", qvel, model.nv)
    if isinstance(settle, bool) or not isinstance(settle, (int, np.integer)) or settle < 0:
        raise WrongTypeError("settle", f"is {settle!r}", "give a number of MuJoCo steps, an integer >= 0")
    if settle > SETTLE_STEPS_MAX:
        raise InputTooLargeError("settle", f"is {settle} steps", f"give at most {SETTLE_STEPS_MAX} (gaussqp.settings)")
    if settle:
        mujoco.mj_step(model, data, int(settle))
        if int(data.warning[int(mujoco.mjtWarning.mjWARN_BADQACC)].number):  # MuJoCo resets silently
            raise UnsupportedModelError(
                "settle",
                f"ran {settle} steps of a simulation that went unstable (MuJoCo reset its state)",
                "settle fewer steps, or from a keyframe near rest",
            )
    mujoco.mj_forward(model, data)
    return model, data


def _keyframe_id(mujoco, model, keyframe) -> int:
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_KEY, k) or str(k) for k in range(model.nkey)]
    fix = f"use one of {names}" if names else "the model has no keyframe: drop --keyframe"
    if isinstance(keyframe, (int, np.integer)) and not isinstance(keyframe, bool):
        if 0 <= keyframe < model.nkey:
            return int(keyframe)
        raise UnknownValueError("keyframe", f"is {keyframe}, the model has {model.nkey} keyframes", fix)
    if isinstance(keyframe, str):
        k = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, keyframe)
        if k >= 0:
            return k
        if keyframe.isdigit() and int(keyframe) < model.nkey:
            return int(keyframe)
    raise UnknownValueError("keyframe", f"is {keyframe!r}, not a keyframe of the model", fix)


def state_vector(name: str, value, size: int) -> np.ndarray:
    """``value`` as a state vector of ``size`` finite numbers (``qpos``, ``qvel``), or a typed error naming ``name``.

    Parameters
    ----------
    name : str
        the field (``"qpos"``, ``"qvel"``)
    value : array-like
    size : int
        the model's ``nq`` or ``nv``

    Returns
    -------
    numpy.ndarray
        (size,) floats.

    Raises
    ------
    WrongTypeError, ShapeError
        not numbers; another size, or NaN/infinite entries.
    """
    try:
        v = np.asarray(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise WrongTypeError(name, f"is {type(value).__name__}", f"give {size} real numbers") from None
    if v.shape != (size,):
        raise ShapeError(name, f"has {v.size} numbers, the model has {size}", f"give {size} numbers")
    if not np.all(np.isfinite(v)):
        raise ShapeError(name, "has NaN or infinite entries", "give finite numbers")
    return v


# ---------------------------------------------------------------- the importer


def from_mujoco(
    model,
    data,
    *,
    drift: str = "jacdot",
    frictionloss: str = "refuse",
    torsional: str = "exact",
    modes: Mapping[int, str] | None = None,
    velocity_tol: float | None = None,
    name: str = "",
) -> ContactProblem:
    """The contact problem of MuJoCo ``model`` at the state of ``data``: ``import_mujoco(...).problem``.

    See :func:`import_mujoco` and the module docstring for what is imported and the options."""
    return import_mujoco(
        model,
        data,
        drift=drift,
        frictionloss=frictionloss,
        torsional=torsional,
        modes=modes,
        velocity_tol=velocity_tol,
        name=name,
    ).problem


def import_mujoco(
    model,
    data,
    *,
    drift: str = "jacdot",
    frictionloss: str = "refuse",
    torsional: str = "exact",
    modes: Mapping[int, str] | None = None,
    velocity_tol: float | None = None,
    name: str = "",
) -> MujocoImport:
    """Import MuJoCo ``model`` at the state of ``data`` (qpos, qvel, act, ctrl, applied forces, mocap, eq_active).

    Parameters
    ----------
    drift : "jacdot" (``b = J̇ q̇``) or "mujoco" (``b = −efc_aref``, MuJoCo's Baumgarte reference)
    frictionloss : "refuse" (error naming the joint or tendon) or "ignore" (dropped, reported in ``left_out``)
    torsional : "exact" (condim 4/6 rows kept, mapped exactly) or "ignore" (torsional and rolling rows dropped)
    modes : ``{MuJoCo contact index: "frictionless" | "sticking" | "sliding" | "coulomb" | "separating"}``
        overrides
    velocity_tol : the speed (model units) above which a row separates or a contact slides; default
        :data:`~gaussqp.settings.MUJOCO_VELOCITY_RTOL` times ``sqrt(‖g‖ · model.stat.extent)``
    name : the problem's name (default: the model's)

    Returns
    -------
    MujocoImport
        ``problem`` (:class:`~gaussqp.ContactProblem`), ``rows`` (its contacts' origins), ``left_out``.

    Notes
    -----
    The model and data are not modified: the work is done on ``copy.deepcopy(model)`` with elliptic cones and a
    dense Jacobian and a fresh ``MjData`` given the state by ``mj_getState`` / ``mj_setState``
    (``mjSTATE_INTEGRATION``), then ``mj_forward``. Sources: MuJoCo's documentation, "Computation" (the
    constraint model, ``qfrc_smooth``, ``efc_aref``) and the API reference (``mj_fullM``, ``mj_jacDot``).
    """
    mujoco = _mujoco()
    _choice("drift", drift, DRIFTS)
    _choice("frictionloss", frictionloss, FRICTIONLOSS)
    _choice("torsional", torsional, TORSIONAL)
    if not isinstance(model, mujoco.MjModel):
        raise WrongTypeError("model", f"is a {type(model).__name__}", "give a mujoco.MjModel")
    if not isinstance(data, mujoco.MjData):
        raise WrongTypeError("data", f"is a {type(data).__name__}", "give the mujoco.MjData of the model")
    for what, got, want in (
        ("qpos", data.qpos.size, model.nq),
        ("qvel", data.qvel.size, model.nv),
        ("act", data.act.size, model.na),
        ("ctrl", data.ctrl.size, model.nu),
        ("xpos", data.xpos.shape[0], model.nbody),
    ):
        if got != want:  # MuJoCo's C code would run on the mismatched arrays
            raise ShapeError(
                "data",
                f"is the MjData of another model (data.{what} has {got} entries, the model {want})",
                "give mujoco.MjData(model) of this model",
            )
    for what in ("qpos", "qvel", "act", "ctrl", "qfrc_applied", "xfrc_applied"):
        if not np.all(np.isfinite(getattr(data, what))):
            raise NonFiniteError(f"data.{what}", "has NaN or infinite entries", "give a finite state")
    if model.nflex:
        raise UnsupportedModelError(
            "model.nflex",
            f"is {model.nflex}: the model has deformable flexes",
            "import a model without flexes (their constraints are not mapped)",
        )
    m, d = _working_copy(mujoco, model, data)
    return _Importer(
        mujoco,
        m,
        d,
        drift=drift,
        frictionloss=frictionloss,
        torsional=torsional,
        modes=_mode_overrides(modes, d.ncon),
        velocity_tol=velocity_tol,
        name=name,
    ).run()


def _choice(option: str, value, allowed: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise UnknownValueError(option, f"is {value!r}", f"use one of {', '.join(repr(a) for a in allowed)}")


def _mode_overrides(modes, ncon: int) -> dict[int, str]:
    if modes is None:
        return {}
    if not isinstance(modes, Mapping):
        raise WrongTypeError("modes", f"is a {type(modes).__name__}", "give a dict {MuJoCo contact index: mode}")
    out = {}
    for k, v in modes.items():
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < ncon:
            raise UnknownValueError(
                f"modes[{k!r}]",
                f"is not a contact index of the state ({ncon} contacts)",
                f"give indices of data.contact, 0 … {ncon - 1}",
            )
        _choice(f"modes[{k}]", v, MODE_OVERRIDES)
        out[int(k)] = v
    return out


def data_at_state(model, data, target):
    """A fresh ``MjData`` of ``target`` (a copy of ``model`` with other options or parameters) at ``data``'s full
    integration state (``mj_getState`` / ``mj_setState`` of ``mjSTATE_INTEGRATION``), after ``mj_forward``."""
    mujoco = _mujoco()
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    state = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, data, state, spec)
    d = mujoco.MjData(target)
    mujoco.mj_setState(target, d, state, spec)
    mujoco.mj_forward(target, d)
    return d


def _working_copy(mujoco, model, data):
    """A copy of ``model`` with elliptic cones and a dense Jacobian (sparse above
    :data:`~gaussqp.settings.MUJOCO_DENSE_COORDINATES_MAX` coordinates), and fresh data at ``data``'s state."""
    m = copy.deepcopy(model)
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    sparse = model.nv > MUJOCO_DENSE_COORDINATES_MAX
    m.opt.jacobian = mujoco.mjtJacobian.mjJAC_SPARSE if sparse else mujoco.mjtJacobian.mjJAC_DENSE
    return m, data_at_state(model, data, m)


# quaternions (w, x, y, z), Hamilton product
def _qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ]
    )


def _flush(a) -> np.ndarray:
    """``a`` with entries below :data:`~gaussqp.settings.ABS_ENTRY_MIN` in magnitude set to 0: MuJoCo leaves
    round-off such as 1e-69 in its arrays, which is a zero in any units and which gaussqp refuses as data."""
    a = np.array(a, dtype=float)
    a[np.abs(a) < ABS_ENTRY_MIN] = 0.0
    return a


def _flush_sparse(A) -> sp.csr_matrix:
    """:func:`_flush` of a sparse matrix (CSR, explicit zeros removed)."""
    A = sp.csr_matrix(A, dtype=float, copy=True)
    A.data[np.abs(A.data) < ABS_ENTRY_MIN] = 0.0
    A.eliminate_zeros()
    return A


def _norm(row) -> float:
    """Euclidean (Frobenius) norm of a dense or sparse row block."""
    return float(np.linalg.norm(row.data if sp.issparse(row) else row))


def sparse_constraint_rows(mujoco_data, nv: int) -> sp.csr_matrix:
    """MuJoCo's constraint Jacobian ``efc_J`` of a model with ``opt.jacobian = sparse`` as a CSR matrix
    (``efc_J_rownnz``, ``efc_J_rowadr``, ``efc_J_colind``: row ``i`` holds ``rownnz[i]`` entries from ``rowadr[i]``)."""
    d = mujoco_data
    k = int(d.nefc)
    nnz = np.array(d.efc_J_rownnz[:k], dtype=np.int64)
    adr = np.array(d.efc_J_rowadr[:k], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(nnz)])
    pos = np.repeat(adr - indptr[:-1], nnz) + np.arange(int(indptr[-1]))
    vals = np.array(d.efc_J)[pos]
    cols = np.array(d.efc_J_colind)[pos]
    return _flush_sparse(sp.csr_matrix((vals, cols, indptr), shape=(k, nv)))


def sparse_mass_matrix(mujoco_model, mujoco_data) -> sp.csr_matrix:
    """MuJoCo's joint-space inertia as a symmetric CSR matrix, from its sparse lower triangle ``data.M`` (pattern
    ``model.M_rownnz``, ``M_rowadr``, ``M_colind``, diagonal included): the matrix ``mj_fullM`` densifies."""
    m, d = mujoco_model, mujoco_data
    nv = int(m.nv)
    nnz = np.array(m.M_rownnz, dtype=np.int64)
    adr = np.array(m.M_rowadr, dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(nnz)])
    pos = np.repeat(adr - indptr[:-1], nnz) + np.arange(int(indptr[-1]))
    L = sp.csr_matrix((np.array(d.M)[pos], np.array(m.M_colind)[pos], indptr), shape=(nv, nv))
    return _flush_sparse(L + sp.tril(L, k=-1).T)


def _pure(v):
    return np.array([0.0, v[0], v[1], v[2]])


def _conj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


class _Importer:
    """One import: reads the working copy ``(m, d)`` after ``mj_forward``."""

    def __init__(self, mujoco, m, d, *, drift, frictionloss, torsional, modes, velocity_tol, name):
        self.mj, self.m, self.d = mujoco, m, d
        self.drift, self.frictionloss, self.torsional, self.modes = drift, frictionloss, torsional, modes
        self.name = name
        nv = m.nv
        self.nv = nv
        # rows and M sparse above MUJOCO_DENSE_COORDINATES_MAX coordinates (the working copy's Jacobian is sparse)
        self.sparse = nv > MUJOCO_DENSE_COORDINATES_MAX
        self.J: Any
        if self.sparse:
            self.J = sparse_constraint_rows(d, nv)
            self.row_scale = float(np.abs(self.J.data).max(initial=0.0))
        else:
            self.J = _flush(np.array(d.efc_J[: d.nefc * nv]).reshape(d.nefc, nv))
            self.row_scale = float(np.abs(self.J).max()) if self.J.size else 0.0
        self.qvel = np.array(d.qvel)
        self.u = np.asarray(self.J @ self.qvel).ravel()
        self.vtol = self._velocity_tol(velocity_tol)
        self.contacts: list[Contact] = []
        self.rows: list[ImportedRow] = []
        self.left_out: list[tuple[str, str]] = []
        self.pending: list[tuple] = []  # frictional contacts, built once the problem's dimension is known

    # -------------------------------------------------------------- names and scales
    def _name(self, obj, i) -> str:
        if i < 0:
            return "world"
        return self.mj.mj_id2name(self.m, obj, int(i)) or f"#{int(i)}"

    def _velocity_tol(self, velocity_tol) -> float:
        if velocity_tol is not None:
            if (
                isinstance(velocity_tol, bool)
                or not isinstance(velocity_tol, (int, float, np.floating, np.integer))
                or not math.isfinite(velocity_tol)
                or velocity_tol < 0
            ):
                raise WrongTypeError("velocity_tol", f"is {velocity_tol!r}", "give a speed >= 0 (model units), or None")
            return float(velocity_tol)
        g = float(np.linalg.norm(self.m.opt.gravity))
        scale = math.sqrt(g * float(self.m.stat.extent))
        if scale == 0.0:
            scale = float(np.abs(self.u).max()) if self.u.size else 0.0
        return MUJOCO_VELOCITY_RTOL * scale

    # -------------------------------------------------------------- Jacobian time derivatives
    def _jacdot(self, point, body):
        jp = np.zeros((3, self.nv))
        jr = np.zeros((3, self.nv))
        self.mj.mj_jacDot(self.m, self.d, jp, jr, np.asarray(point, dtype=float), int(body))
        return jp @ self.qvel, jr @ self.qvel

    def _refuse_drift(self, what: str):
        raise UnsupportedModelError(
            what,
            "has no J̇q̇ implemented for drift='jacdot'",
            "use drift='mujoco' (MuJoCo's reference acceleration), or drop that element",
        )

    # -------------------------------------------------------------- main loop
    def run(self) -> MujocoImport:
        mj, m, d = self.mj, self.m, self.d
        M: Any
        if self.sparse:
            M = sparse_mass_matrix(m, d)
        else:
            M = np.zeros((self.nv, self.nv))
            mj.mj_fullM(m, d, M)
            M = _flush(M)
        F = _flush(-np.array(d.qfrc_smooth))
        T = mj.mjtConstraint
        i = 0
        seen_contacts = set()
        while i < d.nefc:
            t, ident = int(d.efc_type[i]), int(d.efc_id[i])
            j = i
            while j < d.nefc and int(d.efc_type[j]) == t and int(d.efc_id[j]) == ident:
                j += 1
            if t in (int(T.mjCNSTR_CONTACT_ELLIPTIC), int(T.mjCNSTR_CONTACT_FRICTIONLESS)):
                # consecutive contacts never share an id, but one contact is one block of condim rows
                j = i + int(d.contact[ident].dim)
                seen_contacts.add(ident)
                self._contact(ident, i)
            elif t == int(T.mjCNSTR_EQUALITY):
                self._equality(ident, i, j)
            elif t in (int(T.mjCNSTR_FRICTION_DOF), int(T.mjCNSTR_FRICTION_TENDON)):
                self._frictionloss(t == int(T.mjCNSTR_FRICTION_DOF), ident)
            elif t == int(T.mjCNSTR_LIMIT_JOINT):
                self._limit("joint limit", ident, i)
            elif t == int(T.mjCNSTR_LIMIT_TENDON):
                self._limit("tendon limit", ident, i)
            else:  # pyramidal rows cannot occur: the working copy has elliptic cones
                raise UnsupportedModelError(
                    f"efc_type[{i}]", f"is {t}, a constraint kind the importer does not map", "report this model"
                )
            i = j
        for k in range(d.ncon):
            if k not in seen_contacts:
                self.left_out.append(
                    (
                        self._contact_label(k),
                        "MuJoCo made no constraint of it (distance beyond the margin, or excluded)",
                    )
                )
        dim = self._finish_frictional()
        desc = (
            f"MuJoCo model {self._model_name()!r} at t = {d.time:g}: nv = {self.nv}, {d.ncon} contacts, "
            f"{d.nefc} constraint rows; drift = {self.drift}"
        )
        rows = _flush_sparse if self.sparse else _flush
        contacts = [
            dataclasses.replace(
                c,
                normal=rows(c.normal),
                normal_drift=float(_flush(c.normal_drift)),
                tangent=None if c.tangent is None else rows(c.tangent),
                tangent_drift=None if c.tangent_drift is None else _flush(c.tangent_drift),
            )
            for c in self.contacts
        ]
        name = self.name or self._model_name()
        if self.sparse:
            problem = _sparse_problem(M, F, contacts, dim, name, desc)
        else:
            problem = ContactProblem(M, F, contacts, dimension=dim, name=name, description=desc)
        options = dict(
            drift=self.drift,
            frictionloss=self.frictionloss,
            torsional=self.torsional,
            modes=dict(self.modes),
            velocity_tol=self.vtol,
        )
        return MujocoImport(
            problem=problem, rows=tuple(self.rows), left_out=tuple(self.left_out), nefc=int(d.nefc), options=options
        )

    def _model_name(self) -> str:
        return self.mj.mj_id2name(self.m, self.mj.mjtObj.mjOBJ_MODEL, 0) or "mujoco"

    def _contact_label(self, k: int) -> str:
        con = self.d.contact[k]
        g = [self._name(self.mj.mjtObj.mjOBJ_GEOM, x) for x in con.geom]
        return f"contact {k} ({g[0]}/{g[1]})"

    # -------------------------------------------------------------- rows that are no constraint
    def _frictionloss(self, dof: bool, ident: int):
        mj, m = self.mj, self.m
        if dof:
            joint = self._name(mj.mjtObj.mjOBJ_JOINT, m.dof_jntid[ident])
            what = f"model.dof_frictionloss[{ident}] (joint {joint!r})"
            value = float(m.dof_frictionloss[ident])
        else:
            tendon = self._name(mj.mjtObj.mjOBJ_TENDON, ident)
            what = f"model.tendon_frictionloss[{ident}] (tendon {tendon!r})"
            value = float(m.tendon_frictionloss[ident])
        if self.frictionloss == "refuse":
            raise UnsupportedModelError(
                what,
                f"is {value:g}: dry joint friction has no counterpart in the contact problem",
                "pass frictionloss='ignore' (CLI: --frictionloss ignore) to drop "
                "it (reported in left_out), "
                "or set frictionloss to 0 in the model",
            )
        self.left_out.append((what, f"friction loss {value:g} ignored (frictionloss='ignore')"))

    def _zero(self, row) -> bool:
        return _norm(row) <= MUJOCO_ZERO_ROW_RTOL * max(self.row_scale, float(np.finfo(float).tiny))

    # -------------------------------------------------------------- equality constraints
    def _equality(self, e: int, i: int, j: int):
        mj, m, d = self.mj, self.m, self.d
        E = mj.mjtEq
        kind = int(m.eq_type[e])
        name = self._name(mj.mjtObj.mjOBJ_EQUALITY, e)
        if kind == int(E.mjEQ_CONNECT):
            sub, drifts = "connect", (self._connect_weld_drift(e, weld=False) if self.drift == "jacdot" else None)
        elif kind == int(E.mjEQ_WELD):
            sub, drifts = "weld", (self._connect_weld_drift(e, weld=True) if self.drift == "jacdot" else None)
        elif kind == int(E.mjEQ_JOINT):
            sub, drifts = "joint", (self._polynomial_drift(e, joint=True) if self.drift == "jacdot" else None)
        elif kind == int(E.mjEQ_TENDON):
            sub, drifts = "tendon", (self._polynomial_drift(e, joint=False) if self.drift == "jacdot" else None)
        else:
            raise UnsupportedModelError(
                f"equality {name!r}",
                f"is of type {E(kind).name}",
                "the importer maps connect, weld, joint and tendon equalities only",
            )
        for k in range(j - i):
            row = self.J[i + k]
            b = float(drifts[k]) if drifts is not None else -float(d.efc_aref[i + k])
            label = f"equality {name!r} ({sub}) row {k}"
            if self._zero(row):
                self.left_out.append(
                    (label, "its row is zero (the constraint does not involve a moving degree of freedom)")
                )
                continue
            self.contacts.append(Contact("bilateral", normal=row, normal_drift=b))
            self.rows.append(ImportedRow("equality", sub, e, name, efc_address=i, component=k))

    def _anchors(self, e: int, weld: bool):
        """(point, body) of the two sides of connect/weld ``e``, as MuJoCo places them."""
        m, d, mj = self.m, self.d, self.mj
        o1, o2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
        data = np.array(m.eq_data[e])
        if int(m.eq_objtype[e]) == int(mj.mjtObj.mjOBJ_SITE):
            return (
                (np.array(d.site_xpos[o1]), int(m.site_bodyid[o1])),
                (np.array(d.site_xpos[o2]), int(m.site_bodyid[o2])),
            )
        a1, a2 = (data[3:6], data[0:3]) if weld else (data[0:3], data[3:6])
        p1 = np.array(d.xpos[o1]) + np.array(d.xmat[o1]).reshape(3, 3) @ a1
        p2 = np.array(d.xpos[o2]) + np.array(d.xmat[o2]).reshape(3, 3) @ a2
        return (p1, o1), (p2, o2)

    def _connect_weld_drift(self, e: int, weld: bool) -> np.ndarray:
        """``J̇ q̇`` of a connect (3 rows: ``p₁ − p₂``) or weld (3 more: ``s · Im(q₁⁻¹ ⊗ q₀ ⊗ q_rel)``, ``s`` its
        torquescale; its Jacobian is ``½ s Im(q₁⁻¹ ⊗ [0, ω₀ − ω₁] ⊗ q₀ q_rel)`` with world angular velocities)."""
        m, d, mj = self.m, self.d, self.mj
        (p1, b1), (p2, b2) = self._anchors(e, weld)
        a1, w1dot = self._jacdot(p1, b1)
        a2, w2dot = self._jacdot(p2, b2)
        trans = a1 - a2
        if not weld:
            return trans
        data = np.array(m.eq_data[e])
        ts = float(data[10])
        if int(m.eq_objtype[e]) == int(mj.mjtObj.mjOBJ_SITE):
            o1, o2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
            q0r = _qmul(np.array(d.xquat[b1]), np.array(m.site_quat[o1]))
            q1 = _qmul(np.array(d.xquat[b2]), np.array(m.site_quat[o2]))
        else:
            q0r = _qmul(np.array(d.xquat[b1]), data[6:10])
            q1 = np.array(d.xquat[b2])
        nq1 = _conj(q1)
        w0 = np.array(d.cvel[b1][:3])  # world-frame angular velocities
        w1 = np.array(d.cvel[b2][:3])
        dw = _pure(w0 - w1)
        # e' = ½ nq1 [0,Δω] q0r; at a = 0: e'' = ½ (nq1' [0,Δω] q0r + nq1 [0,Δω̇] q0r + nq1 [0,Δω] q0r'), with
        # q' = ½ [0,ω] q (so nq1' = −½ nq1 [0,ω₁]) and Δω̇ the bias angular accelerations of mj_jacDot
        t1 = _qmul(_qmul(-0.5 * _qmul(nq1, _pure(w1)), dw), q0r)
        t2 = _qmul(_qmul(nq1, _pure(w1dot - w2dot)), q0r)
        t3 = _qmul(_qmul(nq1, dw), 0.5 * _qmul(_pure(w0), q0r))
        rot = 0.5 * ts * (t1 + t2 + t3)[1:]
        return np.concatenate([trans, rot])

    def _polynomial_drift(self, e: int, joint: bool) -> np.ndarray:
        """``J̇ q̇`` of a joint/tendon equality ``x₁ − x₁⁰ = p(x₂ − x₂⁰)``: ``−p''(x₂ − x₂⁰) ẋ₂²`` (the rows of fixed
        tendons and of hinge/slide joints are constant)."""
        m, d, mj = self.m, self.d, self.mj
        o1, o2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
        if not joint:
            for o in (o1, o2):
                if o >= 0 and not self._fixed_tendon(o):
                    self._refuse_drift(
                        f"equality {self._name(mj.mjtObj.mjOBJ_EQUALITY, e)!r} (spatial tendon "
                        f"{self._name(mj.mjtObj.mjOBJ_TENDON, o)!r})"
                    )
        if o2 < 0:
            return np.zeros(1)
        c = np.array(m.eq_data[e])
        if joint:
            x = float(d.qpos[m.jnt_qposadr[o2]]) - float(m.qpos0[m.jnt_qposadr[o2]])
            v = float(d.qvel[m.jnt_dofadr[o2]])
        else:
            x = float(d.ten_length[o2]) - float(m.tendon_length0[o2])
            v = float(d.ten_velocity[o2])
        second = 2 * c[2] + 6 * c[3] * x + 12 * c[4] * x * x
        return np.array([-second * v * v])

    def _fixed_tendon(self, t: int) -> bool:
        adr, num = int(self.m.tendon_adr[t]), int(self.m.tendon_num[t])
        return bool(np.all(np.array(self.m.wrap_type[adr : adr + num]) == int(self.mj.mjtWrap.mjWRAP_JOINT)))

    # -------------------------------------------------------------- limits
    def _limit(self, kind: str, ident: int, i: int):
        mj, m, d = self.mj, self.m, self.d
        obj = mj.mjtObj.mjOBJ_JOINT if kind == "joint limit" else mj.mjtObj.mjOBJ_TENDON
        name = self._name(obj, ident)
        label = f"{kind} {name!r}"
        if self.drift == "jacdot":
            if kind == "joint limit":
                jt = int(m.jnt_type[ident])
                if jt not in (int(mj.mjtJoint.mjJNT_HINGE), int(mj.mjtJoint.mjJNT_SLIDE)):
                    self._refuse_drift(f"{label} (a {mj.mjtJoint(jt).name} joint limit)")
            elif not self._fixed_tendon(ident):
                self._refuse_drift(f"{label} (a spatial tendon)")
            b = 0.0
        else:
            b = -float(d.efc_aref[i])
        row = self.J[i]
        if self._zero(row):
            self.left_out.append((label, "its row is zero"))
            return
        if self.u[i] > self.vtol:
            self.left_out.append((label, f"separating: velocity {self.u[i]:.3g} > {self.vtol:.3g}"))
            return
        self.contacts.append(Contact("unilateral", normal=row, normal_drift=b))
        self.rows.append(ImportedRow(kind, "", ident, name, efc_address=i, normal_velocity=float(self.u[i])))

    # -------------------------------------------------------------- contacts
    def _contact(self, k: int, i: int):
        mj, m, d = self.mj, self.m, self.d
        con = d.contact[k]
        condim = int(con.dim)
        geoms = tuple(self._name(mj.mjtObj.mjOBJ_GEOM, g) for g in con.geom)
        label = self._contact_label(k)
        name = f"{geoms[0]}/{geoms[1]}"
        rows = self.J[i : i + condim]
        if self.drift == "jacdot":
            b1, b2 = (int(m.geom_bodyid[g]) for g in con.geom)
            a1, w1 = self._jacdot(con.pos, b1)
            a2, w2 = self._jacdot(con.pos, b2)
            frame = np.array(con.frame).reshape(3, 3)
            drift = np.concatenate([frame @ (a2 - a1), frame @ (w2 - w1)])[:condim]
        else:
            drift = -np.array(d.efc_aref[i : i + condim])
        u = self.u[i : i + condim]
        override = self.modes.get(k)
        if self._zero(rows[0]):
            self.left_out.append((label, "its normal row is zero (no relative motion of the two geoms is possible)"))
            return
        if override == "separating":
            self.left_out.append((label, "separating (modes override)"))
            return
        if override is None and u[0] > self.vtol:
            self.left_out.append((label, f"separating: normal velocity {u[0]:.3g} > {self.vtol:.3g}"))
            return
        info = dict(
            kind="contact",
            mujoco_id=k,
            name=name,
            geoms=geoms,
            efc_address=i,
            normal_velocity=float(u[0]),
            distance=float(con.dist),
        )
        if condim == 1 or override == "frictionless":
            self.contacts.append(Contact("unilateral", normal=rows[0], normal_drift=float(drift[0])))
            self.rows.append(ImportedRow(subkind="frictionless" if condim == 1 else f"condim {condim}", **info))
            if condim > 1:
                self.left_out.append((f"{label} friction rows", "made frictionless (modes override)"))
            return
        mu = np.array(con.friction[: condim - 1], dtype=float)
        keep = condim - 1
        if self.torsional == "ignore" and condim > 3:
            keep = 2
            self.left_out.append(
                (
                    f"{label} torsional/rolling rows",
                    f"condim {condim}: {condim - 3} row(s) dropped (torsional='ignore')",
                )
            )
        self.pending.append((label, condim, info, rows, drift, u, mu, keep, override))

    def _finish_frictional(self) -> int:
        """Build the frictional contacts once all are known: one dimension for the problem."""
        built = []
        condims = {}
        for label, condim, info, rows, drift, u, mu, keep, override in self.pending:
            effective = 3 if keep == 2 else condim
            condims.setdefault(effective, []).append(label)
        if len(condims) > 1:
            listing = "; ".join(
                f"condim {c}: {', '.join(v[:4])}{' …' if len(v) > 4 else ''}" for c, v in sorted(condims.items())
            )
            raise UnsupportedModelError(
                "contacts",
                f"mix frictional dimensions ({listing}): one problem has one dimension",
                "pass torsional='ignore' (CLI: --torsional ignore; torsional and "
                "rolling rows dropped, "
                "reported), or give the geoms one condim",
            )
        for label, condim, info, rows, drift, u, mu, keep, override in self.pending:
            T, c, mus = rows[1 : 1 + keep], drift[1 : 1 + keep], mu[:keep]
            isotropic = keep == 2 and mus[0] == mus[1]
            scale = np.ones(keep) if isotropic else mus
            cs = scale * c
            friction = float(mus[0]) if isotropic else 1.0
            if self.sparse:  # the SVD of the block's nonzero columns (the same singular values and vectors)
                B = sp.csr_matrix(sp.diags(scale) @ T)
                cols = np.unique(B.indices)
                U, s, Vc = np.linalg.svd(B[:, cols].toarray(), full_matrices=False)
            else:
                B = scale[:, None] * T
                U, s, Vt = np.linalg.svd(B, full_matrices=False)
            ref = _norm(rows[0]) * float(scale.max())
            r = int(np.sum(s > MUJOCO_ROW_RTOL * ref))
            speed = float(np.linalg.norm(B @ self.qvel)) / (1.0 if isotropic else float(mus[0]))
            if r == keep:
                Tr, cr, fmap = B, cs, np.diag(scale)
            else:
                if self.sparse:
                    reduced = s[:r, None] * Vc[:r]
                    Tr = sp.csr_matrix(
                        (reduced.ravel(), (np.repeat(np.arange(r), cols.size), np.tile(cols, r))), shape=(r, self.nv)
                    )
                else:
                    Tr = s[:r, None] * Vt[:r]
                cr, fmap = U[:, :r].T @ cs, scale[:, None] * U[:, :r]
            if keep < condim - 1:
                fmap = np.vstack([fmap, np.zeros((condim - 1 - keep, fmap.shape[1]))])
            info = dict(info, tangential_speed=speed)
            subkind = f"condim {condim}"
            if r == 0:
                self.left_out.append((f"{label} friction rows", "zero (friction can do no work in this model)"))
                self.contacts.append(Contact("unilateral", normal=rows[0], normal_drift=float(drift[0])))
                self.rows.append(ImportedRow(subkind=subkind, **info))
                continue
            mode = override or ("sliding" if speed > self.vtol else "sticking")
            slip = None
            if mode == "sliding":
                v = Tr @ self.qvel
                if speed <= self.vtol or not np.any(v):  # a direction from round-off is no slip direction
                    raise MissingSlipError(
                        f"modes[{info['mujoco_id']}]",
                        f"is 'sliding' for a contact at rest "
                        f"tangentially (speed {speed:.3g} <= velocity_tol {self.vtol:.3g}: no "
                        "slip direction)",
                        "give 'sticking' or 'coulomb' for it",
                    )
                slip = v / np.linalg.norm(v)
            built.append((info, subkind, rows[0], float(drift[0]), Tr, cr, friction, mode, slip, fmap, r))
        ranks = {b[-1] for b in built}
        d1 = max(ranks) if ranks else 2
        for info, subkind, n, b, Tr, cr, friction, mode, slip, fmap, r in built:
            if r < d1:  # a contact of lower rank than the others: zero rows (they carry no force)
                if self.sparse:
                    Tr = sp.vstack([Tr, sp.csr_matrix((d1 - r, self.nv))], format="csr")
                else:
                    Tr = np.vstack([Tr, np.zeros((d1 - r, self.nv))])
                cr = np.concatenate([cr, np.zeros(d1 - r)])
                fmap = np.hstack([fmap, np.zeros((fmap.shape[0], d1 - r))])
                slip = None if slip is None else np.concatenate([slip, np.zeros(d1 - r)])
            self.contacts.append(
                Contact(
                    "unilateral",
                    normal=n,
                    normal_drift=b,
                    friction=friction,
                    mode=mode,
                    tangent=Tr,
                    tangent_drift=cr,
                    slip=slip,
                )
            )
            self.rows.append(ImportedRow(subkind=subkind, force_map=fmap, **info))
        return d1 + 1


def _sparse_problem(M, F, contacts: list, dim: int, name: str, description: str) -> ContactProblem:
    """The problem of ``contacts`` whose rows are sparse (1 × n normals, (d−1) × n tangents), built from stacked
    sparse blocks (:meth:`ContactProblem.from_blocks`): what :class:`ContactProblem` makes of the same contacts
    with dense rows."""
    n = M.shape[0]
    if not contacts:
        return ContactProblem.from_blocks(
            M, F, sp.csr_matrix((0, n)), dimension=dim, name=name, description=description
        )
    Jn = sp.vstack([c.normal for c in contacts], format="csr")
    Jt = sp.vstack(
        [c.tangent if c.tangent is not None else sp.csr_matrix((dim - 1, n)) for c in contacts], format="csr"
    )
    tdrift = np.concatenate(
        [np.zeros(dim - 1) if c.tangent_drift is None else np.asarray(c.tangent_drift, float) for c in contacts]
    )
    return ContactProblem.from_blocks(
        M,
        F,
        Jn,
        np.array([c.normal_drift for c in contacts], dtype=float),
        [c.type for c in contacts],
        Jt,
        tdrift,
        np.array([c.friction for c in contacts], dtype=float),
        [c.mode for c in contacts],
        [c.slip for c in contacts],
        np.array([c.tangent is not None for c in contacts]),
        dim,
        name=name,
        description=description,
    )


# ---------------------------------------------------------------- a grasp from a simulator state


@dataclass(frozen=True)
class GraspContactSource:
    """Where one contact of :func:`read_grasp` came from: ``mujoco_id`` (index of ``data.contact``), the two
    ``geoms``, the ``other_body`` (the hand link, fingertip or table the object touches), MuJoCo's ``condim``, its
    ``distance`` (negative: penetration) and its ``friction`` 5-vector."""

    mujoco_id: int
    geoms: tuple[str, str]
    other_body: str
    condim: int
    distance: float
    friction: tuple[float, ...]


@dataclass(frozen=True)
class MujocoGrasp:
    """What :func:`read_grasp` reads, in the terms of a :class:`gaussqp.grasp.Grasp` (plain arrays: this layer does
    not build the grasp; :func:`gaussqp.grasp.grasp_from_mujoco` does).

    Per contact ``i``: ``positions[i]`` (from the object's centre of mass, world axes), the **inward** ``normals[i]``,
    ``friction[i]``, ``kinds[i]`` ("frictionless", "hard", "soft"), ``torsional[i]`` and ``sources[i]``. The hand:
    ``jacobian`` (rows per contact ``f_n, f_t₁, f_t₂[, τ]`` in the grasp's frame, columns ``hand_joints``; None without
    hand joints), ``torque_limits`` (None unless every hand joint has one), ``hand_mass_matrix`` and ``hand_force``
    (MuJoCo's ``M`` on the hand joints and ``F = −qfrc_smooth`` there: ``M q̈ + F`` is the contacts' generalized force,
    actuator torques included). ``wrench`` the external wrench on the object (weight and ``xfrc_applied``),
    ``object_mass_matrix`` its ``diag(m I, R I_body Rᵀ)`` at the centre of mass in world axes (the coordinates of the
    grasp map); ``left_out`` ``(what, why)``; ``name``, ``description``."""

    positions: np.ndarray
    normals: np.ndarray
    friction: np.ndarray
    kinds: tuple[str, ...]
    torsional: np.ndarray
    sources: tuple[GraspContactSource, ...]
    jacobian: np.ndarray | None
    torque_limits: np.ndarray | None
    hand_joints: tuple[str, ...]
    wrench: np.ndarray
    left_out: tuple[tuple[str, str], ...]
    object_body: str
    mass: float
    reference_point: np.ndarray
    name: str
    description: str
    hand_mass_matrix: np.ndarray | None = None
    hand_force: np.ndarray | None = None
    object_mass_matrix: np.ndarray | None = None


def _body_id(mujoco, model, body) -> int:
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or str(b) for b in range(1, model.nbody)]
    fix = f"use one of {names[:20]}" + (" ..." if len(names) > 20 else "")
    if isinstance(body, (int, np.integer)) and not isinstance(body, bool):
        if 1 <= body < model.nbody:
            return int(body)
        raise UnknownValueError("object_body", f"is {body}, not a body index of the model (1..{model.nbody - 1})", fix)
    if isinstance(body, str):
        b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
        if b > 0:
            return b
        raise UnknownValueError("object_body", f"is {body!r}, not a body of the model", fix)
    raise WrongTypeError("object_body", f"is a {type(body).__name__}", "give the object's body name (or index)")


def _actuated_limit(mujoco, m, j: int) -> float | None:
    """The largest |joint torque| the actuators of joint ``j`` can apply: the joint's ``actuatorfrcrange`` when
    limited; else, summed over its joint-transmission actuators, ``|gear| max|forcerange|`` (force-limited) or
    ``|gear · gain| max|ctrlrange|`` (a motor: fixed gain, no bias, control-limited); None when an actuator's force
    is not bounded that way (a position servo without a force range); 0 when nothing actuates the joint."""
    if bool(m.jnt_actfrclimited[j]):
        return float(np.max(np.abs(m.jnt_actfrcrange[j])))
    total = 0.0
    for a in range(m.nu):
        if int(m.actuator_trntype[a]) != int(mujoco.mjtTrn.mjTRN_JOINT) or int(m.actuator_trnid[a, 0]) != j:
            continue
        gear = abs(float(m.actuator_gear[a, 0]))
        if bool(m.actuator_forcelimited[a]):
            total += gear * float(np.max(np.abs(m.actuator_forcerange[a])))
        elif (
            bool(m.actuator_ctrllimited[a])
            and int(m.actuator_gaintype[a]) == int(mujoco.mjtGain.mjGAIN_FIXED)
            and int(m.actuator_biastype[a]) == int(mujoco.mjtBias.mjBIAS_NONE)
        ):
            total += gear * abs(float(m.actuator_gainprm[a, 0])) * float(np.max(np.abs(m.actuator_ctrlrange[a])))
        else:
            return None
    return total


def read_grasp(model, data, object_body, *, name: str | None = None) -> MujocoGrasp:
    """The grasp on ``object_body`` at the state of ``data``, as arrays: every MuJoCo contact
    between one of the object's geoms and anything else (hand links, fingertips, the table), the hand's Jacobian and
    torque limits, and the object's weight as the external wrench. :func:`gaussqp.grasp.grasp_from_mujoco` makes
    the :class:`~gaussqp.grasp.Grasp` of it.

    - Positions are ``contact.pos`` relative to the object's centre of mass ``xipos`` (world axes); the **inward**
      normal is MuJoCo's ``contact.frame[0]`` (which points from ``geom1`` to ``geom2``) when the object is ``geom2``,
      its opposite when it is ``geom1``.
    - ``condim 1`` → ``frictionless``; ``3`` → ``hard`` with ``μ = friction[0]``; ``4`` → ``soft`` with
      ``μ = friction[0]`` and ``μ_t = friction[2]`` (MuJoCo's elliptic cone ``(f_t/μ)² + (τ/μ_t)² <= f_n²`` is the
      soft finger's cone exactly); ``6`` → ``soft`` with the rolling rows left out (reported). The grasp's cones are
      Coulomb's (circular): a model with ``opt.cone = pyramidal`` simulates with MuJoCo's inscribed pyramid instead.
      Anisotropic friction (``friction[0] != friction[1]``) is refused.
    - The external wrench is the object's weight ``(1 − gravcomp) m g`` plus ``xfrc_applied`` (both at the centre
      of mass). Bodies attached to the object are not part of it: only the geoms of ``object_body`` itself count.
    - The hand: every degree of freedom that is not the object's; per contact the rows ``(n, t₁, t₂[, n_rot])`` of
      the Jacobian of the *other* body's point at the contact (``mj_jac``), in the grasp's frame
      (:func:`gaussqp.mechanics.frames.tangent_basis`): the joint torques that hold contact forces ``f`` are ``Jᵀf``
      (a contact with the world has zero rows). ``torque_limits`` come from the actuators (:func:`_actuated_limit`)
      when every hand joint has one; otherwise the hand has no limits and the joints without one are reported.

    Raises
    ------
    UnknownValueError
        ``object_body`` is not a body of the model, or no contact involves it at this state.
    UnsupportedModelError
        A contact with anisotropic friction.
    """
    from ..mechanics.frames import tangent_basis

    mujoco = _mujoco()
    m = model
    b = _body_id(mujoco, m, object_body)
    d = data_at_state(m, data, m)
    body_name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) or str(b)
    com = np.array(d.xipos[b], dtype=float)
    hand_dofs = [k for k in range(m.nv) if int(m.dof_bodyid[k]) != b]
    pos, nrm, mus, kinds, muts, sources, rows, left_out = [], [], [], [], [], [], [], []
    for k in range(d.ncon):
        con = d.contact[k]
        g1, g2 = (int(g) for g in con.geom)
        b1, b2 = int(m.geom_bodyid[g1]), int(m.geom_bodyid[g2])
        if (b1 == b) == (b2 == b):
            continue
        if int(getattr(con, "exclude", 0)) != 0:  # in the margin gap or otherwise excluded: no constraint
            continue
        gname = tuple(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom {g}" for g in (g1, g2))
        other = b1 if b2 == b else b2
        frame = np.array(con.frame, dtype=float).reshape(3, 3)
        n = frame[0] if b2 == b else -frame[0]
        n = n / np.linalg.norm(n)
        condim = int(con.dim)
        fr = tuple(float(v) for v in con.friction)
        label = f"contact {k} ({gname[0]}/{gname[1]})"
        if condim == 1:
            kind, mu, mut = "frictionless", 0.0, 0.0
        else:
            if abs(fr[0] - fr[1]) > MUJOCO_GRASP_ANISOTROPY_RTOL * max(abs(fr[0]), abs(fr[1])):
                raise UnsupportedModelError(
                    f"contact {k}",
                    f"({gname[0]}/{gname[1]}) has anisotropic friction {fr[0]:g}, {fr[1]:g}",
                    "give the two geoms equal sliding friction (the grasp's cones are isotropic)",
                )
            kind, mu, mut = ("hard", fr[0], 0.0) if condim == 3 else ("soft", fr[0], fr[2])
            if condim == 6:
                left_out.append(
                    (
                        f"{label} rolling friction",
                        "condim 6: the rolling rows have no grasp counterpart (kept as a soft finger)",
                    )
                )
            if kind == "soft" and not (mu > 0 and mut > 0):
                kind, mut = "hard", 0.0
                left_out.append((f"{label} torsional friction", "is 0: a hard finger"))
            if mu == 0:
                kind = "frictionless"
        pos.append(np.array(con.pos, dtype=float) - com)
        nrm.append(n)
        mus.append(mu)
        kinds.append(kind)
        muts.append(mut)
        sources.append(
            GraspContactSource(
                k,
                gname,
                mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, other) or str(other),
                condim,
                float(con.dist),
                fr,
            )
        )
        jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
        mujoco.mj_jac(m, d, jacp, jacr, np.array(con.pos, dtype=float), other)
        dirs = [n] + (list(tangent_basis(n)) if kind != "frictionless" else [])
        block = [v @ jacp for v in dirs] + ([n @ jacr] if kind == "soft" else [])
        rows += [r[hand_dofs] for r in block]
    if not pos:
        raise UnknownValueError(
            "object_body",
            f"is {body_name!r}, which touches nothing at this state ({d.ncon} MuJoCo contacts, none with its geoms)",
            "give a state where the hand holds it (a keyframe, qpos, or settle steps)",
        )
    names = tuple(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, int(m.dof_jntid[k])) or f"dof {k}" for k in hand_dofs)
    J, tl, Mh, Fh = None, None, None, None
    if hand_dofs:
        Mfull = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, Mfull)
        Mh = Mfull[np.ix_(hand_dofs, hand_dofs)]
        Fh = -np.array(d.qfrc_smooth, dtype=float)[hand_dofs]
        J = np.array(rows, dtype=float).reshape(len(rows), len(hand_dofs))
        limits = [_actuated_limit(mujoco, m, int(m.dof_jntid[k])) for k in hand_dofs]
        for jn, lim in zip(names, limits):
            if lim is None:
                left_out.append(
                    (
                        f"joint {jn}",
                        "its actuator force is not bounded (no force or control range with "
                        "a fixed gain): the hand has no torque limits",
                    )
                )
        tl = None if any(v is None for v in limits) else np.array(limits, dtype=float)
    gc = float(m.body_gravcomp[b]) if hasattr(m, "body_gravcomp") else 0.0
    mass = float(m.body_mass[b])
    wrench = np.concatenate([(1.0 - gc) * mass * np.array(m.opt.gravity, dtype=float), np.zeros(3)])
    wrench += np.array(d.xfrc_applied[b], dtype=float)
    R = np.array(d.ximat[b], dtype=float).reshape(3, 3)  # the inertia frame: body_inertia is diagonal there
    Mo = np.zeros((6, 6))
    Mo[:3, :3] = mass * np.eye(3)
    Mo[3:, 3:] = R @ np.diag(np.array(m.body_inertia[b], dtype=float)) @ R.T
    model_name = bytes(m.names).split(b"\0", 1)[0].decode("utf-8", "replace") or "mujoco"  # names[0]: the model's
    return MujocoGrasp(
        np.array(pos),
        np.array(nrm),
        np.array(mus),
        tuple(kinds),
        np.array(muts),
        tuple(sources),
        J,
        tl,
        names,
        wrench,
        tuple(left_out),
        body_name,
        mass,
        com,
        name or f"{model_name}:{body_name}",
        f"MuJoCo contacts of body {body_name!r} at t = {float(d.time):g}",
        Mh,
        Fh,
        Mo,
    )


__all__ += ["GraspContactSource", "MujocoGrasp", "read_grasp"]
