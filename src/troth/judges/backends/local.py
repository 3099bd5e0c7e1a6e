"""``local``: the offline verifier by default; ``local/<name>`` is a packaged verifier or a
verifier folder, else a local LLM (a GGUF path or an installed model package, see ``local-llm``)."""

from __future__ import annotations

from pathlib import Path

from troth.judges.backends import llama, verifier
from troth.judges.base import Backend
from troth.judges.registry import BackendOptions


def from_options(options: BackendOptions) -> Backend:
    name = options.name
    if not name or name in verifier.packaged_verifiers() or (Path(name) / "card.json").is_file():
        return verifier.from_options(options)
    return llama.from_options(options)
