"""Issue #15's acceptance "no answer changes": the JSON answer of every shipped problem (`gaussqp solve NAME --json`
with defaults: the library, the real robots and FCLIB files, and the generated FCLIB problems, mode-free), saved from
one commit and compared with another to a relative 1e-9.

    python benchmarks/answers_unchanged.py save before.json     # on the old commit
    python benchmarks/answers_unchanged.py compare before.json  # on the new one: prints every difference, exit 1 if any

Compared: status, certified, formulation, the acceleration, multipliers, generalized force, the uniqueness flags, the
certificates' ids and verdicts (``holds``) and the cross-check's verdict (``agree`` and each route's outcome); numbers
to ``|x − y| <= 1e-9 · max(1, |x|, |y|)`` entry by entry. Residuals and margins are round-off-sized diagnostics and
times are not answers: they are left out. A part that a saved file does not hold (saved by an older version of this
script) is not compared, and the comparison says so; so is a problem it does not hold (one shipped since).

Run both ends with the same BLAS threads: where a problem's solution set is not a point, the answer is one certified
member, and which one can move with the round-off of a threaded product (three generated mode-free problems,
``box_pile-s0-i0000-m50``, its local form and ``humanoid-s0-i0008-m51``, differed by up to ~1e-4 of their largest
entry between one thread and NumPy's default). Since problems of at most ``settings.BLAS_ONE_THREAD_SIZE_MAX``
unknowns are solved on one BLAS thread whatever the libraries' setting, a save made before that change compares with
today's answers when it was made on one thread (``OPENBLAS_NUM_THREADS=1``). A save records the threads it ran with and
the machine's cores (``ENVIRONMENT``); a comparison run with others says so before its differences.
"""

from __future__ import annotations

import json
import sys

import numpy as np

import gaussqp
from gaussqp import problems

RTOL = 1e-9
#: the saved file's entry that records how the answers were made (not a problem)
ENVIRONMENT = "__environment__"
KEYS = (
    "status",
    "certified",
    "formulation",
    "acceleration",
    "lambda_normal",
    "lambda_tangent",
    "generalized_force",
    "unique",
)


def answers() -> dict:
    out = {}
    for name in problems.names() + problems.real_names() + problems.generated_names():
        sol = gaussqp.solve(problems.load(name))
        js = json.loads(json.dumps(sol.as_dict()))  # what `gaussqp solve --json` prints
        out[name] = {k: js.get(k) for k in KEYS}
        out[name]["certificates"] = {c["id"]: c.get("holds") for c in js.get("certificates", [])}
        cc = js.get("crosscheck") or {}
        out[name]["crosscheck"] = {
            "agree": cc.get("agree"),
            "routes": [[r.get("route"), r.get("outcome")] for r in cc.get("routes", [])],
        }
    return out


def environment() -> dict:
    """The machine's cores and the BLAS libraries' thread counts this process runs with (``threadpoolctl`` when it is
    installed, else the ``*_NUM_THREADS`` variables, which NumPy's default leaves unset: its threads follow the
    cores)."""
    import os

    out: dict = {"cpu_count": os.cpu_count()}
    try:
        from threadpoolctl import threadpool_info

        out["blas"] = sorted(f"{i['internal_api']} {i['num_threads']} threads" for i in threadpool_info())
    except ImportError:
        out.update({v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    return out


def _diff(a, b, path: str, found: list) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            _diff(a.get(k), b.get(k), f"{path}.{k}", found)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            found.append(f"{path}: length {len(a)} != {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{path}[{i}]", found)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if not abs(a - b) <= RTOL * max(1.0, abs(a), abs(b)):
            found.append(f"{path}: {a!r} != {b!r}")
    elif a != b:
        found.append(f"{path}: {a!r} != {b!r}")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("save", "compare"):
        print(__doc__)
        return 2
    now = answers()
    if argv[0] == "save":
        with open(argv[1], "w") as f:
            json.dump({ENVIRONMENT: environment(), **now}, f, indent=1)
        print(f"{len(now)} answers saved to {argv[1]}")
        return 0
    with open(argv[1]) as f:
        before = json.load(f)
    saved_env = before.pop(ENVIRONMENT, None)
    if saved_env is None:
        print(f"the saved file does not record its BLAS threads (an older save); this run: {environment()}")
    elif saved_env != environment():
        print(f"saved with {saved_env}, compared with {environment()}: answers that are one member of a set may move")
    found: list[str] = []
    new_names = sorted(set(now) - set(before))
    if new_names:
        print(f"not in the saved answers (an older save), not compared: {len(new_names)} problems ({new_names[0]}, …)")
        now = {name: a for name, a in now.items() if name in before}
    parts = {k for answers_ in before.values() for k in answers_}
    missing = sorted({k for answers_ in now.values() for k in answers_} - parts)
    if missing:
        print(f"not in the saved answers (an older save), not compared: {', '.join(missing)}")
        now = {name: {k: v for k, v in a.items() if k in parts} for name, a in now.items()}
    _diff(before, now, "", found)
    for line in found:
        print(line)
    print(f"{len(now)} problems, {len(found)} differences (relative tolerance {RTOL:g})")
    return 1 if found else 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main(sys.argv[1:]))
