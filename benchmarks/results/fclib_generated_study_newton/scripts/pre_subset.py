"""The pre-Newton study's results (the full run of benchmarks/results/fclib_generated_study, 2026-11-26, its
results.parquet) restricted to this run's subset, re-reported with gaussqp's own report code."""

import json
import os
from pathlib import Path

import pandas as pd
from gaussqp.studies.report import write_report

names = set(os.listdir("/tmp/bench-study/set"))
d = pd.read_parquet("/tmp/study/out/results.parquet")
sub = d[d["problem"].isin(names)].copy()
print(len(d), "->", len(sub), "runs;", sub["problem"].nunique(), "problems")
probs = [p for p in json.load(open("/tmp/study/out/problems.json")) if p["problem"] in names]
out = Path("/tmp/bench-study/pre_subset")
write_report(
    sub,
    out,
    time_limit=5.0,
    title="Pre-Newton study restricted to the subset",
    skipped=json.load(open("/tmp/study/out/skipped.json")),
    problems=probs,
    versions=json.load(open("/tmp/study/out/versions.json")),
)
