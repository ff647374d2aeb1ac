"""The friction verdicts' old import path (the module is split by what it decides).

The mathematics stays in :mod:`gaussqp.friction`, re-exported here:

- :mod:`gaussqp.friction.sticking_margin` — the cone margin on the multiplier set Λ(a) (:func:`margin`,
  :func:`contact_margins`; sticking Prop. 4);
- :mod:`gaussqp.friction.mu_min` — μ_min and its proven bracket (:func:`mu_min`, :func:`mu_min_bracket`,
  :func:`achieved_ratio`; sticking Prop. 11);
- :mod:`gaussqp.friction.sticking_analysis` — the record :class:`StickingVerdict` and the verdict at one
  acceleration (:func:`analyze`, :func:`singleton_verdict`).

What a verdict proves about an answer is stated under :mod:`gaussqp.certificates` (certificates are created only
there); these names are still importable from here, with a :class:`DeprecationWarning` (imported on first use:
friction sits below certificates and imports nothing of it at load time):

- :func:`gaussqp.certificates.enumeration.enumeration_certificate`,
  :func:`gaussqp.certificates.enumeration.enumeration_verdict`;
- :func:`gaussqp.certificates.sliding_verdict.p_matrix_certificate`,
  :func:`gaussqp.certificates.sliding_verdict.sliding_verdict`;
- :func:`gaussqp.certificates.sticking_verdict.sticking_verdict`.
"""

from __future__ import annotations

from .mu_min import achieved_ratio, mu_min, mu_min_bracket
from .sticking_analysis import StickingVerdict, analyze, singleton_verdict
from .sticking_margin import contact_margins, margin

#: the names that moved under :mod:`gaussqp.certificates`: name → module
MOVED = {
    "enumeration_certificate": "enumeration",
    "enumeration_verdict": "enumeration",
    "p_matrix_certificate": "sliding_verdict",
    "sliding_verdict": "sliding_verdict",
    "sticking_verdict": "sticking_verdict",
}

__all__ = [
    "StickingVerdict",
    "achieved_ratio",
    "analyze",
    "contact_margins",
    "margin",
    "mu_min",
    "mu_min_bracket",
    "singleton_verdict",
]


def __getattr__(name: str):
    """A name that moved under :mod:`gaussqp.certificates`, with a :class:`DeprecationWarning`."""
    if name in MOVED:
        import warnings

        from ..certificates import enumeration, sliding_verdict, sticking_verdict

        module = {"enumeration": enumeration, "sliding_verdict": sliding_verdict, "sticking_verdict": sticking_verdict}[
            MOVED[name]
        ]
        warnings.warn(
            f"gaussqp.friction.verdict.{name} moved to {module.__name__}.{name}", DeprecationWarning, stacklevel=2
        )
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
