"""The MuJoCo adapter of the audit: MuJoCo states and MuJoCo's answers as
:class:`~gaussqp.audit.core.EngineState`.

States: the model's default or a keyframe, then ``qpos``/``qvel``, then ``settle`` steps (as
:func:`gaussqp.io.mujoco.load_mujoco`); then either that one state, a rollout of ``steps`` of MuJoCo's own
simulation (``mj_step`` with the data's controls, or a ``controller(model, data)`` that sets them before each step),
or a recording: arrays ``qpos`` (K × nq), ``qvel`` (K × nv), optionally ``ctrl`` (K × nu), ``act`` (K × na) and
``time`` (K), from an ``.npz`` or a ``.csv`` whose columns are ``qpos_0 … qvel_0 … ctrl_0 … time``.

Each state is brought to ``mj_forward`` (MuJoCo's answer at it: ``qacc``, ``efc_force``) and imported by
:func:`gaussqp.io.mujoco.import_mujoco`: contacts moving tangentially faster than ``velocity_tol`` whose MuJoCo
friction is on its cone (at least :data:`~gaussqp.settings.AUDIT_CREEP_CONE_FRACTION` of it) slide with their slip
direction; every other frictional contact gets mode ``coulomb`` (stick or slip decided by the rigid solver). A
contact that moves while MuJoCo's friction stays well inside its cone is *creeping* (the regularized friction of a
soft contact, not Coulomb sliding): the rigid problem poses it at rest, so that the rigid answer says whether
friction holds it — and when it does, the audit reports MuJoCo's motion as creep, not as a rigid slip.
MuJoCo's forces are read per contact with ``mj_contactForce`` in the contact frame (normal, the two sliding
components, torsional, rolling: any cone type, pyramidal or elliptic, condim 1/3/4/6) and mapped onto the problem's
coordinates through each contact's ``force_map`` (``λ_t`` by least squares, exact in its range); the sliding friction
reported is ``force_map[:2] λ_t`` against the rigid ``max ‖force_map[:2] λ_t‖``. Rows of equalities and limits read
``efc_force`` at their address (contacts come last in MuJoCo's rows, so the address is the same for both cones).
"""

from __future__ import annotations

import math
import pathlib
import time

import numpy as np

from ..errors import (
    FileFormatError,
    InputError,
    InputTooLargeError,
    NonFiniteError,
    ShapeError,
    UnsupportedModelError,
    WrongTypeError,
)
from ..io.gaussqp_format import read_npz_arrays
from ..settings import AUDIT_CREEP_CONE_FRACTION, AUDIT_STATES_MAX, MUJOCO_VELOCITY_RTOL
from .core import AuditReport, EngineContact, EngineState, audit_states, check_count_argument

__all__ = ["audit", "engine_state", "read_recording", "states"]


def _mujoco():
    try:
        import mujoco
    except ImportError as exc:  # exercised only without the extra
        from ..errors import MissingExtraError

        raise MissingExtraError(
            "gaussqp audit of MuJoCo needs the optional extra: pip install 'gaussqp[mujoco]'"
        ) from exc
    return mujoco


def read_recording(source, model) -> dict[str, np.ndarray]:
    """A recorded rollout as arrays checked against ``model``: ``{"qpos": K × nq, "qvel": K × nv, "ctrl", "act",
    "time"}`` (``qpos`` and ``qvel`` required, with at least one state; missing optional arrays are absent). ``source``: an ``.npz`` or ``.csv`` path or a dict of arrays.
    Sizes that do not match the model raise :class:`~gaussqp.errors.ShapeError`, NaN or infinite entries
    :class:`~gaussqp.errors.NonFiniteError`."""
    if isinstance(source, (str, pathlib.Path)):
        p = pathlib.Path(source)
        if not p.is_file():
            raise FileFormatError(str(p), "does not exist or is not a file", "give an .npz or .csv recording")
        if p.suffix.lower() == ".npz":
            try:
                arrays = read_npz_arrays(p, fix="write it with numpy.savez(qpos=…, qvel=…, ctrl=…)")
                rec = {k: np.asarray(v, dtype=float) for k, v in arrays.items()}
            except InputError:
                raise
            except Exception as exc:  # noqa: BLE001 - any reader failure is a file-format error
                raise FileFormatError(
                    str(p),
                    f"is not a readable .npz ({type(exc).__name__}: {exc})",
                    "write it with numpy.savez(qpos=…, qvel=…, ctrl=…)",
                ) from None
        elif p.suffix.lower() == ".csv":
            rec = _read_csv(p)
        else:
            raise FileFormatError(str(p), f"has the extension {p.suffix!r}", "give an .npz or .csv recording")
    elif isinstance(source, dict):
        rec = {k: np.asarray(v, dtype=float) for k, v in source.items()}
    else:
        raise WrongTypeError("recording", f"is a {type(source).__name__}", "give an .npz/.csv path or a dict of arrays")
    for name in ("qpos", "qvel"):  # the state: the modes are read from the velocities, none is assumed at rest
        if name not in rec:
            raise ShapeError(
                "recording", f"has no {name}", "record qpos (K × nq) and qvel (K × nv) (a state at rest: qvel = 0)"
            )
    qpos = np.atleast_2d(rec["qpos"])
    if qpos.ndim != 2 or qpos.shape[0] == 0 or qpos.size == 0:
        raise ShapeError("recording qpos", f"has shape {np.shape(rec['qpos'])}: no state", "record one row per state")
    K = qpos.shape[0]
    want = {"qpos": model.nq, "qvel": model.nv, "ctrl": model.nu, "act": model.na}
    out = {}
    for name, size in want.items():
        if name not in rec:
            continue
        v = np.asarray(rec[name], dtype=float)
        v = v.reshape(K, -1) if v.ndim == 1 and size == 1 and v.size == K else np.atleast_2d(v)
        if v.shape != (K, size):
            raise ShapeError(
                f"recording {name}",
                f"has shape {v.shape}, the model needs ({K}, {size}) ({name} of size {size} per state)",
                f"record {name} of this model, one row per state",
            )
        out[name] = v
    if "time" in rec:
        t = np.asarray(rec["time"], dtype=float).ravel()
        if t.shape != (K,):
            raise ShapeError("recording time", f"has {t.size} entries for {K} states", "one time per state")
        out["time"] = t
    for name, v in out.items():
        bad = np.flatnonzero(~np.all(np.isfinite(v.reshape(K, -1)), axis=1))
        if bad.size:
            raise NonFiniteError(
                f"recording {name}", f"has NaN or infinite entries (state {int(bad[0])})", "give finite states"
            )
    if K > AUDIT_STATES_MAX:
        raise InputTooLargeError("recording", f"has {K} states", f"audit at most {AUDIT_STATES_MAX}")
    return out


def _read_csv(p: pathlib.Path) -> dict[str, np.ndarray]:
    import csv

    with open(p, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise FileFormatError(str(p), "is empty", "write a header (qpos_0, …, qvel_0, …) and one row per state")
    head = [h.strip() for h in rows[0]]
    if not any(r for r in rows[1:]):
        raise FileFormatError(str(p), "has a header but no state", "write one row per state below the header")
    try:
        data = np.array([[float(x) for x in r] for r in rows[1:] if r], dtype=float)
    except ValueError as exc:
        raise FileFormatError(str(p), f"has a non-number ({exc})", "numbers only below the header") from None
    if data.size and data.shape[1] != len(head):
        raise ShapeError(str(p), f"has rows of {data.shape[1]} numbers for {len(head)} columns", "one per column")
    rec = {}
    for name in ("qpos", "qvel", "ctrl", "act"):
        cols = sorted(
            (int(h.split("_", 1)[1]), j)
            for j, h in enumerate(head)
            if h.startswith(name + "_") and h.split("_", 1)[1].isdigit()
        )
        if cols:
            rec[name] = data[:, [j for _, j in cols]]
    if "time" in head:
        rec["time"] = data[:, head.index("time")]
    return rec


def engine_state(
    model,
    data,
    *,
    step: int = 0,
    drift: str = "jacdot",
    frictionloss: str = "refuse",
    torsional: str = "exact",
    velocity_tol: float | None = None,
) -> EngineState:
    """MuJoCo's state ``data`` (brought to ``mj_forward``) and its answer, with the rigid problem (module
    docstring)."""
    mujoco = _mujoco()
    from ..io.mujoco import import_mujoco

    mujoco.mj_forward(model, data)
    opts = dict(drift=drift, frictionloss=frictionloss, torsional=torsional, velocity_tol=velocity_tol)
    first = import_mujoco(model, data, **opts)
    f6 = np.zeros(6)
    modes, engine_slip = {}, {}
    for r, c in zip(first.rows, first.problem.contacts):
        if r.kind != "contact":
            continue
        if c.mode == "sticking":
            modes[r.mujoco_id] = "coulomb"
        elif c.mode == "sliding":
            engine_slip[r.mujoco_id] = np.array(c.slip, dtype=float)
            if _friction_ratio(mujoco, model, data, r.mujoco_id, f6) < AUDIT_CREEP_CONE_FRACTION:
                modes[r.mujoco_id] = "coulomb"  # creep: the engine holds it inside its cone yet it moves
    imp = import_mujoco(model, data, modes=modes, **opts) if modes else first
    p = imp.problem
    contacts = []
    efc = np.array(data.efc_force)
    for i, row in enumerate(imp.rows):
        if row.kind == "contact":
            con = data.contact[row.mujoco_id]
            mujoco.mj_contactForce(model, data, row.mujoco_id, f6)
            fn = float(f6[0])
            lt = ftan = P = None
            if row.force_map is not None and bool(p.has_tangent[i]):
                fm = np.asarray(row.force_map)
                k, r = fm.shape
                lt = np.zeros(p.dimension - 1)
                lt[:r] = np.linalg.lstsq(fm[:, :r], f6[1 : 1 + k], rcond=None)[0]
                P = np.zeros((min(2, k), p.dimension - 1))
                P[:, :r] = fm[: min(2, k), :r]
                ftan = np.array(f6[1 : 1 + min(2, k)])
            contacts.append(
                EngineContact(
                    i,
                    row.name,
                    "contact",
                    row.geoms,
                    P,
                    float(con.friction[0]),
                    fn,
                    lt,
                    ftan,
                    float(row.tangential_speed),
                    row.mujoco_id in engine_slip,
                    row.mujoco_id,
                    engine_slip.get(row.mujoco_id),
                )
            )
        else:
            contacts.append(
                EngineContact(
                    i,
                    f"{row.kind} {row.name}" + (f" [{row.component}]" if row.component else ""),
                    row.kind,
                    None,
                    None,
                    0.0,
                    float(efc[row.efc_address + row.component]),
                )
            )
        contacts[-1].normal_velocity = float(row.normal_velocity)
    # MuJoCo contacts left out of the rigid problem because they separate at the state's velocity: no rigid force
    inside = {row.mujoco_id for row in imp.rows if row.kind == "contact"}
    vtol = float(imp.options.get("velocity_tol", 0.0))
    for k in range(int(data.ncon)):
        con = data.contact[k]
        if k in inside or con.efc_address < 0:
            continue
        mujoco.mj_contactForce(model, data, k, f6)
        condim = int(con.dim)
        names = tuple(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, int(g)) or f"#{int(g)}" for g in con.geom)
        vel = _contact_velocity(mujoco, model, data, con)
        contacts.append(
            EngineContact(
                -1,
                f"{names[0]}/{names[1]}",
                "contact",
                names,
                None,
                float(con.friction[0]),
                float(f6[0]),
                None,
                np.array(f6[1 : min(3, condim)]) if condim > 1 else None,
                float(np.linalg.norm(vel[1:3])),
                False,
                k,
                None,
                float(vel[0]),
            )
        )
    g = float(np.linalg.norm(model.opt.gravity))
    vscale = math.sqrt(g * float(model.stat.extent)) or 1.0
    return EngineState(
        time=float(data.time),
        step=step,
        contacts=contacts,
        engine_acceleration=np.array(data.qacc),
        velocity_scale=vscale,
        gravity=g or 1.0,
        problem=p,
        left_out=tuple((w, why) for w, why in imp.left_out),
        velocity_tol=vtol,
    )


def _contact_velocity(mujoco, model, data, con) -> np.ndarray:
    """The relative velocity of geom 2's body w.r.t. geom 1's at the contact point, in the contact frame
    (normal, tangent 1, tangent 2)."""
    v = np.zeros(3)
    for sign, g in ((-1.0, con.geom[0]), (1.0, con.geom[1])):
        jp = np.zeros((3, model.nv))
        mujoco.mj_jac(model, data, jp, None, np.asarray(con.pos, dtype=float), int(model.geom_bodyid[int(g)]))
        v += sign * (jp @ np.asarray(data.qvel))
    return np.asarray(con.frame, dtype=float).reshape(3, 3) @ v


def _friction_ratio(mujoco, model, data, k: int, f6) -> float:
    """MuJoCo's friction of contact ``k`` relative to its cone: ``‖(f_j / μ_j)_j‖ / f_n`` (1 on the cone)."""
    con = data.contact[k]
    condim = int(con.dim)
    mujoco.mj_contactForce(model, data, k, f6)
    if condim == 1 or f6[0] <= 0:
        return 1.0
    mu = np.array(con.friction[: condim - 1], dtype=float)
    return float(np.linalg.norm(f6[1:condim] / np.where(mu > 0, mu, np.inf))) / float(f6[0])


def _load(model, keyframe, qpos, qvel, settle):
    mujoco = _mujoco()
    from ..io.mujoco import state_vector, load_mujoco

    if isinstance(model, (str, pathlib.Path)):
        return load_mujoco(model, keyframe=keyframe, qpos=qpos, qvel=qvel, settle=settle)
    if isinstance(model, tuple) and len(model) == 2:
        m, d = model
    elif isinstance(model, mujoco.MjModel):
        m, d = model, mujoco.MjData(model)
        if keyframe is not None:
            k = (
                keyframe
                if isinstance(keyframe, (int, np.integer))
                else mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, str(keyframe))
            )
            if not 0 <= int(k) < m.nkey:
                from ..errors import UnknownValueError

                raise UnknownValueError(
                    "keyframe",
                    f"is {keyframe!r}, not a keyframe of the model",
                    f"give a name or an index below {m.nkey}",
                )
            mujoco.mj_resetDataKeyframe(m, d, int(k))
    else:
        raise WrongTypeError(
            "model", f"is a {type(model).__name__}", "give a model file, a mujoco.MjModel or (MjModel, MjData)"
        )
    if qpos is not None:  # checked as the file path's state is (load_mujoco): a wrong size is a ShapeError
        d.qpos[:] = state_vector("qpos", qpos, m.nq)
    if qvel is not None:
        d.qvel[:] = state_vector("qvel", qvel, m.nv)
    if settle:
        mujoco.mj_step(m, d, int(settle))
    for what in ("qpos", "qvel"):
        if not np.all(np.isfinite(getattr(d, what))):
            raise NonFiniteError(f"data.{what}", "has NaN or infinite entries", "give a finite state")
    mujoco.mj_forward(m, d)
    return m, d


def states(
    model,
    *,
    keyframe=None,
    qpos=None,
    qvel=None,
    settle: int = 0,
    steps: int = 0,
    every: int = 1,
    recording=None,
    controller=None,
    drift: str = "jacdot",
    frictionloss: str = "refuse",
    torsional: str = "exact",
    velocity_tol: float | None = None,
):
    """The audit's :class:`EngineState` of a MuJoCo model, one by one (module docstring): the start state, then
    every ``every``-th of ``steps`` MuJoCo steps, or every row of ``recording``. Yields ``(count, iterator)``'s
    items lazily; :func:`audit` collects them."""
    for field_name, value, least in (("settle", settle, 0), ("every", every, 1)):
        check_count_argument(field_name, value, least)
    mujoco = _mujoco()
    m, d = _load(model, keyframe, qpos, qvel, settle)
    opts = dict(drift=drift, frictionloss=frictionloss, torsional=torsional, velocity_tol=velocity_tol)
    if recording is not None:
        rec = read_recording(recording, m)
        for k in range(rec["qpos"].shape[0]):
            d.qpos[:] = rec["qpos"][k]
            d.qvel[:] = rec["qvel"][k]
            if "ctrl" in rec:
                d.ctrl[:] = rec["ctrl"][k]
            if "act" in rec:
                d.act[:] = rec["act"][k]
            if "time" in rec:
                d.time = float(rec["time"][k])
            yield _safe_state(m, d, k, opts, first=k == 0)
        return
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise WrongTypeError("steps", f"is {steps!r}", "give a number of MuJoCo steps, an integer >= 0")
    if steps > AUDIT_STATES_MAX:
        raise InputTooLargeError("steps", f"is {steps}", f"audit at most {AUDIT_STATES_MAX} states")
    yield _safe_state(m, d, 0, opts, first=True)
    bad = int(mujoco.mjtWarning.mjWARN_BADQACC)
    for k in range(1, steps + 1):
        if controller is not None:
            controller(m, d)
        mujoco.mj_step(m, d)
        if int(d.warning[bad].number):
            raise UnsupportedModelError(
                "steps",
                f"the simulation went unstable at step {k} (MuJoCo reset its state)",
                "audit fewer steps, or a stabler model / timestep",
            )
        if k % max(int(every), 1) == 0:
            yield _safe_state(m, d, k, opts, first=False)


def _safe_state(m, d, k, opts, first):
    """The state, or (after the first, whose errors are the model's and propagate) a state carrying its error."""
    from ..errors import GaussQPError

    try:
        return engine_state(m, d, step=k, **opts)
    except GaussQPError as exc:
        if first:
            raise
        return EngineState(
            time=float(d.time),
            step=k,
            contacts=[],
            engine_acceleration=np.array(d.qacc),
            velocity_scale=1.0,
            gravity=1.0,
            error=f"{type(exc).__name__}: {exc}",
        )


def audit(
    model,
    *,
    keyframe=None,
    qpos=None,
    qvel=None,
    settle: int = 0,
    steps: int = 0,
    every: int = 1,
    recording=None,
    controller=None,
    drift: str = "jacdot",
    frictionloss: str = "refuse",
    torsional: str = "exact",
    velocity_tol: float | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    progress: bool = False,
    crosscheck: bool = False,
    tolerance: str = "high",
) -> AuditReport:
    """Audit MuJoCo's contact answers against rigid mechanics, at one state or along a rollout.

    Parameters
    ----------
    model
        a MuJoCo model file (``.xml``/``.mjb``), a ``mujoco.MjModel``, or ``(MjModel, MjData)`` (its state)
    keyframe, qpos, qvel, settle
        the start state (:func:`gaussqp.io.mujoco.load_mujoco`)
    steps, every
        audit the start state and every ``every``-th state of ``steps`` MuJoCo steps (its controls as in
        the data, or set by ``controller(model, data)`` before each step)
    recording
        instead, the recorded states (``.npz``/``.csv`` path or dict: ``qpos``, ``qvel``, ``ctrl``, ``act``,
        ``time``; :func:`read_recording`)
    drift, frictionloss, torsional, velocity_tol
        the importer's options (:func:`gaussqp.io.mujoco.import_mujoco`);
        tangential speeds up to ``velocity_tol`` (default :data:`~gaussqp.settings.MUJOCO_VELOCITY_RTOL` of
        ``sqrt(‖g‖ · extent)``) are at rest for the rigid problem, so MuJoCo's creep is audited as creep
    workers, scheduler, progress
        a local process pool, Dask ("tcp://…" or "local"), a tqdm bar
    crosscheck, tolerance
        passed to :func:`gaussqp.solve` for each rigid answer

    Returns
    -------
    AuditReport
        Every state's :class:`~gaussqp.audit.core.StateAudit` and the summary; its ``as_dict()`` is the JSON of
        ``gaussqp audit MODEL --json``.
    """
    t0 = time.perf_counter()
    mujoco = _mujoco()
    gen = states(
        model,
        keyframe=keyframe,
        qpos=qpos,
        qvel=qvel,
        settle=settle,
        steps=steps,
        every=every,
        recording=recording,
        controller=controller,
        drift=drift,
        frictionloss=frictionloss,
        torsional=torsional,
        velocity_tol=velocity_tol,
    )
    collected = list(gen)
    name = str(model) if isinstance(model, (str, pathlib.Path)) else "mujoco model"
    results = audit_states(
        collected, workers=workers, scheduler=scheduler, progress=progress, crosscheck=crosscheck, tolerance=tolerance
    )
    opts = dict(
        keyframe=keyframe,
        settle=settle,
        steps=steps,
        every=every,
        drift=drift,
        frictionloss=frictionloss,
        torsional=torsional,
        velocity_tol=velocity_tol,
        workers=workers,
        crosscheck=crosscheck,
        tolerance=tolerance,
        velocity_rtol=MUJOCO_VELOCITY_RTOL,
        mujoco=mujoco.__version__,
    )
    return AuditReport(name, "mujoco", results, time.perf_counter() - t0, opts)
