"""Snapshot of the JSON output of every shipped problem, and a comparison of two snapshots.

Used to show that a refactoring leaves behaviour unchanged::

    python scripts/json_snapshot.py write before.json      # on the old code
    python scripts/json_snapshot.py write after.json       # on the new code
    python scripts/json_snapshot.py compare before.json after.json [--replace OLD=>NEW ...]

For every shipped problem it records ``gaussqp check --json`` and ``gaussqp solve --json`` with
``--formulation auto`` and with every registered formulation (an error is recorded as its type
and message). Timings are left out. ``compare`` reports every difference: numbers are equal when
``|x - y| <= 1e-12 max(1, |x|, |y|)``, everything else must be identical, after the textual
replacements given with ``--replace OLD=>NEW`` are applied to the strings of the first snapshot (for an
intended change of wording, e.g. a citation that moved; each one is printed with its count).
"""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np


def _plain(v):  # not gaussqp.results.to_jsonable: this script must also run on code from before that helper
    """JSON-ready copy of a report (numpy arrays and scalars, non-finite floats as strings)."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        x = float(v)
        return x if np.isfinite(x) else repr(x)
    if hasattr(v, "as_dict"):
        return _plain(v.as_dict())
    return v


def _without_times(d):
    if isinstance(d, dict):
        return {k: _without_times(x) for k, x in d.items() if k != "times"}
    if isinstance(d, list):
        return [_without_times(x) for x in d]
    return d


def snapshot() -> dict:
    import gaussqp
    from gaussqp import problems

    out = {}
    for name in problems.names():
        p = problems.load(name)
        entry = {"check": _plain(gaussqp.check(p).as_dict())}
        for f in ["auto", *sorted(gaussqp.FORMULATIONS)]:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    entry[f"solve:{f}"] = _without_times(_plain(gaussqp.solve(p, formulation=f).as_dict()))
            except Exception as exc:  # recorded: the comparison wants the same error before and after
                entry[f"solve:{f}"] = {"error": type(exc).__name__, "message": str(exc)}
        out[name] = entry
        print(name, file=sys.stderr)
    return out


def compare(a, b, path: str = "", diffs: list | None = None) -> list:
    diffs = [] if diffs is None else diffs
    num = (int, float)
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                diffs.append(f"{path}/{k}: only in {'after' if k not in a else 'before'}")
            else:
                compare(a[k], b[k], f"{path}/{k}", diffs)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diffs.append(f"{path}: length {len(a)} != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", diffs)
    elif isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) and not isinstance(b, bool):
        if abs(a - b) > 1e-12 * max(1.0, abs(a), abs(b)):
            diffs.append(f"{path}: {a!r} != {b!r}")
    elif a != b:
        diffs.append(f"{path}: {a!r} != {b!r}")
    return diffs


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "write":
        with open(argv[1], "w") as fh:
            json.dump(snapshot(), fh, indent=1, sort_keys=True)
        return 0
    if len(argv) >= 3 and argv[0] == "compare" and all(a == "--replace" for a in argv[3::2]) and len(argv[3:]) % 2 == 0:
        pairs = [tuple(r.split("=>", 1)) for r in argv[4::2]]
        with open(argv[1]) as fa, open(argv[2]) as fb:
            text = fa.read()
            for old, new in pairs:
                print(f"replaced {text.count(json.dumps(old)[1:-1])} x {old!r} -> {new!r}")
                text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
            diffs = compare(json.loads(text), json.load(fb))
        print("\n".join(diffs) if diffs else "identical (numbers to 1e-12)")
        print(f"{len(diffs)} differences")
        return 1 if diffs else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
