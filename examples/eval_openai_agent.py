"""Score an OpenAI Agents SDK agent's answers against what its tools returned.

python examples/eval_openai_agent.py [--base-url URL --model NAME]
"""

from loopback_model import QUESTIONS, lookup, model_server
from openai import AsyncOpenAI

from agents import Agent, OpenAIChatCompletionsModel, function_tool, set_tracing_disabled
from troth import create_faithfulness_scorer, run_evals

if __name__ == "__main__":
    server, base_url, name = model_server(__doc__ or "")
    set_tracing_disabled(True)  # this example sends nothing to OpenAI's trace service
    with server:
        model = OpenAIChatCompletionsModel(model=name, openai_client=AsyncOpenAI(base_url=base_url, api_key="k"))
        agent = Agent(name="city", instructions="Answer from the records.", tools=[function_tool(lookup)], model=model)
        result = run_evals(QUESTIONS, [create_faithfulness_scorer("verifier")], target=agent, store=None)
    for item in result.items:
        print(item.id, item.results["faithfulness"].score, item.metadata["agent"]["tool_calls"][0]["name"])
