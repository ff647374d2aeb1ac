"""Our route (coulomb_fixed_point, the study's own call: accepts + Formulation.solve) on the problems where the study
recorded a timeout for it, loaded straight from the file (no gaussqp/1 pack/unpack), timed around the solve alone
and around load + solve; the answer judged by the route's own certificate (status solved = our natural-map residual
passed) and its residual printed."""

import json
import time

import pandas as pd
from gaussqp.io.fclib import load as read_fclib
from gaussqp.studies.runner import pack, unpack
from gaussqp.formulations import FORMULATIONS
from gaussqp.settings import get_tolerance

d = pd.read_json("/tmp/bench-study/out/results.jsonl", lines=True)
names = sorted(d[(d.formulation == "coulomb_fixed_point") & (d.status == "timeout")].problem)
f = FORMULATIONS["coulomb_fixed_point"]
rows = []
for name in names:
    t0 = time.perf_counter()
    p = read_fclib(f"/tmp/bench-study/set/{name}")
    t1 = time.perf_counter()
    data = pack(p)
    t2 = time.perf_counter()
    unpack(data)
    t3 = time.perf_counter()
    ok, why = f.accepts(p, p.classify())
    t4 = time.perf_counter()
    sol = f.solve(p, solver="clarabel", tolerance=get_tolerance("high"))
    t5 = time.perf_counter()
    r = dict(
        problem=name,
        m=p.m,
        n=p.n,
        read_s=round(t1 - t0, 3),
        study_unpack_s=round(t3 - t2, 3),
        solve_s=round(t5 - t4, 3),
        status=str(getattr(sol.status, "value", sol.status)),
        residual=max([float(v) for v in sol.residuals.values() if v is not None], default=None),
        route=getattr(sol, "route", None),
    )
    print(json.dumps(r, default=str), flush=True)
    rows.append(r)
json.dump(rows, open("/tmp/bench-study/rerun_timeouts.json", "w"), indent=1, default=str)
