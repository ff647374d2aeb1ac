"""Certificates: structural C1–C6, friction bounds C7, sticking criteria C8 (``check``), the instance
certificates of one answer, and the judge (:func:`gaussqp.certificates.judge.finalize`)."""

from .report import CheckReport, check

__all__ = ["CheckReport", "check"]
