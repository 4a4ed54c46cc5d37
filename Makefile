# Two entry points on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup browser demo lint test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test,lint]'
	# pykustomize 0.1.4 declares Python >= 3.14 but runs on 3.11 (a py3-none wheel over kustomize's Go code): see README.
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --ignore-requires-python -c constraints.txt pykustomize==0.1.4
	touch $(STAMP)

demo: setup
	$(PY) scripts/build_example.py .demo/platform
	$(VENV)/bin/aftershock review --repo .demo/platform --base demo-base --head demo-head

# The HTML explorer's test drives Debian's headless Chromium; without it (or without root and
# apt-get) that test skips and says why.
browser:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing chromium for the HTML explorer test"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
			|| echo "chromium could not be installed: the HTML explorer test will skip"; \
	fi

# ruff (lint and format) over the code, mypy over src/ (strict for the core layers: see pyproject.toml),
# lint-imports over the layers (pyproject.toml's [tool.importlinter]).
lint: setup
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/ruff format --check src tests benchmarks scripts
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

test: lint browser
	scripts/run-tests.sh $(PY) -n 2 -q

bench: setup
	$(PY) benchmarks/bench_review.py

clean:
	rm -rf $(VENV) .demo
