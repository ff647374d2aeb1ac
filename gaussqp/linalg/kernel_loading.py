"""Loading a module of compiled kernels (optional extra ``fast``: numba) or saying why the NumPy code runs instead: the
one loader of :mod:`gaussqp.friction.compiled` and :func:`gaussqp.linalg.lemke.compiled_pivots`. Imports nothing of
numba itself."""

from __future__ import annotations

import threading
import warnings
from types import ModuleType
from typing import Callable

#: one load at a time (threads asking at once would otherwise each import and probe)
_LOCK = threading.Lock()
#: whether a kernel module has been loaded in this process (numba is running)
_LOADED = [False]


def any_kernels_loaded() -> bool:
    """Whether this process has loaded a module of compiled kernels already (numba runs: another module's load is cheap).

    Returns
    -------
    bool
    """
    return _LOADED[0]


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
    with _LOCK:
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
        try:
            from .blas_probe import disagreement

            differ = disagreement()
        except Exception as e:  # the probe itself failed to compile or run: nothing is known of the bits
            differ = f"the probe failed: {type(e).__name__}: {e}"
        if (
            differ is not None
        ):  # numba's BLAS (SciPy's) rounds otherwise than NumPy's: the kernels would not be bit for bit
            why = f"numba's BLAS products differ from NumPy's ({differ})"
            warnings.warn(f"gaussqp: {why}; {instead} instead", RuntimeWarning, stacklevel=4)
            return None, why
        _LOADED[0] = True
        return module, None


__all__ = ["any_kernels_loaded", "load_kernels"]
