"""Cross-validation studies: every route on every problem of a set, judged against a reference.

- :mod:`.sets` — test sets yielding problems lazily (the library, generated families, directories of gaussqp/1
  or FCLIB files), filtered by system class and size;
- :mod:`.routes` — every accepting formulation × installed backend × tolerance preset;
- :mod:`.runner` — :func:`run_study`: runs in a local process pool or on Dask distributed, with a time limit;
- :mod:`.reference` — each problem's reference answer (exact route, else consensus) and the gaps to it;
- :mod:`.store` — the results table on disk, and resuming;
- :mod:`.metrics` — per route: success, correct and honest-failure rates, shifted geometric means, performance
  profiles; :mod:`.report` — the Markdown and self-contained HTML report with the profile plots.

Optional components (pandas, pyarrow, tqdm, dask[distributed]) are imported only when used.
"""

from __future__ import annotations

from .reference import EXACT_ROUTES, attach_reference, judge_problem
from .routes import Route, routes_for
from .runner import run_stats, run_study, run_task
from .sets import DirectorySet, FamilySet, FclibSet, LibrarySet, MujocoSet, ProblemSet, parse_set
from .store import COLUMNS, KEY, ResultsStore, read_table

__all__ = [
    "COLUMNS",
    "EXACT_ROUTES",
    "KEY",
    "DirectorySet",
    "FamilySet",
    "FclibSet",
    "LibrarySet",
    "MujocoSet",
    "ProblemSet",
    "ResultsStore",
    "Route",
    "attach_reference",
    "judge_problem",
    "parse_set",
    "read_table",
    "routes_for",
    "run_stats",
    "run_study",
    "run_task",
]
