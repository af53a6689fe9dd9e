# scc.training: the two commands a newcomer needs are `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
LAB_DIR ?= $(CURDIR)/.lab
LAB_HOSTS ?= 2
MOLECULE_LAB_DIR ?= $(CURDIR)/.lab-molecule
# Several checkouts on one machine run their molecule labs side by side on other addresses.
MOLECULE_FIRST_ADDRESS ?= 127.0.4.11
# Molecule scenarios in dependency order: each later one assumes the earlier ones converged.
SCENARIOS := cpfs_mount hosts_file ssh_trust mpi_hostfile openmpi python_env bert_launch
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help venv lab-deps demo demo-cloud test lint format unit sanity molecule integration bench lab-up lab-down clean

help:
	@echo "make demo   set up everything, start a 2-host lab, run site.yml (BERT over mpirun)"
	@echo "make demo-cloud  the same, its hosts from provision.yml on the cloud emulator (scc.training.ecs inventory)"
	@echo "make test   set up everything and run every test (lint, unit, sanity, molecule, end-to-end)"
	@echo "make bench  site.yml first run vs no-op re-run at 1, 2 and 4 lab hosts"

$(BIN)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q -r requirements-dev.txt
	mkdir -p .collections/ansible_collections/scc
	ln -sfn ../../.. .collections/ansible_collections/scc/training
	touch $@

venv: $(BIN)/.installed

# The lab needs root, debootstrap (first run only) and unshare.
lab-deps:
	@command -v debootstrap >/dev/null && command -v ssh >/dev/null || \
	  { apt-get update -qq && apt-get install -y -qq debootstrap openssh-client >/dev/null; }

lab-up: venv lab-deps
	$(BIN)/python -m lab --dir $(LAB_DIR) up --hosts $(LAB_HOSTS)

lab-down: venv
	$(BIN)/python -m lab --dir $(LAB_DIR) down

demo: lab-up
	$(BIN)/ansible-playbook -i $(LAB_DIR)/inventory.yml playbooks/site.yml
	@echo "Results: $(CURDIR)/results/  (the lab stays up: 'make lab-down' stops it)"

# The emulator's instances are backed by the lab's hosts: provision.yml -> inventory plugin -> site.yml -> teardown.yml.
demo-cloud: lab-up
	$(BIN)/python -m lab.cloud.demo --lab-dir $(LAB_DIR)

lint: venv
	$(BIN)/yamllint -s .
	$(BIN)/ansible-lint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Rewrites the Python files as `make lint` wants them.
format: venv
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The BERT script's tests run in their own process: importing ansible patches sys.intern,
# which torch's compiler stack refuses.
unit: venv
	$(BIN)/pytest -q tests/unit --ignore=tests/unit/bert
	$(BIN)/pytest -q tests/unit/bert

sanity: venv
	bash tests/sanity/run.sh $(BIN)/python

molecule: venv lab-deps
	@set -e; $(BIN)/python -m lab --dir $(MOLECULE_LAB_DIR) up --hosts 3 --first-address $(MOLECULE_FIRST_ADDRESS); \
	trap '$(BIN)/python -m lab --dir $(MOLECULE_LAB_DIR) down' EXIT; \
	for s in $(SCENARIOS); do \
	  if [ -d molecule/$$s ]; then echo "== molecule $$s"; \
	    SCC_LAB_DIR=$(MOLECULE_LAB_DIR) PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/molecule test -s $$s; fi; \
	done

integration: venv lab-deps
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/pytest -q -p no:cacheprovider tests/integration

test: lint unit sanity molecule integration

bench: venv lab-deps
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python bench/site_bench.py

clean:
	-$(BIN)/python -m lab --dir $(LAB_DIR) down
	rm -rf .cache results tests/output
