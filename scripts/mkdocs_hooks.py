"""mkdocs hooks of the documentation site (``hooks:`` in mkdocs.yml).

The docstrings cite other objects with Sphinx roles (``:class:`~gaussqp.Solution```); mkdocstrings renders the
backticks as code and leaves the role as text (``:class:Solution``). This hook drops the role and, for a ``~``
target, keeps its last name, as Sphinx shows it."""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj|ref):(<code>)(~?)([^<]*)(</code>)")


def _show(m: re.Match) -> str:
    target = m.group(3)
    if m.group(2):
        target = target.rsplit(".", 1)[-1]
    return f"{m.group(1)}{target}{m.group(4)}"


def on_page_content(html: str, **kwargs) -> str:
    return ROLE.sub(_show, html)
