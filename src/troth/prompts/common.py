"""Prompt pieces shared by every scorer: delimited data blocks, schema instructions, repair requests."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from string import Template
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, Field, create_model

if TYPE_CHECKING:
    from troth.values import Verdict

L = TypeVar("L", bound=BaseModel)

# Tag names that prompts use to delimit data. Text inside a block that imitates one of
# these tags is neutralised so that it cannot close the block and pose as instructions.
_BLOCK_TAGS = ("context", "output", "input", "claims", "claim", "verdicts", "text")
_TAG_RE = re.compile(r"<(\s*/?\s*)(" + "|".join(_BLOCK_TAGS) + r")\b", re.IGNORECASE)

SCHEMA_INSTRUCTION = Template(
    "Reply with one JSON object only (no prose, no code fences) that matches this JSON schema:\n$schema"
)

REPAIR_REQUEST = Template(
    "Your previous reply could not be used: $error\nReply again with the corrected JSON object only."
)


def escape_data(text: str) -> str:
    """Neutralise tag-like sequences that could end a data block early."""
    return _TAG_RE.sub(lambda m: "\u2039" + m.group(1) + m.group(2), text)


def block(tag: str, text: str, **attrs: object) -> str:
    """Wrap untrusted text in a delimited, escaped block: ``<tag k="v">…</tag>``."""
    attr_text = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f"<{tag}{attr_text}>\n{escape_data(text)}\n</{tag}>"


def verdict_lines(verdicts: Sequence[Verdict]) -> str:
    """The scored verdicts as the reason prompts list them: ``- [verdict] claim (reason)``."""
    return "\n".join(f"- [{v.verdict}] {v.claim} ({v.reason})" for v in verdicts)


def render(template: Template, **values: object) -> str:
    """Fill a template; every placeholder must be given."""
    return template.substitute({k: str(v) for k, v in values.items()})


def narrow_verdicts(list_model: type[L], item_model: type[BaseModel], claim_ids: tuple[str, ...]) -> type[L]:
    """``list_model`` (a ``verdicts`` list of ``item_model``) narrowed to one batch of claim ids.

    Ids are limited to ``claim_ids`` and the list to one entry per id, so servers and grammars
    that enforce the JSON schema cannot return unknown ids or extra verdicts.
    """
    id_type: Any = Literal[claim_ids]
    item = create_model(item_model.__name__, __base__=item_model, claim_id=(id_type, ...))
    return create_model(
        list_model.__name__,
        __base__=list_model,
        verdicts=(list[item], Field(max_length=len(claim_ids))),  # type: ignore[valid-type]
    )


def verdict_fields(first: str, language_of: str) -> str:
    """What a verdict prompt asks of every claim, in order (``first``: how a claim is named),
    and the start of its example."""
    return f"""For every claim give, in this order:
- {first},
- "evidence": the shortest passage of the context that decides the verdict, copied exactly, or "" if none,
- "verdict": "yes", "no" or "unsure",
- "reason": one short sentence, in the language of the {language_of}.

Example:
<context index="0">
$example_context
</context>
"""


def batch_schema(list_model: type[L], item_model: type[BaseModel]) -> Callable[[tuple[str, ...]], type[L]]:
    """``list_model`` narrowed to a batch of ids (:func:`narrow_verdicts`), each batch's model made once."""

    @functools.lru_cache(maxsize=256)
    def narrowed(claim_ids: tuple[str, ...]) -> type[L]:
        return narrow_verdicts(list_model, item_model, claim_ids)

    return narrowed
