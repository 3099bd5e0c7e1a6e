from troth.text.transcripts import assistant_text, is_messages, tool_results, user_text

OPENAI_STYLE = [
    {"role": "user", "content": "What is the weather in Oslo?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "Oslo: 4 °C, light rain"},
    {"role": "assistant", "content": [{"type": "text", "text": "It is 4 °C and raining in Oslo."}]},
]

MASTRA_STYLE = [
    {"role": "user", "content": "Tell me about the Model 3."},
    {
        "role": "assistant",
        "content": "",
        "toolInvocations": [
            {
                "state": "result",
                "toolCallId": "t1",
                "toolName": "search",
                "args": {},
                "result": "Model 3 range: 438 km",
            },
            {"state": "call", "toolCallId": "t2", "toolName": "search", "args": {}},
        ],
    },
    {
        "role": "assistant",
        "content": {
            "format": 2,
            "parts": [
                {"type": "tool-invocation", "toolInvocation": {"state": "result", "result": {"price": 40000}}},
                {"type": "text", "text": "The Model 3 has a range of 438 km."},
            ],
        },
    },
]


def test_openai_tool_messages_are_context() -> None:
    assert tool_results(OPENAI_STYLE) == ["Oslo: 4 °C, light rain"]
    assert assistant_text(OPENAI_STYLE) == "It is 4 °C and raining in Oslo."
    assert user_text(OPENAI_STYLE) == "What is the weather in Oslo?"


def test_mastra_tool_invocations_in_message_and_parts() -> None:
    assert tool_results(MASTRA_STYLE) == ["Model 3 range: 438 km", '{"price": 40000}']
    assert assistant_text(MASTRA_STYLE) == "The Model 3 has a range of 438 km."


def test_tool_result_parts_and_pending_calls() -> None:
    msgs = [
        {"role": "assistant", "content": [{"type": "tool-invocation", "toolInvocation": {"state": "call"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "x", "result": [1, 2]}]},
    ]
    assert tool_results(msgs) == ["[1, 2]"]


def test_is_messages() -> None:
    assert is_messages(OPENAI_STYLE)
    assert not is_messages([])
    assert not is_messages(["a", "b"])
    assert not is_messages("text")
