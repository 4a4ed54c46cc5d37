# Two entry points on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup browser demo lint test check bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@echo "aftershock: creating $(VENV) and installing aftershock with its test tools (about two minutes the first time)"
	$(PYTHON) -m venv $(VENV)
	@echo "aftershock: installing the reviewer, Helm (helm-python-sdk), the service and the test tools"
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[server,test,lint]'
	@echo "aftershock: installing kustomize (pykustomize)"
	# pykustomize 0.1.4 declares Python >= 3.14 but runs on 3.11 (a py3-none wheel over kustomize's Go code): see README.
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --ignore-requires-python -c constraints.txt pykustomize==0.1.4
	touch $(STAMP)
	@echo "aftershock: installed in $(VENV)"

demo: setup
	$(PY) scripts/build_example.py .demo/platform
	$(VENV)/bin/aftershock review --repo .demo/platform --base demo-base --head demo-head

# The HTML explorer's test drives Debian's headless Chromium; without it (or without root and
# apt-get) that test skips and says why (scripts/install-browser.sh names apt's own reason).
browser:
	@scripts/install-browser.sh

# ruff (lint and format) over the code, mypy over src/ (strict for the core layers: see pyproject.toml),
# lint-imports over the layers (pyproject.toml's [tool.importlinter]).
lint: setup
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/ruff format --check src tests benchmarks scripts
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

test: lint browser
	scripts/run-tests.sh $(PY) -n 2 -q

# The inner loop: lint, then the tests that need neither the shared corpus, nor a wheel built and
# installed, nor Docker, nor the benchmarks' runs (`make test` runs them all).
check: lint
	scripts/run-tests.sh $(PY) -n 2 -q -x -m "not corpus and not install" \
		--ignore=tests/integrations --ignore=tests/benchmarks --ignore=tests/corpus

bench: setup
	$(PY) benchmarks/bench_review.py

clean:
	rm -rf $(VENV) .demo
