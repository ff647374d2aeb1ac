"""The problem types, in one place: code that takes a problem of either form names :data:`Problem` (a type) or
:data:`PROBLEM_TYPES` (an ``isinstance`` test of "is it a problem at all") and reads the common interface of
:mod:`gaussqp.model.summary` (``form``, ``m``, ``dimension``, ``modes``, ``summary()``), not the class."""

from __future__ import annotations

from .local_problem import LocalContactProblem
from .problem import ContactProblem

#: a contact problem of either form: global (``M a + F = Jᵀλ``) or local (``u = W r + q``)
Problem = ContactProblem | LocalContactProblem
#: the classes of :data:`Problem`, for ``isinstance``
PROBLEM_TYPES = (ContactProblem, LocalContactProblem)

__all__ = ["PROBLEM_TYPES", "Problem"]
