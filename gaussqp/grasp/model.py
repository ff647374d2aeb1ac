"""The grasp model: contacts on an object, the grasp map, the exact cones and their polygons.

Notation (docs/DESIGN.md §grasps). The object frame is at the origin; a contact ``i`` has a position ``p_i``, an
**inward** unit normal ``n_i`` (pointing into the object), a friction coefficient ``μ_i`` and a kind:

- ``frictionless`` point: force ``f_n n``, ``f_n >= 0``;
- ``hard`` finger (point contact with friction): ``f = f_n n + f_t``, ``‖f_t‖ <= μ f_n``;
- ``soft`` finger (3D only): a hard finger plus a torsional moment ``τ`` about ``n`` in the **elliptic** cone
  ``‖f_t‖²/μ² + τ²/μ_t² <= f_n²`` (``μ_t`` the torsional friction, a length: ``|τ| <= μ_t f_n`` alone).

Every cone is written isotropically in the contact's coordinates ``x_i = (f_n, ν)`` with ``‖ν‖ <= f_n``:
``f_t = μ (ν_1[, ν_2])`` along the contact's tangents and ``τ = μ_t ν_3`` (the scaling that makes MuJoCo's
condim-4 cone exact in :mod:`gaussqp.friction.cones`). The **grasp map** ``G`` stacks, per contact, the columns
that take ``x_i`` to the wrench it exerts on the object, ``(f, p × f [+ τ n])``; with the torque scale ``L`` the
*scaled* wrench is ``(f, torque / L)`` (the wrench norm of the quality measures, the L2 norm of the issue; a
torque is worth a force at lever arm ``L``). In the plane the wrench is ``(f_x, f_y, torque)``.

A grasp can also be given by its columns alone (:func:`from_contact_problem`: the rows of a contact problem
restricted to the object's coordinates), without positions.

The external ``wrench`` (optional) is the wrench applied to the object by everything but the contacts (gravity,
a load); equilibrium is ``G x + wrench = 0`` with every ``x_i`` in its cone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, NegativeFrictionError, ShapeError, UnknownValueError
from ..linalg.dense import relative_asymmetry
from ..mechanics.frames import tangent_basis  # the one contact frame; still importable from here
from ..model.arguments import check_problem
from ..model.validation import real_array, real_scalar, short_repr
from ..jsonable import to_jsonable
from ..results import Certificate
from ..settings import GRASP_CONTACTS_MAX, GRASP_FACETS_MAX, GRASP_NORMAL_RTOL

KINDS = ("frictionless", "hard", "soft")


def _unit(field_name: str, v: np.ndarray) -> np.ndarray:
    nv = float(np.linalg.norm(v))
    if not nv > 0:
        raise ShapeError(field_name, "is the zero vector", "give the inward unit normal of the contact")
    if abs(nv - 1.0) > GRASP_NORMAL_RTOL:
        raise ShapeError(field_name, f"has norm {nv:.6g}, not 1", "give a unit vector (the inward normal)")
    return v / nv


def _moment(p: np.ndarray, f: np.ndarray) -> np.ndarray:
    """``p × f`` (a scalar in the plane, as a length-1 array)."""
    if p.size == 2:
        return np.array([p[0] * f[1] - p[1] * f[0]])
    return np.cross(p, f)


@dataclass(frozen=True)
class GraspContact:
    """One contact of a grasp (module docstring). ``position``/``normal`` have 2 or 3 entries; ``torsional_friction``
    (``μ_t``, a length) belongs to ``soft`` contacts and ``friction`` to ``hard``/``soft`` ones: the kind decides, and a
    coefficient the kind does not use is set to 0 (the checked contact, ``Grasp.contacts``, shows it)."""

    position: np.ndarray
    normal: np.ndarray
    friction: float = 0.0
    kind: str = "hard"
    torsional_friction: float = 0.0

    @property
    def nu_dim(self) -> int:
        """Entries of ``ν`` (0 frictionless, d−1 hard, 3 soft)."""
        d = np.asarray(self.normal).size
        if self.kind == "frictionless" or self.friction == 0 and self.kind == "hard":
            return 0
        return 3 if self.kind == "soft" else d - 1


@dataclass(frozen=True)
class Hand:
    """The hand holding the object (optional).

    ``jacobian`` (k × n_q): the contact-point velocities, in the physical force components of the contacts in grasp
    order (per contact ``f_n``, then ``f_t`` along :func:`tangent_basis`, then ``τ`` for a soft contact; ``k`` the sum
    of :meth:`Grasp.physical_sizes`), as functions of the joint velocities: the joint torques that balance contact
    forces ``f`` are ``Jᵀ f``. ``torque_limits`` (n_q,) bound ``|τ_j|``; ``mass_matrix`` and ``force`` (the hand's
    ``M`` and ``F`` in ``M q̈ + F = Jᵀ f``) are for the dynamic check."""

    jacobian: np.ndarray
    torque_limits: np.ndarray | None = None
    mass_matrix: np.ndarray | None = None
    force: np.ndarray | None = None


@dataclass
class GraspCheck:
    """The result of one grasp check, with its certificate either way (never a bare −1).

    ``check`` names it (``"force_closure"``, ``"equilibrium"``, ``"epsilon"`` ...); ``holds`` is the verdict (None
    when the check does not apply, ``reason`` says why); ``margin`` its signed slack at the data's scale; ``value``
    the quantities found (forces, ε bounds, a separating wrench ...); ``certificate`` the proof, recomputed in NumPy
    (``certificate.holds`` False means the proof did not verify: the verdict is then not certified)."""

    check: str
    holds: bool | None
    certificate: Certificate | None = None
    margin: float | None = None
    value: dict = field(default_factory=dict)
    reason: str = ""
    times: dict = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        return self.certificate is not None and bool(self.certificate.holds)

    def to_dict(self) -> dict:
        return {
            "check": self.check,
            "holds": self.holds,
            "certified": self.certified,
            "margin": to_jsonable(self.margin),
            "value": {k: to_jsonable(v) for k, v in self.value.items()},
            "reason": self.reason,
            "certificate": None if self.certificate is None else self.certificate.as_dict(with_data=True),
        }

    def __repr__(self) -> str:
        verdict = {True: "yes", False: "no", None: "undecided"}[self.holds]
        proof = self.certificate.id if self.certificate is not None else self.reason
        return (
            f"GraspCheck({self.check}: {verdict}, {'certified' if self.certified else 'NOT certified'}, "
            f"margin={'-' if self.margin is None else format(float(self.margin), '.4g')}, certificate={proof!r})"
        )


class Grasp:
    """A grasp: contacts, the grasp map and the cones (module docstring).

    Parameters
    ----------
    contacts : sequence of :class:`GraspContact` (all 2D or all 3D)
    torque_scale : ``L > 0`` (a length); default the largest distance of a contact from the origin
    wrench : the external wrench on the object (3 entries in the plane, 6 in space), optional
    hand : :class:`Hand`, optional
    columns : instead of positions, the per-contact wrench columns (list of (w, 1 + nu_dim) arrays in the contact's
        ``x`` coordinates); used by :func:`from_contact_problem`
    """

    def __init__(
        self,
        contacts,
        *,
        torque_scale: float | None = None,
        wrench=None,
        hand: Hand | None = None,
        columns: list | None = None,
        name: str = "",
        description: str = "",
    ):
        contacts = self._contact_list(contacts)
        if not contacts:
            raise ShapeError("contacts", "is empty", "give at least one contact")
        if len(contacts) > GRASP_CONTACTS_MAX:
            raise ShapeError(
                "contacts",
                f"has {len(contacts)} entries (more than {GRASP_CONTACTS_MAX})",
                "give fewer contacts (gaussqp.settings.GRASP_CONTACTS_MAX)",
            )
        checked = [self._check_contact(i, c) for i, c in enumerate(contacts)]
        dims = {np.asarray(c.normal).size for c in checked}
        if len(dims) != 1:
            raise ShapeError("contacts", f"mixes {sorted(dims)}-dimensional contacts", "give all 2D or all 3D contacts")
        self.dimension = dims.pop()
        self.wrench_dimension = 3 if self.dimension == 2 else 6
        self.contacts = tuple(checked)
        self.name, self.description = str(name), str(description)
        if columns is None:
            reach = max(float(np.linalg.norm(c.position)) for c in checked)
            L = reach if torque_scale is None else torque_scale
        else:
            L = 1.0 if torque_scale is None else torque_scale
        L = real_scalar("torque_scale", L)
        if not (np.isfinite(L) and L > 0):
            raise UnknownValueError(
                "torque_scale",
                f"is {L}",
                "give a positive length L (torques are divided by L); "
                "contacts all at the origin need an explicit torque_scale",
            )
        self.torque_scale = float(L)
        self.wrench = None if wrench is None else self._vector("wrench", wrench, self.wrench_dimension)
        # the contacts' tangent bases (the one frame of :func:`tangent_basis`), computed once
        self._tangents = [tangent_basis(c.normal) for c in self.contacts]
        self._columns = self._build_columns(columns)
        self.hand = None if hand is None else self._check_hand(hand)

    # ------------------------------------------------------------------ validation
    @staticmethod
    def _contact_list(contacts) -> list:
        fix = "give a list of gaussqp.grasp.GraspContact objects"
        if isinstance(contacts, (str, bytes, dict, GraspContact)):
            raise ShapeError("contacts", f"is {short_repr(contacts)} (a {type(contacts).__name__}), not a list", fix)
        try:
            return list(contacts)
        except TypeError:
            raise ShapeError(
                "contacts", f"is {short_repr(contacts)} (a {type(contacts).__name__}), not a list", fix
            ) from None

    @staticmethod
    def _check_contact(i: int, c: GraspContact) -> GraspContact:
        f = f"contacts[{i}]"
        if not isinstance(c, GraspContact):
            raise UnknownValueError(f, f"is a {type(c).__name__}", "give gaussqp.grasp.GraspContact objects")
        if c.kind not in KINDS:
            raise UnknownValueError(f"{f}.kind", f"is {c.kind!r}", "use 'frictionless', 'hard' or 'soft'")
        n = real_array(f"{f}.normal", c.normal, 1)
        if n.size not in (2, 3):
            raise ShapeError(f"{f}.normal", f"has {n.size} entries", "give 2 (planar) or 3 (spatial) entries")
        n = _unit(f"{f}.normal", n)
        p = real_array(f"{f}.position", c.position, 1) if c.position is not None else np.zeros(n.size)
        if p.size != n.size:
            raise ShapeError(
                f"{f}.position",
                f"has {p.size} entries for a {n.size}-entry normal",
                "give the position and the normal in the same dimension",
            )
        mu = real_scalar(f"{f}.friction", c.friction)
        mut = real_scalar(f"{f}.torsional_friction", c.torsional_friction)
        for name, v in (("friction", mu), ("torsional_friction", mut)):
            if not np.isfinite(v) or v < 0:
                raise NegativeFrictionError(f"{f}.{name}", f"is {v}", "give a finite coefficient >= 0")
        if c.kind == "soft" and n.size != 3:
            raise UnknownValueError(
                f"{f}.kind",
                "is 'soft' in a planar grasp",
                "a torsional moment about the normal lies out of the plane: use 'hard' in 2D",
            )
        if c.kind == "soft" and not (mu > 0 and mut > 0):
            raise UnknownValueError(
                f"{f}.torsional_friction",
                f"is {mut} with friction {mu}",
                "a soft finger needs friction > 0 and torsional_friction > 0 (else use 'hard')",
            )
        # the kind decides the model: a frictionless point has no friction and only a soft finger has torsional
        # friction, whatever else was given (so a grasp's kinds can be switched without rewriting its coefficients)
        if c.kind == "frictionless":
            mu = 0.0
        if c.kind != "soft":
            mut = 0.0
        return GraspContact(position=p, normal=n, friction=float(mu), kind=c.kind, torsional_friction=float(mut))

    @staticmethod
    def _vector(name: str, v, size: int) -> np.ndarray:
        a = real_array(name, v, 1)
        if a.size != size:
            raise ShapeError(
                name, f"has {a.size} entries", f"give {size}" + (" (force then torque)" if name == "wrench" else "")
            )
        return a

    def _check_hand(self, hand: Hand) -> Hand:
        """The hand's arrays, shapes checked against the grasp (k contact force components × n_q joints)."""
        if not isinstance(hand, Hand):
            raise UnknownValueError("hand", f"is a {type(hand).__name__}", "give a gaussqp.grasp.Hand")
        k = sum(self.sizes())
        J = real_array("hand.jacobian", hand.jacobian, 2)
        if J.ndim != 2 or J.shape[0] != k:
            raise ShapeError(
                "hand.jacobian",
                f"has shape {J.shape}",
                f"give {k} rows (the contacts' force components f_n, f_t[, τ] in grasp order) × n_q joints",
            )
        nq = J.shape[1]
        tl = None if hand.torque_limits is None else self._vector("hand.torque_limits", hand.torque_limits, nq)
        if tl is not None and np.any(tl < 0):
            raise UnknownValueError("hand.torque_limits", "has a negative entry", "give limits |τ_j| <= τ_max,j >= 0")
        Mh = None
        if hand.mass_matrix is not None:
            Mh = real_array("hand.mass_matrix", hand.mass_matrix, 2)
            if Mh.shape != (nq, nq):
                raise ShapeError("hand.mass_matrix", f"has shape {Mh.shape}", f"give the ({nq}, {nq}) joint-space M")
            if relative_asymmetry(Mh) > GRASP_NORMAL_RTOL:
                raise ShapeError("hand.mass_matrix", "is not symmetric", "give a symmetric mass matrix")
        F = None if hand.force is None else self._vector("hand.force", hand.force, nq)
        return Hand(jacobian=J, torque_limits=tl, mass_matrix=Mh, force=F)

    def _build_columns(self, columns) -> list[np.ndarray]:
        w = self.wrench_dimension
        if columns is not None:
            out = []
            for i, (c, C) in enumerate(zip(self.contacts, columns)):
                C = real_array(f"columns[{i}]", C, 2)
                if C.shape != (w, 1 + c.nu_dim):
                    raise ShapeError(f"columns[{i}]", f"has shape {C.shape}", f"give ({w}, {1 + c.nu_dim})")
                out.append(C)
            if len(out) != len(self.contacts):
                raise ShapeError(
                    "columns",
                    f"has {len(out)} entries for {len(self.contacts)} contacts",
                    "give one column block per contact",
                )
            return out
        out = []
        for c, T in zip(self.contacts, self._tangents):
            cols = [np.concatenate([c.normal, _moment(c.position, c.normal)])]
            if c.nu_dim:
                for t in T:
                    cols.append(c.friction * np.concatenate([t, _moment(c.position, t)]))
                if c.kind == "soft":
                    cols.append(c.torsional_friction * np.concatenate([np.zeros(3), c.normal]))
            out.append(np.column_stack(cols))
        return out

    # ------------------------------------------------------------------ the map
    @property
    def m(self) -> int:
        return len(self.contacts)

    def sizes(self) -> list[int]:
        """Entries of each contact's ``x_i = (f_n, ν)``."""
        cached = self.__dict__.get("_sizes_cache")
        if cached is None or cached[0] is not self.contacts:  # computed once per tuple of contacts
            cached = (self.contacts, [1 + c.nu_dim for c in self.contacts])
            self.__dict__["_sizes_cache"] = cached
        return list(cached[1])

    def offsets(self) -> list[slice]:
        """The slice of each contact's ``x_i`` in the stacked ``x``."""
        out, k = [], 0
        for s in self.sizes():
            out.append(slice(k, k + s))
            k += s
        return out

    def physical_sizes(self) -> list[int]:
        """Entries of each contact's physical force ``(f_n, f_t[, τ])`` (the hand Jacobian's rows)."""
        return self.sizes()

    def grasp_map(self, scaled: bool = True) -> np.ndarray:
        """``G`` (w × Σ sizes) taking the stacked ``x`` to the wrench on the object; with ``scaled`` the torque rows are
        divided by the torque scale ``L`` (the scaled wrench of the module docstring)."""
        key = (id(self._columns), self.torque_scale, bool(scaled))
        cached = self.__dict__.get("_map_cache")
        if cached is not None and cached[0] == key:  # the same columns and torque scale: a copy of the map made once
            return cached[1].copy()
        G = np.column_stack(self._columns)
        if scaled:
            G = G.copy()
            G[self.dimension :] /= self.torque_scale
        self.__dict__["_map_cache"] = (key, G)
        return G.copy()

    def scaled_wrench(self, wrench) -> np.ndarray:
        """``(force, torque / L)`` of a wrench given in physical units."""
        w = np.array(wrench, dtype=float)
        w[self.dimension :] /= self.torque_scale
        return w

    def physical_forces(self, x: np.ndarray) -> list[dict]:
        """Per contact, the physical force of the stacked ``x``: ``f_n``, ``f_t`` (tangential, along
        :func:`tangent_basis`), ``force`` (world vector), ``torsion`` (soft contacts)."""
        out = []
        x = np.asarray(x, dtype=float)
        d1 = self.dimension - 1
        for c, s, T in zip(self.contacts, self.offsets(), self._tangents):
            xi = x[s]
            ft = c.friction * xi[1 : 1 + d1] if s.stop - s.start > 1 else np.zeros(d1)
            out.append(
                {
                    "normal": float(xi[0]),
                    "tangential": ft,
                    "force": xi[0] * c.normal + T.T @ ft,
                    "torsion": float(c.torsional_friction * xi[-1]) if c.kind == "soft" else 0.0,
                }
            )
        return out

    def cone_violation(self, x: np.ndarray) -> np.ndarray:
        """Per contact, ``max(‖ν‖ − f_n, −f_n, 0)`` (0 inside the exact cone)."""
        out = []
        for s in self.offsets():
            xi = np.asarray(x[s], dtype=float)
            out.append(max(float(np.linalg.norm(xi[1:])) - xi[0], -xi[0], 0.0))
        return np.array(out)

    # ------------------------------------------------------------------ polygons of the cones
    def cone_generators(self, i: int, facets: int, kind: str) -> np.ndarray:
        """Generators (rows, in ``x_i`` coordinates with ``f_n = 1``) of a polyhedral cone approximating contact
        ``i``'s exact cone: ``kind`` "inner" (inscribed: every generator on the cone's boundary, so the polyhedral
        cone lies inside) or "outer" (circumscribed: the inner generators scaled by ``1/r``, ``r`` the inradius of
        their section, so the polyhedral cone contains the exact one). A planar hard finger's cone is exact with its
        two edges; a spatial hard finger's section is the regular ``facets``-gon (``r = cos(π/facets)``); a soft
        finger's 3D section is the convex hull of ``facets`` points of a Fibonacci sphere (``r`` from the hull)."""
        if kind not in ("inner", "outer"):
            raise UnknownValueError("kind", f"is {kind!r}", "use 'inner' or 'outer'")
        c = self.contacts[i]
        k = c.nu_dim
        if k == 0:
            return np.array([[1.0]])
        if k == 1:
            return np.array([[1.0, 1.0], [1.0, -1.0]])
        if (
            not isinstance(facets, (int, np.integer))
            or isinstance(facets, bool)
            or facets < (3 if k == 2 else 6)
            or facets > GRASP_FACETS_MAX
        ):
            raise UnknownValueError(
                "facets",
                f"is {facets!r}",
                f"give an integer from {3 if k == 2 else 6} to {GRASP_FACETS_MAX} (polygon sides / sphere points)",
            )
        if k == 2:
            th = 2 * np.pi * np.arange(facets) / facets
            ring = np.column_stack([np.cos(th), np.sin(th)])
            r = float(np.cos(np.pi / facets))
        else:
            ring = _fibonacci_sphere(int(facets))
            r = _inradius(ring)
        if kind == "outer":
            ring = ring / r
        return np.column_stack([np.ones(len(ring)), ring])

    def primitive_wrenches(self, facets: int, kind: str, scaled: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """All contacts' polyhedral generators mapped to wrenches: (W (w × N), owner (N,) contact index)."""
        G = self.grasp_map(scaled)
        cols, owner = [], []
        for i, s in enumerate(self.offsets()):
            gen = self.cone_generators(i, facets, kind)
            cols.append(G[:, s] @ gen.T)
            owner += [i] * len(gen)
        return np.column_stack(cols), np.array(owner)

    def __repr__(self) -> str:
        kinds = ", ".join(sorted({c.kind for c in self.contacts}))
        return (
            f"Grasp({self.name!r}, {self.m} contacts ({kinds}), {self.dimension}D, L = {self.torque_scale:g}"
            + (", wrench" if self.wrench is not None else "")
            + (", hand" if self.hand is not None else "")
            + ")"
        )


def _fibonacci_sphere(k: int) -> np.ndarray:
    """``k`` nearly uniform points on the unit sphere (golden-angle spiral)."""
    i = np.arange(k) + 0.5
    z = 1 - 2 * i / k
    rho = np.sqrt(1 - z * z)
    phi = np.pi * (1 + 5**0.5) * i
    return np.column_stack([rho * np.cos(phi), rho * np.sin(phi), z])


def _inradius(points: np.ndarray) -> float:
    """Distance from the origin to the nearest facet of the convex hull of ``points`` (which contains the origin)."""
    from scipy.spatial import ConvexHull

    hull = ConvexHull(points)
    return float(np.min(-hull.equations[:, -1]))


def check_grasp(grasp, field: str = "grasp") -> Grasp:
    """``grasp`` itself when it is a :class:`Grasp`, else a typed error.

    Parameters
    ----------
    grasp : object
        The argument to check.
    field : str
        Its name in the error message.

    Returns
    -------
    Grasp

    Raises
    ------
    UnknownValueError
        When ``grasp`` is not a :class:`Grasp`.
    """
    if not isinstance(grasp, Grasp):
        raise UnknownValueError(
            field,
            f"is {short_repr(grasp)} (a {type(grasp).__name__})",
            "give a gaussqp.grasp.Grasp (gaussqp.grasp.load(path), gaussqp.grasp.Grasp(contacts))",
        )
    return grasp


def from_contact_problem(
    problem, object_coordinates=None, *, torque_scale: float | None = None, name: str | None = None
) -> Grasp:
    """The grasp of a :class:`~gaussqp.ContactProblem` whose object has the coordinates ``object_coordinates``
    (default: all of them; 3 in the plane ``(x, y, θ)``, 6 in space ``(translation, rotation)``).

    The grasp map is ``G = Jᵀ`` restricted to the object's coordinates (the columns of contact i: its normal row,
    and ``μ_i`` times its tangent rows: ``x_i = (λ_n, λ_t/μ_i)``); the external wrench is ``−F`` on those coordinates
    (equilibrium ``M a + F = Jᵀλ`` at ``a = 0``). The torque scale defaults to the object's radius of gyration
    ``sqrt(mean M_rot / mean M_trans)`` from the problem's mass matrix. Contacts are ``hard`` with ``μ_i``
    (``frictionless`` when μ = 0 or without tangent rows); told sliding or bilateral contacts are refused."""
    from ..linalg.dense import as_dense

    n = check_problem(problem, local=False).n
    idx = np.arange(n) if object_coordinates is None else np.asarray(object_coordinates, dtype=int).ravel()
    if idx.size not in (3, 6):
        raise ShapeError(
            "object_coordinates",
            f"has {idx.size} coordinates",
            "give the object's 3 planar (x, y, θ) or 6 spatial (translation, rotation) coordinates",
        )
    if np.any(idx < 0) or np.any(idx >= n) or len(set(idx.tolist())) != idx.size:
        raise ShapeError(
            "object_coordinates",
            "holds repeated indices or indices outside the problem",
            f"give distinct indices in 0..{n - 1}",
        )
    dim = 2 if idx.size == 3 else 3
    if problem.dimension != dim:
        raise ShapeError(
            "problem.dimension", f"is {problem.dimension} for a {dim}D object", f"give a problem with dimension {dim}"
        )
    Jn, Jt = as_dense(problem.J_n)[:, idx], as_dense(problem.J_t)[:, idx]
    d1 = dim - 1
    contacts, columns = [], []
    for i in range(problem.m):
        if problem.types[i] != "unilateral" or problem.modes[i] == "sliding":
            raise InputError(
                f"contacts[{i}]",
                f"is {problem.types[i]} {problem.modes[i]}",
                "a grasp has unilateral contacts that stick or slide at will (sticking, coulomb or frictionless)",
            )
        mu = float(problem.friction[i])
        fr = bool(problem.has_tangent[i]) and mu > 0 and problem.modes[i] != "frictionless"
        cols = [Jn[i]] + ([mu * Jt[i * d1 + k] for k in range(d1)] if fr else [])
        contacts.append(
            GraspContact(
                position=None, normal=np.eye(dim)[0], friction=mu if fr else 0.0, kind="hard" if fr else "frictionless"
            )
        )
        columns.append(np.column_stack(cols))
    if torque_scale is None:
        M = as_dense(problem.M)[np.ix_(idx, idx)]
        dm = np.diag(M)
        trans, rot = float(np.mean(dm[:dim])), float(np.mean(dm[dim:]))
        torque_scale = float(np.sqrt(rot / trans)) if trans > 0 and rot > 0 else 1.0
    F = np.asarray(problem.F, dtype=float)[idx]
    return Grasp(
        contacts,
        torque_scale=torque_scale,
        wrench=-F,
        columns=columns,
        name=problem.name if name is None else name,
        description=f"from contact problem {problem.name!r}",
    )


__all__ = ["Grasp", "GraspCheck", "GraspContact", "Hand", "KINDS", "from_contact_problem", "tangent_basis"]
