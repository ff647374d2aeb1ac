"""Exception hierarchy of gaussqp.

Every error raised on purpose by gaussqp derives from :class:`GaussQPError`. Input
errors carry the offending ``field`` and a ``fix`` hint, and their message names both,
so that a user (or the CLI, which prints one line) knows what to change.

Infeasible and unbounded contact problems are *not* errors: they are results with
certificates (see :mod:`gaussqp.results`).
"""

from __future__ import annotations


class GaussQPError(Exception):
    """Base class of all gaussqp errors."""


class InputError(GaussQPError, ValueError):
    """Invalid problem data. ``field`` names the datum, ``fix`` says what to do."""

    def __init__(self, field: str, problem: str, fix: str):
        self.field = field
        self.problem = problem
        self.fix = fix
        super().__init__(f"{field}: {problem}; fix: {fix}")


class ShapeError(InputError):
    """An array has the wrong shape for the problem's dimensions."""


class NonFiniteError(InputError):
    """An array contains NaN or infinity."""


class NotSymmetricError(InputError):
    """The mass matrix is not symmetric (beyond tolerance)."""


class IndefiniteMassError(InputError):
    """The mass matrix has a negative eigenvalue (beyond tolerance)."""


class NegativeFrictionError(InputError):
    """A friction coefficient is negative."""


class UnknownValueError(InputError):
    """An enumerated field (contact type, mode, ...) has an unknown value."""


class MissingSlipError(InputError):
    """A sliding contact has no (or a zero) slip direction."""


class TangentShapeError(ShapeError):
    """Tangent rows of the wrong count for the ambient dimension."""


class WrongTypeError(InputError):
    """A value has the wrong type: e.g. a number where a string belongs."""


class NonNumericError(WrongTypeError):
    """A value that must be a real number is a boolean, a string, complex, an object or missing."""


class MagnitudeError(InputError):
    """An entry exceeds :data:`gaussqp.settings.ABS_ENTRY_MAX` (the arithmetic would overflow)."""


class InputTooLargeError(InputError):
    """A declared shape, size, file size or nesting depth exceeds a limit of :mod:`gaussqp.settings`."""


class StructureMismatchError(InputError):
    """A problem handed to a :class:`gaussqp.Solver` has another structure than the one it was built for (sizes,
    contact types or modes, tangent rows, dense/sparse storage or sparsity pattern); ``field`` names what differs.
    Build another Solver for it, or let :func:`gaussqp.solve_many` group the problems by structure."""


class FileFormatError(InputError):
    """A problem file is malformed (bad JSON, missing key, wrong type)."""


class FormatVersionError(FileFormatError):
    """A problem file declares an unknown format version."""


class UnsupportedFormatError(FileFormatError):
    """A well-formed file uses a part of its format that gaussqp does not read yet (FCLIB's rolling-friction
    problems, the ``V``/``R`` blocks of a local problem); the message names the HDF5 path."""


class UnknownFormulationError(GaussQPError, KeyError):
    """No formulation is registered under that name."""

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0]) if self.args else ""


class UnknownSolverError(GaussQPError, KeyError):
    """No solver backend of that name, or it is not installed."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class MissingExtraError(GaussQPError, ImportError):
    """An optional component (``h5py`` for FCLIB files, ...) is not installed; the message says what to
    ``pip install``. Still an :class:`ImportError`, so ``except ImportError`` catches it."""


class NotApplicableError(GaussQPError):
    """The requested formulation does not accept this system class."""


class TooLargeError(GaussQPError):
    """An exact method (enumeration, principal minors) was asked for beyond its stated size."""


class SolverError(GaussQPError):
    """A backend raised an exception; re-raised so no backend exception leaks."""


class UndecidedError(GaussQPError, RuntimeError):
    """An exact decision (a cone LP, an enumeration) could not be verified either way: the certificate that
    rests on it is reported as undecided (``holds=None``), never as a decision."""


class UnsupportedModelError(InputError):
    """A model uses a feature an importer does not map to the contact problem (joint friction loss, flexes,
    contacts of mixed frictional dimension, …); the message names the element and the option that handles it."""


class RestitutionError(InputError):
    """A restitution coefficient or matrix that Newton's impact law cannot use (negative, non-finite, on a
    bilateral row, of the wrong shape)."""


class StepError(GaussQPError, RuntimeError):
    """A time step could not be taken: the velocity-level problem has no answer (infeasible, unbounded or a
    failed route); the message names the status and what to do."""
