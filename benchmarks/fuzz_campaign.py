"""Long fuzz campaign of gaussqp's input layer (issue 9, "Bad input").

Three loaders are fed mutated copies of the shipped problems (``problems/data/*.json``):

* ``json``   -- :func:`gaussqp.loads` on mutated JSON text (tree mutations: hostile values, deleted
  and inserted keys, sparse forms with bad indices and shapes; text mutations: truncation, stray
  characters, duplicate keys, deep nesting, overflowing literals);
* ``npz``    -- :func:`gaussqp.load_npz` on mutated NPZ bytes (members replaced by complex, boolean,
  string, object or mis-shaped arrays, removed, sparse triplets with bad indices, lying ``.npy``
  headers, flipped and truncated bytes);
* ``direct`` -- ``ContactProblem(...)``, ``ContactProblem.from_blocks(...)`` and ``Contact(...)``
  with hostile Python objects (NumPy bool/complex/object arrays, strings, None, ragged lists,
  scipy.sparse matrices of the wrong dtype or a huge shape, bool/float dimensions, ...).

Every input is only loaded/constructed, plus a cheap structural call on what is accepted
(``classify``, ``equalities``, ``inequalities``, :func:`gaussqp.check` and a JSON round trip), under a per-input time
guard. Outcomes: ``accepted`` (a valid ContactProblem), ``typed`` (a :class:`gaussqp.errors.GaussQPError`),
``bare`` (any other exception: a bug; the first tracebacks of each kind are printed) and ``hang``
(the guard fired or the input took longer than the guard). A sample of accepted problems is then
solved with :func:`gaussqp.solve` under a timeout, to catch accepted-but-crashing inputs.

Usage::

    python benchmarks/fuzz_campaign.py --count 100000 --seed 0 --jobs 2 --solve-sample 2000

(``--count`` is per loader.) Exit status 1 when any bare exception or hang was seen.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import multiprocessing
import random
import signal
import sys
import time
import traceback
import warnings
import zipfile
from collections import Counter
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

import gaussqp
from gaussqp import errors
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.problems import DATA

LOADERS = ("json", "npz", "direct")


class Hang(BaseException):
    """Raised by the alarm; a BaseException so that no ``except Exception`` in the library swallows it."""


def _on_alarm(signum, frame):  # pragma: no cover - signal handler
    raise Hang()


def seeds() -> list[dict]:
    """The shipped problem documents (parsed JSON)."""
    return [json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))]


# ---------------------------------------------------------------------- hostile values


def hostile_json_value(rng: random.Random) -> Any:
    """A JSON value that is wrong somewhere in a gaussqp/1 document."""
    pool = [
        True,
        False,
        None,
        "1.5",
        "unilateral",
        "sliding",
        "",
        0,
        1,
        -1,
        2,
        3,
        2.0,
        2.7,
        -0.5,
        1e300,
        -1e300,
        1e50,
        1.5e50,
        1e-320,
        10**400,
        -(10**30),
        [],
        {},
        [[]],
        [1, 2, 3],
        [[1, 2], [3]],
        [True, 1.0],
        ["1", "2"],
        [[1, 0], [0, 1]],
        [[[1.0]]],
        {"shape": [3e16], "index": [], "data": []},
        {"shape": [3e16, 3e16], "row": [], "col": [], "data": []},
        {"shape": [3], "index": [-1], "data": [1.0]},
        {"shape": [3], "index": [0.5], "data": [1.0]},
        {"shape": [3], "index": [0, 1], "data": [1.0]},
        {"shape": [2.7], "index": [], "data": []},
        {"shape": [3, 3], "row": [0, -1], "col": [0, 1], "data": [1, 1]},
        {"shape": [3, 3], "row": [0, 1, 2], "col": [0, 1, 2], "data": [1]},
        {"shape": [20000, 20000], "row": [0], "col": [0], "data": [1.0]},
        float("nan"),
        float("inf"),
    ]
    return copy.deepcopy(rng.choice(pool))


def document_paths(doc: Any) -> list[tuple]:
    """Every path (tuple of keys/indices) into ``doc``, iteratively."""
    out, stack = [], [((), doc)]
    while stack:
        path, v = stack.pop()
        out.append(path)
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        stack.extend((path + (k,), c) for k, c in items)
    return out


def _get(doc: Any, path: tuple) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _sparsify(v: Any, rng: random.Random) -> Any:
    """A dense list (vector or matrix) rewritten as sparse triplets, sometimes damaged."""
    if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
        rows = [(i, j, x) for i, r in enumerate(v) for j, x in enumerate(r) if x != 0]
        out = {
            "shape": [len(v), len(v[0]) if v[0] else 0],
            "row": [r[0] for r in rows],
            "col": [r[1] for r in rows],
            "data": [r[2] for r in rows],
        }
    elif isinstance(v, list):
        nz = [(i, x) for i, x in enumerate(v) if x != 0]
        out = {"shape": [len(v)], "index": [i for i, _ in nz], "data": [x for _, x in nz]}
    else:
        return v
    if rng.random() < 0.5:
        key = rng.choice(list(out))
        out[key] = hostile_json_value(rng) if rng.random() < 0.5 else (out[key] + [rng.choice([-1, 0, 1.5, 99])])
    return out


def mutate_tree(doc: dict, rng: random.Random) -> None:
    """One mutation of the parsed document, in place."""
    path = rng.choice(document_paths(doc))
    op = rng.random()
    if not path:
        doc[rng.choice(["colour", "format", "dimension", "parameters", "name"])] = hostile_json_value(rng)
        return
    parent, key = _get(doc, path[:-1]), path[-1]
    node = parent[key]
    if op < 0.40:
        parent[key] = hostile_json_value(rng)
    elif op < 0.55:
        del parent[key]
    elif op < 0.65 and isinstance(node, (int, float)) and not isinstance(node, bool) and abs(node) < 1e300:
        parent[key] = float(node) * 10.0 ** rng.choice([-300, -50, 20, 49, 51, 300])
    elif op < 0.75:
        parent[key] = _sparsify(node, rng)
    elif op < 0.85 and isinstance(node, list):
        if node and rng.random() < 0.5:
            node.pop(rng.randrange(len(node)))
        else:
            node.append(copy.deepcopy(node[0]) if node else hostile_json_value(rng))
    elif isinstance(node, dict):
        node[rng.choice(["type", "mode", "slip", "tangent", "shape", "index", "nromal", "data"])] = hostile_json_value(
            rng
        )
    else:
        parent[key] = rng.choice(["bilateral", "unilateral", "sticking", "sliding", "frictionless", "gaussqp/2"])


def mutate_text(text: str, rng: random.Random) -> str:
    """One mutation of the JSON text."""
    op = rng.randrange(7)
    i = rng.randrange(len(text) + 1)
    if op == 0:
        return text[:i]
    if op == 1:
        return text[:i] + rng.choice('[]{},:"0123456789eE.-+tfn ') + text[i:]
    if op == 2:
        return (
            text.replace("{", '{"force": [1], ', 1)
            if rng.random() < 0.5
            else text.replace("{", '{"format": "gaussqp/1", ', 1)
        )
    if op == 3:
        k = rng.choice([70, 1000, 100000])
        return text.replace('"force": ', '"force": ' + "[" * k, 1) + "]" * k
    if op == 4:
        return text.replace("0.0", rng.choice(["1" * 400, "1e400", "-1e400", "NaN", "Infinity", "1e300"]), 1)
    if op == 5:
        return text.replace("true", "1", 1).replace("1.0", "true", 1)
    return text[:i] + text[i:][::-1][:5] + text[i + 5 :]


def mutate_numbers(doc: dict, rng: random.Random) -> None:
    """A mild mutation: one number rescaled (mostly valid documents, to exercise what is accepted)."""
    paths = [
        p
        for p in document_paths(doc)
        if p and isinstance(_get(doc, p), (int, float)) and not isinstance(_get(doc, p), bool)
    ]
    if paths:
        path = rng.choice(paths)
        parent = _get(doc, path[:-1])
        parent[path[-1]] = (
            float(parent[path[-1]]) * rng.choice([-1.0, 0.0, 0.5, 3.0, 1e-8, 1e8, 1e30, 1e49]) + rng.random()
        )


def make_json(base: list[dict], rng: random.Random) -> str:
    doc = copy.deepcopy(rng.choice(base))
    if rng.random() < 0.2:
        mutate_numbers(doc, rng)
        return json.dumps(doc)
    for _ in range(rng.randint(1, 3)):
        mutate_tree(doc, rng)
    text = json.dumps(doc)
    if rng.random() < 0.3:
        text = mutate_text(text, rng)
    return text


# ---------------------------------------------------------------------- NPZ


def npz_members(base_problems: list[ContactProblem]) -> list[dict]:
    out = []
    for p in base_problems:
        buf = io.BytesIO()
        gaussqp.save_npz(p, buf)
        with np.load(io.BytesIO(buf.getvalue()), allow_pickle=False) as z:
            out.append({k: z[k] for k in z.files})
    return out


def hostile_array(a: np.ndarray, rng: random.Random) -> np.ndarray:
    """A damaged version of the array ``a``."""
    op = rng.randrange(14)
    if op == 0:
        return a.astype(complex) + 1j if a.dtype.kind in "iuf" else a
    if op == 1:
        return a.astype(bool) if a.dtype.kind in "iufb" else np.array([True])
    if op == 2:
        return np.array([object(), None], dtype=object)
    if op == 3:
        return a.astype(str)
    if op == 4:
        return a.reshape(-1)[:-1] if a.size else np.zeros(3)
    if op == 5:
        return np.concatenate([a.reshape(-1), a.reshape(-1)[:1]]) if a.size else np.ones(1)
    if op == 6:
        return a.reshape(a.shape + (1,))
    if op == 7:
        return np.array(1.0)
    if op == 8 and a.dtype.kind in "iuf":
        b = a.astype(float).copy()
        if b.size:
            b.flat[rng.randrange(b.size)] = rng.choice([1e300, -1e60, np.nan, np.inf, -1.0, 1e-320])
        return b
    if op == 9:
        return a.astype(np.float32) if a.dtype.kind == "f" else a.astype(np.int8) if a.dtype.kind in "iu" else a
    if op == 10:
        return np.array(rng.choice([4, 2.0, "2", True, -1, 3]))
    if op == 11:
        return np.array(["unilateral", "sliding", "wobbly"][: rng.randint(0, 3)])
    if op == 12:
        return np.zeros((0,))
    return np.array([rng.choice([-1, 0, 2, 2**40])])


def _npz_sparse_form(m: dict, key: str, rng: random.Random) -> None:
    if key not in m or m[key].ndim != 2 or m[key].dtype.kind not in "biufc":
        return
    A = sp.coo_matrix(m.pop(key))
    row, col = A.row.astype(np.int64), A.col.astype(np.int64)
    shape = np.array(A.shape, dtype=np.int64)
    damage = rng.randrange(6)
    if damage == 0 and row.size:
        row[0] = -1
    elif damage == 1:
        shape = np.array([3 * 10**16, 3 * 10**16])
    elif damage == 2:
        col = col.astype(float) + 0.5
    elif damage == 3:
        row = row[:-1]
    elif damage == 4 and row.size:
        col[0] = shape[1]
    m[f"{key}_shape"], m[f"{key}_row"], m[f"{key}_col"], m[f"{key}_data"] = shape, row, col, A.data


def _lie_in_header(data: bytes, rng: random.Random) -> bytes:
    """Rewrite one member of an uncompressed NPZ with a header declaring a huge or wrong shape."""
    src, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    victim = rng.choice(src.namelist())
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == victim:
                head = io.BytesIO()
                shape = rng.choice([(3 * 10**16,), (10**5, 10**5), (4,), (2, 2)])
                np.lib.format.write_array_header_1_0(
                    head, {"descr": rng.choice(["<f8", "|O", "<c16", "<i8"]), "fortran_order": False, "shape": shape}
                )
                body = head.getvalue() + b"\0" * rng.choice([0, 8, 32])
            dst.writestr(info.filename, body)
    return out.getvalue()


def make_npz(base: list[dict], rng: random.Random) -> bytes:
    m = {k: v.copy() for k, v in rng.choice(base).items()}
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        key = rng.choice(list(m)) if m else "force"
        if op < 0.55 and key in m:
            m[key] = hostile_array(m[key], rng)
        elif op < 0.65:
            m.pop(key, None)
        elif op < 0.70:
            m["extra"] = np.arange(3)
        else:
            _npz_sparse_form(m, rng.choice(["mass_matrix", "J_n", "J_t"]), rng)
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (np.savez_compressed if rng.random() < 0.3 else np.savez)(buf, **m)
    data = buf.getvalue()
    r = rng.random()
    if r < 0.10:
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        data = bytes(b)
    elif r < 0.15:
        data = data[: rng.randrange(len(data))]
    elif r < 0.22:
        try:
            data = _lie_in_header(data, rng)
        except zipfile.BadZipFile:
            pass
    return data


# ---------------------------------------------------------------------- direct construction


def hostile_python(rng: random.Random, like: Any = None) -> Any:
    """A Python object that is wrong as some argument of the constructors."""
    arr = np.asarray(like, dtype=float) if isinstance(like, np.ndarray) and like.dtype.kind in "iuf" else np.zeros(2)
    pool: list[Callable[[], Any]] = [
        lambda: None,
        lambda: True,
        lambda: "1.5",
        lambda: 2.0,
        lambda: np.int64(3),
        lambda: 4,
        lambda: -1,
        lambda: np.bool_(True),
        lambda: 1 + 2j,
        lambda: float("nan"),
        lambda: 1e300,
        lambda: 10**400,
        lambda: arr.astype(bool),
        lambda: arr.astype(complex),
        lambda: arr.astype(object),
        lambda: arr.astype(str),
        lambda: arr.tolist() + [True],
        lambda: [[1.0, 2.0], [3.0]],
        lambda: arr.reshape(-1)[:-1],
        lambda: np.concatenate([arr.reshape(-1), [1e300]]),
        lambda: arr * 1e60,
        lambda: -arr - 1,
        lambda: sp.csr_matrix(np.atleast_2d(arr)),
        lambda: sp.csr_matrix(np.atleast_2d(arr), dtype=complex),
        lambda: sp.coo_matrix((3 * 10**9, 3 * 10**9)),
        lambda: sp.coo_matrix((2, 3 * 10**9)),
        lambda: [],
        lambda: {},
        lambda: object(),
        lambda: np.array(["unilateral", "bilateral"]),
        lambda: ["unilateral"],
        lambda: np.full_like(arr, np.inf),
        lambda: np.zeros((0, 0)),
        lambda: np.float32(2.5),
        lambda: arr.astype(np.float16),
        lambda: iter([1.0, 2.0]),
    ]
    return rng.choice(pool)()


def direct_args(problems: list[ContactProblem]) -> list[dict]:
    out = []
    for p in problems:
        out.append(
            {
                "M": np.array(p.M),
                "F": np.array(p.F),
                "contacts": list(p.contacts),
                "dimension": p.dimension,
                "J_n": np.array(p.J_n),
                "normal_drift": np.array(p.normal_drift),
                "types": list(p.types),
                "J_t": np.array(p.J_t),
                "tangent_drift": np.array(p.tangent_drift),
                "friction": np.array(p.friction),
                "modes": list(p.modes),
                "slip": np.array(p.slip),
                "has_tangent": np.array(p.has_tangent),
            }
        )
    return out


CONTACT_FIELDS = ("type", "normal", "normal_drift", "friction", "mode", "tangent", "tangent_drift", "slip")
BLOCK_ARGS = (
    "M",
    "F",
    "J_n",
    "normal_drift",
    "types",
    "J_t",
    "tangent_drift",
    "friction",
    "modes",
    "slip",
    "has_tangent",
    "dimension",
)


def make_direct(base: list[dict], rng: random.Random) -> Callable[[], ContactProblem]:
    """A thunk constructing a problem from damaged Python objects (built lazily, inside the guard)."""
    a = dict(rng.choice(base))
    blocks = rng.random() < 0.5
    for _ in range(rng.randint(1, 2)):
        if blocks:
            key = rng.choice(BLOCK_ARGS)
            a[key] = hostile_python(rng, a.get(key))
        elif (
            isinstance(a["contacts"], list)
            and a["contacts"]
            and rng.random() < 0.6
            and isinstance(a["contacts"][i := rng.randrange(len(a["contacts"]))], Contact)
        ):
            contacts = list(a["contacts"])
            fields = {f: getattr(contacts[i], f) for f in CONTACT_FIELDS}
            f = rng.choice(CONTACT_FIELDS)
            fields[f] = hostile_python(rng, fields[f])
            contacts[i] = fields if rng.random() < 0.05 else Contact(**fields)
            a["contacts"] = contacts
        else:
            key = rng.choice(("M", "F", "contacts", "dimension"))
            a[key] = hostile_python(rng, a.get(key))
    if blocks:
        return lambda: ContactProblem.from_blocks(
            a["M"],
            a["F"],
            a["J_n"],
            a["normal_drift"],
            a["types"],
            a["J_t"],
            a["tangent_drift"],
            a["friction"],
            a["modes"],
            a["slip"],
            a["has_tangent"],
            a["dimension"],
        )
    return lambda: ContactProblem(a["M"], a["F"], a["contacts"], dimension=a["dimension"])


# ---------------------------------------------------------------------- the campaign


def structural(p: ContactProblem) -> None:
    """The cheap calls an accepted problem must survive."""
    p.classify()
    p.equalities
    p.inequalities
    gaussqp.check(p)
    q = gaussqp.loads(gaussqp.dumps(p))
    assert q.n == p.n and q.m == p.m


def _guarded(fn: Callable[[], Any], guard: float) -> tuple[str, Any, float]:
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, guard)
    try:
        out = fn()
        kind = "accepted"
    except Hang:
        kind, out = "hang", None
    except errors.GaussQPError as exc:
        kind, out = "typed", exc
    except Exception as exc:  # noqa: BLE001 - the point is to count them
        kind, out = "bare", exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    elapsed = time.perf_counter() - start
    if kind != "hang" and elapsed > guard:
        kind = "hang"
    return kind, out, elapsed


def _signature(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    last = tb[-1] if tb else None
    return f"{type(exc).__name__} at {last.filename.split('/')[-1]}:{last.lineno}" if last else type(exc).__name__


def _make_input(loader: str, base: list, rng: random.Random) -> Callable[[], ContactProblem]:
    """One mutated input of ``loader``, as a thunk that loads/constructs it."""
    if loader == "json":
        text = make_json(base, rng)
        return lambda: gaussqp.loads(text)
    if loader == "npz":
        data = make_npz(base, rng)
        return lambda: gaussqp.load_npz(io.BytesIO(data))
    return make_direct(base, rng)


def run_chunk(task: tuple) -> dict:
    """Run ``count`` inputs of one loader from ``seed``; returns the counts and samples."""
    loader, seed, count, guard, solve_share, solve_timeout, progress_every = task
    signal.signal(signal.SIGALRM, _on_alarm)
    warnings.simplefilter("ignore")
    rng = random.Random(seed)
    docs = seeds()
    shipped = [gaussqp.loads(json.dumps(d)) for d in docs]
    base = {"json": docs, "npz": npz_members(shipped), "direct": direct_args(shipped)}[loader]
    counts: Counter = Counter()
    bare: dict[str, str] = {}
    hangs: list[str] = []
    accepted: list[ContactProblem] = []
    start = time.perf_counter()
    for k in range(count):
        try:
            fn = _make_input(loader, base, rng)
        except Exception:  # noqa: BLE001 - a mutator bug: count it, keep going
            counts["generator_error"] += 1
            continue
        kind, out, elapsed = _guarded(fn, guard)
        if kind == "accepted":
            skind, sout, _ = _guarded(lambda out=out: structural(out), guard)
            if skind != "accepted":
                kind, out = ("structural_" + skind), sout
            elif len(accepted) < solve_share:
                accepted.append(out)
            elif rng.random() < solve_share / (k + 1):
                accepted[rng.randrange(solve_share)] = out
        counts[kind] += 1
        if kind.endswith("bare"):
            sig = _signature(out)
            counts[f"bare: {sig}"] += 1
            if sig not in bare and len(bare) < 20:
                bare[sig] = "".join(traceback.format_exception(type(out), out, out.__traceback__)[-6:])
        if kind == "structural_typed" and len(bare) < 20:
            bare.setdefault(f"structural typed {type(out).__name__}", str(out))
        if kind.endswith("hang") and len(hangs) < 5:
            hangs.append(f"{elapsed:.1f}s")
        if progress_every and (k + 1) % progress_every == 0:
            print(
                f"[{loader} seed {seed}] {k + 1}/{count} accepted={counts['accepted']} typed={counts['typed']} "
                f"bare={counts['bare'] + counts['structural_bare']} hangs={counts['hang'] + counts['structural_hang']} "
                f"{time.perf_counter() - start:.0f}s",
                file=sys.stderr,
                flush=True,
            )
    elapsed_load = time.perf_counter() - start
    solved: Counter = Counter()
    for p in accepted:
        kind, out, _ = _guarded(lambda p=p: gaussqp.solve(p), solve_timeout)
        solved[kind if kind != "accepted" else f"status {out.status}"] += 1
        if kind == "bare":
            sig = _signature(out)
            solved[f"bare: {sig}"] += 1
            if f"solve {sig}" not in bare:
                bare[f"solve {sig}"] = "".join(traceback.format_exception(type(out), out, out.__traceback__)[-6:])
    return {"loader": loader, "counts": counts, "bare": bare, "hangs": hangs, "time": elapsed_load, "solved": solved}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=100_000, help="inputs per loader (default 100000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--loaders", default=",".join(LOADERS), help="comma-separated subset of json,npz,direct")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--guard", type=float, default=10.0, help="seconds per input before it counts as a hang")
    ap.add_argument("--solve-sample", type=int, default=2000, help="accepted problems solved (over all loaders)")
    ap.add_argument("--solve-timeout", type=float, default=60.0)
    ap.add_argument("--progress", type=int, default=10_000, help="progress line every N inputs per worker")
    args = ap.parse_args(argv)
    loaders = [s for s in args.loaders.split(",") if s]
    chunks = max(1, args.jobs)
    share = -(-args.solve_sample // (len(loaders) * chunks))
    tasks = [
        (
            ld,
            args.seed * 1000 + 10 * i + j,
            args.count // chunks + (j < args.count % chunks),
            args.guard,
            share,
            args.solve_timeout,
            args.progress,
        )
        for i, ld in enumerate(loaders)
        for j in range(chunks)
    ]
    t0 = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            results = pool.map(run_chunk, tasks, chunksize=1)
    else:
        results = [run_chunk(t) for t in tasks]
    bad = 0
    print(
        f"gaussqp fuzz campaign: seed {args.seed}, {args.count} inputs per loader, guard {args.guard:g} s, "
        f"{args.jobs} job(s), wall time {time.perf_counter() - t0:.0f} s"
    )
    for ld in loaders:
        rs = [r for r in results if r["loader"] == ld]
        c = sum((r["counts"] for r in rs), Counter())
        s = sum((r["solved"] for r in rs), Counter())
        n = sum(v for k, v in c.items() if ":" not in k and k != "generator_error")
        nbare = c["bare"] + c["structural_bare"]
        nhang = c["hang"] + c["structural_hang"]
        bad += nbare + nhang + s["bare"] + s["hang"]
        print(
            f"\n[{ld}] inputs {n}  accepted {c['accepted']}  typed errors {c['typed']}  bare exceptions {nbare}  "
            f"hangs {nhang}  (structural: typed {c['structural_typed']}, bare {c['structural_bare']})  "
            f"load time {sum(r['time'] for r in rs):.0f} s (summed over workers)"
        )
        if c["generator_error"]:
            print(f"[{ld}] ({c['generator_error']} inputs not generated: mutator errors, not counted)")
        print(
            f"[{ld}] solve sample: {sum(v for k, v in s.items() if ':' not in k)} solved -> "
            + ", ".join(f"{k} {v}" for k, v in sorted(s.items()))
        )
        for k, v in sorted(c.items()):
            if k.startswith("bare: "):
                print(f"    {v:6d} x {k}")
        for r in rs:
            for sig, tb in r["bare"].items():
                print(f"--- {ld}: {sig}\n{tb}")
            if r["hangs"]:
                print(f"--- {ld}: hangs {r['hangs']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
