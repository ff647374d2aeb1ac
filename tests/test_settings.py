"""One home for tolerances (issue #10): no bare float literal decides anything outside gaussqp/settings.py, and
every named constant there says why it has its value. Static (ast), so it needs no optional component."""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1] / "gaussqp"

#: the backends' option dictionaries translate the presets into each solver's settings (their own units and
#: names); they are read with the presets, not scanned
EXCLUDED = {"settings.py"}
EXCLUDED_GLOBS = ("backends/*_.py",)

#: float literals that are structure, not thresholds: ``max(1.0, x)`` floors of a scale, ``0.0`` initial values
STRUCTURAL = {0.0, 1.0}

#: (file, value): literals in a comparison that are mathematics, not thresholds, with the reason
ALLOWED = {
    ("certificates/friction_bounds.py", 3.0): "tutorial Prop. 10's bound is σ_min(A_nb)/σ_max(A_tb) divided by 3: "
    "the theorem's constant",
}

#: keyword arguments, dictionary keys and parameters whose value is a tolerance
TOL_NAME = re.compile(r"^(rcond|rtol|atol|tol|\w+_tol|ftol|xtol|gtol)$")


def _files():
    skip = {p for g in EXCLUDED_GLOBS for p in ROOT.glob(g)}
    for f in sorted(ROOT.rglob("*.py")):
        if f.name in EXCLUDED and f.parent == ROOT or f in skip:
            continue
        yield f


def _floats(node):
    """Float literals anywhere in ``node`` that are not structural."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and type(sub.value) is float and sub.value not in STRUCTURAL:
            yield sub


def bare_decision_literals(source: str):
    """(line, context, value) of every float literal that decides: an operand of a comparison, the value of a
    tolerance keyword argument or dictionary entry, the default of a tolerance parameter."""
    tree = ast.parse(source)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                out += [(c.lineno, "comparison", c.value) for c in _floats(operand)]
        elif isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg and TOL_NAME.match(kw.arg):
                    out += [(c.lineno, f"keyword {kw.arg}=", c.value) for c in _floats(kw.value)]
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and TOL_NAME.match(k.value):
                    out += [(c.lineno, f"entry {k.value!r}:", c.value) for c in _floats(v)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            positional = a.posonlyargs + a.args
            pairs = list(zip(positional[len(positional) - len(a.defaults) :], a.defaults))
            pairs += [(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
            for arg, default in pairs:
                if TOL_NAME.match(arg.arg):
                    out += [(c.lineno, f"default of {arg.arg}", c.value) for c in _floats(default)]
    return sorted(set(out))


def test_no_bare_tolerance_literals():
    found = []
    for f in _files():
        for line, what, value in bare_decision_literals(f.read_text()):
            if (f.relative_to(ROOT).as_posix(), value) in ALLOWED:
                continue
            found.append(f"{f.relative_to(ROOT.parent)}:{line}: {what} {value!r}")
    assert not found, (
        "bare float literals decide here; name them in gaussqp/settings.py (with a #: comment "
        "saying why the value) and import them:\n" + "\n".join(found)
    )


def test_scanner_sees_each_kind():
    src = (
        "def f(x, tol=1e-13, *, pivot_tol=1e-12):\n"
        "    a = x > 1e-9 * max(1.0, x)\n"
        "    g(A, rcond=1e-12)\n"
        "    h(options={'ftol': 1e-12})\n"
        "    return a and x <= 0.0\n"
    )
    assert [(line, v) for line, _, v in bare_decision_literals(src)] == [
        (1, 1e-12),
        (1, 1e-13),
        (2, 1e-9),
        (3, 1e-12),
        (4, 1e-12),
    ]


def test_every_setting_is_documented():
    lines = (ROOT / "settings.py").read_text().splitlines()
    tree = ast.parse("\n".join(lines))
    missing = []
    for node in tree.body:  # module level only
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for t in targets:
            if isinstance(t, ast.Name) and t.id.isupper():
                above = lines[node.lineno - 2].lstrip() if node.lineno >= 2 else ""
                if not above.startswith("#:"):
                    # a #: block may span several lines; the line right above must belong to it
                    missing.append(f"settings.py:{node.lineno}: {t.id}")
    assert not missing, "UPPER_CASE settings without a '#:' comment right above them:\n" + "\n".join(missing)


def test_one_naming_rule_for_limits():
    """A limit is named by its quantity first and ``_MAX`` / ``_MIN`` last (``FACETS_MAX``, never ``MAX_FACETS``)."""
    import gaussqp.settings as s

    not_min_weight = {"GRASP_MIN_WEIGHT_FACETS"}  # the min-weight metric's facets, not a lower limit
    misplaced = [
        name
        for name in vars(s)
        if re.match(r"^[A-Z0-9_]+$", name) and re.search(r"(^|_)(MAX|MIN)_", name) and name not in not_min_weight
    ]
    assert not misplaced, f"rename to QUANTITY_MAX / QUANTITY_MIN: {misplaced}"


def test_renamed_settings_still_read_with_a_warning():
    import warnings

    import gaussqp.settings as s

    for old, new in s.RENAMED.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(s, old) == getattr(s, new)
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught)
        assert old not in vars(s), f"{old} is defined besides its new name {new}"
