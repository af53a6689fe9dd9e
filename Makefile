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
SCENARIOS := cpfs_mount rdma_stack hosts_file ssh_trust mpi_hostfile openmpi python_env bert_launch
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: runtime-wheel help venv collections lab-deps test-deps demo demo-cloud test checks checks-integration lint format docs ee unit sanity molecule integration chaos bench bench-prep bench-data bench-scale bench-train gpu-check nccl-tests-source lab-up lab-down clean mutation lock release release-artifact core-venvs core-matrix core-lock molecule-core-matrix

help:
	@echo "make demo   set up everything, start a 2-host lab, run site.yml (BERT over mpirun)"
	@echo "make demo-cloud  the same, its hosts from provision.yml on the cloud emulator (scc.training.ecs inventory)"
	@echo "make test   set up everything and run every test (lint, unit, sanity, molecule, end-to-end, chaos)"
	@echo "make chaos  the chaos tests alone (a host killed mid-prepare, API faults, a corrupted wheel, a full results dir)"
	@echo "make bench  site.yml first run vs no-op re-run at 1, 2 and 4 lab hosts; nccl_check's bisection rounds vs N = 4..256"
	@echo "make bench-prep  imagenet_prep's conversion images/s on 1 and 2 lab nodes, the ratio"
	@echo "make bench-data  bert_prep on a generated corpus: peak RSS 4x/1x corpus, 2/1 nodes speed-up, padding"
	@echo "make bench-scale  validate.yml and cluster.yml: tasks and controller CPU per host at N = 25..200 fake local hosts; 4 job slices vs one run"
	@echo "make gpu-check  on a GPU node or machine: one check of its GPUs (bench/gpu_check.sh; GPU_PYTHON=a Python with torch)"
	@echo "make runtime-wheel  the training runtime's wheel (runtime/scc_training_runtime) in .cache/runtime-wheel, reproducible"
	@echo "make docs   regenerate the role READMEs' variable tables and CHANGELOG.md"
	@echo "make mutation  mutation testing (cosmic-ray) of the modules that judge and guard: 'mutation: killed K of N (P%)'"
	@echo "make ee     the execution environment's build context in .cache/ee/context (ansible-builder)"
	@echo "make release VERSION=x.y.z  cut a release: galaxy.yml, changelog, the artifact in .cache/release, galaxy-importer"
	@echo "make release-artifact  the released version's artifact again, checked, and galaxy-importer on it"
	@echo "make core-matrix  sanity, the unit tests that drive Ansible and a lab converge on ansible-core 2.16, 2.17, 2.18"

# The controller's requirements from requirements.lock, every file held to its sha256 (--require-hashes); then
# the test tools of requirements-dev.txt on top (the controller's pins already satisfied).
$(BIN)/.installed: requirements.txt requirements.in requirements.lock requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q --require-hashes -r requirements.lock
	$(BIN)/pip install -q -r requirements-dev.txt
	mkdir -p .collections/ansible_collections/scc
	ln -sfn ../../.. .collections/ansible_collections/scc/training
	touch $@

venv: $(BIN)/.installed

# kubernetes.core (k8s_cpfs_volume, k8s_training_job), for ansible-lint and the playbooks: once per checkout, from the
# `ansible` wheel on PyPI pinned by hash in requirements-collections.txt (Galaxy is out of reach; requirements.yml
# names the same collection for machines that reach it).
K8S_CORE := .collections/ansible_collections/kubernetes/core/MANIFEST.json
$(K8S_CORE): requirements-collections.txt | $(BIN)/.installed
	rm -rf .cache/collection-wheels
	$(BIN)/pip download -q --no-deps --require-hashes -r requirements-collections.txt -d .cache/collection-wheels
	$(BIN)/python tools/bundled_collection.py .cache/collection-wheels/ansible-*.whl kubernetes.core .collections

collections: $(K8S_CORE)

# The system packages of bindep.txt for the profiles $(1): bindep -b lists the missing ones
# (Debian/Ubuntu: apt installs them).
bindep_install = missing="$$($(BIN)/bindep -b $(1))" || \
	  { apt-get update -qq && apt-get install -y -qq $$missing >/dev/null; }

# The controller's, the lab's (root, debootstrap on the first run, unshare) and the tests'.
lab-deps: venv
	@$(call bindep_install,lab test)

# The controller's and the tests' (gpg: the unit tests fail without it, they never skip).
test-deps: venv
	@$(call bindep_install,test)

lab-up: venv lab-deps
	$(BIN)/python -m lab --dir $(LAB_DIR) up --hosts $(LAB_HOSTS)

lab-down: venv
	$(BIN)/python -m lab --dir $(LAB_DIR) down

demo: lab-up
	$(BIN)/ansible-playbook -i $(LAB_DIR)/inventory.yml playbooks/site.yml
	@PYTHONPATH=runtime $(BIN)/python -m scc_training_runtime.render_report --summary "$${SCC_TRAINING_RESULTS_DIR:-results}/cluster-report.json"
	@echo "Results: $(CURDIR)/results/  (the lab stays up: 'make lab-down' stops it)"

# The emulator's instances are backed by the lab's hosts: provision.yml -> inventory plugin -> site.yml -> teardown.yml.
demo-cloud: lab-up
	$(BIN)/python -m lab.cloud.demo --lab-dir $(LAB_DIR)

# The training runtime's wheel (runtime/scc_training_runtime; docs/runtime.md): the same bytes from the same tree, its
# version galaxy.yml's; python_env builds the same one on the controller. Its path and sha256 on the last line.
RUNTIME_WHEEL_DIR ?= .cache/runtime-wheel
runtime-wheel:
	$(PYTHON) runtime/build_wheel.py --out $(RUNTIME_WHEEL_DIR)

lint: venv collections
	$(BIN)/yamllint -s .
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/ansible-lint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/antsibull-changelog lint
	@mkdir -p .cache && $(BIN)/antsibull-changelog generate --output .cache/CHANGELOG.md --output-format md && \
	  cmp -s .cache/CHANGELOG.md CHANGELOG.md || \
	  { echo "CHANGELOG.md is not what changelogs/changelog.yaml generates: run make docs" >&2; exit 1; }
	$(BIN)/python tools/role_readme.py --check
	$(BIN)/python tools/instance_table.py --check
	@# The docs of every module, plugin and role entry point against the schema of Ansible's docs site
	@# (antsibull-docs: types, literal defaults, descriptions, resolvable O()/M()/P() references to this
	@# collection, ansible.builtin and kubernetes.core). It calls ansible-doc and ansible-galaxy by name, hence
	@# PATH. rstcheck of the generated RST is skipped: it triples the time and checks antsibull-docs' own output.
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/antsibull-docs lint-collection-docs --plugin-docs --skip-rstcheck \
	  --validate-collection-refs dependent --disallow-unknown-collection-refs .

# Rewrites the Python files as `make lint` wants them.
format: venv
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# What is generated, never edited by hand: each role README's variable table (from its
# meta/argument_specs.yml), README.md's supported-instance table (from
# plugins/module_utils/instance_families.py) and CHANGELOG.md (from changelogs/changelog.yaml).
# `make lint` fails when one of them is stale.
docs: venv
	$(BIN)/python tools/role_readme.py
	$(BIN)/python tools/instance_table.py
	$(BIN)/antsibull-changelog generate

# The execution environment (execution-environment.yml): the collection built from this checkout,
# then ansible-builder's build context; `podman build -t scc-training-ee .cache/ee/context` builds it.
ee: venv
	rm -rf .cache/ee && mkdir -p .cache/ee
	$(BIN)/ansible-galaxy collection build --output-path .cache/ee .
	mv .cache/ee/scc-training-*.tar.gz .cache/ee/scc-training.tar.gz
	$(BIN)/ansible-builder create --file execution-environment.yml --context .cache/ee/context --output-filename Containerfile

# The training scripts' tests (BERT, ResNet) run in their own process: importing ansible patches sys.intern,
# which torch's compiler stack refuses. The others on two workers, a test file to a worker (tests/unit/conftest.py:
# the roles' validate tables and the refusal cases that read their runs share one worker); most of their time is
# ansible-playbook runs.
unit: venv test-deps collections
	$(BIN)/pytest -q -n 2 --dist loadgroup tests/unit --ignore=tests/unit/bert --ignore=tests/unit/resnet
	$(BIN)/pytest -q tests/unit/bert tests/unit/resnet

sanity: venv
	bash tests/sanity/run.sh $(BIN)/python

# Every scenario's shared settings are molecule's base config, .config/molecule/config.yml; named
# here because molecule finds it by itself only where .git is a directory (not in a git worktree).
molecule: venv lab-deps
	@set -e; $(BIN)/python -m lab --dir $(MOLECULE_LAB_DIR) up --hosts 3 --first-address $(MOLECULE_FIRST_ADDRESS); \
	trap '$(BIN)/python -m lab --dir $(MOLECULE_LAB_DIR) down' EXIT; \
	for s in $(SCENARIOS); do \
	  if [ -d molecule/$$s ]; then echo "== molecule $$s"; \
	    SCC_LAB_DIR=$(MOLECULE_LAB_DIR) PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/molecule --base-config $(CURDIR)/.config/molecule/config.yml test -s $$s; fi; \
	done

# The ansible-core matrix (docs/ansible-core.md): the main venv runs ansible-core 2.19; each older version of
# requires_ansible's range has its venv .cache/core-<version>, from tests/ansible_core/requirements-<version>.lock (every
# file held to its sha256), made anew only when its lock changes. `make core-matrix CORE_VERSIONS=2.16` runs one.
CORE_VERSIONS ?= 2.16 2.17 2.18
.cache/core-%/.installed: tests/ansible_core/requirements-%.lock
	rm -rf .cache/core-$*
	$(PYTHON) -m venv .cache/core-$*
	.cache/core-$*/bin/pip install -q --require-hashes -r $<
	touch $@

core-venvs: $(foreach v,$(CORE_VERSIONS),.cache/core-$(v)/.installed)

# Per version: ansible-test sanity, the unit tests that drive Ansible, validate.yml and hosts_file on a 2-host lab
# (tests/ansible_core/run.sh); each part's wall and CPU seconds on a line of its own.
core-matrix: core-venvs venv collections lab-deps
	@status=0; for v in $(CORE_VERSIONS); do bash tests/ansible_core/run.sh $$v || status=1; done; exit $$status

# The requirements-<version>.lock files (pip-tools): rerun after a change to a requirements-<version>.in.
core-lock: venv
	for v in $(CORE_VERSIONS); do \
	  $(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
	    --no-emit-find-links --no-emit-trusted-host -o tests/ansible_core/requirements-$$v.lock \
	    tests/ansible_core/requirements-$$v.in; done

# Each chaos test records its figures (faults injected, runs that recovered, data lost) in CHAOS_FIGURES;
# tests/chaos/summary.py prints their sum, even when a test failed, and fails when data was lost.
CHAOS_FIGURES := $(CURDIR)/.cache/chaos
lab_pytest = rm -rf $(CHAOS_FIGURES); \
	PATH=$(CURDIR)/$(BIN):$$PATH SCC_CHAOS_FIGURES=$(CHAOS_FIGURES) \
	  $(BIN)/pytest -q -p no:cacheprovider -n 2 --dist loadfile --durations=25 $(1); status=$$?; \
	$(BIN)/python tests/chaos/summary.py $(CHAOS_FIGURES) || status=1; exit $$status

# Two test files at a time (pytest-xdist): each file brings up its own lab on its own addresses. The
# chaos tests run in the same pool, beside the integration files; the longest files first, so that no
# long one starts last and runs alone.
LONG_LAB_TESTS := tests/integration/test_site_e2e.py tests/integration/test_imagenet_prep.py \
	tests/chaos/test_chaos_lab.py tests/integration/test_verify_lab.py
LAB_TESTS := $(LONG_LAB_TESTS) $(filter-out $(LONG_LAB_TESTS),$(sort $(wildcard tests/integration/test_*.py tests/chaos/test_*.py)))
integration: venv lab-deps
	@$(call lab_pytest,$(LAB_TESTS))

# The chaos tests alone: a lab host killed mid-prepare, the cloud API's faults during provision, a
# corrupted wheel on the shared storage, the results directory full; its last line sums them up.
chaos: venv lab-deps
	@$(call lab_pytest,tests/chaos)

# The static checks, one after the other.
checks:
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory sanity

# The static checks, then the lab tests: one stream.
checks-integration:
	$(MAKE) --no-print-directory checks
	$(MAKE) --no-print-directory integration

# Molecule's scenarios, then the ansible-core matrix: the stream that waits (on SSH) more than it computes.
molecule-core-matrix:
	$(MAKE) --no-print-directory molecule
	$(MAKE) --no-print-directory core-matrix

# Two streams on two cores: the static checks (CPU-bound) then the lab tests, beside molecule's lab and the
# ansible-core matrix (2.16 to 2.18, docs/ansible-core.md; molecule mostly waits on SSH); each stream's log printed in
# one piece when it ends. Every lab has its own addresses, directory and fact cache, so the integration labs may start
# while molecule's still runs.
test: venv lab-deps test-deps
	$(MAKE) --no-print-directory -j2 --output-sync=target checks-integration molecule-core-matrix

bench: venv lab-deps
	$(BIN)/python bench/nccl_bisect_bench.py
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python bench/site_bench.py

# Conversion images/s of imagenet_prep on 1 and 2 lab nodes, the ratio (goal >= 1.6).
bench-prep: venv lab-deps
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python bench/imagenet_prep_bench.py

# Its last line: peak RSS ratio 4x/1x corpus (goal <= 1.2), nodes 2/1 speed-up (>= 1.6), padding (<= 5%).
bench-data: venv lab-deps
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python bench/bert_data_bench.py

# Fake local hosts, and a 2-host lab for prepare.yml's converged re-run. Its last line: per-host cpu and task ratios
# N=200/N=25 (goals <= 1.3, <= 1.05), the controller CPU s per host at N=200 (goals: cluster <= 3, validate <= 1),
# prepare.yml's re-run per lab host (goal <= 5) and whether 4 parallel job slices = one run.
bench-scale: venv lab-deps
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python bench/bringup_scale.py

# No lab: 2-rank DDP jobs of pretrain_bert.py on this machine's CPUs. Its last line: the step-time
# ratio on/off of each lever that acts on CPUs (masked-row head, pre-tokenised shards, accumulation).
bench-train: venv
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python bench/bert_train_bench.py

# On a GPU node or machine, before a job: bench/gpu_check.sh (no venv of ours needed; GPU_PYTHON is a Python with
# CUDA torch). Its report: results/gpu-check.json. nccl-tests is built from .cache/nccl-tests (nccl-tests-source).
GPU_PYTHON ?= python3
gpu-check:
	mkdir -p results
	bash bench/gpu_check.sh $(GPU_PYTHON) --report results/gpu-check.json

# nccl_check's pinned nccl-tests release, checked against its pinned sha256, for gpu-check on a machine that reaches
# no network (copy or carry .cache/nccl-tests with the checkout).
NCCL_TESTS_VERSION = $(shell sed -n 's/^nccl_check_tests_version: "\(.*\)"/\1/p' roles/nccl_check/defaults/main.yml)
NCCL_TESTS_SHA256 = $(shell sed -n 's/^nccl_check_tests_sha256: "\(.*\)"/\1/p' roles/nccl_check/defaults/main.yml)
nccl-tests-source:
	mkdir -p .cache/nccl-tests
	curl -fsSLo .cache/nccl-tests/nccl-tests-$(NCCL_TESTS_VERSION).tar.gz.part \
	  https://github.com/NVIDIA/nccl-tests/archive/v$(NCCL_TESTS_VERSION).tar.gz
	echo "$(NCCL_TESTS_SHA256)  .cache/nccl-tests/nccl-tests-$(NCCL_TESTS_VERSION).tar.gz.part" | sha256sum -c -
	mv .cache/nccl-tests/nccl-tests-$(NCCL_TESTS_VERSION).tar.gz.part .cache/nccl-tests/nccl-tests-$(NCCL_TESTS_VERSION).tar.gz

clean:
	-$(BIN)/python -m lab --dir $(LAB_DIR) down
	rm -rf .cache results tests/output

# requirements.lock: requirements.in resolved (requirements.txt's ranges, the controller's ansible-core and
# ansible-runner pins), every file's sha256 (pip-tools, pinned in requirements-dev.txt). Rerun after a change to
# requirements.txt or requirements.in (tests/unit/test_requirements_lock.py checks that the lock satisfies both).
lock: venv
	$(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
	  --no-emit-find-links --no-emit-trusted-host -o requirements.lock requirements.in

# Mutation testing (tools/mutation.py, cosmic-ray): each mutant of the modules that judge and guard must fail their
# unit tests; prints `mutation: killed K of N (P%)`, fails below 95%. Not in `make test`: about 3700 mutants (the
# targets added by issue 36 included), one pytest run each, about an hour on 2 cores: MUTATION_JOBS targets at a time
# (one per core), each in its own copy of the tree (MUTATION_ARGS="--only health" for one).
MUTATION_JOBS ?= $(shell nproc)
mutation: venv collections
	nice -n 19 $(BIN)/python tools/mutation.py --jobs $(MUTATION_JOBS) $(MUTATION_ARGS)

# galaxy-importer (what Galaxy runs on an uploaded artifact) in its own venv: its attrs<24 does not fit the dev venv's.
IMPORTER_VENV := .cache/importer-venv
$(IMPORTER_VENV)/.installed: tools/requirements-importer.txt
	rm -rf $(IMPORTER_VENV)
	$(PYTHON) -m venv $(IMPORTER_VENV)
	$(IMPORTER_VENV)/bin/pip install -q -U pip
	$(IMPORTER_VENV)/bin/pip install -q -r tools/requirements-importer.txt
	touch $@

# make release VERSION=x.y.z: first tools/release_check.py --next (everything no release lists yet will be listed by
# this one: modules and plugins by version_added, roles and playbooks by a fragment's add object.* section; one
# release_summary), then galaxy.yml's version, antsibull-changelog release (changelogs/changelog.yaml, CHANGELOG.md,
# fragments removed), the check that the changelog lists everything and every version_added is a released version,
# then release-artifact. Commit galaxy.yml, changelogs/ and CHANGELOG.md afterwards.
release: venv $(IMPORTER_VENV)/.installed
	@[[ "$(VERSION)" =~ ^[0-9]+\.[0-9]+\.[0-9]+$$ ]] || { echo "usage: make release VERSION=x.y.z" >&2; exit 2; }
	$(BIN)/python tools/release_check.py --next $(VERSION)
	sed -i 's/^version: .*/version: $(VERSION)/' galaxy.yml
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/antsibull-changelog release --reload-plugins --version $(VERSION)
	$(BIN)/python tools/release_check.py
	$(MAKE) --no-print-directory release-artifact

# The artifact of galaxy.yml's version in .cache/release, the same check on what it ships, and galaxy-importer on it
# (ansible-test off, ansible-lint on: tools/galaxy-importer.cfg); any WARNING or ERROR line of its output fails. Alone
# it reruns that part of a release (galaxy-importer gives ansible-lint 180 s: on a loaded machine it may time out).
RELEASE_DIR := .cache/release
RELEASED := $(shell sed -n 's/^version: //p' galaxy.yml)
release-artifact: venv $(IMPORTER_VENV)/.installed
	$(BIN)/python tools/release_check.py
	rm -rf $(RELEASE_DIR) && mkdir -p $(RELEASE_DIR)
	$(BIN)/ansible-galaxy collection build --output-path $(RELEASE_DIR) .
	$(BIN)/python tools/release_check.py --artifact $(RELEASE_DIR)/scc-training-$(RELEASED).tar.gz
	set -o pipefail; cd $(RELEASE_DIR) && \
	  GALAXY_IMPORTER_CONFIG=$(CURDIR)/tools/galaxy-importer.cfg PATH=$(CURDIR)/$(IMPORTER_VENV)/bin:$$PATH \
	  $(CURDIR)/$(IMPORTER_VENV)/bin/python -m galaxy_importer.main scc-training-$(RELEASED).tar.gz | tee importer.log
	@! grep -E '^(WARNING|ERROR|CRITICAL)' $(RELEASE_DIR)/importer.log || \
	  { echo "galaxy-importer warned about the artifact (above): fix, then make release-artifact" >&2; exit 1; }
	@echo "Released $(RELEASED): $(RELEASE_DIR)/scc-training-$(RELEASED).tar.gz; commit galaxy.yml, changelogs/ and CHANGELOG.md"
