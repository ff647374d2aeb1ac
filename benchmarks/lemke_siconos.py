"""Benchmark (not a test), issue #15: our Lemke against Siconos's C ``lcp_lexicolemke`` on the same LCPs.

Side by side in one run, paired: for each repetition and each LCP, our :func:`gaussqp.linalg.lemke.lemke`, the
Lemke of an earlier revision (``--before``, read from git: today's figures before issue #15) and Siconos's
``SICONOS_LCP_LEMKE`` are timed in turn (the order reversed every other repetition, after one untimed warm-up
run of each); the table gives medians of ``--reps`` such runs and the ratios to Siconos. Siconos runs in the interpreter that has it (Debian's ``python3-siconos``,
:func:`gaussqp.studies.peers.siconos_python`) as one persistent worker process, so its time is measured inside
that process around the solver call only (no process start, no data transfer, no ``LCP``/options construction).

LCPs: dense SPD matrices ``A Aᵀ/k + 0.01 I`` with ``q ~ N(0, 1)`` (seeded), k = 50, 100, 200, 500, and the
contact LCPs ``(A_c, w_c)`` of planar chains (``families.chain(k, lift=1.5)``: k bodies, k unilateral
contacts, the bilateral joints eliminated; as in ``benchmarks/bench.py`` section 4), k = 10, 100, 300, 1000.
BLAS is pinned single-threaded (threadpoolctl when installed, else ``OMP_NUM_THREADS=1`` and friends set
before NumPy is imported, for this process and the worker).

Run: ``python benchmarks/lemke_siconos.py [--reps 5] [--quick] [--before REV]``
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy is imported (here and in the worker, which inherits the environment)

import argparse  # noqa: E402
import contextlib  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from gaussqp.mechanics.delassus import constrained_delassus  # noqa: E402
from gaussqp.linalg.lemke import lemke  # noqa: E402
from gaussqp.problems import families  # noqa: E402
from gaussqp.studies.peers import siconos_python  # noqa: E402

#: the last commit before issue #15's Lemke (today's figures)
BEFORE = "77f639c"

_WORKER = r"""
import json, sys, time
import numpy as np
import siconos.numerics as sn
data = np.load(sys.argv[1], allow_pickle=False)
for line in sys.stdin:
    name = line.strip()
    M, q = np.ascontiguousarray(data[name + "_M"]), np.ascontiguousarray(data[name + "_q"])
    lcp = sn.LCP(M, q)
    z, w = np.zeros(q.size), np.zeros(q.size)
    o = sn.SolverOptions(sn.SICONOS_LCP_LEMKE)
    o.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 50 * q.size + 100  # our default pivot limit
    t = time.perf_counter()
    info = sn.lcp_lexicolemke(lcp, z, w, o)
    t = time.perf_counter() - t
    print(json.dumps({"time": t, "info": int(info), "iterations": int(o.iparam[sn.SICONOS_IPARAM_ITER_DONE]),
                      "z": z.tolist()}), flush=True)
"""


def lcps(quick: bool) -> list[tuple[str, int, np.ndarray, np.ndarray]]:
    """(name, k, M, q): the dense SPD LCPs, then the chains' contact LCPs."""
    out = []
    rng = np.random.default_rng(15)
    for k in (50, 100, 200) if quick else (50, 100, 200, 500):
        A = rng.standard_normal((k, k))
        out.append((f"dense SPD {k}", k, A @ A.T / k + 0.01 * np.eye(k), rng.standard_normal(k)))
    for k in (10, 100, 300) if quick else (10, 100, 300, 1000):
        cd = constrained_delassus(families.chain(k, lift=1.5, duplicate_every=0))
        out.append((f"chain {k}", cd.w_c.size, cd.A_c, cd.w_c))
    return out


def load_before(rev: str):
    """The ``lemke`` function of ``gaussqp/linalg/lemke.py`` at git revision ``rev`` (None without git)."""
    root = Path(__file__).resolve().parents[1]
    try:
        src = subprocess.run(
            ["git", "-C", str(root), "show", f"{rev}:gaussqp/linalg/lemke.py"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    name = "gaussqp.linalg._lemke_before"  # inside the package: its relative imports (..settings) resolve
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    exec(compile(src, f"{rev}:gaussqp/linalg/lemke.py", "exec"), mod.__dict__)
    return mod.lemke


def natural_map(M, q, z) -> float:
    """``max|min(z, M z + q)|`` over ``max(1, |q|∞)``: the same measure for every code."""
    return float(np.abs(np.minimum(z, M @ z + q)).max(initial=0.0)) / max(1.0, float(np.abs(q).max()))


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5, help="paired runs per LCP (medians are printed)")
    ap.add_argument("--quick", action="store_true", help="without k = 500 and the 1000-body chain")
    ap.add_argument("--before", default=BEFORE, help="git revision of the 'before' Lemke ('' for none)")
    args = ap.parse_args()

    limiter = contextlib.nullcontext()
    with contextlib.suppress(ImportError):
        from threadpoolctl import threadpool_limits

        limiter = threadpool_limits(limits=1)
    problems = lcps(args.quick)
    before = load_before(args.before) if args.before else None
    with tempfile.TemporaryDirectory() as tmp, limiter:
        data = Path(tmp) / "lcps.npz"
        np.savez(data, **{f"{n}_M": M for n, _, M, _ in problems}, **{f"{n}_q": q for n, _, _, q in problems})
        worker = None
        try:
            worker = subprocess.Popen(
                [siconos_python(), "-c", _WORKER, str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
        except OSError as e:
            print(f"Siconos's interpreter {siconos_python()} does not start ({e}): Siconos columns empty")

        def siconos(name):
            if worker is None or worker.poll() is not None:
                return None
            worker.stdin.write(name + "\n")
            worker.stdin.flush()
            line = worker.stdout.readline()
            return json.loads(line) if line else None

        times = {n: {"ours": [], "before": [], "siconos": []} for n, *_ in problems}
        last = {}
        codes = {
            "ours": lambda M, q, name: timed(lemke, M, q),
            "before": lambda M, q, name: timed(before, M, q) if before is not None else (None, None),
            "siconos": lambda M, q, name: (lambda s: (s["time"], s) if s else (None, None))(siconos(name)),
        }
        for name, k, M, q in problems:  # one untimed warm-up run of each code per LCP
            for code in codes.values():
                code(M, q, name)
        for rep in range(args.reps):
            order = list(codes) if rep % 2 == 0 else list(codes)[::-1]  # no code always first
            for name, k, M, q in problems:
                out = {}
                for who in order:
                    t, out[who] = codes[who](M, q, name)
                    if t is not None:
                        times[name][who].append(t)
                last[name] = (out["ours"], out["before"], out["siconos"])
        if worker is not None:
            worker.stdin.close()
            worker.wait()

    med = {n: {who: (statistics.median(ts) if ts else float("nan")) for who, ts in d.items()} for n, d in times.items()}
    print(
        f"Lemke: ours vs Siconos lcp_lexicolemke (SICONOS_LCP_LEMKE), medians of {args.reps} paired runs, "
        f"BLAS single-threaded; before = {args.before or 'not run'}"
    )
    head = (
        f"{'LCP':>15} {'k':>5} {'pivots ours/sic':>16} {'before [ms]':>12} {'ours [ms]':>10} "
        f"{'siconos [ms]':>13} {'before/sic':>11} {'ours/sic':>9} {'ours status':>12} {'nat.map ours':>13} "
        f"{'nat.map sic':>12} {'|z - z_sic|':>12}"
    )
    print(head)
    for name, k, M, q in problems:
        res, resb, sic = last[name]
        m = med[name]
        piv = f"{res.iterations}/{sic['iterations'] if sic else '-'}"
        err_sic = natural_map(M, q, np.array(sic["z"])) if sic and sic["info"] == 0 else float("nan")
        err_ours = natural_map(M, q, res.z) if res.success else float("nan")
        dz = (
            float(np.abs(res.z - np.array(sic["z"])).max())
            if res.success and sic and sic["info"] == 0
            else float("nan")
        )
        print(
            f"{name:>15} {k:>5} {piv:>16} {m['before'] * 1e3:>12.3f} {m['ours'] * 1e3:>10.3f} "
            f"{m['siconos'] * 1e3:>13.3f} {m['before'] / m['siconos']:>11.2f} {m['ours'] / m['siconos']:>9.2f} "
            f"{res.status:>12} {err_ours:>13.1e} {err_sic:>12.1e} {dz:>12.1e}"
        )
        if resb is not None and resb.success and res.success and resb.iterations != res.iterations:
            print(f"{'':>15} (before: {resb.iterations} pivots)")


if __name__ == "__main__":
    main()
