"""The ``gaussqp-grasp/1`` JSON format: read strictly, written back losslessly.

    {"format": "gaussqp-grasp/1", "name": "...", "description": "...", "torque_scale": L,
     "wrench": [fx, fy, (fz,) ..., torques],               # optional: the external wrench on the object
     "contacts": [{"position": [x, y(, z)], "normal": [inward unit vector], "friction": μ,
                   "kind": "frictionless" | "hard" | "soft", "torsional_friction": μ_t}],
     "hand": {"jacobian": [[...]], "torque_limits": [...], "mass_matrix": [[...]], "force": [...]}}   # optional

Object frame at the origin; planar grasps have 2D positions/normals and a 3-entry wrench ``(f_x, f_y, torque)``.
Only ``contacts`` (with ``position`` and ``normal``) is required; ``friction`` defaults to 0, ``kind`` to "hard"
(or "frictionless" when μ = 0), ``torque_scale`` to the largest distance of a contact from the origin. The reading
is :mod:`gaussqp.io.strict_json`'s (duplicate keys, overflowing literals, deep nesting and non-numbers are typed
errors naming the field); unknown keys are errors. The schema is ``gaussqp/io/schema/gaussqp-grasp-1.schema.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FileFormatError, FormatVersionError
from ..io.strict_json import decode, json_kind, json_number, json_numbers, json_text
from ..jsonable import to_jsonable
from .model import Grasp, GraspContact, Hand, check_grasp

FORMAT = "gaussqp-grasp/1"
TOP_KEYS = {"format", "name", "description", "torque_scale", "wrench", "contacts", "hand", "source", "parameters"}
CONTACT_KEYS = {"position", "normal", "friction", "kind", "torsional_friction"}
HAND_KEYS = {"jacobian", "torque_limits", "mass_matrix", "force"}


def _keys(field: str, obj: Any, allowed: set, required: tuple = ()) -> dict:
    if not isinstance(obj, dict):
        raise FileFormatError(field, f"is {json_kind(obj)}, not an object", "give a JSON object")
    extra = sorted(set(obj) - allowed)
    if extra:
        raise FileFormatError(
            f"{field}.{extra[0]}", "is not a key of this format", f"use only {', '.join(sorted(allowed))}"
        )
    for k in required:
        if k not in obj:
            raise FileFormatError(f"{field}.{k}", "is missing", f"give {k}")
    return obj


def from_dict(doc: Any) -> Grasp:
    """The :class:`~gaussqp.grasp.Grasp` of a decoded ``gaussqp-grasp/1`` document."""
    doc = _keys("file", doc, TOP_KEYS, ("format", "contacts"))
    if doc["format"] != FORMAT:
        raise FormatVersionError("format", f"is {str(doc['format'])[:40]!r}", f"this gaussqp reads {FORMAT!r}")
    if not isinstance(doc["contacts"], list):
        raise FileFormatError("contacts", f"is {json_kind(doc['contacts'])}", "give a list of contact objects")
    contacts = []
    for i, c in enumerate(doc["contacts"]):
        f = f"contacts[{i}]"
        c = _keys(f, c, CONTACT_KEYS, ("position", "normal"))
        mu = json_number(f"{f}.friction", c["friction"]) if "friction" in c else 0.0
        kind = json_text(f"{f}.kind", c["kind"]) if "kind" in c else ("hard" if mu > 0 else "frictionless")
        contacts.append(
            GraspContact(
                position=json_numbers(f"{f}.position", c["position"], 1),
                normal=json_numbers(f"{f}.normal", c["normal"], 1),
                friction=mu,
                kind=kind,
                torsional_friction=json_number(f"{f}.torsional_friction", c["torsional_friction"])
                if "torsional_friction" in c
                else 0.0,
            )
        )
    hand = None
    if "hand" in doc:
        h = _keys("hand", doc["hand"], HAND_KEYS, ("jacobian",))
        hand = Hand(
            jacobian=json_numbers("hand.jacobian", h["jacobian"], 2),
            **{
                k: json_numbers(f"hand.{k}", h[k], 2 if k == "mass_matrix" else 1)
                for k in ("torque_limits", "mass_matrix", "force")
                if k in h
            },
        )
    return Grasp(
        contacts,
        torque_scale=json_number("torque_scale", doc["torque_scale"]) if "torque_scale" in doc else None,
        wrench=json_numbers("wrench", doc["wrench"], 1) if "wrench" in doc else None,
        hand=hand,
        name=json_text("name", doc["name"]) if "name" in doc else "",
        description=json_text("description", doc["description"]) if "description" in doc else "",
    )


def to_dict(grasp: Grasp) -> dict:
    """The ``gaussqp-grasp/1`` document of a grasp given by positions and normals."""
    check_grasp(grasp)
    doc: dict = {"format": FORMAT, "name": grasp.name, "torque_scale": grasp.torque_scale}
    if grasp.description:
        doc["description"] = grasp.description
    if grasp.wrench is not None:
        doc["wrench"] = to_jsonable(grasp.wrench)
    doc["contacts"] = [
        {
            "position": to_jsonable(c.position),
            "normal": to_jsonable(c.normal),
            "friction": c.friction,
            "kind": c.kind,
            **({"torsional_friction": c.torsional_friction} if c.kind == "soft" else {}),
        }
        for c in grasp.contacts
    ]
    if grasp.hand is not None:
        h = grasp.hand
        doc["hand"] = {
            k: to_jsonable(np.asarray(v))
            for k, v in (
                ("jacobian", h.jacobian),
                ("torque_limits", h.torque_limits),
                ("mass_matrix", h.mass_matrix),
                ("force", h.force),
            )
            if v is not None
        }
    return doc


def loads(text: str | bytes) -> Grasp:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise FileFormatError("file", "is not UTF-8 text", "save the grasp as UTF-8 JSON") from None
    return from_dict(decode(text, fmt=FORMAT, depth=4))


def load(path) -> Grasp:
    p = Path(path)
    if not p.is_file():
        raise FileFormatError(str(p), "is not a readable file", "give the path of a gaussqp-grasp/1 JSON file")
    return loads(p.read_bytes())


def dumps(grasp: Grasp, indent: int | None = 1) -> str:
    return json.dumps(to_dict(grasp), indent=indent)


def dump(grasp: Grasp, path) -> None:
    Path(path).write_text(dumps(grasp) + "\n", encoding="utf-8")


__all__ = ["FORMAT", "dump", "dumps", "from_dict", "load", "loads", "to_dict"]
