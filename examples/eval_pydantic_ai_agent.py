"""Score a pydantic-ai agent's answers against what its tools returned.

python examples/eval_pydantic_ai_agent.py [--base-url URL --model NAME]
"""

from loopback_model import QUESTIONS, lookup, model_server
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from troth import create_faithfulness_scorer, run_evals

if __name__ == "__main__":
    server, base_url, name = model_server(__doc__ or "")
    with server:
        agent = Agent(OpenAIChatModel(name, provider=OpenAIProvider(base_url=base_url, api_key="k")), tools=[lookup])
        result = run_evals(QUESTIONS, [create_faithfulness_scorer("verifier")], target=agent, store=None)
    for item in result.items:
        print(item.id, item.results["faithfulness"].score, item.metadata["agent"]["tool_calls"][0]["name"])
