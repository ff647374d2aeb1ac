"""Strict JSON reading for gaussqp's file formats (hostile files give typed errors, never a wrong value).

Duplicate keys, literals beyond float64 (``1e400``, 400-digit integers), nesting deeper than
:data:`~gaussqp.settings.NESTING_DEPTH_MAX`, oversized files, and booleans, strings or null where numbers belong each
raise a :mod:`gaussqp.errors` exception naming the field. Used by :mod:`gaussqp.io.gaussqp_format` (``gaussqp/1``) and
:mod:`gaussqp.grasp.format` (``gaussqp-grasp/1``).
"""

from __future__ import annotations

import itertools
import json
import math
import reprlib
from typing import Any

import numpy as np

from ..errors import FileFormatError, InputTooLargeError, MagnitudeError, ShapeError
from ..model.validation import check_count
from ..settings import FILE_BYTES_MAX, NESTING_DEPTH_MAX

#: integer literals with more digits than this are read as floats (int64 holds 18 digits)
_INT_DIGITS = 18


def _err(field: str, problem: str, fix: str) -> FileFormatError:
    return FileFormatError(field, problem, fix)


class Overflow(float):
    """A JSON number literal beyond float64 range (``1e400``, a 400-digit integer): ``inf`` with
    its text, so the strict number check can name the field and say "too large" (not "infinity")."""

    text: str


def _overflow(text: str) -> Overflow:
    out = Overflow(float("-inf") if text.lstrip().startswith("-") else float("inf"))
    out.text = text if len(text) <= 24 else f"{text[:12]}...({len(text)} characters)"
    return out


def _parse_float(text: str) -> float:
    x = float(text)
    return _overflow(text) if math.isinf(x) else x


def _parse_int(text: str) -> int | float:
    if len(text.lstrip("-")) <= _INT_DIGITS:
        return int(text)
    return _parse_float(text)  # no 4300-digit ValueError, no OverflowError converting to float later


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            raise _err(
                key, "appears twice in one JSON object", "keep one of the two entries (readers disagree on which wins)"
            )
        obj[key] = value
    return obj


def _check_depth(doc: Any, fmt: str, depth_used: int) -> None:
    """Refuse nesting deeper than ``NESTING_DEPTH_MAX`` (iterative walk, no recursion)."""
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > NESTING_DEPTH_MAX:
            raise InputTooLargeError(
                "file",
                f"nests arrays/objects more than {NESTING_DEPTH_MAX} deep (gaussqp.settings.NESTING_DEPTH_MAX)",
                f"a {fmt} file nests {depth_used} deep; remove the extra brackets",
            )
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))


def decode(text: str, fmt: str = "gaussqp/1", depth: int = 5) -> Any:
    """``json.loads`` with duplicate keys, overflowing literals and deep nesting turned into typed errors."""
    check_count("file", "characters", len(text), FILE_BYTES_MAX, "store large problems as sparse .npz files")
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_parse_float, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise _err(
            "file", f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", "fix the JSON syntax"
        ) from None
    except RecursionError:
        raise InputTooLargeError(
            "file",
            "nests arrays/objects too deep to parse",
            f"a {fmt} file nests {depth} deep (at most {NESTING_DEPTH_MAX})",
        ) from None
    _check_depth(doc, fmt, depth)
    return doc


def json_kind(x: Any) -> str:
    """How a JSON value that is not a number reads in a message."""
    if isinstance(x, bool):
        return f"the boolean {str(x).lower()}"
    if isinstance(x, str):
        return f"the string {reprlib.repr(x)}"
    if x is None:
        return "null"
    if isinstance(x, dict):
        return "an object"
    if isinstance(x, list):
        return "a list"
    if isinstance(x, (int, float)):
        return f"the number {x!r}"
    return f"a {type(x).__name__}"


def json_numbers(field: str, value: Any, max_ndim: int) -> np.ndarray:
    """The one strict check of JSON numeric data: a number, a list of numbers or a list of rows of
    equal length (up to ``max_ndim`` levels) of JSON numbers — never booleans, strings or null —
    as a float64 array. Literals beyond float64 range raise MagnitudeError naming the field."""
    level, ndim = [value], 0
    while level and all(type(x) is list for x in level):
        if ndim == max_ndim:
            raise ShapeError(
                field,
                f"nests lists more than {max_ndim} deep",
                "give a number"
                if max_ndim == 0
                else "give a list of numbers"
                if max_ndim == 1
                else "give a list of rows of numbers",
            )
        lengths = {len(x) for x in level}
        if len(lengths) > 1:
            raise ShapeError(field, f"has rows of different lengths {sorted(lengths)[:4]}", "give rows of equal length")
        level = list(itertools.chain.from_iterable(level))
        ndim += 1
    for x in level:
        if type(x) is Overflow:
            raise MagnitudeError(
                field,
                f"has the number {x.text}, beyond the float64 range",
                "rescale the units so every entry is a moderate number",
            )
        if type(x) not in (int, float):
            raise _err(
                field,
                f"holds {json_kind(x)} where a number belongs",
                "give JSON numbers (true/false, strings and null are not numbers)",
            )
    return np.array(value, dtype=float)


def json_number(field: str, value: Any) -> float:
    return float(json_numbers(field, value, 0))


def json_text(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _err(field, f"is {json_kind(value)}, not a string", "give a JSON string")
    return value


def json_count(field: str, value: Any, limit: int) -> int:
    """A non-negative integer-valued JSON number (2 or 2.0; not 2.7, true or "2") up to ``limit``."""
    x = json_number(field, value)
    if not math.isfinite(x) or x != math.floor(x) or x < 0:
        raise _err(field, f"is {value!r}, not a non-negative integer", "give a whole number >= 0")
    check_count(field, "as a declared size", x, limit, "give a smaller problem (see gaussqp.settings)")
    return int(x)


__all__ = ["Overflow", "decode", "json_count", "json_kind", "json_number", "json_numbers", "json_text"]
