"""Input validation: every datum of a problem becomes a float64 array of the right shape, or a typed
error naming the field and the fix (:mod:`gaussqp.errors`).

Used by the constructors of :class:`gaussqp.model.problem.ContactProblem` and by the file loaders
(:mod:`gaussqp.io`). The size and magnitude limits are named in :mod:`gaussqp.settings`.

Lazy imports (the idiom of :mod:`gaussqp.backends`): ``scipy.sparse.csgraph`` is imported inside the
functions that use it, not when this module is imported.
"""

from __future__ import annotations

import itertools
import math
import reprlib
import warnings

import numpy as np
import scipy.sparse as sp

from ..errors import (
    InputTooLargeError,
    MagnitudeError,
    NonFiniteError,
    NonNumericError,
    ShapeError,
    UnknownValueError,
    WrongTypeError,
)
from ..settings import ABS_ENTRY_MAX, DENSE_BLOCK_MAX, ENTRIES_MAX, ABS_ENTRY_MIN

_REAL_KINDS = "iuf"
_KIND_NAMES = {
    "b": "booleans",
    "c": "complex numbers",
    "U": "strings",
    "S": "byte strings",
    "O": "Python objects (None, a dict, a ragged list, an integer too large for float64, ...)",
    "V": "structured records",
    "M": "datetimes",
    "m": "time differences",
}
_REAL_FIX = "give real numbers (integers or floats; not booleans, strings, complex numbers or None)"


def short_repr(value) -> str:
    """A bounded-length repr of ``value`` for error messages."""
    return reprlib.repr(value)


def _not_real(field_name: str, kind: str) -> NonNumericError:
    return NonNumericError(field_name, f"holds {_KIND_NAMES.get(kind, 'values that are not numbers')}", _REAL_FIX)


def check_finite_bounded(field_name: str, data: np.ndarray) -> None:
    """Refuse NaN, infinity, entries beyond :data:`gaussqp.settings.ABS_ENTRY_MAX` and nonzero entries below
    :data:`gaussqp.settings.ABS_ENTRY_MIN`."""
    if data.size == 0:
        return
    mag = np.abs(data)
    largest = float(mag.max())  # NaN when an entry is NaN (the maximum propagates it), infinite when one is
    if not math.isfinite(largest):
        raise NonFiniteError(field_name, "contains NaN or infinity", "give finite numbers only")
    nonzero = mag[mag > 0]
    check_magnitude(field_name, largest, float(nonzero.min()) if nonzero.size else None)


def _has_bool_leaf(value, ndim: int) -> bool:
    """Whether the nested lists ``value`` (rectangular, ``ndim`` deep) hold a bool.

    NumPy turns ``[True, 0.5]`` into ``[1.0, 0.5]``; a boolean where a number belongs is a
    mistake (``true`` read as μ = 1), so the leaves are inspected. Iterative, no recursion.
    """
    level = [value]
    for _ in range(ndim):
        level = list(itertools.chain.from_iterable(level))
    return any(isinstance(x, (bool, np.bool_)) or x is np.ma.masked for x in level)


def real_array(field_name: str, value, max_ndim: int) -> np.ndarray:
    """``value`` as a new float64 array of at most ``max_ndim`` dimensions, or a typed error.

    Refuses booleans, strings, complex numbers, objects and ragged lists (NonNumericError /
    ShapeError), NaN and infinity (NonFiniteError), entries beyond ``ABS_ENTRY_MAX``
    (MagnitudeError) and more than ``ENTRIES_MAX`` numbers (InputTooLargeError).
    """
    plain = type(value) is np.ndarray  # neither sparse nor masked (a masked array is a subclass)
    if not plain and sp.issparse(value):
        raise ShapeError(field_name, "is a sparse matrix", "give a dense array here")
    if not plain and np.ma.is_masked(value):  # np.asarray would read the hidden data under the mask
        raise NonNumericError(
            field_name,
            "is a masked array with masked entries (no number there)",
            "give a plain array: fill the masked entries, e.g. value.filled(0.0), if that is meant",
        )
    try:
        if isinstance(value, (list, tuple)):
            with warnings.catch_warnings():  # a masked entry in a list: refused below, NumPy's warning not shown
                warnings.filterwarnings("ignore", ".*converting a masked element to nan", UserWarning)
                arr = np.asarray(value)
        else:
            arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise ShapeError(
            field_name,
            f"is not a rectangular array of numbers ({type(exc).__name__})",
            "give a number, a list of numbers or a list of rows of equal length",
        ) from None
    if arr.dtype.kind not in _REAL_KINDS:
        raise _not_real(field_name, arr.dtype.kind)
    if arr.ndim > max_ndim:
        raise ShapeError(
            field_name,
            f"has {arr.ndim} dimensions, expected at most {max_ndim}",
            ("give a single number", "give a vector (list of numbers)", "give a matrix (list of rows)")[max_ndim],
        )
    if isinstance(value, (list, tuple)) and arr.ndim and _has_bool_leaf(value, arr.ndim):
        raise NonNumericError(
            field_name,
            "contains a boolean (true/false) or a masked entry",
            "give numbers: a boolean is not read as 1 or 0, a masked entry has no value",
        )
    check_count(field_name, "entries", arr.size, ENTRIES_MAX, "give a smaller problem (see gaussqp.settings)")
    out = arr.astype(float)
    check_finite_bounded(field_name, out)
    return out


def real_sparse(field_name: str, value) -> sp.csr_matrix:
    """A scipy.sparse ``value`` as CSR float64, the problem's own canonical copy (sorted indices, repeated entries
    summed; the caller's matrix is never rewritten, by this or by any later in-place operation of SciPy on the
    problem's); declared shape and nonzeros checked before converting."""
    shape = tuple(value.shape)
    if len(shape) != 2:
        raise ShapeError(field_name, f"is a sparse array of {len(shape)} dimensions", "give a 2-D sparse matrix")
    check_stored_size(field_name, value)
    if value.dtype.kind not in _REAL_KINDS:
        raise _not_real(field_name, value.dtype.kind)
    A = sp.csr_matrix(value, dtype=float, copy=True)
    A.sum_duplicates()
    check_finite_bounded(field_name, A.data)
    return A


def check_stored_size(field_name: str, A) -> None:
    """The size limits :func:`real_array` and :func:`real_sparse` put on an array, with their errors: a dense one's
    entries, a sparse one's declared rows and columns and its stored entries, each at most ``ENTRIES_MAX``. For an
    array built by gaussqp from validated parts (a problem's tangent rows), which is bounded as a given one is."""
    if sp.issparse(A):
        for what, count in (("declared rows", A.shape[0]), ("declared columns", A.shape[1]), ("stored entries", A.nnz)):
            check_count(field_name, what, count, ENTRIES_MAX, "give a smaller problem (see gaussqp.settings)")
    else:
        check_count(field_name, "entries", A.size, ENTRIES_MAX, "give a smaller problem (see gaussqp.settings)")


def real_scalar(field_name: str, value) -> float:
    """One real number (not a bool, a string or a list)."""
    v = real_array(field_name, value, 0)
    return float(v)


def text(field_name: str, value) -> str:
    if not isinstance(value, str):
        raise WrongTypeError(field_name, f"is a {type(value).__name__}, not a string", "give a string")
    return str(value)


def labels(field_name: str, value, m: int) -> list:
    """``types``/``modes`` of ``from_blocks``: one string for all contacts, or a sequence of m."""
    if isinstance(value, str):
        return [value] * m
    try:
        labels = list(value)
    except TypeError:
        raise UnknownValueError(
            field_name, f"is {short_repr(value)}", "give one string or a list of one string per contact"
        ) from None
    if len(labels) != m:
        raise ShapeError(field_name, f"has {len(labels)} entries for {m} contacts", "give one string per contact")
    return labels


def flags(field_name: str, value, m: int) -> np.ndarray:
    """A boolean vector of length m (``has_tangent``); integers 0/1 are accepted, nothing else."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:
        raise ShapeError(
            field_name, f"is not an array of booleans ({type(exc).__name__})", f"give {m} booleans"
        ) from None
    if arr.dtype.kind in "iu" and arr.size and not np.isin(arr, (0, 1)).all():
        raise NonNumericError(field_name, "holds integers other than 0 and 1", f"give {m} booleans")
    if arr.size == 0 and m == 0:  # no contacts: an empty list has no dtype to judge
        return np.zeros(0, dtype=bool)
    if arr.dtype.kind not in "biu":
        raise NonNumericError(field_name, f"holds {_KIND_NAMES.get(arr.dtype.kind, 'numbers')}", f"give {m} booleans")
    if arr.ndim > 1 or arr.size != m:
        raise ShapeError(field_name, f"has shape {arr.shape}, expected ({m},)", f"give {m} booleans")
    return arr.astype(bool).reshape(m)


def vector(field_name: str, value, length: int) -> np.ndarray:
    v = real_array(field_name, value, 1)
    if v.ndim == 0 and length == 1:
        v = v.reshape(1)
    if v.shape != (length,):
        raise ShapeError(field_name, f"has shape {v.shape}, expected ({length},)", f"give a vector of {length} numbers")
    return v


def matrix(field_name: str, value, shape: tuple[int | None, int]) -> np.ndarray | sp.csr_matrix:
    if sp.issparse(value):
        A = real_sparse(field_name, value)
    else:
        A = real_array(field_name, value, 2)
        if A.ndim == 1 and shape[0] == 1:
            A = A.reshape(1, -1)
        if A.ndim != 2:
            raise ShapeError(field_name, f"has {A.ndim} dimensions, expected 2", "give a matrix (list of rows)")
    rows, cols = shape
    if (rows is not None and A.shape[0] != rows) or A.shape[1] != cols:
        exp = f"({rows if rows is not None else 'k'}, {cols})"
        raise ShapeError(
            field_name,
            f"has shape {A.shape}, expected {exp}",
            f"give {cols} columns (one per coordinate)" if A.shape[1] != cols else f"give {rows} rows",
        )
    return A


def check_sparse_mass(M: sp.csr_matrix) -> None:
    """Refuse a sparse M whose factorization would be huge: a connected block larger than
    ``DENSE_BLOCK_MAX`` (each block is densified), or empty rows whose dense kernel basis
    (n × empty rows) exceeds ``ENTRIES_MAX``."""
    from scipy.sparse.csgraph import connected_components

    n = M.shape[0]
    stored = M.copy()
    stored.eliminate_zeros()
    empty = int(np.count_nonzero(np.diff(stored.indptr) == 0))
    check_count(
        "mass_matrix",
        "kernel entries (n × empty rows, a dense basis)",
        float(n) * empty,
        ENTRIES_MAX,
        "give every coordinate a mass (an empty row of M is a coordinate without inertia)",
    )
    if n:
        _, labels = connected_components(stored, directed=False)
        largest = int(np.bincount(labels).max())
        check_count(
            "mass_matrix",
            "coordinates in one coupled block",
            largest,
            DENSE_BLOCK_MAX,
            "give a block-structured sparse M (bodies coupled only through the contacts)",
        )


def check_magnitude(field: str, largest: float, smallest_nonzero: float | None = None) -> None:
    """Refuse ``largest`` (the largest absolute entry of ``field``) beyond :data:`ABS_ENTRY_MAX`, and
    ``smallest_nonzero`` (its smallest nonzero absolute entry) below :data:`ABS_ENTRY_MIN`.

    Parameters
    ----------
    field : str
        Name of the datum, used in the error message.
    largest : float
        Its largest absolute entry (finite: infinity is refused earlier as non-finite).
    smallest_nonzero : float or None
        Its smallest nonzero absolute entry (None: all zero, or not checked).

    Raises
    ------
    MagnitudeError
        When ``largest > ABS_ENTRY_MAX`` or ``smallest_nonzero < ABS_ENTRY_MIN``.
    """
    if smallest_nonzero is not None and smallest_nonzero < ABS_ENTRY_MIN:
        raise MagnitudeError(
            field,
            f"has a nonzero entry of magnitude {smallest_nonzero:.3g} < {ABS_ENTRY_MIN:g} "
            "(gaussqp.settings.ABS_ENTRY_MIN: its reciprocals would overflow)",
            "write it as 0, or rescale the units so every nonzero entry is above that bound",
        )
    if largest > ABS_ENTRY_MAX:
        raise MagnitudeError(
            field,
            f"has an entry of magnitude {largest:.3g} > {ABS_ENTRY_MAX:g} "
            "(gaussqp.settings.ABS_ENTRY_MAX: the products formed while solving would overflow)",
            "rescale the units (e.g. grams -> kilograms) so every entry is below that bound",
        )


def check_count(field: str, what: str, count: float, limit: int, fix: str) -> None:
    """Refuse a declared ``count`` of ``what`` above ``limit`` (before allocating it).

    Parameters
    ----------
    field : str
        Name of the datum.
    what : str
        What is counted, e.g. "declared entries".
    count : float
        The declared count (may be huge, or a float product of dimensions).
    limit : int
        The named limit it must not exceed.
    fix : str
        What the user should do instead.

    Raises
    ------
    InputTooLargeError
        When ``count > limit``.
    """
    if not math.isfinite(count) or count > limit:
        raise InputTooLargeError(field, f"has {count:.4g} {what}, more than the limit {limit:,}", fix)
