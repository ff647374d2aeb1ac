"""FCLIB files (HDF5): read a frictional contact problem of the field's benchmark collection, write one.

FCLIB (Acary, Brémond, Huber, "On solving contact problems with Coulomb friction: formulations and
numerical comparisons", 2018; the format of the ``fclib`` C library) stores one problem per file:

``/fclib_local`` → :class:`gaussqp.LocalContactProblem`
    ``spacedim`` (2 or 3), matrix ``W``, ``vectors/q``, ``vectors/mu``: ``u = W r + q`` with contact
    blocks (normal, t1[, t2]) and Coulomb's law in De Saxcé's form (stick/slip left to the solver).

``/fclib_global`` → :class:`gaussqp.ContactProblem`
    ``M`` (n×n), ``H`` (n × m·d), optional ``G`` (n×p), ``vectors/f``, ``vectors/w``, ``vectors/mu``, optional
    ``vectors/b``: ``M v = H r + G λ + f``, ``u = Hᵀ v + w``, ``Gᵀ v + b = 0``. **A global problem is at the
    impulse/velocity level** (one step of a time-stepping scheme: ``v`` the velocity at the end of the step,
    ``r`` the contact impulses). gaussqp reads it as the same data at the acceleration level, which is the same
    mathematics with ``a ≡ v``: ``F = -f``, contact ``j``'s normal row is column ``d·j`` of ``H`` (``J_n = Hᵀ``
    rows) and its tangent rows columns ``d·j+1 … d·j+d-1``, its drifts the matching entries of ``w``; each
    column of ``G`` is a frictionless bilateral row with drift ``b``. FCLIB does not give the stick/slip mode:
    a contact with ``μ > 0`` gets the mode ``"coulomb"`` (the solver decides), one with ``μ = 0`` the mode
    ``"frictionless"`` (its tangent rows are kept, so the file's ``H`` is reproduced on saving). The unilateral
    contacts come first, in the file's order, then the bilateral rows of ``G``.

Matrices (a group with int32 ``m, n, nz, nzmax``, int32 ``p, i``, float64 ``x``) in the three storages
of CSparse: ``nz >= 0`` triplets with ``p`` the **column** and ``i`` the **row** index of each of the
``nz`` entries (as the data of the collection are written; the format header's comment says the
opposite), duplicates summed; ``nz = -1`` compressed columns (``p`` the n+1 column pointers, ``i`` row
indices); ``nz = -2`` compressed rows (``p`` the m+1 row pointers, ``i`` column indices). Compressed
arrays may be longer than ``p[-1]`` (CSparse's spare capacity ``nzmax``): the tail is ignored.

Info strings (``/fclib_*/info``: ``title``, ``description``, ``math_info``) become the problem's ``name``
and ``description``; a non-empty ``math_info`` is appended to the description after
:data:`MATH_INFO_MARKER` and split off again by :func:`save`, so the three strings survive a round trip.
Bytes that are not UTF-8 are replaced by U+FFFD (CubeH8's description starts with a stray ``0xA8``).

Not read yet, refused with :class:`~gaussqp.errors.UnsupportedFormatError`: ``/fclib_global_rolling``
(rolling friction) and the ``V``, ``R`` blocks and ``vectors/s`` of a local problem. ``/solution`` and
``/guesses`` are ignored (the collection's hold placeholders, not reference solutions).

Reading is strict and bounded: every dataset's type is checked before it is read (integers where FCLIB
writes int32, real numbers where it writes float64; booleans, strings, compound, object and
variable-length data refused: nothing is ever unpickled), declared sizes are checked against
:mod:`gaussqp.settings` before anything is allocated, indices must be in range and pointers monotone,
sizes consistent (``nz`` against ``len(x)``, ``m·d`` against ``W``), values finite; external links are
refused. Every refusal is an :class:`~gaussqp.errors.InputError` whose field is the HDF5 path
(``/fclib_global/M/p``) and whose message says the fix; a file that is not HDF5 gives a
:class:`~gaussqp.errors.FileFormatError`.

``h5py`` is imported inside the functions: without it they raise
:class:`~gaussqp.errors.MissingExtraError` (``pip install 'gaussqp[fclib]'``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np
import scipy.sparse as sp

from ..errors import (
    FileFormatError,
    InputError,
    MissingExtraError,
    NegativeFrictionError,
    NonFiniteError,
    NonNumericError,
    NotSymmetricError,
    ShapeError,
    UnknownValueError,
    UnsupportedFormatError,
    WrongTypeError,
)
from ..linalg.csr import canonical
from ..model.local_problem import LOCAL_DIMENSIONS, LocalContactProblem
from ..model.problem import ContactProblem
from ..model.validation import check_count, check_finite_bounded
from ..settings import FCLIB_TEXT_BYTES_MAX, FCLIB_SYMMETRY_RTOL, ENTRIES_MAX

#: the problem groups of an FCLIB file
LOCAL, GLOBAL, ROLLING = "fclib_local", "fclib_global", "fclib_global_rolling"
#: separates the FCLIB description from its math_info inside a problem's ``description``
MATH_INFO_MARKER = "\n\nmath_info: "
#: the info strings of an FCLIB problem
INFO_KEYS = ("title", "description", "math_info")
#: storage codes of CSparse / FCLIB (``nz`` of a matrix group)
CSC, CSR = -1, -2

_INT_KINDS = "iu"
_REAL_KINDS = "iuf"
_KIND_NAMES = {
    "b": "booleans",
    "f": "floating-point numbers",
    "c": "complex numbers",
    "S": "byte strings",
    "U": "strings",
    "O": "Python objects or variable-length data (never unpickled)",
    "V": "compound or opaque records",
    "M": "datetimes",
    "m": "time differences",
}
_FIX_INT = "write it as int32, as the fclib library does"
_FIX_REAL = "write it as float64, as the fclib library does"


def _h5py():
    try:
        import h5py
    except ImportError as exc:
        raise MissingExtraError("reading and writing FCLIB files needs h5py: pip install 'gaussqp[fclib]'") from exc
    return h5py


# ---------------------------------------------------------------------------- reading helpers


class _Reader:
    """Typed, bounded access to the members of an open HDF5 file; every error names the HDF5 path."""

    def __init__(self, h5py, fh):
        self.h5py = h5py
        self.fh = fh

    def member(self, group, name: str, path: str, *, required: bool = True):
        """``group[name]`` (a group or a dataset), or None when absent and not ``required``."""
        h5py = self.h5py
        try:
            link = group.get(name, getlink=True)
        except (KeyError, OSError, ValueError, TypeError) as exc:
            raise FileFormatError(path, f"cannot be read ({exc})", "rewrite the file with the fclib library") from None
        if link is None:
            if not required:
                return None
            raise FileFormatError(
                path, "is missing", f"an FCLIB file has {path}: rewrite the file with the fclib library"
            )
        if isinstance(link, h5py.ExternalLink):
            raise FileFormatError(
                path,
                f"is an external link to {link.filename!r}",
                "store the data in the file itself (external links are not followed)",
            )
        try:
            return group[name]
        except (KeyError, OSError, ValueError, TypeError) as exc:
            raise FileFormatError(path, f"cannot be read ({exc})", "rewrite the file with the fclib library") from None

    def group(self, parent, name: str, path: str, *, required: bool = True):
        obj = self.member(parent, name, path, required=required)
        if obj is not None and not isinstance(obj, self.h5py.Group):
            raise FileFormatError(path, "is a dataset, expected a group", "write it as an HDF5 group, as fclib does")
        return obj

    def dataset(self, parent, name: str, path: str, kinds: str, fix: str, *, required: bool = True):
        """The array stored at ``parent[name]``: its type (``kinds``) and size checked before reading."""
        ds = self.member(parent, name, path, required=required)
        if ds is None:
            return None
        if not isinstance(ds, self.h5py.Dataset):
            raise FileFormatError(path, "is a group, expected a dataset", "write it as an HDF5 dataset, as fclib does")
        kind = ds.dtype.kind  # variable-length data and references are "O", compound and opaque "V", enums' base
        if kind not in kinds or self.h5py.check_enum_dtype(ds.dtype) is not None:
            cls = NonNumericError if kind in "bScUOVMm" else WrongTypeError
            raise cls(path, f"holds {_KIND_NAMES.get(kind, repr(ds.dtype))} (dtype {ds.dtype})", fix)
        if ds.shape is None:
            raise ShapeError(path, "has no data (an empty dataspace)", fix)
        check_count(
            path,
            "declared entries",
            float(np.prod(ds.shape, dtype=float)),
            ENTRIES_MAX,
            "give a smaller problem (see gaussqp.settings.ENTRIES_MAX)",
        )
        try:
            return np.asarray(ds[()])
        except (OSError, ValueError, TypeError, RuntimeError) as exc:
            raise FileFormatError(path, f"cannot be read ({exc})", "rewrite the file with the fclib library") from None

    def integer(self, parent, name: str, path: str, *, required: bool = True) -> int | None:
        a = self.dataset(parent, name, path, _INT_KINDS, _FIX_INT, required=required)
        if a is None:
            return None
        if a.shape not in ((), (1,)):
            raise ShapeError(path, f"has shape {a.shape}, expected one integer", "store one int32 (shape (1,))")
        return int(a.reshape(-1)[0])

    def indices(self, parent, name: str, path: str) -> np.ndarray:
        a = self.dataset(parent, name, path, _INT_KINDS, _FIX_INT)
        if a.ndim != 1:
            raise ShapeError(path, f"has shape {a.shape}, expected a vector", "store a 1-D int32 array")
        return a.astype(np.int64)

    def reals(self, parent, name: str, path: str, length: int | None = None, *, required: bool = True):
        a = self.dataset(parent, name, path, _REAL_KINDS, _FIX_REAL, required=required)
        if a is None:
            return None
        if a.ndim != 1:
            raise ShapeError(path, f"has shape {a.shape}, expected a vector", "store a 1-D float64 array")
        if length is not None and a.shape[0] != length:
            raise ShapeError(path, f"has {a.shape[0]} entries, expected {length}", f"store {length} numbers")
        out = a.astype(float)
        check_finite_bounded(path, out)
        return out

    def text(self, parent, name: str, path: str) -> str:
        """An info string: fixed-length bytes (what fclib writes) or an HDF5 variable-length string."""
        ds = self.member(parent, name, path, required=False)
        if ds is None:
            return ""
        if not isinstance(ds, self.h5py.Dataset):
            raise FileFormatError(path, "is a group, expected a string", "write it as a string dataset")
        is_vlen = self.h5py.check_string_dtype(ds.dtype) is not None and ds.dtype.kind == "O"
        if ds.dtype.kind != "S" and not is_vlen:
            raise WrongTypeError(
                path,
                f"holds {_KIND_NAMES.get(ds.dtype.kind, repr(ds.dtype))}, not a string",
                "write the info string as bytes, as fclib does",
            )
        if ds.shape not in ((), (1,)):
            raise ShapeError(path, f"has shape {ds.shape}, expected one string", "store one string")
        if not is_vlen:
            check_count(path, "bytes", ds.dtype.itemsize, FCLIB_TEXT_BYTES_MAX, "shorten the info string")
        try:
            raw = np.asarray(ds[()]).reshape(-1)[0]
        except (OSError, ValueError, TypeError, RuntimeError) as exc:
            raise FileFormatError(path, f"cannot be read ({exc})", "rewrite the file with the fclib library") from None
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="replace")
        check_count(path, "bytes", len(raw), FCLIB_TEXT_BYTES_MAX, "shorten the info string")
        return bytes(raw).decode("utf-8", errors="replace")

    def matrix(self, parent, name: str, path: str, *, required: bool = True):
        """A CSparse matrix group as a canonical CSR matrix (duplicates summed), or None when absent."""
        g = self.group(parent, name, path, required=required)
        if g is None:
            return None
        rows, cols, nz = (self.integer(g, k, f"{path}/{k}") for k in ("m", "n", "nz"))
        self.integer(g, "nzmax", f"{path}/nzmax")  # a capacity: present and an integer, not otherwise used
        for k, v in (("m", rows), ("n", cols)):
            if v < 0:
                raise ShapeError(f"{path}/{k}", f"is {v} < 0", "give the matrix's size")
            check_count(
                f"{path}/{k}",
                "rows" if k == "m" else "columns",
                v,
                ENTRIES_MAX,
                "give a smaller problem (see gaussqp.settings.ENTRIES_MAX)",
            )
        if nz < CSR:
            raise UnknownValueError(
                f"{path}/nz", f"is {nz}", "use nz >= 0 (triplets), -1 (compressed columns) or -2 (compressed rows)"
            )
        p = self.indices(g, "p", f"{path}/p")
        i = self.indices(g, "i", f"{path}/i")
        x = self.dataset(g, "x", f"{path}/x", _REAL_KINDS, _FIX_REAL)
        if x.ndim != 1:
            raise ShapeError(f"{path}/x", f"has shape {x.shape}, expected a vector", "store a 1-D float64 array")
        if len(i) != len(x):
            raise ShapeError(
                f"{path}/x", f"has {len(x)} entries but {path}/i has {len(i)}", "store one row/column index per value"
            )
        if nz >= 0:
            return self._triplets(path, rows, cols, nz, p, i, x)
        return self._compressed(path, rows, cols, nz, p, i, x)

    @staticmethod
    def _in_range(path: str, idx: np.ndarray, bound: int, what: str) -> None:
        if idx.size and (idx.min() < 0 or idx.max() >= bound):
            bad = int(idx.min()) if idx.min() < 0 else int(idx.max())
            raise ShapeError(
                path,
                f"holds the {what} index {bad}, outside [0, {bound})",
                f"give zero-based {what} indices below {bound}",
            )

    def _triplets(self, path, rows, cols, nz, p, i, x) -> sp.csr_matrix:
        for key, arr in (("x", x), ("p", p), ("i", i)):
            if len(arr) != nz:
                raise ShapeError(
                    f"{path}/{key}",
                    f"has {len(arr)} entries but {path}/nz = {nz}",
                    "store nz triplets: nz column indices p, nz row indices i, nz values x",
                )
        self._in_range(f"{path}/p", p, cols, "column")
        self._in_range(f"{path}/i", i, rows, "row")
        xv = x.astype(float)
        check_finite_bounded(f"{path}/x", xv)
        A = sp.coo_matrix((xv, (i, p)), shape=(rows, cols)).tocsr()  # sums duplicates
        A.sum_duplicates()
        return A

    def _compressed(self, path, rows, cols, nz, p, i, x) -> sp.csr_matrix:
        outer, inner = (cols, rows) if nz == CSC else (rows, cols)
        what_outer, what_inner = ("column", "row") if nz == CSC else ("row", "column")
        if len(p) != outer + 1:
            raise ShapeError(
                f"{path}/p",
                f"has {len(p)} entries, expected {outer + 1} ({what_outer} pointers: {'n' if nz == CSC else 'm'} + 1)",
                f"store the {outer + 1} {what_outer} pointers of the compressed storage",
            )
        if p[0] != 0 or np.any(np.diff(p) < 0):
            raise ShapeError(
                f"{path}/p",
                "is not a pointer array (it must start at 0 and never decrease)",
                f"store the {what_outer} pointers of the compressed storage",
            )
        used = int(p[-1])
        if used > len(i):
            raise ShapeError(
                f"{path}/p",
                f"ends at {used} but {path}/i and {path}/x hold {len(i)} entries",
                "store as many indices and values as the last pointer says",
            )
        i, x = i[:used], x[:used]  # beyond p[-1]: CSparse's spare capacity, not part of the matrix
        self._in_range(f"{path}/i", i, inner, what_inner)
        xv = x.astype(float)
        check_finite_bounded(f"{path}/x", xv)
        cls = sp.csc_matrix if nz == CSC else sp.csr_matrix
        A = cls((xv, i, p), shape=(rows, cols)).tocsr()
        A.sum_duplicates()
        return A


def _regular_file(path: Path) -> None:
    if not path.exists():
        raise FileFormatError(str(path), "does not exist", "give the path of an FCLIB .hdf5 file")
    if not path.is_file():
        raise FileFormatError(
            str(path), "is not a regular file (a directory, a device or a pipe)", "give the path of an FCLIB .hdf5 file"
        )


def _open(h5py, path: Path):
    _regular_file(path)
    if not h5py.is_hdf5(str(path)):
        raise FileFormatError(str(path), "is not an HDF5 file", "give an FCLIB .hdf5 file")
    try:
        return h5py.File(str(path), "r")
    except (OSError, ValueError) as exc:
        raise FileFormatError(str(path), f"cannot be opened as HDF5 ({exc})", "give an FCLIB .hdf5 file") from None


def _problem_group(r: _Reader):
    """(form, group) of the one problem group of the file."""
    found = [k for k in (LOCAL, GLOBAL, ROLLING) if r.member(r.fh, k, f"/{k}", required=False) is not None]
    if not found:
        raise FileFormatError(
            "/",
            f"holds no FCLIB problem (none of /{LOCAL}, /{GLOBAL}, /{ROLLING})",
            "give an FCLIB file (one problem group at the root)",
        )
    if len(found) > 1:
        raise FileFormatError(
            "/",
            "holds several FCLIB problems (" + ", ".join("/" + k for k in found) + ")",
            "store one problem per file, as fclib does",
        )
    form = found[0]
    if form == ROLLING:
        raise UnsupportedFormatError(
            f"/{ROLLING}",
            "is a rolling-friction problem (spacedim 5: normal, two tangents, two rolling components), not read yet",
            "solve it with a rolling-friction solver (Siconos's grfc3d); gaussqp reads /fclib_local and /fclib_global",
        )
    return form, r.group(r.fh, form, f"/{form}")


def _info(r: _Reader, g, base: str) -> tuple[str, str]:
    """(name, description) from the ``info`` group (empty strings when it is absent)."""
    info = r.group(g, "info", f"{base}/info", required=False)
    if info is None:
        return "", ""
    title, description, math_info = (r.text(info, k, f"{base}/info/{k}") for k in INFO_KEYS)
    return title, description + (MATH_INFO_MARKER + math_info if math_info else "")


def _spacedim(r: _Reader, g, base: str) -> int:
    d = r.integer(g, "spacedim", f"{base}/spacedim")
    if d not in LOCAL_DIMENSIONS:
        raise UnknownValueError(f"{base}/spacedim", f"is {d}", "give 2 (planar) or 3 (spatial) contacts")
    return d


def _friction(r: _Reader, vec, base: str, m: int) -> np.ndarray:
    mu = r.reals(vec, "mu", f"{base}/vectors/mu", m)
    bad = np.flatnonzero(mu < 0)
    if bad.size:
        raise NegativeFrictionError(
            f"{base}/vectors/mu",
            f"holds {mu[bad[0]]} < 0 (contact {int(bad[0])})",
            "give friction coefficients mu >= 0",
        )
    return mu


def _contacts_of(base: str, key: str, A, d: int) -> int:
    """Number of contacts of ``A`` (``key`` = H or W) whose columns come in blocks of ``d``."""
    if A.shape[1] % d:
        raise ShapeError(
            f"{base}/{key}/n",
            f"is {A.shape[1]}, not a multiple of spacedim = {d}",
            f"give {d} columns (normal, tangents) per contact",
        )
    return A.shape[1] // d


def _local(r: _Reader, g, name: str, description: str) -> LocalContactProblem:
    base = f"/{LOCAL}"
    for key in ("V", "R"):
        if r.member(g, key, f"{base}/{key}", required=False) is not None:
            raise UnsupportedFormatError(
                f"{base}/{key}",
                "is given (the V, R blocks of a local problem with bilateral constraints), not read yet",
                "condense the bilateral constraints into W and q, or drop V, R and s",
            )
    d = _spacedim(r, g, base)
    W = r.matrix(g, "W", f"{base}/W")
    vec = r.group(g, "vectors", f"{base}/vectors")
    if r.member(vec, "s", f"{base}/vectors/s", required=False) is not None:
        raise UnsupportedFormatError(
            f"{base}/vectors/s", "is given (the right-hand side of the V, R blocks), not read yet", "drop V, R and s"
        )
    if W.shape[0] != W.shape[1]:
        raise ShapeError(f"{base}/W", f"has shape {W.shape}, expected square", "give W of size m·d × m·d")
    m = _contacts_of(base, "W", W, d)
    q = r.reals(vec, "q", f"{base}/vectors/q", W.shape[0])
    mu = _friction(r, vec, base, m)
    with _renamed({"W": f"{base}/W", "q": f"{base}/vectors/q", "mu": f"{base}/vectors/mu"}):
        return LocalContactProblem(W, q, mu, d, name=name, description=description)


class _renamed:
    """Re-raise an :class:`InputError` of a constructor with its field replaced by the HDF5 path."""

    def __init__(self, paths: Mapping[str, str]):
        self.paths = paths

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, InputError) and not exc.field.startswith("/"):
            last = exc.field.split(".")[-1].split("[")[0]  # contacts[3].friction -> friction
            path = self.paths.get(last, self.paths.get(exc.field.split(".")[0].split("[")[0]))
            if path is not None:
                raise type(exc)(f"{path} ({exc.field})", exc.problem, exc.fix) from None
        return False


def _entry_asymmetry(M: sp.csr_matrix) -> tuple[float, int, int]:
    """(ρ, i, j): the largest ``|M_ij − M_ji|`` measured at the entries' own scale, ``sqrt(|M_ii M_jj|)`` (the
    bound of ``|M_ij|`` for a positive semidefinite M), or ``max(|M_ij|, |M_ji|)`` where that diagonal scale is 0;
    ``ρ = inf`` for a difference at a pair whose scales are both 0. Not ``max|M|``: a finite-element M spans
    decades, and its small entries can be non-symmetric by tens of % at 1e-7 of its largest (CubeH8)."""
    D = (M - M.T).tocoo()
    keep = D.data != 0
    if not keep.any():
        return 0.0, -1, -1
    i, j, diff = D.row[keep], D.col[keep], np.abs(D.data[keep])
    dg = np.abs(M.diagonal())
    scale = np.sqrt(dg[i] * dg[j])
    zero = scale == 0
    if zero.any():
        Mc, Mt = M.tocsr(), M.T.tocsr()
        own = np.maximum(
            np.abs(np.asarray(Mc[i[zero], j[zero]]).ravel()), np.abs(np.asarray(Mt[i[zero], j[zero]]).ravel())
        )
        scale[zero] = own
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), np.inf)
    k = int(np.argmax(rho))
    return float(rho[k]), int(i[k]), int(j[k])


def _symmetrized(M: sp.csr_matrix, path: str, symmetrize: bool) -> tuple[sp.csr_matrix, str | None]:
    """(M, None), or (``(M + Mᵀ)/2``, None) when its asymmetry is round-off at the entries' scale
    (:func:`_entry_asymmetry` at most ``FCLIB_SYMMETRY_RTOL``) and ``symmetrize``; (M, why) when M is not
    symmetric at its entries' scale (the caller condenses the stored problem, :func:`_condensed`)."""
    rho, i, j = _entry_asymmetry(M)
    if rho == 0 or not symmetrize:
        return M, None
    if rho > FCLIB_SYMMETRY_RTOL:
        return M, (
            f"M is not symmetric at its entries' scale: |M_ij - M_ji| = {abs(M[i, j] - M[j, i]):.3g} at "
            f"(i, j) = ({i}, {j}) is {rho:.2g} of sqrt(|M_ii M_jj|) (gaussqp.settings.FCLIB_SYMMETRY_RTOL = "
            f"{FCLIB_SYMMETRY_RTOL:g})"
        )
    S = ((M + M.T) / 2).tocsr()
    S.sum_duplicates()
    return S, None


#: the note put in the description of a global problem read in its condensed (local) form
CONDENSED_NOTE = (
    "[gaussqp: read as the local problem W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w of the file's stored M, "
    "which is not symmetric at its entries' scale; symmetrizing it would change the problem. {why}]"
)


def _condensed(M, H, f, w, mu, d: int, G, path: str, why: str, name: str, description: str) -> LocalContactProblem:
    """The stored global problem ``M v = H r + f, u = Hᵀ v + w`` with a non-symmetric M, condensed with that M
    (as FCLIB's own Capsules are stored): W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w (non-symmetric W is accepted)."""
    if G is not None:
        raise NotSymmetricError(
            path,
            f"is not symmetric at its entries' scale and the problem has bilateral rows "
            f"G, so it cannot be condensed to a local problem ({why})",
            "fix the file's assembly of M (a mass matrix is symmetric), or give the problem "
            "without G; load(path, symmetrize=False) keeps M as stored and refuses it",
        )
    from scipy.sparse.linalg import splu

    try:
        lu = splu(sp.csc_matrix(M))
        X = lu.solve(np.column_stack([H.toarray(), f]))
    except RuntimeError as exc:
        raise NotSymmetricError(
            path,
            f"is not symmetric at its entries' scale and singular ({exc}), so the stored "
            f"problem cannot be condensed ({why})",
            "fix the file's assembly of M (a mass matrix is symmetric and invertible)",
        ) from None
    if not np.all(np.isfinite(X)):
        raise NotSymmetricError(
            path,
            f"is not symmetric at its entries' scale and its factorization is not finite ({why})",
            "fix the file's assembly of M (a mass matrix is symmetric and invertible)",
        )
    Ht = H.T.tocsr()
    W = np.asarray(Ht @ X[:, :-1])
    q = np.asarray(Ht @ X[:, -1]).ravel() + w
    # the solve leaves round-off (1e-51 in CubeH8) where W is 0: below the condensation's own error, eps·max|W|
    W[np.abs(W) < np.finfo(float).eps * float(np.abs(W).max(initial=0.0))] = 0.0
    marker = description.find(MATH_INFO_MARKER)
    note = "\n" + CONDENSED_NOTE.format(why=why)
    description = description + note if marker < 0 else description[:marker] + note + description[marker:]
    return LocalContactProblem(W, q, mu, d, name=name, description=description)


def _global(r: _Reader, g, name: str, description: str, symmetrize: bool) -> ContactProblem:
    base = f"/{GLOBAL}"
    d = _spacedim(r, g, base)
    M = r.matrix(g, "M", f"{base}/M")
    if M.shape[0] != M.shape[1]:
        raise ShapeError(f"{base}/M", f"has shape {M.shape}, expected square (n, n)", "give M of size n × n")
    n = M.shape[0]
    H = r.matrix(g, "H", f"{base}/H")
    if H.shape[0] != n:
        raise ShapeError(f"{base}/H/m", f"is {H.shape[0]}, but M is {n} × {n}", "give H with n rows (n × m·d)")
    m = _contacts_of(base, "H", H, d)
    G = r.matrix(g, "G", f"{base}/G", required=False)
    if G is not None and G.shape[0] != n:
        raise ShapeError(f"{base}/G/m", f"is {G.shape[0]}, but M is {n} × {n}", "give G with n rows (n × p)")
    vec = r.group(g, "vectors", f"{base}/vectors")
    f = r.reals(vec, "f", f"{base}/vectors/f", n)
    w = r.reals(vec, "w", f"{base}/vectors/w", m * d)
    mu = _friction(r, vec, base, m)
    nb = 0 if G is None else G.shape[1]
    if G is None and r.member(vec, "b", f"{base}/vectors/b", required=False) is not None:
        raise FileFormatError(f"{base}/vectors/b", "is given without the matrix G", f"give {base}/G too, or drop b")
    b = r.reals(vec, "b", f"{base}/vectors/b", nb) if nb else None
    M, why = _symmetrized(M, f"{base}/M", symmetrize)
    if why is not None:
        return _condensed(M, H, f, w, mu, d, G, f"{base}/M", why, name, description)
    Ht = H.T.tocsr()
    normal = np.arange(m) * d
    tangent = (normal[:, None] + np.arange(1, d)[None, :]).ravel()
    J_n, J_t = Ht[normal], Ht[tangent]
    bn, ct = w[normal], w[tangent]
    types = ["unilateral"] * m
    modes = ["coulomb" if x > 0 else "frictionless" for x in mu]
    has_t = np.ones(m, dtype=bool)
    if nb:
        J_n = sp.vstack([J_n, G.T.tocsr()], format="csr")
        J_t = sp.vstack([J_t, sp.csr_matrix((nb * (d - 1), n))], format="csr")
        bn = np.concatenate([bn, b if b is not None else np.zeros(nb)])
        ct = np.concatenate([ct, np.zeros(nb * (d - 1))])
        mu = np.concatenate([mu, np.zeros(nb)])
        types += ["bilateral"] * nb
        modes += ["frictionless"] * nb
        has_t = np.concatenate([has_t, np.zeros(nb, dtype=bool)])
    paths = {
        "mass_matrix": f"{base}/M",
        "force": f"{base}/vectors/f",
        "J_n": f"{base}/H",
        "J_t": f"{base}/H",
        "normal_drift": f"{base}/vectors/w",
        "tangent_drift": f"{base}/vectors/w",
        "friction": f"{base}/vectors/mu",
        "contacts": f"{base}/H",
    }
    with _renamed(paths):
        return ContactProblem.from_blocks(
            M, -f, J_n, bn, types, J_t, ct, mu, modes, None, has_t, dimension=d, name=name, description=description
        )


def load(path: str | Path, *, symmetrize: bool = True) -> ContactProblem | LocalContactProblem:
    """Read an FCLIB file: ``/fclib_global`` → :class:`gaussqp.ContactProblem`, ``/fclib_local`` →
    :class:`gaussqp.LocalContactProblem` (the mapping is in the module docstring).

    Parameters
    ----------
    path : str or Path
        An FCLIB ``.hdf5`` file.
    symmetrize : bool, keyword-only
        Replace a global problem's ``M`` by ``(M + Mᵀ)/2`` when its asymmetry is assembly round-off (every
        ``|M_ij - M_ji|`` at most :data:`gaussqp.settings.FCLIB_SYMMETRY_RTOL` of ``sqrt(|M_ii M_jj|)``, the
        entries' own scale). Beyond, M is not symmetric and is never changed: the problem is returned as the
        :class:`gaussqp.LocalContactProblem` ``W = Hᵀ M⁻¹ H``, ``q = Hᵀ M⁻¹ f + w`` of the stored M (its description
        says why, :data:`CONDENSED_NOTE`), or refused with NotSymmetricError when it has ``G`` or M is singular.
        With False, M is kept as stored and :class:`gaussqp.ContactProblem` judges it (``MASS_RTOL``).

    Returns
    -------
    ContactProblem or LocalContactProblem
        A local file, or a global one whose M is not symmetric (above), gives a LocalContactProblem.
        A global problem is at the impulse/velocity level, read as acceleration-level data (``a ≡ v``,
        ``F = -f``); its frictional contacts have the mode ``"coulomb"`` (stick/slip unknown in FCLIB).

    Raises
    ------
    gaussqp.errors.InputError
        A subclass whose field is the HDF5 path (``/fclib_global/M/p``) and whose message says the fix:
        FileFormatError (not HDF5, missing member), UnsupportedFormatError (rolling friction, V/R blocks),
        NonNumericError / WrongTypeError (dtypes), ShapeError (sizes, indices), InputTooLargeError,
        NonFiniteError, NegativeFrictionError, NotSymmetricError.
    gaussqp.errors.MissingExtraError
        h5py is not installed.
    """
    h5py = _h5py()
    with _open(h5py, Path(path)) as fh:
        r = _Reader(h5py, fh)
        form, g = _problem_group(r)
        name, description = _info(r, g, f"/{form}")
        if form == LOCAL:
            return _local(r, g, name, description)
        return _global(r, g, name, description, symmetrize)


# ---------------------------------------------------------------------------- writing


def _write_matrix(h5py, parent, name: str, A) -> None:
    """Write ``A`` as a CSparse compressed-column group (``nz = -1``), the storage with no index ambiguity."""
    C = canonical(sp.csc_matrix(A, dtype=float))  # a copy when summed: the problem's matrix may share these arrays
    g = parent.create_group(name)
    for key, value in (("m", C.shape[0]), ("n", C.shape[1]), ("nz", CSC), ("nzmax", C.nnz)):
        g.create_dataset(key, data=np.array([value], dtype=np.int32))
    g.create_dataset("p", data=C.indptr.astype(np.int32))
    g.create_dataset("i", data=C.indices.astype(np.int32))
    g.create_dataset("x", data=C.data.astype(np.float64))


def _write_info(parent, info: Mapping[str, str]) -> None:
    g = parent.create_group("info")
    for key in INFO_KEYS:
        raw = str(info.get(key, "")).encode("utf-8")
        g.create_dataset(key, data=np.array(raw, dtype=f"S{max(len(raw), 1)}"))


def _info_of(problem, info: Mapping[str, str] | None) -> dict:
    """The info strings to write: the problem's name and description (math_info split off), overridden by ``info``."""
    description, _, math_info = problem.description.partition(MATH_INFO_MARKER)
    out = {"title": problem.name, "description": description, "math_info": math_info}
    if info is not None:
        if not isinstance(info, Mapping):
            raise WrongTypeError(
                "info", f"is a {type(info).__name__}", "give a dict with the keys " + ", ".join(INFO_KEYS)
            )
        for key, value in info.items():
            if key not in INFO_KEYS:
                raise UnknownValueError(f"info[{key!r}]", "is not an FCLIB info string", "use " + ", ".join(INFO_KEYS))
            if not isinstance(value, str):
                raise WrongTypeError(f"info[{key!r}]", f"is a {type(value).__name__}", "give a string")
            out[key] = value
    return out


def _global_blocks(problem: ContactProblem) -> tuple:
    """(H, w, mu, G, b) of ``problem`` in FCLIB's layout, or a typed error for what FCLIB cannot hold."""
    d = problem.dimension
    if d not in LOCAL_DIMENSIONS:
        raise UnknownValueError("dimension", f"is {d}", "FCLIB's global problems have spacedim 2 or 3")
    uni, bil = problem.unilateral, problem.bilateral
    for i in range(problem.m):
        mode = str(problem.modes[i])
        if problem.types[i] == "bilateral" and mode != "frictionless":
            raise UnknownValueError(
                f"contacts[{i}].mode",
                f"is {mode!r} on a bilateral contact",
                "FCLIB's bilateral rows (G) are frictionless: give mode 'frictionless'",
            )
        if problem.types[i] == "unilateral" and mode not in ("coulomb", "frictionless"):
            raise UnknownValueError(
                f"contacts[{i}].mode",
                f"is {mode!r}: FCLIB has no stick/slip mode (its contacts "
                "follow Coulomb's law, the mode left to the solver)",
                "rebuild the problem with mode 'coulomb' for this contact (the given mode is then "
                "dropped) or 'frictionless'",
            )
    Jn = sp.csr_matrix(problem.J_n)
    Jt = sp.csr_matrix(problem.J_t)
    rows, w, mu = [], [], []
    for j in uni:
        rows.append(Jn[j])
        w.append(problem.normal_drift[j])
        t = problem.tangent_rows([j])
        if problem.has_tangent[j]:
            rows.append(Jt[t])
            w.extend(problem.tangent_drift[t])
        else:  # a frictionless contact without tangent rows: zero tangent columns, mu = 0
            rows.append(sp.csr_matrix((d - 1, problem.n)))
            w.extend([0.0] * (d - 1))
        mu.append(problem.friction[j] if problem.modes[j] == "coulomb" else 0.0)
    Ht = sp.vstack(rows, format="csr") if rows else sp.csr_matrix((0, problem.n))
    G = Jn[bil].T if len(bil) else None
    b = np.asarray(problem.normal_drift[bil], dtype=float) if len(bil) else None
    return Ht.T, np.asarray(w, dtype=float), np.asarray(mu, dtype=float), G, b


def save(
    problem: ContactProblem | LocalContactProblem, path: str | Path, *, info: Mapping[str, str] | None = None
) -> None:
    """Write ``problem`` as an FCLIB file: ``/fclib_global`` for a :class:`gaussqp.ContactProblem`,
    ``/fclib_local`` for a :class:`gaussqp.LocalContactProblem`, with ``/fclib_*/info``.

    Matrices are written in compressed columns (``nz = -1``, int32 indices, float64 values), which the fclib
    library and Siconos read; values are written as stored, so :func:`load` gives back the same numbers.

    Parameters
    ----------
    problem : ContactProblem or LocalContactProblem
        A global problem's contacts must fit FCLIB: one dimension (2 or 3) for all, unilateral contacts of mode
        ``"coulomb"`` (written with their μ) or ``"frictionless"`` (written with μ = 0, zero tangent columns when
        they have no tangent rows), bilateral contacts frictionless (their normal rows become the columns of
        ``G``, their drifts ``b``; tangent rows of a bilateral contact carry no force and are not written).
        ``F`` is written as ``f = -F``.
    path : str or Path
        The file to create (overwritten).
    info : dict, keyword-only
        ``title``, ``description``, ``math_info`` strings replacing those taken from the problem (``name``;
        ``description`` split at :data:`MATH_INFO_MARKER`).

    Raises
    ------
    gaussqp.errors.UnknownValueError
        A contact FCLIB cannot hold (a sticking or sliding mode: FCLIB has no stick/slip mode), an info key.
    gaussqp.errors.WrongTypeError
        ``problem`` is neither type, ``info`` is not a dict of strings.
    gaussqp.errors.MissingExtraError
        h5py is not installed.
    """
    if not isinstance(problem, (ContactProblem, LocalContactProblem)):
        raise WrongTypeError(
            "problem",
            f"is a {type(problem).__name__}",
            "give a gaussqp.ContactProblem or a gaussqp.LocalContactProblem",
        )
    strings = _info_of(problem, info)
    if isinstance(problem, ContactProblem):
        blocks = _global_blocks(problem)
    h5py = _h5py()
    with h5py.File(str(path), "w") as fh:
        if isinstance(problem, LocalContactProblem):
            g = fh.create_group(LOCAL)
            g.create_dataset("spacedim", data=np.array([problem.dimension], dtype=np.int32))
            _write_matrix(h5py, g, "W", problem.W)
            vec = g.create_group("vectors")
            vec.create_dataset("q", data=np.asarray(problem.q, dtype=np.float64))
            vec.create_dataset("mu", data=np.asarray(problem.mu, dtype=np.float64))
        else:
            H, w, mu, G, b = blocks
            g = fh.create_group(GLOBAL)
            g.create_dataset("spacedim", data=np.array([problem.dimension], dtype=np.int32))
            _write_matrix(h5py, g, "M", problem.M)
            _write_matrix(h5py, g, "H", H)
            if G is not None:
                _write_matrix(h5py, g, "G", G)
            vec = g.create_group("vectors")
            vec.create_dataset("f", data=-np.asarray(problem.F, dtype=np.float64))
            vec.create_dataset("w", data=w)
            vec.create_dataset("mu", data=mu)
            if b is not None:
                vec.create_dataset("b", data=b)
        _write_info(g, strings)


#: the group of an FCLIB file holding a solution
SOLUTION = "solution"


def save_solution(path: str | Path, *, r, u, v=None) -> None:
    """Write the FCLIB ``/solution`` group to a new file ``path``: ``r`` (the reaction, m·d, blocks (normal,
    t1[, t2]) in the problem's contact order and frame), ``u`` (the local velocity ``W r + q`` or ``Hᵀv + w``) and,
    for a global problem, ``v`` (its velocity, which gaussqp reads as the acceleration ``a``).

    Source: the fclib library's ``fclib_write_solution`` (datasets ``v``, ``u``, ``r`` of ``/solution``; ``l``,
    the multipliers of ``G``, is not written: gaussqp's Coulomb route takes no bilateral rows).

    Raises
    ------
    gaussqp.errors.ShapeError
        ``r`` and ``u`` differ in length, or a vector is not one-dimensional.
    gaussqp.errors.MissingExtraError
        h5py is not installed.
    """
    vecs = {"r": r, "u": u} | ({"v": v} if v is not None else {})
    arrays = {}
    for k, x in vecs.items():
        a = np.asarray(x, dtype=np.float64)
        if a.ndim != 1:
            raise ShapeError(k, f"has shape {a.shape}", "give a one-dimensional vector")
        if not np.all(np.isfinite(a)):
            raise NonFiniteError(k, "has NaN or infinite entries", "write the solution of a finished solve")
        arrays[k] = a
    if arrays["r"].size != arrays["u"].size:
        raise ShapeError(
            "u",
            f"has {arrays['u'].size} entries for {arrays['r'].size} in r",
            "give u = W r + q of the same reaction r (m·d entries each)",
        )
    h5py = _h5py()
    with h5py.File(str(path), "w") as fh:
        g = fh.create_group(SOLUTION)
        for k, a in arrays.items():
            g.create_dataset(k, data=a)
