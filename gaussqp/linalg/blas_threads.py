"""One BLAS thread while a small problem is solved.

The dense linear algebra of a robot's problem (a few dozen coordinates and contacts) is made of BLAS and LAPACK calls
on matrices of a few dozen rows, each a few microseconds on one core. OpenBLAS, which NumPy and SciPy ship, splits
some of them over its thread pool whatever their size (a triangular solve with a few dozen right-hand sides among
them). On a quiet machine some of those calls gain from the threads (SciPy's ``dpotrs`` on the humanoid's 27 × 43
system, ~10 µs on two threads against ~15 µs on one) and others lose; when the machine's other cores are busy (a
simulator beside the controller, the other workers of a study) a threaded call waits for a core (that ``dpotrs``:
0.72 ms against 0.015 ms on one thread, in one run with one of two cores busy). Over whole solves
(``benchmarks/blas_contention.py``, limit off and on alternated): the mode-free humanoid 1.1–2.4× faster on one
thread, quiet or busy; the frictionless one ~3 % slower.
:func:`one_blas_thread` runs a solve of at most :data:`~gaussqp.settings.BLAS_ONE_THREAD_SIZE_MAX` unknowns with every
BLAS library of the process limited to one thread, then gives each library back the threads it had.

The libraries are found and set by ``threadpoolctl`` (the module scikit-learn uses for the same purpose; a core
dependency), once, after SciPy's linear algebra is imported (NumPy and SciPy each ship an OpenBLAS); a library loaded
later by another package is not limited. The limit is the process's: while a solve runs, BLAS work in the caller's
other Python threads runs on one thread too, and a solve that ends meanwhile in another thread may give the libraries
back their threads early (a slower solve, not another kind of answer: a product summed by other threads may round
otherwise in its last bits, as between any two thread counts).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import gaussqp.settings as settings  # the module: the limit is read at each call

#: threadpoolctl's controllers of the BLAS libraries this process has loaded, found at the first small solve (None
#: until then; empty when threadpoolctl cannot be imported)
_LIBRARIES: tuple | None = None


def _blas_libraries() -> tuple:
    """The controllers (``threadpoolctl``'s) of the BLAS libraries loaded in this process, found once; empty when
    ``threadpoolctl`` is not installed."""
    global _LIBRARIES
    if _LIBRARIES is None:
        import scipy.linalg  # noqa: F401  (SciPy's OpenBLAS loaded before the scan, whatever ran first)

        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _LIBRARIES = ()
        else:
            _LIBRARIES = tuple(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _LIBRARIES


@contextmanager
def one_blas_thread(unknowns: int) -> Iterator[None]:
    """Within the block, every BLAS library of the process on one thread when the problem has at most
    :data:`~gaussqp.settings.BLAS_ONE_THREAD_SIZE_MAX` unknowns (``n + m·d``); each library that had more threads
    gets them back at the end. A larger problem, or a limit of 0, leaves the libraries as they are.

    Parameters
    ----------
    unknowns : int
        the problem's size, ``n + m·d`` (:func:`gaussqp.model.problem.unknowns`).
    """
    limited = []
    try:
        if unknowns <= settings.BLAS_ONE_THREAD_SIZE_MAX:
            for library in _blas_libraries():
                threads = library.get_num_threads()
                if threads is not None and threads > 1:
                    limited.append((library, threads))
                    library.set_num_threads(1)
        yield
    finally:
        for library, threads in limited:
            library.set_num_threads(threads)


__all__ = ["one_blas_thread"]
