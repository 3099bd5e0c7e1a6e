import pytest

from bench.metrics import best_threshold, detection, roc_auc, tuned_accuracy


def test_detection_counts_unfaithful_as_positive() -> None:
    labels = [1, 1, 0, 0]
    scores = [1.0, 0.5, 0.0, 1.0]
    m = detection(labels, scores, threshold=1.0)
    assert m["recall"] == 0.5 and m["precision"] == 0.5
    assert m["balanced_accuracy"] == 0.5
    assert m["f1"] == pytest.approx(0.5)


def test_roc_auc_with_ties() -> None:
    assert roc_auc([1, 0], [1.0, 0.0]) == 1.0
    assert roc_auc([1, 0], [0.5, 0.5]) == 0.5
    assert roc_auc([1, 1], [0.5, 0.5]) is None


def test_best_threshold_separates() -> None:
    labels = [1, 1, 0, 0]
    scores = [0.9, 0.8, 0.4, 0.2]
    t = best_threshold(labels, scores)
    assert 0.4 < t <= 0.8
    assert detection(labels, scores, t)["balanced_accuracy"] == 1.0


def test_tuned_accuracy_uses_each_half_to_pick_the_threshold_for_the_other() -> None:
    labels = [0, 1, 0, 1, 0, 1, 0, 1]
    scores = [0.2, 0.9, 0.3, 0.8, 0.25, 0.95, 0.35, 0.85]
    assert tuned_accuracy(labels, scores) == 1.0
    assert tuned_accuracy(labels, [0.5] * 8) == 0.5  # no signal: chance
    assert tuned_accuracy([1, 1], [0.5, 0.5]) is None  # one class only
