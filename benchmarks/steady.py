"""A benchmark's steady state: the compiled kernels loaded before anything is timed, as in a process that solves many
problems (a rollout, a study), so that no timed solve is charged their one-time load and every timed solve runs them.

gaussqp loads them itself only where they pay (:func:`gaussqp.friction.compiled.worth_loading`, Lemke's
``settings.LEMKE_COMPILED_AFTER_SECONDS``): a one-shot solve runs the NumPy kernels. Works on older checkouts (run with
``PYTHONPATH=<checkout>``), whose modules may lack either loader.
"""

from __future__ import annotations


def load_compiled_kernels(package: str = "gaussqp") -> str:
    """Load the mode-free Newton method's, Lemke's and the judge's compiled kernels (optional extra ``fast``: numba)
    now (those a checkout has: a "before" tree may predate some).

    Parameters
    ----------
    package : str
        the package whose kernels to load (``benchmarks/checkout_ab.py`` loads an earlier revision's under another
        name).

    Returns
    -------
    str
        a line for the benchmark's header: what is loaded.
    """
    import importlib

    compiled = importlib.import_module(f"{package}.friction.compiled")
    lemke = importlib.import_module(f"{package}.linalg.lemke")

    newton = compiled.kernels() is not None
    pivots = lemke.compiled_pivots() is not None if hasattr(lemke, "compiled_pivots") else None
    lemke_text = "not in this checkout" if pivots is None else ("loaded" if pivots else "not installed")
    try:
        checks = importlib.import_module(f"{package}.certificates.compiled").kernels() is not None
        checks_text = "loaded" if checks else "not installed"
    except ImportError:
        checks_text = "not in this checkout"
    return (
        f"compiled kernels: Newton {'loaded' if newton else 'not installed'}; Lemke {lemke_text}; checks {checks_text}"
    )
