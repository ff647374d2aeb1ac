"""``python -m gaussqp.problems``: regenerate the shipped JSON files from the builders."""

from . import regenerate

for p in regenerate():
    print(p)
