# dicelab: every target sets up .venv itself, installing only what it needs (pinned by constraints.txt).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check --constraint constraints.txt
CORE   := $(VENV)/.installed
SAY    := @printf 'dicelab: %s\n'

.PHONY: help report test test-fast notebooks app screenshot bench bench-startup constraints clean
.DEFAULT_GOAL := help

# The Python version is checked first, before anything is installed: one line saying what is needed.
ifneq ($(filter-out help clean,$(MAKECMDGOALS)),)
ifneq ($(shell $(PYTHON) -c 'import sys; print(int(sys.version_info >= (3, 11)))' 2>/dev/null),1)
$(error dicelab needs Python 3.11 or newer; '$(PYTHON)' is $(or $(shell $(PYTHON) --version 2>/dev/null),missing): run make PYTHON=python3.11 (or newer))
endif
endif

help:  ## list the targets
	@printf 'make targets (each installs what it needs into .venv, pinned by constraints.txt):\n'
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  \1\t\2/' | expand -t 16

$(CORE): pyproject.toml constraints.txt
	$(SAY) "[1/2] creating $(VENV) with $$($(PYTHON) --version)"
	@$(PYTHON) -m venv $(VENV)
	$(SAY) "[2/2] installing dicelab and its core dependencies (numpy, scipy, pandas, matplotlib, numba, plotly...)"
	@$(PIP) -e .
	@touch $@

$(VENV)/.installed-%: $(CORE)
	$(SAY) "installing the '$*' extra"
	@$(PIP) -e ".[$*]"
	@touch $@

report: $(CORE)  ## write the report into reports/ (core install only)
	$(SAY) "writing the report into reports/"
	@$(BIN)/dicelab report --out reports

test: $(VENV)/.installed-test  ## run the whole test suite on every core (installs the test extras)
	$(SAY) "compiling the numba kernels once, before the test workers start"
	@$(BIN)/python -m tests.warm
	$(SAY) "running the tests"
	@$(BIN)/python -m pytest -n auto --dist loadfile --durations=15

test-fast: $(VENV)/.installed-test  ## the edit-test loop: every test but the browser, notebook and process ones, on every core
	$(SAY) "running the fast tests (make test runs them all)"
	@$(BIN)/python -m pytest -n auto -m "not slow"

notebooks: $(VENV)/.installed-notebooks  ## start JupyterLab on notebooks/ with a kernel that sees dicelab
	@$(BIN)/python -m ipykernel install --sys-prefix --name dicelab --display-name "Python (dicelab)" >/dev/null
	$(SAY) "starting JupyterLab (kernel 'Python (dicelab)'); Ctrl-C stops it"
	@$(BIN)/jupyter lab notebooks/

app: $(VENV)/.installed-app  ## start the interactive workbench on http://127.0.0.1:8050 (ARGS="--port N --no-browser")
	$(SAY) "starting the workbench; Ctrl-C stops it"
	@$(BIN)/dicelab app $(ARGS)

screenshot: $(VENV)/.installed-test  ## retake docs/app.png (and docs/app.png.json, what it was made from) in headless Chromium
	@$(BIN)/python docs/app_screenshot.py

bench: $(VENV)/.installed-test $(VENV)/.installed-bench  ## run the check benchmark against icepool
	@$(BIN)/python benchmarks/bench_checks.py

bench-startup: $(CORE)  ## time the command line's start-up against an older commit
	@$(BIN)/python benchmarks/bench_startup.py

constraints: $(VENV)/.installed-test $(VENV)/.installed-bench  ## pin the versions of this venv into constraints.txt
	@{ echo "# The versions CI tested: make constraints writes this file from a full .venv."; \
	   $(BIN)/python -m pip freeze --exclude-editable --disable-pip-version-check; } > constraints.txt
	$(SAY) "wrote constraints.txt"

clean:  ## remove .venv and the generated report files
	rm -rf $(VENV) reports/*.csv reports/*.md reports/*.png reports/*.html
