"""The price table: overrides in code and in a TOML file (re-read when the file changes); a
backend's declared prices (free in-process judges); unknown models unknown."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from troth import prices
from troth.values import FREE, Prices, StepUsage


def test_prices_from_a_toml_file_follow_its_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prices, "PRICES", prices.PriceTable())
    path = tmp_path / "prices.toml"
    path.write_text('["my-model"]\ninput = 1.0\noutput = 2.0\n', encoding="utf-8")
    monkeypatch.setenv(prices.ENV_PRICES, str(path))
    assert prices.price_for("my-model") == Prices(1.0, 2.0)
    path.write_text('["my-model"]\ninput = 3.0\noutput = 4.0\n', encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert prices.price_for("my-model") == Prices(3.0, 4.0)
    usage = StepUsage(model="my-model", calls=1, prompt_tokens=1_000_000, completion_tokens=500_000)
    assert prices.usage_cost(usage) == pytest.approx(5.0)
    assert prices.price_for("verifier/verifier-minilm") is None  # no name is free by its prefix
    declared = StepUsage(model="verifier/verifier-minilm", calls=3, prompt_tokens=900, prices=FREE)
    assert prices.usage_cost(declared) == 0.0
    assert StepUsage.from_dict(declared.to_dict()) == declared
    assert prices.price_for("nobody/knows") is None and prices.format_usd(None) == "unknown"
    path.write_text('["my-model"]\ninput = 1.0\n', encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 2_000_000))
    with pytest.raises(ValueError, match="needs exactly 'input' and 'output'"):
        prices.price_for("my-model")
