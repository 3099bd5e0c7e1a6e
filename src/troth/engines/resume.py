"""Resuming an evaluation by content, not by id alone: each stored result keeps a hash of what
was scored (the item's input, output, context and ground truth, and the scorer's settings). A
re-run with the same eval id takes a stored result only when the hash still matches; a changed
item is scored again (``resume="rescore"``, the default) or the run is refused before any work
(``resume="strict"``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from troth.errors import ChangedItemsError, ConfigError
from troth.evals.entries import ScorerEntry
from troth.evals.item import Item
from troth.scorers.base import Scorer
from troth.store.base import RunRecord

ResumeMode = Literal["rescore", "strict"]
RESUME_MODES = ("rescore", "strict")
Done = Mapping[tuple[str, str], str | None]  # (item id, scorer id) -> the stored result's input hash


def stored_hashes(completed: Mapping[tuple[str, str], RunRecord]) -> dict[tuple[str, str], str | None]:
    """What ``split_done`` needs of a store's completed runs (small enough to send to workers)."""
    return {key: record.input_hash for key, record in completed.items()}


def input_hashes(item: Item, scorers: Sequence[Scorer]) -> dict[str, str]:
    """Scorer id -> the hash of what that scorer's run on ``item`` (as given, before any target
    ran) depends on; the item is serialised once for all of them."""
    if not scorers:
        return {}
    fields = [item.input, item.output, item.context, item.ground_truth]
    base = hashlib.sha256(_text(fields).encode("utf-8", "backslashreplace"))
    found = {}
    for scorer in scorers:
        settings = {k: v for k, v in (scorer.recipe.kwargs if scorer.recipe else {}).items() if _plain(v)}
        judge = scorer.judge.model_id if scorer.judge else None
        digest = base.copy()
        digest.update(_text([scorer.id, scorer.version, scorer.prompt_version, judge, settings]).encode("utf-8"))
        found[scorer.id] = digest.hexdigest()
    return found


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _plain(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def split_done(entries: Sequence[ScorerEntry], item: Item, done: Done) -> tuple[list[Scorer], list[str], bool]:
    """The scorers ``item`` still needs, the ids of those whose stored result still holds, and
    whether a stored result was for different content (the item changed)."""
    todo, kept, changed = [], [], False
    stored = [e.scorer for e in entries if (item.id, e.scorer.id) in done]
    hashes = input_hashes(item, stored)
    for entry in entries:
        key = (item.id, entry.scorer.id)
        if key in done and done[key] in (None, hashes[entry.scorer.id]):
            kept.append(entry.scorer.id)  # a record from before hashes were kept counts as done
        else:
            todo.append(entry.scorer)
            changed = changed or key in done
    return todo, kept, changed


def check_mode(mode: str) -> None:
    """ConfigError for a ``resume`` that is not one of ``RESUME_MODES``."""
    if mode not in RESUME_MODES:
        raise ConfigError(f"resume must be one of {', '.join(RESUME_MODES)}, not {mode!r}")


def check_resume(mode: str, entries: Sequence[ScorerEntry], items: Sequence[Item], done: Done, eval_id: str) -> None:
    """ConfigError for an unknown ``mode``; ChangedItemsError when ``mode`` is strict and an
    item changed since it was scored."""
    check_mode(mode)
    if mode != "strict" or not done:
        return
    changed = [it.id for it in items if split_done(entries, it, done)[2]]
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        raise ChangedItemsError(
            f"{len(changed)} item(s) of evaluation {eval_id!r} changed since they were scored ({shown}); "
            "resume strict refuses to score them again: use a new eval id, or resume rescore"
        )
