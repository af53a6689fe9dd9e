#!/usr/bin/env bash
# One version of the ansible-core matrix (docs/ansible-core.md), from its venv .cache/core-<VERSION>
# (make core-venvs builds it from tests/ansible_core/requirements-<VERSION>.lock):
#
#   bash tests/ansible_core/run.sh VERSION [sanity|unit|lab ...]   (default: all three)
#
#   sanity  ansible-test sanity of that ansible-core (its own checkers: import, validate-modules, ansible-doc,
#           compile, action-plugin-docs, runtime-metadata, yamllint...), pylint skipped (below);
#   unit    the unit tests that drive that ansible-core (UNIT_TESTS below);
#   lab     tests/ansible_core/test_lab.py: validate.yml --check and hosts_file converged on a 2-host lab.
#
# Each part prints its wall and CPU seconds ("== core 2.16 unit: 41 s wall, 60 s cpu").
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${1:?usage: run.sh VERSION [sanity|unit|lab ...]}"
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(sanity unit lab)
venv="$root/.cache/core-$version"
[[ -x "$venv/bin/ansible-test" ]] || { echo "run.sh: no $venv (make core-venvs)" >&2; exit 2; }
cd "$root"

# Sanity tests left out of the matrix, each with its reason.
#   pylint: the same checks as the main venv's run (tests/sanity/run.sh in make sanity) on the same code; only its
#     pinned pylint differs per ansible-test, and each version's takes minutes (the longest sanity test).
#   future-import-boilerplate, metaclass-boilerplate (2.16 only, gone in 2.17): they require Python 2 boilerplate,
#     for modules run on Python 2.7 targets; the collection's modules need Python 3 (f-strings, annotations).
skips=(--skip-test pylint)
if [[ "$version" == 2.16 ]]; then
  skips+=(--skip-test future-import-boilerplate --skip-test metaclass-boilerplate)
fi

# The unit tests that drive ansible-core (its templating, argument specs, plugin loader, action and
# lookup APIs): every role's validate entry point and argument spec (tests/unit/roles/*/*validate*, the cluster
# roles' table), validate.yml's refusals and its hardware fact, the plugins that import ansible (action, lookup, filters) and
# the collection loader. The rest of tests/unit tests pure Python (module_utils) or reads files, the same on every
# version: make unit runs it on the main venv.
UNIT_TESTS=(
  tests/unit/test_collection_loader.py
  tests/unit/plugins/action
  tests/unit/plugins/lookup
  tests/unit/plugins/filter
  tests/unit/plugins/plugin_utils
  tests/unit/roles/test_cluster_roles_validate.py
  tests/unit/playbooks/test_validate_host_names.py
  tests/unit/playbooks/test_validate_hardware.py
)
while IFS= read -r f; do UNIT_TESTS+=("$f"); done < <(ls tests/unit/roles/*/test_*validate*.py)

timed() {
  local name="$1" start cpu0 rc=0
  shift
  start=$(date +%s)
  cpu0=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
  "$@" || rc=$?
  # The children's CPU (utime+stime of waited-for children, in clock ticks) of this shell.
  local cpu1 ticks
  cpu1=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
  ticks=$(getconf CLK_TCK)
  echo "== core $version $name: $(($(date +%s) - start)) s wall, $(((cpu1 - cpu0) / ticks)) s cpu, rc $rc"
  return $rc
}

status=0
for part in "${parts[@]}"; do
  case "$part" in
    sanity) timed sanity bash tests/sanity/run.sh "$venv/bin/python" "${skips[@]}" || status=1 ;;
    # The 10 slowest tests printed: where the part's time goes on that version.
    unit) timed unit "$venv/bin/pytest" -q -p no:cacheprovider --durations=10 "${UNIT_TESTS[@]}" || status=1 ;;
    lab)
      # Its own addresses per version: 127.0.27.11 (2.16), .21 (2.17), .31 (2.18).
      address="127.0.27.$(( (${version#2.} - 15) * 10 + 1 ))"
      timed lab env SCC_CORE_VERSION="$version" SCC_CORE_LAB_ADDRESS="$address" PATH="$venv/bin:$PATH" \
        "$venv/bin/pytest" -q -p no:cacheprovider tests/ansible_core/test_lab.py || status=1
      ;;
    *) echo "run.sh: unknown part $part (sanity, unit, lab)" >&2; exit 2 ;;
  esac
done
exit $status
