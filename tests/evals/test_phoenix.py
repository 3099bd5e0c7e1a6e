"""The Phoenix round trip against a real Phoenix (the arize-phoenix package in a venv of its own,
``make phoenix``, served on 127.0.0.1 with SQLite): an OpenAI Agents SDK agent instrumented with
OpenInference sends its spans there; ``troth eval --from-phoenix URL --project P`` scores them
and writes the scores back as span annotations; Phoenix's own client reads them back, and the
trace page shows them in Chromium (the screenshot kept in $TROTH_SCREENSHOTS when set)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.agents.conftest import ANSWER, TOOL_RESULT, need, scripted_agent_model
from tests.agents.frameworks import FRAMEWORKS
from tests.commands import troth
from tests.evals.test_conventions import recorded
from tests.evals.test_otlp import QUESTION
from tests.report.test_page import FLAGS, need_chromium
from troth.evals.phoenix import read_phoenix
from troth.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("TROTH_PHOENIX_VENV") or ROOT / ".venv-phoenix")
PROJECT = "city"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not (VENV / "bin" / "phoenix").exists():
        if os.environ.get("TROTH_REQUIRE_PHOENIX") == "1":
            pytest.fail(f"Phoenix is required (TROTH_REQUIRE_PHOENIX=1) but {VENV} has none: make phoenix")
        pytest.skip("no Phoenix venv (make phoenix)")
    work = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = (work / "phoenix.log").open("w")
    server = subprocess.Popen([str(VENV / "bin" / "phoenix"), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, server, work / "phoenix.log")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _wait_until_up(url: str, server: subprocess.Popen[bytes], log: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"Phoenix exited ({server.returncode}): {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"Phoenix did not come up in {seconds:.0f} s: {log.read_text()[-2000:]}")


def send_agent_spans(url: str, base_url: str) -> None:
    """A real agent's run, its spans made by OpenInference's instrumentation and posted to
    Phoenix's OTLP endpoint by the OpenTelemetry SDK's own encoder (project ``PROJECT``)."""
    need("openinference.instrumentation.openai_agents")
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agents import Runner

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource({"openinference.project.name": PROJECT}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = FRAMEWORKS["openai-agents"](base_url)
    recorded([OpenAIAgentsInstrumentor()], lambda: Runner.run(agent, QUESTION), (provider, exporter))
    body = encode_spans(exporter.get_finished_spans()).SerializeToString()
    sent = httpx.post(f"{url}/v1/traces", content=body, headers={"content-type": "application/x-protobuf"})
    assert sent.status_code == 200, sent.text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # Phoenix ingests in the background
        page = httpx.get(f"{url}/v1/projects/{PROJECT}/spans/otlpv1", params={"limit": "100"})
        if page.status_code == 200 and len(page.json()["data"]) == len(exporter.get_finished_spans()):
            return
        time.sleep(0.5)
    pytest.fail("Phoenix did not show the spans sent")


def phoenix_client(url: str, code: str) -> Any:
    """``code`` run with Phoenix's own client (``client``) in Phoenix's venv; what it prints, as JSON."""
    script = f"from phoenix.client import Client\nclient = Client(base_url={url!r})\n{code}"
    done = subprocess.run([str(VENV / "bin" / "python"), "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_scores_go_back_to_phoenix_as_annotations_on_the_spans_they_judge(phoenix: str, tmp_path: Path) -> None:
    with FakeOpenAIServer(scripted_agent_model()) as model:
        send_agent_spans(phoenix, model.base_url)
    (item,) = read_phoenix(phoenix, PROJECT)  # one agent run: its nested agent and chain spans fold into it
    assert (item.input, item.output, item.context) == (QUESTION, ANSWER, [TOOL_RESULT])
    done = troth("eval", "--from-phoenix", phoenix, "--project", PROJECT, "--no-store", "--threshold", "0.5")
    assert done.returncode == 0, done.stderr
    assert f"1 annotation(s) written to Phoenix project '{PROJECT}' at {phoenix}" in done.stdout
    code = (
        f"found = client.spans.get_span_annotations(span_ids=[{item.metadata['span_id']!r}], "
        f"project_identifier={PROJECT!r})\n"
        "import json; print(json.dumps([dict(a) for a in found], default=str))"
    )
    (annotation,) = phoenix_client(phoenix, code)
    assert annotation["name"] == "faithfulness" and annotation["annotator_kind"] == "LLM"
    assert annotation["result"]["score"] == 1.0 and annotation["result"]["label"] == "pass"
    assert "1 of 1 claims are supported" in annotation["result"]["explanation"]
    again = troth("eval", "--from-phoenix", phoenix, "--project", PROJECT, "--no-store")
    assert again.returncode == 0 and len(phoenix_client(phoenix, code)) == 1  # written again: replaced
    page = _trace_page(phoenix, item.metadata["trace_id"], tmp_path)
    assert "faithfulness" in page and "Agent workflow" in page


def _trace_page(url: str, trace_id: str, tmp_path: Path) -> str:
    """The trace's page in Phoenix's UI, rendered by Chromium: its DOM, and a screenshot."""
    chromium = need_chromium()
    project_id = httpx.get(f"{url}/v1/projects/{PROJECT}").json()["data"]["id"]
    page = f"{url}/projects/{project_id}/traces/{trace_id}"
    wait = ["--virtual-time-budget=15000", "--window-size=1400,1000"]
    shots = Path(os.environ.get("TROTH_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / "phoenix-trace.png"
    subprocess.run(
        [chromium, *FLAGS, *wait, f"--screenshot={shot}", page], capture_output=True, timeout=120, check=True
    )
    assert shot.stat().st_size > 10_000
    dom = subprocess.run([chromium, *FLAGS, *wait, "--dump-dom", page], capture_output=True, text=True, timeout=120)
    return dom.stdout
