# Two entry points on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	touch $(STAMP)

demo: setup
	$(PY) scripts/build_example.py .demo/platform
	$(VENV)/bin/aftershock review --repo .demo/platform --base demo-base --head demo-head

test: setup
	$(PY) -m pytest -n 2 -q

bench: setup
	$(PY) benchmarks/bench_review.py

clean:
	rm -rf $(VENV) .demo
