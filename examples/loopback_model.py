"""A model on 127.0.0.1 for the agent examples to run offline: it asks for ``lookup`` once, then
answers from the tool's result. Pass ``--base-url`` to an example to use a real server instead."""

from __future__ import annotations

import argparse
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from troth.testing import FakeOpenAIServer, ToolCallingModel

QUESTIONS = [{"id": "bridge", "input": "When did the Harbour Bridge open?"}]


def lookup(topic: str) -> str:
    """Look a topic up in the city's records."""
    return "The Harbour Bridge opened in 1932 and is 134 m high." if "bridge" in topic else "nothing found"


def model_server(description: str) -> tuple[AbstractContextManager[Any], str, str]:
    """The model to use (a context to enter), its base URL and model name, from the command line."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--base-url", help="an OpenAI-compatible server (default: a scripted one on 127.0.0.1)")
    parser.add_argument("--model", default="m")
    args = parser.parse_args()
    if args.base_url:
        return nullcontext(), args.base_url, args.model
    server = FakeOpenAIServer(ToolCallingModel("The Harbour Bridge opened in 1932."), record=False)
    return server, server.base_url, args.model
