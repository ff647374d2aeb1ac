"""Lemke's complementary pivoting for the LCP ``0 <= z ⟂ w = M z + q >= 0``.

Our own implementation (the LCP route F3 must not depend on a third-party LCP code):

- all decisions on the equilibrated LCP ``M' = D M D`` (``D = diag(M_ii)^{-1/2}``, unit
  diagonal), ``q' = D q / max|D q|``, with the covering vector ``d' = 1`` there (a user ``d``
  is mapped to ``D d``): the covering vector is *not* scaled with ``M``, so the pivot path,
  the pivot tolerance and the ratio ties are the same whatever the units of each row;
- artificial variable ``z0``: ``w' = q' + d' z0 + M' z'``;
- lexicographic minimum-ratio test (rows of the basis inverse as tie-breakers), which
  prevents cycling on degenerate problems (Cottle, Pang & Stone, *The Linear
  Complementarity Problem*, §4.4 and §4.9);
- when the minimum ratio is attained (up to ``tie_tol``) by the row of ``z0``, ``z0`` leaves:
  on degenerate problems (redundant contact rows make ``M`` singular and the ratio test tie)
  taking another row first drives the tableau into round-off entries and a false ray;
- revised form: the tableau ``B⁻¹[I | -M | -d | q]`` is never formed; ``B⁻¹`` is kept only on
  the rows pivoted so far (``B⁻¹ = I + G Eᵀ``), the entering column is ``B⁻¹ a`` and a pivot is an in-place
  rank-1 update of ``G`` (k·p work per pivot, p the rows pivoted, against k·(2k + 2) for the tableau); the
  ratio test, the z0 rule and the lexicographic tie-break are the tableau's (:func:`_lex_min_ratio`,
  :func:`_lex_break_revised` visits only the columns of ``B⁻¹`` that can separate the tied rows);
- the final complementary basis is re-solved directly to remove tableau round-off;
- with numba (:func:`compiled_pivots`, :data:`~gaussqp.settings.LEMKE_COMPILED`) the equilibration, the pivoting, the
  final basis's bookkeeping and the answer's check run compiled (:mod:`gaussqp.linalg.lemke_compiled`), the NumPy
  code's operations in order: the same decisions and numbers bit for bit, the NumPy code the reference;
- nothing is believed unverified: ``"solved"`` needs every row of the original ``(w, z)`` to pass
  at its own scale ``|M_i||z| + |q_i|`` (:func:`lcp_violation`) — when that fails, the same check with the
  entries of ``M`` that are round-off of a zero (:func:`roundoff_entries`, ``0 < |M_ij| <= c·sqrt(M_ii M_jj)``)
  allowed anywhere within that round-off (a backward error: a row of a Delassus matrix whose entries towards
  the support are all ``~1e-16`` cannot be judged at a scale made of them); ``"ray"`` needs the secondary
  ray's ``z`` part to be a Farkas vector ``y >= 0, Mᵀy <= 0, qᵀy < 0`` up to the round-off of each
  column (:func:`farkas_violation`) — when ``M`` is copositive-plus (e.g. symmetric PSD, as every
  Delassus matrix is) a secondary ray is one in exact arithmetic (Cottle–Pang–Stone Thm 4.4.13).
  A run whose end fails its check is repeated with exact ties only (``tie_tol = 0``); if that
  fails too the status is ``"failed"`` (never a false solution or a false ray).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

import numpy as np

import gaussqp.settings as _settings  # the module: LEMKE_COMPILED is read at each call

from .dense import plain
from ..errors import InputError, NonFiniteError, ShapeError
from .kernel_loading import LoadRule, load_kernels
from ..settings import (
    LEMKE_PIVOT_TOL,
    LEMKE_PIVOTS_BASE,
    LEMKE_PIVOTS_PER_ROW,
    LEMKE_REFINE_RCOND,
    LEMKE_REFINE_TOL,
    LEMKE_ROUNDOFF_ENTRY_RTOL,
    LEMKE_TIE_TOL,
    LEMKE_VERIFY_RTOL,
    ROUND_OFF,
)


#: below this many entries (k × pivot rows) the rank-1 update of B⁻¹ is NumPy's outer product, above it BLAS's
#: in-place ``dger`` (whose call costs a few microseconds): a speed switch, not a tolerance
_DGER_MIN = 20000

#: columns of B⁻¹ the lexicographic tie-break compares per vectorized step (a speed switch: the rule is the same)
_LEX_BLOCK = 16


@dataclass
class LemkeResult:
    z: np.ndarray | None
    w: np.ndarray | None
    status: str  # "solved" | "ray" | "max_iter" | "failed"
    iterations: int
    message: str = ""
    #: on status "ray": the verified Farkas vector ``y >= 0``, ``Mᵀy <= 0``, ``qᵀy < 0`` (original units)
    ray: np.ndarray | None = None

    @property
    def success(self) -> bool:
        return self.status == "solved"


def lemke(
    M: np.ndarray,
    q: np.ndarray,
    d: np.ndarray | None = None,
    max_iter: int | None = None,
    pivot_tol: float = LEMKE_PIVOT_TOL,
    tie_tol: float = LEMKE_TIE_TOL,
    verify_tol: float = LEMKE_VERIFY_RTOL,
) -> LemkeResult:
    """Solve LCP(q, M) by Lemke's method with lexicographic anti-cycling.

    Parameters
    ----------
    M : (k, k) matrix
    q : (k,) vector
    d : (k,) covering vector, strictly positive, in the units of ``q`` (default: ones in the
        equilibrated problem, i.e. ``d_i = sqrt(M_ii)·max|q_j/sqrt(M_jj)|``)
    max_iter : pivot limit per pivoting run (default ``50 k + 100``)
    pivot_tol : entries of the entering column below ``pivot_tol * scale`` do not block
    tie_tol : relative tolerance under which two ratios of the ratio test count as tied
    verify_tol : row-wise relative tolerance of the final check of ``(w, z)`` or of the ray

    Returns
    -------
    LemkeResult with ``z``, ``w = M z + q`` and the status: ``"solved"`` only when every row
    passes :func:`lcp_violation` <= ``verify_tol`` at its own scale; ``"ray"`` only with a
    Farkas vector that passes :func:`farkas_violation` <= ``verify_tol``; ``"failed"`` when
    neither check passes (after a second run with exact ties only); ``"max_iter"``.

    Raises
    ------
    gaussqp.errors.ShapeError
        ``M`` is not ``(k, k)`` for ``k = q.size``, or ``d`` has not ``k`` entries.
    gaussqp.errors.NonFiniteError
        A NaN or an infinite entry in ``q`` or ``d``, or in ``M`` when some ``q_i < 0``. The routes, whose LCPs are
        computed from validated data, call :func:`lemke_or_failed` instead.
    gaussqp.errors.InputError
        An entry of ``d`` is not strictly positive.
    """
    M, q, d = _checked_data(M, q, d)
    k = q.size
    if k == 0 or np.all(q >= 0):
        z = np.zeros(k)
        return LemkeResult(z=z, w=q.copy(), status="solved", iterations=0, message="q >= 0: z = 0")
    if not np.isfinite(M).all():  # z = 0 above solves the LCP whatever M holds; pivoting on M needs it finite
        raise NonFiniteError("M", "has a NaN or an infinite entry", "pass finite LCP data")
    # compiled where NumPy's products on M (C-ordered) call the BLAS routine the kernels call: the same bits; loaded
    # only once the NumPy pivoting has cost the process what loading them costs (settings.LEMKE_COMPILED_AFTER_SECONDS)
    eligible = k * k <= _DGER_MIN and M.flags.c_contiguous
    fast = compiled_pivots() if eligible and _worth_loading() else None
    if eligible and fast is None:
        t_numpy = time.perf_counter()
        try:
            return _lemke_equilibrated(M, q, d, k, max_iter, pivot_tol, tie_tol, verify_tol, None)
        finally:
            _RULE.spent_in_numpy(time.perf_counter() - t_numpy)
    if fast is not None and d is None and _plain_numbers(max_iter, pivot_tol, tie_tol, verify_tol):
        # the common end (the first run's basis solves the LCP and passes its checks) in one compiled call; on any
        # other end the driver goes on from the equilibration and the first run the kernel made
        ok, z, w, equilibrated, D, Ms, qs, s, ds, run = fast.lemke_solved(
            plain(M), plain(q), _pivot_limit(k, max_iter), pivot_tol, tie_tol, LEMKE_REFINE_TOL, LEMKE_REFINE_RCOND,
            verify_tol,
        )  # fmt: skip
        if ok:
            return LemkeResult(z=z, w=w, status="solved", iterations=int(run[1]))
        if equilibrated:
            code, count, basis, rhs, x, entering = run
            first = (_STATUS[code], count, basis, rhs, x, int(entering)) if code >= 0 else None
            return _lemke_equilibrated(
                M, q, d, k, max_iter, pivot_tol, tie_tol, verify_tol, fast, (D, Ms, qs, s, ds, first)
            )
    return _lemke_equilibrated(M, q, d, k, max_iter, pivot_tol, tie_tol, verify_tol, fast)


def lemke_or_failed(M: np.ndarray, q: np.ndarray) -> LemkeResult:
    """:func:`lemke` on an LCP a route computed from validated data (a Delassus matrix, a reduced sliding LCP, the
    percussion LCP): a NaN or an infinite entry there comes from the computation (a product that overflowed), not
    from the user's input, so the run ends ``"failed"`` with the reason instead of raising the input error
    :class:`~gaussqp.errors.NonFiniteError`, which would name the LCP's ``M`` as if the user had given it.

    Parameters
    ----------
    M : (k, k) matrix
    q : (k,) vector

    Returns
    -------
    LemkeResult
        :func:`lemke`'s, or status ``"failed"`` (no z, no w) with the reason in ``message``.
    """
    try:
        return lemke(M, q)
    except NonFiniteError as err:
        return LemkeResult(z=None, w=None, status="failed", iterations=0, message=f"the computed LCP's {err}")


def _checked_data(M, q, d) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(M, q, d)`` as float arrays (``q`` and ``d`` flattened), or a typed error naming the argument: ``M`` not
    ``(k, k)`` for ``k = q.size`` (:class:`~gaussqp.errors.ShapeError`), a NaN or an infinite entry in ``q`` or ``d``
    (:class:`~gaussqp.errors.NonFiniteError`: the pivoting's ratio test and the final check are not defined on such
    data; ``M``'s entries are checked by :func:`lemke` after its shortcut ``q >= 0``, where ``z = 0`` solves the LCP
    whatever they are), ``d`` not of ``q``'s size or not strictly positive (:class:`~gaussqp.errors.InputError`)."""
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float).ravel()
    k = q.size
    if M.shape != (k, k):
        raise ShapeError(
            "M", f"has shape {M.shape}, expected ({k}, {k}) for q of {k} entries", "pass a square M of q's size"
        )
    if not np.isfinite(q).all():
        raise NonFiniteError("q", "has a NaN or an infinite entry", "pass finite LCP data")
    if d is None:
        return M, q, None
    d = np.asarray(d, dtype=float).ravel()
    if d.shape != (k,):
        raise ShapeError(
            "d", f"has {d.size} entries, expected {k} (one per entry of q)", "pass a covering vector of q's size"
        )
    if not np.isfinite(d).all():
        raise NonFiniteError("d", "has a NaN or an infinite entry", "pass a finite covering vector, or none")
    if np.any(d <= 0):
        raise InputError("d", "the covering vector must be strictly positive", "pass d > 0 entry by entry, or none")
    return M, q, d


def _plain_numbers(max_iter, *tolerances) -> bool:
    """Whether the limit and the tolerances are the numbers the compiled call takes (None or an ``int``; ``float`` or
    ``int``, not ``bool``): any other type (a ``Fraction``, a float pivot limit) keeps the driver's Python comparisons
    and types."""
    if max_iter is not None and (type(max_iter) is not int):
        return False
    return all(type(t) in (float, int) for t in tolerances)


def _pivot_limit(k: int, max_iter: int | None) -> int:
    """The pivots a run may take: ``max_iter``, or ``LEMKE_PIVOTS_PER_ROW · k + LEMKE_PIVOTS_BASE`` by default."""
    return LEMKE_PIVOTS_PER_ROW * k + LEMKE_PIVOTS_BASE if max_iter is None else max_iter


def _lemke_equilibrated(
    M, q, d, k, max_iter, pivot_tol, tie_tol, verify_tol, fast, start: tuple | None = None
) -> LemkeResult:
    """:func:`lemke` after its input checks: the equilibrated LCP's pivoting runs, by the compiled kernels (``fast``)
    or NumPy, their end checked on the original data. ``start``: ``(D, M', q', s, d', first)``, the equilibration and
    the first run (or None: made here) that :func:`~gaussqp.linalg.lemke_compiled.lemke_solved` computed already."""
    # Equilibrated LCP: z = s D z', w = s D⁻¹ w', M' = D M D (unit diagonal), q' = D q / s with
    # max|q'| = 1, covering vector d' = 1 (or D d normalized). Positive diagonal scalings map the
    # pivot path of one onto the other, so every tolerance below is taken on the equilibrated
    # problem, the same for each row whatever its units.
    ok, first = False, None
    if start is not None:
        D, Ms, qs, s, ds, first = start
        ok = True
    elif fast is not None:
        D, Ms, qs, s, ds, ok = fast.equilibrate(plain(M), plain(q), plain(d if d is not None else q), d is not None)
    if not ok:
        diag = np.diag(M).copy()
        D = np.where(diag > 0, 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0)), 1.0)
        Ms = D[:, None] * M * D[None, :]
        qs = D * q
        s = float(np.abs(qs).max())
        qs = qs / s
        ds = np.ones(k) if d is None else D * d
        ds = ds / ds.max()
    max_iter = _pivot_limit(k, max_iter)
    total, message = 0, ""
    for tt in dict.fromkeys((tie_tol, 0.0)):  # a second run decides ties exactly
        status, it, basis, rhs, x, entering = (
            first if first is not None else _pivot(Ms, qs, ds, max_iter, pivot_tol, tt, fast)
        )
        first = None
        total += it
        if status == "max_iter":
            return LemkeResult(
                z=None, w=None, status="max_iter", iterations=total, message=f"no termination within {max_iter} pivots"
            )
        if status == "solved":
            z = _refined(fast, Ms, qs, basis, rhs, k, s, D)
            w, viol = _verified(fast, M, q, z)
            if viol > verify_tol:  # the same check, the data's round-off entries allowed their round-off
                viol = lcp_violation(M, q, z, entry_error=roundoff_entries(M))
            if viol <= verify_tol:
                return LemkeResult(z=z, w=w, status="solved", iterations=total)
            message = f"complementary basis fails the row-wise check (violation {viol:.1e})"
        else:
            y = D * _ray_direction(basis, x, entering, k)
            viol = farkas_violation(M, q, y)
            if viol <= verify_tol:
                return LemkeResult(
                    z=None,
                    w=None,
                    status="ray",
                    iterations=total,
                    ray=y,
                    message=f"ray termination on entering variable {_name(entering, k)}",
                )
            message = (
                f"ray termination on entering variable {_name(entering, k)}, but the ray is not "
                f"a Farkas vector (violation {viol:.1e})"
            )
    return LemkeResult(z=None, w=None, status="failed", iterations=total, message=message)


def lcp_violation(M: np.ndarray, q: np.ndarray, z: np.ndarray, *, entry_error: np.ndarray | None = None) -> float:
    """Largest violation of ``z >= 0``, ``w = M z + q >= 0``, ``z_i w_i = 0``, each row relative to its own
    scale ``|M_i| |z| + |q_i|`` (a row of scale 0 is violated by any nonzero ``w_i``).

    ``entry_error`` (k × k, >= 0): an uncertainty of each entry of ``M``. Row ``i``'s violation is then first
    reduced by ``(entry_error |z|)_i``, the most a matrix within ``±entry_error`` of ``M`` moves ``w_i``: the
    violation of the LCP closest to the data within that uncertainty (a backward error). Default: none."""
    z = np.asarray(z, dtype=float)
    w = M @ z + q
    scale = np.abs(M) @ np.abs(z) + np.abs(q)
    bad = np.maximum(np.maximum(-w, 0.0), np.where(z > 0, np.abs(w), 0.0))
    if entry_error is not None:
        bad = np.maximum(bad - entry_error @ np.abs(z), 0.0)
    bad = np.maximum(bad, np.where(z < 0, np.inf, 0.0))
    rel = np.divide(bad, scale, out=np.where(bad > 0, np.inf, 0.0), where=scale > 0)
    return float(rel.max(initial=0.0))


def roundoff_entries(M: np.ndarray) -> np.ndarray:
    """The entries of ``M`` that are round-off of a zero, with their uncertainty: ``e_ij = c·sqrt(M_ii M_jj)``
    (``c`` = :data:`~gaussqp.settings.LEMKE_ROUNDOFF_ENTRY_RTOL`) where ``0 < |M_ij| <= e_ij``, else 0.

    For a positive semidefinite ``M`` (a Delassus matrix ``G Gᵀ``) ``|M_ij| <= sqrt(M_ii M_jj)`` and the
    computed ``M_ij = g_iᵀ g_j`` carries an absolute error of order ``eps·sqrt(M_ii M_jj)``: an entry below
    that is indistinguishable from an exact 0 (a contact that does not couple to another, computed as
    ``1e-16`` of either sign). An exact 0 is kept exact (the data say it), and so is every entry above the
    bound, and every entry of a row or column with a non-positive diagonal."""
    dg = np.sqrt(np.maximum(np.diag(M), 0.0))
    bound = LEMKE_ROUNDOFF_ENTRY_RTOL * np.outer(dg, dg)
    absM = np.abs(M)
    return np.where((absM > 0) & (absM <= bound), bound, 0.0)


def farkas_violation(M: np.ndarray, q: np.ndarray, y: np.ndarray) -> float:
    """How far ``y`` is from proving ``{z >= 0 : M z + q >= 0} = ∅``: if z were feasible,
    ``0 <= yᵀ(M z + q) = zᵀ(Mᵀy) + qᵀy``, impossible when ``y >= 0``, ``Mᵀy <= 0`` and ``qᵀy < 0``.

    Returns the largest positive ``(Mᵀy)_j`` relative to its own column scale ``(|M|ᵀ y)_j``;
    ``inf`` when ``y`` is empty, not finite, has a negative entry or is zero, or when ``qᵀy`` is not
    negative beyond its own round-off (``1e3·eps·|q|ᵀy``)."""
    y = np.asarray(y, dtype=float)
    if y.size == 0 or not np.all(np.isfinite(y)) or np.any(y < 0) or not np.any(y > 0):
        return float("inf")
    qy, qscale = float(q @ y), float(np.abs(q) @ y)
    col = M.T @ y
    rel = np.divide(col, np.abs(M).T @ y, out=np.zeros_like(col), where=col > 0)
    # the certificate must beat the round-off of qᵀy itself
    return float(max(rel.max(initial=0.0), 0.0 if -qy > ROUND_OFF * qscale else np.inf))


#: when the compiled pivots load (:func:`_worth_loading`)
_RULE = LoadRule("LEMKE_COMPILED_AFTER_SECONDS")


def expect_many_lemke_calls() -> None:
    """Tell :func:`lemke` that this process will call it many times (a :class:`gaussqp.Solver` re-solving a rollout
    with the cross-check, from its second problem): its compiled pivots load at its next call instead of after
    :data:`~gaussqp.settings.LEMKE_COMPILED_AFTER_SECONDS` of NumPy pivoting."""
    _RULE.expect_many_calls()


def _worth_loading() -> bool:
    """Whether :func:`lemke` may load the compiled kernels (:class:`~gaussqp.linalg.kernel_loading.LoadRule` with
    :data:`~gaussqp.settings.LEMKE_COMPILED_AFTER_SECONDS`: loaded or tried already, numba running, many calls
    announced, or the NumPy pivoting has cost that much wall time in this process)."""
    return _RULE.worth(_load_compiled.cache_info().currsize > 0)


def compiled_pivots() -> ModuleType | None:
    """The compiled pivoting (:mod:`gaussqp.linalg.lemke_compiled`), or None: when
    :data:`~gaussqp.settings.LEMKE_COMPILED` is False or the environment variable ``GAUSSQP_COMPILED`` is ``0`` (both
    read at each call), or numba cannot be imported (not installed, or broken: :data:`compiled_unavailable` then says
    why), :func:`lemke` pivots with NumPy (:func:`_pivot_numpy`, the reference; the same decisions either way).

    Returns
    -------
    types.ModuleType or None
        the module of the compiled kernel (:func:`gaussqp.linalg.lemke_compiled.pivots`), or None.
    """
    if not _settings.LEMKE_COMPILED or _ENVIRON.get("GAUSSQP_COMPILED", "").strip() == "0":
        return None
    return _load_compiled()


_ENVIRON = os.environ

#: why the compiled pivoting could not be loaded (the exception's type and message), or None
compiled_unavailable: str | None = None


@lru_cache(maxsize=1)
def _load_compiled() -> ModuleType | None:
    global compiled_unavailable

    def importer():
        from . import lemke_compiled

        return lemke_compiled

    module, compiled_unavailable = load_kernels(
        importer, "Lemke's method pivots with NumPy", "gaussqp.settings.LEMKE_COMPILED"
    )
    return module


_STATUS = ("solved", "ray", "max_iter")


def _pivot(M, q, d, max_iter, pivot_tol, tie_tol, fast):
    """Lemke's pivoting on the (equilibrated) data: (status, pivots, basis, rhs, entering column, entering).

    By the compiled kernel (``fast``: :mod:`gaussqp.linalg.lemke_compiled`, given by :func:`lemke` when
    :func:`compiled_pivots` has it, ``M`` is C-ordered and the NumPy pivoting would not switch to BLAS's ``dger`` for
    its rank-1 updates, ``k² <= _DGER_MIN``, where the arithmetic is small against NumPy's calls); else, and on the arithmetic cases the
    kernel leaves to it, by :func:`_pivot_numpy`. The kernel does the NumPy pivoting's operations in the same order:
    the same result bit for bit.
    """
    if fast is not None:
        code, it, basis, rhs, x, entering = fast.pivots(plain(M), plain(q), plain(d), max_iter, pivot_tol, tie_tol)
        if code >= 0:
            return _STATUS[code], it, basis, rhs, x, int(entering)
    return _pivot_numpy(M, q, d, max_iter, pivot_tol, tie_tol)


def _pivot_numpy(M, q, d, max_iter, pivot_tol, tie_tol):
    """Lemke's pivoting on the (equilibrated) data, in NumPy (the reference of the compiled kernel):
    (status, pivots, basis, rhs, entering column, entering).

    Revised form: the tableau ``T = B⁻¹ [I | -M | -d | q]`` is never formed. Only ``B⁻¹`` is kept, and only
    its columns that differ from the identity's: a column ``B⁻¹ e_i`` changes only once row ``i`` has been a
    pivot row, so ``B⁻¹ = I + G Eᵀ`` with ``G`` (k × p) over the p rows pivoted so far (``E`` their unit
    columns). The entering column ``B⁻¹ a`` is ``a + G a_P`` (k·p work), a pivot is the rank-1 update
    ``G -= u ρ`` with ``ρ`` the pivot row of ``B⁻¹`` on those columns (k·p work, in place), against k·(2k + 2)
    for a full tableau. The ratio test, its tie rule and the lexicographic tie-break on rows of ``B⁻¹`` are
    those of the tableau (:func:`_lex_min_ratio`); ``rhs = B⁻¹ q`` is updated like the tableau's last column.
    """
    k = q.size
    Z0 = 2 * k
    negMT = np.ascontiguousarray(-M.T)  # row j: the column of z_j in [I | -M | -d]
    negd = -d
    G = np.zeros((k, k), order="F")  # G[:, t] = B⁻¹ e_{cols[t]} - e_{cols[t]}, t < p
    cols = np.zeros(k, dtype=np.intp)
    slot = np.full(k, -1, dtype=np.intp)  # slot[i] = t when row i is cols[t]
    p = 0
    rhs = q.copy()
    basis = np.arange(k)
    scale = max(1.0, float(np.abs(M).max()))  # d is normalized to max 1
    tol = pivot_tol * scale

    def pivot(r: int, x: np.ndarray) -> None:
        nonlocal p
        t = slot[r]
        if t < 0:  # row r becomes a pivot row: B⁻¹ e_r = e_r so far, its column of G is 0
            t = slot[r] = p
            cols[p] = r
            p += 1
        rho = G[r, :p].copy()  # row r of B⁻¹ on the columns of G
        rho[t] += 1.0
        xr = float(x[r])
        theta = float(rhs[r]) / xr
        rhs[:] -= x * theta
        rhs[r] = theta
        u = x / xr
        u[r] -= 1.0 / xr  # (x - e_r) / x_r
        if k * p > _DGER_MIN:
            from scipy.linalg.blas import dger  # a function-level import: import gaussqp leaves scipy.linalg out

            dger(-1.0, u, rho, a=G[:, :p], overwrite_a=True)
        else:
            G[:, :p] -= u[:, None] * rho

    r = int(np.argmin(q / d))
    x = negd.copy()
    pivot(r, x)
    leaving = int(basis[r])
    basis[r] = Z0
    entering = leaving + k  # complement of w_r is z_r
    for it in range(1, max_iter + 1):
        # the entering column B⁻¹ a: for z_j (a = -M e_j) and z0 (a = -d) a + G a_P, for w_j (a = e_j) e_j + G e_slot
        if entering >= k:
            a = negMT[entering - k] if entering < Z0 else negd
            if p:
                x = G[:, :p] @ a[cols[:p]]
                x += a
            else:
                x = a.copy()
        else:
            t = slot[entering]
            x = G[:, t].copy() if t >= 0 else np.zeros(k)
            x[entering] += 1.0
        rows = (x > tol).nonzero()[0]
        if rows.size == 0:
            return "ray", it, basis, rhs, x, entering
        r = _min_ratio_row(
            rhs[rows],
            x[rows],
            rows,
            basis,
            Z0,
            tie_tol,
            lambda cand: _lex_break_revised(G, cols, slot, p, x, cand, tie_tol),
        )
        pivot(r, x)
        leaving = int(basis[r])
        basis[r] = entering
        if leaving == Z0:
            return "solved", it, basis, rhs, x, entering
        entering = leaving + k if leaving < k else leaving - k
    return "max_iter", max_iter, basis, rhs, x, entering


def _ray_direction(basis, x, entering, k) -> np.ndarray:
    """The z part of the ray ``x_B = rhs - t x``, ``x_entering = t`` with ``x = B⁻¹ a_entering`` (negative
    round-off clipped to 0: the verification judges the clipped vector)."""
    y = np.zeros(k)
    for r, j in enumerate(basis):
        if k <= j < 2 * k:
            y[j - k] = max(-x[r], 0.0)
    if entering >= k:  # (z0 never re-enters)
        y[entering - k] = 1.0
    return y


def _name(j: int, k: int) -> str:
    return f"w{j}" if j < k else (f"z{j - k}" if j < 2 * k else "z0")


def _lex_min_ratio(T, col, rows, basis, Z0, k, tie_tol) -> int:
    """The ratio test on a tableau ``T`` (columns ``0..k-1`` hold ``B⁻¹``, the last ``B⁻¹ q``) over the
    blocking ``rows`` of the entering column ``col``: the smallest ratio, ties (relative ``tie_tol``) going to
    z0's row, else to :func:`_lex_break`. (:func:`_pivot` applies the same rule without forming ``T``.)"""
    return _min_ratio_row(
        T[rows, -1], col[rows], rows, basis, Z0, tie_tol, lambda cand: _lex_break(T[cand, :k], col[cand], cand, tie_tol)
    )


def _min_ratio_row(rhs, x, rows, basis, Z0, tie_tol, lex_break) -> int:
    """The ratio test's row, written once for the tableau (:func:`_lex_min_ratio`) and the revised form
    (:func:`_pivot`): over the blocking ``rows`` (``rhs`` and ``x`` their entries of ``B⁻¹q`` and of the entering
    column), the smallest ratio; ties (relative ``tie_tol``) go to z0's row, else to ``lex_break(tied rows)``."""
    ratios = rhs / x
    best = float(ratios.min())
    cand = rows[ratios <= best + tie_tol * max(1.0, abs(best))]
    if cand.size > 1:
        z0_rows = cand[basis[cand] == Z0]
        return int(z0_rows[0]) if z0_rows.size else lex_break(cand)
    return int(cand[0])


def _lex_break(binv, col, cand, tie_tol) -> int:
    """Lexicographic tie-break among the tied rows ``cand``: their rows of ``B⁻¹`` (``binv``, one per
    candidate) divided by the entering column's entries ``col``, compared column by column, keeping at each
    column the rows within ``tie_tol`` (relative to ``max(1, |min|)``) of the smallest; the first row left wins.
    A column where every remaining row is within the tolerance of the smallest keeps them all, so the scan
    jumps (vectorized) to the next column that separates them."""
    V = binv / col[:, None]
    alive = np.ones(cand.size, dtype=bool)
    _lex_scan(V, alive, cand.size, 0, V.shape[1], tie_tol)
    return int(cand[np.flatnonzero(alive)[0]])


def _lex_break_revised(G, cols, slot, p, x, cand, tie_tol) -> int:
    """:func:`_lex_break` on ``B⁻¹ = I + G Eᵀ`` without forming its rows (``cand`` increasing). A column ``j``
    of ``B⁻¹`` outside the pivoted rows ``P`` is ``e_j``: over the tied rows it is zero (it never separates
    them: the smallest is 0, every row within the tolerance) unless ``j`` is itself a tied row outside ``P``,
    whose entry ``1/x_j`` is the only nonzero one, so that row alone drops out (when it exceeds the tolerance
    and another row is left). So the scan visits, in increasing order, only the columns of ``P`` (compared
    vectorized, block by block, between such rows) and the tied rows outside ``P`` (dropped in order): the
    same rows are kept as by the column by column scan of :func:`_lex_break`."""
    n = cand.size
    alive = np.ones(n, dtype=bool)
    n_alive = n
    in_p = slot[cand] >= 0
    fresh_t = (~in_p).nonzero()[0]  # tied rows outside P (positions in cand), increasing
    drops = 1.0 / x[cand[fresh_t]] > tie_tol  # their entry drops them (the others are 0 there)
    if p:
        pcols = cols[:p]
        order = np.argsort(pcols, kind="stable")
        pj = pcols[order]  # the pivoted rows' columns, increasing; their columns of G: order
        seg = np.searchsorted(pj, cand[fresh_t])  # columns of P before each fresh tied row
    else:
        pj = order = cols[:0]
        seg = np.zeros(fresh_t.size, dtype=np.intp)
    V = None
    start = 0  # next column of pj to compare

    def scan(stop: int) -> int:
        nonlocal V
        if n_alive == 1 or start >= stop:
            return n_alive
        if V is None:
            V = G[cand][:, order] / x[cand][:, None]
            if in_p.any():  # a tied row in P has B⁻¹[i, i] = G[i, slot_i] + 1
                own = in_p.nonzero()[0]
                V[own, np.searchsorted(pj, cand[own])] += 1.0 / x[cand[own]]
        return _lex_scan(V, alive, n_alive, start, stop, tie_tol)

    fresh_l, seg_l, drops_l = fresh_t.tolist(), seg.tolist(), drops.tolist()
    i = 0
    while i < len(fresh_l) and n_alive > 1:
        stop = seg_l[i]
        n_alive = scan(stop)  # the P columns before this fresh row
        start = max(start, stop)
        while i < len(fresh_l) and seg_l[i] == stop and n_alive > 1:  # fresh rows, in order
            if drops_l[i] and alive[fresh_l[i]]:
                alive[fresh_l[i]] = False
                n_alive -= 1
            i += 1
    n_alive = scan(pj.size)
    return int(cand[alive.nonzero()[0][0]])


def _lex_scan(V, alive, n_alive, start, stop, tie_tol) -> int:
    """:func:`_lex_break`'s rule on the columns ``start:stop`` of ``V`` over the rows still ``alive`` (updated in
    place), a block of columns at a time; returns how many rows are alive."""
    while n_alive > 1 and start < stop:
        rows = np.flatnonzero(alive)
        W = V[rows, start : min(stop, start + _LEX_BLOCK)]
        m = W.min(axis=0)
        thr = m + tie_tol * np.maximum(1.0, np.abs(m))
        split = np.flatnonzero((W > thr).any(axis=0))
        if split.size == 0:
            start += W.shape[1]
            continue
        c = int(split[0])
        alive[rows[W[:, c] > thr[c]]] = False
        n_alive = int(alive.sum())
        start += c + 1
    return n_alive


def _refined(fast, M, q, basis, rhs, k, s, D) -> np.ndarray:
    """``s D z`` with ``z`` of :func:`_refine` (the equilibrated LCP's solution, unscaled), by the compiled kernels
    (``fast``: :func:`gaussqp.linalg.lemke_compiled.basis_system` and :func:`~gaussqp.linalg.lemke_compiled.refined`,
    the NumPy operations in order, the basis solved by :func:`_basis_solve` between them) or, without them or on the
    cases they leave to it, NumPy."""
    if fast is not None:
        z, S, A, b = fast.basis_system(M, q, basis, rhs)
        zs = _basis_solve(A, b) if S.size else b
        out, ok = fast.refined(M, q, z, S, plain(zs), LEMKE_REFINE_TOL, s, D)
        if ok:
            return out
    return s * D * _refine(M, q, basis, rhs[:, None], k)


def _verified(fast, M, q, z) -> tuple[np.ndarray, float]:
    """``(w, lcp_violation(M, q, z))`` with ``w = M z + q``: by the compiled kernel (``fast``:
    :func:`gaussqp.linalg.lemke_compiled.verified`, the NumPy operations in order; ``M`` is C-ordered then) or,
    without it and on the cases it leaves to NumPy, by :func:`lcp_violation`."""
    if fast is not None:
        w, viol, ok = fast.verified(plain(M), plain(q), z)
        if ok:
            return w, viol
    return M @ z + q, lcp_violation(M, q, z)


def _refine(M, q, basis, T, k) -> np.ndarray:
    """z from the tableau (its last column ``T[:, -1]``), then re-solved on the complementary basis
    (``z_B`` from ``M_BB z_B = -q_B``, :func:`_basis_solve`); the re-solve replaces the tableau's z when it stays
    in the orthant (to ``-LEMKE_REFINE_TOL``) and its largest violation is no larger."""
    basis = np.asarray(basis)
    zrow = (basis >= k).nonzero()[0]  # z0 (index 2k) has left the basis
    S = basis[zrow] - k
    z = np.zeros(k)
    z[S] = np.maximum(np.asarray(T)[zrow, -1], 0.0)
    if S.size:
        zs = _basis_solve(M[np.ix_(S, S)], -q[S])
        cand = np.zeros(k)
        cand[S] = zs

        def err(x):
            w = M @ x + q
            return max(np.maximum(0, -x).max(initial=0), np.maximum(0, -w).max(initial=0), np.abs(x * w).max(initial=0))

        if np.all(zs >= -LEMKE_REFINE_TOL) and err(cand) <= err(z):
            z = np.maximum(cand, 0.0)
    return z


def _basis_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``A x = b`` by LU (LAPACK ``getrf``/``getrs``) when ``A``'s estimated reciprocal condition number is at
    least :data:`~gaussqp.settings.LEMKE_REFINE_RCOND`, else the least-squares minimum-norm solution
    (``numpy.linalg.lstsq``, as for a singular basis of a degenerate LCP): the two agree to ``~eps/rcond`` where
    both apply, and the LU costs a fraction of the SVD."""
    from scipy.linalg.lapack import dgecon, dgetrf, dgetrs  # function-level: import gaussqp stays light

    lu, piv, info = dgetrf(A)
    if info == 0:
        rcond, info = dgecon(lu, float(np.abs(A).sum(axis=0).max()))
        if info == 0 and rcond >= LEMKE_REFINE_RCOND:
            x, info = dgetrs(lu, piv, b)
            if info == 0:
                return x
    return np.linalg.lstsq(A, b, rcond=None)[0]
