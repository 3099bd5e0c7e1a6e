"""Known providers: ``"provider/model"`` -> base URL, key variable and structured-output mode."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from troth.errors import UnknownModelError

StructuredMode = Literal["json_schema", "json_object", "prompt"]


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

LOCAL_PROVIDER = "local"


def split_model(model: str) -> tuple[str, str]:
    """Split ``"provider/model"`` on the first slash; validate the provider name.

    ``"local"`` alone is the offline judge's default model.
    """
    if not isinstance(model, str) or not model.strip():
        raise UnknownModelError(str(model), hint="Models are written 'provider/model', e.g. 'openai/gpt-4o-mini'.")
    if model == LOCAL_PROVIDER:
        return LOCAL_PROVIDER, ""
    provider, sep, name = model.partition("/")
    if not sep:
        guesses = [f"openai/{model}"] if model.startswith(("gpt-", "o1", "o3", "o4")) else []
        raise UnknownModelError(model, guesses, hint="Models are written 'provider/model'.")
    known = [*PROVIDERS, LOCAL_PROVIDER]
    if provider not in known:
        close = difflib.get_close_matches(provider, known, n=2, cutoff=0.6)
        raise UnknownModelError(
            model, [f"{c}/{name}" for c in close], hint=f"Known providers: {', '.join(sorted(known))}."
        )
    if not name and provider != LOCAL_PROVIDER:
        raise UnknownModelError(model, hint="The model name after the provider is missing.")
    return provider, name
