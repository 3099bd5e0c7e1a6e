"""Testing helpers: assertions for test suites and a loopback OpenAI-compatible server."""

from troth.testing.agent_model import ToolCallingModel
from troth.testing.asserts import assert_faithful, assert_not_hallucinated, assert_relevant
from troth.testing.server import FakeOpenAIServer, Reply, ScriptedJudge

__all__ = [
    "FakeOpenAIServer",
    "Reply",
    "ScriptedJudge",
    "ToolCallingModel",
    "assert_faithful",
    "assert_not_hallucinated",
    "assert_relevant",
]
