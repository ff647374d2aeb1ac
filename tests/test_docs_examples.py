"""Every example of the documentation runs (issue #31): each ``python`` block of the README and of the site's pages
(docs/) is executed, and each ``console`` block's ``$ gaussqp ...`` commands are run through the CLI; where a
``text`` block follows a python block directly, or output lines follow a command, what runs must print exactly that
(round-off numbers, |x| < 1e-9 in e-notation, compare as "~0"; a line "..." stands for any number of lines). The
docstring examples of the API reference (``>>>``) run as doctests. An example that needs an optional extra is
skipped, saying which."""

from __future__ import annotations

import doctest
import importlib
import re
import shlex

import pytest

from gaussqp.errors import MissingExtraError

from docs_text import PAGES, ROOT, blocks

OPTIONAL = {
    "mujoco": "mujoco",
    "pinocchio": "pinocchio",
    "h5py": "fclib",
    "pandas": "studies",
    "pyarrow": "studies",
    "tqdm": "studies",
    "dask": "dask",
    "distributed": "dask",
    "matplotlib": "plots",
    "dm_control": "models",
    "example_robot_data": "models",
}
ROUNDOFF = re.compile(r"-?\d+(?:\.\d+)?e-(?:09|1\d|[2-9]\d)\b")
#: the product prints a value within round-off of zero as ``~0`` and an exact zero as ``0``: which of the two a solve
#: gives depends on the machine's BLAS kernels (the docs were run on one machine), so both read as ``0`` here
NEAR_ZERO = re.compile(r"(?<![\w.])~0(?![\w.])")


def _examples():
    out = []
    for path in PAGES:
        found = blocks(path)
        for k, b in enumerate(found):
            if b.lang in ("python", "console"):
                expected = None
                if b.lang == "python" and k + 1 < len(found) and found[k + 1].lang == "text" and not b.after.strip():
                    expected = found[k + 1].text
                out.append(pytest.param(b, expected, id=b.name))
    return out


def _normal(text: str) -> list[str]:
    return [NEAR_ZERO.sub("0", ROUNDOFF.sub("~0", line.rstrip())) for line in text.strip("\n").splitlines()]


def assert_prints(printed: str, expected: str, where: str) -> None:
    """``printed`` is ``expected`` line by line (after :func:`_normal`; a line "..." matches any lines)."""
    got, want = _normal(printed), _normal(expected)
    pattern = "".join("(?:.*\n)*?" if w.strip() == "..." else re.escape(w) + "\n" for w in want)
    assert re.fullmatch(pattern, "".join(g + "\n" for g in got)), (
        f"{where} prints\n" + "\n".join(got) + "\n\nbut the page shows\n" + "\n".join(want)
    )


def _skip_missing(exc: ModuleNotFoundError) -> None:
    top = (exc.name or "").split(".")[0]
    if top in OPTIONAL:
        pytest.skip(f"needs {top} (the optional extra gaussqp[{OPTIONAL[top]}])")
    raise exc


def test_the_pages_have_examples():
    names = [p.values[0].name for p in _examples()]
    assert len(names) >= 20, names


@pytest.mark.parametrize("block, expected", _examples())
def test_example_runs(block, expected, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # an example that writes files writes them here
    if block.lang == "python":
        try:
            exec(compile(block.text, block.name, "exec"), {"__name__": "__docs__"})
        except ModuleNotFoundError as exc:
            _skip_missing(exc)
        except MissingExtraError as exc:  # a peer that is not a pip extra (Siconos): its message says how to get it
            pytest.skip(str(exc))
        printed = capsys.readouterr().out
        if expected is not None:
            assert_prints(printed, expected, block.name)
        return
    from gaussqp.cli import main

    commands: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
    assert commands, f"{block.name}: a console block without a '$ ' command"
    for command, output in commands:
        argv = shlex.split(command)
        assert argv[0] == "gaussqp", f"{block.name}: only gaussqp commands run here: {command}"
        try:
            code = main(argv[1:])
        except ModuleNotFoundError as exc:
            _skip_missing(exc)
        printed = capsys.readouterr().out
        assert code == 0, f"{block.name}: `{command}` exited {code}"
        if any(line.strip() for line in output):
            assert_prints(printed, "\n".join(output), f"{block.name}: `{command}`")


def _api_objects():
    """The objects the API reference renders (``::: name`` in docs/api/*.md)."""
    names = []
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        names += re.findall(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), flags=re.M)
    return names


def _resolve(name: str):
    if name.split(".")[0] == "problems":  # the source tree's problems/ is installed as gaussqp.problems
        name = "gaussqp." + name
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise AssertionError(f"the API reference names {name}, which does not import")


@pytest.mark.parametrize("name", _api_objects())
def test_api_reference_docstring_examples(name):
    try:
        obj = _resolve(name)
    except ModuleNotFoundError as exc:
        _skip_missing(exc)
    tests = [t for t in doctest.DocTestFinder(recurse=True).find(obj, name) if t.examples]
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} docstring examples failed"


def test_every_block_says_what_it_is():
    """Every fenced block names its language: ``python`` and ``console`` run (above), ``text`` is output or a
    formula, ``sh``/``bash`` are installs and commands on your own files (not run), ``json`` a file's text."""
    unnamed = [
        b.name
        for path in PAGES
        for b in blocks(path)
        if b.lang not in {"python", "console", "text", "sh", "bash", "json"}
    ]
    assert not unnamed, f"blocks without a known language: {unnamed}"
