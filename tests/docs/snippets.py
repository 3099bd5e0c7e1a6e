"""The code blocks of the README and the docs, read as the tests run them.

A ```python or ```bash block runs. An HTML comment on the line before a block says otherwise:
``<!-- test: skip REASON -->`` (syntax-checked only: it needs a key, a network, an install),
``<!-- test: output -->`` on a ```text block (the stdout of the block before it, where a line
``...`` stands for any lines). A block that only includes a file (``--8<-- "examples/x.py"``)
shows an example that ``tests/examples`` runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = ("python", "bash")
FENCE = re.compile(r"^```(\w*)")
MARK = re.compile(r"^<!-- test: (\w+)\s*(.*?)\s*-->$")
INCLUDE = re.compile(r'^--8<-- "([^"]+)"$')


@dataclass
class Snippet:
    """One code block: where it is, its language and code, what the comment before it says."""

    path: Path
    line: int
    lang: str
    code: str
    mark: str = ""
    reason: str = ""
    output: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def include(self) -> str | None:
        """The file a block only includes, if that is all it does."""
        found = INCLUDE.match(self.code.strip())
        return found.group(1) if found else None


def blocks(path: Path) -> list[Snippet]:
    """Every fenced block of a Markdown file, each with the mark on the line before it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Snippet] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i].strip()) if lines[i].startswith("```") else None
        if fence is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        mark = MARK.match(lines[i - 1].strip()) if i else None
        found.append(
            Snippet(
                path,
                i + 1,
                fence.group(1),
                "\n".join(lines[i + 1 : end]) + "\n",
                mark.group(1) if mark else "",
                mark.group(2) if mark else "",
            )
        )
        i = end + 1
    return found


def snippets(path: Path) -> list[Snippet]:
    """The Python and shell blocks of a file, each with its expected output when one follows it."""
    kept: list[Snippet] = []
    for block in blocks(path):
        if block.mark == "output":
            if not kept or kept[-1].output is not None:
                raise ValueError(f"{block.where}: an output block with no code block before it")
            kept[-1].output = block.code
        elif block.lang in RUN:
            kept.append(block)
    return kept


def pages() -> list[Path]:
    """The README and every page of the docs site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def matches(expected: str, got: str) -> bool:
    """``got`` has ``expected``'s lines, where a line ``...`` stands for any number of lines."""
    pattern = "".join(
        r"(?:.*\n)*?" if line.strip() == "..." else re.escape(line.rstrip()) + r"[ \t]*\n"
        for line in expected.splitlines()
    )
    return re.fullmatch(pattern, got if got.endswith("\n") or not got else got + "\n") is not None
