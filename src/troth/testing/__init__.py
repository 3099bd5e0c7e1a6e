"""Test doubles: a loopback OpenAI-compatible server with scripted answers."""

from troth.testing.server import FakeOpenAIServer, Reply, ScriptedJudge

__all__ = ["FakeOpenAIServer", "Reply", "ScriptedJudge"]
