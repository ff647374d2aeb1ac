"""Two real problems of the FCLIB collection as gaussqp files, with what gaussqp certifies about them today.

Run from the repository root (needs h5py, ``pip install ".[fclib]"``)::

    python -m problems.real.fclib_files [--data DIR]

``DIR`` holds the FCLIB files (default: ``$GAUSSQP_FCLIB_DATA``, else ``shared/data/fclib`` beside the
repository). Writes ``problems/data/real/fclib_<name>.npz`` for

- ``CubeH8``: one finite-element cube (LMGC90, H8 elements, n = 162, full M) on one frictional contact; its
  stored M is not symmetric at its entries' scale, so it is shipped in the local form ``W = Hᵀ M⁻¹ H``,
  ``q = Hᵀ M⁻¹ f + w`` of that M (a :class:`gaussqp.LocalContactProblem`, NPZ ``form = "local"``), never with a
  symmetrized M;
- ``Box_Stacks-i0035-31-0``: stacked boxes (Siconos + Bullet, n = 450, diagonal M), 31 frictional contacts.

Each file is the gaussqp NPZ form of :func:`gaussqp.io.fclib.load` (a global FCLIB problem is at the
impulse/velocity level, read as acceleration-level data ``a ≡ v``, ``F = -f``; every contact has the mode
``"coulomb"``: FCLIB leaves stick/slip to the solver) plus two members that :func:`gaussqp.load_npz` skips,
each a JSON text:

``source``
    the FCLIB file name, its sha256, its info strings (title, description, math_info), where the copy comes
    from, and how it was read.
``parameters``
    what gaussqp certifies **without solving the friction problem**: the system class of the problem; the rank
    of its normal rows and of all its rows (``H``); the structural certificates C1-C5 of ``gaussqp.check`` on
    its *frictionless relaxation* (same M, F, rows and drifts, every mode ``"frictionless"``), which decide the
    normal-contact structure the friction problem sits on (existence, uniqueness of the acceleration and
    of the normal multipliers of that relaxation); and that ``gaussqp.solve`` refuses the Coulomb problem
    itself. **The stick/slip solve comes with the mode-free solver** (mode ``"coulomb"``); until then no
    acceleration or reaction of these problems is claimed.

``tests/io/test_fclib_library.py`` (no optional component needed) loads both files and recomputes every
recorded fact.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import gaussqp

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "problems" / "data" / "real"
FILES = ("CubeH8", "Box_Stacks-i0035-31-0")
COLLECTION = (
    "FCLIB collection (Acary, Brémond, Huber 2018); this copy from the test data of the Siconos project "
    "(Apache-2.0) and the FCLIB repository"
)


def frictionless_relaxation(problem: gaussqp.ContactProblem) -> gaussqp.ContactProblem:
    """The same M, F, rows and drifts with every contact frictionless (what ``gaussqp.check`` can judge today)."""
    return gaussqp.ContactProblem.from_blocks(
        problem.M,
        problem.F,
        problem.J_n,
        problem.normal_drift,
        list(problem.types),
        problem.J_t,
        problem.tangent_drift,
        problem.friction,
        "frictionless",
        None,
        problem.has_tangent,
        problem.dimension,
        name=problem.name,
        description="frictionless relaxation",
    )


def all_rows_rank(problem: gaussqp.ContactProblem) -> int:
    """Rank of all constraint rows ``[J_n; J_t]`` (FCLIB's ``Hᵀ``), by SVD of the dense rows."""
    rows = sp.vstack([sp.csr_matrix(problem.J_n), sp.csr_matrix(problem.J_t)]).toarray()
    return int(np.linalg.matrix_rank(rows))


def _coulomb_solve(problem) -> dict:
    sol = gaussqp.solve(problem)
    modes = [c.mode for c in (sol.contact_modes or [])]
    return {
        "formulation": sol.formulation,
        "status": str(sol.status),
        "certified": bool(sol.certified),
        "natural_map_residual_relative": float(sol.natural_map_residual.relative),
        "modes": {m: modes.count(m) for m in sorted(set(modes))},
    }


def facts(problem: gaussqp.ContactProblem | gaussqp.LocalContactProblem) -> dict:
    """What gaussqp certifies about ``problem``: its structure, the frictionless relaxation's certificates, and the
    mode-free Coulomb solve with our recomputed natural-map residual and the modes found; for a local
    problem (no mass matrix), its form and the Coulomb solve."""
    if isinstance(problem, gaussqp.LocalContactProblem):
        return {
            "form": "local",
            "m": problem.m,
            "dimension": problem.dimension,
            "coulomb_solve": _coulomb_solve(problem),
        }
    relaxed = gaussqp.check(frictionless_relaxation(problem))
    return {
        "system_class": problem.classify().as_dict(),
        "rank_all_rows": all_rows_rank(problem),
        "frictionless_relaxation": {
            "certificates": [{"id": c.id, "holds": c.holds, "implies": c.implies} for c in relaxed.certificates],
            "skipped": relaxed.skipped,
        },
        "coulomb_solve": _coulomb_solve(problem),
    }


def _data_dir(arg: str | None) -> Path:
    for cand in (
        arg,
        os.environ.get("GAUSSQP_FCLIB_DATA"),
        ROOT / "tests" / "data" / "fclib",
        ROOT.parent / "shared" / "data" / "fclib",
        ROOT.parents[1] / "shared" / "data" / "fclib",
    ):
        if cand and (Path(cand) / "CubeH8.hdf5").is_file():
            return Path(cand)
    raise SystemExit("the FCLIB files are not found: give --data DIR (the folder holding CubeH8.hdf5)")


def _info_strings(path: Path) -> dict:
    import h5py

    with h5py.File(path, "r") as fh:
        info = fh["fclib_global/info"]
        return {
            k: bytes(np.asarray(info[k][()]).reshape(-1)[0]).decode("utf-8", errors="replace")
            for k in ("title", "description", "math_info")
        }


def _mass_asymmetry(path: Path) -> dict:
    """max|M - Mᵀ| of the file's M as stored (load symmetrizes it when it is round-off)."""
    import h5py

    with h5py.File(path, "r") as fh:
        g = fh["fclib_global/M"]
        n, nz, p, i, x = int(g["n"][0]), int(g["nz"][0]), g["p"][()], g["i"][()], g["x"][()]
    if nz < 0:
        raise SystemExit(f"{path.name}: M is not stored as triplets; extend _mass_asymmetry")
    from gaussqp.io.fclib import _entry_asymmetry

    A = sp.coo_matrix((x, (i, p)), shape=(n, n)).tocsr()  # triplets: p = column, i = row, duplicates summed
    asym = float(abs(A - A.T).max())
    rho, row, col = _entry_asymmetry(A)
    return {
        "max_abs": asym,
        "relative_to_max_entry": asym / float(abs(A).max()),
        "relative_to_entry_scale": rho,
        "at": [row, col],
    }


def convert(name: str, data: Path, out: Path) -> Path:
    """Read ``data/name.hdf5`` and write ``out/fclib_<name>.npz`` with its ``source`` and ``parameters``."""
    from gaussqp.io import fclib

    path = data / f"{name}.hdf5"
    problem = fclib.load(path)
    asymmetry = _mass_asymmetry(path)
    if isinstance(problem, gaussqp.LocalContactProblem):
        summary = (
            f"FCLIB {name}: one impulse/velocity step in the local form W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w of the "
            "file's stored M (not symmetric at its entries' scale); stick/slip left to the solver; the file's "
            "info strings are in 'source'"
        )
        problem = gaussqp.LocalContactProblem(
            problem.W, problem.q, problem.mu, problem.dimension, name=problem.name, description=summary
        )
        read_by = (
            "gaussqp.io.fclib.load (defaults): M is not symmetric at its entries' scale "
            f"({asymmetry['relative_to_entry_scale']:.2g} of sqrt(|M_ii M_jj|) > FCLIB_SYMMETRY_RTOL), so the "
            "problem is condensed with the stored M, never symmetrized"
        )
        level = (
            "impulse/velocity (one time step: M v = H r + f, u = Hᵀv + w), condensed: u = W r + q with "
            "W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w"
        )
    else:
        summary = (
            f"FCLIB {name}: one impulse/velocity step read as acceleration data; stick/slip left to the solver "
            "(mode coulomb); the file's info strings are in 'source'"
        )
        problem = gaussqp.ContactProblem.from_blocks(
            problem.M,
            problem.F,
            problem.J_n,
            problem.normal_drift,
            list(problem.types),
            problem.J_t,
            problem.tangent_drift,
            problem.friction,
            list(problem.modes),
            None,
            problem.has_tangent,
            problem.dimension,
            name=problem.name,
            description=summary,
        )
        read_by = (
            "gaussqp.io.fclib.load (defaults: M symmetrized when its asymmetry is round-off at its entries' scale)"
        )
        level = (
            "impulse/velocity (one time step: M v = H r + f, u = Hᵀv + w), read as acceleration-level data "
            "a ≡ v, F = -f, J_n/J_t = rows of Hᵀ, drifts w"
        )
    source = {
        "file": path.name,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "collection": COLLECTION,
        "info": _info_strings(path),
        "mass_asymmetry_in_file": asymmetry,
        "read_by": read_by,
        "level": level,
    }
    target = out / f"fclib_{name}.npz"
    out.mkdir(parents=True, exist_ok=True)
    gaussqp.save_npz(problem, target)
    with np.load(target, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["source"] = np.array(json.dumps(source, indent=1, ensure_ascii=False))
    arrays["parameters"] = np.array(json.dumps(facts(problem), indent=1, ensure_ascii=False))
    np.savez_compressed(target, **arrays)
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", help="folder of the FCLIB .hdf5 files")
    args = ap.parse_args(argv)
    data = _data_dir(args.data)
    for name in FILES:
        target = convert(name, data, OUT)
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
