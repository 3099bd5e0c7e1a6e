"""The HTTP providers a ``"provider/model"`` string can name: base URL, key variable,
structured-output mode and token parameter of each one's OpenAI-compatible endpoint."""

from __future__ import annotations

from dataclasses import dataclass

from troth.judges.capabilities import StructuredMode


@dataclass(frozen=True)
class Provider:
    """How to reach one provider through its OpenAI-compatible endpoint."""

    name: str
    base_url: str
    env_var: str | None
    structured: StructuredMode
    token_param: str = "max_tokens"
    key_required: bool = True
    url_var: str | None = None  # a variable that moves the endpoint (a proxy, a gateway)


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "openai",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            "json_schema",
            "max_completion_tokens",
            url_var="OPENAI_BASE_URL",  # as the openai client reads it
        ),
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
