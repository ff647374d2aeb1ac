"""The JSON helpers on the ground floor: a float and a value made JSON-ready.

Every layer writes JSON (results, certificates, friction verdicts, grasps, file readers, the CLI); this module
imports nothing from gaussqp, so none of them needs a higher layer to do it (the helpers lived in
``results.py`` and tied the friction and certificate modules to it in an import cycle).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def json_float(x):
    """A float for JSON: None for NaN, the strings "inf"/"-inf" for infinities."""
    if x is None:
        return None
    x = float(x)
    if np.isnan(x):
        return None
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def to_jsonable(v):
    """A JSON-ready copy of ``v`` (numpy arrays and scalars, nested lists, tuples, dicts and other mappings, such as a
    solution's read-only record of its system class)."""
    if isinstance(v, np.ndarray):
        return [to_jsonable(x) for x in v.tolist()] if v.ndim else json_float(v)
    if isinstance(v, (list, tuple)):
        return [to_jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        return json_float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, Mapping):
        return {k: to_jsonable(x) for k, x in v.items()}
    return v
