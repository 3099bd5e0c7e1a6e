"""Score a LangGraph agent's answers against what its tools returned.

python examples/eval_langgraph_agent.py [--base-url URL --model NAME]
"""

from langchain.agents import create_agent
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from loopback_model import QUESTIONS, lookup, model_server

from troth import create_faithfulness_scorer, run_evals

if __name__ == "__main__":
    server, base_url, name = model_server(__doc__ or "")
    with server:
        agent = create_agent(ChatOpenAI(model=name, base_url=base_url, api_key="k"), [tool(lookup)])
        result = run_evals(QUESTIONS, [create_faithfulness_scorer("verifier")], target=agent, store=None)
    for item in result.items:
        print(item.id, item.results["faithfulness"].score, item.metadata["agent"]["tool_calls"][0]["name"])
