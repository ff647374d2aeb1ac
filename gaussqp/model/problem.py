"""The contact problem: its data and accessors (validation in :mod:`.validation`, the system class in
:mod:`.system_class`).

Notation (docs/DESIGN.md §1): given (q, q̇), find the acceleration ``a`` and multipliers with

    M a + F = J_nᵀ λ_n + J_tᵀ λ_t,
    bilateral  i:  n_i a + b_i = 0,           λ_n,i free,
    unilateral i:  0 <= λ_n,i  ⟂  n_i a + b_i >= 0,
    sticking   i:  T_i a + c_i = 0,  ‖λ_t,i‖ <= μ_i |λ_n,i|,
    sliding    i:  λ_t,i = -μ_i |λ_n,i| s_i.

``M`` is symmetric positive *semi*definite (may be singular); normal rows may be redundant.
A :class:`ContactProblem` is immutable: its arrays are read-only copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from ..errors import (
    IndefiniteMassError,
    InputTooLargeError,
    MissingSlipError,
    NegativeFrictionError,
    NotSymmetricError,
    ShapeError,
    TangentShapeError,
    UnknownValueError,
)
from ..settings import (
    CLASSIFY_DENSE_MAX,
    CLASSIFY_PRINT_MAX,
    CLASSIFY_SPARSE_DENSE_MAX,
    MASS_RTOL,
    CONTACT_DIMENSION_MAX,
    COORDINATES_MAX,
    DENSE_BLOCK_MAX,
    ENTRIES_MAX,
    SLIP_NORM_MIN,
    RANK_RTOL,
    SCALE_FLOOR,
)
from .summary import ProblemSummary, mode_counts
from .system_class import CONTACT_TYPES, MODES, SystemClass
from .validation import (
    check_count,
    check_sparse_mass,
    check_stored_size,
    labels,
    flags,
    matrix,
    real_array,
    real_scalar,
    short_repr,
    text,
    vector,
)
from ..linalg.dense import (
    as_dense,
    matrix_rank,
    normalize_rows,
    relative_asymmetry,
    row_space_by_support,
    sparse_full_row_rank,
)
from ..linalg.csr import csr_entries, summed
from ..linalg.mass import MassFactor, factor_mass


@dataclass(frozen=True)
class Contact:
    """One contact (or bilateral constraint), as in docs/DESIGN.md §1.

    Parameters
    ----------
    type
        "bilateral" or "unilateral"
    normal
        (n,) the row ``n_i = ∇h_iᵀ``
    normal_drift
        ``b_i = d/dt(∇h_iᵀ) q̇`` (normal acceleration is ``n_i a + b_i``)
    friction
        μ_i >= 0
    mode
        "frictionless", "sticking", "sliding" or "coulomb" (unilateral only: stick/slip left to the solver);
        None (the default) is "coulomb" for a contact with friction ``μ_i > 0`` and "frictionless" without
        (a bilateral frictional contact must say "sticking" or "sliding")
    tangent
        (d-1, n) tangent rows ``T_i`` or None
    tangent_drift
        (d-1,) ``c_i`` or None (zero)
    slip
        (d-1,) unit slip direction (in 2D a sign), required for sliding contacts
    """

    type: str
    normal: np.ndarray
    normal_drift: float = 0.0
    friction: float = 0.0
    mode: str | None = None
    tangent: np.ndarray | None = None
    tangent_drift: np.ndarray | None = None
    slip: np.ndarray | None = None


def default_mode(field: str, kind, friction: float, has_tangent: bool, dimension: int) -> str:
    """The mode of a contact given none: "coulomb" (stick/slip decided by the solver) with friction, else
    "frictionless".

    Parameters
    ----------
    field : str
        The contact's name in error messages, e.g. ``"contacts[3]"``.
    kind : str
        Its type, "unilateral" or "bilateral" (anything else is refused later, by the type check).
    friction : float
        Its validated coefficient ``μ >= 0``.
    has_tangent : bool
        Whether it has tangent rows.
    dimension : int
        The contact dimension ``d`` (``d - 1`` tangent rows).

    Returns
    -------
    str
        "frictionless" when ``μ == 0``; "coulomb" for a unilateral contact with ``μ > 0`` and tangent rows.

    Raises
    ------
    UnknownValueError
        A bilateral contact with ``μ > 0``: whether it sticks or slides must be said ("coulomb" is unilateral).
    TangentShapeError
        ``μ > 0`` without tangent rows: friction needs them (or mode "frictionless" to ignore ``μ``).
    """
    if not friction > 0:
        return "frictionless"
    if kind == "bilateral":
        raise UnknownValueError(
            f"{field}.mode",
            f"is not given for a bilateral contact with friction {friction:g}",
            "give mode 'sticking' or 'sliding' (the solver decides stick/slip, mode 'coulomb', "
            "on unilateral contacts only), or 'frictionless' to ignore the friction",
        )
    if not has_tangent:
        raise TangentShapeError(
            f"{field}.tangent",
            f"is missing for a contact with friction {friction:g} and no mode "
            "(a frictional contact's default mode is 'coulomb')",
            f"give {dimension - 1} tangent row(s), or mode 'frictionless' to ignore the friction",
        )
    return "coulomb"


def _index_sets(types: np.ndarray, modes: np.ndarray, dimension: int) -> dict[str, np.ndarray]:
    """The contacts of each type and of each mode (ascending indices: ``numpy.flatnonzero`` of ``types == kind``) and
    the tangent rows of the sticking contacts (read-only), from the problem's label arrays: nearly every check of a
    solve reads them, so they are computed with the problem, in one pass (a few µs on a robot's 14 contacts). The
    labels are read as the arrays' text (plain ``str``), as the comparison reads them."""
    members: dict[str, list[int]] = {k: [] for k in (*CONTACT_TYPES, *MODES)}
    for i, (t, mode) in enumerate(zip(types.tolist(), modes.tolist())):
        for label in (t, mode):
            kept = members.get(label)
            if kept is not None:
                kept.append(i)
    sets = {k: np.array(v, dtype=np.intp) for k, v in members.items()}
    rows = _tangent_rows(sets["sticking"], dimension)
    rows.flags.writeable = False
    sets["sticking_rows"] = rows
    return sets


def _tangent_rows(contacts: np.ndarray, dimension: int) -> np.ndarray:
    """Row indices into ``J_t`` of ``contacts`` (integers, 1-D): each contact's ``dimension - 1`` rows, in order."""
    d1 = dimension - 1
    return (contacts[:, None] * d1 + np.arange(d1)).reshape(-1)


def _readonly(a):
    if sp.issparse(a):
        return a
    a = np.array(a, dtype=float, copy=True)
    a.setflags(write=False)
    return a


class NormalRowsRank:
    """The numerical rank of normal rows ``J_n`` in the Jacobi units of M, a zero-argument callable: what
    :meth:`ContactProblem.classify` gives :class:`~gaussqp.model.system_class.SystemClass` to compute when the rank is
    first read. It holds the rows and M's scaling, not the problem (the problem holds the record: a reference back
    would keep a dropped problem alive until the cyclic garbage collector runs).

    Parameters
    ----------
    J_n : (m, n) array or scipy.sparse matrix
        the normal rows
    scaling : (n,) array or None
        ``diag(M)^(-1/2)`` (1 on a massless coordinate; :attr:`~gaussqp.model.problem.ContactProblem.mass_factor`'s
        ``scaling``), None for the identity
    n : int
        the coordinates
    """

    __slots__ = ("J_n", "scaling", "n", "_refused")

    def __init__(self, J_n, scaling: np.ndarray | None, n: int) -> None:
        self.J_n, self.scaling, self.n = J_n, scaling, int(n)
        #: (ENTRIES_MAX, the refusal's arguments) of a computation refused as too large: the same refusal again at
        #: once while the limit is the same (the record's three keys that need the rank ask it in turn)
        self._refused: tuple | None = None

    def __reduce__(self):
        return (NormalRowsRank, (self.J_n, self.scaling, self.n))

    def _dense(self) -> bool:
        """Whether the rank is a dense SVD: ``m · n`` within :data:`~gaussqp.settings.CLASSIFY_DENSE_MAX` (dense rows)
        or :data:`~gaussqp.settings.CLASSIFY_SPARSE_DENSE_MAX` (sparse rows)."""
        m = self.J_n.shape[0]
        return self.n * m <= (CLASSIFY_SPARSE_DENSE_MAX if sp.issparse(self.J_n) else CLASSIFY_DENSE_MAX)

    @property
    def cheap(self) -> bool:
        """Whether the rank is a small dense SVD (a dense SVD of at most :data:`~gaussqp.settings.CLASSIFY_PRINT_MAX`
        entries ``m · n``, no rows included): what printing a :class:`~gaussqp.model.system_class.SystemClass`
        computes; another is left to a read of the rank."""
        return self.n * self.J_n.shape[0] <= CLASSIFY_PRINT_MAX and self._dense()

    def __call__(self) -> int:
        """The rank: a dense SVD of :meth:`equilibrated` rows for a small problem, else the sparse full-row-rank test
        (:meth:`sparse_rank`). A refusal (:class:`~gaussqp.errors.InputTooLargeError`) is raised again without being
        recomputed while :data:`~gaussqp.settings.ENTRIES_MAX` is the one it was decided under."""
        if self.J_n.shape[0] == 0:
            return 0
        if self._refused is not None and self._refused[0] == ENTRIES_MAX:
            raise InputTooLargeError(*self._refused[1])
        try:
            return matrix_rank(self.equilibrated(dense=True)) if self._dense() else self.sparse_rank()
        except InputTooLargeError as refused:
            self._refused = (ENTRIES_MAX, (refused.field, refused.problem, refused.fix))
            raise

    def equilibrated(self, dense: bool = False):
        """``J_n S`` with unit rows: the normal rows in the Jacobi units of M (``S = diag(M)^(-1/2)``, 1 on a
        massless coordinate), each divided by its norm. The rank of a set of constraints does not depend on
        the scale of a row nor on the unit of a coordinate; its numerical rank is decided here, where those
        scales are gone. Sparse in, sparse out, unless ``dense``: then a dense array, built from the stored entries of a
        sparse ``J_n`` (for the dense rank of :meth:`__call__`; SciPy's sparse products cost ~0.7 ms there on a
        few hundred entries)."""
        s = self.scaling
        if dense and sp.issparse(self.J_n):  # from the stored entries: O(nnz) before the dense array the rank needs
            A = summed(sp.csr_matrix(self.J_n))  # an entry stored twice is their sum
            rows, cols = csr_entries(A)
            vals = A.data * s[cols] if s is not None else np.asarray(A.data, dtype=float)
            norms = np.sqrt(np.bincount(rows, weights=vals * vals, minlength=A.shape[0]))
            norms[norms == 0] = 1.0
            out = np.zeros(A.shape)
            out[rows, cols] = vals * (1.0 / norms)[rows]
            return out
        if not sp.issparse(self.J_n):
            A = as_dense(self.J_n)
            return normalize_rows(A if s is None else A * s[None, :])
        if s is None:
            return normalize_rows(self.J_n)
        return normalize_rows(sp.csr_matrix(self.J_n @ sp.diags(s)))

    def sparse_rank(self) -> int:
        """The rank of a large problem's rows: ``m`` when the sparse test proves full row rank (of the rows, else of the
        rows without the redundancy within each pair of bodies), else a pivoted QR of the dense rows, refused
        (:class:`~gaussqp.errors.InputTooLargeError` naming ``J_n``) beyond :data:`~gaussqp.settings.ENTRIES_MAX`."""
        m = self.J_n.shape[0]
        if m == 0:
            return 0
        A = self.equilibrated()
        if sp.issparse(A):
            if sparse_full_row_rank(A) is not None:
                return m
            # the same row space without the redundancy within each pair of bodies, then the sparse test again
            A = row_space_by_support(A)
            if A.shape[0] == 0:
                return 0
            if sparse_full_row_rank(A) is not None:
                return A.shape[0]
        # QR with column pivoting on the (thin) transpose is exact enough for a rank decision; it densifies the rows,
        # so it is bounded like any dense block (a sparse problem whose full row rank the sparse test proves, such
        # as 10⁴ stacked contacts, never gets here)
        check_count(
            "J_n",
            "rows × coordinates (m × n) to densify: the sparse test could not prove full row rank",
            float(A.shape[0]) * self.n,
            ENTRIES_MAX,
            "give fewer or independent contact rows, or a smaller problem (see gaussqp.settings)",
        )
        import scipy.linalg as sla

        A = as_dense(A).T
        R, _ = sla.qr(A, mode="r", pivoting=True)  # R alone: Q is not needed (and costs most of the QR)
        d = np.abs(np.diag(R))
        return int(np.sum(d > RANK_RTOL * max(d.max(), SCALE_FLOOR))) if d.size else 0


class ContactProblem:
    """Immutable instantaneous contact problem (see the module docstring for the equations).

    Build it per contact::

        ContactProblem(M, F, contacts=[Contact("unilateral", normal=[0, 1])], dimension=2)

    or from stacked blocks for large problems with :meth:`from_blocks`.
    Invalid data raise subclasses of :class:`gaussqp.errors.InputError` naming the field.

    Examples
    --------
    A unit mass on the floor under gravity (``F`` is ``+m g`` along the upward axis):

    >>> import gaussqp
    >>> p = gaussqp.ContactProblem([[1.0, 0.0], [0.0, 1.0]], [0.0, 9.81],
    ...                            [gaussqp.Contact("unilateral", normal=[0.0, 1.0])], dimension=2)
    >>> p.n, p.m, p.classify().mass
    (2, 1, 'definite')
    >>> gaussqp.solve(p).lambda_normal.round(6)
    array([9.81])
    """

    __slots__ = (
        "_M",
        "_F",
        "_Jn",
        "_b",
        "_Jt",
        "_c",
        "_has_tangent",
        "_mu",
        "_types",
        "_modes",
        "_slip",
        "_dimension",
        "_sets",
        "name",
        "description",
        "__dict__",
        "__weakref__",
    )
    # the slots' types, for a type checker (set once, by object.__setattr__, in _init_blocks)
    _M: np.ndarray | sp.csr_matrix
    _F: np.ndarray
    _Jn: np.ndarray | sp.csr_matrix
    _b: np.ndarray
    _Jt: np.ndarray | sp.csr_matrix
    _c: np.ndarray
    _has_tangent: np.ndarray
    _mu: np.ndarray
    _types: np.ndarray
    _modes: np.ndarray
    _slip: np.ndarray
    _dimension: int
    _sets: dict[str, np.ndarray]
    name: str
    description: str

    def __init__(
        self, M, F, contacts: Iterable[Contact] = (), dimension: int = 2, name: str = "", description: str = ""
    ):
        contacts = self._contact_list(contacts)
        d = self._check_dimension(dimension)
        n, M = self._mass_matrix(M)
        check_count(
            "contacts",
            "rows × coordinates (len(contacts) × n)",
            float(len(contacts)) * n,
            ENTRIES_MAX,
            "give fewer contacts, or stacked sparse rows with ContactProblem.from_blocks",
        )
        rows_n, b, rows_t, c, has_t, mu, types, modes, slip = [], [], [], [], [], [], [], [], []
        for i, ct in enumerate(contacts):
            f = f"contacts[{i}]"
            if not isinstance(ct, Contact):
                raise UnknownValueError(
                    f, f"is a {type(ct).__name__}", "give gaussqp.Contact objects (or use from_blocks)"
                )
            rows_n.append(vector(f"{f}.normal", ct.normal, n))
            b.append(real_scalar(f"{f}.normal_drift", ct.normal_drift))
            T, ci = self._contact_tangent(f, ct, d, n)
            rows_t.append(np.zeros((d - 1, n)) if T is None else T)
            has_t.append(T is not None)
            c.append(ci)
            mu.append(real_scalar(f"{f}.friction", ct.friction))
            types.append(ct.type)
            modes.append(ct.mode)
            slip.append(ct.slip)
        Jn = np.array(rows_n).reshape(len(contacts), n)
        Jt = np.concatenate(rows_t, axis=0) if rows_t else np.zeros((0, n))
        c_all = np.concatenate(c) if c else np.zeros(0)
        self._init_blocks(M, F, Jn, b, Jt, c_all, has_t, mu, types, modes, slip, d, name, description)

    @staticmethod
    def _contact_list(contacts) -> list:
        if isinstance(contacts, (str, bytes, dict)) or sp.issparse(contacts):
            raise ShapeError("contacts", f"is a {type(contacts).__name__}", "give a list of gaussqp.Contact objects")
        try:
            return list(contacts)
        except TypeError:
            raise ShapeError(
                "contacts", f"is a {type(contacts).__name__}, not a list", "give a list of gaussqp.Contact objects"
            ) from None

    @staticmethod
    def _contact_tangent(f: str, ct: Contact, d: int, n: int) -> tuple[np.ndarray | None, np.ndarray]:
        """Validated tangent rows ``T`` (or None) and tangent drift of the contact ``ct``."""
        if ct.tangent is None:
            if ct.tangent_drift is not None:
                raise TangentShapeError(
                    f"{f}.tangent_drift",
                    "is given without tangent rows",
                    "give 'tangent' rows too, or drop 'tangent_drift'",
                )
            return None, np.zeros(d - 1)
        T = real_array(f"{f}.tangent", ct.tangent, 2)
        if T.ndim == 1 and d == 2:
            T = T.reshape(1, -1)
        if T.ndim != 2 or T.shape[0] != d - 1 or T.shape[1] != n:
            raise TangentShapeError(
                f"{f}.tangent",
                f"has shape {T.shape}, expected ({d - 1}, {n}) for dimension {d}",
                f"give {d - 1} tangent row(s) of {n} numbers (d-1 rows in dimension d)",
            )
        c = np.zeros(d - 1) if ct.tangent_drift is None else vector(f"{f}.tangent_drift", ct.tangent_drift, d - 1)
        return T, c

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_blocks(
        cls,
        M,
        F,
        J_n,
        normal_drift=None,
        types: Sequence[str] | str = "unilateral",
        J_t=None,
        tangent_drift=None,
        friction=None,
        modes: Sequence[str | None] | str | None = None,
        slip=None,
        has_tangent=None,
        dimension: int = 2,
        name: str = "",
        description: str = "",
    ) -> "ContactProblem":
        """Build from stacked blocks (dense or scipy.sparse ``J_n``, ``J_t``).

        ``J_t`` stacks ``d-1`` rows per contact in contact order (so it has ``m (d-1)``
        rows); contacts without tangent rows are marked by ``has_tangent`` (default:
        all True when ``J_t`` is given). ``types``/``modes`` are one string for all
        contacts or a sequence of m strings; a mode None (``modes`` None: every mode) is the default of
        :class:`Contact` ("coulomb" with friction μ > 0, "frictionless" without); ``slip`` is (m, d-1) (rows of non-sliding
        contacts are ignored). When ``M`` or ``J_n`` is sparse, ``J_n`` and ``J_t`` are stored
        as CSR (the problem is sparse).
        """
        self = cls.__new__(cls)
        d = self._check_dimension(dimension)
        n, M = self._mass_matrix(M)
        Jn = matrix("J_n", J_n, (None, n))
        m = Jn.shape[0]
        b = np.zeros(m) if normal_drift is None else normal_drift
        if J_t is None:
            Jt = sp.csr_matrix((m * (d - 1), n)) if sp.issparse(Jn) else np.zeros((m * (d - 1), n))
            ht = np.zeros(m, dtype=bool) if has_tangent is None else has_tangent
        else:
            # an array or a sparse matrix only (anything else, a ragged list say, is matrix()'s to refuse)
            rows_t = int(J_t.shape[0]) if sp.issparse(J_t) or (isinstance(J_t, np.ndarray) and J_t.ndim == 2) else None
            if rows_t is not None and rows_t != m * (d - 1) and rows_t % (d - 1) == 0:
                # the contacts are counted by J_n's rows: say which count disagrees, not only J_t's shape
                raise ShapeError(
                    "J_t",
                    f"has {rows_t} rows, {rows_t // (d - 1)} contacts of {d - 1} tangent rows, but J_n has {m} rows "
                    f"({m} contacts)",
                    "give one J_n row and d - 1 J_t rows per contact",
                )
            Jt = matrix("J_t", J_t, (m * (d - 1), n))
            ht = np.ones(m, dtype=bool) if has_tangent is None else has_tangent
        c = np.zeros(m * (d - 1)) if tangent_drift is None else tangent_drift
        mu = np.zeros(m) if friction is None else friction
        types = labels("types", types, m)
        modes = [None] * m if modes is None else labels("modes", modes, m)
        self._init_blocks(M, F, Jn, b, Jt, c, ht, mu, types, modes, self._slip_rows(slip, m, d), d, name, description)
        return self

    @staticmethod
    def _slip_rows(slip, m: int, d: int) -> list:
        """``slip`` of :meth:`from_blocks` as m rows (an (m, d-1) array, or a sequence of m rows/None)."""
        if slip is None:
            return [None] * m
        if isinstance(slip, np.ndarray):
            arr = real_array("slip", slip, 2)
            if arr.shape == (m,) and d == 2:
                arr = arr.reshape(m, 1)
            if arr.shape != (m, d - 1):
                raise ShapeError(
                    "slip",
                    f"has shape {arr.shape}, expected ({m}, {d - 1})",
                    f"give one row of {d - 1} number(s) per contact",
                )
            return list(arr)
        try:
            rows = None if isinstance(slip, (str, bytes, dict)) else list(slip)
        except TypeError:
            rows = None
        fix = f"give an ({m}, {d - 1}) array, or a list of {m} slip rows (None for contacts that do not slide)"
        if rows is None:
            raise ShapeError("slip", f"is {short_repr(slip)}", fix)
        if len(rows) != m:
            raise ShapeError("slip", f"has {len(rows)} rows for {m} contacts", fix)
        return rows

    # ------------------------------------------------------------------ validation
    @staticmethod
    def _check_dimension(dimension) -> int:
        integral = isinstance(dimension, (int, np.integer)) and not isinstance(dimension, (bool, np.bool_))
        if not integral or not 2 <= dimension <= CONTACT_DIMENSION_MAX:
            raise UnknownValueError(
                "dimension",
                f"is {short_repr(dimension)}",
                f"give an integer from 2 to {CONTACT_DIMENSION_MAX}: 2 (planar), 3 (spatial), "
                "4 or 6 (MuJoCo's torsional/rolling condim, tangent rows scaled by their μ_k)",
            )
        return int(dimension)

    @staticmethod
    def _check_M_shape(M) -> int:
        """n of the mass matrix, checked square and within the limits before anything is factored."""
        return ContactProblem._mass_matrix(M)[0]

    @staticmethod
    def _mass_matrix(M) -> tuple[int, np.ndarray | sp.spmatrix]:
        """``(n, M)``: the mass matrix checked as :meth:`_check_M_shape` checks it; a dense one also validated as
        :func:`~gaussqp.model.validation.matrix` validates it (float64), its entries read once. A sparse one is
        returned as given: its entries are validated by :meth:`_init_blocks`, after the rows (the order of the
        errors: a sparse M's shape, the rows, then its entries)."""
        if sp.issparse(M):
            return ContactProblem._square_size(tuple(M.shape), True), M
        Mm = real_array("mass_matrix", M, 2)
        return ContactProblem._square_size(Mm.shape, False), Mm

    @staticmethod
    def _square_size(shape: tuple, sparse: bool) -> int:
        """n of a mass matrix of this ``shape`` (stored sparse or not), checked square and within the limits."""
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ShapeError(
                "mass_matrix",
                f"has shape {tuple(shape)}, expected square (n, n)",
                "give an n×n symmetric positive semidefinite matrix",
            )
        n = int(shape[0])
        if n == 0:
            raise ShapeError("mass_matrix", "is empty (n = 0)", "give at least one coordinate")
        check_count("mass_matrix", "coordinates", n, COORDINATES_MAX, "give a smaller problem (see gaussqp.settings)")
        if not sparse:
            check_count(
                "mass_matrix",
                "coordinates in a dense matrix",
                n,
                DENSE_BLOCK_MAX,
                "give M as a scipy.sparse matrix (its block structure is exploited)",
            )
        return n

    def _init_blocks(self, Mm, F, Jn, b, Jt, c, has_t, mu, types, modes, slip, d, name, description):
        """The rest of the validation and the problem's fields. ``Mm`` comes from :meth:`_mass_matrix` (a dense one
        validated, a sparse one of checked shape), ``Jn`` and ``Jt`` validated by the constructor
        (:func:`~gaussqp.model.validation.matrix` or validated rows: float64, dense or CSR, ``Jn`` with n columns and
        ``Jt`` with ``m (d - 1)`` rows), so their entries are read once."""
        n = Mm.shape[0]
        if sp.issparse(Mm):
            Mm = matrix("mass_matrix", Mm, (n, n))
            check_sparse_mass(Mm)
        self._check_symmetric_psd(Mm)
        Fv = vector("force", F, n)
        m = Jn.shape[0]
        if not sp.issparse(Jn):  # sparse rows are bounded by their stored entries (validation.matrix)
            check_count(
                "J_n",
                "rows × coordinates (m × n)",
                float(m) * n,
                ENTRIES_MAX,
                "give a smaller problem (see gaussqp.settings)",
            )
        bv = vector("normal_drift", b, m)
        if m * (d - 1):  # the tangent rows' size limit also when the constructor built them (from the contacts, zeros)
            check_stored_size("J_t", Jt)
        if sp.issparse(Mm) or sp.issparse(Jn):  # one storage for all rows: stacking E, G never mixes kinds
            Jn, Jt = sp.csr_matrix(Jn), sp.csr_matrix(Jt)
        cv = vector("tangent_drift", c, m * (d - 1))
        ht = flags("has_tangent", has_t, m)
        muv = vector("friction", mu, m)
        for i, x in enumerate(muv):
            if x < 0:
                raise NegativeFrictionError(
                    f"contacts[{i}].friction", f"is {x} < 0", "give a friction coefficient mu >= 0"
                )
        if len(types) != m or len(modes) != m or len(slip) != m:
            raise ShapeError(
                "contacts",
                f"{len(types)} types, {len(modes)} modes and {len(slip)} slips for {m} contacts",
                "give one type, one mode and one slip (or None) per contact",
            )
        slip_arr = np.zeros((m, d - 1))
        modes = [
            default_mode(f"contacts[{i}]", types[i], muv[i], ht[i], d) if modes[i] is None else modes[i]
            for i in range(m)
        ]
        for i in range(m):
            if not isinstance(types[i], str) or types[i] not in CONTACT_TYPES:
                raise UnknownValueError(
                    f"contacts[{i}].type", f"is {short_repr(types[i])}", "use 'bilateral' or 'unilateral'"
                )
            if not isinstance(modes[i], str) or modes[i] not in MODES:
                raise UnknownValueError(
                    f"contacts[{i}].mode",
                    f"is {short_repr(modes[i])}",
                    "use 'frictionless', 'sticking', 'sliding' or 'coulomb'",
                )
            if modes[i] == "coulomb" and types[i] != "unilateral":
                raise UnknownValueError(
                    f"contacts[{i}].mode",
                    f"is 'coulomb' on a {types[i]} contact",
                    "'coulomb' is for unilateral contacts; give a bilateral frictional "
                    "constraint 'sticking' or 'sliding'",
                )
            if modes[i] != "frictionless" and not ht[i]:
                raise TangentShapeError(
                    f"contacts[{i}].tangent",
                    f"is missing for a {modes[i]} contact",
                    f"give {d - 1} tangent row(s), or set mode 'frictionless'",
                )
            if modes[i] == "sliding":
                if slip[i] is None:
                    raise MissingSlipError(
                        f"contacts[{i}].slip",
                        "is missing for a sliding contact",
                        "give the direction of the tangential velocity (in 2D its sign, +1 or -1)",
                    )
                s = vector(f"contacts[{i}].slip", slip[i], d - 1)
                ns = float(np.linalg.norm(s))
                if ns < SLIP_NORM_MIN:
                    raise MissingSlipError(
                        f"contacts[{i}].slip", "is zero", "give a nonzero slip direction (a sliding contact moves)"
                    )
                slip_arr[i] = s / ns
        object.__setattr__(self, "_M", _readonly(Mm))
        object.__setattr__(self, "_F", _readonly(Fv))
        object.__setattr__(self, "_Jn", _readonly(Jn))
        object.__setattr__(self, "_b", _readonly(bv))
        object.__setattr__(self, "_Jt", _readonly(Jt))
        object.__setattr__(self, "_c", _readonly(cv))
        ht.setflags(write=False)
        object.__setattr__(self, "_has_tangent", ht)
        object.__setattr__(self, "_mu", _readonly(muv))
        tarr = np.array(types, dtype="<U10")
        tarr.setflags(write=False)
        marr = np.array(modes, dtype="<U12")
        marr.setflags(write=False)
        object.__setattr__(self, "_types", tarr)
        object.__setattr__(self, "_modes", marr)
        slip_arr.setflags(write=False)
        object.__setattr__(self, "_slip", slip_arr)
        object.__setattr__(self, "_dimension", d)
        object.__setattr__(self, "_sets", _index_sets(tarr, marr, d))
        object.__setattr__(self, "name", text("name", name))
        object.__setattr__(self, "description", text("description", description))

    def _check_symmetric_psd(self, M) -> None:
        asym = relative_asymmetry(M)
        if asym > MASS_RTOL:
            raise NotSymmetricError(
                "mass_matrix",
                f"is not symmetric (max |M_ij - M_ji| = {asym:.3g} of its entries' scale)",
                "give a symmetric matrix, e.g. (M + M.T) / 2 if the asymmetry is round-off",
            )
        fac = factor_mass(M)
        lam_max = float(np.abs(fac.eigenvalues).max()) if fac.eigenvalues.size else 0.0
        if fac.eigenvalues.size and fac.min_eigenvalue < -MASS_RTOL * max(1.0, lam_max):
            raise IndefiniteMassError(
                "mass_matrix",
                f"is indefinite (smallest eigenvalue {fac.min_eigenvalue:.3g})",
                "a mass matrix is positive semidefinite: check its assembly",
            )
        self.__dict__["mass_factor"] = fac

    def __setattr__(self, key, value):
        raise AttributeError("ContactProblem is immutable; build a new one")

    # ------------------------------------------------------------------ accessors
    @property
    def M(self):
        """Mass matrix (n × n), dense read-only ndarray or scipy.sparse."""
        return self._M

    @property
    def F(self) -> np.ndarray:
        """Force vector in ``M a + F = Jᵀλ`` (gravity appears as +m g)."""
        return self._F

    @property
    def J_n(self):
        """Stacked normal rows (m × n)."""
        return self._Jn

    @property
    def normal_drift(self) -> np.ndarray:
        return self._b

    @property
    def J_t(self):
        """Stacked tangent rows (m (d-1) × n), zero rows for contacts without tangent."""
        return self._Jt

    @property
    def tangent_drift(self) -> np.ndarray:
        return self._c

    @property
    def has_tangent(self) -> np.ndarray:
        return self._has_tangent

    @property
    def friction(self) -> np.ndarray:
        return self._mu

    @property
    def types(self) -> np.ndarray:
        return self._types

    @property
    def modes(self) -> np.ndarray:
        return self._modes

    @property
    def slip(self) -> np.ndarray:
        return self._slip

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def n(self) -> int:
        return self._M.shape[0]

    @property
    def m(self) -> int:
        return self._Jn.shape[0]

    @property
    def sparse(self) -> bool:
        return sp.issparse(self._M) or sp.issparse(self._Jn)

    @property
    def contacts(self) -> tuple[Contact, ...]:
        """Per-contact view of the blocks."""
        return tuple(self.contact(i) for i in range(self.m))

    def contact(self, i: int) -> Contact:
        d1 = self.dimension - 1
        Jn = self._Jn[i].toarray().ravel() if sp.issparse(self._Jn) else np.array(self._Jn[i])
        if self._has_tangent[i]:
            rows = self._Jt[i * d1 : (i + 1) * d1]
            T = sp.csr_matrix(rows).toarray() if sp.issparse(rows) else np.array(rows)
            c = np.array(self._c[i * d1 : (i + 1) * d1])
        else:
            T, c = None, None
        return Contact(
            type=str(self._types[i]),
            normal=Jn,
            normal_drift=float(self._b[i]),
            friction=float(self._mu[i]),
            mode=str(self._modes[i]),
            tangent=T,
            tangent_drift=c,
            slip=np.array(self._slip[i]) if self._modes[i] == "sliding" else None,
        )

    # ------------------------------------------------------------------ index sets (computed with the problem)
    @property
    def bilateral(self) -> np.ndarray:
        """Indices of bilateral contacts."""
        return self._sets["bilateral"]

    @property
    def unilateral(self) -> np.ndarray:
        """Indices of unilateral contacts."""
        return self._sets["unilateral"]

    @property
    def sticking(self) -> np.ndarray:
        """Contacts in mode ``"sticking"``."""
        return self._sets["sticking"]

    @property
    def sliding(self) -> np.ndarray:
        """Contacts in mode ``"sliding"``."""
        return self._sets["sliding"]

    @property
    def coulomb(self) -> np.ndarray:
        """Contacts whose stick/slip mode is left to the solver (mode ``"coulomb"``)."""
        return self._sets["coulomb"]

    @property
    def frictionless(self) -> np.ndarray:
        """Contacts in mode ``"frictionless"``."""
        return self._sets["frictionless"]

    def tangent_rows(self, idx: Iterable[int]) -> np.ndarray:
        """Row indices into ``J_t`` of the contacts ``idx`` (each contact's ``d - 1`` rows, in the order of ``idx``).
        Those of :attr:`sticking`, asked by most checks of a solve, are computed with the problem (read-only)."""
        if idx is self._sets["sticking"]:
            return self._sets["sticking_rows"]
        i = np.asarray(idx if isinstance(idx, np.ndarray) else list(idx), dtype=int).reshape(-1)
        return _tangent_rows(i, self.dimension)

    @cached_property
    def equalities(self):
        """(E, e): rows with ``E a + e = 0``: bilateral normals, then sticking tangents."""
        rt = self.tangent_rows(self.sticking)
        if not self.sparse and not self.bilateral.size and not rt.size:  # no equality (the stack below, empty)
            return np.zeros((0, self.n)), np.zeros(0)
        Jb, Jt = self._Jn[self.bilateral], self._Jt[rt]
        E = sp.vstack([Jb, Jt], format="csr") if self.sparse else np.vstack([as_dense(Jb), as_dense(Jt)])
        return E, np.concatenate([self._b[self.bilateral], self._c[rt]])

    @cached_property
    def inequalities(self):
        """(G, g): rows with ``G a + g >= 0``: unilateral normals."""
        return self._Jn[self.unilateral], np.array(self._b[self.unilateral])

    @cached_property
    def mass_factor(self) -> MassFactor:
        return factor_mass(self._M)

    # ------------------------------------------------------------------ classification
    def classify(self) -> SystemClass:
        """System class: mass definiteness and rank, constraint kinds, friction modes, redundancy. Decided once per
        problem (a problem does not change after construction; the class is frozen): the dispatcher, the formulation's
        ``accepts`` and the reports ask it again, and the rank of a sparse problem's normal rows cost 6 ms a time on a
        40-contact pile."""
        return self._system_class

    @cached_property
    def _system_class(self) -> SystemClass:
        """:meth:`classify`, computed."""
        fac = self.mass_factor
        mb, mu_ = len(self.bilateral), len(self.unilateral)
        constraints = "none" if self.m == 0 else ("mixed" if mb and mu_ else ("bilateral" if mb else "unilateral"))
        frictional = {mode for mode in MODES if mode != "frictionless" and self._sets[mode].size}
        modes = "frictionless" if not frictional else "mixed" if len(frictional) > 1 else str(frictional.pop())
        return SystemClass(
            n=self.n,
            mass="definite" if fac.definite else "singular",
            mass_rank=fac.rank,
            constraints=constraints,
            modes=modes,
            m_bilateral=mb,
            m_unilateral=mu_,
            # computed when first read (no route keys on it), from the rows and M's scaling alone: the record holds no
            # reference to the problem (which holds the record)
            normal_rank=NormalRowsRank(self._Jn, fac.scaling, self.n),
            dimension=self.dimension,
        )

    #: the problem's form (:data:`gaussqp.model.summary.FORMS`): a mass matrix and contact rows, ``M a + F = Jᵀλ``
    form = "global"

    def summary(self) -> ProblemSummary:
        """The description common to both problem forms (:class:`~gaussqp.model.summary.ProblemSummary`), with
        this problem's system class (:meth:`classify`)."""
        c = self.classify()
        return ProblemSummary(
            form=self.form,
            name=self.name,
            description=self.description,
            m=self.m,
            dimension=self.dimension,
            unknowns=self.n,
            class_key="/".join(c.key),
            modes=mode_counts(self._modes),
            system_class=c,
            detail=(
                f"n={self.n}, m={self.m}: {c.m_bilateral} bilateral, {c.m_unilateral} "
                f"unilateral; M {c.mass}, rank {c.mass_rank}"
            ),
        )

    def __repr__(self) -> str:
        c = self.classify()
        return (
            f"ContactProblem(name={self.name!r}, n={self.n}, m={self.m} "
            f"[{c.m_bilateral} bilateral, {c.m_unilateral} unilateral], d={self.dimension}, "
            f"M {c.mass} rank {c.mass_rank}, {c.modes})"
        )

    def with_blocks(
        self,
        *,
        M=None,
        F=None,
        J_n=None,
        normal_drift=None,
        types: Sequence[str] | None = None,
        J_t=None,
        tangent_drift=None,
        friction=None,
        modes: Sequence[str] | None = None,
        slip=None,
        has_tangent=None,
        name: str | None = None,
    ) -> "ContactProblem":
        """A copy with the given blocks replaced (another state of a robot, another storage of its rows, other told
        modes), validated as :meth:`from_blocks` validates them; the blocks not given, the dimension and the
        description are this problem's (shared, not copied).

        Parameters
        ----------
        M, F, J_n, normal_drift, types, J_t, tangent_drift, friction, modes, slip, has_tangent
            as :meth:`from_blocks`; None keeps this problem's.
        name : str, optional
            the copy's name (default: this problem's).

        Returns
        -------
        ContactProblem
        """
        return ContactProblem.from_blocks(
            self._M if M is None else M,
            self._F if F is None else F,
            self._Jn if J_n is None else J_n,
            self._b if normal_drift is None else normal_drift,
            list(self._types) if types is None else list(types),
            self._Jt if J_t is None else J_t,
            self._c if tangent_drift is None else tangent_drift,
            self._mu if friction is None else friction,
            list(self._modes) if modes is None else list(modes),
            self._slip if slip is None else slip,
            self._has_tangent if has_tangent is None else has_tangent,
            self.dimension,
            self.name if name is None else name,
            self.description,
        )

    def with_drifts(self, normal_drift, tangent_drift, name: str | None = None) -> "ContactProblem":
        """A copy with other drifts ``b`` (m,) and ``c`` (m (d-1),) (same rows, forces and modes)."""
        return self.with_blocks(normal_drift=normal_drift, tangent_drift=tangent_drift, name=name)

    def __reduce__(self):
        """Pickling and copying (``copy.deepcopy``, ``multiprocessing``) rebuild the problem through
        :meth:`from_blocks` of its class from its blocks: validated again, its arrays read-only again (an unpickled
        array is not); the slip directions, already normalized, are restored as they were (normalizing them again
        may move them by an ulp)."""
        return (
            _problem_from_blocks,
            (
                type(self),
                self._slip,
                self._M,
                self._F,
                self._Jn,
                self._b,
                list(self._types),
                self._Jt,
                self._c,
                self._mu,
                list(self._modes),
                self._slip,
                self._has_tangent,
                self.dimension,
                self.name,
                self.description,
            ),
        )

    def with_force(self, F) -> "ContactProblem":
        """A copy with another force vector (same structure)."""
        return self.with_blocks(F=F)

    def mode_free(self, name: str | None = None, *, sliding: bool = False) -> "ContactProblem":
        """A copy with every told ``sticking`` unilateral contact given the mode ``coulomb`` (stick or slip left to
        the solver, as the mode-free route and the audit pose them); with ``sliding``, every told ``sliding``
        unilateral contact too (a simulator's state whose slip the importer read from its velocities, re-posed with no
        mode told); the other modes kept, a bilateral frictional constraint's among them (``coulomb`` is for
        unilateral contacts: whether a bilateral one sticks or slides is told)."""
        free = ("sticking", "sliding") if sliding else ("sticking",)
        modes = [
            "coulomb" if str(m) in free and str(t) == "unilateral" else str(m) for m, t in zip(self._modes, self._types)
        ]
        return self.with_blocks(modes=modes, name=name)


def unknowns(problem) -> int:
    """A problem's unknowns: ``n + m·d`` for an acceleration-level problem, ``m·d`` (the size of ``W``) for a local
    one (:class:`~gaussqp.model.local_problem.LocalContactProblem`). The size by which
    :func:`gaussqp.linalg.blas_threads.one_blas_thread` decides.

    Parameters
    ----------
    problem : ContactProblem or LocalContactProblem

    Returns
    -------
    int
    """
    size = problem.m * problem.dimension
    return size if problem.form == "local" else problem.n + size


def _problem_from_blocks(cls, slip, *blocks) -> ContactProblem:
    """:meth:`ContactProblem.__reduce__`'s constructor (a module-level function, as pickle needs): ``cls.from_blocks``
    of the blocks, then the slip directions as they were."""
    p = cls.from_blocks(*blocks)
    object.__setattr__(p, "_slip", _readonly(slip))
    return p
