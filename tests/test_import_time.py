"""``import gaussqp`` stays light (issue #15): what it does **not** import, checked in a fresh interpreter.

Not a timed test (timings depend on the machine; ``benchmarks/import_time.py`` measures them): the package's import
time is what it imports, so the test names the heavy modules that must stay out of ``sys.modules`` after
``import gaussqp`` (cvxpy and the scipy.stats it pulls in, scipy.optimize, the backends' solver packages, the
optional components), then solves a shipped problem in the same interpreter, so that the functions which import
cvxpy and the solver on first use are exercised from a cold start. A static test keeps the idiom (function-level
imports, ``if TYPE_CHECKING:`` for annotations; see :mod:`gaussqp.backends`) in every module, including those
``import gaussqp`` does not load (the grasp and studies packages, the importers).
"""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import tempfile
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "gaussqp"

#: modules ``import gaussqp`` must leave unloaded: cvxpy (which imports scipy.stats), scipy.optimize, the solver
#: packages (reached through cvxpy), and the optional components (studies, plots, importers)
HEAVY = (
    "cvxpy",
    "scipy.optimize",
    "scipy.stats",
    "clarabel",
    "osqp",
    "scs",
    "pandas",
    "matplotlib",
    "h5py",
    "mujoco",
    "pinocchio",
)

#: modules gaussqp's core uses only inside functions too, though they are cheaper; checked only where the floor
#: itself (numpy and scipy.sparse) does not load them
LIGHTER = ("scipy.linalg", "scipy.sparse.linalg", "scipy.sparse.csgraph")


def _loaded_after(statement: str, names: tuple[str, ...], then: str = "") -> dict:
    """In a fresh interpreter: run ``statement``, report which of ``names`` (or their submodules) are in
    ``sys.modules``, then run ``then`` (which may add keys to the dict ``out``). Returns the dict ``out``."""
    code = (
        f"import json, sys\n{statement}\n"
        f"names = {names!r}\n"
        "out = {'loaded': sorted({n for m in sys.modules for n in names if m == n or m.startswith(n + '.')})}\n"
        f"{then}\n"
        "print(json.dumps(out))\n"
    )
    # run outside the source tree: ``python -c`` puts the working directory first on sys.path, and a clean clone's
    # gaussqp/ (without the installed package's gaussqp.problems) would shadow the installed package
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=tempfile.gettempdir()
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


SOLVE_AFTER = """
from gaussqp import problems
sol = gaussqp.solve(problems.load("rod_wall_guide"))
out["status"] = str(sol.status)
out["certified"] = bool(sol.certified)
out["route"] = sol.formulation
out["cvxpy_after_direct"] = "cvxpy" in sys.modules
sol = gaussqp.solve(problems.load("rod_wall_guide"), formulation="delassus_qp")
out["cvxpy_status"] = str(sol.status)
out["cvxpy_now"] = "cvxpy" in sys.modules
out["formulations"] = len(gaussqp.FORMULATIONS)
from gaussqp.backends import BACKENDS, installed
out["backends"] = {name: installed(b) for name, b in BACKENDS.items()}
"""


def test_import_gaussqp_leaves_the_heavy_modules_unloaded_and_solve_loads_them_on_first_use():
    out = _loaded_after("import gaussqp", HEAVY, then=SOLVE_AFTER)
    assert out["loaded"] == [], f"import gaussqp loaded {out['loaded']}: import them inside the functions using them"
    # F1 solves the shipped problem from a cold start, certified, on its direct path: the backend is chosen and called
    # without importing cvxpy (its import is ~1 s of a fresh process)
    assert out["route"] == "gauss_qp"
    assert out["status"] == "solved" and out["certified"]
    assert not out["cvxpy_after_direct"], "the direct path imported cvxpy"
    # the lazy path: a cvxpy program (delassus_qp) imports cvxpy on first use and solves
    assert out["cvxpy_status"] == "solved"
    assert out["cvxpy_now"], "the solve did not go through cvxpy: the lazy path was not exercised"
    assert out["formulations"] > 0
    assert out["backends"]["clarabel"] and out["backends"]["osqp"]


def test_the_command_line_parser_leaves_the_heavy_modules_unloaded():
    """``gaussqp --help`` builds the parser: no cvxpy, solver or optional component for that."""
    out = _loaded_after("import gaussqp.cli\ngaussqp.cli.build_parser()", HEAVY)
    assert out["loaded"] == []


def test_import_gaussqp_leaves_scipy_linalg_unloaded_where_the_floor_does():
    floor = _loaded_after("import numpy, scipy.sparse", LIGHTER)
    if floor["loaded"]:
        pytest.skip(f"numpy + scipy.sparse themselves load {floor['loaded']} with this SciPy")
    out = _loaded_after("import gaussqp", LIGHTER)
    assert out["loaded"] == []


def test_status_map_is_keyed_by_cvxpys_own_status_strings():
    """gaussqp.backends.base spells cvxpy's statuses out (so it need not import cvxpy); they must be cvxpy's."""
    import cvxpy as cp

    from gaussqp.backends.base import STATUS_MAP

    assert set(STATUS_MAP) == {
        cp.OPTIMAL,
        cp.OPTIMAL_INACCURATE,
        cp.INFEASIBLE,
        cp.INFEASIBLE_INACCURATE,
        cp.UNBOUNDED,
        cp.UNBOUNDED_INACCURATE,
    }
    assert STATUS_MAP[cp.OPTIMAL] == "solved" and STATUS_MAP[cp.OPTIMAL_INACCURATE] == "inaccurate"
    assert STATUS_MAP[cp.INFEASIBLE_INACCURATE] == "infeasible" and STATUS_MAP[cp.UNBOUNDED_INACCURATE] == "unbounded"


#: (module, component): modules that exist to use one optional component and import it at load time, with the
#: reason; nothing imports them at load time (the static test below checks the rest of the package)
COMPONENT_MODULES = {
    (
        "io/pinocchio.py",
        "pinocchio",
    ): "the Pinocchio importer: a user imports it to use Pinocchio (open_file imports it "
    "inside a function), and its missing-extra error is raised at its import",
}


def _is_type_checking(node) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _load_time_imports(f: pathlib.Path):
    """(line, absolute module names) of every import of ``f`` that runs when the module is imported: not inside a
    function body nor under ``if TYPE_CHECKING``. ``from .x import y`` gives ``gaussqp...x`` and ``gaussqp...x.y``."""
    rel = f.relative_to(ROOT.parent).with_suffix("").parts
    pkg = list(rel[:-1])  # the package a relative import starts from (a package's __init__ included)
    stack = list(ast.parse(f.read_text()).body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or _is_type_checking(node):
            continue
        if isinstance(node, ast.Import):
            yield node.lineno, [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = pkg[: len(pkg) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            yield node.lineno, [target] + [f"{target}.{a.name}" for a in node.names]
        stack.extend(ast.iter_child_nodes(node))


def test_no_module_of_the_package_imports_a_heavy_module_at_load_time():
    """The idiom everywhere, also in the modules ``import gaussqp`` does not load (grasp, studies, importers), but
    :data:`COMPONENT_MODULES`; and nothing imports those at load time."""
    component = {"gaussqp." + m[: -len(".py")].replace("/", ".") for m, _ in COMPONENT_MODULES}
    bad = []
    for f in sorted(ROOT.rglob("*.py")):
        rel = f.relative_to(ROOT).as_posix()
        for line, modules in _load_time_imports(f):
            for m in modules:
                heavy = any(m == h or m.startswith(h + ".") for h in HEAVY + LIGHTER)
                if heavy and (rel, m) not in COMPONENT_MODULES or m in component:
                    bad.append(f"gaussqp/{rel}:{line} imports {m}")
    assert not bad, bad
