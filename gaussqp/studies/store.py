"""The results of a study on disk, and resuming.

Every finished run is appended at once, one JSON object a line, to ``results.jsonl`` in the output directory
(the journal: a study stopped at any point keeps every row it finished); the table ``results.parquet``
(pandas + pyarrow installed) or else ``results.csv`` is rewritten from all rows, with the reference columns,
while the study runs and at its end. A re-run loads the journal (or, without one, the table) and skips the
finished (problem, route) pairs: :data:`KEY` identifies a pair.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

from ..errors import FileFormatError

#: the columns that identify one run: a re-run skips a row whose key is already stored
KEY = ("set", "problem", "formulation", "solver", "tolerance")
#: the columns of the results table, in order (the contract with gaussqp.studies.metrics / report; ``answer`` is
#: the JSON text of the run's (a, λ_n, λ_t) and uniqueness flags, from which the reference is recomputed)
COLUMNS = (
    "problem",
    "set",
    "formulation",
    "solver",
    "tolerance",
    "status",
    "certified",
    "claimed_success",
    "residual",
    "certificates",
    "build_time",
    "solve_time",
    "certify_time",
    "total_time",
    "acceleration_gap",
    "generalized_force_gap",
    "reference",
    "agrees_with_reference",
    "correct",
    "honest_failure",
    "error",
    "command",
    "answer",
)
JOURNAL = "results.jsonl"
PARQUET = "results.parquet"
CSV = "results.csv"
_BOOL = ("certified", "claimed_success", "correct", "honest_failure")
_FLOAT = (
    "residual",
    "build_time",
    "solve_time",
    "certify_time",
    "total_time",
    "acceleration_gap",
    "generalized_force_gap",
)
_TEXT = (
    "problem",
    "set",
    "formulation",
    "solver",
    "tolerance",
    "status",
    "certificates",
    "reference",
    "error",
    "command",
    "answer",
)


def key_of(row: dict) -> tuple:
    """The :data:`KEY` of a row."""
    return tuple(str(row[k]) for k in KEY)


def _as_bool(v) -> bool | None:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v == "":
        return None
    if isinstance(v, str):
        return {"true": True, "false": False}.get(v.strip().lower())
    return bool(v)


def _as_float(v) -> float:
    try:
        return float(v) if v is not None and v != "" else math.nan
    except (TypeError, ValueError):
        return math.nan


def normalize(row: dict) -> dict:
    """A row with the contract's types (bools, floats with NaN for unknown, text), whichever file it came from."""
    out = dict(row)
    for k in _BOOL:
        if k in out:
            out[k] = bool(_as_bool(out[k]))
    if "agrees_with_reference" in out:
        out["agrees_with_reference"] = _as_bool(out["agrees_with_reference"])
    for k in _FLOAT:
        if k in out:
            out[k] = _as_float(out[k])
    for k in _TEXT:
        if k in out:
            v = out[k]
            out[k] = "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
    return out


def has_pandas() -> bool:
    """True when pandas and pyarrow are importable (the table is then Parquet)."""
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


class ResultsStore:
    """The results of one study in ``out``: the journal (:data:`JOURNAL`) and the table (:data:`PARQUET` or
    :data:`CSV`)."""

    def __init__(self, out: str | Path):
        self.dir = Path(out)
        if self.dir.exists() and not self.dir.is_dir():
            raise FileFormatError(
                "out", f"{str(self.dir)!r} exists and is not a directory", "give a directory (created if missing)"
            )
        self.dir.mkdir(parents=True, exist_ok=True)
        self.journal = self.dir / JOURNAL

    @property
    def table(self) -> Path:
        """The table's path: Parquet when pandas and pyarrow are installed, else CSV."""
        return self.dir / (PARQUET if has_pandas() else CSV)

    def load(self) -> list[dict]:
        """Every stored row: the journal's (the last row of a key wins), else the table's, else none."""
        if self.journal.exists():
            rows: dict[tuple, dict] = {}
            with self.journal.open(encoding="utf-8") as fh:
                for i, line in enumerate(fh):
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError:  # a line cut short by a killed study: that run is redone
                        continue
                    if not isinstance(row, dict) or not all(k in row for k in KEY):
                        raise FileFormatError(
                            f"{JOURNAL}:{i + 1}",
                            "is not a results row",
                            f"delete {self.journal} to start the study afresh",
                        )
                    rows[key_of(row)] = normalize(row)
            return list(rows.values())
        return (
            [normalize(r) for r in read_table(self.dir)]
            if (self.dir / PARQUET).exists() or (self.dir / CSV).exists()
            else []
        )

    def append(self, row: dict) -> None:
        """Append one finished run to the journal (flushed at once)."""
        with self.journal.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({k: row.get(k) for k in COLUMNS}) + "\n")

    def compact(self, rows: list[dict]) -> None:
        """Rewrite the journal as exactly ``rows`` (the judged rows at the end of a study: a later study in the same
        directory on another set keeps their reference columns)."""
        tmp = self.journal.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps({k: row.get(k) for k in COLUMNS}) + "\n")
        tmp.replace(self.journal)

    def write_table(self, rows: list[dict]) -> Path:
        """Write ``rows`` (every column of :data:`COLUMNS`) to the table; returns its path."""
        path = self.table
        tmp = path.with_suffix(path.suffix + ".tmp")
        if path.suffix == ".parquet":
            to_frame(rows).to_parquet(tmp, index=False)
        else:
            with tmp.open("w", newline="", encoding="utf-8") as fh:
                w = csv.DictWriter(fh, fieldnames=list(COLUMNS), extrasaction="ignore")
                w.writeheader()
                for r in rows:
                    w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in COLUMNS})
        tmp.replace(path)
        return path


def to_frame(rows: list[dict]):
    """The rows as a pandas DataFrame with the columns of :data:`COLUMNS` (pandas imported here)."""
    import pandas as pd

    df = pd.DataFrame([{k: r.get(k) for k in COLUMNS} for r in rows], columns=list(COLUMNS))
    df["agrees_with_reference"] = df["agrees_with_reference"].astype(object)
    return df


def read_table(out: str | Path) -> list[dict]:
    """The rows of the table in ``out`` (``results.parquet``, else ``results.csv``), with the contract's types."""
    out = Path(out)
    if (out / PARQUET).exists() and has_pandas():
        import pandas as pd

        df = pd.read_parquet(out / PARQUET)
        return [normalize(r) for r in df.to_dict("records")]
    if (out / CSV).exists():
        with (out / CSV).open(newline="", encoding="utf-8") as fh:
            return [normalize(r) for r in csv.DictReader(fh)]
    raise FileFormatError(
        "out",
        f"{str(out)!r} holds no {PARQUET} or {CSV}",
        "run a study with --out there first (gaussqp crossval SET --out DIR)",
    )


__all__ = ["COLUMNS", "KEY", "ResultsStore", "has_pandas", "key_of", "normalize", "read_table", "to_frame"]
