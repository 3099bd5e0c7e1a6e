"""The documentation site: a strict build with no warning, a reference entry for every public
name and every CLI option, and pages a browser shows offline: home, API, search results."""

from __future__ import annotations

import functools
import http.server
import inspect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import troth
from tests.docs.snippets import ROOT
from tests.report.test_page import FLAGS, need_chromium
from troth.cli import app


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "WARNING" not in done.stderr, done.stderr
    return out


def test_every_public_name_has_a_reference_entry_with_a_summary(site: Path) -> None:
    page = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name in troth.__all__:
        if name == "__version__":
            assert "troth.__version__" in page
            continue
        assert f'id="troth.{name}"' in page, name
        summary = (inspect.getdoc(getattr(troth, name)) or "").strip().splitlines()
        assert summary and summary[0], f"troth.{name} has no one-line summary"
        assert summary[0].split("``")[0].split(":")[0][:20] in page.replace("<code>", "").replace("</code>", "")
    assert not re.search(r":(class|func|meth|mod):<code>", page)  # reST roles shown as plain code


def test_every_cli_command_and_option_is_in_the_cli_reference(site: Path) -> None:
    import typer

    page = (site / "cli" / "index.html").read_text(encoding="utf-8")

    def walk(cmd: Any, path: str) -> Iterator[tuple[str, str]]:
        ctx = cmd.context_class(cmd, info_name=path.split()[-1])
        yield path, ""
        for param in cmd.params:
            for opt in param.opts if param.param_type_name == "option" else []:
                yield path, opt
        for name in cmd.list_commands(ctx) if hasattr(cmd, "list_commands") else []:
            yield from walk(cmd.get_command(ctx, name), f"{path} {name}")

    pairs = list(walk(typer.main.get_command(app), "troth"))
    assert len({p for p, _ in pairs}) >= 10 and len(pairs) > 60
    for path, option in pairs:
        heading = f'<h3 id="{path.replace(" ", "-")}"><code>{path}</code>'
        assert heading in page, path
        if option:
            section = page.split(heading, 1)[1].split("<h3", 1)[0]
            assert f"<code>{option}</code>" in section, f"{path} {option}"


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def browse(url: str, expression: str, timeout: float = 60) -> Any:
    """Open ``url`` in headless Chromium and evaluate ``expression`` until it is truthy (the
    DevTools protocol: the search index is built by a web worker, after the page has loaded)."""
    from websockets.sync.client import connect

    chromium = need_chromium()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        args = [chromium, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            port_file, deadline = Path(profile) / "DevToolsActivePort", time.monotonic() + timeout
            while not port_file.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            port = port_file.read_text().split()[0]
            targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=10).read())
            page = next(t for t in targets if t["type"] == "page")
            with connect(page["webSocketDebuggerUrl"], max_size=None) as ws:
                ws.send(json.dumps({"id": 1, "method": "Page.navigate", "params": {"url": url}}))
                value: Any = None
                while not value and time.monotonic() < deadline:
                    time.sleep(0.25)
                    ask = {"expression": expression, "returnByValue": True}
                    ws.send(json.dumps({"id": 2, "method": "Runtime.evaluate", "params": ask}))
                    reply = next(r for r in map(json.loads, ws) if r.get("id") == 2)
                    value = reply.get("result", {}).get("result", {}).get("value")
                return value
        finally:
            os.killpg(proc.pid, signal.SIGKILL)  # the browser and its helper processes
            proc.wait()


def test_the_home_page_shows_the_example_and_its_output(served: str) -> None:
    text = browse(f"{served}/", "document.readyState === 'complete' && document.body.innerText")
    assert "Is an LLM's answer faithful to the context it was given?" in text
    assert "create_faithfulness_scorer()" in text and "0.67" in text  # the example, included from the README


def test_an_api_page_shows_each_entry_with_its_signature(served: str) -> None:
    text = browse(f"{served}/reference/api/", "document.readyState === 'complete' && document.body.innerText")
    assert "create_faithfulness_scorer" in text and "Faithfulness: (claims the context supports" in text
    assert "JudgeConnectionError" in text and "run_evals" in text


def test_search_finds_a_page_offline(served: str) -> None:
    items = browse(
        f"{served}/?q=sampling",
        "Array.from(document.querySelectorAll('.md-search-result__item')).map(e => e.innerText).join('\\n')",
    )
    assert items and "Live scoring" in items


def test_the_site_loads_nothing_from_the_internet(site: Path) -> None:
    fetched = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//", re.IGNORECASE)
    pages = list(site.rglob("*.html"))
    assert len(pages) > 15
    assert [str(p.relative_to(site)) for p in pages if fetched.search(p.read_text(encoding="utf-8"))] == []
