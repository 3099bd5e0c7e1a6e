"""An agent's model on the loopback server: it asks for one tool call, then answers once the
tool's result is in the conversation (how the agent tests, examples and benchmarks run real
agent frameworks offline)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from troth.testing.server import Reply, Request


@dataclass
class ToolCallingModel:
    """A responder for :class:`~troth.testing.FakeOpenAIServer` (chat completions): the first call
    asks for ``tool(**arguments)``; once a tool message is in, it answers ``answer``. With
    ``call_tool=False`` it answers at once. ``tokens``: (prompt, completion) of the tool call
    and of the answer; ``delay``: seconds before each reply."""

    answer: str
    tool: str = "lookup"
    arguments: dict[str, Any] = field(default_factory=lambda: {"topic": "bridge"})
    call_tool: bool = True
    tokens: tuple[tuple[int, int], tuple[int, int]] = ((10, 5), (20, 7))
    delay: float = 0.0

    def __call__(self, request: Request) -> Reply:
        if not self.call_tool or any(m.get("role") == "tool" for m in request.body.get("messages", [])):
            return self._completion({"role": "assistant", "content": self.answer}, "stop", self.tokens[1])
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": self.tool, "arguments": json.dumps(self.arguments)},
        }
        return self._completion(
            {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls", self.tokens[0]
        )

    def _completion(self, message: dict[str, Any], finish: str, tokens: tuple[int, int]) -> Reply:
        usage = {"prompt_tokens": tokens[0], "completion_tokens": tokens[1], "total_tokens": sum(tokens)}
        choice = {"index": 0, "finish_reason": finish, "message": message}
        body = {"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice], "usage": usage}
        return Reply(body=body, delay=self.delay)
