"""Where a ``"provider/model"`` string leads: an in-process backend named by one line here, or
an HTTP provider (:mod:`troth.judges.providers`); each backend module is imported lazily.

Adding a backend: write ``troth/judges/backends/<name>.py`` with ``DECLARED`` (the
:class:`~troth.judges.capabilities.Capabilities` every model of it has), ``EXTRA`` if it needs
one (see :mod:`troth.extras`), and a
``from_options(config)`` function (a :class:`~troth.judges.config.JudgeConfig`) returning a
:class:`~troth.judges.base.Backend`, and add one
line to ``IN_PROCESS``.
"""

from __future__ import annotations

import difflib
import functools
import importlib
from types import ModuleType

from troth.errors import UnknownModelError
from troth.extras import require
from troth.judges.capabilities import Capabilities
from troth.judges.providers import PROVIDERS

IN_PROCESS: dict[str, str] = {
    "verifier": "troth.judges.backends.verifier",  # the offline claim verifier (ONNX), shipped inside troth
    "llm": "troth.judges.backends.llama",  # a local LLM: a GGUF model through llama.cpp
}
"""In-process backends: provider name -> module with ``from_options``. ``"name"`` alone means its default model."""

ALIASES: dict[str, str] = {
    "local": "verifier",  # the verifier's earlier name: ``local`` and ``local/<verifier>`` still work
    "local-llm": "llm",  # the local LLM's earlier name
}
"""Other names of in-process providers."""

HTTP_BACKEND = "troth.judges.backends.openai_compat"


@functools.cache
def backend_module(provider: str) -> ModuleType:
    """The module that builds ``provider``'s backends, imported once: an in-process one by
    name, else the OpenAI-compatible client."""
    return importlib.import_module(IN_PROCESS.get(provider, HTTP_BACKEND))


def declared(provider: str) -> Capabilities:
    """What a provider's backends can do, before one is built (no key checked, no model found):
    an in-process module's ``DECLARED``; an HTTP provider answers prompts."""
    found: Capabilities = backend_module(provider).DECLARED if provider in IN_PROCESS else Capabilities()
    return found


def route(model: str, base_url: str | None) -> tuple[str, str]:
    """Provider and name of a judge's model: with a ``base_url``, an in-process provider's model
    gets it (a backend that calls a service), any other name is a model of that custom server."""
    if base_url is None:
        return split_model(model)
    provider, _, name = model.partition("/")
    provider = ALIASES.get(provider, provider)
    return (provider, name) if provider in IN_PROCESS else ("custom", model)


def check_installed(provider: str) -> None:
    """MissingDependencyError now when an in-process provider's extra is not installed (its
    module's ``EXTRA``; an HTTP provider needs none)."""
    extra = getattr(backend_module(provider), "EXTRA", None) if provider in IN_PROCESS else None
    if extra is not None:
        require(extra)


def split_model(model: str) -> tuple[str, str]:
    """Split ``"provider/model"`` on the first slash (aliases resolved); validate the provider.

    An in-process provider alone (``"verifier"``, ``"llm"``, ``"local"``) is its default model.
    """
    if not isinstance(model, str) or not model.strip():
        raise UnknownModelError(str(model), hint="Models are written 'provider/model', e.g. 'openai/gpt-4o-mini'.")
    provider, sep, name = model.partition("/")
    provider = ALIASES.get(provider, provider)
    if provider in IN_PROCESS:
        return provider, name
    if not sep:
        guesses = [f"openai/{model}"] if model.startswith(("gpt-", "o1", "o3", "o4")) else []
        raise UnknownModelError(model, guesses, hint="Models are written 'provider/model'.")
    known = [*PROVIDERS, *IN_PROCESS, *ALIASES]
    if provider not in known:
        close = difflib.get_close_matches(provider, known, n=2, cutoff=0.6)
        raise UnknownModelError(
            model, [f"{c}/{name}" for c in close], hint=f"Known providers: {', '.join(sorted(known))}."
        )
    if not name:
        raise UnknownModelError(model, hint="The model name after the provider is missing.")
    return provider, name
