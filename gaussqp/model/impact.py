"""The contact problem at the impulse level: an impact, or one time step (inertial §6).

At an impact time (``h = 0``) or over one time step of length ``h``, the velocity jumps from ``v⁻`` to ``v⁺``:

    M (v⁺ − v⁻) = h f + J_nᵀ P_n + J_tᵀ P_t                           (inertial (71), plus the smooth impulse h f)
    bilateral  i:  n_i v⁺ = 0,                        P_n,i free
    unilateral i:  0 <= P_n,i  ⟂  n_i v⁺ + (E u⁻)_i >= 0,   u⁻ = J_n v⁻   (Newton's law in Moreau's form)
    sticking   i:  T_i v⁺ = 0,   ‖P_t,i‖ <= μ_i P_n,i;   sliding / coulomb as in :class:`ContactProblem`

``f`` is the *applied* generalized force (gravity is ``−m g`` on an upward axis), ``E`` the m × m restitution
matrix (inertial (76); ``diag(e)`` by default, zero on bilateral rows and columns). With ``v⁺`` in the role of
the acceleration this is exactly a :class:`~gaussqp.model.problem.ContactProblem` (:meth:`ImpactProblem.
to_contact_problem`): ``M v⁺ + F' = Jᵀ P`` with ``F' = −(M v⁻ + h f)``, unilateral drifts ``b = E u⁻``,
bilateral and tangent drifts 0, so every formulation of gaussqp solves it and every certificate applies. The
kinetic-metric projection of F1 is then Moreau's impact rule (inertial (84)(a)).

For ``E = diag(e)`` with ``u⁻ <= 0`` the law is the paper's (76) (``u⁺ = −e u⁻`` on every contact that
carries a percussion). A contact with ``u⁻ > 0`` (already separating) may receive a percussion in a multiple
impact; its law then allows ``u⁺ >= −e u⁻``: that is the Moreau–Jean time-stepping law, and the energy
certificate (:func:`gaussqp.impacts.energy_certificate`) says when dissipation is proven.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..errors import RestitutionError, UnknownValueError
from ..settings import RESTITUTION_MAX
from ..linalg.mass import solve_mass
from .problem import Contact, ContactProblem
from .validation import real_array, real_scalar, short_repr, text, vector


def kinetic_energy(M, v) -> float:
    """``½ vᵀ M v`` (dense or sparse M)."""
    v = np.asarray(v, dtype=float)
    return float(0.5 * v @ (M @ v))


class ImpactProblem:
    """An impact (``h = 0``) or one time step at the velocity level (see the module docstring).

    Parameters
    ----------
    M
        (n, n) symmetric positive semidefinite mass matrix (dense or scipy.sparse)
    v_minus
        (n,) velocity before the impact (or at the start of the step)
    contacts
        the contacts as :class:`~gaussqp.model.problem.Contact` objects; their normal and tangent
        drifts must be zero (at the impulse level the right-hand sides come from the impact law)
    restitution
        keyword-only; a number ``e`` (every unilateral contact), m numbers (one per contact, 0 on
        bilateral ones) or the m × m restitution matrix ``E`` (zero rows and columns on bilateral contacts);
        diagonal entries in ``[0, 1]``
    h
        keyword-only time step (0 for an impact)
    f
        keyword-only (n,) applied generalized force over the step (default 0; unused when ``h = 0``)
    dimension, name, description
        as for :class:`ContactProblem`

    Raises
    ------
    gaussqp.errors.InputError
        A subclass naming the field, for invalid data.
    """

    def __init__(
        self,
        M,
        v_minus,
        contacts: Iterable[Contact] = (),
        *,
        restitution=0.0,
        h: float = 0.0,
        f=None,
        dimension: int = 2,
        name: str = "",
        description: str = "",
    ):
        contacts = ContactProblem._contact_list(contacts)
        n = ContactProblem._check_M_shape(M)
        rows = ContactProblem(
            M,
            np.zeros(n),
            contacts,
            dimension=dimension,
            name=text("name", name),
            description=text("description", description),
        )
        self._init(rows, v_minus, restitution, h, f)

    @classmethod
    def from_problem(
        cls, problem: ContactProblem, v_minus, *, restitution=0.0, h: float = 0.0, f=None, modes=None
    ) -> "ImpactProblem":
        """The impulse-level problem on the rows of ``problem`` (its M, contacts, modes and friction; its F and
        drifts, which belong to the acceleration level, are not used). ``modes`` (one string or m strings)
        replaces the problem's modes, e.g. ``"frictionless"`` for a frictionless impact."""
        if not isinstance(problem, ContactProblem):
            raise UnknownValueError("problem", f"is a {type(problem).__name__}", "give a gaussqp.ContactProblem")
        d = problem.dimension
        rows = ContactProblem.from_blocks(
            problem.M,
            np.zeros(problem.n),
            problem.J_n,
            None,
            list(problem.types),
            problem.J_t,
            None,
            problem.friction,
            list(problem.modes) if modes is None else modes,
            problem.slip,
            problem.has_tangent,
            d,
            problem.name,
            problem.description,
        )
        self = cls.__new__(cls)
        self._init(rows, v_minus, restitution, h, f, check_drifts=False)
        return self

    def _init(self, rows: ContactProblem, v_minus, restitution, h, f, check_drifts: bool = True) -> None:
        n, m = rows.n, rows.m
        if check_drifts:
            for i in range(m):
                if rows.normal_drift[i] != 0 or np.any(
                    rows.tangent_drift[i * (rows.dimension - 1) : (i + 1) * (rows.dimension - 1)] != 0
                ):
                    raise UnknownValueError(
                        f"contacts[{i}].normal_drift",
                        "is nonzero at the impulse level",
                        "leave the drifts at 0: the impact law sets the right-hand sides (restitution=...)",
                    )
        object.__setattr__(self, "_rows", rows)
        object.__setattr__(self, "_v", vector("v_minus", v_minus, n))
        self._v.setflags(write=False)
        hv = real_scalar("h", h)
        if hv < 0:
            raise UnknownValueError("h", f"is {hv} < 0", "give a time step h >= 0 (0 for an impact)")
        object.__setattr__(self, "_h", hv)
        object.__setattr__(self, "_f", np.zeros(n) if f is None else vector("f", f, n))
        self._f.setflags(write=False)
        object.__setattr__(self, "_E", self._restitution(restitution, rows))
        self._E.setflags(write=False)

    @staticmethod
    def _restitution(value, rows: ContactProblem) -> np.ndarray:
        m = rows.m
        arr = real_array("restitution", value, 2)
        bil = rows.types == "bilateral"
        if arr.ndim == 0:
            E = np.diag(np.where(bil, 0.0, float(arr))) if m else np.zeros((0, 0))
        elif arr.ndim == 1:
            if arr.shape != (m,):
                raise RestitutionError(
                    "restitution",
                    f"has shape {arr.shape}, expected ({m},)",
                    f"give one number, {m} numbers (one per contact) or an {m}×{m} matrix",
                )
            E = np.diag(arr)
        else:
            if arr.shape != (m, m):
                raise RestitutionError(
                    "restitution",
                    f"has shape {arr.shape}, expected ({m}, {m})",
                    f"give one number, {m} numbers (one per contact) or an {m}×{m} matrix",
                )
            E = np.array(arr, dtype=float)
        for i in range(m):
            if E[i, i] < 0 or E[i, i] > RESTITUTION_MAX:
                raise RestitutionError(
                    f"restitution[{i}]",
                    f"is {short_repr(E[i, i])}",
                    f"give a coefficient in [0, {RESTITUTION_MAX}] (0 plastic, 1 elastic)",
                )
            if bil[i] and (np.any(E[i] != 0) or np.any(E[:, i] != 0)):
                raise RestitutionError(
                    f"restitution[{i}]",
                    "is nonzero on a bilateral contact",
                    "a bilateral row keeps n v⁺ = 0: give 0 in its row and column",
                )
        return E

    # ------------------------------------------------------------------ accessors
    @property
    def rows(self) -> ContactProblem:
        """The contacts and mass matrix as a :class:`ContactProblem` with ``F = 0`` and zero drifts."""
        return self._rows

    @property
    def M(self):
        return self._rows.M

    @property
    def v_minus(self) -> np.ndarray:
        return self._v

    @property
    def h(self) -> float:
        return self._h

    @property
    def f(self) -> np.ndarray:
        return self._f

    @property
    def restitution(self) -> np.ndarray:
        """The m × m restitution matrix ``E`` (zero on bilateral rows and columns)."""
        return self._E

    @property
    def n(self) -> int:
        return self._rows.n

    @property
    def m(self) -> int:
        return self._rows.m

    @property
    def dimension(self) -> int:
        return self._rows.dimension

    @property
    def name(self) -> str:
        return self._rows.name

    @property
    def normal_velocity_before(self) -> np.ndarray:
        """``u⁻ = J_n v⁻`` (one per contact)."""
        return np.asarray(self._rows.J_n @ self._v, dtype=float).ravel()

    @property
    def free_velocity(self) -> np.ndarray:
        """``v⁻ + h M⁻¹ f``: the velocity without contacts (M ≻ 0; least-squares on singular M's kernel)."""
        if self._h == 0:
            return np.array(self._v)
        return self._v + self._h * np.asarray(solve_mass(self.M, self._f)).ravel()

    @property
    def is_diagonal_restitution(self) -> bool:
        """True when ``E`` is diagonal (the paper's ``E = diag(e)``)."""
        return bool(np.all(self._E == np.diag(np.diag(self._E))))

    def kinetic_energy(self, v) -> float:
        """``½ vᵀ M v``."""
        return kinetic_energy(self.M, v)

    def to_contact_problem(self) -> ContactProblem:
        """The same problem as a :class:`ContactProblem` in the unknown ``v⁺`` (module docstring):
        ``F' = −(M v⁻ + h f)``, unilateral drifts ``b = E u⁻`` (bilateral and tangent drifts 0)."""
        r = self._rows
        Fp = -(np.asarray(r.M @ self._v, dtype=float).ravel() + self._h * self._f)
        b = self._E @ self.normal_velocity_before if self.m else np.zeros(0)
        b = np.where(r.types == "unilateral", b, 0.0)
        desc = f"impulse level (h = {self._h:g}) of {r.name or 'a problem'}: unknown v⁺ in the role of a" + (
            f"; {r.description}" if r.description else ""
        )
        return ContactProblem.from_blocks(
            r.M,
            Fp,
            r.J_n,
            b,
            list(r.types),
            r.J_t,
            None,
            r.friction,
            list(r.modes),
            r.slip,
            r.has_tangent,
            r.dimension,
            r.name,
            desc,
        )

    def __repr__(self) -> str:
        return (
            f"ImpactProblem(name={self.name!r}, n={self.n}, m={self.m}, h={self._h:g}, "
            f"E {'diagonal' if self.is_diagonal_restitution else 'full'})"
        )

    def __setattr__(self, key, value):
        raise AttributeError("ImpactProblem is immutable; build a new one")
