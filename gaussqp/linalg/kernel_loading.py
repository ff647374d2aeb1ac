"""Loading a module of compiled kernels (optional extra ``fast``: numba) or saying why the NumPy code runs instead: the
one loader of :mod:`gaussqp.friction.compiled` and :func:`gaussqp.linalg.lemke.compiled_pivots`. Imports nothing of
numba itself."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Callable


def load_kernels(importer: Callable[[], ModuleType], instead: str, switch: str) -> tuple[ModuleType | None, str | None]:
    """``importer()`` (the kernels' module), checked: ``(module, None)``, or ``(None, why)`` when numba is not installed
    (no warning), cannot be imported (installed but broken: a missing llvmlite library raises ``OSError``) or rounds its
    BLAS products otherwise than NumPy (:func:`gaussqp.linalg.blas_probe.disagreement`: the kernels would not be bit
    for bit); the last two warn once, naming what runs ``instead`` and the setting ``switch`` that turns the kernels off.

    Parameters
    ----------
    importer : callable
        imports and returns the kernels' module
    instead : str
        what runs without them, e.g. ``"the NumPy kernels of the Newton method run"``
    switch : str
        the setting that turns them off, e.g. ``"gaussqp.settings.COULOMB_NN_COMPILED"``

    Returns
    -------
    tuple
        the module or None, and None or the reason.
    """
    try:
        module = importer()
    except ImportError as e:  # numba is not installed
        return None, f"{type(e).__name__}: {e}"
    except Exception as e:  # numba installed but broken: the NumPy code
        why = f"{type(e).__name__}: {e}"
        warnings.warn(
            f"gaussqp: numba is installed but cannot be imported ({why}); {instead} instead (fix the numba "
            f"installation, or set {switch} = False)",
            RuntimeWarning,
            stacklevel=4,
        )
        return None, why
    from .blas_probe import disagreement

    differ = disagreement()
    if differ is not None:  # numba's BLAS (SciPy's) rounds otherwise than NumPy's: the kernels would not be bit for bit
        why = f"numba's BLAS products differ from NumPy's ({differ})"
        warnings.warn(f"gaussqp: {why}; {instead} instead", RuntimeWarning, stacklevel=4)
        return None, why
    return module, None


__all__ = ["load_kernels"]
