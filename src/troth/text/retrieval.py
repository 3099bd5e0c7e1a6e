"""Per-claim retrieval: the context sentences most relevant to a claim, within a size budget.

Used by the LLM judge when a context does not fit its window: each claim is then judged
against the BM25-ranked sentences that fit (kept in their original order). Lexical ranking
suits the task, since a claim about a text mostly reuses its words, names and numbers.
"""

from __future__ import annotations

from troth.errors import ContextTooLongError
from troth.extras import load
from troth.text.sentences import split_sentences
from troth.text.windows import pack, terms


def select_sentences(context: list[str], claim: str, budget_chars: int) -> list[str]:
    """The context's sentences that best match ``claim``, best first until ``budget_chars`` is
    reached, returned in context order as one segment.

    Raises ContextTooLongError when not even the best-matching sentence fits the budget.
    """
    bm25 = load("rank_bm25", "llm")
    sentences = [s for segment in context for s in split_sentences(segment)]
    if not sentences:
        return []
    corpus = [terms(s) or [""] for s in sentences]
    scores = bm25.BM25Okapi(corpus).get_scores(terms(claim))
    ranked = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    chosen = pack([len(s) for s in sentences], ranked, budget_chars)
    if not chosen:
        raise ContextTooLongError(
            f"the context does not fit the local model's window even after retrieval: its most relevant "
            f"sentence is {len(sentences[ranked[0]]):,} characters, over the budget of {budget_chars:,}; "
            "split the context into sentences or use a judge with a larger window"
        )
    return [" ".join(sentences[i] for i in chosen)]
