"""Every tolerance, threshold and size limit of gaussqp, named and documented in one place.

**Tolerance presets** (``high``, ``mid``, ``low``), translated into each backend's settings (as
qpbenchmark does).

``solver`` is the accuracy asked of the backend; ``residual`` is the bound our own
recomputed residuals must meet for a claimed success to stand (otherwise the result is
downgraded to ``inaccurate``). OSQP's 1e-3 defaults are never used.

**Input limits**: every loader (:func:`gaussqp.loads`, :func:`gaussqp.load`, :func:`gaussqp.load_npz`)
and the constructors of :class:`gaussqp.ContactProblem` refuse data beyond them with an
:class:`~gaussqp.errors.InputError` naming the field (checks in :mod:`gaussqp.model.validation`), so
that hostile or corrupted input gives an error in bounded time and memory instead of an overflow, a
hang or a ``MemoryError``. Each value says why it is what it is; raise one only together with the
code it protects.

**Numerical thresholds**: the relative tolerances of rank, definiteness and activity decisions,
each applied at a scale taken from the data (:mod:`gaussqp.model.scales`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from .errors import UnknownValueError


@dataclass(frozen=True)
class Tolerance:
    name: str
    solver: float
    residual: float
    crosscheck: float


PRESETS = {
    "high": Tolerance("high", solver=1e-9, residual=1e-6, crosscheck=1e-6),
    "mid": Tolerance("mid", solver=1e-7, residual=1e-5, crosscheck=1e-5),
    "low": Tolerance("low", solver=1e-5, residual=1e-3, crosscheck=1e-3),
}
DEFAULT = "high"

#: preset tried once more when a backend stalls (iteration limit, numerical trouble) at the first
LOOSER = {"high": "mid", "mid": "low"}


def get_tolerance(preset: str | Tolerance | None) -> Tolerance:
    if isinstance(preset, Tolerance):
        return preset
    name = DEFAULT if preset is None else preset
    if name not in PRESETS:
        raise UnknownValueError("tolerance", f"is {name!r}", f"use one of {', '.join(PRESETS)}")
    return PRESETS[name]


# ---------------------------------------------------------------- input limits

#: Largest accepted magnitude of any number of the problem (entries of M, F, the rows, drifts,
#: friction, slip). The formulations and certificates multiply up to six entries together: the
#: Delassus matrix ``J M⁺ Jᵀ`` is a product of three, and its Gram matrix, squared norms and the
#: complementarity products ``λ·g`` square that. ``(1e50)⁶ = 1e300`` stays below the float64
#: maximum ``1.8e308`` with a factor >= 1e8 to spare for the sums over rows and coordinates, so
#: no intermediate overflows to ``inf`` (an entry of ``1e300`` made the arithmetic overflow and
#: the CLI hang). Physical data in SI units stay far below (the Sun's mass is 2e30 kg).
MAX_ABS_ENTRY = 1e50

#: Smallest accepted magnitude of a *nonzero* number of the problem, for the same reason seen from
#: the other side: masses are inverted (``M⁻¹``, the Jacobi scaling ``diag(M)^(-1/2)``) and rows are
#: normalized by their norms, so a nonzero entry of ``1e-320`` (a subnormal) made ``M⁻¹`` overflow to
#: ``inf`` and a certificate's SVD fail on NaN; ``(1e-50)⁶ = 1e-300`` keeps the reciprocals of such
#: products finite. A true zero is always accepted; a number that small in SI units is a zero.
MIN_ABS_ENTRY = 1e-50

#: Largest number of generalized coordinates ``n``. The sparse mass factorization
#: (:func:`gaussqp.linalg.mass.factor_mass`) loops over the connected components of M's sparsity
#: graph, up to n of them, at ~0.1 ms each plus an O(n) scan per component: a diagonal M of
#: n = 20,000 takes ~2.5 s (measured; n = 50,000 takes ~9 s), so construction stays in seconds.
MAX_COORDINATES = 20_000

#: Largest dense block of M that is eigendecomposed: a dense M's n, and the largest connected
#: component of a sparse M's sparsity graph (:func:`gaussqp.linalg.mass.factor_mass` densifies each
#: component). ``eigh`` is O(n³): n = 3,000 took 25 s on a loaded 2-core machine (n = 5,000 took
#: 53 s), so a mass matrix that is one dense block of 20,000 coordinates cannot hang the constructor.
MAX_DENSE_BLOCK = 3_000

#: Largest number of stored numbers in one array: a dense array's size, a sparse matrix's
#: declared row count or nonzero count, an NPZ member's declared element count, and the dense
#: kernel basis a sparse M with empty rows implies (n × empty rows). 25 million float64 are
#: 200 MB, so a declared shape of 3e16 is refused before ``np.zeros`` or a CSR index array
#: is allocated. It also bounds ``m × n`` of the normal rows, which the classification
#: densifies when sparse rank is not proven.
MAX_ENTRIES = 25_000_000

#: Deepest nesting of JSON arrays/objects accepted. A gaussqp/1 document nests at most 5 deep
#: (object > contacts > contact > tangent > row); 64 leaves room for the free-form
#: ``parameters`` metadata while staying far below Python's recursion limit (1000), which the
#: JSON decoder would otherwise hit with a bare ``RecursionError``.
MAX_NESTING_DEPTH = 64

#: Largest problem file, in bytes: the JSON text, and the sum of the uncompressed members of an
#: NPZ file (so a small "zip bomb" is refused before decompression). 256 MiB holds a dense
#: n = 5,000 mass matrix in JSON (~25e6 numbers of ~10 characters); larger problems are sparse.
MAX_FILE_BYTES = 256 * 2**20


# ---------------------------------------------------------------- numerical thresholds
# Relative tolerances of rank, definiteness, activity and verification decisions. Each is applied at a
# scale taken from the data (gaussqp.model.scales), never to raw magnitudes.

#: Relative tolerance for rank decisions (singular values below ``RANK_RTOL * s_max`` are zero).
RANK_RTOL = 1e-10

#: the sparse full-row-rank test trusts only σ_min >= this × σ_max: it works on the Gram matrix
#: ``AAᵀ``, whose spectrum carries the round-off of squaring (half the digits)
SPARSE_RANK_RTOL = 1e-6

#: a symmetric matrix counts as positive definite when the smallest eigenvalue of its equilibrated
#: form (divided by the square roots of a reference diagonal taken from the data) exceeds this
DEFINITE_RTOL = 1e-10

#: Relative tolerance of the symmetry and semidefiniteness checks on M.
MASS_RTOL = 1e-9

#: Relative slack under which a unilateral row counts as active, and a multiplier as zero, in the
#: instance certificates (:mod:`gaussqp.certificates.instance`) and the sticking verdict's active set
#: (:func:`gaussqp.friction.multiplier_set.active_tolerance`).
ACTIVE_RTOL = 1e-7

#: round-off allowance of a computed ``B_i y`` relative to ``‖B_i‖ ‖y‖`` (the LP's x is mapped through an
#: SVD, whose error is normwise): far below any coefficient that carries information (1e-10 and up)
ROUND_OFF = 1e3 * sys.float_info.epsilon

#: a ray's equations hold "to round-off" when each row's residual is below this many ``n ε`` times the
#: magnitude of that row's own terms (|M_j| |v|, |E_i| |v|, ...). A mass matrix assembled in floating point
#: as singular keeps λ_min ~ 1e3 ε λ_max from its rounding (seen: 770 ε), which must pass; a definite M with
#: cond(M) <= 1e12 (λ_min >= 1e-12 λ_max, more than 1000 n ε for n < 4.5) cannot
ROUNDOFF_MULTIPLE = 1000.0

#: relative tolerance of the NumPy re-verification of every LP answer (each row at its own scale)
VERIFY_RTOL = 1e-9

#: Relative tolerance of the piece tests of the enumeration (signs, complementarity, cones).
PIECE_RTOL = 1e-9

#: two solutions of the enumeration are the same point (or have the same acceleration) when they differ
#: by at most this times the data's unit (acceleration, or force per unit row norm)
SAME_RTOL = 1e-7

#: relative precision of the bisection on μ of the sticking verdict's μ_min
MU_RTOL = 1e-10


#: the smallest friction coefficient μ_min of the sticking verdict is searched up to this value (above it:
#: reported as inf, no friction coefficient makes the mode exist within reason)
MU_MAX = 1e6


# ---------------------------------------------------------------- algorithm size limits
# Above these sizes an exact (dense or exponential) step is skipped or replaced, and the result says so.

#: exact per-contact boundary tests (one SOCP each) up to this many sticking contacts
BOUNDARY_EXACT_MAX = 40

#: Largest number of enumerated contacts (sliding/sticking bilateral + unilateral): 2^12 pieces.
ENUMERATION_MAX = 12

#: forward-error certificates are computed densely up to this size (n + active rows)
FORWARD_ERROR_MAX = 1000  # one dense SVD of the KKT matrix: about a second at this size

#: sign enumeration for frictional bilateral contacts is exact but exponential
MAX_BILATERAL_STICKING = 8

#: the extreme-ray enumeration (the fallback when the LP's answer fails its check) is tried up to this
#: many row subsets; beyond it the decision is left undecided (UndecidedError)
MAX_RAY_SUBSETS = 5000

#: Problems whose dense data exceed this many entries are built with constant (sparse)
#: data instead of DPP parameters, and are not cached.
PARAM_ENTRIES_MAX = 400_000

#: dense active-set polishing is skipped above this size (n + number of rows)
POLISH_MAX = 2000

#: Largest LCP matrix tested exactly by its 2^k - 1 principal minors.
P_MATRIX_EXACT_MAX = 16

#: above this many coordinates a singular or sparse M gets the Jacobi estimate of M⁺F in
#: :func:`acceleration_scale` instead of a dense least-squares solve
SCALE_DENSE_MAX = 2000

#: the singleton verdict recomputes λ* with a dense least-squares solve up to this size
SINGLETON_DENSE_MAX = 600

#: Structural certificates need dense SVDs of n × n matrices: above this size they are skipped.
STRUCTURAL_MAX_N = 1500
