"""Issue #29 item 4: the audit of Siconos's answers on FCLIB problems, file by file: Siconos's claim (``info == 0``),
our judge's verdict on its answer, the certified rigid answer, the flags of the comparison, and the time.

    python benchmarks/audit_siconos_fclib.py [SOLVER] [FILES...]   # default fc3d_nsgs on the shipped generated set

Prints one Markdown table (and writes it with the JSON of every audit to ``--out``, default
``/tmp/audit_siconos_fclib``). Needs Siconos (``/usr/bin/python3 -c "import siconos.numerics"``) and h5py.
"""

from __future__ import annotations

import json
import pathlib
import sys
import time

from gaussqp.audit import siconos_
from gaussqp.errors import GaussQPError
from gaussqp.results import to_jsonable

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    out = pathlib.Path("/tmp/audit_siconos_fclib")
    if "--out" in argv:
        k = argv.index("--out")
        out = pathlib.Path(argv[k + 1])
        argv = argv[:k] + argv[k + 2 :]
    solver = argv[0] if argv and not argv[0].endswith(".hdf5") else "fc3d_nsgs"
    files = [pathlib.Path(a) for a in argv if a.endswith(".hdf5")] or sorted(
        (ROOT / "problems/data/fclib_generated").glob("*.hdf5")
    )
    out.mkdir(parents=True, exist_ok=True)
    rows = [
        "| problem | contacts | Siconos claims | our judge: a solution | rigid certified | acceleration unique "
        "| flags | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in files:
        t0 = time.perf_counter()
        try:
            rep = siconos_.audit(f, solver=solver)
        except GaussQPError as exc:
            rows.append(
                f"| {f.name} | | | | | | refused: {type(exc).__name__}: {str(exc)[:120]} | "
                f"{time.perf_counter() - t0:.1f} |"
            )
            print(rows[-1], flush=True)
            continue
        st = rep.states[0]
        kinds: dict[str, int] = {}
        for fl in st.flags:
            kinds[fl.split(":")[0]] = kinds.get(fl.split(":")[0], 0) + 1
        eng = st.engine_answer or {}
        rows.append(
            f"| {f.name} | {len(st.contacts)} | {rep.options['siconos'].get('claimed_success')} | "
            f"{eng.get('certified_solution')} | {st.certified} | {st.acceleration_unique} | "
            f"{', '.join(f'{k} {v}' for k, v in sorted(kinds.items())) or '—'} | {rep.seconds:.1f} |"
        )
        print(rows[-1], flush=True)
        (out / (f.stem + ".json")).write_text(json.dumps(to_jsonable(rep.as_dict())))
    (out / "table.md").write_text("\n".join(rows) + "\n")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
