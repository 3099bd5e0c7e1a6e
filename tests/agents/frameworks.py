"""Each framework's agent with the ``lookup`` tool, on the loopback model (as a user writes it)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from tests.agents.conftest import lookup, need


def openai_agent(base_url: str, tool: Callable[..., str] = lookup) -> Any:
    need("agents")
    from openai import AsyncOpenAI

    from agents import Agent, OpenAIChatCompletionsModel, function_tool, set_tracing_disabled

    set_tracing_disabled(True)  # nothing leaves this machine
    model = OpenAIChatCompletionsModel(model="m", openai_client=AsyncOpenAI(base_url=base_url, api_key="k"))
    return Agent(name="city", instructions="Answer from the records.", tools=[function_tool(tool)], model=model)


def pydantic_agent(base_url: str, tool: Callable[..., str] = lookup) -> Any:
    need("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    return Agent(OpenAIChatModel("m", provider=OpenAIProvider(base_url=base_url, api_key="k")), tools=[tool])


def langgraph_agent(base_url: str, tool: Callable[..., str] = lookup) -> Any:
    need("langgraph")
    need("langchain_openai")
    from langchain_core.tools import tool as as_tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():  # its successor lives in the langchain package, which this test does not need
        warnings.simplefilter("ignore", DeprecationWarning)
        return create_react_agent(ChatOpenAI(model="m", base_url=base_url, api_key="k", max_retries=0), [as_tool(tool)])


FRAMEWORKS = {"openai-agents": openai_agent, "pydantic-ai": pydantic_agent, "langgraph": langgraph_agent}
