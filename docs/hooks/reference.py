"""Pages generated from the code when the site is built, so that they cannot drift from it.

``<!-- api-reference -->`` becomes a mkdocstrings entry for every name in ``troth.__all__``, by
group; ``<!-- cli-reference -->`` becomes every command of the ``troth`` CLI with its options,
read from the typer app. A public name in no group, or a group naming what troth does not
export, fails the build. The docstrings' reST roles (``:class:`X```) are shown as code.
"""

from __future__ import annotations

import re
from typing import Any

import typer

import troth
from troth.cli import app

API_GROUPS: dict[str, list[str]] = {
    "Scorers": [
        "create_faithfulness_scorer",
        "create_hallucination_scorer",
        "create_answer_relevancy_scorer",
        "create_scorer",
        "Scorer",
        "PromptStep",
        "StepContext",
        "StepResults",
        "ScorerRun",
    ],
    "Results": ["ScoreResult", "Verdicts", "Verdict", "Evidence", "StepUsage"],
    "Judges": ["Judge", "RateLimit", "set_prices"],
    "Evaluations": [
        "run_evals",
        "arun_evals",
        "Item",
        "ScorerEntry",
        "EvalResult",
        "EvalSummary",
        "ItemResult",
        "ItemError",
        "read_traces",
        "ParquetStore",
    ],
    "Engines": ["Engine", "EvalJob", "LocalEngine", "RayEngine"],
    "Comparing evaluations": ["compare_evals", "Comparison"],
    "Live scoring": ["Monitor", "Sampling", "Budget", "MonitorStats"],
    "Errors": [
        "TrothError",
        "ConfigError",
        "UnknownModelError",
        "MissingAPIKeyError",
        "MissingDependencyError",
        "ModelNotFoundError",
        "ModelLoadError",
        "ContextTooLongError",
        "OutputTooLongError",
        "InvalidTextError",
        "InvalidTranscriptError",
        "InvalidTraceError",
        "ContextFunctionError",
        "ChangedItemsError",
        "JudgeError",
        "JudgeConnectionError",
        "JudgeResponseError",
        "JudgeOutputError",
        "JudgeTruncatedError",
        "JudgeCrashedError",
        "JudgeBrokenError",
        "ScorerRunError",
    ],
}


def api_reference() -> str:
    """Markdown for every public name: a mkdocstrings block each, under its group's heading."""
    grouped = [name for names in API_GROUPS.values() for name in names]
    public = [name for name in troth.__all__ if name != "__version__"]
    missing, unknown = sorted(set(public) - set(grouped)), sorted(set(grouped) - set(public))
    if missing or unknown or len(grouped) != len(set(grouped)):
        raise ValueError(f"API_GROUPS and troth.__all__ differ: not grouped {missing}, not exported {unknown}")
    parts = ["`troth.__version__`: the installed version of troth, a string.\n"]
    for group, names in API_GROUPS.items():
        parts.append(f"## {group}\n")
        parts.extend(f"::: troth.{name}\n" for name in names)
    return "\n".join(parts)


def _option_row(param: Any, label: str | None = None) -> str:
    names = f"`{label}`" if label else ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
    help_text = getattr(param, "help", None) or ""
    default = param.default if not callable(param.default) else None
    shown = "" if default in (None, False, (), []) or getattr(param, "is_flag", False) else f" (default: `{default}`)"
    cell = help_text.replace("|", r"\|")
    return f"| {names} | {cell}{shown} |"


def _command(ctx: Any, path: str) -> list[str]:
    """A command's section, then its subcommands' (typer's click: parameters told apart by kind)."""
    cmd = ctx.command
    lines = [f"### `{path}`\n", (cmd.help or "").strip(), ""]
    lines += ["```text", f"{path} {' '.join(cmd.collect_usage_pieces(ctx))}".rstrip(), "```", ""]
    args = [p for p in cmd.params if p.param_type_name == "argument"]
    options = [p for p in cmd.params if p.param_type_name == "option" and not p.hidden]
    if args or options:
        lines += ["| argument or option | what it does |", "|---|---|"]
        lines += [*(_option_row(p, str(p.name).upper()) for p in args), *(_option_row(p) for p in options), ""]
    for name in cmd.list_commands(ctx) if hasattr(cmd, "list_commands") else []:
        sub = cmd.get_command(ctx, name)
        if sub is not None and not sub.hidden:
            lines += _command(sub.context_class(sub, info_name=name, parent=ctx), f"{path} {name}")
    return lines


def cli_reference() -> str:
    """Markdown for every command of the ``troth`` CLI, read from its typer app."""
    root = typer.main.get_command(app)
    return "\n".join(_command(root.context_class(root, info_name="troth"), "troth"))


MARKERS = {"<!-- api-reference -->": api_reference, "<!-- cli-reference -->": cli_reference}


ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):<code>(~?)([^<]+)</code>")


def _role(found: re.Match[str]) -> str:
    """A reST cross-reference of a docstring as the code it names (``~`` keeps the last part)."""
    name = found.group(2).rsplit(".", 1)[-1] if found.group(1) else found.group(2)
    return f"<code>{name}</code>"


def on_page_content(html: str, **_: Any) -> str:
    """mkdocs hook: the reST roles the docstrings use (``:class:`X```) shown as plain code."""
    return ROLE.sub(_role, html)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """mkdocs hook: fill in the generated references where a page asks for them."""
    for marker, make in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
