"""What judge calls cost: a price table (US dollars per million prompt and completion tokens)
for the built-in providers' common models, overridable in code or by a TOML file.

    troth.set_prices({"openai/gpt-4o-mini": (0.15, 0.60)})     # or TROTH_PRICES=prices.toml
    # prices.toml:  ["openai/gpt-4o-mini"]
    #               input = 0.15
    #               output = 0.60

A model with no known price has cost None ("unknown"), never 0. A backend that declares its
prices (the in-process ones declare :data:`~troth.values.FREE`) is costed at those. Table
prices are the providers' published list prices as of :data:`PRICES_AS_OF`; check them against
your contract and override where they differ.
"""

from __future__ import annotations

import functools
import os
import threading
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

from troth.values import Prices, StepUsage

PRICES_AS_OF = "2025-06"
ENV_PRICES = "TROTH_PRICES"

BUILTIN: dict[str, Prices] = {
    "openai/gpt-4o-mini": Prices(0.15, 0.60),
    "openai/gpt-4o": Prices(2.50, 10.00),
    "openai/gpt-4.1": Prices(2.00, 8.00),
    "openai/gpt-4.1-mini": Prices(0.40, 1.60),
    "openai/gpt-4.1-nano": Prices(0.10, 0.40),
    "openai/o4-mini": Prices(1.10, 4.40),
    "anthropic/claude-3-5-haiku-latest": Prices(0.80, 4.00),
    "anthropic/claude-sonnet-4-0": Prices(3.00, 15.00),
    "google/gemini-2.0-flash": Prices(0.10, 0.40),
    "google/gemini-2.5-flash": Prices(0.30, 2.50),
    "mistral/mistral-small-latest": Prices(0.10, 0.30),
    "groq/llama-3.1-8b-instant": Prices(0.05, 0.08),
    "deepseek/deepseek-chat": Prices(0.27, 1.10),
}


class PriceTable:
    """List prices by model id: set in code (:meth:`set`), then ``$TROTH_PRICES``, then
    :data:`BUILTIN`. One table, :data:`PRICES`, serves the process; a scoring process is handed
    its :meth:`overrides`."""

    def __init__(self, overrides: Mapping[str, Prices] | None = None) -> None:
        self._overrides: dict[str, Prices] = dict(overrides or {})
        self._lock = threading.Lock()

    def set(self, prices: Mapping[str, Prices | tuple[float, float]]) -> None:
        """Add or replace prices by model id (``"provider/model"``, or a custom server's model name)."""
        checked = {model: _price(model, value) for model, value in prices.items()}
        with self._lock:
            self._overrides.update(checked)

    def overrides(self) -> dict[str, Prices]:
        """The prices set in code so far (to hand to another process)."""
        with self._lock:
            return dict(self._overrides)

    def price_for(self, model: str) -> Prices | None:
        """The list price of ``model``, or None when unknown."""
        with self._lock:
            if model in self._overrides:
                return self._overrides[model]
        env = os.environ.get(ENV_PRICES)
        if env:
            from_file = _file_prices(env, _mtime(env))
            if model in from_file:
                return from_file[model]
        return BUILTIN.get(model)


PRICES = PriceTable()
"""This process's price table (what :func:`set_prices` changes)."""


def set_prices(prices: Mapping[str, Prices | tuple[float, float]]) -> None:
    """Add or replace prices by model id (``"provider/model"``, or a custom server's model name)."""
    PRICES.set(prices)


def load_prices(path: str | os.PathLike[str]) -> dict[str, Prices]:
    """Prices from a TOML file: one table per model with ``input`` and ``output`` ($/M tokens)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"cannot read prices from {path}: {exc}") from None
    found = {}
    for model, row in data.items():
        if not isinstance(row, dict) or set(row) != {"input", "output"}:
            raise ValueError(f"{path}: [{model!r}] needs exactly 'input' and 'output' (dollars per million tokens)")
        found[model] = _price(model, (row["input"], row["output"]))
    return found


@functools.lru_cache(maxsize=8)
def _file_prices(path: str, mtime_ns: int) -> dict[str, Prices]:
    """The prices of a TOML file, read once per version of the file (``mtime_ns``)."""
    return load_prices(path)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1  # load_prices reports the missing file


def price_for(model: str) -> Prices | None:
    """The list price of ``model`` in this process's table; None when unknown."""
    return PRICES.price_for(model)


def usage_cost(usage: StepUsage) -> float | None:
    """Dollars spent by one step's calls (cached calls are free): at the prices its backend
    declared, else the model's list price; None when neither is known."""
    if usage.calls == 0 and usage.prompt_tokens == 0:
        return 0.0
    price = usage.prices or price_for(usage.model)
    if price is None:
        return None
    return (usage.prompt_tokens * price.input_per_million + usage.completion_tokens * price.output_per_million) / 1e6


def total_cost(usages: Iterable[StepUsage]) -> float | None:
    """The sum of the usages' costs; None when any is unknown."""
    total = 0.0
    for usage in usages:
        cost = usage_cost(usage)
        if cost is None:
            return None
        total += cost
    return total


def format_usd(cost: float | None) -> str:
    """Dollars for display, or "unknown" (a missing price is never shown as 0)."""
    if cost is None:
        return "unknown"
    return f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"


def _price(model: str, value: object) -> Prices:
    if isinstance(value, Prices):
        return value
    if (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        return Prices(float(value[0]), float(value[1]))
    raise ValueError(f"price of {model!r} must be (input, output) dollars per million tokens, not {value!r}")
