# gmonlens: `make demo` shows a real profile; `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install demo check test lint typecheck test-fast test-python test-extension vsix vsix-all bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "gmonlens needs Python >= 3.10" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@# setuptools' editable finder (two package roots) costs ~15 ms at every start; plain path
	@# entries for analysis/ and server/ do the same job for free (bench/run.py case a)
	$(PY) -c 'import glob, os, sysconfig; d = sysconfig.get_paths()["purelib"]; \
	  [os.remove(f) for f in glob.glob(os.path.join(d, "__editable__*gmonlens*"))]; \
	  open(os.path.join(d, "gmonlens-src.pth"), "w").write("$(CURDIR)/analysis\n$(CURDIR)/server\n")'
	@# bytecode written now, so that runs under PYTHONDONTWRITEBYTECODE do not compile every module
	$(PY) -m compileall -q analysis server
	touch $@

# Builds the bundled example with gcc -pg -g, records a run of it (gmonlens record: the profile in
# build/demo/record/, what came of it on stderr) and prints its profile.
demo: install
	@mkdir -p build/demo
	cp examples/calc/*.[ch] build/demo/
	cd build/demo && gcc -g -pg -O0 -o calc main.c lexer.c parser.c eval.c
	cd build/demo && ../../$(VENV)/bin/gmonlens record --out record -- ./calc 2000 >/dev/null
	cd build/demo && ../../$(VENV)/bin/gmonlens report calc record/gmon.out.*

lint: install
	$(VENV)/bin/ruff check analysis server tests bench vscode-extension/python
	$(VENV)/bin/ruff format --check analysis server tests bench vscode-extension/python

typecheck: install
	$(VENV)/bin/mypy

# the fast loop: no compiler, no gprof, no editor (tests marked integration/e2e/realprogs/slow are
# left out); passes on a machine with neither gcc nor gprof
FAST := not integration and not e2e and not realprogs and not slow
test-fast: install
	$(VENV)/bin/pytest -q -n auto -m "$(FAST)"

check: lint typecheck test-fast

test-python: install
	$(VENV)/bin/pytest -q

test: lint typecheck test-python test-extension

test-extension:
	@if [ -f vscode-extension/package.json ]; then $(MAKE) -C vscode-extension test; else echo "no extension yet"; fi

vsix:  # this machine's platform (capstone included)
	$(MAKE) -C vscode-extension vsix

vsix-all:  # every platform capstone has a wheel for, and the platform-neutral package
	$(MAKE) -C vscode-extension vsix-all

bench: install
	$(PY) bench/run.py
	$(PY) bench/server_bench.py
	$(PY) bench/lineheat_bench.py

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache
