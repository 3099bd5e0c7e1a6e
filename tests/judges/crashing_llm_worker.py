"""A local-model worker for tests: the real worker loop (protocol, streams) around a scripted
model that kills its own process with SIGSEGV when a prompt contains ``CRASH``, as llama.cpp
does when built for another CPU.

    TROTH_LLM_WORKER="python tests/judges/crashing_llm_worker.py" troth eval data.jsonl --model llm/FILE.gguf
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any

from troth.judges.backends.llama_worker import protocol_streams, serve
from troth.testing.server import Request, ScriptedJudge

CRASH = "CRASH"
SCRIPT = ScriptedJudge(default=("yes", ""))


def handle(op: str, args: dict[str, Any]) -> Any:
    prompt = "\n".join(m["content"] for m in args["messages"])
    os.write(1, b"what llama.cpp prints on standard output\n")  # must not reach the answers
    if CRASH in prompt:
        os.kill(os.getpid(), signal.SIGSEGV)
    tokens = len(prompt) // 4
    if op == "choose":
        rest = (1.0 - 0.9) / (len(args["choices"]) - 1)
        return {"probabilities": {c: 0.9 if c == "yes" else rest for c in args["choices"]}, "prompt_tokens": tokens}
    if op == "complete":
        content = SCRIPT(Request("/v1/chat/completions", {}, {"messages": args["messages"]})).content
        text = json.dumps(content) if isinstance(content, dict) else str(content)
        return {
            "text": text,
            "finish_reason": "stop",
            "prompt_tokens": tokens,
            "completion_tokens": len(text) // 4,
            "attempts": 1,
        }
    raise ValueError(f"unknown operation {op!r}")


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests, answers = protocol_streams()
    print("worker for", sys.argv[1:], file=sys.stderr)
    serve(handle, requests, answers)
