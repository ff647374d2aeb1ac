"""Loading a module of compiled kernels (optional extra ``fast``: numba) or saying why the NumPy code runs instead: the
one loader of :mod:`gaussqp.friction.compiled`, :func:`gaussqp.linalg.lemke.compiled_pivots`,
:mod:`gaussqp.certificates.compiled` and :mod:`gaussqp.model.scales` (the last two through :class:`KernelModule`), and
the rule that decides when a module is worth loading (:class:`LoadRule`). Imports nothing of numba itself."""

from __future__ import annotations

import os
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


class LoadRule:
    """When a module of compiled kernels is worth its load (~0.4–0.6 s CPU from numba's on-disk cache), a rent-or-buy
    rule: once this process has spent the seconds of the setting ``setting`` (read at each call) in the NumPy code the
    kernels would replace (counted by its callers, :meth:`spent_in_numpy`), when numba runs already (another kernel
    module loaded: this one then loads in a few hundredths of a second), when many calls are announced
    (:meth:`expect_many_calls`: a :class:`gaussqp.Solver`'s rollout, a study), or when it is loaded already. A one-shot
    solve never pays the load; a loop pays it once its NumPy code has cost about as much, which bounds the time lost
    either way to about that of the load. It decides a speed, never an answer: the kernels give the NumPy code's
    numbers bit for bit.

    Parameters
    ----------
    setting : str
        the name of the :mod:`gaussqp.settings` attribute holding the seconds
    """

    def __init__(self, setting: str):
        self.setting = setting
        #: wall seconds spent in the NumPy code the kernels could have run
        self.numpy_seconds = 0.0
        #: set by :meth:`expect_many_calls`
        self.many_calls = False

    def spent_in_numpy(self, seconds: float) -> None:
        """Count ``seconds`` of wall time spent in the NumPy code the kernels would replace."""
        self.numpy_seconds += seconds

    def expect_many_calls(self) -> None:
        """Announce a loop: the kernels load at their next use."""
        self.many_calls = True

    def worth(self, loaded: bool) -> bool:
        """Whether the kernels may be loaded now (``loaded``: this module's kernels are loaded, or were tried)."""
        import gaussqp.settings as settings  # the module: the setting is read at each call

        return (
            loaded
            or any_kernels_loaded()
            or self.many_calls
            or self.numpy_seconds >= float(getattr(settings, self.setting))
        )


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


class KernelModule:
    """One optional module of compiled kernels, switched by a setting, imported at its first :meth:`load` (or found
    unavailable, once) by :func:`load_kernels`.

    Parameters
    ----------
    importer : callable
        imports and returns the kernels' module
    instead : str
        what runs without them
    setting : str
        the name of the :mod:`gaussqp.settings` switch that turns them off (read at each :meth:`load`; the environment
        variable ``GAUSSQP_COMPILED=0`` turns them off too)
    """

    def __init__(self, importer: Callable[[], ModuleType], instead: str, setting: str):
        self._importer, self._instead, self._setting = importer, instead, setting
        self._tried = False
        self._module: ModuleType | None = None
        #: why the kernels could not be loaded (the exception's type and message), or None
        self.unavailable: str | None = None

    def switched_on(self) -> bool:
        """Whether the setting and the environment let the kernels run."""
        import gaussqp.settings as settings  # the module: the switch is read at each call

        return bool(getattr(settings, self._setting)) and os.environ.get("GAUSSQP_COMPILED", "").strip() != "0"

    def load(self) -> ModuleType | None:
        """The module, or None: switched off (:meth:`switched_on`), or numba not installed or broken
        (:attr:`unavailable` says why); imported once."""
        if not self.switched_on():
            return None
        if not self._tried:
            self._module, self.unavailable = load_kernels(
                self._importer, self._instead, f"gaussqp.settings.{self._setting}"
            )
            self._tried = True
        return self._module

    @property
    def tried(self) -> bool:
        """Whether :meth:`load` has run in this process."""
        return self._tried


__all__ = ["KernelModule", "LoadRule", "any_kernels_loaded", "load_kernels"]
