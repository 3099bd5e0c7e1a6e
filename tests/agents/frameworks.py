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
    from langchain.agents import create_agent
    from langchain_core.tools import tool as as_tool
    from langchain_openai import ChatOpenAI

    with warnings.catch_warnings():  # its successor lives in the langchain package, which this test does not need
        warnings.simplefilter("ignore", DeprecationWarning)
        return create_agent(ChatOpenAI(model="m", base_url=base_url, api_key="k", max_retries=0), [as_tool(tool)])


FRAMEWORKS = {"openai-agents": openai_agent, "pydantic-ai": pydantic_agent, "langgraph": langgraph_agent}


# -- the same agents watched live by a Monitor, through each framework's own hook ---------------
async def watched_openai_run(base_url: str, monitor: Any, question: str, tool: Callable[..., str] = lookup) -> Any:
    from agents import Runner, set_trace_processors, set_tracing_disabled
    from troth.agents.openai_agents import TrothProcessor

    agent = openai_agent(base_url, tool)
    set_tracing_disabled(False)
    set_trace_processors([TrothProcessor(monitor)])  # an app keeps its exporters: add_trace_processor(...)
    try:
        return (await Runner.run(agent, question)).final_output
    finally:
        set_trace_processors([])
        set_tracing_disabled(True)


async def watched_pydantic_run(base_url: str, monitor: Any, question: str, tool: Callable[..., str] = lookup) -> Any:
    need("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from troth.agents.pydantic_ai import troth_hooks

    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=base_url, api_key="k"))
    agent = Agent(model, tools=[tool], capabilities=[troth_hooks(monitor)])
    return (await agent.run(question)).output


async def watched_langgraph_run(base_url: str, monitor: Any, question: str, tool: Callable[..., str] = lookup) -> Any:
    from troth.agents.langchain import TrothCallback

    graph = langgraph_agent(base_url, tool)
    result = await graph.ainvoke({"messages": [("user", question)]}, config={"callbacks": [TrothCallback(monitor)]})
    return result["messages"][-1].content


WATCHED = {"openai-agents": watched_openai_run, "pydantic-ai": watched_pydantic_run, "langgraph": watched_langgraph_run}
