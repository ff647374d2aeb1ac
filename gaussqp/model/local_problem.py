"""The local (Delassus) form of a frictional contact problem: ``u = W r + q`` over contact blocks.

This is the form of FCLIB's ``/fclib_local`` problems (Acary, Brémond, Huber 2018, §2; the FCLIB
format's ``fclib_local_t``): ``m`` contacts in dimension ``d`` (2 or 3), each with a block of ``d``
coordinates ordered (normal, t1[, t2]) in the reaction ``r`` and the local velocity ``u``::

    u = W r + q,
    r_j ∈ K_j = {‖r_T,j‖ <= μ_j r_N,j},
    Coulomb's law with the stick/slip mode left to the solver (De Saxcé's form):
    K_j ∋ r_j  ⟂  u_j + μ_j ‖u_T,j‖ e_N ∈ K_j*.

``W`` is the Delassus matrix ``H M⁻¹ Hᵀ`` of a global problem, already condensed, so no mass matrix or
coordinate remains: it is a problem of a type of its own, not a :class:`gaussqp.ContactProblem`.
``W`` is square of size ``m·d`` and **need not be symmetric**: the collection's ``Capsules`` problems carry
gyroscopic terms (``max|W - Wᵀ|`` about 1e-3 of ``max|W|``), and it may be singular (``local_problem_test``
has rank 72 for 144 rows). The mode-free Coulomb route (F8, ``coulomb_fixed_point``) solves it
(:func:`gaussqp.solve`, :class:`gaussqp.Solver`); it is read, validated and written by :mod:`gaussqp.io.fclib` and
the NPZ format. It shares with the global problem the interface of :mod:`gaussqp.model.summary` (``form``, ``m``,
``dimension``, ``modes``, ``summary()``, ...).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import NegativeFrictionError, ShapeError, UnknownValueError
from .summary import ProblemSummary, mode_counts
from .validation import matrix, real_array, short_repr, text, vector

#: the dimensions of a contact block that FCLIB's local problems use (``spacedim``)
LOCAL_DIMENSIONS = (2, 3)


def _readonly(a):
    if sp.issparse(a):
        return a
    a.setflags(write=False)
    return a


class LocalContactProblem:
    """Immutable local (Delassus-form) frictional contact problem ``u = W r + q`` (see the module docstring).

    Parameters
    ----------
    W
        (m·d, m·d) array or scipy.sparse matrix
        Delassus matrix, square, finite; not necessarily symmetric nor positive semidefinite. Sparse input
        is stored as CSR, dense as a read-only float64 copy.
    q
        (m·d,) array
        Free local velocity, contact blocks ordered (normal, t1[, t2]).
    mu : (m,) array
        Friction coefficients ``μ_j >= 0`` (``μ_j = 0``: frictionless contact).
    dimension : int
        ``d``, 2 (planar) or 3 (spatial).
    name, description : str
        Free text (FCLIB's info title and description).

    Raises
    ------
    gaussqp.errors.InputError
        Subclasses naming the field: ShapeError (sizes), NonFiniteError / MagnitudeError (entries),
        NegativeFrictionError (``μ < 0``), UnknownValueError (dimension), WrongTypeError (name, description),
        InputTooLargeError (declared sizes beyond :data:`gaussqp.settings.ENTRIES_MAX`).
    """

    __slots__ = ("_W", "_q", "_mu", "_dimension", "name", "description")
    # the slots' types, for a type checker (set once, by object.__setattr__, in __init__)
    _W: np.ndarray | sp.csr_matrix
    _q: np.ndarray
    _mu: np.ndarray
    _dimension: int
    name: str
    description: str

    def __init__(self, W, q, mu, dimension: int, name: str = "", description: str = ""):
        d = self._check_dimension(dimension)
        muv = real_array("mu", mu, 1)
        if muv.ndim == 0:
            muv = muv.reshape(1)
        m = muv.shape[0]
        size = m * d
        try:
            Wm = matrix("W", W, (size, size))  # dense float64 copy or CSR
        except ShapeError as exc:
            raise ShapeError(
                "W",
                exc.problem,
                f"give a square W of size m·d = {m}·{d} = {size} (one row and one column per contact coordinate)",
            ) from None
        qv = vector("q", q, size)
        for j, x in enumerate(muv):
            if x < 0:
                raise NegativeFrictionError(f"mu[{j}]", f"is {x} < 0", "give a friction coefficient mu >= 0")
        object.__setattr__(self, "_W", _readonly(Wm))
        object.__setattr__(self, "_q", _readonly(qv))
        object.__setattr__(self, "_mu", _readonly(muv))
        object.__setattr__(self, "_dimension", d)
        object.__setattr__(self, "name", text("name", name))
        object.__setattr__(self, "description", text("description", description))

    @staticmethod
    def _check_dimension(dimension) -> int:
        integral = isinstance(dimension, (int, np.integer)) and not isinstance(dimension, (bool, np.bool_))
        if not integral or dimension not in LOCAL_DIMENSIONS:
            raise UnknownValueError(
                "dimension",
                f"is {short_repr(dimension)}",
                "give the integer 2 (planar) or 3 (spatial): a contact block is (normal, t1[, t2])",
            )
        return int(dimension)

    def __reduce__(self):
        """Pickling and copying rebuild the problem through the constructor (validated again, read-only again)."""
        return (type(self), (self._W, self._q, self._mu, self._dimension, self.name, self.description))

    def __setattr__(self, key, value):
        raise AttributeError("LocalContactProblem is immutable; build a new one")

    # ------------------------------------------------------------------ accessors
    @property
    def W(self):
        """Delassus matrix (m·d × m·d): a read-only float64 ndarray or a scipy.sparse CSR matrix."""
        return self._W

    @property
    def q(self) -> np.ndarray:
        """Free local velocity ``q`` (m·d,), blocks (normal, t1[, t2])."""
        return self._q

    @property
    def mu(self) -> np.ndarray:
        """Friction coefficients (m,)."""
        return self._mu

    @property
    def dimension(self) -> int:
        """``d``: coordinates per contact block (2 or 3)."""
        return self._dimension

    @property
    def m(self) -> int:
        """Number of contacts."""
        return self._mu.shape[0]

    @property
    def size(self) -> int:
        """``m·d``, the size of ``W``, ``q``, ``r`` and ``u``."""
        return self.m * self._dimension

    @property
    def sparse(self) -> bool:
        return sp.issparse(self._W)

    @property
    def asymmetry(self) -> float:
        """``max |W - Wᵀ|`` (0 for a symmetric W; gyroscopic terms make it nonzero)."""
        if self.size == 0:
            return 0.0
        D = self._W - self._W.T
        return float(abs(D).max()) if sp.issparse(D) else float(np.abs(D).max())

    #: the problem's form (:data:`gaussqp.model.summary.FORMS`): ``u = W r + q``, no mass matrix
    form = "local"

    @property
    def modes(self) -> np.ndarray:
        """Every contact's mode: ``"coulomb"`` (stick/slip left to the solver), as a global problem's ``modes``."""
        return np.full(self.m, "coulomb")

    @property
    def sticking(self) -> np.ndarray:
        """Indices of sticking contacts: none (a local problem's contacts are all ``"coulomb"``)."""
        return np.zeros(0, dtype=np.intp)

    @property
    def sliding(self) -> np.ndarray:
        """Indices of sliding contacts: none."""
        return np.zeros(0, dtype=np.intp)

    @property
    def coulomb(self) -> np.ndarray:
        """Indices of the contacts whose stick/slip the solver decides: all of them."""
        return np.arange(self.m)

    def summary(self) -> ProblemSummary:
        """The description common to both problem forms (:class:`~gaussqp.model.summary.ProblemSummary`): no
        system class (no mass matrix), ``unknowns`` = m·d."""
        return ProblemSummary(
            form=self.form,
            name=self.name,
            description=self.description,
            m=self.m,
            dimension=self.dimension,
            unknowns=self.size,
            class_key="local",
            modes=mode_counts(self.modes),
            system_class=None,
            detail=(f"local u = W r + q: m={self.m} contacts, d={self.dimension}, max|W - Wᵀ| = {self.asymmetry:.3g}"),
        )

    def velocity(self, r) -> np.ndarray:
        """The local velocity ``u = W r + q`` of a reaction ``r`` (m·d,)."""
        rv = vector("r", r, self.size)
        return np.asarray(self._W @ rv).ravel() + self._q

    def __repr__(self) -> str:
        return (
            f"LocalContactProblem(name={self.name!r}, m={self.m}, d={self.dimension}, "
            f"W {self.size}x{self.size} {'sparse' if self.sparse else 'dense'})"
        )
