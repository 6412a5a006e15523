# teardown.gates: every target bootstraps .venv when it is missing.
SHELL := /bin/bash
# The default: Python 3.12 with PyPI's ansible 14 (ansible-core 2.21). pyenv's interpreter is taken by its
# real path (its shims can be broken); PYTHON=/path/to/python3.12 overrides.
PYTHON_VERSION := 3.12
PYTHON ?= $(or $(firstword $(wildcard $(HOME)/.pyenv/versions/$(PYTHON_VERSION).*/bin/python$(PYTHON_VERSION))),$(shell command -v python$(PYTHON_VERSION) 2>/dev/null | grep -v /shims/))
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.bootstrapped
SANDBOX := tests/sandbox/sandbox

.PHONY: help bootstrap test unit sanity integration sandbox-tests molecule sandbox-up sandbox-down \
        sandbox-status build docs eda changelog lint bench chaos demo clean matrix matrix-oldest matrix-newest

help:
	@echo "make test          everything CI runs (bootstrap, sandbox up, unit, sanity on six cores, lint, galaxy-importer, sandbox tests, integration and molecule on the oldest and the newest core, sandbox down)"
	@echo "make sandbox-up    build (once, cached) and start the embedded Kubernetes + AWS sandbox"
	@echo "make sandbox-down  stop it"
	@echo "make unit | sanity | integration | molecule   one stage, against a running sandbox where needed"
	@echo "make demo          destroy a seeded hosted cluster on the sandbox with live progress, and print the report"
	@echo "make bench         the performance suite (not part of make test)"
	@echo "make chaos         fault campaigns: CHAOS_RUNS runs (default 150, seed CHAOS_SEED, default 42000) under injected faults, then CHAOS_KILLS (3) SIGKILLed runs per playbook; invariants checked"
	@echo "make eda           .venv-eda: the real ansible-rulebook and drools-jpy (Java 17) for extensions/eda"
	@echo "make build         ansible-galaxy collection build"
	@echo "make docs          the antsibull-docs site into build/docs/build/html (lints the docs first)"
	@echo "make lint          ansible-lint (production profile) and the antsibull-docs lint"
	@echo "make matrix        ansible-test sanity on every ansible-core from requires_ansible's floor to the newest (one line each)"
	@echo "make matrix-oldest | matrix-newest   integration targets and molecule scenarios on the oldest / newest core"

$(STAMP): requirements-dev.txt requirements.txt
	@echo "bootstrap: creating $(VENV) with $(PYTHON) and installing pinned tooling" >&2
	@$(check_python)
	@# a .venv made by another Python (an older default) is made again
	@if [ -x $(PY) ] && [ "$$($(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYTHON_VERSION)" ]; then \
	  echo "bootstrap: $(VENV) has another Python; making it again with $(PYTHON_VERSION)" >&2; rm -rf $(VENV); fi
	@# tools/mkvenv.sh: uv installs in seconds what pip took minutes for (CI makes .venv in each fresh clone)
	bash tools/mkvenv.sh $(VENV) $(PYTHON) -r requirements-dev.txt
	@# ansible_collections/teardown/gates must resolve to this checkout
	mkdir -p $(VENV)/collections/ansible_collections/teardown
	ln -sfn "$(CURDIR)" $(VENV)/collections/ansible_collections/teardown/gates
	touch $(STAMP)

define check_python
test -n "$(PYTHON)" && "$(PYTHON)" -c 'import sys; sys.exit(sys.version_info[:2] != tuple(map(int, "$(PYTHON_VERSION)".split("."))))' \
  || { echo "bootstrap: Python $(PYTHON_VERSION) is needed (ansible-core 2.21, the default) and none was found" \
       "(looked in ~/.pyenv/versions/$(PYTHON_VERSION).*/bin and for python$(PYTHON_VERSION) on PATH)." \
       "Install it (pyenv install $(PYTHON_VERSION), or your distribution's python$(PYTHON_VERSION) and python$(PYTHON_VERSION)-venv)," \
       "or name one: make PYTHON=/path/to/python$(PYTHON_VERSION) ..." >&2; exit 2; }
endef

# ansible-test sanity runs --local in a virtualenv of its own (see requirements-sanity.txt)
SANITY_STAMP := .venv-sanity/.bootstrapped
$(SANITY_STAMP): requirements-sanity.txt
	@$(check_python)
	@if [ -x .venv-sanity/bin/python ] && [ "$$(.venv-sanity/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYTHON_VERSION)" ]; then rm -rf .venv-sanity; fi
	bash tools/mkvenv.sh .venv-sanity $(PYTHON) -r requirements-sanity.txt
	touch $(SANITY_STAMP)

# antsibull-docs and Sphinx live apart from .venv (see requirements-docs.txt)
DOCS_STAMP := .venv-docs/.bootstrapped
$(DOCS_STAMP): requirements-docs.txt
	@$(check_python)
	@if [ -x .venv-docs/bin/python ] && [ "$$(.venv-docs/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYTHON_VERSION)" ]; then rm -rf .venv-docs; fi
	bash tools/mkvenv.sh .venv-docs $(PYTHON) -r requirements-docs.txt
	touch $(DOCS_STAMP)

# ansible-rulebook (the real Event-Driven Ansible engine, with drools-jpy and Java 17) lives apart from .venv too
# (see requirements-eda.txt); tests/sandbox/tests/test_eda_stuck_deletions.py makes it through this target
EDA_STAMP := .venv-eda/.bootstrapped
$(EDA_STAMP): requirements-eda.txt requirements.txt
	@$(check_python)
	@command -v java >/dev/null || { echo "eda: ansible-rulebook needs Java 17 (bindep.txt: openjdk-17-jre-headless)" >&2; exit 2; }
	@if [ -x .venv-eda/bin/python ] && [ "$$(.venv-eda/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYTHON_VERSION)" ]; then rm -rf .venv-eda; fi
	bash tools/mkvenv.sh .venv-eda $(PYTHON) -r requirements-eda.txt
	touch $(EDA_STAMP)

eda: $(EDA_STAMP)
	@.venv-eda/bin/ansible-rulebook --version

bootstrap: $(STAMP) $(SANITY_STAMP) $(DOCS_STAMP)

# make test's sanity is the matrix's (tests/matrix.sh makes a virtualenv per core), not .venv-sanity's; .venv-docs
# is made by its docs stage (tests/run_all.sh), in a lane of its own while the sandbox starts
test: $(STAMP)
	bash tests/run_all.sh

unit: $(STAMP)
	bash tests/run_all.sh unit

sanity: $(STAMP) $(SANITY_STAMP)
	bash tests/run_all.sh sanity

integration: $(STAMP)
	bash tests/run_all.sh integration

sandbox-tests: $(STAMP)
	bash tests/run_all.sh sandbox

molecule: $(STAMP)
	bash tests/run_all.sh molecule

sandbox-up: $(STAMP)
	$(SANDBOX) up

sandbox-down:
	@if [ -x $(PY) ]; then $(SANDBOX) down; fi

sandbox-status: $(STAMP)
	$(SANDBOX) status

build: $(STAMP)
	$(VENV)/bin/ansible-galaxy collection build --force --output-path build/
	@# a fixed name for the execution environment definition (extensions/ee) to pick up
	cp "$$(ls -t build/teardown-gates-*.tar.gz | grep -v latest | head -1)" build/teardown-gates-latest.tar.gz

changelog: $(STAMP)
	$(VENV)/bin/antsibull-changelog lint
	bash changelogs/preview.sh

lint: $(STAMP) $(DOCS_STAMP)
	bash tests/run_all.sh lint docs

# the antsibull-docs site into build/docs/build/html (after its lint)
docs: $(STAMP) $(DOCS_STAMP)
	bash docs/docsite.sh lint
	bash docs/docsite.sh build

bench: $(STAMP)
	bash benchmarks/run.sh

# the ansible-core matrix (tests/matrix.sh; README "Tested with"); not part of make test
matrix: $(STAMP)
	bash tests/matrix.sh sanity

matrix-oldest: $(STAMP)
	bash tests/matrix.sh oldest

matrix-newest: $(STAMP) $(SANITY_STAMP)
	bash tests/matrix.sh newest

# fault and interruption campaigns (not part of make test; short forms: tests/sandbox/tests/test_chaos_short.py, test_interrupt_short.py)
chaos: $(STAMP)
	bash tests/chaos/chaos.sh

demo: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash tests/demo/run.sh

clean:
	rm -rf build tests/output .pytest_cache
