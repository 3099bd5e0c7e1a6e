"""Where a ``"provider/model"`` string leads: HTTP providers (base URL, key variable,
structured-output mode) and in-process backends, each named by one line and imported lazily.

Adding a backend: write ``troth/judges/backends/<name>.py`` with a ``from_options(options)``
function returning a :class:`~troth.judges.base.Backend`, and add one line to ``IN_PROCESS``.
"""

from __future__ import annotations

import difflib
import importlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from troth.errors import MissingAPIKeyError, UnknownModelError
from troth.judges.capabilities import StructuredMode

if TYPE_CHECKING:
    from troth.judges.base import Backend


@dataclass(frozen=True)
class Provider:
    """How to reach one provider through its OpenAI-compatible endpoint."""

    name: str
    base_url: str
    env_var: str | None
    structured: StructuredMode
    token_param: str = "max_tokens"
    key_required: bool = True


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "json_schema", "max_completion_tokens"),
        # Anthropic's OpenAI-compatible endpoint ignores response_format: schema goes in the prompt.
        Provider("anthropic", "https://api.anthropic.com/v1/", "ANTHROPIC_API_KEY", "prompt"),
        Provider("google", "https://generativelanguage.googleapis.com/v1beta/openai/", "GEMINI_API_KEY", "json_schema"),
        Provider("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", "json_schema"),
        Provider("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", "json_object"),
        Provider("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "json_schema"),
        Provider("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY", "json_schema"),
        Provider("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "json_object"),
        Provider("xai", "https://api.x.ai/v1", "XAI_API_KEY", "json_schema"),
        Provider("ollama", "http://localhost:11434/v1", None, "json_schema", key_required=False),
    )
}

IN_PROCESS: dict[str, str] = {
    "local": "troth.judges.backends.local",  # the offline verifier, or a GGUF model named after the slash
    "local-llm": "troth.judges.backends.llama",  # a GGUF model through llama.cpp
}
"""In-process backends: provider name -> module with ``from_options``. ``"name"`` alone means its default model."""

HTTP_BACKEND = "troth.judges.backends.openai_compat"
LOCAL_PROVIDER = "local"


@dataclass(frozen=True)
class BackendOptions:
    """What a backend is built from: the model string split, and the judge's transport settings."""

    model: str
    provider: str
    name: str
    base_url: str | None = None
    api_key: str | None = None
    structured: StructuredMode | None = None
    timeout: float = 60.0
    max_retries: int = 4


def make_backend(options: BackendOptions) -> Backend:
    """The backend for ``options``: an in-process one by name, else an OpenAI-compatible server."""
    module = IN_PROCESS.get(options.provider, HTTP_BACKEND)
    backend: Backend = importlib.import_module(module).from_options(options)
    return backend


def http_endpoint(options: BackendOptions) -> tuple[str, str, StructuredMode, str]:
    """Base URL, API key, structured mode and token parameter of an HTTP judge (checks the key)."""
    if options.provider == "custom":
        key = options.api_key or os.environ.get("TROTH_API_KEY") or "not-needed"
        return str(options.base_url), key, options.structured or "json_schema", "max_tokens"
    spec = PROVIDERS[options.provider]
    key = options.api_key or (os.environ.get(spec.env_var) if spec.env_var else None) or ""
    if not key:
        if spec.key_required and spec.env_var:
            raise MissingAPIKeyError(spec.name, spec.env_var)
        key = "not-needed"
    return spec.base_url, key, options.structured or spec.structured, spec.token_param


def split_model(model: str) -> tuple[str, str]:
    """Split ``"provider/model"`` on the first slash; validate the provider name.

    ``"local"`` alone is the offline judge's default model.
    """
    if not isinstance(model, str) or not model.strip():
        raise UnknownModelError(str(model), hint="Models are written 'provider/model', e.g. 'openai/gpt-4o-mini'.")
    if model in IN_PROCESS:
        return model, ""
    provider, sep, name = model.partition("/")
    if not sep:
        guesses = [f"openai/{model}"] if model.startswith(("gpt-", "o1", "o3", "o4")) else []
        raise UnknownModelError(model, guesses, hint="Models are written 'provider/model'.")
    known = [*PROVIDERS, *IN_PROCESS]
    if provider not in known:
        close = difflib.get_close_matches(provider, known, n=2, cutoff=0.6)
        raise UnknownModelError(
            model, [f"{c}/{name}" for c in close], hint=f"Known providers: {', '.join(sorted(known))}."
        )
    if not name and provider not in IN_PROCESS:
        raise UnknownModelError(model, hint="The model name after the provider is missing.")
    return provider, name
