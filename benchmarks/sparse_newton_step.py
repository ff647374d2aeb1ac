"""Issue #27's sparse Newton step on a large pile (a benchmark, not a test): what one step's linear algebra costs, and
whether the last step's factors could stand in for a new factorization.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/sparse_newton_step.py \
        FILE [--every 10] [--repeat 3] [--write benchmarks/results/sparse_newton_step.md]

The FCLIB ``FILE`` (e.g. ``box_pile-s1-t4000.hdf5`` of ``benchmarks/coulomb_growth.py``) is condensed
(``condense_sparse``) and solved by ``solve_mode_free`` once, recording every sparse Newton system
``J = blockdiag(A) + blockdiag(B) W`` it factors (the Newton's steps and the proximal rounds' inner steps, W + σΛ
there). Every ``--every``-th step whose predecessor was a step of the same system is then measured, in CPU time with
BLAS on one thread (minimum of ``--repeat``):

- **factorization**: the assembly of J and ``scipy.sparse.linalg.splu(J)`` with the route's ordering and pivot
  threshold (``settings.COULOMB_NN_SPARSE_ORDERING``, ``COULOMB_NN_PIVOT_THRESHOLD``), ordering every matrix, against
  ``BlockPattern.factor`` (the same assembly; the order of the pattern's first matrix, later matrices in that order),
  and whether their solutions agree bit for bit; the assembly alone and a triangular solve;
- **the last step's factors as a preconditioner** (an inexact Newton step): the relative residual
  ``‖J x − b‖/‖b‖`` of ``x = J_prev⁻¹ b``, and the iterations a right-preconditioned GMRES (restarted never, at most
  30) needs to bring ``‖J x − b‖/‖b‖`` to 1e-1 and 1e-2, for ``b`` the step's right-hand side ``−φ``;
- **structure**: contacts whose blocks of J changed since the last step, and separated contacts (identity rows of J:
  ``A_j = I, B_j = 0``), which a reduced system would eliminate.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.sparse.linalg as spla  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GMRES_MAX = 30


def splu(J):
    """SuperLU's LU of J with the route's ordering and pivot threshold, the matrix ordered anew."""
    from gaussqp.settings import COULOMB_NN_PIVOT_THRESHOLD, COULOMB_NN_SPARSE_ORDERING

    return spla.splu(J, permc_spec=COULOMB_NN_SPARSE_ORDERING, diag_pivot_thresh=COULOMB_NN_PIVOT_THRESHOLD)


def record(path: str, every: int) -> tuple[list, int, object]:
    """Solve the file once; return (the steps kept: (index, system id, system, A, B, rhs) of every ``every``-th sparse
    step and of its predecessor, the number of sparse steps, the answer)."""
    import gaussqp.friction.nonsmooth_newton as nn
    from gaussqp.formulations.coulomb import condense_sparse, solve_mode_free
    from gaussqp.io import fclib

    problem = fclib.load(path)
    cd = condense_sparse(problem)
    steps: list = []
    count = [0]
    original = nn._System.solve

    def solve(self, A, B, rhs, refine=None):
        if self.sparse and refine is None:
            if count[0] % every in (0, 1):
                steps.append((count[0], id(self), self, A.copy(), B.copy(), np.array(rhs, dtype=float)))
            count[0] += 1
        return original(self, A, B, rhs, refine)

    nn._System.solve = solve
    try:
        answer = solve_mode_free(cd.W, cd.q, cd.mu, problem.dimension)
    finally:
        nn._System.solve = original
    return steps, count[0], answer


def gmres_iterations(matvec, precondition, b: np.ndarray, targets: tuple[float, ...]) -> list[int | None]:
    """Right-preconditioned GMRES (Arnoldi with modified Gram–Schmidt, no restart) from x = 0: for each relative
    residual target, the first iteration whose least-squares residual reaches it (None: not within GMRES_MAX)."""
    bn = float(np.linalg.norm(b))
    V = np.zeros((GMRES_MAX + 1, b.size))
    H = np.zeros((GMRES_MAX + 1, GMRES_MAX))
    V[0] = b / bn
    found: list[int | None] = [None] * len(targets)
    for k in range(GMRES_MAX):
        w = matvec(precondition(V[k]))
        for i in range(k + 1):
            H[i, k] = w @ V[i]
            w = w - H[i, k] * V[i]
        H[k + 1, k] = np.linalg.norm(w)
        if H[k + 1, k] > 0:
            V[k + 1] = w / H[k + 1, k]
        e = np.zeros(k + 2)
        e[0] = bn
        y = np.linalg.lstsq(H[: k + 2, : k + 1], e, rcond=None)[0]
        res = float(np.linalg.norm(H[: k + 2, : k + 1] @ y - e)) / bn
        for t, target in enumerate(targets):
            if found[t] is None and res <= target:
                found[t] = k + 1
        if all(f is not None for f in found) or H[k + 1, k] == 0:
            break
    return found


def cpu(fn, repeat: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def measure(steps: list, repeat: int) -> list[dict]:
    from gaussqp.friction.nonsmooth_newton import BlockPattern

    rows = []
    for before, after in zip(steps, steps[1:]):
        k, sid, sysm, A, B, rhs = after
        if before[0] != k - 1 or before[1] != sid:  # not the same system's previous step
            continue
        A0, B0 = before[3], before[4]
        pattern = BlockPattern(sysm.W, sysm.d)  # a fresh pattern: its first factorization orders it
        Wb = sysm.Wblocks
        t_assemble, J = cpu(lambda: pattern.matrix(Wb, A, B), repeat)
        pattern.factor(Wb, A0, B0)  # the previous step's matrix orders the pattern, as in the route
        t_reordered, lu = cpu(lambda: splu(pattern.matrix(Wb, A, B)), repeat)  # assembled, as factor() does
        t_ordered, factors = cpu(lambda: pattern.factor(Wb, A, B), repeat)
        t_solve, x = cpu(lambda: factors.solve(rhs), repeat)
        same = bool(np.array_equal(x, lu.solve(rhs)))
        previous = splu(pattern.matrix(Wb, A0, B0))
        bn = float(np.linalg.norm(rhs))
        stale = float(np.linalg.norm(J @ previous.solve(rhs) - rhs)) / bn if bn > 0 else 0.0
        it1, it2 = gmres_iterations(lambda v: J @ v, previous.solve, rhs, (1e-1, 1e-2)) if bn > 0 else (0, 0)
        changed = int(np.count_nonzero(np.any(A != A0, axis=(1, 2)) | np.any(B != B0, axis=(1, 2))))
        eye = np.eye(sysm.d)[None]
        separated = int(np.count_nonzero(np.all(A == eye, axis=(1, 2)) & np.all(B == 0, axis=(1, 2))))
        rows.append(
            dict(
                step=k,
                assemble=t_assemble,
                reordered=t_reordered,
                ordered=t_ordered,
                solve=t_solve,
                same=same,
                nnz_lu=int(lu.L.nnz + lu.U.nnz),
                nnz_j=int(J.nnz),
                stale=stale,
                gmres_1=it1,
                gmres_2=it2,
                changed=changed,
                separated=separated,
                m=sysm.m,
            )
        )
    return rows


def median(values) -> float:
    return float(np.median(np.asarray(values, dtype=float)))


def report(path: str, total: int, rows: list[dict], answer, command: str, load: tuple, load_end: tuple) -> str:
    sizes = sorted({r["m"] for r in rows})
    n1 = [r["gmres_1"] if r["gmres_1"] is not None else np.inf for r in rows]
    n2 = [r["gmres_2"] if r["gmres_2"] is not None else np.inf for r in rows]
    lines = [
        "# The sparse Newton step on a large pile (issue #27)",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; load average at "
        f"start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, at the end {load_end[0]:.2f} / {load_end[1]:.2f} / "
        f"{load_end[2]:.2f}. CPU time (`time.process_time`), BLAS on one thread, minimum of the repeats.",
        "",
        f"File `{Path(path).name}`: the route's kernel factored {total} sparse Newton systems (path `{answer.path}`); "
        f"{len(rows)} of them measured, of {', '.join(map(str, sizes)) or 'no'} contacts (the problem's groups).",
        "",
        "| per step (median over the measured steps) | value |",
        "|---|---|",
        f"| assembly + factorization, ordered each time (`splu(J)`) | "
        f"{median([r['reordered'] for r in rows]) * 1e3:.1f} ms |",
        f"| assembly + factorization in the pattern's order (`BlockPattern.factor`) | "
        f"{median([r['ordered'] for r in rows]) * 1e3:.1f} ms |",
        f"| the same solution bit for bit | {sum(r['same'] for r in rows)} of {len(rows)} |",
        f"| assembly of J (`BlockPattern.matrix`) | {median([r['assemble'] for r in rows]) * 1e3:.1f} ms |",
        f"| triangular solves (`SparseFactors.solve`) | {median([r['solve'] for r in rows]) * 1e3:.2f} ms |",
        f"| nnz(L+U) / nnz(J) | {median([r['nnz_lu'] / r['nnz_j'] for r in rows]):.2f} |",
        f"| contacts whose blocks changed since the last step (of the step's system) | "
        f"{median([r['changed'] / r['m'] for r in rows]):.0%} |",
        f"| separated contacts (identity rows, of the step's system) | "
        f"{median([r['separated'] / r['m'] for r in rows]):.0%} "
        f"(at most {max((r['separated'] for r in rows), default=0)} contacts) |",
        f"| ‖J x − b‖/‖b‖ of the last step's factors' solve | {median([r['stale'] for r in rows]):.2f} |",
        f"| GMRES iterations (last step's factors) to 1e-1 | {median(n1):.0f} "
        f"(more than {GMRES_MAX} on {np.mean(np.isinf(n1)) * 100:.0f} %) |",
        f"| GMRES iterations (last step's factors) to 1e-2 | {median(n2):.0f} "
        f"(more than {GMRES_MAX} on {np.mean(np.isinf(n2)) * 100:.0f} %) |",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--every", type=int, default=10, help="measure every this many recorded steps")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", default=None, help="write the results as Markdown to this file")
    args = ap.parse_args(argv)
    load = os.getloadavg()
    steps, total, answer = record(args.file, args.every)
    rows = measure(steps, args.repeat)
    command = "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python " + " ".join(
        [str(Path(sys.argv[0]).relative_to(ROOT)) if Path(sys.argv[0]).is_absolute() else sys.argv[0], *sys.argv[1:]]
    )
    text = report(args.file, total, rows, answer, command, load, os.getloadavg())
    print(text)
    if args.write:
        Path(args.write).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
