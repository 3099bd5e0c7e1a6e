"""Read chat transcripts: the assistant's answer, the user's question, and tool-call results.

Two message styles are understood:
- OpenAI: ``{"role": "tool", "tool_call_id": ..., "content": ...}`` answering an assistant's
  ``tool_calls``;
- Mastra / AI SDK: ``toolInvocations`` entries with ``state == "result"`` on the message or in
  its content, and ``tool-invocation`` / ``tool-result`` content parts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from troth.errors import InvalidTranscriptError


def is_messages(value: object) -> bool:
    """True for a non-empty list of chat messages (dicts or objects with a ``role``)."""
    return isinstance(value, list) and bool(value) and all(_role(m) is not None for m in value)


@runtime_checkable
class _Dumps(Protocol):
    """A pydantic model or an SDK object that dumps itself to a dict."""

    def model_dump(self) -> Any: ...


def as_dict(message: Any) -> dict[str, Any]:
    """A message as a plain dict (pydantic models and SDK objects included)."""
    if isinstance(message, dict):
        return message
    if isinstance(message, _Dumps):
        result = message.model_dump()
        if isinstance(result, dict):
            return result
    return dict(vars(message)) if hasattr(message, "__dict__") else {}


def _role(message: Any) -> str | None:
    role = as_dict(message).get("role")
    return role if isinstance(role, str) else None


def as_segment(value: Any) -> str:
    """A tool's result as one context segment: a string as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)


def _text_of(content: Any) -> str:
    """The text of a message's content: a string, a list of parts, or a Mastra content object."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        inner = content.get("content")
        if isinstance(inner, str):
            return inner
        return _text_of(content.get("parts", []))
    if isinstance(content, list):
        texts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(t for t in texts if isinstance(t, str) and t)
    return ""


def _listed(value: Any, where: str) -> list[Any]:
    """``value`` when it is a list; nothing for None; InvalidTranscriptError naming ``where`` otherwise."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidTranscriptError(f"{where} must be a list, not {type(value).__name__}")
    return value


def _invocation_results(items: list[Any]) -> list[str]:
    out = []
    for inv in items:
        if isinstance(inv, dict) and inv.get("state") == "result" and "result" in inv:
            out.append(as_segment(inv["result"]))
    return out


def _part_results(parts: list[Any], where: str) -> list[str]:
    out: list[str] = []
    for i, part in enumerate(parts):
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "tool-invocation":
            out.extend(_invocation_results([part.get("toolInvocation")]))
        elif kind == "tool-result":
            value = part.get("result", part.get("output"))
            if value is not None:
                out.append(as_segment(value))
        elif kind is not None and not isinstance(kind, str):
            raise InvalidTranscriptError(f"{where}[{i}].type must be a string, not {type(kind).__name__}")
    return out


def _tool_message(content: Any, where: str) -> list[str]:
    """The result(s) a ``tool`` message carries."""
    if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == "tool-result" for p in content):
        return _part_results(content, f"{where}.content")
    if content is None:
        return []
    return [as_segment(_text_of(content) if isinstance(content, list) else content)]


def tool_results(messages: list[Any]) -> list[str]:
    """Every tool-call result in the transcript, in order, one context segment each.

    Raises InvalidTranscriptError naming a field that holds a value of the wrong kind (a number
    where a list of tool invocations belongs, say)."""
    segments: list[str] = []
    for n, raw in enumerate(messages):
        msg, where = as_dict(raw), f"messages[{n}]"
        content = msg.get("content")
        if msg.get("role") == "tool":
            segments.extend(_tool_message(content, where))
            continue
        segments.extend(_invocation_results(_listed(msg.get("toolInvocations"), f"{where}.toolInvocations")))
        if isinstance(content, dict):
            inner = f"{where}.content"
            segments.extend(_invocation_results(_listed(content.get("toolInvocations"), f"{inner}.toolInvocations")))
            segments.extend(_part_results(_listed(content.get("parts"), f"{inner}.parts"), f"{inner}.parts"))
        elif isinstance(content, list):
            segments.extend(_part_results(content, f"{where}.content"))
    return segments


def _last_text(messages: list[Any], role: str) -> str:
    for raw in reversed(messages):
        msg = as_dict(raw)
        if msg.get("role") == role:
            text = _text_of(msg.get("content"))
            if text.strip():
                return text
    return ""


def assistant_text(messages: list[Any]) -> str:
    """The assistant's final answer: its last message with text."""
    return _last_text(messages, "assistant")


def answer_text(output: Any) -> str:
    """A stored output as text: a string as it is, chat messages as the assistant's answer, what
    cannot be read as such as JSON, nothing for None."""
    if output is None or isinstance(output, str):
        return output or ""
    try:
        return assistant_text(output)
    except Exception:  # not messages after all: shown as they are
        return json.dumps(output, ensure_ascii=False, indent=1, default=str)


def user_text(messages: list[Any]) -> str:
    """The user's last question."""
    return _last_text(messages, "user")


@dataclass(frozen=True)
class Transcript:
    """A chat transcript read once: the messages, the assistant's answer, the user's question
    and the tool-call results (the context a scorer falls back to)."""

    messages: list[Any]
    answer: str
    question: str
    tool_results: list[str]

    @classmethod
    def read(cls, messages: list[Any]) -> Transcript:
        return cls(list(messages), assistant_text(messages), user_text(messages), tool_results(messages))
