"""Command line: ``gaussqp solve|check|info|import|grasp|audit|crossval|peer|report|list|formulations``.

``solve``, ``check`` and ``info`` read any file :mod:`gaussqp.io.open_file` reads (gaussqp/1 JSON or NPZ,
FCLIB HDF5, a MuJoCo model, a URDF through Pinocchio) or a shipped problem's name (``solve --ranges`` adds the
certified force envelopes); ``import`` writes a model's problem at a state to a gaussqp/1 or FCLIB file;
``grasp`` analyses a grasp (closure, ε, hold) with certificates; ``audit`` compares a MuJoCo state or rollout (or a
Siconos answer of an FCLIB problem, ``--engine siconos``) with
the certified rigid answer; ``crossval`` runs a cross-validation study over a problem set (with Siconos as a peer),
``peer`` runs one peer solver on one problem, ``report`` rebuilds a study's report; ``list`` names the shipped
problems and grasps; ``formulations`` the routes, backends and tolerance presets.

Exit codes: 0 for a certified answer (including certified infeasibility or
unboundedness), 1 for an uncertified one (inaccurate, failed, cross-check disagreement),
2 for bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

from . import __version__
from .backends import BACKENDS, installed
from .certificates.report import check
from .dispatch import BRACKET_MODES, PREFERENCES, solve
from .errors import FileFormatError, GaussQPError, NotApplicableError, UnknownValueError, UnsupportedFormatError
from .linalg.dense import as_dense, normalize_rows
from .io.gaussqp_format import dump
from .io.open_file import (
    LIBRARY,
    ImportOptions,
    Opened,
    by_suffix,
    check_options,
    open_problem,
    reader_names,
    reader_suffixes,
    readers_help,
)
from .formulations import FORMULATIONS
from .jsonable import to_jsonable
from .model.system_class import RANK_REFUSED
from .results import certificate_lines
from .results import format_value as _fmt
from .settings import DEFAULT, DEFAULT_FACETS, PRESETS, RANK_RTOL, STRUCTURAL_N_MAX, STUDY_TIME_LIMIT

DEFAULT_PROBLEM = "rod_wall_guide"


def _options(args) -> ImportOptions:
    return ImportOptions(
        keyframe=args.keyframe,
        qpos=args.qpos,
        qvel=args.qvel,
        tau=args.tau,
        settle=args.settle,
        drift=args.drift,
        frictionloss=args.frictionloss,
        torsional=args.torsional,
        floating_base=args.floating_base,
        contacts=tuple(args.contact),
    )


def _open(args) -> Opened:
    """A file of any reader (:data:`gaussqp.io.open_file.FILE_READERS`), or the name of a shipped problem."""
    spec = args.file
    if Path(spec).exists() or by_suffix(Path(spec).suffix) is not None:
        return open_problem(spec, _options(args), importer=args.importer)
    from . import problems  # the library only when a name is given (installed, or a source tree's problems/)

    check_options(LIBRARY, _options(args))
    return Opened(problems.load(spec), LIBRARY.name, source=f"gaussqp.problems {spec!r}")


def _load(args, local_ok: bool = False):
    """The contact problem of ``args.file``; an FCLIB local (Delassus) problem only where ``local_ok`` (``solve``:
    the mode-free Coulomb route solves it; ``check`` has no structural report for it)."""
    opened = _open(args)
    _print_left_out(opened)
    if not local_ok:
        _needs_mass(
            opened.problem,
            f"{args.file}: a {{form}} problem ({{detail}}) is read, but the structural report "
            "needs a mass matrix; 'gaussqp solve' solves it, 'gaussqp info' describes it",
        )
    return opened.problem


def _needs_mass(problem, message: str) -> None:
    """NotApplicableError(``message`` with ``{form}``, ``{detail}`` filled) unless ``problem`` has a mass matrix (the
    global form, ``M a + F = Jᵀλ``): the one test of a problem's form in the CLI (the structural report, force
    envelopes and the gaussqp/1 JSON writer need M)."""
    if problem.form != "global":
        raise NotApplicableError(message.format(form=problem.form, detail=problem.summary().detail))


def _print_left_out(opened: Opened) -> None:
    """The importer's account of what it did not import, on stderr (stdout stays the answer, or JSON)."""
    for line in opened.left_out:
        print(f"left out     {line}", file=sys.stderr)


def _fmt_value(x) -> str:
    """:func:`_fmt` for numbers, and text lists (the system class's notes) joined as text."""
    if isinstance(x, (list, tuple)) and all(isinstance(v, str) for v in x):
        return "; ".join(x) if x else "none"
    return x if isinstance(x, str) else _fmt(x)


def _print_certificates(certs) -> None:
    print("\n".join(certificate_lines(certs)))


def _writable_file(option: str, path) -> Path:
    """``path`` for an output option, refused before any work when it cannot be written: its folder missing or not
    writable, or the path an existing folder. A new file is created and removed again to prove it can be (the
    permission bits do not tell: root, read-only mounts, /proc); an existing file is left untouched."""
    p = Path(path)
    fix = "give a file in an existing folder you can write to"
    if p.is_dir():
        raise FileFormatError(option, f"{str(p)!r} is a folder", f"give a file name inside it, e.g. {str(p / 'out')!r}")
    if not p.parent.is_dir():
        raise FileFormatError(
            option, f"{str(p)!r}: the folder {str(p.parent)!r} does not exist", "create it, or " + fix
        )
    try:
        if p.exists():
            with open(p, "ab"):
                pass
        else:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            os.close(fd)
            os.unlink(p)
    except OSError as exc:
        raise FileFormatError(option, f"{str(p)!r} cannot be written ({exc.strerror or exc})", fix) from None
    return p


def _writable_folder(option: str, path) -> Path:
    """``path`` for an output folder (created if missing, as the writer would), refused before any work when it
    cannot be: a file in the way, a parent that cannot hold it, a folder that cannot be written into."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / f".gaussqp-write-test-{os.getpid()}"
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise FileFormatError(
            option,
            f"{str(p)!r} cannot be used as an output folder ({exc.strerror or exc})",
            "give a folder you can write to (it is created if missing)",
        ) from None
    return p


def _save_solution(args, sol) -> None:
    """``--out``: the FCLIB ``/solution`` group of a Coulomb answer (r, u, and v for a global problem)."""
    from .io.fclib import save_solution

    if sol.natural_map_residual is None or sol.lambda_normal is None:
        raise NotApplicableError(
            f"--out {args.out}: writes the FCLIB /solution of a Coulomb answer (an FCLIB file "
            f"or 'coulomb' contacts); this answer ({sol.status}, {sol.formulation}) has none"
        )
    r = np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()
    save_solution(args.out, r=r, u=sol.velocity, v=sol.acceleration)


def cmd_solve(args) -> int:
    if args.out:
        _writable_file("--out", args.out)
    p = _load(args, local_ok=True)
    sol = solve(
        p,
        formulation=args.formulation,
        solver=args.solver,
        crosscheck=not args.no_crosscheck,
        tolerance=args.tolerance,
        facets=args.facets,
        bracket=args.bracket,
    )
    if args.out:
        _save_solution(args, sol)
    ranges = _ranges(args, p, sol)
    if args.json:
        out = sol.as_dict()
        if ranges is not None:
            out["force_ranges"] = to_jsonable(ranges.as_dict())
        print(json.dumps(out))
    else:  # both forms: a local problem's acceleration and Jᵀλ print as "-", its λ are the reaction r
        print(sol.summary(certificates=True))
        _print_bounds((sol.friction_bounds or []))
        if ranges is not None:
            _print_ranges(ranges)
    return 0 if sol.certified else 1


def _ranges(args, p, sol):
    """``--ranges``: the force envelopes of a solved answer (:func:`gaussqp.force_ranges`), or None."""
    if not getattr(args, "ranges", False):
        return None
    from .certificates.force_envelopes import force_ranges

    _needs_mass(p, "--ranges: force envelopes need a problem with a mass matrix (not a {form} one)")
    if not sol.certified or sol.acceleration is None:
        raise NotApplicableError(
            f"--ranges: the answer is {sol.status}{'' if sol.certified else ', not certified'}; "
            "force envelopes are taken on a certified solved answer"
        )
    return force_ranges(p, sol)


def _print_ranges(fr) -> None:
    """The envelopes as text: per contact its law, normal range, largest friction force, each certified or not."""
    print(
        f"force ranges {'certified' if fr.certified else 'NOT all certified'}; set is "
        f"{'a point' if fr.point else 'not a point'}; {fr.programs} programs, {fr.seconds:.3g} s"
    )
    print(f"  {'contact':>7} {'law':<12} {'normal min':>12} {'normal max':>12} {'tangent max':>12} {'width':>9}")
    for c in fr.contacts:
        widths = [b.width for b in (c.normal_min, c.normal_max, c.tangent_max) if b.width is not None]
        print(
            f"  {c.index:>7} {c.law:<12} {_fmt(c.normal_min.value):>12} {_fmt(c.normal_max.value):>12} "
            f"{_fmt(c.tangent_max.value):>12} {_fmt(max(widths) if widths else None):>9}"
        )
        for b in (c.normal_min, c.normal_max, c.tangent_max):
            if b.value is None:
                print(f"  {'':>7} {b.sense} not certified: {b.reason}")


def cmd_audit(args) -> int:
    """``gaussqp audit MODEL``: MuJoCo's contact answers against the certified rigid answer and its force envelopes,
    at one state or along a rollout (:func:`gaussqp.audit`); exit 0 when every state's rigid answer is certified and
    no state is flagged, 1 otherwise, 2 for bad input."""
    from .audit import audit
    from .audit.report import text_summary, write_report
    from .io.open_file import read_vector

    if args.report:
        _writable_folder("--report", args.report)
    if args.engine != "mujoco" or args.answer is not None:
        rep = _audit_other_engine(args)
    else:
        rep = audit(
            args.model,
            keyframe=args.keyframe,
            qpos=read_vector("qpos", args.qpos),
            qvel=read_vector("qvel", args.qvel),
            settle=args.settle,
            steps=args.steps,
            every=args.every,
            recording=args.recording,
            drift=args.drift,
            frictionloss=args.frictionloss,
            torsional=args.torsional,
            velocity_tol=args.velocity_tol,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=not args.quiet and not args.json,
            crosscheck=args.crosscheck,
        )
    files = write_report(rep, args.report) if args.report else {}
    if args.json:
        print(json.dumps(to_jsonable(rep.as_dict())))
    else:
        print(text_summary(rep))
        for kind, path in files.items():
            print(f"report       {kind}: {path}")
    s = rep.summary()
    return 0 if s["certified"] == s["states"] and not s["flagged_states"] else 1


def _audit_other_engine(args):
    """``gaussqp audit FILE.hdf5 --engine siconos[:SOLVER]`` or ``--answer R``: a Siconos answer of an FCLIB problem
    (:func:`gaussqp.audit.siconos_.audit`)."""
    from .audit import siconos_
    from .errors import UnknownValueError

    engine, _, solver = args.engine.partition(":")
    if args.answer is not None and engine == "mujoco":
        engine = "siconos"
    if engine != "siconos":
        raise UnknownValueError(
            "--engine",
            f"is {args.engine!r}",
            "use mujoco (a MuJoCo model) or siconos[:SOLVER] (an FCLIB file), SOLVER one of "
            + ", ".join(siconos_.SICONOS_SOLVERS),
        )
    return siconos_.audit(args.model, solver=solver or None, answer=args.answer, crosscheck=args.crosscheck)


def _print_bounds(bounds) -> None:
    if not bounds:
        return
    print("friction bounds (C7)")
    for b in bounds:
        holds = "n/a" if b.holds is None else _fmt(b.holds)
        print(f"  {b.id:<22} {holds:<6} {b.value:>11.4g}  {b.source}  (largest μ here: {_fmt(b.mu)})")
        print(f"  {'':<22} {'':<6} {'':>11}  -> {b.guarantees}")


def cmd_check(args) -> int:
    p = _load(args)
    rep = check(p)
    if args.json:
        print(json.dumps(to_jsonable(rep.as_dict())))
        return 0
    c = rep.system_class
    rec = c.record()  # a rank refused as too large is reported there (None and a note), not raised
    refused = f"not computed ({rec['notes'][0].removeprefix(RANK_REFUSED)})" if rec["normal_rank"] is None else ""
    rank = refused or rec["normal_rank"]
    print(
        f"problem  {p.name}: n={c.n}, M {c.mass} (rank {c.mass_rank}), {c.constraints} constraints "
        f"({c.m_bilateral} bilateral, {c.m_unilateral} unilateral), {c.modes}, normal rank {rank}"
        f"{' (redundant)' if rec['redundant'] else ''}"
    )
    if rep.skipped:
        print(rep.skipped)
    _print_certificates(rep.certificates)
    _print_bounds(rep.friction_bounds)
    return 0


def problem_info(problem) -> dict:
    """Sizes, classes, ranks and conditioning of a problem (``gaussqp info``), decided on the data: the mass
    matrix's condition number raw and Jacobi-equilibrated (:class:`~gaussqp.linalg.mass.MassFactor`), the rank
    and the smallest singular value of the normalized normal rows. Dense quantities only up to
    :data:`~gaussqp.settings.STRUCTURAL_N_MAX` coordinates."""
    return _INFO[problem.form](problem, problem.summary())


def _global_info(problem, s) -> dict:
    c = s.system_class
    info = {
        "name": problem.name,
        "form": "contact problem (M a + F = Jᵀλ)",
        "n": problem.n,
        "m": problem.m,
        "dimension": problem.dimension,
        "sparse": problem.sparse,
        "system_class": c.as_dict(),
        "modes": dict(s.modes),
    }
    fac = problem.mass_factor
    pos = fac.eigenvalues[fac.eigenvalues > 0]
    info["mass_cond_equilibrated"] = float(pos.max() / pos.min()) if pos.size else None
    if problem.n <= STRUCTURAL_N_MAX:
        M = np.asarray(problem.M.toarray() if problem.sparse else problem.M)
        info["mass_cond"] = float(np.linalg.cond(M)) if fac.definite else float("inf")
        rank = info["system_class"]["normal_rank"]  # None: refused as too large to densify (the record's note)
        if problem.m and rank is not None:
            sv = np.linalg.svd(normalize_rows(as_dense(problem.J_n)), compute_uv=False)
            info["normal_rows_sigma_min"] = float(sv[rank - 1]) if rank else 0.0
    return info


def _local_info(problem, s) -> dict:
    W = problem.W.toarray() if hasattr(problem.W, "toarray") else np.asarray(problem.W)
    info = {
        "name": problem.name,
        "form": "FCLIB local (u = W r + q)",
        "m": problem.m,
        "dimension": problem.dimension,
        "W_shape": list(W.shape),
        "mu": [float(np.min(problem.mu)), float(np.max(problem.mu))] if problem.m else [],
    }
    if W.shape[0] <= STRUCTURAL_N_MAX:
        sym = float(np.abs(W - W.T).max() / max(np.abs(W).max(), np.finfo(float).tiny))
        sv = np.linalg.svd(W, compute_uv=False)
        rank = int(np.sum(sv > RANK_RTOL * sv[0])) if sv.size and sv[0] > 0 else 0
        info.update(
            {"W_asymmetry": sym, "W_rank": rank, "W_cond": float(sv[0] / sv[-1]) if sv[-1] > 0 else float("inf")}
        )
    return info


#: ``gaussqp info``'s quantities by the problem's ``form`` (:data:`gaussqp.model.summary.FORMS`)
_INFO = {"global": _global_info, "local": _local_info}


def cmd_info(args) -> int:
    opened = _open(args)
    _print_left_out(opened)
    info = problem_info(opened.problem)
    info["reader"] = opened.reader
    if args.json:
        print(json.dumps(to_jsonable(info)))
        return 0
    for k, v in info.items():
        if isinstance(v, dict):
            v = ", ".join(f"{a}={_fmt_value(b)}" for a, b in v.items())
        print(f"{k:<24} {_fmt_value(v)}")
    return 0


def cmd_import(args) -> int:
    out = Path(args.output)
    writers = {".json": "gaussqp/1 JSON", ".npz": "gaussqp/1 NPZ", ".hdf5": "FCLIB", ".h5": "FCLIB"}
    if out.suffix.lower() not in writers:
        raise UnknownValueError("-o", f"is {args.output!r}", f"write a file ending in {', '.join(writers)}")
    _writable_file("-o", out)  # before opening the model (a MuJoCo --settle may take a while)
    opened = _open(args)
    _print_left_out(opened)
    try:
        if writers[out.suffix.lower()] == "gaussqp/1 JSON":
            _needs_mass(
                opened.problem,
                f"{args.file}: a {{form}} problem ({{detail}}) has no gaussqp/1 JSON form; write .npz or .hdf5",
            )
        if writers[out.suffix.lower()] == "FCLIB":
            from .io import fclib

            fclib.save(opened.problem, out, info={"title": opened.problem.name, "description": opened.source})
        else:
            dump(opened.problem, out, source=opened.source, parameters=opened.parameters)
    except OSError as exc:
        raise FileFormatError(
            "-o", f"{args.output!r} cannot be written ({exc.strerror or exc})", "write to a folder you can write to"
        ) from None
    s = opened.problem.summary()
    print(
        f"wrote {out}: {s.form} problem ({s.detail}), dimension {s.dimension}, modes "
        + ", ".join(f"{m}={k}" for m, k in s.modes.items())
        + f"; {len(opened.left_out)} left out"
    )
    return 0


def cmd_list(args) -> int:
    from . import problems

    for name in problems.names() + problems.real_names():
        s = problems.load(name).summary()
        print(f"{name:<24} {s.headline()} {s.description}")
    generated = problems.generated_names()
    if generated:
        print(
            f"\ngenerated FCLIB problems from MuJoCo scenes (gaussqp solve NAME; FCLIB files, need h5py): "
            f"{len(generated)}"
        )
        for name in generated:
            print(f"  {name}")
    from .problems import grasps

    print("\ngrasps (gaussqp grasp NAME):")
    for name in grasps.names():
        g = grasps.load(name)
        kinds = ", ".join(sorted({c.kind for c in g.contacts}))
        print(f"{name:<24} {g.dimension}D, {g.m} contacts ({kinds})" + (", with a hand" if g.hand is not None else ""))
    return 0


def cmd_formulations(args) -> int:
    print("formulations")
    for f in FORMULATIONS.values():
        print(f"  {f.name:<24} {f.id:<3} {f.kind:<7} {f.title}")
        print(f"  {'':<24} valid: {f.valid_when}; source: {f.source}")
    print("preference table (mass, constraints, modes) -> formulations")
    for k, v in PREFERENCES.items():
        print(f"  {str(k):<45} {', '.join(v)}")
    print("backends")
    for b in BACKENDS.values():
        print(
            f"  {b.name:<10} {'installed' if installed(b) else 'not installed (pip install ' + b.pip + ')':<30} "
            f"supports {', '.join(sorted(b.supports))}"
        )
    print(
        "tolerance presets: "
        + ", ".join(f"{t.name} (solver {t.solver:g}, residual {t.residual:g})" for t in PRESETS.values())
    )
    return 0


def _grasp_file(name: str):
    """A ``gaussqp-grasp/1`` file, or the name of a shipped grasp example (``gaussqp.problems.grasps``)."""
    from .grasp import load

    if Path(name).suffix.lower() == ".json" or Path(name).exists():
        return load(name)
    from .problems import grasps

    if name in grasps.names():
        return grasps.load(name)
    raise UnsupportedFormatError(
        "file",
        f"{name!r} is neither a gaussqp-grasp/1 .json file nor a shipped grasp",
        f"give a .json file or one of {', '.join(grasps.names())}",
    )


def _grasp_mujoco(args):
    """The grasp on ``--object`` of a MuJoCo model at ``--keyframe`` / ``--qpos``, after ``--settle`` steps."""
    from .grasp.simulator import grasp_of_reading
    from .io.mujoco import load_mujoco, read_grasp
    from .io.open_file import read_vector

    if not args.object:
        raise UnknownValueError("--object", "is missing for a MuJoCo model", "name the grasped body: --object BODY")
    model, data = load_mujoco(
        args.file, keyframe=args.keyframe, qpos=read_vector("qpos", args.qpos), settle=args.settle
    )
    reading = read_grasp(model, data, args.object)
    return grasp_of_reading(reading), reading


def cmd_grasp_batch(args) -> int:
    """``gaussqp grasp FILE.jsonl|DIR --batch``: many grasps (:func:`gaussqp.grasp.analyze_many`), a results table
    (``--table``: .csv, or .parquet with the studies extra) and JSON lines (``--jsonl``, ``-`` for stdout)."""
    from .grasp import analyze_many, read_grasps, write_jsonl, write_table

    for opt, path in (("--table", args.table), ("--jsonl", args.jsonl)):
        if path and path != "-":
            _writable_file(opt, path)
    if args.facets < 3:
        raise UnknownValueError("--facets", f"is {args.facets}", "give at least 3 (polygon sides)")
    checks = [c.strip() for c in args.checks.split(",") if c.strip()]
    gs = read_grasps(args.file)
    res = analyze_many(
        gs,
        checks=checks,
        facets=args.facets,
        norm=args.norm,
        workers=args.workers,
        progress=not args.quiet,
        scheduler=args.scheduler,
    )
    if args.table:
        write_table(res, args.table)
    if args.jsonl == "-":
        for r in res:
            print(json.dumps(to_jsonable(r.to_dict())))
    elif args.jsonl:
        write_jsonl(res, args.jsonl)
    if args.jsonl != "-":
        verdict = {True: "yes", False: "no", None: "undecided"}
        if not (args.table or args.jsonl):
            for r in res:
                parts = []
                if "force_closure" in r.checks:
                    fc = r.checks["force_closure"]
                    parts.append(f"force closure {verdict[fc.holds]}" + ("" if fc.certified else " (NOT certified)"))
                if "epsilon" in r.checks:
                    e = r.checks["epsilon"]
                    parts.append(f"ε [{_fmt(e.value.get('lower'))}, {_fmt(e.value.get('upper'))}]")
                if "metrics" in r.checks:
                    parts.append(f"σ_min {_fmt(r.checks['metrics'].value['sigma_min'])}")
                print(f"{r.index:>6} {r.name or '-'}: " + "; ".join(parts))
        closed = sum(1 for r in res if "force_closure" in r.checks and r.checks["force_closure"].holds)
        ok = sum(1 for r in res if r.certified)
        print(
            f"{len(res)} grasps"
            + (f", {closed} in force closure" if "force_closure" in checks else "")
            + f", {ok} certified"
            + (f"; table {args.table}" if args.table else "")
            + (f"; JSON lines {args.jsonl}" if args.jsonl else "")
        )
    return 0 if all(r.certified for r in res) else 1


def cmd_grasp(args) -> int:
    from .grasp import analyze
    from .grasp import plot as plot_grasp

    if args.batch:
        return cmd_grasp_batch(args)
    if args.plot:
        _writable_file("--plot", args.plot)
    reading = None
    if Path(args.file).suffix.lower() in (".xml", ".mjb"):
        g, reading = _grasp_mujoco(args)
    else:
        if args.object is not None:
            raise UnknownValueError(
                "--object",
                "is given for a grasp file",
                "give a MuJoCo model (.xml, .mjb) with --object, or drop --object",
            )
        g = _grasp_file(args.file)
    if args.facets < 3:
        raise UnknownValueError("--facets", f"is {args.facets}", "give at least 3 (polygon sides)")
    rep = analyze(g, facets=args.facets, norm=args.norm)
    d = rep.to_dict()
    if reading is not None and g.hand is not None and g.hand.mass_matrix is not None:
        # the MuJoCo state has the hand's M and F (actuator torques included): the papers' dynamic hold check
        from .grasp import dynamic_check

        try:
            dyn = dynamic_check(g, object_mass_matrix=reading.object_mass_matrix)
        except NotApplicableError as exc:
            d["dynamic"] = {"holds": None, "reason": str(exc)}
        else:
            rep.checks["dynamic"] = dyn
            d["dynamic"] = {
                "holds": dyn.holds,
                "certified": dyn.certified,
                "mu_min": to_jsonable(dyn.value.get("mu_min")),
                "certificate": None if dyn.certificate is None else dyn.certificate.as_dict(),
            }
            d["certified"] = rep.certified
    if args.plot:
        plot_grasp(g, args.plot, facets=args.facets, norm=args.norm)
        d["plot"] = str(args.plot)
    if args.json:
        print(json.dumps(d, indent=1))
        return 0 if rep.certified else 1
    text = rep.summary(name=g.name or args.file).split("\n")
    print("\n".join(text[:-1] if not rep.certified else text))
    if args.plot:
        print(f"  plot written to {args.plot}")
    if not rep.certified:
        print(text[-1])
    return 0 if rep.certified else 1


def _names(text: str | None) -> list[str] | None:
    return None if not text else [t.strip() for t in text.split(",") if t.strip()]


def _classified(table):
    """The study's results table classified once by the report's rules (:func:`gaussqp.studies.metrics.classify`);
    the report and :func:`_wrong_claims` read the same frame."""
    from .studies.metrics import classify

    return classify(table if hasattr(table, "to_dict") else list(table))


def _wrong_claims(table) -> list:
    """The runs that are wrong claims by the report's rules: a claim our check does not certify, or one
    contradicted by a reference; a certified answer that differs from the others where no one proved the answer
    unique is *disputed*, listed in the report, not a wrong claim. ``table``: rows or a classified frame."""
    if not len(table):
        return []
    frame = _classified(table)
    return frame.loc[frame["wrong_claim"]].to_dict("records")


def cmd_crossval(args) -> int:
    from .studies import run_study
    from .studies.report import write_report

    if args.workers < 1:
        raise UnknownValueError("--workers", f"is {args.workers}", "give 1 or more worker processes")
    if not args.time_limit > 0:
        raise UnknownValueError("--time-limit", f"is {args.time_limit}", "give a positive number of seconds")
    out = _writable_folder("--out", args.out)
    table = run_study(
        args.set,
        formulations=_names(args.formulations),
        solvers=_names(args.solvers),
        tolerances=tuple(_names(args.tolerance) or ["high"]),
        out=out,
        workers=args.workers,
        scheduler=args.scheduler,
        time_limit=args.time_limit,
        progress=not args.quiet,
        peers=args.peers,
    )
    frame = _classified(table)
    paths = write_report(frame, out, time_limit=args.time_limit)
    wrong = _wrong_claims(frame)
    print(f"{len(frame)} runs in {out}; report: {paths['markdown']}, {paths['html']}")
    for r in wrong[:20]:
        print(f"WRONG CLAIM: {r['problem']} {r['formulation']}/{r['solver']}/{r['tolerance']}: {r.get('command', '')}")
    return 1 if wrong else 0


def cmd_peer(args) -> int:
    from .studies.peers import PEER_SOLVERS, peer_report, resolve_peers, run_peer

    resolve_peers(PEER_SOLVERS[args.solver].peer)
    problem = _load(args, local_ok=True)
    run = run_peer(problem, args.solver, args.tolerance, args.time_limit)
    print(json.dumps(peer_report(run, args.solver), indent=1))
    return 0


def cmd_report(args) -> int:
    from .studies.report import load_table, write_report

    table = load_table(args.dir)
    _writable_folder("dir", args.dir)
    frame = _classified(table)
    paths = write_report(frame, args.dir, time_limit=args.time_limit)
    print(f"report rebuilt from {len(frame)} runs: {paths['markdown']}, {paths['html']}")
    return 1 if _wrong_claims(frame) else 0


def _source_options() -> argparse.ArgumentParser:
    """The reader of a file and the options of a model file (MuJoCo, URDF), shared by solve, check, info and import
    (readers and extensions from :data:`gaussqp.io.open_file.FILE_READERS`)."""
    src = _Parser(add_help=False)
    g = src.add_argument_group(f"the reader, and model files ({readers_help(with_options=True)})")
    g.add_argument(
        "--importer",
        choices=reader_names(),
        default=None,
        help=f"read the file with this reader (default by extension: {readers_help()}; any other: gaussqp)",
    )
    g.add_argument("--keyframe", default=None, help="MuJoCo: start from this keyframe (name or index)")
    g.add_argument("--qpos", default=None, help="configuration file (.npy, .json list or text)")
    g.add_argument("--qvel", default=None, help="velocity file (default: at rest / the keyframe's)")
    g.add_argument("--tau", default=None, help="Pinocchio: joint torque file (default 0)")
    g.add_argument("--settle", type=int, default=0, help="MuJoCo: simulate this many steps first (default 0)")
    g.add_argument(
        "--drift",
        choices=["jacdot", "mujoco"],
        default="jacdot",
        help="MuJoCo: drifts J̇q̇ (default) or MuJoCo's reference acceleration (Baumgarte terms)",
    )
    g.add_argument(
        "--frictionloss",
        choices=["refuse", "ignore"],
        default="refuse",
        help="MuJoCo: dofs with frictionloss are refused (default) or dropped and reported",
    )
    g.add_argument(
        "--torsional",
        choices=["exact", "ignore"],
        default="exact",
        help="MuJoCo: condim 4/6 rows mapped exactly (default) or dropped and reported",
    )
    g.add_argument("--floating-base", action="store_true", help="Pinocchio: a free-flyer root joint")
    g.add_argument(
        "--contact",
        action="append",
        default=[],
        metavar="FRAME[:point|6d][:bilateral][:mu=M][:normal=X,Y,Z]",
        help="Pinocchio: a contact at a frame (repeat for each)",
    )
    return src


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr and exit 2, like every other bad input."""

    def error(self, message: str):
        self.exit(2, f"gaussqp: error: {message}; fix: see '{self.prog} --help'\n")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="gaussqp", description="Solve and certify the contact problem of multibody mechanics.")
    ap.add_argument("--version", action="version", version=f"gaussqp {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    src = _source_options()
    s = sub.add_parser("solve", parents=[src], help="solve a problem file, a model at a state, or a shipped problem")
    s.add_argument(
        "file",
        nargs="?",
        default=DEFAULT_PROBLEM,
        help=f"a file ({', '.join(reader_suffixes())}) or a shipped name (default {DEFAULT_PROBLEM})",
    )
    s.add_argument("--formulation", default="auto", help="auto or a registered formulation (gaussqp formulations)")
    s.add_argument("--solver", default=None, help="backend for cvxpy formulations: clarabel, osqp, scs")
    s.add_argument("--tolerance", default=DEFAULT, choices=list(PRESETS), help=f"tolerance preset (default {DEFAULT})")
    s.add_argument("--no-crosscheck", action="store_true", help="skip the cross-check route")
    s.add_argument(
        "--facets",
        type=int,
        default=DEFAULT_FACETS,
        help=f"facets of the inscribed/circumscribed polygons (F5 and the sticking bracket; default {DEFAULT_FACETS})",
    )
    s.add_argument(
        "--bracket",
        default="off",
        choices=list(BRACKET_MODES),
        help="the sticking cross-check's F5 polygon bracket, computed only when asked: off (the default: not "
        "computed, the report says so), auto (skipped when F4's answer is certified with unique multipliers) or always",
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument(
        "--ranges",
        action="store_true",
        help="force envelopes: each contact's certified normal-force range and largest friction force over "
        "every force distribution of the answer (JSON: force_ranges)",
    )
    s.add_argument(
        "--out",
        default=None,
        metavar="SOLUTION.hdf5",
        help="write the FCLIB /solution group (r, u, and v for a global problem) of a Coulomb answer",
    )
    s.set_defaults(func=cmd_solve)
    c = sub.add_parser(
        "check",
        parents=[src],
        help="structural report without solving: classification, certificates C1-C6 and C8, "
        "P-matrix test (sliding), friction bounds C7",
    )
    c.add_argument("file")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_check)
    i = sub.add_parser("info", parents=[src], help="sizes, classes, ranks and conditioning of a file's problem")
    i.add_argument("file")
    i.add_argument("--json", action="store_true")
    i.set_defaults(func=cmd_info)
    m = sub.add_parser("import", parents=[src], help="write a model's contact problem at a state to a gaussqp/1 file")
    m.add_argument("file", help="MuJoCo .xml/.mjb, URDF, FCLIB .hdf5 or a gaussqp/1 file")
    m.add_argument("-o", "--output", required=True, help="problem.json or problem.npz")
    m.set_defaults(func=cmd_import)
    gr = sub.add_parser(
        "grasp",
        help="grasp analysis: force/form closure, ε bracket, internal forces, equilibrium, "
        "with certificates (a gaussqp-grasp/1 file or a shipped grasp)",
    )
    gr.add_argument(
        "file",
        help="a gaussqp-grasp/1 .json file, a shipped grasp name (gaussqp list), a MuJoCo model "
        "with --object; with --batch a .jsonl file or a directory",
    )
    gr.add_argument(
        "--facets",
        type=int,
        default=DEFAULT_FACETS,
        help=f"polygon sides bracketing the exact cones in ε (default {DEFAULT_FACETS})",
    )
    gr.add_argument("--norm", choices=["L1", "Linf"], default="L1", help="ε of the L1 (default) or L∞ wrench set")
    gr.add_argument("--json", action="store_true", help="print one JSON object")
    gr.add_argument(
        "--plot", default=None, metavar="PNG", help="draw contacts, cones and the wrench set with the ε ball"
    )
    gr.add_argument(
        "--object",
        default=None,
        metavar="BODY",
        help="with a MuJoCo model (.xml, .mjb): the grasped body; its contacts at the state are the grasp",
    )
    gr.add_argument("--keyframe", default=None, help="with a MuJoCo model: start from this keyframe (name or index)")
    gr.add_argument("--qpos", default=None, help="with a MuJoCo model: configuration file (.npy, .json list or text)")
    gr.add_argument("--settle", type=int, default=0, help="with a MuJoCo model: simulate this many steps first")
    gr.add_argument(
        "--batch",
        action="store_true",
        help="many grasps: FILE is a .jsonl file (one grasp per line) or a directory of grasp files",
    )
    gr.add_argument(
        "--checks",
        default="force_closure",
        help="with --batch: comma-separated force_closure, epsilon, metrics (default force_closure)",
    )
    gr.add_argument("--table", default=None, metavar="FILE.csv|FILE.parquet", help="with --batch: the results table")
    gr.add_argument(
        "--jsonl", default=None, metavar="FILE|-", help="with --batch: one JSON object per grasp ('-': stdout)"
    )
    gr.add_argument("--workers", type=int, default=None, help="with --batch: process-pool size")
    gr.add_argument(
        "--scheduler",
        default=None,
        metavar="local|tcp://HOST:PORT",
        help="with --batch: run on Dask distributed, a new local cluster of --workers processes or the scheduler at "
        "the address (extra gaussqp[dask])",
    )
    gr.add_argument("--quiet", action="store_true", help="with --batch: no progress bar")
    gr.set_defaults(func=cmd_grasp)
    cv = sub.add_parser(
        "crossval",
        help="cross-validation study: every accepting route on every problem of a set, "
        "judged against a reference; results table and report in --out",
    )
    cv.add_argument(
        "set",
        help="library, families[:COUNT[:SEED]], mujoco:MODEL.xml[:COUNT] (states of a MuJoCo "
        "model), or a directory of gaussqp/1 or FCLIB files",
    )
    cv.add_argument("--formulations", default=None, help="comma-separated formulations (default: every accepting one)")
    cv.add_argument("--solvers", default=None, help="comma-separated backends (default: every installed one)")
    cv.add_argument("--tolerance", default=DEFAULT, help=f"comma-separated tolerance presets (default {DEFAULT})")
    cv.add_argument("--out", default="crossval", help="results directory (re-running resumes; default ./crossval)")
    cv.add_argument(
        "--peers",
        default="none",
        metavar="auto|none|siconos",
        help="peer libraries whose solvers run too, judged by our checks: 'auto' (every one that can run "
        "here), 'none' (default), or names (Siconos: apt-get install python3-siconos)",
    )
    where = cv.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    where.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="run on a Dask distributed cluster (extra gaussqp[dask])",
    )
    cv.add_argument(
        "--time-limit",
        type=float,
        default=STUDY_TIME_LIMIT,
        help=f"seconds per run; a run beyond it is a timeout row (default {STUDY_TIME_LIMIT:g})",
    )
    cv.add_argument("--quiet", action="store_true", help="no progress bar")
    cv.set_defaults(func=cmd_crossval)
    pe = sub.add_parser(
        "peer",
        parents=[src],
        help="run one peer library's solver (Siconos) on a problem and judge "
        "its answer by our checks (a study's peer rows)",
    )
    from .studies.peers import PEER_SOLVERS

    pe.add_argument("file", help=f"a file ({', '.join(reader_suffixes())}) or a shipped name")
    pe.add_argument("solver", choices=list(PEER_SOLVERS), help="the peer solver (a study's formulation column)")
    pe.add_argument(
        "--tolerance", choices=list(PRESETS), default=DEFAULT, help=f"preset: the peer's tolerance (default {DEFAULT})"
    )
    pe.add_argument(
        "--time-limit",
        type=float,
        default=STUDY_TIME_LIMIT,
        help=f"seconds before the peer is stopped (default {STUDY_TIME_LIMIT:g})",
    )
    pe.set_defaults(func=cmd_peer)
    au = sub.add_parser(
        "audit",
        help="audit MuJoCo's contact answers (or Siconos's on an FCLIB problem): its forces "
        "against the certified rigid answer's force envelopes, Coulomb residuals, "
        "creep, acceleration gap; one state or a rollout",
    )
    au.add_argument("model", help="a MuJoCo model (.xml or .mjb); with --engine siconos an FCLIB problem (.hdf5)")
    au.add_argument(
        "--engine",
        default="mujoco",
        metavar="mujoco|siconos[:SOLVER]",
        help="whose answer: MuJoCo's (default), or a Siconos friction solver's on an FCLIB problem "
        "(SOLVER: fc3d_nsgs, fc3d_prox, fc3d_nsn_ac, fc2d_nsgs, fc2d_lemke; default NSGS)",
    )
    au.add_argument(
        "--answer",
        default=None,
        metavar="FILE.hdf5|FILE.npz",
        help="audit this answer r of the FCLIB problem (/solution/r, or an .npz with r) instead of running an engine",
    )
    au.add_argument("--keyframe", default=None, help="start from this keyframe (name or index)")
    au.add_argument("--qpos", default=None, help="start configuration file (.npy, .json list or text)")
    au.add_argument("--qvel", default=None, help="start velocity file")
    au.add_argument("--settle", type=int, default=0, help="simulate this many steps before the first state")
    au.add_argument("--steps", type=int, default=0, help="audit a rollout of this many MuJoCo steps (its controls)")
    au.add_argument("--every", type=int, default=1, help="audit every k-th step of the rollout (default 1)")
    au.add_argument(
        "--recording",
        default=None,
        metavar="FILE.npz|FILE.csv",
        help="audit recorded states instead: qpos, qvel (and ctrl, act, time) per row",
    )
    au.add_argument("--drift", choices=["jacdot", "mujoco"], default="jacdot", help="the importer's drifts")
    au.add_argument("--frictionloss", choices=["refuse", "ignore"], default="refuse", help="joint friction loss")
    au.add_argument("--torsional", choices=["exact", "ignore"], default="exact", help="condim 4/6 rows")
    au.add_argument(
        "--velocity-tol",
        type=float,
        default=None,
        help="tangential speed below which a contact is at rest for the rigid problem (default: the "
        "importer's); slower engine slip is reported as creep",
    )
    au.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    au.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT|local", help="run the states on Dask")
    au.add_argument("--crosscheck", action="store_true", help="cross-check each rigid answer by a second route")
    au.add_argument(
        "--report",
        default=None,
        metavar="DIR",
        help="write report.html, timeline.png, contacts/states .parquet (or .csv) and audit.json here",
    )
    au.add_argument("--json", action="store_true", help="print one JSON object (the audit's contract)")
    au.add_argument("--quiet", action="store_true", help="no progress bar")
    au.set_defaults(func=cmd_audit)
    rp = sub.add_parser("report", help="rebuild a study's report (report.md, report.html, profiles) from its results")
    rp.add_argument("dir", help="a study's --out directory")
    rp.add_argument("--time-limit", type=float, default=None, help="penalty time of failed runs (default: the study's)")
    rp.set_defaults(func=cmd_report)
    sub.add_parser("list", help="the problem library").set_defaults(func=cmd_list)
    sub.add_parser("formulations", help="formulation registry and installed backends").set_defaults(
        func=cmd_formulations
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except GaussQPError as exc:
        print(f"gaussqp: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as Unix tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
