# The two commands a newcomer needs (README): `make demo` and `make test`.
# Both set everything up first: a virtual environment in .venv with the package and its test
# tools, and Debian's chromium and espeak-ng for the tests (installed with apt-get when missing).

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PORT   ?= 5000

.PHONY: setup demo test bench system-packages clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

## The simulated table: a self-playing Nessie Hunt game on http://127.0.0.1:5000 (no hardware needed).
demo: $(STAMP)
	$(BIN)/nessie-companion demo --autoplay --port $(PORT)

## Every test, the real-browser ones included.
test: $(STAMP) system-packages
	$(BIN)/python -m pytest -q

## Benchmarks: figures and ratios against a baseline measured in the same run (all of them take
## about an hour on a 2-core machine; `make bench BENCH="bench_vision bench_inputs"` runs some).
BENCH ?=
bench: $(STAMP)
	$(BIN)/python -m tests.bench $(BENCH)

# Debian packages the tests use: chromium (browser tests), espeak-ng (voice).
system-packages:
	@command -v chromium >/dev/null 2>&1 && command -v espeak-ng >/dev/null 2>&1 || \
	  { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium espeak-ng; }

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
