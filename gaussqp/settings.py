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

from .errors import InputError, UnknownValueError


@dataclass(frozen=True)
class Tolerance:
    name: str
    solver: float
    residual: float
    crosscheck: float


#: the tolerance presets by name (see the module docstring: ``solver`` asked of the backend, ``residual`` met by
#: our own recomputed residuals, ``crosscheck`` between formulations)
PRESETS = {
    "high": Tolerance("high", solver=1e-9, residual=1e-6, crosscheck=1e-6),
    "mid": Tolerance("mid", solver=1e-7, residual=1e-5, crosscheck=1e-5),
    "low": Tolerance("low", solver=1e-5, residual=1e-3, crosscheck=1e-3),
}
#: preset used when none is given
DEFAULT = "high"

#: sides of the polygons that bracket exact friction cones when none is given (the sticking verdict's polygon
#: bracket, grasp ε): 8 brackets a disk within cos(π/8) ≈ 0.92 of its radius
DEFAULT_FACETS = 8

#: preset tried once more when a backend stalls (iteration limit, numerical trouble) at the first
LOOSER = {"high": "mid", "mid": "low"}


#: names of earlier releases (one naming rule now: the quantity first, ``_MAX`` / ``_MIN`` last; ``TINY`` was
#: :data:`SCALE_FLOOR` under a second name); reading one warns and gives the current value
RENAMED = {
    "CROSSCHECK_DENSE_MAX_N": "CROSSCHECK_DENSE_N_MAX",
    "FCLIB_MAX_TEXT_BYTES": "FCLIB_TEXT_BYTES_MAX",
    "FCLIB_SCENES_MAX_CONTACTS": "FCLIB_SCENES_CONTACTS_MAX",
    "FCLIB_SCENES_MAX_COUNT": "FCLIB_SCENES_COUNT_MAX",
    "FCLIB_SCENES_LOCAL_MAX_UNKNOWNS": "FCLIB_SCENES_LOCAL_UNKNOWNS_MAX",
    "STRUCTURAL_MAX_N": "STRUCTURAL_N_MAX",
    "FIXED_POINT_MAX_ITER": "FIXED_POINT_ITER_MAX",
    "COULOMB_FIXED_POINT_MAX_ITER": "COULOMB_FIXED_POINT_ITER_MAX",
    "COULOMB_NEWTON_MAX_ITER": "COULOMB_NEWTON_ITER_MAX",
    "COULOMB_MIN_STEP": "COULOMB_STEP_MIN",
    "COULOMB_MIXED_MAX_UNKNOWNS": "COULOMB_MIXED_UNKNOWNS_MAX",
    "COULOMB_NN_MAX_ITER": "COULOMB_NN_ITER_MAX",
    "COULOMB_NN_MIN_STEP": "COULOMB_NN_STEP_MIN",
    "GRASP_MAX_CONTACTS": "GRASP_CONTACTS_MAX",
    "GRASP_MINKOWSKI_MAX_POINTS": "GRASP_MINKOWSKI_POINTS_MAX",
    "GRASP_MAX_FACETS": "GRASP_FACETS_MAX",
    "STUDY_FAMILY_MIN_N": "STUDY_FAMILY_N_MIN",
    "STUDY_FAMILY_MAX_N": "STUDY_FAMILY_N_MAX",
    "STUDY_PEER_MAX_ITER": "STUDY_PEER_ITER_MAX",
    "ENVELOPE_TANGENT_MAX_DIRECTIONS": "ENVELOPE_TANGENT_DIRECTIONS_MAX",
    "ENVELOPE_MAX_VARIABLES": "ENVELOPE_VARIABLES_MAX",
    "AUDIT_MAX_STATES": "AUDIT_STATES_MAX",
    "FAST_QP_MAX_SIZE": "FAST_QP_SIZE_MAX",
    "GRASP_BATCH_MIN_POOL": "GRASP_BATCH_POOL_MIN",
    "MAX_ABS_ENTRY": "ABS_ENTRY_MAX",
    "MAX_BILATERAL_STICKING": "BILATERAL_STICKING_MAX",
    "MAX_CONTACT_DIMENSION": "CONTACT_DIMENSION_MAX",
    "MAX_COORDINATES": "COORDINATES_MAX",
    "MAX_DENSE_BLOCK": "DENSE_BLOCK_MAX",
    "MAX_ENTRIES": "ENTRIES_MAX",
    "MAX_FACETS": "FACETS_MAX",
    "MAX_FILE_BYTES": "FILE_BYTES_MAX",
    "MAX_NESTING_DEPTH": "NESTING_DEPTH_MAX",
    "MAX_RAY_SUBSETS": "RAY_SUBSETS_MAX",
    "MAX_RESTITUTION": "RESTITUTION_MAX",
    "MAX_SETTLE_STEPS": "SETTLE_STEPS_MAX",
    "MIN_ABS_ENTRY": "ABS_ENTRY_MIN",
    "MIN_NORMAL_NORM": "NORMAL_NORM_MIN",
    "MIN_SLIP_NORM": "SLIP_NORM_MIN",
    "TINY": "SCALE_FLOOR",
}


def __getattr__(name: str):
    if name in RENAMED:
        import warnings

        warnings.warn(f"gaussqp.settings.{name} is renamed {RENAMED[name]}", DeprecationWarning, stacklevel=2)
        return globals()[RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_tolerance(preset: str | Tolerance | None) -> Tolerance:
    """The :class:`Tolerance` of a preset's name (``None``: :data:`DEFAULT`), or ``preset`` itself when it is one and
    its ``residual``, ``crosscheck`` and ``solver`` are positive numbers no looser than :data:`NONEXISTENCE_CHANGE`
    (the verdict contract across tolerances; a cross-check looser than that would call routes that contradict each
    other agreeing); otherwise an :class:`~gaussqp.errors.InputError` naming the field."""
    if isinstance(preset, Tolerance):
        why = {
            "residual": "a 'solved' certified for data changed by more could stand beside another route's certified "
            "'infeasible'",
            "crosscheck": "routes whose answers differ by more would be reported as agreeing",
            "solver": "the backends are asked for at least the loosest preset's accuracy",
        }
        for field_name, reason in why.items():
            value = getattr(preset, field_name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= NONEXISTENCE_CHANGE:
                raise InputError(
                    f"tolerance.{field_name}",
                    f"is {value!r}, outside (0, {NONEXISTENCE_CHANGE:g}]",
                    f"use a {field_name} tolerance of at most {NONEXISTENCE_CHANGE:g} (the loosest preset's "
                    f"residual): {reason}",
                )
        return preset
    name = DEFAULT if preset is None else preset
    if not isinstance(name, str) or name not in PRESETS:  # a list is unhashable: `in` would raise TypeError
        raise UnknownValueError(
            "tolerance", f"is {name!r}", f"use one of {', '.join(PRESETS)}, or a gaussqp.settings.Tolerance"
        )
    return PRESETS[name]


# ---------------------------------------------------------------- backends and the cross-check
# Which backends a formulation calls directly (the cvxpy program stays the definition and the fallback), and
# which route checks an answer.
#: Backends that F1 and F2 call directly (:mod:`gaussqp.backends.direct`: the QP ``P = SMS``, ``A = [E; −G]`` built
#: from the problem's blocks, one solver object per structure re-solved with new data) before the cvxpy program;
#: the cvxpy program stays the definition and the fallback (any other status than solved/infeasible/unbounded).
DIRECT_QP_BACKENDS = ("clarabel", "osqp")
#: Backends that conic programs call directly in their standard form (:func:`gaussqp.backends.direct.solve_conic`)
#: before the cvxpy program (the definition and the fallback): the sticking verdict's programs on Λ(a) (margin,
#: contact margins, μ_min's feasibility tests; :mod:`gaussqp.friction.multiplier_conic`) and F4/F5 on large or sparse
#: problems (:mod:`gaussqp.formulations.sticking_conic`); any other backend runs the cvxpy programs only.
DIRECT_CONIC_BACKENDS = ("clarabel",)
#: Largest coordinate count at which :func:`gaussqp.solve` cross-checks a frictionless (or sticking-as-equality)
#: answer with Lemke on the dense Delassus LCP (``lcp_lemke``: a dense M⁻¹ and an O(m³) tableau; at n = 3000 it
#: took 99 % of a default solve); above it the sparse projected-acceleration route (F2) checks it.
CROSSCHECK_DENSE_N_MAX = 300


# ---------------------------------------------------------------- input limits

#: Largest accepted magnitude of any number of the problem (entries of M, F, the rows, drifts,
#: friction, slip). The formulations and certificates multiply up to six entries together: the
#: Delassus matrix ``J M⁺ Jᵀ`` is a product of three, and its Gram matrix, squared norms and the
#: complementarity products ``λ·g`` square that. ``(1e50)⁶ = 1e300`` stays below the float64
#: maximum ``1.8e308`` with a factor >= 1e8 to spare for the sums over rows and coordinates, so
#: no intermediate overflows to ``inf`` (an entry of ``1e300`` made the arithmetic overflow and
#: the CLI hang). Physical data in SI units stay far below (the Sun's mass is 2e30 kg).
ABS_ENTRY_MAX = 1e50

#: Smallest accepted magnitude of a *nonzero* number of the problem, for the same reason seen from
#: the other side: masses are inverted (``M⁻¹``, the Jacobi scaling ``diag(M)^(-1/2)``) and rows are
#: normalized by their norms, so a nonzero entry of ``1e-320`` (a subnormal) made ``M⁻¹`` overflow to
#: ``inf`` and a certificate's SVD fail on NaN; ``(1e-50)⁶ = 1e-300`` keeps the reciprocals of such
#: products finite. A true zero is always accepted; a number that small in SI units is a zero.
ABS_ENTRY_MIN = 1e-50

#: Largest number of generalized coordinates ``n``. The sparse mass factorization
#: (:func:`gaussqp.linalg.mass.factor_mass`) eigendecomposes the connected components of M's sparsity
#: graph in batches of equal size (before, one at a time with an O(n) scan each: a diagonal M of
#: n = 20,000 took ~2.5 s): a diagonal M of n = 100,000 takes ~1.2 s (measured), so construction stays in
#: seconds.
COORDINATES_MAX = 100_000

#: Largest dense block of M that is eigendecomposed: a dense M's n, and the largest connected
#: component of a sparse M's sparsity graph (:func:`gaussqp.linalg.mass.factor_mass` densifies each
#: component). ``eigh`` is O(n³): n = 3,000 took 25 s on a loaded 2-core machine (n = 5,000 took
#: 53 s), so a mass matrix that is one dense block of 20,000 coordinates cannot hang the constructor.
DENSE_BLOCK_MAX = 3_000

#: Largest number of stored numbers in one array: a dense array's size, a sparse matrix's
#: declared row count or nonzero count, an NPZ member's declared element count, and the dense
#: kernel basis a sparse M with empty rows implies (n × empty rows). 25 million float64 are
#: 200 MB, so a declared shape of 3e16 is refused before ``np.zeros`` or a CSR index array
#: is allocated. It also bounds ``m × n`` of the normal rows, which the classification
#: densifies when sparse rank is not proven.
ENTRIES_MAX = 25_000_000
#: Most facets of an F5 polygon (``gaussqp solve --facets``): k facets add k rows per sticking contact, and the
#: polygons' gap to the disk, 1 - cos(π/k), is 1.2e-6 at k = 2048 — below the solvers' tolerances
FACETS_MAX = 2048
#: Most MuJoCo steps ``load_mujoco(..., settle=)`` / ``--settle`` takes (a few seconds on a small model, ~1e5 steps/s)
SETTLE_STEPS_MAX = 1_000_000
#: Largest contact dimension d (a normal and d-1 tangent rows per contact): 3 is spatial Coulomb friction,
#: 4 and 6 are MuJoCo's torsional and rolling condim mapped into the isotropic cone (gaussqp.io.mujoco)
CONTACT_DIMENSION_MAX = 6

#: Deepest nesting of JSON arrays/objects accepted. A gaussqp/1 document nests at most 5 deep
#: (object > contacts > contact > tangent > row); 64 leaves room for the free-form
#: ``parameters`` metadata while staying far below Python's recursion limit (1000), which the
#: JSON decoder would otherwise hit with a bare ``RecursionError``.
NESTING_DEPTH_MAX = 64

#: Largest problem file, in bytes: the JSON text, and the sum of the uncompressed members of an
#: NPZ file (so a small "zip bomb" is refused before decompression). 256 MiB holds a dense
#: n = 5,000 mass matrix in JSON (~25e6 numbers of ~10 characters); larger problems are sparse.
FILE_BYTES_MAX = 256 * 2**20

#: a sliding contact's slip direction of Euclidean norm below this is refused as zero
#: (:class:`gaussqp.ContactProblem`); the direction is then normalized to unit length. An absolute
#: value (the slip is a direction, its units do not matter); value chosen with the code, not tuned.
SLIP_NORM_MIN = 1e-12

#: Largest accepted asymmetry of an FCLIB global problem's mass matrix, relative to its largest entry:
#: :func:`gaussqp.io.fclib.load` replaces ``M`` by ``(M + Mᵀ)/2`` when every ``|M_ij - M_ji|`` is at most
#: ``FCLIB_SYMMETRY_RTOL · sqrt(|M_ii M_jj|)`` (the entries' own scale; ``max(|M_ij|, |M_ji|)`` where that is 0),
#: i.e. round-off. Beyond, the stored M is not symmetric: the global problem is read as its condensed local
#: problem with the stored M (LMGC's CubeH8 and GlobalFrictionContactProblem00046 are
#: non-symmetric by 22 % at that scale, only 1.5e-7 of max|M|, which the former max|M| test took for round-off).
FCLIB_SYMMETRY_RTOL = 1e-6

#: Longest info string (title, description, math_info) read from an FCLIB file, in bytes; checked on the
#: declared size before reading. The collection's are below 200 bytes.
FCLIB_TEXT_BYTES_MAX = 2**20

#: The FCLIB generator of MuJoCo scenes (problems/fclib_scenes.py): most contacts a problem may be
#: aimed at (the benchmark's largest FCLIB problems have ~4,000)
FCLIB_SCENES_CONTACTS_MAX = 4000
#: most problems one call of the generator writes
FCLIB_SCENES_COUNT_MAX = 100_000
#: every how many problems the generator also writes the local form (when affordable)
FCLIB_SCENES_LOCAL_EVERY = 3
#: the largest m·d for which the generator writes the local form (W is condensed densely: 3,000 unknowns is 72 MB)
FCLIB_SCENES_LOCAL_UNKNOWNS_MAX = 3000


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
#: (:func:`gaussqp.friction.multiplier_set.active_tolerance`), each row relative to its data scale.
ACTIVE_RTOL = 1e-7

#: round-off allowance of a computed ``B_i y`` relative to ``‖B_i‖ ‖y‖`` (the LP's x is mapped through an
#: SVD, whose error is normwise): far below any coefficient that carries information (1e-10 and up)
ROUND_OFF = 1e3 * sys.float_info.epsilon

#: a ray's equations hold "to round-off" when each row's residual is below this many ``n ε`` times the
#: magnitude of that row's own terms (|M_j| |v|, |E_i| |v|, ...). A mass matrix assembled in floating point
#: as singular keeps λ_min ~ 1e3 ε λ_max from its rounding (seen: 770 ε), which must pass; a definite M with
#: cond(M) <= 1e12 (λ_min >= 1e-12 λ_max, more than 1000 n ε for n < 4.5) cannot
ROUNDOFF_MULTIPLE = 1000.0

#: the computed kernel of the equilibrated mass matrix M̃ leans into its kept eigenvectors by up to
#: ``this · n ε · λ_max(M̃) / λ_min,kept(M̃)`` (Davis–Kahan: eigenvector residual ~ n ε λ_max over the gap); a row
#: whose part on the kernel is below that angle times its norm vanishes on ker M
#: (:func:`gaussqp.certificates.instance.unique_acceleration`). A safety factor on LAPACK's backward error, not tuned:
#: the integer M of the verdict reproducer R1b (gap 7.7e-7) leans 3e-10, the bound with this factor is 7e-7
KERNEL_ANGLE_MULTIPLE = 100.0

#: relative tolerance of the NumPy re-verification of every LP answer (each row at its own scale)
VERIFY_RTOL = 1e-9

#: Relative tolerance of the piece tests of the enumeration (signs, complementarity, cones).
PIECE_RTOL = 1e-9

#: two solutions of the enumeration are the same point (or have the same acceleration) when they differ
#: by at most this times the data's unit (acceleration, or force per unit row norm)
SAME_RTOL = 1e-7

#: relative precision of the bisection on μ of the sticking verdict's μ_min
MU_RTOL = 1e-10


#: positive floor of a reference magnitude that may be exactly 0 (σ_max of a zero matrix, the Hadamard bound of
#: a zero minor, a zero Farkas vector): keeps a threshold ``rtol · ref`` or a quotient defined. Not a tolerance;
#: any tiny positive normal float would do (1e-300 is near the smallest normal float64, 2.2e-308)
SCALE_FLOOR = 1e-300

#: how many answers of the sparse full-row-rank test are kept by the matrix's content
#: (:func:`gaussqp.linalg.dense.sparse_full_row_rank`: the answer and the cross-check ask it of the same rows)
SPARSE_RANK_MEMO_SIZE = 8
#: the Lanczos eigenpair of the sparse full-row-rank test (:func:`gaussqp.linalg.dense.sparse_full_row_rank`)
#: is believed only when ``‖AAᵀv - λv‖ <= this · λ_max ‖v‖`` (else the dense SVD decides); the value of
#: :data:`RANK_RTOL`, taken apart because it judges an eigen-residual, not a singular value
EIG_RESIDUAL_RTOL = 1e-10
#: Lanczos vectors of that test's shift-invert ARPACK run (scipy's default is 20): its smallest eigenvalue is
#: usually well separated, and 10 vectors reach it in 11 solves where 20 take 21 (the chains of
#: n = 3000 / 12 000 rows: 2.8 → 1.0 ms / 8.6 → 2.9 ms); a clustered spectrum (1,000 stacked boxes) restarts more
#: (51 → 61 solves, 2.5 → 2.7 ms). A count, not a tolerance: the eigen-residual check above decides
SPARSE_RANK_LANCZOS_VECTORS = 10

#: a solution z of an equality KKT system ``K z = rhs`` is accepted when its residual is below this times the
#: magnitude of the terms (row by row in the polish and F7, ``max(1, ‖rhs‖∞)`` in the sparse LU path):
#: :func:`gaussqp.linalg.kkt.sparse_kkt_solve`, :func:`gaussqp.certificates.polish.polish` and F7's consistency
#: test (:mod:`gaussqp.formulations.bilateral_kkt`: above it the system is claimed inconsistent). Far above the
#: round-off of a backward-stable solve, far below the presets' residual tolerances (1e-6 and up)
KKT_SOLVE_RTOL = 1e-9

#: Lemke (:func:`gaussqp.linalg.lemke.lemke`), on the equilibrated LCP (unit diagonal, ``max|q'| = 1``): entries
#: of the entering column below this times ``max(1, max|M'|)`` do not block the ratio test (round-off of the
#: tableau updates must not be taken as a pivot)
LEMKE_PIVOT_TOL = 1e-12

#: Lemke: two ratios of the ratio test are tied when they differ by less than this relative to
#: ``max(1, |ratio|)``; a run whose end fails its check is repeated with exact ties (0)
LEMKE_TIE_TOL = 1e-9

#: Lemke: the row-wise relative tolerance of the final check of ``(w, z)`` (:func:`lcp_violation`) or of the
#: ray (:func:`farkas_violation`); nothing is believed unverified
LEMKE_VERIFY_RTOL = 1e-9

#: Lemke: the re-solved complementary basis replaces the tableau's z only when no component is below minus
#: this (equilibrated units), i.e. the re-solve did not leave the orthant beyond round-off
LEMKE_REFINE_TOL = 1e-12

#: Lemke: the re-solve of the complementary basis is an LU solve when the basis matrix's estimated reciprocal
#: 1-norm condition number (LAPACK ``gecon``) is at least this, else a least-squares minimum-norm solve (SVD):
#: above it the two differ by ``~eps/rcond`` (1e-10 relative), far below the check's 1e-9
LEMKE_REFINE_RCOND = 1e-6

#: Lemke: an entry of the LCP matrix with ``0 < |M_ij| <= this · sqrt(M_ii M_jj)`` is round-off of a zero (the
#: Cauchy–Schwarz bound of a PSD entry times a few hundred epsilons: the error of a computed Delassus entry
#: ``g_iᵀ g_j``); when the row-wise check of a complementary basis fails, it is repeated with each such entry
#: allowed anywhere in ``±`` its bound (:func:`gaussqp.linalg.lemke.roundoff_entries`): ``real/ant_standing``'s
#: contact LCP has entries ``~1e-16`` where the model has exact zeros, and rows made only of them
LEMKE_ROUNDOFF_ENTRY_RTOL = ROUND_OFF

#: the optimal value of a cone LP normalized to a unit box (``0 <= U x <= 1`` with U orthonormal,
#: ``|J_uᵀλ| <= 1``, ``|Z_a y| <= 1``) counts as positive above this: a nonzero cone element, a nonzero
#: intersection, a nonzero projection (:func:`gaussqp.linalg.polyhedral_cones.cone_is_trivial`,
#: :func:`gaussqp.certificates.sticking_criteria.image_meets_normal_cone`, the enumeration's
#: ``_projection_is_zero``). Dimensionless; HiGHS works to feasibility tolerances of 1e-7, so every answer is
#: re-verified in NumPy: a positive one with its point row by row, a zero one (in the last two) with the LP's
#: dual bound (:func:`gaussqp.linalg.polyhedral_cones.lp_dual_bound`)
LP_VALUE_TOL = 1e-9

#: rows of a cone LP's answer with ``|U_i x| <= this · max|U x|`` count as left at HiGHS's tolerance and are
#: projected onto ``U_i x = 0`` before the NumPy check (:func:`gaussqp.linalg.polyhedral_cones._project_active`):
#: above HiGHS's 1e-7 feasibility level, so its slack is removed; a larger violation is left to the check
HIGHS_ACTIVE_RTOL = 1e-6

#: a square system is solved directly only when the 2-norm condition number of its *equilibrated* form is below
#: this (:func:`gaussqp.linalg.dense.scaled_solve`: Ruiz scaling of an enumeration piece, ``D A_nb D`` with the
#: rows' kinetic norms for the sliding LCP); above it, it counts as singular: the enumeration's square piece goes
#: to the LP, the sliding LCP (58) and the fixed point of Prop. 9/11 are not applicable
#: (:mod:`gaussqp.friction.enumeration`, :mod:`gaussqp.friction.sliding`). At cond 1e12 a solve keeps about 4
#: significant digits
SOLVE_COND_MAX = 1e12

#: the point an enumeration piece's LP returns (solved in equilibrated rows and unknowns, right-hand sides divided
#: by their largest entry; then corrected in NumPy onto the rows within this of being active) must satisfy each
#: equality and inequality to this times its own terms ``|row| ‖ŷ‖∞ + |rhs|``, else the LP is taken to have
#: failed (SolverError): HiGHS's own feasibility tolerance (1e-7), so a point it calls feasible passes
PIECE_LP_RTOL = 1e-7

#: a principal minor counts as positive in the exact P-matrix test when it exceeds this times the product of
#: the row norms of its submatrix (Hadamard's bound, :func:`gaussqp.friction.sliding.p_matrix_test`)
P_MINOR_RTOL = 1e-12

#: the fixed point of Prop. 9/11 (:func:`gaussqp.friction.sliding.fixed_point`) has converged when a step is
#: below this times ``‖c‖∞`` (c = -A_nb⁻¹ w1, the first iterate; both in the units of the contraction): a few
#: hundred ε
FIXED_POINT_RTOL = 1e-13

#: the fixed-point iteration is abandoned as divergent when a step exceeds this times ``‖c‖∞`` (or is not
#: finite); value chosen with the code, not tuned
FIXED_POINT_DIVERGENCE = 1e12

#: forces (tangential or normal) below this times the load's terms ``max(‖M a‖∞, ‖F‖∞)`` count as zero in the
#: sticking verdict (:func:`gaussqp.friction.sticking_analysis.singleton_verdict` and the achieved ratio of μ_min): a
#: ratio of two solver-noise forces says nothing
ZERO_FORCE_RTOL = 1e-9

#: a component of a unit kernel vector counts as zero below this: the sticking normal multipliers are pinned on
#: Λ(a) when their coordinate vanishes in an orthonormal basis of ker J_actᵀ
#: (:mod:`gaussqp.friction.mu_min`), and ``ker M ⊆ ker J`` in C4 when the normalized rows applied to an
#: orthonormal basis of ker M vanish (:func:`gaussqp.certificates.structural.c4_singular_uniqueness`).
#: Dimensionless; value chosen with the code, not tuned
KERNEL_COMPONENT_TOL = 1e-9

#: μ_min's bisection accepts a solver's point at μ = value as "feasible" when the ratio it achieves on the
#: affine hull of Λ(a) is at most ``value · (1 + this)`` (plus the zero force): a ratio far above ``value``
#: decides nothing (:func:`gaussqp.friction.mu_min.mu_min`)
MU_ACCEPT_RTOL = 1e-6
#: μ_min's bisection also stops when its proven bracket — ``lo`` (a μ the backend declared infeasible) to ``best``
#: (the smallest ratio achieved *exactly* at a point of Λ(a)) — is narrower than this relative width: below it the
#: backend's feasibility claims, accepted to :data:`MU_ACCEPT_RTOL`, no longer move ``best`` (the humanoid's last dozen
#: steps each took ~100–500 interior-point iterations and left μ_min unchanged)
MU_BRACKET_RTOL = 1e-7

#: when the sticking normal forces are pinned on Λ(a), μ_min is one program's optimum and its lower end is proven by
#: one feasibility program this far below it (relative): ``infeasible`` there proves ``[μ_min (1 − this), μ_min]``.
#: Ten times :data:`MU_ACCEPT_RTOL`, the width within which a backend's feasibility claim decides nothing
#: (:func:`gaussqp.friction.mu_min.mu_min_bracket`)
MU_LOWER_PROOF_RTOL = 1e-5

#: the bisection on μ stops at a relative precision :data:`MU_RTOL` of ``max(hi, this)``: the floor ends it
#: when μ_min is 0 (an absolute precision of 1e-22 on μ, dimensionless)
MU_FLOOR = 1e-12

#: a sticking contact is on its cone boundary when its slack ``μ|λ_n| - ‖λ_t‖`` is at most this times the load
#: scale (:mod:`gaussqp.friction.sticking_analysis`, the boundary contacts), and F4's multiplier uniqueness is left
#: undecided when the verdict's margin is that small (:mod:`gaussqp.formulations.sticking_socp`). Looser than
#: the residual tolerances since the programs' margins carry the backends' tolerance; value chosen with the
#: code, not tuned
BOUNDARY_RTOL = 1e-6

#: a solver's answer is one of the enumeration's solutions (``Solution.in_enumeration``) when its normal
#: multipliers differ from one by at most this row by row in the data's units ``λ̂_i = λ_i ‖(J S)_i‖∞ / force``
#: (:mod:`gaussqp.model.scales`): an interior-point answer matches an
#: exact one to about the square root of the backend's tolerance
IN_ENUMERATION_RTOL = 1e-6

#: a unilateral multiplier above this in the data's units (``λ̂_i = λ_i ‖(J S)_i‖∞ / force``,
#: :mod:`gaussqp.model.scales`) keeps its row active whatever its slack
#: (:func:`gaussqp.friction.multiplier_set.detaching`): a slack that small next to a nonzero force is solver
#: round-off, not a detachment
NEGLIGIBLE_FORCE_RTOL = 1e-6

#: a conic Farkas vector (normalized ``rᵀy = -1`` in its program) is believed when its recomputed dual-cone
#: violation is below this times the terms it is made of, ``‖y‖∞ max(‖E‖, ‖G‖)`` (homogeneous in y and in the
#: units; no floor at 1)
#: (:func:`gaussqp.friction.multiplier_set.conic_farkas`)
CONIC_FARKAS_RTOL = 1e-8

#: ... and its recomputed value ``rᵀy`` is below this (the program asks -1: a value above -1/2 means the
#: normalization itself was not met)
CONIC_FARKAS_VALUE_MAX = -0.5

#: the friction bounds (:mod:`gaussqp.certificates.friction_bounds`) take a smallest singular value as zero
#: (bound (38) is 0, Prop. 12's premise fails) below this relative to the largest singular value of the same
#: matrix (A_n for (38); A^st_nu and H₁ each for Prop. 12), never against an absolute 1
FRICTION_BOUND_SINGULAR_RTOL = 1e-12

#: ``Fᵀv`` on a direction v (of the cone in C3(ii), of ker M in C4) counts as nonzero beyond this relative to the
#: magnitude of its own terms ``|F|ᵀ|v|`` (:mod:`gaussqp.certificates.structural`): dimensionless, the same verdict
#: in any units of F or of the coordinates; far above the round-off of the sum (n ε)
FORCE_DIRECTION_TOL = 1e-12

#: the verified Farkas vector (:func:`gaussqp.certificates.instance.verify_farkas`): its unilateral part may be
#: negative by at most this relative to ``‖y‖∞`` (the LP enforces ``y_u >= 0`` as bounds)
FARKAS_SIGN_RTOL = 1e-12

#: ... and its margin ``-bᵀy / Σ_i |y_i| row_i - stationarity - sign`` must exceed this for the certificate to hold
#: (``row_i`` the data scale of constraint row i, :mod:`gaussqp.model.scales`; stationarity ``|Jᵀy|_j`` relative to
#: its terms ``(|J|ᵀ|y|)_j``)
FARKAS_MARGIN_MIN = 1e-9

#: A cone-enforcing route's answer gets the forward-error certificate of F1's equality system when every sticking
#: force is inside its cone by more than this (relative to the contact's multipliers at the data's size, as
#: ``coulomb_cones`` measures it): far enough from the boundary that the tolerance's error cannot make a cone active.
FORWARD_ERROR_CONE_SLACK = 1e-3

#: C5(range): the drift's least-squares coefficients in ``im A_c`` are computed with this ``rcond`` ...
RANGE_RCOND = 1e-12

#: ... and the drift is in the range when the residual is below this relative to ``‖drift‖∞`` (exactly 0 for a
#: zero drift)
RANGE_RTOL = 1e-9

#: C6's kinetic-angle test applies when every off-diagonal cosine of the kinetic angles of the unilateral rows,
#: and of the bilateral rows, is zero to this (absolute: cosines are dimensionless)
ORTHOGONAL_COS_TOL = 1e-9

#: sticking Prop. 2 (:func:`gaussqp.certificates.sticking_criteria.bilateral_sticking_criterion`): a multiplier of (21) lies
#: in its Coulomb disk when ``μ|λ_n| - ‖λ_t‖ >= -this ·`` the contact's multipliers at the data's size
#: (``μ λ_data,n + max λ_data,t``, ``λ_data = force / ‖(J S)_row‖∞``, :mod:`gaussqp.model.scales`; λ from an exact solve)
STICKING_DISK_RTOL = 1e-9

#: the returned multipliers lie in their Coulomb cones (certificate ``coulomb_cones``,
#: :func:`gaussqp.certificates.instance.coulomb_cone_check`) when every contact's slack is above minus this times
#: the multipliers of the data's size at that contact (``μ λ_data,n + max λ_data,t``, :mod:`gaussqp.model.scales`); value chosen with the code (between the presets' solver tolerances), not tuned
CONE_CHECK_RTOL = 1e-7

#: the forward-error certificate's rank cut on the equilibrated KKT matrix: singular values below
#: ``σ_max (n + k) ε ·`` this are dropped (:func:`gaussqp.certificates.instance.forward_error`)
KKT_RANK_MULTIPLE = 10

#: the direct QP path (:mod:`gaussqp.backends.direct`) gathers dense blocks with index arrays, kept for this many
#: sizes (n, rows) ...
DIRECT_PATTERN_CACHE = 16
#: ... up to this n (O(n² + k n) integers each: under 1 MB here; above, assembling is a small part of a solve and they
#: are not kept)
DIRECT_PATTERN_CACHE_N = 300

#: the factors of an active set's equilibrated KKT matrix (:func:`gaussqp.mechanics.active_set.equilibrated_kkt_svd`:
#: the matrix, its singular values, and its LU and inverse or its singular vectors) are kept with their problem, for the
#: polish and the forward error of the answer and of the cross-check's answer, up to this n + active rows (three
#: matrices of this order, five when a set is asked both at full and at a truncated rank: 6–10 MB) ...
KKT_SVD_MEMO_MAX = 500
#: ... and for this many active sets per problem (also the sparse path's memo of KKT solutions,
#: :func:`gaussqp.mechanics.active_set.sparse_active_set_solution`, and the polish's points,
#: :func:`gaussqp.certificates.polish.active_set_point`)
KKT_SVD_MEMO_SIZE = 2

#: the polish's dense least-squares KKT solve on the equilibrated matrix uses this ``rcond`` (min-norm for
#: redundant rows; :func:`gaussqp.certificates.polish.polish`) ...
POLISH_RCOND = 1e-13

#: ... and its bounded least-squares recovery of nonnegative multipliers (BVLS) this ``tol``
POLISH_BVLS_TOL = 1e-14

#: an active-set method's answer (its working set handed to the polish) whose largest recomputed KKT residual
#: (:func:`gaussqp.certificates.residuals.kkt_residuals`, each row at its data scale) is at most this is not polished
#: again: it solves that set's KKT system to round-off already, and the polish, which solves the same system, could
#: only move it by round-off (DAQP's answers on the humanoid: 2e-16 → 7e-17). 1e3 ε, :data:`ROUND_OFF`'s value
POLISH_SKIP_RESIDUAL = 1e3 * sys.float_info.epsilon

#: F4's active-set answer (:meth:`gaussqp.formulations.sticking_conic.StickingConic._active_set_answer`) is an exact
#: solve of the KKT system with every contact active: it answers only when every recomputed KKT residual is at most
#: this (the equations met to round-off). A larger residual is a least-squares point of inconsistent equations (drifts
#: inconsistent within the tolerance, or a contact that detaches), which the conic program and the verdict contract
#: answer (the drift change reported, DESIGN.md §4.3). 1e3 ε, :data:`ROUND_OFF`'s value
ACTIVE_SET_ANSWER_RESIDUAL = 1e3 * sys.float_info.epsilon

#: F2 (:mod:`gaussqp.formulations.projected`) and F3 (:mod:`gaussqp.formulations.delassus`): the bilateral rows
#: are incompatible (tutorial (17) has no solution) when a row of ``J_b a + b_b``, at the acceleration the
#: elimination gives, exceeds this times that row's data scale (one test for both,
#: :func:`gaussqp.mechanics.delassus.bilateral_compatible`); far above the round-off of an elimination with
#: cond <= 1e6, far below a drift outside the rows' image
BILATERAL_COMPAT_RTOL = 1e-9


#: the smallest friction coefficient μ_min of the sticking verdict is searched up to this value (above it:
#: reported as inf, no friction coefficient makes the mode exist within reason)
MU_MAX = 1e6


# ---------------------------------------------------------------- algorithm size limits
# Above these sizes an exact (dense or exponential) step is skipped or replaced, and the result says so.

#: exact per-contact boundary tests (one SOCP each) up to this many sticking contacts
BOUNDARY_EXACT_MAX = 40

#: μ_min of the sticking verdict puts the solver's multipliers on the affine hull of Λ(a) (a dense
#: pseudo-inverse of ``J_actᵀ``) when n and m are both at most this (:func:`gaussqp.friction.mu_min.mu_min`);
#: above, each feasible program answer is taken at its μ. Chosen so that large verdicts stay fast (git log)
AFFINE_SET_DENSE_MAX = 1000

#: β₂ of Prop. 13 evaluates every vertex of [0, 1]^k up to this size before the local refinement (2^12 = 4096
#: evaluations) (:func:`gaussqp.certificates.friction_bounds.beta2`)
BETA2_VERTEX_MAX = 12

#: the classification computes the rank of the normal rows with a dense SVD when ``n · m`` is at most this
#: (32 MB of float64) and the rows are dense; otherwise with the sparse test or a pivoted QR
#: (:meth:`gaussqp.ContactProblem.classify`)
CLASSIFY_DENSE_MAX = 4_000_000

#: F3 (:mod:`gaussqp.formulations.delassus`) and F6 (:mod:`gaussqp.formulations.sliding`) eliminate the
#: bilateral rows densely (``M⁻¹``, the Delassus blocks): refused above this many coordinates
ELIMINATION_DENSE_MAX = 4000

#: F7 (:mod:`gaussqp.formulations.bilateral_kkt`) solves the KKT system by a dense least-squares solve: refused
#: above this n + m
KKT_DENSE_MAX = 3000

#: Largest number of enumerated contacts (sliding/sticking bilateral + unilateral): 2^12 pieces.
ENUMERATION_MAX = 12

#: forward-error certificates are computed densely up to this size (n + active rows)
FORWARD_ERROR_MAX = 1000  # one dense SVD of the KKT matrix: about a second at this size

#: most unilateral rows of undecided activity (slack and multiplier both within the tolerance, the slack counted with
#: the acceleration's error bound) whose every active/inactive combination the forward-error certificate tries
#: (2^this KKT SVDs); with more, the forces are not certified (:func:`gaussqp.certificates.instance.forward_error`)
FORWARD_ERROR_WEAK_ROWS_MAX = 4

#: sign enumeration for frictional bilateral contacts is exact but exponential
BILATERAL_STICKING_MAX = 8

#: the extreme-ray enumeration (the fallback when the LP's answer fails its check) is tried up to this
#: many row subsets; beyond it the decision is left undecided (UndecidedError)
RAY_SUBSETS_MAX = 5000

#: Problems whose dense data exceed this many entries are built with constant (sparse)
#: data instead of DPP parameters, and are not cached.
PARAM_ENTRIES_MAX = 400_000

#: F2 (:mod:`gaussqp.formulations.projected`) on a sparse problem: the dense elimination is refused above this
#: many coordinates (a dense problem is not limited here: its data is dense already)
PROJECTED_SPARSE_MAX = 3000

#: compiled cvxpy programs kept in the LRU cache (:data:`gaussqp.formulations.base.PROGRAMS`)
PROGRAM_CACHE_SIZE = 32

#: dense active-set polishing is skipped above this size (n + number of rows)
POLISH_MAX = 2000

#: Largest LCP matrix tested exactly by its 2^k - 1 principal minors.
P_MATRIX_EXACT_MAX = 16

#: above this many coordinates a singular or sparse M gets the Jacobi estimate of M⁺F in
#: :func:`gaussqp.model.scales.acceleration_scale` instead of a dense least-squares solve, and a sparse-factored M the bound
#: ``‖S F‖₂ / λ_min⁺`` in the data scales' free acceleration (:mod:`gaussqp.model.scales`)
SCALE_DENSE_MAX = 2000

#: the singleton verdict recomputes λ* with a dense least-squares solve up to this size
SINGLETON_DENSE_MAX = 600

#: Structural certificates need dense SVDs of n × n matrices: above this size they are skipped.
STRUCTURAL_N_MAX = 1500


# ---------------------------------------------------------------- iteration limits and search parameters
# How much work an iterative or search step may do; none of them is a tolerance.

#: Lemke's pivot limit per run is ``this · k + LEMKE_PIVOTS_BASE`` for an LCP of size k (when not given)
LEMKE_PIVOTS_PER_ROW = 50

#: ... the constant part of that limit
LEMKE_PIVOTS_BASE = 100

#: iterations of the fixed point of Prop. 9/11 before it is reported as not converged; value chosen with the
#: code (for scale: a contraction with L = 0.997 needs ~10,000 steps to gain 13 digits)
FIXED_POINT_ITER_MAX = 10_000

#: largest number of bisection steps on μ in μ_min: a safety cap (MU_RTOL = 1e-10 needs ~35 from [0, 1])
MU_BISECTION_MAX = 200

#: geometric-mean equilibration passes over a cone LP's matrix before HiGHS sees it
#: (:func:`gaussqp.linalg.polyhedral_cones._equilibrate`)
EQUILIBRATION_PASSES = 20

#: β₂ (:func:`gaussqp.certificates.friction_bounds.beta2`): random starting points of the SLSQP refinement ...
BETA2_STARTS = 8

#: ... the best vertices refined as well ...
BETA2_REFINED = 4

#: ... SLSQP's iteration limit ...
BETA2_SLSQP_MAXITER = 200

#: ... and its ``ftol``. β₂ is a lower estimate validated by the exact P-matrix test, so these set effort only
BETA2_SLSQP_FTOL = 1e-12

#: Prop. 13's bound (:func:`gaussqp.certificates.friction_bounds.common_mu_bound`) is searched on μ up to this ...
PROP13_MU_MAX = 10.0

#: ... from this smallest μ (no grid when the cap is below it) ...
PROP13_MU_MIN = 1e-6

#: ... on a geometric grid of this many points ...
PROP13_GRID_POINTS = 200

#: ... then refined by this many bisection steps (2^-60: to round-off)
PROP13_BISECTIONS = 60

# ---------------------------------------------------------------- Pinocchio importer

#: A contact's normal velocity (or tangential speed) counts as nonzero when it exceeds this multiple of the row's
#: own terms at the state, ``Σ_j |row_j v_j|``: a contact that separates is left out, one that slips is sliding.
#: Relative to the row's terms so that the units of the model do not matter; 1e-9 is well above the round-off of
#: a product of a Jacobian row with a velocity (~1e-15 relative) and far below any physical slip of interest.
IMPORT_VELOCITY_RTOL = 1e-9

#: ``pinocchio.isNormalized`` tolerance on the quaternion (unit complex) parts of a configuration ``q``: a
#: non-unit quaternion gives a rotation matrix that is not orthogonal, hence wrong rows. 1e-9 accepts the
#: round-off of a normalized quaternion written to a file with 10+ digits.
IMPORT_QUATERNION_TOL = 1e-9

#: Normals of a :class:`gaussqp.io.pinocchio.FrameContact` shorter than this are refused by
#: :func:`gaussqp.mechanics.frames.contact_frame` (a direction is
#: normalized; below this it is not a direction). Contact normals are given in unit-free numbers.
NORMAL_NORM_MIN = 1e-12

#: How many close frame names an unknown frame name's error lists (``difflib.get_close_matches``)
IMPORT_CLOSE_NAMES = 5

# ---------------------------------------------------------------- MuJoCo importer
# Decisions of :mod:`gaussqp.io.mujoco` (which contacts are separating, sliding, planar).

#: A unilateral row (contact normal, joint or tendon limit) whose velocity ``J_i q̇`` exceeds this fraction of the
#: model's velocity scale is *separating* and left out of the imported problem; a contact whose tangential speed
#: exceeds it is *sliding*, otherwise *sticking*. The velocity scale is ``sqrt(‖g‖ · extent)`` (the speed of a
#: fall over the model's size, MuJoCo's ``model.stat.extent``), or without gravity the largest contact-point
#: speed of the state. 1e-3: a humanoid (extent 2 m) judges at 4.4e-3 m/s, a slip a hundred times slower than a
#: walk. MuJoCo's soft friction lets resting contacts creep, and that creep can exceed this: dm_control's humanoid
#: lying for 20 s still creeps at up to 1e-2 m/s. Such contacts are imported as sliding; give ``velocity_tol`` or
#: ``modes`` when they should stick (the library's scenes zero the velocities of their settled states instead).
MUJOCO_VELOCITY_RTOL = 1e-3

#: A contact's (μ-scaled) tangent rows are reduced to their rank (planar models: a zero tangent row) when a
#: singular value of the block is below this fraction of the normal row's norm times the largest μ_k (the rows'
#: own scale): the rows MuJoCo builds for a planar model are exact zeros, so this only separates round-off.
MUJOCO_ROW_RTOL = 1e-10

#: A normal row whose norm is below this fraction of the largest row norm of the constraint rows is *zero* (two
#: geoms of bodies that cannot move relative to each other, e.g. self contacts of one rigid subtree): reported
#: and dropped.
MUJOCO_ZERO_ROW_RTOL = 1e-12

# ---------------------------------------------------------------- impacts and time steps

#: largest restitution coefficient accepted on a diagonal of the restitution matrix: Newton's law with
#: e > 1 creates energy at a single impact; 1 is the elastic bound (inertial (76), Brogliato's "energetic
#: constraints"), so anything above it is refused as an input error
RESTITUTION_MAX = 1.0

#: relative tolerance of the impact certificates' comparisons (two routes' v⁺ and P, the residual of (77),
#: the energy balance), each against the size of the data it compares; the routes solve to 1e-9 (solver
#: preset ``high``), so 1e-6 leaves room for the conditioning of A_c without hiding a wrong answer
IMPACT_RTOL = 1e-6

#: the Moreau–Jean parameter θ must lie in [THETA_MIN, 1] (θ = 1/2: trapezoidal positions, θ = 1: implicit
#: Euler on the velocity; below 1/2 the scheme is unstable on a linear spring)
THETA_MIN = 0.5
#: A unilateral contact of :func:`gaussqp.step` is active when its (predicted) gap is at most this fraction of the
#: distance its row can close in one step, ``h |n_i v| + h² |n_i| |a_free|`` (the free acceleration ``M⁺f``), plus
#: :data:`STEP_GAP_ROUNDOFF` times ``|n_i| |q|``: a resting contact whose gap is round-off (1e-18) stays active
#: instead of switching to free flight on every other step.
STEP_GAP_RTOL = 1e-9
#: The round-off of a gap computed from positions ``q``, in units of ``|n_i| |q|`` (a few ulps).
STEP_GAP_ROUNDOFF = 64 * 2.220446049250313e-16
# ---------------------------------------------------------------- mode-free Coulomb friction

#: A contact of a Coulomb problem whose normal reaction is below this fraction of the data's reaction scale is
#: *separated*; one whose tangential velocity exceeds this fraction of the data's velocity scale (‖q‖) is *sliding*;
#: otherwise *sticking* (:func:`gaussqp.friction.coulomb_law.contact_modes`). Well above the 1e-8 residual a solved
#: answer meets, so round-off never flips a mode.
COULOMB_MODE_RTOL = 1e-7

#: ``status == "solved"`` for a Coulomb answer needs the natural-map residual recomputed by us at most this
#: fraction of ‖q‖ (the issue's acceptance bound, FCLIB's customary 1e-8) ...
COULOMB_RESIDUAL_RTOL = 1e-8
#: ... and, for an acceleration-level problem, each dynamics row ``M a + F − Jᵀλ`` at most this fraction of its
#: own terms (the Newton-polished answer reaches round-off; 1e-8 leaves room for cond(M) up to ~1e7).
COULOMB_DYNAMICS_RTOL = 1e-8

#: Convex iteration: at most this many SOCPs with the shift ``s = μ‖u_t‖`` fixed ...
COULOMB_FIXED_POINT_ITER_MAX = 25
#: ... stopping early when the shift moves less than this fraction of ‖q‖ between two SOCPs (the Newton polish
#: then takes over: the fixed point converges linearly at best and stalls near 3e-3 on Capsules).
COULOMB_FIXED_POINT_RTOL = 1e-7

#: Newton polish on the natural map: at most this many iterations ...
COULOMB_NEWTON_ITER_MAX = 60
#: ... with Armijo's sufficient decrease of the merit ``½‖φ‖²`` at this fraction of the predicted decrease ...
COULOMB_ARMIJO = 1e-4
#: ... backtracking by this factor ...
COULOMB_BACKTRACK = 0.5
#: ... down to this smallest step (then a projected fixed-point step is taken instead of the Newton step).
COULOMB_STEP_MIN = 1e-8
#: Newton's linear systems are solved densely up to this many unknowns (m·d); beyond, by a sparse LU.
COULOMB_DENSE_MAX = 4000
#: Eigenvalues of the symmetric part of W below this fraction of its largest are clipped to zero when W_s is
#: factored for the fixed point's SOCP (``W_s = LᵀL``): round-off negatives of a singular Delassus matrix.
COULOMB_PSD_RTOL = 1e-12
#: Initial Levenberg–Marquardt weight θ of the polish's regularized Newton step ``(JᵀJ + θ‖φ‖ I) δ = −Jᵀφ``
#: (halved after a full step, doubled after a backtracked one): a singular W (local_problem_test, rank 72 of 144)
#: makes the plain Newton system singular.
COULOMB_LM_THETA = 1.0
#: The dynamics rows of a Coulomb answer are judged each at its own terms ``|M||a| + |F| + |J|ᵀ|r|``, floored at
#: this fraction of the largest row's terms (a row whose terms all vanish would otherwise be judged on round-off).
COULOMB_DYNAMICS_FLOOR = 1e-6
#: The Newton polish stops at this relative natural-map residual (÷‖q‖): round-off, well below the 1e-8 needed.
COULOMB_POLISH_RTOL = 1e-13
#: The convex iteration hands over to the Newton polish once its natural-map residual is at most this fraction of
#: ‖q‖. Measured: handing over at 1e-2 leaves the polish stalled at 6e-6 (Capsules) and 4e-5 (Spheres); after the
#: full iteration (residual ~1e-4 and below) it converges in ~5 steps. So only an already-accurate fixed point stops early.
COULOMB_HANDOFF_RTOL = 1e-6
#: A polish that stalls short of its target goes back to the convex iteration from its best point for at most
#: :data:`COULOMB_RESTART_ITER` SOCPs, then polishes again, at most this many times (measured: Capsules' polish
#: stalls at 3.4e-7 after 25 SOCPs; the SOCPs from there move it out of the merit's stationary point).
COULOMB_RESTARTS = 3
#: SOCPs per restart of the convex iteration (see :data:`COULOMB_RESTARTS`).
COULOMB_RESTART_ITER = 5
#: The convex iteration's SOCPs (mode-free Coulomb, :mod:`gaussqp.formulations.coulomb`) are solved to this
#: tolerance (or to the preset's ``solver`` tolerance when that is tighter) once the iteration's natural-map residual
#: is at most :data:`COULOMB_SOCP_TIGHT_RESIDUAL_MAX` of ‖q‖ or stops falling: the route aims at its own bound
#: :data:`COULOMB_RESIDUAL_RTOL` whatever the preset, and the SOCPs' inaccuracy is the floor of the iteration's
#: residual (settling box piles: at 1e-9 it stalled at 4e-7 to 2e-6 of ‖q‖; CHANGELOG, twenty-third session).
COULOMB_SOCP_RTOL = 1e-11
#: See :data:`COULOMB_SOCP_RTOL`: the residual above which the SOCPs are solved to the preset's tolerance while the
#: iteration's residual falls (far from the answer their inaccuracy is below the iteration's own error, and a tighter
#: solve costs more interior-point iterations).
COULOMB_SOCP_TIGHT_RESIDUAL_MAX = 1e-5
#: The mixed Coulomb route (F9, :mod:`gaussqp.formulations.coulomb_mixed`) works on dense (a, λ) with a dense
#: Jacobian of about (n + 2 m d)² entries: it takes at most this many unknowns n + m·d (a tower of 25 boxes,
#: 150 coordinates and 100 contacts in 3D, has 450).
COULOMB_MIXED_UNKNOWNS_MAX = 3000

# ---------------------------------------------------------------- mode-free Coulomb: the nonsmooth Newton kernel
#: :mod:`gaussqp.friction.nonsmooth_newton` (tried first by ``coulomb_fixed_point``, the convex iteration its
#: fallback) stops once the natural-map residual with ρ = 1 is at most this fraction of ‖q‖: 1e4 below the
#: certificate's :data:`COULOMB_RESIDUAL_RTOL`, one quadratic step short of round-off.
COULOMB_NN_TARGET_RTOL = 1e-12
#: ... after at most this many Newton iterations (each: one factorization and a line search) ...
COULOMB_NN_ITER_MAX = 50
#: ... or when the best merit ``½‖φ_ρ‖²`` has not halved over this many iterations (a stall: the caller falls back).
COULOMB_NN_STALL_ITER = 8
#: Newton's linear systems are dense (LAPACK) up to this many unknowns m·d, or when W holds more than
#: :data:`COULOMB_NN_SPARSE_DENSITY` nonzeros; otherwise W stays sparse and each step is one sparse LU (SuperLU).
#: Measured (one core, medians of 15): Box_Stacks-i0122 (246 unknowns, W 3 % nonzero) 8.8 ms sparse against 10.7 ms
#: dense; Box_Stacks-i0035 (93) 0.8 ms sparse against 0.4 ms dense.
COULOMB_NN_DENSE_MAX = 150
#: See :data:`COULOMB_NN_DENSE_MAX`.
COULOMB_NN_SPARSE_DENSITY = 0.1
#: SuperLU's column ordering of a sparse Newton matrix (``permc_spec``), computed once per pattern: multiple minimum
#: degree on ``J + Jᵀ`` (J's pattern is W's, symmetric by blocks). With :data:`COULOMB_NN_PIVOT_THRESHOLD` it
#: leaves 1.7× less fill than COLAMD with partial pivoting on the groups of 600 contacts of a 4,248-contact box pile
#: (53,000 against 92,000 entries of L + U; 1.5 against 2.7 ms a factorization, one core) and the same residual
#: ``‖J x − b‖``.
COULOMB_NN_SPARSE_ORDERING = "MMD_AT_PLUS_A"
#: SuperLU's threshold pivoting (``diag_pivot_thresh``): the diagonal entry is the pivot unless another entry of its
#: column is larger than it by more than 1/this (0.1, UMFPACK's default partial-pivot tolerance; 1 is partial
#: pivoting, with which the minimum-degree order gave no less fill than COLAMD). The growth of the factors' entries is
#: then bounded by 11 a step instead of 2: a Newton direction a little less accurate is only taken when the line search
#: finds the merit decreased along it, and the answer is judged by its residual recomputed from the data.
COULOMB_NN_PIVOT_THRESHOLD = 0.1
#: The Jacobian ``I − P' + P'ρD W`` is regularized by ``δ P'D`` (W → W + δ diag(1/ρ): a proximal term on the
#: sticking blocks, where a rank-deficient W makes it singular), ``δ = θ · min(1, ‖φ_ρ‖/‖ρ q‖)`` with this θ —
#: vanishing with the residual, so the local convergence stays superlinear.
COULOMB_NN_REG_THETA = 1e-2
#: ... and δ is never below this (round-off of the factorization of a singular sticking block).
COULOMB_NN_REG_FLOOR = 1e-12
#: The mode-free route runs the Newton with these θ in turn, the next only when the last did not reach
#: :data:`COULOMB_NN_ACCEPT_RTOL` (before the convex iteration): no single θ is best. On the 165 problems of
#: ``benchmarks/results/fclib_generated_study_newton`` the Newton alone reaches 1e-8·‖q‖ (the study's bar; the route
#: accepts at 1e-10) on 132 with θ = 1e-2, 135 with
#: 0.1, 131 with 1 and 146 with the three in turn: a weak damping keeps the fast local convergence on piles and
#: walls; a strong one lets the quadrupeds (W of rank 58 of 63, its nonzero spectrum over seven decades) converge.
COULOMB_NN_REG_THETAS = (COULOMB_NN_REG_THETA, 0.1, 1.0)
#: The line search backtracks by :data:`COULOMB_BACKTRACK` down to this step before it tries the fallback
#: directions (the projected step ``−φ_ρ``, then the merit's steepest descent ``−Jᵀφ_ρ``).
COULOMB_NN_STEP_MIN = 1e-4
#: A guess whose relative residual is below this is the only start tried (a re-solve along a trajectory); above,
#: "every contact sticks" (one linear solve, exact at rest) and ``r = 0`` compete with it by merit. The stick solve
#: is retried with W regularized (:data:`COULOMB_NN_REG_FLOOR`) only when ``W r = −q`` was not solved to
#: :data:`COULOMB_NN_ACCEPT_RTOL` (a singular W).
COULOMB_NN_GUESS_RTOL = 1e-2
#: Global problems (``M v = H r + f``): M's connected blocks up to this size are inverted densely (batched by size);
#: W = J M⁻¹ Jᵀ is then formed sparse. A larger block is solved through its sparse LU.
COULOMB_NN_BLOCK_MAX = 400
#: Nonmonotone line search (Grippo, Lampariello, Lucidi 1986): Armijo's decrease is measured from the largest merit
#: of the last this many iterates (1: monotone), which lets the method leave the merit's shallow valleys.
COULOMB_NN_NONMONOTONE = 10
#: ``coulomb_fixed_point`` keeps the nonsmooth Newton's answer when its natural-map residual (ρ = 1, ÷‖q‖) is at
#: most this, 100 below the certificate's :data:`COULOMB_RESIDUAL_RTOL` (the answer is then judged by that
#: certificate as any other); above, it falls back to the convex iteration.
COULOMB_NN_ACCEPT_RTOL = 1e-10
#: The Newton's stall test (:data:`COULOMB_NN_STALL_ITER`) counts the iterations since the merit ``‖φ_ρ‖²`` last
#: fell below this fraction of its best value (0.25: ‖φ_ρ‖ halved).
COULOMB_NN_STALL_FACTOR = 0.25

# ---------------------------------------------------------------- grasps
#: A grasp has at most this many contacts (the polyhedral ε computations grow with contacts × facets).
GRASP_CONTACTS_MAX = 1000
#: A contact normal must be a unit vector to this relative tolerance (a normal of norm 2 is a modelling error,
#: not something to normalize silently).
GRASP_NORMAL_RTOL = 1e-6
#: A grasp certificate verifies (:mod:`gaussqp.grasp.closure`) when its recomputed residual ``‖G x + w‖`` and its
#: cone violations are at most this fraction of the data's scale (``‖G‖₂ ‖x‖ + ‖w‖`` for forces, ``‖G‖₂ ‖y‖`` for a
#: separating wrench ``y``); forces whose cone slack exceeds ``√2 ‖G⁺ r‖`` are verified exactly instead.
GRASP_VERIFY_RTOL = 1e-7
#: A margin counts as strictly positive (closure, strict separation, a nonzero internal force) only above this
#: fraction of the data's scale: below it the answer is on a boundary that the solver cannot resolve.
GRASP_STRICT_RTOL = 1e-6
#: Default facets of the inscribed polygons of the min-weight LP (FRoGGeR uses 4-8 sided pyramids).
GRASP_MIN_WEIGHT_FACETS = 8

#: Hand checks (gaussqp/grasp/hand.py): contact forces, joint torques and separating directions found by a program
#: are accepted when their recomputed residuals (equilibrium, cone membership, torque limits) are at most this,
#: relative to the data's own scale (‖G‖‖x‖ + ‖wrench‖, ‖x‖, the torque limits).
HAND_FEASIBILITY_RTOL = 1e-6
#: A separating direction proves "no forces" only when its value ``zᵀw − τᵀ|r|`` exceeds this fraction of
#: ``‖z‖ ‖w‖`` (below, the wrench lies on the boundary of what the hand can resist: undecided at the tolerance).
HAND_SEPARATION_RTOL = 1e-7
#: The largest wrench the hand can apply along an axis is searched up to this multiple of the data's force scale
#: (the largest torque limit over its Jacobian row norm); a grasp reaching the cap is reported as "at least" it.
HAND_EXTENT_CAP = 1e6
#: An axis extent below this fraction of the force scale is zero: that wrench direction cannot be resisted at all.
HAND_EXTENT_ZERO_RTOL = 1e-7

# grasp quality ε (gaussqp/grasp/quality.py)
#: Relative rank tolerance of the primitive wrenches of a grasp: a singular value below this times the largest
#: one means the wrench set is flat (lower-dimensional, ε = 0); the matching left singular vector is the
#: certificate (no contact wrench has a component along it). qhull's own round-off is ~1e-13 relative.
GRASP_RANK_RTOL = 1e-10
#: Relative tolerance of the ε certificates, on the scale of the largest primitive wrench norm: a hull facet
#: is a facet when every primitive wrench lies inside it to this, a facet through the origin (offset within
#: this) means ε = 0, and a separating direction ``y`` is verified when ``h(y) <= `` this (``h`` the exact
#: support function). Three orders above qhull's round-off, far below any quality worth reporting.
GRASP_EPSILON_RTOL = 1e-9
#: The L∞ wrench set is a Minkowski sum; its vertices are accumulated contact by contact (pruned to the hull's
#: vertices at each step). More candidate points than this: the polyhedral L∞ ε is refused (use fewer facets
#: or the L1 form). The 6D hull grows fast: three spatial hard fingers with 8-gons give 729 candidates, 677
#: vertices and 68 607 facets (about 1 s of qhull); four fingers with hexagons, 2401 candidates, take about a
#: minute; 16-gons on three fingers (4913) exhaust memory.
GRASP_MINKOWSKI_POINTS_MAX = 1000
#: Starting directions of the local search for the exact-cone ε (the lowest facets of the inner and outer
#: hulls): the exact ε minimizes a convex support function over the unit sphere, a non-convex problem.
GRASP_EPSILON_STARTS = 6
#: Stopping tolerance of that local search (SLSQP's ``ftol``), relative to the wrench scale.
GRASP_EPSILON_SEARCH_TOL = 1e-12
#: Iteration cap of one local search.
GRASP_EPSILON_SEARCH_ITER = 200
#: Length of a friction cone drawn by :func:`gaussqp.grasp.plot.plot`, as a fraction of the grasp's size (the
#: larger of the farthest contact's distance and the torque scale): a drawing choice, long enough to read.
GRASP_PLOT_CONE_LENGTH = 0.35
#: At most this many polygon sides (sphere points for soft fingers) per cone in ε and the plot: the bracket is
#: already ~1e-3 wide at 64 on the shipped spatial grasps, and the hulls grow like (contacts × facets)^(w/2)
#: (three spatial fingers: 5 s at 64 facets, over 290 s at 200).
GRASP_FACETS_MAX = 128


# ---------------------------------------------------------------- cross-validation studies: metrics and report
#: Shift of the shifted geometric means of a study's times (seconds) and residuals (dimensionless):
#: ``sgm(v) = exp(mean(log(v + s))) - s``. qpbenchmark uses ``shift=10.0`` for the runtime and for every
#: residual (``qpbenchmark/report.py``, ``Report.__compute_dataframes``, github.com/qpsolvers/qpbenchmark); we keep
#: its value so that the two reports read the same way. With residuals far below the shift the mean is close to
#: their arithmetic mean (computed with log1p/expm1 so that residuals of 1e-15 keep their digits).
STUDY_SGM_SHIFT = 10.0
#: Times below this (seconds) are one clock tick: a performance profile compares ``max(t, this)`` so that a run
#: timed at 0 s (a clock that did not advance) gives a finite ratio. ``time.perf_counter`` resolves ~1e-7 s; the
#: runs of a study take 1e-4 s and more, so the floor changes no ratio that a clock could measure.
STUDY_PROFILE_TIME_FLOOR = 1e-6
#: Residuals below this are round-off: a residual profile compares ``max(r, this)`` (an exact 0 from a direct
#: solve would make every other route's ratio infinite). Double precision's machine epsilon.
STUDY_PROFILE_RESIDUAL_FLOOR = sys.float_info.epsilon


# ---------------------------------------------------------------- cross-validation studies: sets and runs
#: Problems of a generated-families set when ``families`` is given without a count (``gaussqp crossval families``).
STUDY_FAMILY_COUNT = 100
#: A MuJoCo set (``mujoco:MODEL[:COUNT]``) samples this many states by default, one every
#: :data:`STUDY_MUJOCO_EVERY` simulation steps with zero controls from the model's initial state.
STUDY_MUJOCO_COUNT = 10
#: Simulation steps between two sampled states of a MuJoCo set.
STUDY_MUJOCO_EVERY = 50
#: Seed of a generated-families set when ``families[:COUNT]`` is given without one.
STUDY_FAMILY_SEED = 0
#: Smallest coordinate count n drawn for a generated problem (small problems: a study runs every
#: route on each, and the exact enumerations are exponential in the contact count).
STUDY_FAMILY_N_MIN = 3
#: Largest coordinate count n drawn for a generated problem (see :data:`STUDY_FAMILY_N_MIN`).
STUDY_FAMILY_N_MAX = 8
#: Friction coefficient of the generated sliding family's contacts (a moderate μ: large enough that friction
#: matters, small enough that most draws keep a solution).
STUDY_SLIDING_FRICTION = 0.3
#: Per-run wall-clock limit of a study run in seconds (``--time-limit``): a run still going after it is recorded
#: as ``timeout`` and its worker killed; one minute covers every shipped problem on every route.
STUDY_TIME_LIMIT = 60.0
#: Seconds between two rewrites of the results table while a study runs (the journal ``results.jsonl`` gets every
#: row as it finishes; the table is rewritten at most this often and once at the end).
STUDY_FLUSH_INTERVAL = 30.0
#: Python interpreter that imports Siconos (``siconos.numerics``), the study's peer (``gaussqp crossval --peers``):
#: Debian's ``python3-siconos`` lives in the system interpreter, built against its own NumPy, so the peer runs
#: there as a subprocess (npz in, JSON out) and is never imported by gaussqp. The environment variable
#: ``GAUSSQP_SICONOS_PYTHON`` overrides it.
STUDY_SICONOS_PYTHON = "/usr/bin/python3"
#: Iteration limit handed to a peer's iterative solvers (Siconos's ``SICONOS_IPARAM_MAX_ITER``); the peer's
#: tolerance is the preset's ``solver`` tolerance (:data:`PRESETS`).
STUDY_PEER_ITER_MAX = 10_000
#: Largest LCP (unknowns) or friction problem (contacts) given to a peer's enumeration solver: Siconos's
#: ``LCP_ENUM`` tries the 2^k complementary pieces, 4,096 at this size.
STUDY_PEER_ENUM_MAX = 12
#: Seconds of a study run's time limit kept for our judge and the row when a peer (Siconos) runs: its subprocess is
#: stopped this long before the limit (so that the run records its own ``timeout`` before the pool kills the worker
#: and leaves the subprocess orphaned), and it is given at least this long.
STUDY_PEER_TIME_MARGIN = 0.5

# ---------------------------------------------------------------- force envelopes and engine audits
# One block, read by gaussqp/certificates/force_envelopes.py and gaussqp/audit/.
#: Feasibility of an envelope's primal point (put on the affine hull ``A x = M a + F`` by a least-squares step) and of
#: a dual certificate (``q − Aᵀy − Bᵀz`` and the cone membership of ``z``), relative to the program's own scale
#: (``‖|A||x|‖∞ + ‖r‖∞`` resp. ``‖q‖∞ + ‖|A|ᵀ|y|‖∞``): a bound whose point or dual misses it is reported None.
ENVELOPE_VERIFY_RTOL = 1e-7
#: A unilateral contact whose normal acceleration ``n_i a + b_i`` exceeds this times its row's data scale (and whose
#: force is negligible) is separating in the force set at ``a``; a mode-free (``coulomb``) contact whose tangential
#: acceleration exceeds it (times the tangent rows' scale) slides, opposing it; otherwise it may stick.
ENVELOPE_ACTIVE_RTOL = 1e-7
#: The largest tangential force is bracketed by support programs in directions of the tangent plane (an outer
#: polygon whose vertices bound it above, the verified points below); refinement stops when the bracket is below
#: this times the contact's force scale, or after :data:`ENVELOPE_TANGENT_DIRECTIONS_MAX` directions.
ENVELOPE_TANGENT_RTOL = 1e-6
#: The most support directions of one tangent bracket (see :data:`ENVELOPE_TANGENT_RTOL`).
ENVELOPE_TANGENT_DIRECTIONS_MAX = 24
#: The answer's own forces count as a member of the envelope's set (``contains_answer``) when their residual and
#: cone violation, relative as in :data:`ENVELOPE_VERIFY_RTOL`, are below this (the answer is judged at its own
#: tolerance, looser than a certificate's).
ENVELOPE_MEMBERSHIP_RTOL = 1e-4
#: Largest number of force variables of an envelope (dense programs; a MuJoCo scene of 100 condim-3 contacts has 300).
ENVELOPE_VARIABLES_MAX = 6000
#: An engine's normal force outside its envelope by more than this times the state's force scale (the largest
#: envelope bound, or the engine's largest normal force) is flagged ``outside_envelope``: engines regularize contacts
#: (MuJoCo's soft constraints), so forces a little off the rigid set are the engine's model, not an error.
AUDIT_ENVELOPE_RTOL = 1e-2
#: An engine force whose Coulomb-law residual (cone violation, or the friction force's deviation from ``−μ λ_n s``
#: at a slipping contact) exceeds this times the contact's force scale is flagged ``coulomb_violation``.
AUDIT_COULOMB_RTOL = 1e-2
#: The engine's acceleration farther than this from the rigid one, in the kinetic metric relative to the free
#: acceleration's (``‖a_engine − a‖_M / ‖M⁻¹F‖_M``), is flagged ``acceleration_gap``.
AUDIT_ACCELERATION_RTOL = 1e-2
#: Creep: a contact the rigid answer holds sticking while the engine has it slipping, i.e. the engine's tangential
#: speed above this times the model's velocity scale ``sqrt(‖g‖ · extent)`` (or the engine's tangential acceleration
#: above this times ``‖g‖``). The rigid problem itself treats tangential speeds below the importer's
#: ``velocity_tol`` (:data:`MUJOCO_VELOCITY_RTOL`) as at rest: MuJoCo's creep is reported as creep, not as a rigid slip.
AUDIT_CREEP_RTOL = 1e-5
#: Relative width to which an audit closes each friction-force bracket (certified at any width; 1e-4 of a force is
#: far below any engine's regularization, and it saves the support programs of the last digits).
AUDIT_TANGENT_RTOL = 1e-4
#: A MuJoCo contact moving faster than the importer's ``velocity_tol`` whose friction is below this fraction of its
#: cone (``‖(f_j/μ_j)‖ < fraction · f_n``) creeps: the engine holds it (regularized friction) while it moves. The
#: audit poses it at rest in the rigid problem, which decides whether Coulomb friction holds it (then: creep).
AUDIT_CREEP_CONE_FRACTION = 0.9
#: Largest number of states of one audit (a rollout's steps or a recorded file's rows).
AUDIT_STATES_MAX = 1_000_000
#: Rollouts with at least this many states run on a process pool (``workers`` > 1) in chunks of this many states.
AUDIT_CHUNK = 50

# ---------------------------------------------------------------- the small dense QP path and μ_min's ratio steps
#: Largest F1/F2 program (coordinates plus rows, ``n + m_E + m_G``) handed to the small dense path, the compiled dual
#: active-set solver DAQP (:mod:`gaussqp.backends.daqp_`), when no solver is named, ``M ≻ 0`` and every
#: block is dense; larger, sparse or singular-M programs (and any DAQP answer that is not optimal or that the judge
#: does not certify) go to Clarabel. DAQP works on dense ``n × n`` and ``n × m`` factors: at a few hundred unknowns it
#: is ~20× faster than Clarabel on the humanoid's QP (``benchmarks/control_rates.py``); the limit keeps its dense
#: O(n²m) work below Clarabel's sparse factorization.
FAST_QP_SIZE_MAX = 400
#: Largest problem (``n + m·d`` unknowns) solved with every BLAS library on one thread
#: (:func:`gaussqp.linalg.blas_threads.one_blas_thread`): OpenBLAS splits some calls on a robot's few-dozen-row
#: matrices over its threads, which wait for a core whenever the machine's other cores are busy; at this size a call
#: is microseconds on one core (``benchmarks/blas_contention.py``: the mode-free humanoid's solve 1.1–2.4× faster on
#: one thread, quiet or busy, the frictionless one ~3 % slower). 0 leaves the libraries' threads as they are.
BLAS_ONE_THREAD_SIZE_MAX = 400
#: Backends of the small dense path, in preference order (:data:`gaussqp.backends.FAST_BACKENDS`).
FAST_QP_BACKENDS = ("daqp",)
#: Largest number of ratio steps (Crouzeix–Ferland–Schaible's method for ``min max_i ‖λ_t,i‖/λ_n,i`` over Λ(a)) that
#: bring μ_min's upper end down before the lower end is proven and the bisection goes on from the proven bracket
#: (:func:`gaussqp.friction.mu_min.mu_min_bracket`); each step is one conic program, and the method converges
#: superlinearly where the optimum is regular, so a handful replace ~25 bisection steps. A safety cap.
MU_RATIO_STEPS_MAX = 20
#: After the ratio steps, the lower end of μ_min is sought :data:`MU_LOWER_PROOF_RTOL` times these factors below the
#: upper end, in turn, until a program there ends ``infeasible`` (near the optimum a backend may claim a point whose
#: exact ratio is above the μ asked, which decides nothing); the bisection then narrows the proven bracket.
MU_LOWER_PROOF_WIDENING = (1.0, 10.0, 100.0, 1000.0)

# ---------------------------------------------------------------- many grasps at once (gaussqp/grasp/batch.py)
#: Alternating-projection sweeps (batched over the grasps of one structure) that look for a cheap certificate of
#: force closure (an internal force strictly inside the cones) or of its absence (``Gᵀy`` in the cones); a grasp
#: neither settles goes to Clarabel. A sweep is a few array operations; most grasps settle in the first few.
GRASP_BATCH_ITERATIONS = 20
#: Over-relaxation of each alternating-projection step (1: plain von Neumann; in (1, 2): the step is stretched along
#: itself, staying in the affine set). 1.5 settles about a tenth more random grasps in 20 sweeps than 1.
GRASP_BATCH_RELAX = 1.5
#: The projections aim at the shrunk cones ``‖ν‖ <= c f_n`` with this ``c``, so that a point reached is strictly
#: inside the exact cone (a slack the exact verification can see) rather than on its boundary.
GRASP_BATCH_SHRINK = 0.9
#: A projected point counts as a candidate when its least cone slack exceeds this times the normal-force total; the
#: candidate is then verified by the single path's test (this only saves verifying hopeless candidates).
GRASP_BATCH_SLACK_RTOL = 1e-12
#: At least this many grasps before :func:`gaussqp.grasp.analyze_many` starts a process pool (its start-up costs
#: about 0.2 s; below this one process is faster).
GRASP_BATCH_POOL_MIN = 2000
#: Grasps per process-pool task.
GRASP_BATCH_CHUNK = 500
#: :func:`gaussqp.io.mujoco.import_grasp` refuses a contact whose two sliding friction coefficients differ by more
#: than this relative amount (the grasp's cones are isotropic; MuJoCo copies equal coefficients exactly).
MUJOCO_GRASP_ANISOTROPY_RTOL = 1e-12

# ---------------------------------------------------------------- audit adapters (Siconos, Pinocchio)

#: A local (Delassus-form) problem ``u = W r + q`` is audited through its exact global lift ``M = I_k``,
#: ``J = L`` with ``W = L Lᵀ`` (``k`` = the rank kept): ``W`` must be symmetric to this times ``sqrt(W_ii W_jj)``
#: entry by entry, its Jacobi-scaled form (unit diagonal) positive semidefinite to this, and eigenvalues of that form
#: below this count as zero; the lift's reproduction of ``W`` is recorded at the same entry scale. Beyond it (FCLIB's
#: Capsules carry gyroscopic asymmetry of 1e-3) the lift does not exist and the envelopes are not available.
AUDIT_LIFT_RTOL = 1e-10
#: Pinocchio's ADMM contact solver as the audit runs it (:mod:`gaussqp.audit.pinocchio_`): its absolute and relative
#: feasibility and complementarity tolerances. Tight, so that what is audited is the solver's converged answer (its
#: proximal regularization), not an early stop; the audit judges the answer whatever Pinocchio reports.
AUDIT_PINOCCHIO_TOL = 1e-12
#: The most ADMM iterations of one Pinocchio solve in the audit (its answer is audited converged or not; its report
#: says which).
AUDIT_PINOCCHIO_ITERATIONS_MAX = 10000
#: The damping of Pinocchio's constraint Cholesky factorization (``ConstraintCholeskyDecomposition.compute``): with 0
#: a redundant contact set (a box on four corners) gives NaN; 1e-12 of a unit Delassus is below every audit tolerance.
AUDIT_PINOCCHIO_DAMPING = 1e-12
#: Pinocchio's constraint Jacobian rows (contact frame ``(t₁, t₂, n)``) must equal the importer's rows of the same
#: contact to this times the rows' size, or the force mapping is refused: a guard against a frame convention changing
#: under us (both come from the same frame Jacobian, so agreement is round-off).
AUDIT_FRAME_MAP_RTOL = 1e-9
#: Drake's compliant point contacts (:mod:`gaussqp.audit.drake_`) are at rest for the rigid problem when their
#: normal velocity and tangential speed are below this times the velocity scale ``sqrt(‖g‖ L)`` (``L`` the largest
#: distance from the centre of mass to a contact point): the rule and the value of :data:`MUJOCO_VELOCITY_RTOL`,
#: for the same reason (a soft contact's settled state creeps).
AUDIT_DRAKE_VELOCITY_RTOL = 1e-3
#: The rigid problem of a Drake state must reproduce Drake's own dynamics, ``M a_e + F = τ_contact`` with Drake's
#: acceleration and its generalized contact forces, and the contact rows its forces, ``J_nᵀλ_n + J_tᵀλ_t = τ_contact``,
#: each to this times the terms' size; otherwise a force the adapter does not model (a spring, joint damping, an
#: applied spatial force) is in play and the audit is refused rather than judged against another problem.
AUDIT_DYNAMICS_RTOL = 1e-6
#: An engine answer our judge certifies as a solution of the rigid problem, whose acceleration differs from our
#: certified one by more than this (``‖a_e − a‖_M / ‖a_free‖_M``), witnesses that the rigid problem has several
#: solutions: a hundred times the high preset's cross-check tolerance (1e-6), under which two certified routes'
#: answers count as the same one.
AUDIT_WITNESS_RTOL = 1e-4


# ---------------------------------------------------------------- mode-free Coulomb: the proximal-point iteration
# gaussqp/friction/proximal_newton.py: the rounds ``(W + σΛ) r + q − σΛ r_k`` around the nonsmooth Newton method, run
# by ``coulomb_fixed_point`` when the damping schedule (COULOMB_NN_REG_THETAS) does not converge, before the convex
# iteration.

#: The first σ of the proximal term ``σ ‖W_jj‖_F`` on contact j (dimensionless): 1 doubles W's diagonal blocks, an
#: inner problem the Newton solves in a few iterations from any start.
COULOMB_PROX_SIGMA_START = 1.0
#: σ is divided by this after an inner solve that reaches its target, multiplied by it after one that does not.
COULOMB_PROX_SIGMA_FACTOR = 10.0
#: The least σ (below, the proximal term is round-off of W's diagonal blocks) ...
COULOMB_PROX_SIGMA_MIN = 1e-14
#: ... and the largest (W's own part of an inner problem would then be round-off).
COULOMB_PROX_SIGMA_MAX = 1e4
#: An inner problem is solved to this fraction of the problem's own ‖q‖ (its natural map with ρ = 1), below the
#: final target (:data:`COULOMB_NN_TARGET_RTOL`) so that inexact rounds do not limit it.
COULOMB_PROX_INNER_RTOL = 1e-13
#: The most inner Newton iterations over all rounds, the short rounds' (:data:`COULOMB_PROX_NEAR_WORK_MAX`) included:
#: what they spend is not left to the route's rounds. A deterministic budget (the same answer on any machine).
#: Measured on the study's subset (2026-11-27): the rounds certify 4 quadrupeds, 4 chains and 3 box stacks/piles the
#: Newton alone leaves at 1e-7 to 1e-2, with at most 700 inner iterations (1.5 s on one core).
COULOMB_PROX_WORK_MAX = 1000
#: The rounds stop when the best residual has not halved over this many of them (a problem they do not solve).
COULOMB_PROX_STALL_ROUNDS = 30
#: A round's answer becomes the next centre when its inner residual is at most this fraction of the problem's ‖q‖
#: (an inexact proximal step, as Rockafellar's algorithm allows), or when it lowers the problem's own residual.
COULOMB_PROX_CENTER_RTOL = 1e-2
#: After an inner solve that misses its target, σ is not lowered below its raised value until this many rounds in a row
#: have reached theirs (without it, σ alternates between a value the Newton solves and one it does not, and every
#: other round is a wasted stall: measured on chain-s1-i0222, 764 → fewer inner iterations).
COULOMB_PROX_PATIENCE = 3

# ---------------------------------------------------------------- μ_min's lower end from one program (issue #28)
#: μ_min's lower end is first sought by one ratio step (:meth:`~gaussqp.friction.multiplier_conic.MultiplierSetConic.
#: ratio_step`) at ``best (1 − this)``, ``best`` the upper end the ratio steps achieved: the program is strictly
#: feasible (its t is free), and when that θ is below μ_min the dual of its stationarity rows is a conic Farkas vector
#: of Λ(a) ∩ cones(θ), verified in NumPy (:func:`gaussqp.friction.multiplier_set.farkas_lower_end`; it proves emptiness up to
#: the largest θ its dual cone allows, which may be above the one asked). The steps converge superlinearly, so
#: ``best`` is μ_min to ~1e-9; at 1e-6 below it the program's optimum is clearly positive.
#: Half of :data:`MU_BRACKET_RTOL`: a proven bracket that narrow ends the bisection before it starts.
MU_DUAL_PROOF_RTOL = 5e-8
#: The ratio step's optimum t is met to the backend's absolute tolerance, so at a small μ_min (1e-3 on
#: ``real/stacker_boxes``) the step at ``best (1 − MU_DUAL_PROOF_RTOL)`` may decide nothing: it is asked again this
#: many times farther below (1e-6, 1e-5 relative), and after the last the feasibility programs of
#: :data:`MU_LOWER_PROOF_WIDENING` and the bisection run as before.
MU_DUAL_PROOF_WIDENING = (1.0, 20.0, 200.0)
#: The ratio steps that precede that proof stop once one gains less than this (relative): the method converges
#: superlinearly, so the next step would gain far less than :data:`MU_DUAL_PROOF_RTOL` (the humanoid: 8e-6, then
#: 7e-10), and the proof's own program, a ratio step too, takes its place (one program fewer per verdict). When the
#: proof's step still gains, its point becomes the upper end and the proof is asked again below it.
MU_RATIO_STEPS_NEAR_RTOL = 1e-4

# ---------------------------------------------------------------- the judge at control rates (issue #28, part 2)
#: the KKT residuals and the backward error of the last answers judged are kept with their problem, this many answers
#: per problem (keyed by the bytes of ``(a, λ_n, λ_t)``, :func:`gaussqp.model.memo.per_answer`): the polish measures
#: an answer before and after, the judge's checks then ask for the one it left, and the cross-check route's answer,
#: polished onto the same active set, is the same point
ANSWER_MEMO_SIZE = 2

# ---------------------------------------------------------------------------------------------- grasp ε at speed
#: The Ferrari–Canny ε of a polytope ``conv(P)`` is found on a subset of ``P`` grown on demand
#: (:func:`gaussqp.grasp.quality.epsilon`): the first hull takes this many generators of each contact (evenly spaced
#: around its polygon or sphere points) and the origin; each round adds, for every facet nearer the origin than
#: the nearest facet with no point of ``P`` beyond it, the point furthest beyond. Only the speed depends on it.
GRASP_EPSILON_LAZY_START = 3
#: Steps down the exact support function from the best candidate direction for ε's upper bound (each an SOCP of
#: ``w + 1`` variables over the tangent plane, :func:`gaussqp.grasp.quality.epsilon`); 0 keeps the best of the inner
#: hull's lowest facet normals.
GRASP_EPSILON_UPPER_STEPS = 1

# ---------------------------------------------------------------- growth with contacts (issue #27)
#: The MuJoCo importer (:mod:`gaussqp.io.mujoco`) reads ``M`` (``mj_fullM``) and the constraint rows (``efc_J``) dense
#: for a model of at most this many coordinates, and sparse above (MuJoCo's sparse ``M`` and ``efc_J``, the problem
#: built from sparse blocks): a pile of 1,000 free bodies (6,000 coordinates, 4,000 contacts) densified M to 290 MB
#: and the rows to 580 MB, beyond :data:`DENSE_BLOCK_MAX` and :data:`ENTRIES_MAX`. Every shipped MuJoCo model is far
#: below it (dense as before).
MUJOCO_DENSE_COORDINATES_MAX = 2000
#: The mode-free route's fallback, the convex iteration + polish (:func:`gaussqp.formulations.coulomb.solve_local`),
#: works on a dense W (an eigendecomposition of its symmetric part, dense SOCPs): it runs only when ``m·d`` is at most
#: this (a dense W of 72 MB, the generator's local-form limit :data:`FCLIB_SCENES_LOCAL_UNKNOWNS_MAX`). Above, the
#: best point of the Newton and the proximal rounds is the answer, judged (not certified) and saying that the
#: fallback did not run: on a pile of 2,130 contacts (6,390 unknowns) the fallback spent over a minute of CPU and
#: 2.7 GB in the eigendecomposition of W before its first SOCP.
COULOMB_FALLBACK_UNKNOWNS_MAX = 3000

# ---------------------------------------------------------------- mode-free Coulomb: independent groups of contacts
#: The mode-free route (:func:`gaussqp.formulations.coulomb.solve_mode_free`) solves separately the groups of contacts
#: that W does not couple (the connected components of W's block pattern: separate chains, piles, bodies) when at
#: least two of them have this many unknowns m·d or more; the smaller components are solved together as one group.
#: With fewer than two that large, a problem of several components is solved whole when the schedule's first run
#: converges there, else apart in groups of at least this many unknowns (its components packed in order): on a scene
#: of many small robots one hard robot holds the merit of all (the growth benchmark's quadrupeds, 1,059 contacts:
#: 5.4 → 0.26 s).
#: Each group runs the whole route (the damping schedule, the rounds, the fallback) on its own block of W: a dense
#: LU a step on a block instead of on W (the eleventh session's chains of 150–250 contacts, three to five chains of
#: ~50 contacts each, W dense-ish of 456–744 unknowns: 1.5–6.3 s → 0.1–0.2 s), and a group's stall does not make the
#: others run again. Below this size a group's own set-up costs more than its share of the coupled LU.
COULOMB_COMPONENT_UNKNOWNS_MIN = 60

# ---------------------------------------------------------------- mode-free Coulomb: the uniqueness test
#: Largest m·d on which gaussqp/friction/coulomb_uniqueness.py factors ``W̃_s − μ_max‖W̃_t‖ I`` densely (a Cholesky of
#: N³/3 flops, ~15 ms at 600 on one core, plus the spectral norm's SVD when the Frobenius bound is not enough); beyond,
#: after its two exact necessary conditions, the answer says the test was not run. Dense at FCLIB's Spheres-i099
#: (1,068 unknowns) it cost 0.3 s against a 17 ms solve.
COULOMB_UNIQUENESS_UNKNOWNS_MAX = 600

# ---------------------------------------------------------------- conic Farkas vectors: the row-space part
#: A Farkas vector y of the multiplier set is judged on its part in the row space of ``J = [E; G]``
#: (:func:`gaussqp.friction.multiplier_set.row_space_part`): for a sparse J the least-squares ``Jᵀw = y`` is solved by
#: LSQR to this relative tolerance (its ``atol``/``btol``), round-off of the product (a dense J uses ``lstsq``).
CONIC_FARKAS_ROW_SPACE_RTOL = 1e-15

# ---------------------------------------------------------------- the LCP route's recovery of the bilateral multipliers
#: Steps of iterative refinement of ``λ_b = −A_nb⁺(A_bu λ_u + w_b)`` on the residual of the bilateral rows
#: (:func:`gaussqp.formulations.delassus.recover_lcp`): ``A_nb = J_b M⁻¹ J_bᵀ`` squares the rows' condition, and the
#: one product leaves a residual of about ``cond(A_nb)·ε`` of the rows' scale; each step gains the same factor again.
LCP_RECOVERY_REFINEMENT_STEPS = 2

# ---------------------------------------------------------------- mode-free rollouts: a start across contact sets
#: :class:`gaussqp.Solver` with ``adapt``: when a rollout's contact set changes, each new contact starts the Newton
#: method from the reaction of the last certified state's contact whose normal row ``J_n,j`` has at least this cosine
#: with its own (:func:`gaussqp.formulations.coulomb.carried_reaction`); a start only, judged like any other.
COULOMB_CARRY_COSINE_MIN = 0.999
#: :func:`gaussqp.formulations.coulomb.carried_reaction` runs its matching and tangents compiled
#: (:func:`gaussqp.friction.compiled_kernels.carried_blocks`) up to this many coordinates: there its NumPy calls are the
#: cost (~0.25 ms against ~85 µs on the humanoid's 27), and every product of a contact's tangent rows (2 × n) is below the
#: size from which OpenBLAS shares a matrix-vector product among threads (9,216 entries), so NumPy's and numba's BLAS
#: give the same bits whatever their threads; beyond it the NumPy code runs (its calls are small against the solve).
COULOMB_CARRY_COMPILED_COORDINATES_MAX = 1000

# ---------------------------------------------------------------- mode-free Coulomb: accelerated proximal rounds
# gaussqp/friction/proximal_newton.py (issue #27, hard problems): inexact inner solves and Anderson acceleration of the
# sequence of centres.

#: An inner problem is solved to its problem's current residual divided by this (PROX's adaptive internal tolerance:
#: Siconos's ``fc3d_proximal``, internal error ratio 10), never below :data:`COULOMB_PROX_INNER_RTOL`: early rounds
#: are inexact, late ones tight (Rockafellar's inexact proximal point with summable errors).
COULOMB_PROX_INNER_RATIO = 10.0
#: Anderson acceleration of the centres (Walker, Ni, "Anderson acceleration for fixed-point iterations", SIAM J. Numer.
#: Anal. 2011): the next centre combines the last this-many-plus-one proximal answers under one σ; 0 turns it off.
COULOMB_PROX_ANDERSON_MEMORY = 5
#: Anderson's least-squares problem is solved with singular values below this fraction of the largest dropped
#: (``lstsq``'s ``rcond``): nearly collinear differences of the last rounds are not amplified.
COULOMB_PROX_ANDERSON_RCOND = 1e-10
#: When the rounds end above :data:`COULOMB_NN_ACCEPT_RTOL` but their best point's residual (ρ = 1, ÷‖q‖, recomputed
#: from ``W r + q``) is at most this, half the certificate's :data:`COULOMB_RESIDUAL_RTOL`, that point is the answer
#: and the convex iteration is not run (the judge still decides, on the original data): on ``chain-s1-i0015`` the
#: rounds end at 2.4e-9 and the convex iteration then spent ~25 s to end farther from a solution.
COULOMB_PROX_FALLBACK_SKIP_RTOL = 5e-9
#: A run of the damping schedule (:data:`COULOMB_NN_SCHEDULE`) that ends (a stall, its iteration limit) within
#: :data:`COULOMB_PROX_FALLBACK_SKIP_RTOL`, short of :data:`COULOMB_NN_ACCEPT_RTOL`, stops the schedule: the proximal
#: rounds go on from its point with at most this many inner iterations, and the schedule resumes only when they do not
#: converge. Measured on the study's set (2026-11-30), rounds from such a point without this limit: 2–19 inner
#: iterations on 6 of the 7 problems where the first such run stopped the schedule, 137 on the seventh (a quadruped,
#: which the schedule's next pair solves); on the 615-contact group of a pile of 4,248 contacts they replace 163 Newton
#: iterations (three more pairs and the convex program) by 4.
COULOMB_PROX_NEAR_WORK_MAX = 20
#: When the route's proximal rounds stall from both their starts, they run once more from zero, σ set after each
#: converged round to this times the residual (÷‖q‖) instead of divided by :data:`COULOMB_PROX_SIGMA_FACTOR` (after a
#: failed one it is raised as before): the rule of Siconos's PROX (``fc3d_proximal``, ``α = σ · error``, its default
#: σ = 5). On a chain of the held-out set (``chain-s3-i0006-m48``, W of rank 86 for 144 unknowns), which PROX certifies
#: in 9 iterations and where our rounds stall between 2e-7 and 4e-6, this start converges (33 rounds, ~220 inner
#: iterations). As the rounds' only rule it made some box walls ten times slower (0.27 → 4.6 s), hence last.
COULOMB_PROX_SIGMA_PER_RESIDUAL = 5.0

# ---------------------------------------------------------------- classification of small sparse problems
#: A sparse ``J_n`` with ``n · m`` at most this is densified for the rank of its normal rows (:meth:`gaussqp.
#: ContactProblem.classify`): the dense rule of a dense ``J_n``, an SVD of the rows, against the sparse test and the
#: rows grouped by support above it. The two decided the same rank on all 309 readable problems of the study
#: (`benchmarks/results/fclib_generated_study_final`); the dense SVD took 1.4 ms against 8 ms up to 10⁴ entries and
#: 9 ms against 19 ms up to 10⁵, and lost above (26 against 13 ms).
CLASSIFY_SPARSE_DENSE_MAX = 100_000

#: printing a :class:`~gaussqp.model.system_class.SystemClass` (or a solution's record of it) computes a rank not yet
#: read only when the normal rows hold at most this many entries ``n · m`` (a dense SVD of ~1 ms, as
#: :data:`CLASSIFY_SPARSE_DENSE_MAX`); a larger one is shown ``<not computed>``: printing never costs seconds (a dense
#: 1,000 × 4,000 SVD took 19 s on a shared core) nor raises a refusal
CLASSIFY_PRINT_MAX = 100_000

# ---------------------------------------------------------------- compiled kernels of the dense Newton method
#: Whether the dense semismooth Newton method (:mod:`gaussqp.friction.nonsmooth_newton`) runs its per-iteration
#: kernels compiled (:mod:`gaussqp.friction.compiled`: the natural maps and the Jacobian's blocks; F9's cone
#: map) when ``numba`` is installed (``pip install 'gaussqp[fast]'``). Loading them costs ~0.5 s (from numba's on-disk
#: cache, a few seconds the first time they compile): the dense routes load them by
#: :data:`COULOMB_NN_COMPILED_AFTER_SECONDS`'s rule, the sparse path only past
#: :data:`COULOMB_NN_COMPILED_SPARSE_WORK_MIN`, the judge's natural map only once they are loaded. Then an iteration on
#: the humanoid's 42 unknowns costs a fraction of the NumPy kernels' calls, with the same numbers bit for bit. False: the
#: NumPy kernels, whatever is installed (read at each use: it may be set at run time). The environment variable
#: ``GAUSSQP_COMPILED=0`` does the same.
COULOMB_NN_COMPILED = True

# ---------------------------------------------------------------- mode-free Coulomb: the schedule's starts
#: The mode-free route's Newton runs (:func:`gaussqp.formulations.coulomb.solve_mode_free`): each pair (θ of the
#: damping, start) in turn, the next only when none before it reached :data:`COULOMB_NN_ACCEPT_RTOL`. ``"starts"``: the
#: Newton's own starts (a guess, every contact sticks, zero; :func:`gaussqp.friction.nonsmooth_newton.solve_newton`);
#: ``"convex"``: the answer of the convex program with De Saxcé's shift at zero
#: (:func:`gaussqp.friction.convex_start.convex_start`), solved once, when first needed; ``"sweeps"``: the point of
#: projected Gauss–Seidel sweeps (:func:`gaussqp.friction.splitting_start.sweep_start`, :data:`COULOMB_SWEEPS_CHECKS`),
#: computed once, when first needed; its pairs run **after the proximal rounds**, and only when neither the pairs before
#: them nor the rounds converged or came within :data:`COULOMB_PROX_FALLBACK_SKIP_RTOL` (the degenerate groups where every other start stalls; the rounds cost little where
#: they stall, the convex iteration after them much: a group of the 4,162-contact quadruped scene, 0.28 s through the
#: convex iteration, 14 ms through the sweeps). Where they do not converge, their best run is judged as the rounds'
#: answer is (one more candidate against the convex iteration). The θ are those of :data:`COULOMB_NN_REG_THETAS`.
COULOMB_NN_SCHEDULE = (
    tuple((theta, "starts") for theta in COULOMB_NN_REG_THETAS)
    + tuple((theta, "convex") for theta in COULOMB_NN_REG_THETAS)
    + tuple((theta, "sweeps") for theta in COULOMB_NN_REG_THETAS)
)
#: A connected group of contacts (one component of W's pattern) of at least this many unknowns m·d, solved without a
#: guess, runs :data:`COULOMB_NN_SCHEDULE_CONVEX_FIRST` instead of :data:`COULOMB_NN_SCHEDULE`. There a Newton step is
#: a sparse LU of ~45 ms (3,426 unknowns) to ~0.6 s (14,247), the convex program costs about 4–10 of them, and a stall
#: of the Newton from its own starts is found only after :data:`COULOMB_NN_STALL_ITER` steps or more: on the generated
#: box walls (one component each) all three "starts" pairs stalled (78 steps on 2,338 contacts) and the convex start
#: then converged in 2–4 steps (`benchmarks/results/coulomb_growth.md`, twenty-fifth session: route CPU s 3.22 → 0.72
#: at 1,142 contacts, 13.4 → 2.05 at 2,338, 41.5 → 5.40 at 4,749). Where the stick start is exact the order costs
#: about one convex program more (a wall's W with ``q = −W r*``, r* sticking: 0.16 → 0.33 s at 3,426 unknowns, 2.2 →
#: 2.5 s at 14,223). The size is a judgment, not a measured crossover: on the 318-contact wall (954 unknowns) the
#: convex start first was already faster (0.20 → 0.09 s) and at 288 unknowns the two tied, but the piles, stacks,
#: chains and robots of the benchmarks have no component of this size, and below it the Newton's own starts, exact at
#: rest, are kept first as before.
COULOMB_CONVEX_FIRST_UNKNOWNS_MIN = 3000
#: :data:`COULOMB_NN_SCHEDULE` with its first convex pair first (see :data:`COULOMB_CONVEX_FIRST_UNKNOWNS_MIN`): the
#: same pairs, so no run that the schedule would make is lost, only their order.
COULOMB_NN_SCHEDULE_CONVEX_FIRST = ((COULOMB_NN_REG_THETAS[0], "convex"),) + tuple(
    pair for pair in COULOMB_NN_SCHEDULE if pair != (COULOMB_NN_REG_THETAS[0], "convex")
)

# ---------------------------------------------------------------- mode-free Coulomb: the sweeps' start
#: The projected Gauss–Seidel sweeps of the schedule's ``"sweeps"`` start
#: (:func:`gaussqp.friction.splitting_start.sweep_start`) are checked by one Newton step after these counts of sweeps
#: from ``r = 0``, and stop when that step reaches :data:`COULOMB_NN_ACCEPT_RTOL`. Doubling counts: a check costs a
#: factorization of the Newton matrix, a sweep one pass over W. On the 21-contact quadruped group of issue #27 (W of
#: rank 53 for 63 unknowns, where the Newton from its other starts and the rounds stall near 4e-6) the step from the
#: sweeps' point reaches 1e-10 of ‖q‖ from 176 sweeps on and not before (1.7e-7 at 170; round-off from about 200;
#: twenty-seventh session): the check at 320 finds it, and no count beyond the one that was needed runs (where no
#: check converges the sweeps cost ~4 ms on 16 contacts, 8 ms with a count of 640).
COULOMB_SWEEPS_CHECKS = (10, 20, 40, 80, 160, 320)
#: The local fixed-point steps of a contact in a sweep (fewer when a step changes nothing), as the 20 of the scratch
#: experiment that found the quadruped group's modes.
COULOMB_SWEEPS_LOCAL_ITER = 20
#: The sweeps' work budget, in W's stored entries visited plus the local steps' ``d²`` products, summed over the
#: sweeps: only the counts of :data:`COULOMB_SWEEPS_CHECKS` within it run (320 sweeps of the 63-unknown quadruped
#: group cost 1.5e6; a dense W of 3,000 unknowns gets 20 sweeps). About 0.4 s of compiled sweeps on this machine (5.6e8 a
#: second).
COULOMB_SWEEPS_WORK_MAX = 200_000_000
#: :data:`COULOMB_SWEEPS_WORK_MAX` when the compiled kernels are not loaded (numba not installed, or not loaded yet:
#: :func:`gaussqp.friction.compiled.kernels_when_worth`) and the sweeps run in the Python reference, ~2.5e6 a second:
#: about a second of it, within which the quadruped group's 320 sweeps (1.5e6) fit.
COULOMB_SWEEPS_WORK_NUMPY_MAX = 2_000_000

# ---------------------------------------------------------------- mode-free Coulomb: the rounds' second stall test
#: The proximal rounds (:func:`gaussqp.friction.proximal_newton.solve_proximal`) also stop when their best residual has
#: not gone down at all over this many rounds (besides :data:`COULOMB_PROX_STALL_ROUNDS` without halving).
COULOMB_PROX_NO_BEST_ROUNDS = 10

# ---------------------------------------------------------------- mode-free Coulomb: the route's last resort
#: The last resort's budget (:func:`gaussqp.formulations.coulomb._last_rounds`: the proximal rounds run on, without the
#: halving stall rule, when every stage before them left the answer above :data:`COULOMB_RESIDUAL_RTOL`), in inner
#: Newton iterations times the problem's unknowns ``m·d``: 1,000 iterations at :data:`COULOMB_FALLBACK_UNKNOWNS_MAX`,
#: where an iteration costs most; 8,333 at the 360 unknowns of a settling pile of 120 contacts, where they took 298 to
#: 6,338 (2026-11-29, states 9–14 of ``benchmarks/settling_piles.py``; state 13: 1,977 from its best point, then 4,361
#: from ``r = 0``).
COULOMB_PROX_LAST_WORK_UNKNOWNS_MAX = 3_000_000
#: ... and at most this many inner iterations whatever the size: on a few contacts an iteration's fixed cost
#: (~0.1–1 ms) would otherwise let the budget above run for minutes.
COULOMB_PROX_LAST_WORK_MAX = 10_000
#: The last resort stops a start when its best residual has not gone down at all over this many rounds: its rounds
#: converge linearly at a rate near 1 and climb for tens of rounds between two new best points (state 13 of the
#: settling pile: from ``r = 0``, 534 rounds to the target), where :data:`COULOMB_PROX_NO_BEST_ROUNDS` stops the route's
#: first rounds.
COULOMB_PROX_LAST_NO_BEST_ROUNDS = 100

# ---------------------------------------------------------------- mode-free Coulomb: the schedule's cycle test
#: The damping schedule's Newton runs (:func:`gaussqp.formulations.coulomb.solve_mode_free`) also stop as stalled
#: when, :data:`COULOMB_NN_CYCLE_ITER` iterations or more since the merit last fell below
#: :data:`COULOMB_NN_STALL_FACTOR` of its best, the last two merits are each within this fraction of the merit two
#: iterations before it (four merits, lag two): no progress, whether a plateau (the study's runs creeping down by < 0.1 % an iteration) or an
#: iteration alternating between two pieces of the map (the study's small quadrupeds at θ = 0.01 and 0.1). The
#: schedule's next (θ, start) then runs at once instead of after :data:`COULOMB_NN_STALL_ITER` iterations. Cycles
#: whose repeats drift by up to 25 % were tried as well and cut runs that would have converged (a quadruped then took
#: the proximal rounds: 130 ms → 2.3 s). The proximal rounds' inner solves keep the stall test alone (with this test, a
#: box wall's rounds failed and fell to the convex iteration).
COULOMB_NN_CYCLE_RTOL = 1e-2
#: ... (the iterations since the last sufficient decrease before the cycle test applies)
COULOMB_NN_CYCLE_ITER = 4

# ---------------------------------------------------------------- compiled pivots of Lemke's method
#: Whether Lemke's method (:func:`gaussqp.linalg.lemke.lemke`, the LCP route and the cross-check's) pivots by its
#: compiled kernel (:mod:`gaussqp.linalg.lemke_compiled`) when ``numba`` is installed (``pip install 'gaussqp[fast]'``),
#: the LCP has at most 141 rows (beyond, the NumPy pivoting's rank-1 updates go to BLAS and its calls cost little
#: against them) and its matrix is C-ordered. The kernels make the NumPy pivoting's decisions with the same numbers bit
#: for bit; when they are loaded is :data:`LEMKE_COMPILED_AFTER_SECONDS`'s rule (the load costs ~0.6 s CPU from
#: numba's on-disk cache, ~10 s the first time they compile). False: the NumPy pivoting, whatever is installed (read at
#: each use). The environment variable ``GAUSSQP_COMPILED=0`` does the same (and turns off :data:`COULOMB_NN_COMPILED`'s
#: kernels).
LEMKE_COMPILED = True

# ---------------------------------------------------------------- when Lemke's compiled pivots are loaded
#: :func:`gaussqp.linalg.lemke.lemke` loads its compiled kernels (:data:`LEMKE_COMPILED`) only once the process has
#: spent this many seconds in Lemke calls that could have used them (the NumPy pivoting, wall time), or when numba runs
#: already (another kernel module loaded: Lemke's then load in a few hundredths of a second; or
#: ``lemke.compiled_pivots()`` called), or when many calls are announced (a :class:`gaussqp.Solver` with the cross-check,
#: from its second problem: a rollout). The load costs ~0.6 s CPU from numba's cache, and a compiled call saves ~0.2 ms
#: on the humanoid's contact LCP: a one-shot solve (a command line run, a first cross-checked frictionless answer) would
#: pay ~0.6 s for nothing, a loop of a few thousand such calls pays it back; loading once the NumPy pivoting has cost
#: about what the load costs bounds the time lost either way to about that of the load.
LEMKE_COMPILED_AFTER_SECONDS = 0.5

# ---------------------------------------------------------------- compiled kernels of the judge's checks
#: Whether the judge's per-answer checks of a dense problem without sliding contacts (the residuals of tutorial
#: (3)–(5), the backward error of DESIGN.md §4.3, the forward error's Newton step after its factorization) and the
#: data scales they are judged at (once per problem) run compiled
#: (:mod:`gaussqp.certificates.compiled`) when ``numba`` is installed (``pip install 'gaussqp[fast]'``): the NumPy
#: code's numbers bit for bit, ~5–10 µs a check against ~100–200 µs of NumPy calls on the humanoid (27 coordinates,
#: 14 contacts). False: the NumPy code, whatever is installed (read at each use). The environment variable
#: ``GAUSSQP_COMPILED=0`` does the same.
CERTIFICATES_COMPILED = True

#: The judge loads its compiled checks (:data:`CERTIFICATES_COMPILED`) once this process has spent this many wall
#: seconds in the NumPy checks they replace, when numba runs already (another kernel module loaded: these then load in
#: a few hundredths of a second), or when many calls are announced (a :class:`gaussqp.Solver` from its second problem,
#: a study). Loading numba itself costs ~0.4–0.6 s; a check saves ~0.1 ms: a one-shot solve never pays the load, a loop
#: pays it once its checks have cost about as much (rent or buy). It decides a speed, never an answer.
CERTIFICATES_COMPILED_AFTER_SECONDS = 0.5

#: The compiled checks (:data:`CERTIFICATES_COMPILED`) apply to dense problems with ``n + m·d`` at most this: above, the
#: NumPy calls' cost is small against their arithmetic, and the kernels' writable copies of ``M`` and the rows would
#: weigh (94 MB more at n = 3,000 and 300 contacts).
CERTIFICATES_COMPILED_SIZE_MAX = 1000

# ---------------------------------------------------------------- mode-free Coulomb: compiled kernels on a sparse W
#: The sparse Newton method (W kept sparse: :data:`COULOMB_NN_DENSE_MAX`) evaluates its maps and its Jacobian's blocks
#: with the compiled kernels (:mod:`gaussqp.friction.compiled`, the NumPy kernels' numbers bit for bit) when they are
#: loaded in the process already, or once its NumPy maps have evaluated this many unknowns (m·d per evaluation, summed
#: over the process): loading them costs ~0.35 s and ~100 MB, and they save ~25 ns per unknown and evaluation (a pile
#: of 4,248 contacts: 1.27 → 0.95 ms an evaluation of 12,744 unknowns). A sphere pile of 4,189 contacts, solved in a
#: few Newton iterations, took 0.34 → 0.67 s with them loaded for its first evaluation; past this count the load is
#: worth less than what the kernels save on the rest (a rent-or-buy rule: at most twice the better choice's cost).
COULOMB_NN_COMPILED_SPARSE_WORK_MIN = 15_000_000

# ---------------------------------------------------------------- mode-free Coulomb: when dense routes load the kernels
#: The dense Newton method and F9's map (:data:`COULOMB_NN_COMPILED`) load the compiled kernels only once this process
#: has spent this many seconds (wall time) without them (the whole of its dense Newton runs, factorizations included,
#: and of F9's map evaluations), when numba runs already (a kernel module loaded), or when many solves are announced (a
#: :class:`gaussqp.Solver`'s second problem: a rollout; a study's task)
#: (:func:`gaussqp.friction.compiled.worth_loading`). The load costs ~0.35–0.5 s; a one-shot solve of the humanoid
#: lying mode-free takes ~2 ms without them (``benchmarks/first_solve.py``). Loading once the routes have run about as
#: long as the load costs bounds the time lost either way to about that of the load (rent or buy); it decides a speed,
#: never an answer (the same numbers bit for bit).
COULOMB_NN_COMPILED_AFTER_SECONDS = 0.5

# ---------------------------------------------------------------- mode-free Coulomb: the cross-check's work budget
#: The cross-check of a mode-free answer (:func:`gaussqp.crosscheck.coulomb_crosscheck`) runs F9 (``coulomb_mixed``:
#: Newton on the dense (a, λ) system of N = n + m·d unknowns, programs of the convex iteration) within this budget of
#: work, its sticking start and each Newton iteration counted ``N³ + COULOMB_MIXED_STEP_WORK`` operations, each program
#: :data:`COULOMB_MIXED_PROGRAM_STEPS` times that (:class:`gaussqp.formulations.coulomb_mixed.WorkBudget`:
#: deterministic, the same stop on every machine);
#: spent, F9 returns its best point and, unless that point is certified, the report says the route was stopped by its
#: budget (not compared); where the budget cannot pay one step (N above ~1,700) F9 is not run at all. F9's steps take
#: ~1.6e-10 s an operation on one core: 5e9 is ~0.8 s of Newton steps at most (a program, charged 10 steps for the 11
#: to 25 it costs, makes a run of programs up to ~2.5× that). The value keeps every agreement of the shipped
#: generated problems (15 of 19 agree without a budget, and with it; 11 at 1e9, 14 at 3e9: a 98-contact sphere pile
#: needs 3–4e9) and bounds the worst: those 19 cross-checked in 3.0 s instead of 5.1 s, at most 0.71 s each instead of
#: 2.7 s (a 77-contact quadruped, N = 497, whose F9 ends ``inaccurate`` either way). The robots' F9 (N ≈ 50–70) needs 0
#: to ~10 steps; on 43 generated problems of up to 160 contacts F9 took 3 ms to 15 s without a budget.
#: ``formulation="coulomb_mixed"`` has no budget.
COULOMB_MIXED_CROSSCHECK_WORK = 5e9
#: ... the work of one step beyond its N³: the map's evaluations and the line search (~2.5 ms a step at N = 147 with
#: the NumPy kernels, against 0.5 ms for the factorization).
COULOMB_MIXED_STEP_WORK = 1.5e7
#: ... and a program of the convex iteration counts this many steps: an interior-point solve (Clarabel) costs 11 (N =
#: 147, a generated chain) to 25 (N = 69, the humanoid) times a Newton step of the same problem (2026-11-29). Counted
#: as one step, the cross-check's F9 ran 40 programs (~100 ms) on a humanoid rollout state where F8 took 2 ms, then
#: ended uncertified.
COULOMB_MIXED_PROGRAM_STEPS = 10

# ---------------------------------------------------------------- the verdict contract across tolerances
#: The data change a certified ``infeasible`` or ``unbounded`` must survive, row by row at the data's scales, whatever
#: tolerance the solve was asked (docs/DESIGN.md §4.3): the loosest preset's ``residual``. A certified ``solved`` is an
#: exact solution of data within its tolerance's ``residual``, at most this; so no preset's ``solved`` can stand beside
#: any preset's ``infeasible``. Data whose nonexistence rests on a smaller change (an imported state whose drifts are
#: inconsistent by 7.4e-6 of their scales) is left uncertified at the tighter presets, and solved at a looser one. A
#: :class:`Tolerance` of a looser residual is refused (:func:`get_tolerance`).
NONEXISTENCE_CHANGE = max(t.residual for t in PRESETS.values())
