"""The package layout (issue #10): layers imported in one direction, no import cycle, no private import
across modules. Static (ast), so it needs no optional component."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "gaussqp"

#: the layers, lowest first; a module may import at load time from its own layer or a lower one
LAYERS = [
    {"errors", "settings", "jsonable"},
    {"linalg"},  # pure linear algebra: matrices and vectors, nothing of a contact problem
    {"model"},
    {"mechanics"},  # the matrices a problem defines (Delassus, bilateral elimination, active-set KKT, frames)
    {"results"},
    {"backends"},
    {"friction"},
    {"certificates"},
    {"formulations", "impacts"},
    {"io"},
    {"dispatch", "crosscheck", "timestepping", "grasp", "studies", "batch", "progress", "audit"},
    {"cli", "__init__"},
]


def _modules():
    for f in sorted(ROOT.rglob("*.py")):
        rel = f.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_pkg else parts)
        yield f, name, (parts[:-1] if is_pkg else parts[:-1])


def _is_type_checking(node) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(f, pkg, with_lines: bool = False):
    """(target module or package, imported names, at load time?) of every import of ``f`` from gaussqp,
    relative or absolute. Only imports inside a function body or under ``if TYPE_CHECKING`` are not at
    load time (any other ``if`` still runs at import)."""
    tree = ast.parse(f.read_text())
    lazy = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or _is_type_checking(node):
            for sub in ast.walk(node):
                if sub is not node:
                    lazy.add(id(sub))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and (node.module == "gaussqp" or node.module.startswith("gaussqp.")):
                target = node.module
            else:
                continue
            yield (target, [a.name for a in node.names], id(node) not in lazy) + ((node.lineno,) if with_lines else ())
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("gaussqp."):
                    yield (a.name, [], id(node) not in lazy) + ((node.lineno,) if with_lines else ())


def _layer(module: str) -> int:
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    for i, layer in enumerate(LAYERS):
        if key in layer:
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and to 'Where things are' (docs/design/layout.md)")


def test_layers_are_imported_downwards_only():
    bad = []
    for f, name, pkg in _modules():
        for target, _, at_load in _imports(f, pkg):
            if at_load and _layer(target) > _layer(name):
                bad.append(f"{name} imports {target}")
    assert not bad, bad


#: linalg modules that keep an old import path of a name that moved to the mechanics (issue #26 item 6): they may
#: import ``gaussqp.mechanics`` inside their module ``__getattr__`` (on first use, never at load time), nothing else
LINALG_ALIASES = {
    "gaussqp.linalg.delassus": "gaussqp.mechanics.delassus",
    "gaussqp.linalg.kkt": "gaussqp.mechanics.active_set",
}


def test_linalg_is_pure_linear_algebra():
    """``gaussqp.linalg`` imports nothing of the problem model or the mechanics, at load time or later, and names no
    ``ContactProblem``: what knows rows, contacts or a problem lives in ``gaussqp.mechanics`` (issue #26 item 6). The
    only exception: the old-path aliases forward lazily to their new module."""
    bad = []
    for f, name, pkg in _modules():
        if not name.startswith("gaussqp.linalg"):
            continue
        for target, names, at_load in _imports(f, pkg):
            if target.split(".")[:2] == ["gaussqp", "linalg"] or target in ("gaussqp.errors", "gaussqp.settings"):
                continue
            alias = LINALG_ALIASES.get(name)
            if (
                alias is not None
                and not at_load
                and target == "gaussqp.mechanics"
                and [f"{target}.{n}" for n in names] == [alias]
            ):
                continue
            bad.append(f"{name} imports {target} {names}")
        if "ContactProblem" in f.read_text():
            bad.append(f"{name} names ContactProblem")
    assert not bad, bad


def test_mechanics_sits_between_the_model_and_the_formulations():
    """The mechanics layer imports only linalg, the model and the base layer; every former linalg builder of a
    problem's matrices is imported from it, not through the old alias."""
    allowed = {"errors", "settings", "linalg", "model", "mechanics"}
    bad = [
        f"{name} imports {target}"
        for f, name, pkg in _modules()
        if name.startswith("gaussqp.mechanics")
        for target, _, _ in _imports(f, pkg)
        if target.split(".")[1] not in allowed
    ]
    bad += [
        f"{name} imports {target} (moved to {LINALG_ALIASES[target]})"
        for f, name, pkg in _modules()
        if name not in LINALG_ALIASES
        for target, names, _ in _imports(f, pkg)
        if target in LINALG_ALIASES and set(names) - {"sparse_kkt_solve"}
    ]
    assert not bad, bad


def test_no_module_imports_a_private_name_of_another():
    bad = [
        f"{name} imports {target}.{n}"
        for f, name, pkg in _modules()
        for target, names, _ in _imports(f, pkg)
        for n in names
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not bad, bad


def test_no_import_cycle_at_load_time():
    graph = {}
    for f, name, pkg in _modules():
        deps = set()
        for target, names, at_load in _imports(f, pkg):
            if not at_load:
                continue
            for n in names:  # "from . import x" imports the submodule x
                sub = f"{target}.{n}"
                deps.add(sub if (ROOT.parent / sub.replace(".", "/")).with_suffix(".py").exists() else target)
        graph[name] = deps
    state: dict[str, int] = {}

    def visit(u, path):
        state[u] = 1
        for v in graph.get(u, ()):
            if state.get(v) == 1 and not (u.startswith(v + ".") and v in graph):  # a package's own submodules
                raise AssertionError("import cycle: " + " -> ".join(path + [v]))
            if v not in state:
                visit(v, path + [v])
        state[u] = 2

    for u in graph:
        if u not in state:
            visit(u, [u])


def test_every_package_is_installed():
    """A non-editable install (CI's) ships only the packages pyproject.toml lists: a new folder left out of the
    list imports in an editable checkout and fails everywhere else."""
    import tomllib

    root = ROOT.parent
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(root).parts) for p in (root / "gaussqp").rglob("__init__.py")}
    found |= {
        "gaussqp.problems" + "".join("." + x for x in p.parent.relative_to(root / "problems").parts)
        for p in (root / "problems").rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)


# ---------------------------------------------------------------- issue #26: the pipeline's rules
def _alias_imports(f) -> set[int]:
    """Line numbers of the imports inside a module-level ``__getattr__``: the deprecation aliases of names that moved
    (PEP 562), which point at the new home and are not a dependency of the module's own code."""
    tree = ast.parse(f.read_text())
    return {
        sub.lineno
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
        for sub in ast.walk(node)
        if isinstance(sub, (ast.Import, ast.ImportFrom))
    }


def _all_imports(f, pkg):
    """Every import of ``f`` from gaussqp, wherever it is (at load time, inside a function, under
    ``TYPE_CHECKING``), as module targets: ``from pkg import sub`` names the submodule when ``sub`` is one. The
    deprecation aliases of a module-level ``__getattr__`` (:func:`_alias_imports`) are not counted."""
    aliases = _alias_imports(f)
    for target, names, _, line in _imports(f, pkg, with_lines=True):
        if line in aliases:
            continue
        subs = [f"{target}.{n}" for n in names]
        real = [
            s
            for s in subs
            if (ROOT.parent / s.replace(".", "/")).with_suffix(".py").exists()
            or (ROOT.parent / s.replace(".", "/") / "__init__.py").exists()
        ]
        yield from real
        if len(real) < len(subs) or not subs:
            yield target


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def _module_graph() -> dict[str, set[str]]:
    return {name: set(_all_imports(f, pkg)) - {name} for f, name, pkg in _modules()}


def test_no_import_cycle_between_modules_even_for_types_or_inside_functions():
    """A cycle that only a lazy import or an ``if TYPE_CHECKING`` import closes is still a cycle of meaning: the
    two modules cannot be read (or type-checked) one without the other (issue #26: results ↔ friction/verdict ↔
    certificates/friction_bounds through annotations, formulations ↔ facetized ↔ sticking_conic through a lazy
    import of the registry)."""
    assert not _cycles(_module_graph())


def test_no_import_cycle_between_packages():
    graph: dict[str, set[str]] = {}
    for u, targets in _module_graph().items():
        graph.setdefault(_package(u), set()).update(_package(v) for v in targets if _package(v) != _package(u))
    assert _cycles(graph) == []


def _calls(tree: ast.AST, name: str) -> list[int]:
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Name) and n.func.id == name)
            or (isinstance(n.func, ast.Attribute) and n.func.attr == name)
        )
    ]


def test_dispatch_tests_no_route_by_name():
    """Which route runs and which checks it is data (``PREFERENCES``, each formulation's ``crosscheck``): no
    comparison of a route's name or id with a literal string in the dispatcher, the batch solver or the stage that
    runs a cross-check (``name == "sticking_socp"``, ``f.id == "F6"``, ``name in ("a", "b")``). The functions of
    each kind of cross-check name their own routes: that is the table."""
    bad = []
    for rel, only in (("dispatch.py", None), ("batch.py", None), ("crosscheck.py", {"cross_check", "crosscheck_kind"})):
        tree = ast.parse((ROOT / rel).read_text())
        roots = [n for n in tree.body if only is None or getattr(n, "name", None) in only]
        for node in (sub for r in roots for sub in ast.walk(r)):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            named = any(
                isinstance(s, ast.Name)
                and s.id in ("name", "formulation", "other_name")
                or isinstance(s, ast.Attribute)
                and s.attr in ("name", "id", "formulation")
                for s in sides
            )
            literal = any(
                isinstance(s, ast.Constant)
                and isinstance(s.value, str)
                and s.value not in ("auto", "")
                or isinstance(s, (ast.Tuple, ast.List, ast.Set))
                and any(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in s.elts)
                for s in sides
            )
            if named and literal:
                bad.append(f"{rel}:{node.lineno}")
    assert not bad, bad


def test_every_registered_formulation_declares_its_crosscheck():
    """A new route cannot go unchecked silently: each registered formulation names its cross-check (a key of
    ``gaussqp.crosscheck.CROSSCHECKS``; "none" must be said), and every route a cross-check runs is registered."""
    from gaussqp.crosscheck import CROSSCHECKS, crosscheck_kind
    from gaussqp.formulations import FORMULATIONS

    undeclared = [n for n, f in FORMULATIONS.items() if getattr(f, "crosscheck", None) not in CROSSCHECKS]
    assert not undeclared, undeclared
    assert all(crosscheck_kind(f).name == f.crosscheck for f in FORMULATIONS.values())
    assert {r for k in CROSSCHECKS.values() for r in k.routes} <= set(FORMULATIONS)


#: modules that create certificates outside ``certificates/``: none since issue #26 item 3 (the friction verdicts,
#: the grasp and hand checks and the impact certificates state theirs through builders under ``certificates/``)
CERTIFICATES_OUTSIDE: set[str] = set()


def test_certificates_are_created_only_under_certificates():
    """A verdict is stated in one place: ``Certificate(...)`` (or ``replace`` of one) is called only in
    ``gaussqp/certificates/`` — a route computes, the certificates layer says what the computation proves, and the
    judge (``certificates/judge.py::finalize``) decides every route's status."""
    found = set()
    for f, name, pkg in _modules():
        rel = f.relative_to(ROOT.parent).as_posix()
        if rel.startswith("gaussqp/certificates/") or rel == "gaussqp/results.py":
            continue
        if _calls(ast.parse(f.read_text()), "Certificate"):
            found.add(rel)
    assert found <= CERTIFICATES_OUTSIDE, sorted(found - CERTIFICATES_OUTSIDE)
    assert found == CERTIFICATES_OUTSIDE, f"moved out: drop {sorted(CERTIFICATES_OUTSIDE - found)} from the list"


def test_every_formulation_is_judged_by_finalize():
    """One judge for every route: no formulation overrides the three stages of ``Formulation.solve`` except to
    check ``accepts`` first and hand on to them (``super().solve``)."""
    import inspect

    from gaussqp.formulations import FORMULATIONS
    from gaussqp.formulations.base import Formulation

    for f in FORMULATIONS.values():
        for klass in type(f).__mro__:
            if klass is Formulation or "solve" not in vars(klass):
                continue
            assert "super().solve(" in inspect.getsource(vars(klass)["solve"]), (
                f"{klass.__name__}.solve bypasses finalize"
            )
