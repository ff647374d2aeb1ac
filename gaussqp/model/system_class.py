"""The system class of a problem (what the dispatcher keys its preference table on) and the
names of contact types and modes.

``ContactType`` and ``Mode`` are string enums: their members compare equal to the strings used in
files and in :class:`~gaussqp.model.problem.Contact` (``"unilateral" == ContactType.UNILATERAL``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import FrozenInstanceError
from enum import Enum

from ..errors import InputTooLargeError


class Label(str, Enum):
    """A string enum whose members are their strings everywhere: equal, hashed, printed, formatted and
    repr'd as the string (``"solved" in {Status.SOLVED}``, f-strings and messages unchanged)."""

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:  # as the string it equals, so messages read the same as with plain strings
        return repr(self.value)


class ContactType(Label):
    """Kind of constraint of a contact row."""

    BILATERAL = "bilateral"  #: ``n a + b = 0``, multiplier free
    UNILATERAL = "unilateral"  #: ``0 <= λ ⟂ n a + b >= 0``


class Mode(Label):
    """Tangential law of a contact."""

    FRICTIONLESS = "frictionless"  #: no tangential force
    STICKING = "sticking"  #: ``T a + c = 0`` and ``‖λ_t‖ <= μ |λ_n|``
    SLIDING = "sliding"  #: ``λ_t = -μ |λ_n| s``
    #: Coulomb's law with the stick/slip mode left to the solver (unilateral contacts): ``u_t = T a + c``,
    #: ``u_t = 0, ‖λ_t‖ <= μ λ_n`` or ``λ_t = -μ λ_n u_t/‖u_t‖``. What the importers give a resting frictional
    #: contact whose mode the state does not decide, and what an FCLIB problem means. Only the formulations
    #: that decide the modes solve it (F8, F9, the coulomb enumeration); the others refuse it (:data:`UNDECIDED_MODES`).
    COULOMB = "coulomb"


CONTACT_TYPES = tuple(t.value for t in ContactType)
MODES = tuple(m.value for m in Mode)
#: modes whose stick/slip decision is left to a solver; a formulation that needs every mode given refuses them
UNDECIDED_MODES = frozenset({Mode.COULOMB.value})


#: the fields of :class:`SystemClass`, in the order of its constructor and of :meth:`SystemClass.as_dict`
_FIELDS = (
    "n",
    "mass",
    "mass_rank",
    "constraints",
    "modes",
    "m_bilateral",
    "m_unilateral",
    "normal_rank",
    "redundant",
    "dimension",
    "notes",
)

#: the constructor's arguments that a record holds under another name (given, or None / a callable: derived)
_HELD = {"normal_rank": "_rank", "redundant": "_redundant", "notes": "_notes"}


class SystemClass:
    """What :meth:`ContactProblem.classify` reports about a problem's structure: an immutable record.

    ``normal_rank`` (the numerical rank of the normal rows, in the units of :meth:`ContactProblem.classify`) may be
    given as a zero-argument callable: it is then computed when first read (by :attr:`normal_rank`,
    :attr:`redundant`, :attr:`notes`, :meth:`as_dict`, a comparison, a hash, or the printed form when the callable
    says it is ``cheap``), once, and kept; until then the printed form shows ``<not computed>``; a copy or a pickle
    carries the callable while the rank is not computed. No route keys on it (the dispatcher's table is :attr:`key`),
    and on a pile of boxes whose normal rows are redundant across bodies it is a dense pivoted QR of the rows (seconds
    at 2,000 contacts).
    ``redundant`` and ``notes`` follow from the other fields when not given.
    """

    #: the plain fields are slots; the rank's fields are read through properties
    __slots__ = tuple(f for f in _FIELDS if f not in _HELD) + tuple(_HELD.values()) + ("_lock",)
    n: int
    mass: str  # "definite" | "singular"
    mass_rank: int
    constraints: str  # "none" | "bilateral" | "unilateral" | "mixed"
    modes: str  # the contacts' tangential laws: "frictionless" | "sticking" | "sliding" | "coulomb" | "mixed"
    m_bilateral: int
    m_unilateral: int
    dimension: int
    _rank: int | Callable[[], int]
    _redundant: bool | None
    _notes: tuple[str, ...] | None
    _lock: threading.Lock

    def __init__(
        self,
        n: int,
        mass: str,
        mass_rank: int,
        constraints: str,
        modes: str,
        m_bilateral: int,
        m_unilateral: int,
        normal_rank: int | Callable[[], int],
        redundant: bool | None = None,
        dimension: int | None = None,
        notes: tuple[str, ...] | None = None,
    ) -> None:
        if dimension is None:  # a keyword after the optional ``redundant``, as in the constructor's positional order
            raise TypeError("SystemClass() missing required argument: 'dimension'")
        put = object.__setattr__
        for name, value in (
            ("n", n),
            ("mass", mass),
            ("mass_rank", mass_rank),
            ("constraints", constraints),
            ("modes", modes),
            ("m_bilateral", m_bilateral),
            ("m_unilateral", m_unilateral),
            ("dimension", dimension),
            ("_rank", normal_rank),
            ("_redundant", redundant),
            ("_notes", None if notes is None else tuple(notes)),
            ("_lock", threading.Lock()),
        ):
            put(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    @property
    def normal_rank(self) -> int:
        """The numerical rank of the normal rows (computed at the first read when the constructor was given a
        callable; concurrent readers wait for the one computation)."""
        rank = self._rank
        if callable(rank):
            with self._lock:
                rank = self._rank
                if callable(rank):
                    rank = int(rank())
                    object.__setattr__(self, "_rank", rank)  # the callable and the rows it holds are dropped
        return rank

    @property
    def redundant(self) -> bool:
        """Whether the normal rows are dependent: ``normal_rank < m_bilateral + m_unilateral`` unless given."""
        if self._redundant is not None:
            return self._redundant
        return self.normal_rank < self.m_bilateral + self.m_unilateral

    @property
    def notes(self) -> tuple[str, ...]:
        """Remarks on the structure: dependent normal rows, a singular mass matrix (unless given)."""
        if self._notes is not None:
            return self._notes
        m = self.m_bilateral + self.m_unilateral
        rows = (f"normal rows redundant: rank {self.normal_rank} < {m} contacts",) if self.normal_rank < m else ()
        return rows + self._mass_notes()

    def _mass_notes(self) -> tuple[str, ...]:
        return () if self.mass == "definite" else (f"mass matrix singular: rank {self.mass_rank} < n = {self.n}",)

    @property
    def rank_decided(self) -> bool:
        """Whether :attr:`normal_rank` has been computed (reading it computes it)."""
        return not callable(self._rank)

    @property
    def friction(self) -> str:
        """Former name of :attr:`modes` (kept for compatibility; "friction" is the coefficient μ elsewhere)."""
        return self.modes

    @property
    def key(self) -> tuple[str, str, str]:
        """(mass, constraints, modes): the key of the dispatcher's preference table."""
        return (self.mass, self.constraints, self.modes)

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        """The fields. A rank not computed yet is computed when it is cheap (its callable's ``cheap``: a small dense
        SVD); otherwise the fields that need it show ``<not computed>``: printing never costs a large QR nor raises
        the refusal of one."""
        return "SystemClass(" + ", ".join(f"{name}={self._shown(name)!r}" for name in _FIELDS) + ")"

    def _shown(self, name: str):
        """The field ``name``, or :data:`NOT_COMPUTED` for a field that would need a rank that is undecided and not
        cheap to decide."""
        if name in _HELD and not self.rank_decided and (name == "normal_rank" or getattr(self, _HELD[name]) is None):
            if not getattr(self._rank, "cheap", False):
                return NOT_COMPUTED
            try:
                return getattr(self, name)
            except InputTooLargeError:  # printing never raises (a refusal is a read's)
                return NOT_COMPUTED
        return getattr(self, name)

    def __reduce__(self):
        """Copies and pickles carry the record as it stands: the rank when computed, else its callable (a copy
        computes it when first read, as the original does)."""
        return (_rebuild, (self._stored(),))

    def _stored(self) -> tuple:
        """The constructor's arguments as held: the rank (or its callable), ``redundant`` and ``notes`` as given."""
        return tuple(getattr(self, name) if name not in _HELD else getattr(self, _HELD[name]) for name in _FIELDS)

    def as_dict(self) -> dict:
        """The record as a dict (the JSON object of files and reports; ``friction`` is :attr:`modes`)."""
        return dict(SystemClassRecord(self).items())

    def record(self) -> SystemClassRecord:
        """:meth:`as_dict` as a read-only mapping that computes the rank's keys when they are first read (what a
        solution's ``extras["system_class"]`` holds)."""
        return SystemClassRecord(self)


#: how the record's notes begin a rank refused as too large (:class:`SystemClassRecord`), before the refusal's message
RANK_REFUSED = "normal rows' rank not computed: "


class _NotComputed:
    """What the printed form of a record shows for a field whose rank is not computed yet."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not computed>"


#: the placeholder of :meth:`SystemClass.__repr__` and :meth:`SystemClassRecord.__repr__`
NOT_COMPUTED = _NotComputed()


def _rebuild(values: tuple) -> SystemClass:
    return SystemClass(**dict(zip(_FIELDS, values, strict=True)))


class SystemClassRecord(Mapping):
    """:meth:`SystemClass.as_dict` as a read-only mapping: the keys that need the normal rows' rank
    (``normal_rank``, ``redundant``, ``notes``) read it, so the rank is computed only when one of them, or the
    whole record (iteration over values, a comparison, JSON), is asked for; its printed form computes it only when it
    is cheap, as :meth:`SystemClass.__repr__` does. Equal to the dict :meth:`SystemClass.as_dict` returns.

    A rank whose computation is refused as too large (:class:`~gaussqp.errors.InputTooLargeError`: the rows would have
    to be densified beyond :data:`~gaussqp.settings.ENTRIES_MAX`) is reported, not raised: ``normal_rank`` and
    ``redundant`` are None and ``notes`` says why, so that a solved problem's JSON and reports are written
    (:attr:`SystemClass.normal_rank` itself raises the refusal; it is tried again at each read)."""

    __slots__ = ("_cls",)
    #: :meth:`SystemClass.as_dict`'s keys: the fields, ``modes`` under its JSON name ``friction``
    _KEYS = tuple("friction" if f == "modes" else f for f in _FIELDS)

    def __init__(self, cls: SystemClass) -> None:
        self._cls = cls

    def __getitem__(self, key: str):
        if key not in self._KEYS:
            raise KeyError(key)
        if key == "friction":
            return self._cls.modes
        try:
            return list(self._cls.notes) if key == "notes" else getattr(self._cls, key)
        except InputTooLargeError as refused:
            if key == "notes":
                return [f"{RANK_REFUSED}{refused}", *self._cls._mass_notes()]
            return None

    def __iter__(self):
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)

    def __repr__(self) -> str:
        """The dict's printed form; ``<not computed>`` for the keys that need a rank not computed yet and not cheap to
        decide (:meth:`SystemClass.__repr__`)."""
        shown = {k: self._cls._shown("modes" if k == "friction" else k) for k in self._KEYS}
        if isinstance(shown["notes"], tuple):
            shown["notes"] = list(shown["notes"])
        return repr(shown)

    def __reduce__(self):
        return (SystemClassRecord, (self._cls,))
