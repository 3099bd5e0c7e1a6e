"""Judges: HTTP (any OpenAI-compatible server) and local (llama.cpp) backends behind one Judge."""

from troth.judges.judge import Judge
from troth.judges.providers import PROVIDERS

__all__ = ["PROVIDERS", "Judge"]
