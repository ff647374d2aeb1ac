"""The package layout (issue #10): layers imported in one direction, no import cycle, no private import
across modules. Static (ast), so it needs no optional component."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "gaussqp"

#: the layers, lowest first; a module may import at load time from its own layer or a lower one
LAYERS = [
    {"errors", "settings"},
    {"model", "linalg"},
    {"results"},
    {"backends"},
    {"friction"},
    {"certificates"},
    {"formulations", "impacts"},
    {"io"},
    {"dispatch", "timestepping", "grasp", "studies", "batch", "progress", "audit"},
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


def _imports(f, pkg):
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
            yield target, [a.name for a in node.names], id(node) not in lazy
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("gaussqp."):
                    yield a.name, [], id(node) not in lazy


def _layer(module: str) -> int:
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    for i, layer in enumerate(LAYERS):
        if key in layer:
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and to the README's 'Where things are'")


def test_layers_are_imported_downwards_only():
    bad = []
    for f, name, pkg in _modules():
        for target, _, at_load in _imports(f, pkg):
            if at_load and _layer(target) > _layer(name):
                bad.append(f"{name} imports {target}")
    assert not bad, bad


def test_no_module_imports_a_private_name_of_another():
    bad = [f"{name} imports {target}.{n}" for f, name, pkg in _modules() for target, names, _ in _imports(f, pkg)
           for n in names if n.startswith("_") and not n.startswith("__")]
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
    found |= {"gaussqp.problems" + "".join("." + x for x in p.parent.relative_to(root / "problems").parts)
              for p in (root / "problems").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
