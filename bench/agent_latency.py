"""What a Monitor attached through each framework's hook adds to an agent's run.

    python -m bench.agent_latency              # 10 rounds of 100 runs per framework and configuration
    python -m bench.agent_latency --quick      # 2 rounds of 20

Each framework's agent (OpenAI Agents SDK, pydantic-ai, LangGraph) calls one tool and answers,
against a loopback model in a process of its own (``--model-latency`` s per reply). The
configurations run interleaved run by run, in one event loop: no monitor, no monitor again (the
noise), the hook with the monitor scoring in a process (sampling 1.0 and 0.1) and in a thread
(sampling 1.0); the judge is an HTTP one on the same loopback server, answering in
``--judge-latency`` s. Runs are sequential; reported per framework and configuration: p50 and
p99 of the run's wall time, and what the hook adds (pooled, and paired round by round). The
Agents SDK's tracing is on in every configuration (its default), with no other processor; only
troth's processor is added.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import RESULTS, fmt, table, write_results
from bench.live_latency import paired, pct
from troth import Judge, Monitor, create_faithfulness_scorer
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge, ToolCallingModel
from troth.testing.server import Request

ANSWER = "The Harbour Bridge opened in 1932."
QUESTION = "When did the Harbour Bridge open?"
CONFIGS = {
    "no monitor": None,
    "no monitor, again (noise)": None,
    "hook, process, sampling 1.0": ("process", 1.0),
    "hook, process, sampling 0.1": ("process", 0.1),
    "hook, thread, sampling 1.0": ("thread", 1.0),
}
Run = Callable[[], Awaitable[Any]]


def lookup(topic: str) -> str:
    """Look a topic up in the city's records."""
    return "The Harbour Bridge opened in 1932 and is 134 m high."


def responder(model_latency: float, judge_latency: float) -> Callable[[Request], Reply]:
    model, judge = ToolCallingModel(ANSWER, delay=model_latency), ScriptedJudge(verdicts={"1932": ("yes", "1932")})

    def answer(request: Request) -> Reply:
        if request.body.get("model") != "judge":
            return model(request)
        reply = judge(request)
        reply.delay = judge_latency
        return reply

    return answer


@contextmanager
def model_process(args: argparse.Namespace) -> Iterator[str]:
    argv = [
        sys.executable,
        "-m",
        "bench.agent_latency",
        "--child",
        "--model-latency",
        str(args.model_latency),
        "--judge-latency",
        str(args.judge_latency),
    ]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=60)


def openai_runs(base_url: str, monitors: dict[str, Monitor | None]) -> dict[str, Run]:
    from openai import AsyncOpenAI

    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_trace_processors
    from troth.agents.openai_agents import TrothProcessor

    model = OpenAIChatCompletionsModel(model="m", openai_client=AsyncOpenAI(base_url=base_url, api_key="k"))
    agent = Agent(name="city", instructions="Answer from the records.", tools=[function_tool(lookup)], model=model)

    def run_with(monitor: Monitor | None) -> Run:
        async def run() -> Any:
            set_trace_processors([TrothProcessor(monitor)] if monitor is not None else [])
            return (await Runner.run(agent, QUESTION)).final_output

        return run

    return {name: run_with(monitor) for name, monitor in monitors.items()}


def pydantic_runs(base_url: str, monitors: dict[str, Monitor | None]) -> dict[str, Run]:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from troth.agents.pydantic_ai import troth_hooks

    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=base_url, api_key="k"))

    def run_with(monitor: Monitor | None) -> Run:
        agent = Agent(model, tools=[lookup], capabilities=[troth_hooks(monitor)] if monitor is not None else [])

        async def run() -> Any:
            return (await agent.run(QUESTION)).output

        return run

    return {name: run_with(monitor) for name, monitor in monitors.items()}


def langgraph_runs(base_url: str, monitors: dict[str, Monitor | None]) -> dict[str, Run]:
    from langchain.agents import create_agent
    from langchain_core.tools import tool as as_tool
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    from troth.agents.langchain import TrothCallback

    with warnings.catch_warnings():  # its successor lives in the langchain package, not installed here
        warnings.simplefilter("ignore", DeprecationWarning)
        model = ChatOpenAI(model="m", base_url=base_url, api_key=SecretStr("k"))
        graph = create_agent(model, [as_tool(lookup)])

    def run_with(monitor: Monitor | None) -> Run:
        config: Any = {"callbacks": [TrothCallback(monitor)]} if monitor is not None else {}

        async def run() -> Any:
            state: Any = {"messages": [("user", QUESTION)]}
            return (await graph.ainvoke(state, config=config))["messages"][-1].content

        return run

    return {name: run_with(monitor) for name, monitor in monitors.items()}


FRAMEWORKS = {"openai-agents": openai_runs, "pydantic-ai": pydantic_runs, "langgraph": langgraph_runs}


async def measure(runs: dict[str, Run], args: argparse.Namespace) -> dict[str, Any]:
    """Rounds of ``args.runs`` runs per configuration, interleaved run by run (the order rotated
    each time), so that a slow moment of the machine falls on every configuration alike."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    p99s: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for name in names:
        for _ in range(args.warmup):
            await runs[name]()
    for _ in range(args.rounds):
        got: dict[str, list[float]] = {name: [] for name in names}
        for n in range(args.runs):
            for name in names[n % len(names) :] + names[: n % len(names)]:
                started = time.perf_counter()
                answer = await runs[name]()
                got[name].append(time.perf_counter() - started)
                assert answer == ANSWER, answer
        for name in names:
            times[name] += got[name]
            p99s[name].append(pct(got[name], 0.99))
    base = times["no monitor"]
    return {
        name: {
            "runs": len(values),
            "p50_ms": pct(values, 0.5),
            "p99_ms": pct(values, 0.99),
            "added_p50_ms": pct(values, 0.5) - pct(base, 0.5),
            "added_p99_ms": pct(values, 0.99) - pct(base, 0.99),
            "round_p99_ms": p99s[name],
            **paired(p99s[name], p99s["no monitor"]),
        }
        for name, values in times.items()
    }


async def bench(args: argparse.Namespace, base_url: str, tmp: Path) -> dict[str, Any]:
    from agents import set_tracing_disabled

    set_tracing_disabled(False)
    out: dict[str, Any] = {}
    for framework in args.frameworks:
        make = FRAMEWORKS[framework]
        monitors = {
            name: None
            if how is None
            else Monitor(
                [create_faithfulness_scorer(Judge("judge", base_url=base_url, api_key="x"), reason="template")],
                store=tmp / f"{framework}-{name}.db",
                isolate=how[0],  # type: ignore[arg-type]
                sampling=how[1],
            )
            for name, how in CONFIGS.items()
        }
        try:
            out[framework] = await measure(make(base_url, monitors), args)
        finally:
            closed = {name: _close(monitor) for name, monitor in monitors.items() if monitor is not None}
            out.setdefault(framework, {})["stored"] = closed
        print(f"{framework}: done", file=sys.stderr, flush=True)
    return out


def _close(monitor: Monitor) -> dict[str, int]:
    monitor.close(timeout=60)
    stats = monitor.stats()
    return {"seen": stats.seen, "scored": stats.scored, "failed": stats.failed, "dropped": stats.dropped}


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# What a Monitor's framework hook adds to an agent run ({report['date']})",
        "",
        f"`python -m bench.agent_latency {report['argv']}` on {report['machine']}; settings: {report['settings']}",
        "",
    ]
    for framework, found in report["frameworks"].items():
        rows = [
            [
                name,
                r["runs"],
                fmt(r["p50_ms"]),
                fmt(r["p99_ms"]),
                fmt(r["added_p50_ms"]),
                fmt(r["added_p99_ms"]),
                fmt(r["added_p99_paired_median_ms"]),
                r["rounds_over_1ms"],
            ]
            for name, r in found.items()
            if name in CONFIGS
        ]
        lines += [
            f"## {framework}",
            "",
            *table(
                [
                    "configuration",
                    "runs",
                    "p50 ms",
                    "p99 ms",
                    "added p50 ms",
                    "added p99 ms (pooled)",
                    "added p99 ms (paired median)",
                    "rounds adding > 1 ms",
                ],
                rows,
            ),
            "",
            f"Scored by the monitors: {found.get('stored')}",
            "",
        ]
    return "\n".join(lines)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3, help="runs before each round, not measured")
    parser.add_argument("--model-latency", type=float, default=0.01)
    parser.add_argument("--judge-latency", type=float, default=0.05)
    parser.add_argument("--frameworks", nargs="+", choices=sorted(FRAMEWORKS), default=list(FRAMEWORKS))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.rounds = 20, 2
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.child:
        with FakeOpenAIServer(responder(args.model_latency, args.judge_latency), record=False) as server:
            print(server.base_url, flush=True)
            sys.stdin.read()  # until the parent closes our stdin
        return 0
    settings = {k: v for k, v in vars(args).items() if k not in ("out", "child")}
    given = " ".join(argv if argv is not None else sys.argv[1:])
    report: dict[str, Any] = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "settings": settings,
        "argv": given,
    }
    with tempfile.TemporaryDirectory() as tmp, model_process(args) as base_url:
        report["frameworks"] = asyncio.run(bench(args, base_url, Path(tmp)))
    stem = args.out or RESULTS / f"agent-latency-{dt.date.today().isoformat()}{'-quick' if args.quick else ''}"
    write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
