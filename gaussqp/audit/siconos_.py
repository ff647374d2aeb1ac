"""The Siconos adapter of the audit: a Siconos frictional-contact solver's answer on an FCLIB problem as an
:class:`~gaussqp.audit.core.EngineState`.

The answer is the reaction ``r`` (``m·d``: contact blocks (normal, t1[, t2]) in the problem's contact order and
frame, FCLIB's convention) of the problem's local form ``u = W r + q`` with Coulomb's law in De Saxcé's form
(Acary, Brémond, Huber 2018, §2). It comes from a Siconos solver run through the study's peer machinery
(:func:`gaussqp.studies.peers.run_peer`: Siconos in its own interpreter, never imported here), or from a file of
answers (an FCLIB ``/solution/r`` as :func:`gaussqp.io.fclib.save_solution` writes it, or an ``.npz`` with ``r``).
Nothing of the answer but ``r`` is trusted: the velocity ``u`` and the acceleration are recomputed from the data.

- **Global problem** (``/fclib_global``, read by :func:`gaussqp.io.fclib.load` as acceleration-level data,
  ``a ≡ v``): contact ``j``'s forces are ``λ_n,j = r_{dj}``, ``λ_t,j = r_{dj+1 … dj+d−1}`` (its rows are ``H``'s
  columns), the engine acceleration ``a_e = M⁻¹(Jᵀr − F)`` (:func:`gaussqp.formulations.coulomb.condense`), its
  relative velocity ``u = J a_e + w``. The rigid problem is the file's problem itself.
- **Local problem** (``/fclib_local``): no mass matrix or coordinates, and :func:`gaussqp.force_ranges` takes a
  :class:`~gaussqp.ContactProblem`. When ``W`` is symmetric positive semidefinite (to
  :data:`~gaussqp.settings.AUDIT_LIFT_RTOL`) the problem is audited through its exact *lift* (:func:`lift`):
  ``W = L Lᵀ`` with ``L`` (``m·d × k``, ``k = rank W``) of full column rank, ``M = I_k``, ``J = L``, and ``q`` split
  into ``L c + q⊥`` (``c = L⁺q``): ``F = −c``, drifts ``q⊥``. Then ``a = Lᵀr + c`` and ``u = L a + q⊥ = W r + q``
  for every ``r``, and since ``L`` is injective, fixing ``a`` is fixing ``u``: the lift's force set at an
  acceleration is the local problem's set of reactions at that velocity, its envelopes are the local problem's.
  The acceleration gap is ``‖r_e − r‖_W / ‖q‖_{W⁺}`` in local terms. A non-symmetric ``W`` (FCLIB's Capsules:
  gyroscopic terms) has no such lift (:func:`lift` raises :class:`~gaussqp.errors.NotApplicableError`): :func:`audit`
  then keeps what needs no envelope — our certified local answer, our judge's verdict on ``r``, each contact's
  Coulomb residual, the velocity gap — and reports the envelopes and the acceleration gap as not available
  (``envelope_not_available``), with no number made up for them.

Per contact, the slip direction of the engine's answer is its tangential velocity ``u_T,j`` when
``‖u_T,j‖`` exceeds :data:`~gaussqp.settings.AUDIT_CREEP_RTOL` times the contact's tangent-row data scale
(:func:`gaussqp.model.scales.data_scales`); the state's velocity scale is the largest row scale. An FCLIB problem
is one time step: there is no impact to flag (``velocity_tol = 0``), and "creep" reads "the engine has it slipping
where the rigid answer holds it sticking".

Run: ``gaussqp audit FILE.hdf5 --engine siconos:fc3d_nsgs`` (or ``--answer FILE``); in Python
``gaussqp.audit.siconos_.audit("problems/data/fclib_generated/quadruped-s0-i0007-m12.hdf5", solver="fc3d_nsgs")``.
"""

from __future__ import annotations

import pathlib
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import (
    FileFormatError,
    InputError,
    NonFiniteError,
    NotApplicableError,
    ShapeError,
    UnknownValueError,
    WrongTypeError,
)
from ..io.gaussqp_format import read_npz_arrays
from ..model.local_problem import LocalContactProblem
from ..model.problem import ContactProblem
from ..settings import AUDIT_CREEP_RTOL, AUDIT_LIFT_RTOL, SCALE_FLOOR
from .core import AuditReport, EngineContact, EngineState, audit_states

__all__ = ["SICONOS_SOLVERS", "audit", "engine_state", "judge_answer", "lift", "read_answer", "run"]

#: the Siconos solvers whose answer is a reaction ``r`` of the local friction form (the study's fc2d/fc3d peers;
#: the LCP peers answer the constrained LCP, not ``r``), by their short name
SICONOS_SOLVERS = ("fc2d_nsgs", "fc2d_lemke", "fc3d_nsgs", "fc3d_prox", "fc3d_nsn_ac")


def lift(local: LocalContactProblem) -> tuple[ContactProblem, str]:
    """The exact global lift of a local problem with a symmetric positive semidefinite ``W`` (module docstring):
    ``M = I_k``, ``J = L`` (``W = L Lᵀ``), ``F = −L⁺q``, drifts ``q − L L⁺q``; and a note of what it reproduces.

    Notes
    -----
    ``L = D⁻¹ V_k Σ_k^{1/2}`` from the eigendecomposition of the Jacobi-scaled ``D (W + Wᵀ)/2 D`` (``D =
    diag(W)^{-1/2}``: unit diagonal), keeping the eigenvalues above :data:`~gaussqp.settings.AUDIT_LIFT_RTOL` times
    the largest (at least 1, the diagonal); symmetry and the reproduction of W are judged entry by entry against
    ``sqrt(W_ii W_jj)``. ``u = L(Lᵀr + c) + q⊥ = W r + q`` (Acary, Brémond,
    Huber 2018, eq. (2): ``W = H M⁻¹ Hᵀ``, here with ``H = L``, ``M = I``).

    Raises
    ------
    gaussqp.errors.NotApplicableError
        ``W`` is not symmetric or not positive semidefinite at :data:`~gaussqp.settings.AUDIT_LIFT_RTOL` (the lift
        does not exist: the local problem's force envelopes are not available).
    """
    if not isinstance(local, LocalContactProblem):
        raise WrongTypeError("problem", f"is a {type(local).__name__}", "give a gaussqp.LocalContactProblem")
    W = local.W.toarray() if sp.issparse(local.W) else np.asarray(local.W, dtype=float)
    d, m = local.dimension, local.m
    # every decision at the entries' own scale sqrt(W_ii W_jj) (a PSD matrix has |W_ij| <= that), never max|W|:
    # a contact whose block is 1e-12 of the largest keeps its own rows (the Jacobi-scaled W̃ = D W D has a unit
    # diagonal; a zero diagonal entry keeps scale 1, and a PSD W has a zero row there)
    diag = np.diag(W).copy()
    bad = np.flatnonzero((diag <= 0) & (np.abs(W).max(axis=1) > 0))
    if bad.size:  # a PSD matrix with W_ii <= 0 has W_ii = 0 and a zero row i
        i = int(bad[0])
        raise NotApplicableError(
            f"W: its diagonal entry W[{i},{i}] = {diag[i]:.3g} is not positive while row {i} is not zero: W is not "
            "positive semidefinite, so it is no Delassus operator H M⁻¹ Hᵀ and has no global lift"
        )
    scale = np.sqrt(np.where(diag > 0, diag, 0.0))
    dinv = np.where(scale > 0, 1.0 / np.where(scale > 0, scale, 1.0), 1.0)
    entry = np.maximum(np.outer(scale, scale), SCALE_FLOOR)
    asym = float((np.abs(W - W.T) / entry).max(initial=0.0))
    if asym > AUDIT_LIFT_RTOL:
        raise NotApplicableError(
            f"W: its asymmetry |W_ij − W_ji| reaches {asym:.3g} of sqrt(W_ii W_jj) (above "
            f"AUDIT_LIFT_RTOL = {AUDIT_LIFT_RTOL:g}): a non-symmetric Delassus operator is no "
            "H M⁻¹ Hᵀ with a symmetric M, so the local problem has no global lift and its force "
            "envelopes are not available"
        )
    Ws = dinv[:, None] * ((W + W.T) / 2) * dinv[None, :]
    s, V = np.linalg.eigh(Ws)
    if s.size and s.min() < -AUDIT_LIFT_RTOL * max(float(s.max()), 1.0):
        raise NotApplicableError(
            f"W: the Jacobi-scaled W (unit diagonal) has the eigenvalue {s.min():.3g} below "
            f"zero (AUDIT_LIFT_RTOL = {AUDIT_LIFT_RTOL:g}): W is not positive semidefinite, so "
            "it is no Delassus operator H M⁻¹ Hᵀ and has no global lift"
        )
    keep = s > AUDIT_LIFT_RTOL * max(float(s.max(initial=0.0)), 1.0)
    L = (V[:, keep] * np.sqrt(s[keep])) / dinv[:, None]
    # the eigenvectors leave round-off (5e-56 in a generated box pile) where L is 0: below eps of its row's scale
    L[np.abs(L) < np.finfo(float).eps * scale[:, None]] = 0.0
    k = int(keep.sum())
    err = float((np.abs(W - L @ L.T) / entry).max(initial=0.0))
    # the kept eigenvalues reproduce the scaled W to (dropped ones) · rtol · s_max <= n² rtol per entry; beyond that
    # the lift is another problem (a zero or negative diagonal entry whose row is not zero: W is not PSD)
    if not err <= W.shape[0] ** 2 * AUDIT_LIFT_RTOL:
        raise NotApplicableError(
            f"W: its lift L Lᵀ differs from it by {err:.3g} of sqrt(W_ii W_jj) (above n² AUDIT_LIFT_RTOL = "
            f"{W.shape[0] ** 2 * AUDIT_LIFT_RTOL:.3g}): W is not positive semidefinite entry by entry (a zero or "
            "negative diagonal entry with a nonzero row), so it has no global lift"
        )
    q = np.asarray(local.q, dtype=float)
    # any c gives an exact lift (u = L(Lᵀr + c) + q − L c = W r + q); this one leaves in q⊥ only what the kept
    # scaled eigenvectors do not span
    c = (V[:, keep].T @ (dinv * q)) / np.sqrt(s[keep])
    q_perp = q - L @ c
    q_perp[np.abs(q_perp) < np.finfo(float).eps * (np.abs(q) + np.abs(L) @ np.abs(c))] = 0.0
    normal = np.arange(m) * d
    tangent = (normal[:, None] + np.arange(1, d)[None, :]).ravel()
    mu = np.asarray(local.mu, dtype=float)
    modes = ["coulomb" if x > 0 else "frictionless" for x in mu]
    p = ContactProblem.from_blocks(
        np.eye(k),
        -c,
        L[normal],
        q_perp[normal],
        ["unilateral"] * m,
        L[tangent],
        q_perp[tangent],
        mu,
        modes,
        None,
        np.ones(m, dtype=bool),
        dimension=d,
        name=local.name or "local problem",
        description="the global lift of a local problem",
    )
    note = (
        f"W lifted as L Lᵀ (rank {k} of {m * d}); |W − L Lᵀ| reaches {err:.2g} of sqrt(W_ii W_jj), q⊥ "
        f"{float(np.abs(q_perp).max(initial=0.0)):.2g}"
    )
    return p, note


def _problem(problem) -> tuple[ContactProblem, tuple, str]:
    """(the rigid problem, left_out notes, name) of a path, a ContactProblem or a LocalContactProblem."""
    name = ""
    if isinstance(problem, (str, pathlib.Path)):
        from ..io.fclib import load

        name = str(problem)
        problem = load(problem)
    if isinstance(problem, LocalContactProblem):
        p, note = lift(problem)
        return p, (("W", note),), name or problem.name
    if not isinstance(problem, ContactProblem):
        raise WrongTypeError(
            "problem",
            f"is a {type(problem).__name__}",
            "give an FCLIB file, a gaussqp.ContactProblem or a gaussqp.LocalContactProblem",
        )
    bad = [
        i
        for i in range(problem.m)
        if problem.types[i] != "unilateral" or problem.modes[i] not in ("coulomb", "frictionless")
    ]
    if bad:
        raise NotApplicableError(
            f"contacts {bad[:8]}: bilateral, sticking or sliding; a Siconos answer r is of the "
            "local friction form of unilateral contacts with Coulomb's law (FCLIB without G)"
        )
    return problem, (), name or problem.name


def read_answer(source, size: int) -> np.ndarray:
    """The reaction ``r`` of an answer file, checked: an FCLIB ``.hdf5`` with ``/solution/r``
    (:func:`gaussqp.io.fclib.save_solution`), an ``.npz`` with ``r``, or an array. ``size`` is ``m·d``.

    Raises
    ------
    gaussqp.errors.FileFormatError, ShapeError, NonFiniteError
        The file is missing or unreadable; ``r`` is not a vector of ``size``; ``r`` has NaN entries.
    """
    if isinstance(source, (str, pathlib.Path)):
        path = pathlib.Path(source)
        if not path.is_file():
            raise FileFormatError(
                str(path), "does not exist or is not a file", "give an .hdf5 with /solution/r or an .npz with r"
            )
        if path.suffix.lower() == ".npz":
            try:
                z = read_npz_arrays(path, fix="save the reaction as numpy.savez(path, r=r)")
                if "r" not in z:
                    raise FileFormatError(
                        f"{path}:r",
                        f"is missing (the file has {sorted(z)})",
                        "save the reaction as numpy.savez(path, r=r)",
                    )
                r = np.asarray(z["r"])
            except InputError:
                raise
            except Exception as exc:  # noqa: BLE001 - any reader failure is a file-format error
                raise FileFormatError(
                    str(path),
                    f"is not a readable .npz ({type(exc).__name__})",
                    "save the reaction as numpy.savez(path, r=r)",
                ) from None
        elif path.suffix.lower() in (".hdf5", ".h5"):
            r = _read_hdf5(path)
        else:
            raise FileFormatError(
                str(path), f"has the extension {path.suffix!r}", "give an .hdf5 with /solution/r or an .npz with r"
            )
    else:
        r = np.asarray(source)
    if r.dtype.kind not in "iuf":
        raise WrongTypeError("r", f"has dtype {r.dtype}", "give real numbers")
    r = np.asarray(r, dtype=float)
    if r.ndim != 1 or r.size != size:
        raise ShapeError(
            "r",
            f"has shape {r.shape}, the problem needs ({size},) (m·d: blocks (normal, t1[, t2]))",
            "give the reaction of this problem",
        )
    if not np.all(np.isfinite(r)):
        raise NonFiniteError(
            "r",
            f"has NaN or infinite entries (entry {int(np.flatnonzero(~np.isfinite(r))[0])})",
            "give a finished answer",
        )
    return r


def _read_hdf5(path: pathlib.Path) -> np.ndarray:
    try:
        import h5py
    except ImportError as exc:  # exercised only without the extra
        from ..errors import MissingExtraError

        raise MissingExtraError(
            "reading an FCLIB answer needs the optional extra: pip install 'gaussqp[fclib]'"
        ) from exc
    try:
        fh = h5py.File(str(path), "r")
    except OSError:
        raise FileFormatError(str(path), "is not an HDF5 file", "give an FCLIB file with /solution/r") from None
    with fh:
        link = fh.get("solution/r", getlink=True)
        if link is None:
            raise FileFormatError(
                f"{path}:/solution/r",
                "is missing",
                "write the answer with gaussqp.io.fclib.save_solution(path, r=…, u=…)",
            )
        if not isinstance(link, h5py.HardLink):
            raise FileFormatError(
                f"{path}:/solution/r", "is a link (external and soft links are refused)", "store the dataset itself"
            )
        ds = fh["solution/r"]
        if not isinstance(ds, h5py.Dataset) or ds.dtype.kind not in "iuf" or ds.ndim != 1:
            raise FileFormatError(
                f"{path}:/solution/r",
                "is not a one-dimensional dataset of real numbers",
                "write r as float64, as fclib_write_solution does",
            )
        return np.asarray(ds[()], dtype=float)


def _blocks(p: ContactProblem):
    """(J, drift) of the contacts in blocks (normal, t1[, t2]) and the condensed form that recovers ``a``."""
    from ..formulations.coulomb import condense, contact_blocks

    J, drift, _ = contact_blocks(p)
    return J, drift, condense(p)


def engine_state(problem, r, *, step: int = 0, time_: float = 0.0, engine: str = "siconos") -> EngineState:
    """An engine's reaction ``r`` on a frictional-contact problem and the rigid problem, as an
    :class:`~gaussqp.audit.core.EngineState` (module docstring).

    Parameters
    ----------
    problem : an FCLIB file, a :class:`~gaussqp.ContactProblem` (unilateral contacts, modes ``coulomb`` or
        ``frictionless``) or a :class:`~gaussqp.LocalContactProblem` (audited through :func:`lift`)
    r : (m·d,) array or an answer file (:func:`read_answer`)
        The reaction, contact blocks (normal, t1[, t2]) in the problem's order and frame.
    step, time_, engine : the state's labels

    Returns
    -------
    EngineState
        Its ``engine_acceleration`` is ``a_e = M⁻¹(Jᵀr − F)`` (of the lift for a local problem), each contact's
        ``engine_normal``/``engine_tangent`` the blocks of ``r``, its slip the recomputed ``u_T`` (module docstring).
    """
    from ..model.scales import data_scales

    p, left_out, _ = _problem(problem)
    d, m = p.dimension, p.m
    r = read_answer(r, m * d)
    J, drift, cd = _blocks(p)
    a_e = np.asarray(cd.MinvJt @ r).ravel() + np.asarray(cd.a_free).ravel()
    u = np.asarray(J @ a_e).ravel() + drift
    sc = data_scales(p)
    d1 = d - 1
    rows = [float(np.linalg.norm(sc.tangent_row[i * d1 : (i + 1) * d1])) for i in range(m)]
    vscale = max([float(np.max(sc.normal_row, initial=0.0))] + rows + [SCALE_FLOOR])
    R, U = r.reshape(m, d), u.reshape(m, d)
    contacts = []
    for i in range(m):
        ut = U[i, 1:]
        speed = float(np.linalg.norm(ut))
        slipping = speed > AUDIT_CREEP_RTOL * max(rows[i], SCALE_FLOOR) and bool(p.has_tangent[i])
        contacts.append(
            EngineContact(
                i,
                f"contact {i}",
                "contact",
                None,
                None,
                float(p.friction[i]),
                float(R[i, 0]),
                R[i, 1:].copy(),
                R[i, 1:3].copy(),
                speed,
                slipping,
                -1,
                ut / speed if slipping else None,
                float(U[i, 0]),
            )
        )
    return EngineState(
        time=float(time_),
        step=int(step),
        contacts=contacts,
        engine_acceleration=a_e,
        velocity_scale=vscale,
        gravity=vscale,
        problem=p,
        left_out=left_out,
        engine=engine,
        velocity_tol=0.0,
    )


def _solver_name(solver: str) -> str:
    short = str(solver).removeprefix("siconos:").removeprefix("siconos_")
    if short not in SICONOS_SOLVERS:
        raise UnknownValueError(
            "solver", f"is {solver!r}, not a Siconos friction solver", f"use one of {', '.join(SICONOS_SOLVERS)}"
        )
    return "siconos_" + short


def run(
    problem, solver: str | None = None, *, tolerance="high", time_limit: float | None = None
) -> tuple[np.ndarray | None, dict]:
    """Run a Siconos friction solver on ``problem`` (a path, a ContactProblem or a LocalContactProblem) through the
    study's peer machinery (:func:`gaussqp.studies.peers.run_peer`: Siconos in its own interpreter) and return its
    reaction ``r`` (None when it gave none: time-out, crash) and its report (Siconos's ``info``, iterations, own
    error, its claim and the study judge's verdict on it). ``solver`` defaults to NSGS of the problem's dimension.

    Raises
    ------
    gaussqp.errors.MissingExtraError
        Siconos cannot be run here (``apt-get install python3-siconos`` or ``GAUSSQP_SICONOS_PYTHON``).
    gaussqp.errors.UnknownValueError, NotApplicableError
        An unknown solver; a solver of the other dimension.
    """
    from ..settings import STUDY_TIME_LIMIT
    from ..studies.peers import resolve_peers, run_peer

    if isinstance(problem, (str, pathlib.Path)):
        from ..io.fclib import load

        problem = load(problem)
    name = _solver_name(solver or f"fc{problem.dimension}d_nsgs")
    resolve_peers("siconos")  # raises MissingExtraError saying how to install it
    run_ = run_peer(problem, name, tolerance=tolerance, time_limit=time_limit or STUDY_TIME_LIMIT)
    report = {
        "solver": name,
        "claimed_success": run_.claimed_success,
        "judged_a_solution": run_.confirmed,
        **run_.report,
        "times": run_.times,
    }
    sol: Any = run_.solution  # a judged Solution (its forces are the peer's r, never polished) or None
    if sol is None or sol.lambda_normal is None:
        return None, report
    lam_n = np.asarray(sol.lambda_normal, dtype=np.float64).reshape(-1, 1)
    R = np.hstack([lam_n, np.asarray(sol.lambda_tangent, dtype=np.float64).reshape(lam_n.shape[0], -1)])
    return R.ravel(), report


def _engine_answer(problem, size: int, answer, solver, tolerance, time_limit):
    """``(r, engine, report, failed)``: the reaction read from ``answer`` or computed by Siconos's ``solver`` on
    ``problem``; ``failed`` is the error state to report when Siconos gave none (timed out, crashed), else None."""
    from .core import StateAudit

    if answer is not None:
        engine = "answer file" if isinstance(answer, (str, pathlib.Path)) else "answer"
        return read_answer(answer, size), engine, {}, None
    r, report = run(problem, solver, tolerance=tolerance, time_limit=time_limit)
    engine = report["solver"]
    if r is not None:
        return r, engine, report, None
    why = "timed out" if report.get("timeout") else report.get("crash", "gave no answer")
    st = StateAudit.failed(0.0, 0, f"Siconos {why}")
    return None, engine, report, st


def audit(
    problem,
    *,
    solver: str | None = None,
    answer=None,
    tolerance="high",
    crosscheck: bool = False,
    time_limit: float | None = None,
) -> AuditReport:
    """Audit a Siconos answer on an FCLIB problem against rigid mechanics: the certified rigid answer (mode-free
    Coulomb), its force envelopes, and per contact Siconos's normal force against its envelope, its friction against
    the largest rigid one, its Coulomb residual, "creep" (sticking for us, slipping for Siconos); per state the
    acceleration (velocity, for FCLIB's step problems) gap.

    Parameters
    ----------
    problem : an FCLIB ``.hdf5`` path, a :class:`~gaussqp.ContactProblem` or a :class:`~gaussqp.LocalContactProblem`
    solver : a Siconos friction solver (:data:`SICONOS_SOLVERS`, e.g. ``"fc3d_nsgs"``; default NSGS of the
        problem's dimension), run by :func:`run`; ignored when ``answer`` is given
    answer : a reaction ``r`` or a file of it (:func:`read_answer`), instead of running Siconos
    tolerance : the preset of the Siconos run and of the rigid solve
    crosscheck : passed to :func:`gaussqp.solve`

    Returns
    -------
    AuditReport
        One state; ``options["siconos"]`` holds Siconos's own report (its claim, ``info``, iterations, own error).
    """
    t0 = time.perf_counter()
    original, name = problem, ""
    if isinstance(problem, (str, pathlib.Path)):
        from ..io.fclib import load

        original, name = load(problem), str(problem)
    try:
        p, left_out, pname = _problem(original)
    except NotApplicableError as exc:
        if not isinstance(original, LocalContactProblem):
            raise
        return _audit_local(
            original, name, str(exc), solver=solver, answer=answer, tolerance=tolerance, time_limit=time_limit, t0=t0
        )
    r, engine, report, failed = _engine_answer(original, p.m * p.dimension, answer, solver, tolerance, time_limit)
    if failed is not None:
        failed.left_out = left_out
        return AuditReport(name or pname, engine, [failed], time.perf_counter() - t0, {"siconos": report})
    state = engine_state(p, r, engine=engine)
    state.left_out = left_out
    results = audit_states([state], crosscheck=crosscheck, tolerance=tolerance)
    judged = judge_answer(p, r, tolerance)
    _explain(results[0], judged, report)
    return AuditReport(
        name or pname,
        engine,
        results,
        time.perf_counter() - t0,
        {"siconos": report, "tolerance": tolerance, "crosscheck": crosscheck},
    )


def judge_answer(problem, r, tolerance="high"):
    """Our judge's verdict on the reaction ``r`` as an answer of ``problem`` (a ContactProblem; a local problem's
    lift): the :class:`~gaussqp.results.Solution` of ``a = M⁻¹(Jᵀr − F)`` with its recomputed dynamics and
    natural-map residuals, judged by :func:`gaussqp.certificates.judge.finalize` as the study judges a peer's answer
    and F8 its own (no polishing: it judges the engine's answer, not ours)."""
    from ..certificates.judge import finalize
    from ..formulations.coulomb import LocalAnswer, condense, global_solution
    from ..settings import get_tolerance

    p, _, _ = _problem(problem)
    r = read_answer(r, p.m * p.dimension)
    cd = condense(p)
    u = np.asarray(cd.W @ r).ravel() + np.asarray(cd.q).ravel()  # recomputed, not the engine's own u
    ans = LocalAnswer(r, u, 0, 0, [], "engine", "solved", {})
    return finalize(global_solution(p, cd, ans, "engine answer"), get_tolerance(tolerance))


#: the per-contact flags that compare the engine with *our* solution's force set: when the engine's answer is
#: another certified solution they say "another solution", not "wrong"
_RELATIVE = ("outside_envelope", "friction_above_envelope", "creep", "acceleration_gap")


def _explain(st, judged, report: dict) -> None:
    """Our judge's verdict on the engine's answer into the state audit: a certified solution of the rigid problem
    whose acceleration differs from ours by more than :data:`~gaussqp.settings.AUDIT_WITNESS_RTOL` is a witness
    (to the judge's residual tolerance) that the rigid problem has several solutions when our solve left uniqueness
    undecided or refuted: the acceleration is then reported not unique, and the per-contact comparisons with our
    solution's force set are relabelled ``other_solution``. When our solve certified uniqueness, the contradiction
    is flagged ``certified_answers_disagree`` and nothing is relabelled."""
    from ..settings import AUDIT_WITNESS_RTOL

    certified = bool(judged.certified and str(judged.status) == "solved")
    st.engine_answer = {
        "certified_solution": certified,
        "judged_status": str(judged.status),
        "residuals": {k: float(v) for k, v in judged.residuals.items() if v is not None},
        "claimed_success": report.get("claimed_success"),
    }
    if report.get("claimed_success") and not certified:
        st.flags.append(
            "claimed_success_not_certified: Siconos claims success (info 0) and our judge rejects its answer"
        )
    if not certified:
        st.flags.append(
            f"engine_answer_not_a_solution: our judge does not certify the engine's answer "
            f"({judged.status}; residuals "
            + ", ".join(f"{k} {v:.2g}" for k, v in st.engine_answer["residuals"].items())
            + ")"
        )
        return
    gap = st.engine_acceleration_gap
    if gap is None or gap <= AUDIT_WITNESS_RTOL:
        return
    if st.acceleration_unique:  # our solve certified a unique acceleration: the two certificates contradict
        st.flags.append(
            f"certified_answers_disagree: our solve certifies a unique acceleration, and the engine's "
            f"answer, certified by our judge to its tolerance, lies {gap:.3g} of the free acceleration "
            "away: the residual tolerance is too loose for this problem's conditioning"
        )
        return
    st.acceleration_unique, st.acceleration = False, None
    st.flags = ["other_solution:" + f.split(":", 1)[1] if f.split(":")[0] in _RELATIVE else f for f in st.flags]
    for c in st.contacts:
        c.flags = ["other_solution:" + f.split(":", 1)[1] if f.split(":")[0] in _RELATIVE else f for f in c.flags]
    st.flags.append(
        f"several_rigid_solutions: the engine's answer is a certified solution of the rigid problem "
        f"whose acceleration differs from ours by {gap:.3g} of the free acceleration's, far above both "
        "answers' residual tolerance (a witness, to that tolerance: the acceleration is not unique); the "
        "per-contact comparisons are with our solution's force set"
    )


def _audit_local(
    local: LocalContactProblem, name: str, why: str, *, solver, answer, tolerance, time_limit, t0: float
) -> AuditReport:
    """The audit of a local problem without a lift (a non-symmetric or indefinite ``W``): what stays available
    without force envelopes — our certified answer of the local problem (:func:`gaussqp.solve`), our judge's verdict
    on the engine's reaction (:func:`gaussqp.formulations.coulomb.local_solution`), each contact's Coulomb residual
    at the engine's own velocity ``u = W r + q`` and the velocity gap ``‖u_e − u‖∞ / ‖q‖∞``; the envelopes and the
    acceleration gap are None, and the state says why (``envelope_not_available``)."""
    from ..certificates.judge import finalize
    from ..dispatch import solve
    from ..formulations.coulomb import LocalAnswer, local_solution
    from ..linalg.dense import as_dense
    from ..settings import AUDIT_COULOMB_RTOL, get_tolerance
    from .core import ContactAudit, StateAudit, coulomb_residual

    d, m = local.dimension, local.m
    r, engine, report, failed = _engine_answer(local, m * d, answer, solver, tolerance, time_limit)
    if failed is not None:
        return AuditReport(name or local.name, engine, [failed], time.perf_counter() - t0, {"siconos": report})
    W = as_dense(local.W)
    q = np.asarray(local.q, dtype=float)
    u_e = W @ r + q
    t1 = time.perf_counter()
    sol = solve(local, tolerance=tolerance)
    u = np.asarray(sol.velocity, dtype=float) if sol.velocity is not None else None
    vscale = max(float(np.abs(q).max(initial=0.0)), float((np.abs(W) @ np.abs(r)).max(initial=0.0)), SCALE_FLOOR)
    R, U = r.reshape(m, d), u_e.reshape(m, d)
    ours = None if sol.lambda_normal is None else np.asarray(sol.lambda_normal, dtype=float)
    fscale = max(
        float(np.abs(R[:, 0]).max(initial=0.0)),
        float(np.abs(ours).max(initial=0.0)) if ours is not None else 0.0,
        SCALE_FLOOR,
    )
    flags = [f"envelope_not_available: {why}"]
    contacts = []
    for i in range(m):
        ut = U[i, 1:]
        speed = float(np.linalg.norm(ut))
        slip = ut / speed if speed > AUDIT_CREEP_RTOL * vscale else None
        resid = coulomb_residual(float(R[i, 0]), R[i, 1:], float(local.mu[i]), slip) / fscale
        mode = None
        if u is not None:
            ui = u.reshape(m, d)[i]
            mode = (
                "separating"
                if ui[0] > AUDIT_CREEP_RTOL * vscale
                else "sliding"
                if float(np.linalg.norm(ui[1:])) > AUDIT_CREEP_RTOL * vscale
                else "sticking"
            )
        cflags = [f"coulomb_violation: residual {resid:.3g} of the force scale"] if resid > AUDIT_COULOMB_RTOL else []
        flags.extend(f"{f.split(':')[0]}: contact {i}: {f.split(':', 1)[1].strip()}" for f in cflags)
        contacts.append(
            ContactAudit(
                i,
                f"contact {i}",
                None,
                "contact",
                mode,
                float(R[i, 0]),
                (None, None),
                (None, None),
                float(np.linalg.norm(R[i, 1:3])),
                None,
                resid,
                None,
                False,
                speed,
                None,
                cflags,
            )
        )
    st = StateAudit(
        0.0,
        0,
        str(sol.status),
        bool(sol.certified),
        None,
        sol.unique.get("acceleration"),
        None,
        None,
        contacts,
        flags,
        sol.formulation,
        None,
        time.perf_counter() - t1,
        fscale,
        (("W", why),),
        sol.message,
    )
    judged = finalize(
        local_solution(local, LocalAnswer(r, u_e, 0, 0, [], "engine", "solved", {}), "engine answer"),
        get_tolerance(tolerance),
    )
    _explain(st, judged, report)
    if st.engine_answer is not None and u is not None:
        st.engine_answer["velocity_gap"] = float(np.abs(u_e - u).max(initial=0.0)) / max(
            float(np.abs(q).max(initial=0.0)), SCALE_FLOOR
        )
    return AuditReport(
        name or local.name,
        engine,
        [st],
        time.perf_counter() - t0,
        {"siconos": report, "tolerance": tolerance, "envelopes": "not available: " + why},
    )
