"""Example: check a RAG pipeline's answers in your own test suite (copy into your tests/).

    pytest examples/test_rag_answers.py                                  # offline local judge
    pytest examples/test_rag_answers.py --troth-model openai/gpt-4o-mini
    pytest examples/test_rag_answers.py --troth-store scores.jsonl       # keep every score

A failing assertion shows the score, the threshold and each failing claim with its reason;
the session ends with a "troth scores" summary.
"""

from troth.testing import assert_faithful, assert_not_hallucinated, assert_relevant

QUESTION = "How long do I have to return an item, and how is the refund paid?"
RETRIEVED = [
    "Items can be returned within 30 days of delivery.",
    "Refunds are paid to the original payment method within 5 business days of receiving the return.",
]


def answer(question: str) -> str:
    """Stands in for your pipeline: retrieve, then generate."""
    return (
        "You can return an item within 30 days of delivery. "
        "The refund goes to your original payment method within 5 business days."
    )


def test_answer_is_faithful_to_retrieved_context() -> None:
    assert_faithful(answer(QUESTION), RETRIEVED, input=QUESTION)


def test_answer_has_no_hallucinated_claims() -> None:
    assert_not_hallucinated(answer(QUESTION), RETRIEVED, input=QUESTION)


def test_answer_addresses_the_question() -> None:
    assert_relevant(QUESTION, answer(QUESTION), threshold=0.7)
