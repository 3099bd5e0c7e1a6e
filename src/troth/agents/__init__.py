"""Agents built with Python's agent frameworks, run as ``run_evals`` targets: the OpenAI Agents
SDK (``openai_agents``), pydantic-ai (``pydantic_ai``) and LangGraph or any LangChain runnable
that takes messages (``langchain``). The output scored is the agent's final answer; the context
is what its tool calls returned in that run, one segment each; the run keeps the tool calls, the
token usage and the framework's own run id.

No framework is imported at ``import troth``: an adapter is chosen by the target's class (the
module it comes from), and imports its framework when it runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from troth.agents.run import AgentRun, ToolCall

Adapter = Callable[[Any, Any], Awaitable[AgentRun]]

ACCEPTED = (
    "a function (sync or async) of the input, an object with .generate/.agenerate, an OpenAI Agents SDK "
    "Agent, a pydantic-ai Agent, or a LangGraph graph / LangChain runnable that takes messages"
)


def adapter_for(target: Any) -> Adapter | None:
    """The adapter that runs ``target``, when it is an agent of a known framework."""
    module, name = type(target).__module__, type(target).__name__
    if module.split(".")[0] == "agents" and name == "Agent":
        from troth.agents import openai_agents

        return openai_agents.run
    if module.split(".")[0] == "pydantic_ai" and name == "Agent":
        from troth.agents import pydantic_ai

        return pydantic_ai.run
    if module.split(".")[0] in ("langgraph", "langchain", "langchain_core") and hasattr(target, "ainvoke"):
        from troth.agents import langchain

        return langchain.run
    return None


__all__ = ["ACCEPTED", "AgentRun", "ToolCall", "adapter_for"]
