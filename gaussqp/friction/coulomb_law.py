"""Coulomb's law with the stick/slip mode left to the solver, independent of any solver.

Contact blocks are ordered (normal, t1[, t2]) as in FCLIB (Acary, Brémond, Huber 2018, §2). With the
Coulomb cone ``K_μ = {x = (x_n, x_t): ‖x_t‖ <= μ x_n}`` and its dual ``K_μ* = K_{1/μ}``, the law in
De Saxcé's form is the cone complementarity

    K_μ ∋ r  ⟂  u + μ‖u_t‖ e_n ∈ K_μ*,

whose **natural map** ``φ(r, u) = r − P_K(r − (u + μ‖u_t‖ e_n))`` vanishes exactly at a solution
(Acary, Brémond, Huber 2018, eq. (12); Siconos's ``fc3d_compute_error`` uses the same map). This module
gives the projection onto ``K_μ`` (closed form, any d >= 2: in 2D the cone is a wedge and ``‖x_t‖ = |x_t|``),
the De Saxcé shift, the residual per contact and stacked with its three normalizations, its generalized
Jacobian (for the Newton polish) and the mode found at each contact with its distance to a mode change.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from ..errors import ShapeError
from ..settings import COULOMB_MODE_RTOL, SCALE_FLOOR
from .compiled import kernels, loaded, plain

SEPARATED, STICKING, SLIDING = "separated", "sticking", "sliding"


def _blocks(x: np.ndarray, d: int) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.size % d:
        raise ValueError(f"a stacked vector of size {x.size} is not made of blocks of dimension {d}")
    return x.reshape(-1, d)


def _loaded_kernels(dimension) -> ModuleType | None:
    """The compiled kernels when a route has loaded them already (:func:`gaussqp.friction.compiled.loaded`: these
    maps alone are too cheap to pay their load) and ``dimension`` is an int of 2 or 3 (a contact's sums then run in
    order in NumPy too), else None."""
    if isinstance(dimension, (int, np.integer)) and 2 <= dimension <= 3 and loaded():
        return kernels()
    return None


def _kernel_call(dimension, mu, *arrays) -> tuple[ModuleType, tuple] | None:
    """``(kernels, arguments)`` of a compiled map of ``arrays`` (each flattened, of m·d entries) with one μ per
    contact: ``(arrays..., μ, d)`` as the kernels take them, when the kernels are loaded already
    (:func:`_loaded_kernels`) and every size matches; else None (the NumPy code runs, and broadcasts or raises)."""
    fast = _loaded_kernels(dimension)
    if fast is None:
        return None
    mu_ = np.asarray(mu, dtype=float).reshape(-1)
    flats = [np.asarray(v, dtype=float).reshape(-1) for v in arrays]
    if mu_.size == 0 or any(f.size != mu_.size * dimension for f in flats):
        return None
    return fast, (*(plain(f) for f in flats), plain(mu_), int(dimension))


def project_cone(x: np.ndarray, mu: np.ndarray, dimension: int) -> np.ndarray:
    """Euclidean projection of the stacked blocks ``x`` onto ``K_μ = {‖x_t‖ <= μ x_n}`` block by block
    (:func:`project_cone_numpy`'s formulas).

    With one μ per block and the compiled kernels loaded already (:func:`_loaded_kernels`) the projection is
    :func:`gaussqp.friction.compiled_kernels.project_cone_blocks`: the same operations in the same order, the same
    numbers bit for bit (``tests/friction/test_compiled_kernels.py``); else :func:`project_cone_numpy`."""
    call = _kernel_call(dimension, mu, x)
    if call is not None:
        return call[0].project_cone_blocks(*call[1])
    return project_cone_numpy(x, mu, dimension)


def project_cone_numpy(x: np.ndarray, mu: np.ndarray, dimension: int) -> np.ndarray:
    """:func:`project_cone` in NumPy (the reference of the compiled kernel), ``mu`` one per block or broadcast.

    Closed form: ``x`` if ``‖x_t‖ <= μ x_n``; ``0`` if ``μ‖x_t‖ <= −x_n`` (the polar cone); otherwise
    ``α (1, μ x_t/‖x_t‖)`` with ``α = (x_n + μ‖x_t‖)/(1 + μ²)``. ``μ = 0`` gives ``(max(x_n, 0), 0)``.
    The three pieces are selected with ``np.where`` (no boolean gathers and scatters: the Newton method of
    :mod:`gaussqp.friction.nonsmooth_newton` projects a few times per iteration on small problems).
    """
    X = _blocks(x, dimension)
    mu = np.asarray(mu, dtype=float).reshape(-1)
    xn, xt = X[:, 0], X[:, 1:]
    nt = np.sqrt(np.add.reduce(xt * xt, axis=1))
    inside = (nt <= mu * xn) & (xn >= 0)  # xn >= 0: with μ = 0, (x_n < 0, 0) is not in the cone
    polar = mu * nt <= -xn
    side = ~inside & ~polar
    alpha = (xn + mu * nt) / (1.0 + mu * mu)
    safe = np.where(nt > 0, nt, 1.0)
    out = np.empty_like(X)
    out[:, 0] = np.where(inside, xn, np.where(side, alpha, 0.0))
    out[:, 1:] = np.where(inside[:, None], xt, np.where(side[:, None], (mu * alpha / safe)[:, None] * xt, 0.0))
    return out.reshape(-1)


def project_cone_jacobian(x: np.ndarray, mu: np.ndarray, dimension: int) -> np.ndarray:
    """A generalized (Clarke) Jacobian of :func:`project_cone` at ``x``: blocks (m, d, d).

    Identity inside the cone, zero in the polar cone, and on the side piece (``t = ‖x_t‖``, ``e = x_t/t``,
    ``α`` as in :func:`project_cone`): ``∂α = (e_n + μ e)/(1+μ²)`` and
    ``∂(μ α e) = μ e ∂α + (μ α / t)(I − e eᵀ)`` on the tangent columns. On the boundaries the piece of the
    interior side is chosen (any element of the B-subdifferential serves a semismooth Newton method).
    """
    X = _blocks(x, dimension)
    d = dimension
    mu = np.asarray(mu, dtype=float).reshape(-1)
    m = X.shape[0]
    Jac = np.zeros((m, d, d))
    xn, xt = X[:, 0], X[:, 1:]
    nt = np.linalg.norm(xt, axis=1)
    for j in range(m):
        if nt[j] <= mu[j] * xn[j] and xn[j] >= 0:
            Jac[j] = np.eye(d)
        elif mu[j] * nt[j] <= -xn[j]:
            continue
        elif nt[j] <= SCALE_FLOOR * max(abs(xn[j]), 1.0):  # μ = 0 side piece at x_t = 0: (max(x_n, 0), 0)
            Jac[j, 0, 0] = 1.0
        else:
            e = xt[j] / nt[j]
            c = 1.0 / (1.0 + mu[j] ** 2)
            alpha = (xn[j] + mu[j] * nt[j]) * c
            dalpha = np.concatenate([[c], mu[j] * c * e])
            Jac[j, 0] = dalpha
            Jac[j, 1:] = mu[j] * np.outer(e, dalpha)
            Jac[j, 1:, 1:] += (mu[j] * alpha / nt[j]) * (np.eye(d - 1) - np.outer(e, e))
    return Jac


def de_saxce_shift(u: np.ndarray, mu: np.ndarray, dimension: int) -> np.ndarray:
    """``u + μ‖u_t‖ e_n`` block by block (De Saxcé's modified velocity)."""
    U = _blocks(u, dimension).copy()
    U[:, 0] += np.asarray(mu, dtype=float).reshape(-1) * np.linalg.norm(U[:, 1:], axis=1)
    return U.reshape(-1)


def natural_map(r: np.ndarray, u: np.ndarray, mu: np.ndarray, dimension: int, rho=1.0) -> np.ndarray:
    """``φ = r − P_K(r − ρ(u + μ‖u_t‖ e_n))`` stacked (``ρ > 0`` a scalar or one per contact; ρ = 1 is the
    reported residual's map, another ρ has the same zeros).

    With ρ = 1 and the compiled kernels loaded already (:func:`gaussqp.friction.compiled.loaded`: a route loaded them;
    this map alone is too cheap to pay their load) the map is computed by
    :func:`gaussqp.friction.compiled_kernels.natural_map_unit`: the same operations in the same order, the same
    numbers bit for bit (``tests/friction/test_compiled_kernels.py``); else by :func:`natural_map_numpy`."""
    if isinstance(rho, (int, float)) and rho == 1.0 and isinstance(dimension, (int, np.integer)) and loaded():
        fast = kernels()  # loaded by a route already: this map alone never pays numba's load
        mu_ = np.asarray(mu, dtype=float).reshape(-1)
        if fast is not None and np.size(r) == np.size(u) == mu_.size * dimension > 0:
            return fast.natural_map_unit(plain(np.ravel(r)), plain(np.ravel(u)), plain(mu_), int(dimension))
    return natural_map_numpy(r, u, mu, dimension, rho)


def natural_map_numpy(r: np.ndarray, u: np.ndarray, mu: np.ndarray, dimension: int, rho=1.0) -> np.ndarray:
    """:func:`natural_map` in NumPy, whatever ρ: the reference of the compiled kernel
    (:func:`gaussqp.friction.compiled_kernels.natural_map_unit`).

    Parameters
    ----------
    r, u : (m·d,) arrays
        the reaction and the velocity, contact blocks (normal, tangents)
    mu : (m,) array
        the friction coefficients
    dimension : int
        d, the size of a contact block
    rho : float or (m,) array
        ρ > 0 (Acary, Brémond, Huber 2018, eq. (12))

    Returns
    -------
    numpy.ndarray
        ``φ = r − P_K(r − ρ(u + μ‖u_t‖ e_n))`` stacked (m·d,).
    """
    R = _blocks(r, dimension)
    rho_b = np.broadcast_to(np.asarray(rho, dtype=float), (R.shape[0],))
    z = R - rho_b[:, None] * _blocks(de_saxce_shift(u, mu, dimension), dimension)
    return (R - _blocks(project_cone_numpy(z.reshape(-1), mu, dimension), dimension)).reshape(-1)


@dataclass(frozen=True)
class NaturalMapResidual:
    """The natural-map residual of ``(r, u)``, recomputed by us.

    ``absolute`` is ``‖φ‖₂`` stacked; ``relative`` is ``‖φ‖ / ‖q‖`` (the data's own free velocity: for a
    local problem ``q``, for an acceleration-level problem ``q = J M⁻¹(−F) + drift``, the same quantity);
    ``siconos`` is ``‖φ‖ / max(‖q‖, ‖r‖, ‖u‖)`` (Siconos's ``fc3d_compute_error`` normalization);
    ``per_contact`` the norm of each block. A zero ``‖q‖`` divides by 1 (the residual is then absolute).
    """

    absolute: float
    relative: float
    siconos: float
    per_contact: np.ndarray
    q_norm: float
    #: ``‖Δu‖`` stacked (:func:`velocity_change`) and the same relative to ‖q‖ (F9: the largest contact's, in the law's
    #: own variables λ/ls, u/us, as F9's contact residual): the change of the velocity under which ``r − φ`` satisfies
    #: the law exactly
    velocity_change: float = 0.0
    velocity_change_relative: float = 0.0

    def as_dict(self) -> dict:
        return {
            "absolute": float(self.absolute),
            "relative": float(self.relative),
            "siconos": float(self.siconos),
            "velocity_change": float(self.velocity_change),
            "velocity_change_relative": float(self.velocity_change_relative),
            "normalized_by": "relative: ||q||; siconos: max(||q||, ||r||, ||u||)",
        }


def velocity_change(phi: np.ndarray, u: np.ndarray, mu: np.ndarray, dimension: int) -> np.ndarray:
    """Each contact's ``‖Δu_j‖``: the change of its velocity under which ``r̃ = r − φ`` and ``ũ = u + Δu`` satisfy
    Coulomb's law exactly, ``φ = φ_1(r, u)`` the natural map (ρ = 1).

    With ``s = u + μ‖u_t‖e_n`` and ``w = r − s``, ``r̃ = P_K(w) = r − φ`` lies in the cone ``K_μ`` and ``s̃ = r̃ − w =
    s − φ`` in its dual, orthogonal to it (the projection's characterization), so ``(r̃, s̃)`` is exact in De Saxcé's
    form (Acary, Brémond, Huber 2018, eq. (7)); ``s̃ = ũ + μ‖ũ_t‖e_n`` for ``ũ_t = u_t − φ_t``,
    ``ũ_n = u_n − φ_n + μ(‖u_t‖ − ‖u_t − φ_t‖)``. The normal change carries μ: on a contact of μ = 1e10 a natural
    map of 1e-9 (a point falling through the floor at 9.81 m/s²) is an exact answer only for a velocity changed by
    ~10, which the residual ``‖φ‖`` alone does not say.

    Parameters
    ----------
    phi, u : (m·d,) arrays
        the natural map at the answer and its velocity, contact blocks (normal, tangents)
    mu : (m,) array
    dimension : int

    Returns
    -------
    numpy.ndarray
        (m,) the 2-norm of each contact's ``Δu``.

    With one μ per contact and the compiled kernels loaded already (:func:`_loaded_kernels`) the change is
    :func:`gaussqp.friction.compiled_kernels.velocity_changes`, the same numbers bit for bit; else
    :func:`velocity_change_numpy`.
    """
    call = _kernel_call(dimension, mu, phi, u)
    if call is not None:
        return call[0].velocity_changes(*call[1])
    return velocity_change_numpy(phi, u, mu, dimension)


def velocity_change_numpy(phi: np.ndarray, u: np.ndarray, mu: np.ndarray, dimension: int) -> np.ndarray:
    """:func:`velocity_change` in NumPy (the reference of the compiled kernel), ``mu`` one per contact or broadcast."""
    P, U = _blocks(phi, dimension), _blocks(u, dimension)
    mu = np.asarray(mu, dtype=float).reshape(-1)
    ut, pt = U[:, 1:], P[:, 1:]
    dn = -P[:, 0] + mu * (np.linalg.norm(ut, axis=1) - np.linalg.norm(ut - pt, axis=1))
    return np.sqrt(dn * dn + np.einsum("ij,ij->i", pt, pt))


def natural_map_residual(
    r: np.ndarray, u: np.ndarray, q: np.ndarray, mu: np.ndarray, dimension: int
) -> NaturalMapResidual:
    """:class:`NaturalMapResidual` of the reaction ``r`` and velocity ``u`` of a problem with free velocity ``q``, with
    the velocity change that makes ``r − φ`` exact (:func:`velocity_change`).

    With one μ per contact, float64 (or integer) data summed in their stacked order (:func:`_sums_in_order`) and the
    compiled kernels loaded already (:func:`_loaded_kernels`) the map and its norms are
    :func:`gaussqp.friction.compiled_kernels.natural_map_measures`: the same operations in the same order, the same
    numbers bit for bit (``tests/friction/test_compiled_kernels.py``).

    Source: Acary, Brémond, Huber (2018), eq. (12) (natural map), §5.1 (Siconos's normalization).
    """
    call = _kernel_call(dimension, mu, r, u, q) if all(_sums_in_order(v) for v in (r, u, q)) else None
    if call is not None:
        _, a, qn, rn, un, per, dv, _ = call[0].natural_map_measures(*call[1])
        return _residual(float(a), float(qn), max(float(qn), float(rn), float(un)), per, float(dv))
    flat = natural_map(r, u, mu, dimension)
    phi = _blocks(flat, dimension)
    a = float(np.linalg.norm(phi))
    qn = float(np.linalg.norm(q))
    big = max(qn, float(np.linalg.norm(r)), float(np.linalg.norm(u)))
    dv = float(np.linalg.norm(velocity_change_numpy(flat, u, mu, dimension)))
    return _residual(a, qn, big, np.linalg.norm(phi, axis=1), dv)


def natural_map_norms(
    r: np.ndarray, u: np.ndarray, mu: np.ndarray, dimension: int
) -> tuple[float, float, float, np.ndarray]:
    """``(‖φ‖, ‖r‖, ‖u‖, each contact's ‖Δu_j‖)`` of the natural map ``φ = φ_1(r, u)`` (:func:`natural_map`, ρ = 1)
    and of the velocity change that makes ``r − φ`` exact (:func:`velocity_change`): what
    :func:`natural_map_residual` measures, for a caller that divides by scales of its own (F9's report, whose
    contacts have their own scales).

    Compiled as :func:`natural_map_residual` is (one call of
    :func:`gaussqp.friction.compiled_kernels.natural_map_measures`, the same numbers bit for bit), else in NumPy.

    Parameters
    ----------
    r, u : (m·d,) arrays
        the reaction and the velocity, contact blocks (normal, tangents)
    mu : (m,) array
    dimension : int

    Returns
    -------
    tuple
        ``‖φ‖``, ``‖r‖``, ``‖u‖`` (floats) and the (m,) array of each contact's ``‖Δu_j‖``.

    Source: Acary, Brémond, Huber (2018), eq. (12) (natural map).
    """
    call = _kernel_call(dimension, mu, r, u) if all(_sums_in_order(v) for v in (r, u)) else None
    if call is not None:
        fast, (rr, uu, mm, d) = call
        _, a, _, rn, un, _, _, dv = fast.natural_map_measures(rr, uu, _NO_Q, mm, d)
        return float(a), float(rn), float(un), dv
    flat = natural_map(r, u, mu, dimension)
    norms = (float(np.linalg.norm(flat)), float(np.linalg.norm(r)), float(np.linalg.norm(u)))
    return (*norms, velocity_change_numpy(flat, u, mu, dimension))


#: the empty free velocity :func:`natural_map_norms` gives the kernel (no ‖q‖ is measured)
_NO_Q = np.zeros(0)


def _sums_in_order(v) -> bool:
    """Whether NumPy's ``norm`` of ``v`` sums float64 entries in the stacked order the kernel sums them: a 1-D or
    C-ordered array of float64 or integers (a list too). A Fortran-ordered or transposed block array is summed in its
    memory order, a float32 one in float32: those keep the NumPy code."""
    a = np.asarray(v)
    return (a.dtype == np.float64 or a.dtype.kind in "iub") and (a.ndim <= 1 or a.flags.c_contiguous)


def _residual(a: float, qn: float, big: float, per_contact: np.ndarray, dv: float) -> NaturalMapResidual:
    """The :class:`NaturalMapResidual` of ``‖φ‖ = a``, ``‖q‖ = qn``, ``max(‖q‖, ‖r‖, ‖u‖) = big``, each contact's
    ``‖φ_j‖`` and ``‖Δu‖ = dv``."""
    return NaturalMapResidual(
        absolute=a,
        relative=a / (qn if qn > 0 else 1.0),
        siconos=a / (big if big > 0 else 1.0),
        per_contact=per_contact,
        q_norm=qn,
        velocity_change=dv,
        velocity_change_relative=dv / (qn if qn > 0 else 1.0),
    )


def _per_contact(scale, m: int, name: str) -> list:
    """``scale`` (one number, or one per contact) as a list of m floats; a ShapeError names ``name`` otherwise."""
    a = np.asarray(scale, dtype=float)
    if a.ndim == 0:
        return [float(a)] * m
    if a.shape != (m,):
        raise ShapeError(name, f"has shape {a.shape}", f"give one number, or one per contact: shape ({m},)")
    return a.tolist()


@dataclass(frozen=True)
class ContactMode:
    """The mode found at one contact and its distance to a mode change, all on the data's scale.

    ``mode`` is ``separated`` (``r = 0``, ``u_n > 0``), ``sticking`` (``u = 0``, ``r`` in the cone) or
    ``sliding`` (``r`` on the cone's boundary, ``u_t ≠ 0``, ``direction = u_t/‖u_t‖``, the reaction opposing
    it). ``margin`` is how far the data are from the other modes: for separated ``u_n`` (its gap), for
    sticking ``min(r_n, μ r_n − ‖r_t‖)`` (the cone slack, scaled by the reaction scale), for sliding ``‖u_t‖``;
    ``relative_margin`` divides it by the velocity or reaction scale given to :func:`contact_modes`.
    The mixed route (F9) also reports ``bilateral`` for a bilateral row (it holds; margins 0) and, for a contact
    told to slide, ``sliding`` with the told direction and its normal force as the margin.
    """

    mode: str
    margin: float
    relative_margin: float
    direction: tuple | None = None

    def as_dict(self) -> dict:
        return {
            "mode": self.mode,
            "margin": float(self.margin),
            "relative_margin": float(self.relative_margin),
            "direction": None if self.direction is None else [float(x) for x in self.direction],
        }


def contact_modes(
    r: np.ndarray,
    u: np.ndarray,
    mu: np.ndarray,
    dimension: int,
    *,
    velocity_scale: float | np.ndarray,
    reaction_scale: float | np.ndarray,
) -> list[ContactMode]:
    """The mode of each contact (:class:`ContactMode`), decided at the given scales.

    A contact is separated when ``r_n <= COULOMB_MODE_RTOL · reaction_scale``; otherwise sliding when
    ``‖u_t‖ > COULOMB_MODE_RTOL · velocity_scale``, else sticking. The scales are the data's (``‖q‖`` and the
    reaction scale ``‖q‖ / ‖W‖`` for a local problem), never the answer's own size: one for every contact, or one
    per contact (arrays of the contacts' count: a mixed problem's contact scales).
    """
    R, U = _blocks(r, dimension), _blocks(u, dimension)
    mu = np.asarray(mu, dtype=float).reshape(-1)
    m = R.shape[0]
    vss, rss = (
        _per_contact(x, m, name) for x, name in ((velocity_scale, "velocity_scale"), (reaction_scale, "reaction_scale"))
    )
    # ‖u_t‖ and ‖r_t‖ of every contact at once: numpy.linalg.norm(·, axis=1)'s sums without its Python checks
    Ut, Rt = U[:, 1:], R[:, 1:]
    speeds = np.sqrt(np.add.reduce(Ut * Ut, axis=1)).tolist()
    frictions = np.sqrt(np.add.reduce(Rt * Rt, axis=1)).tolist()
    out = []
    for j, (rn, un, nut, nrt, muj, vs, rs) in enumerate(
        zip(R[:, 0].tolist(), U[:, 0].tolist(), speeds, frictions, mu.tolist(), vss, rss)
    ):
        vs = vs if vs > 0 else 1.0
        rs = rs if rs > 0 else 1.0
        if rn <= COULOMB_MODE_RTOL * rs:
            out.append(ContactMode(SEPARATED, un, un / vs))
        elif nut > COULOMB_MODE_RTOL * vs:  # it slides (with μ = 0 the friction force is zero, the slip is real)
            out.append(ContactMode(SLIDING, nut, nut / vs, tuple((U[j, 1:] / nut).tolist())))
        else:
            slack = min(rn, muj * rn - nrt) if muj > 0 else rn
            out.append(ContactMode(STICKING, slack, slack / rs))
    return out


__all__ = [
    "SEPARATED",
    "STICKING",
    "SLIDING",
    "ContactMode",
    "NaturalMapResidual",
    "contact_modes",
    "de_saxce_shift",
    "natural_map",
    "natural_map_norms",
    "natural_map_residual",
    "project_cone",
    "project_cone_jacobian",
    "project_cone_numpy",
    "velocity_change",
    "velocity_change_numpy",
]
