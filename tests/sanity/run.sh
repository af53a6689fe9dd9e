#!/usr/bin/env bash
# Run `ansible-test sanity` over the collection.
#
#   bash tests/sanity/run.sh [PYTHON] [extra ansible-test sanity args...]
#
# PYTHON is the python of the venv to test with (default: .venv/bin/python); its venv must
# hold ansible-core (ansible-test). Nothing is installed into it (see step 1).
#
# Why a copy: ansible-test insists that the working directory is
# .../ansible_collections/<namespace>/<name>, and it resolves symlinks, so the checkout's
# .collections/ansible_collections/scc/training link (which points back at the repo root)
# does not qualify ("The current working directory must be within the source tree being
# tested"). We therefore copy what a clean checkout holds (files git tracks plus untracked
# files it does not ignore, without lab state) to <tmp>/ansible_collections/scc/training,
# `git init` it (ansible-test lists files through git: tracked + untracked-not-ignored) and
# run there with --local (no docker here). The copy is removed afterwards unless SANITY_KEEP=1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${1:-$root/.venv/bin/python}"
[[ $# -gt 0 ]] && shift
[[ "$python" = /* ]] || python="$root/$python"
venv_bin="$(dirname "$python")"
[[ -x "$venv_bin/ansible-test" ]] || { echo "run.sh: no ansible-test next to $python" >&2; exit 2; }
py_version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

# Sanity tests that cannot run here, each with the reason (printed below, and in the summary).
#   shellcheck: needs the shellcheck binary, which is not a Python package (no apt/docker assumed).
#   pslint:     PowerShell (PSScriptAnalyzer); this collection ships no PowerShell.
skip_tests=()
skip_reason=()
if ! command -v shellcheck >/dev/null 2>&1; then
  skip_tests+=(shellcheck); skip_reason+=("shellcheck binary not installed (not on PyPI; apt-get install shellcheck to enable)")
fi
skip_tests+=(pslint); skip_reason+=("needs PowerShell + PSScriptAnalyzer; the collection has no PowerShell code")

# 1. Checker packages. ansible-test 2.19 runs every sanity test that has requirements in its
# own virtualenv (~/.ansible/test/venv/sanity.<test>/<python>/<hash>), created on first use
# and then reused, and pip-installs its pinned checkers there (pylint, pycodestyle, yamllint,
# voluptuous, antsibull-docs-parser...) even with --local. So nothing is installed into the
# venv given here; it only needs ansible-core. The first run needs PyPI, later runs are cached.
#
# Those venvs are created --without-pip and bootstrapped with a get-pip script that
# ansible-test downloads from ci-files.testing.ansible.com, which is not reachable here (PyPI
# is). Unless that script is already cached, put a stand-in in its cache slot: it installs
# pip from the pip wheel (downloaded once from PyPI) exactly as get-pip does (`pip install
# --upgrade --force-reinstall <args>` run from the wheel).
pip_version="$("$python" -c 'from ansible_test._internal.python_requirements import get_venv_packages as g
from ansible_test._internal.host_configs import NativePythonConfig as N
print(g(N(version="'"$py_version"'", path="x"))["pip"])' 2>/dev/null || echo 24.2)"
cache="$HOME/.ansible/test/cache"
get_pip="$cache/get_pip_${pip_version//./_}.py"
wheel="$cache/pip-${pip_version}-py3-none-any.whl"
if [[ ! -s "$get_pip" ]]; then
  mkdir -p "$cache"
  if [[ ! -s "$wheel" ]]; then
    echo "== downloading pip $pip_version from PyPI for ansible-test's venv bootstrap"
    "$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
      -d "$cache" "pip==$pip_version"
  fi
  cat >"$get_pip.tmp" <<EOF
# Stand-in for ansible-test's get-pip $pip_version bootstrap script, written by scc.training's
# tests/sanity/run.sh because ci-files.testing.ansible.com is unreachable. Delete it to make
# ansible-test download the real one.
import os, sys
wheel = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pip-$pip_version-py3-none-any.whl")
sys.path.insert(0, wheel)
from pip._internal.cli.main import main
args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
args = [wheel if a == "pip==$pip_version" else a for a in args]
sys.exit(main(["install", "--upgrade", "--force-reinstall", *args]))
EOF
  mv "$get_pip.tmp" "$get_pip"
fi

# 2. A copy of the collection under a path ansible-test accepts.
work="$(mktemp -d "${TMPDIR:-/tmp}/scc-sanity.XXXXXX")"
cleanup() { if [[ "${SANITY_KEEP:-0}" == 1 ]]; then echo "== kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
dest="$work/ansible_collections/scc/training"
mkdir -p "$dest"
(
  cd "$root"
  git ls-files -z --cached --others --exclude-standard \
    | "$python" -c '
import os, sys
for p in sys.stdin.buffer.read().split(b"\0"):
    if p and not p.split(b"/", 1)[0].startswith(b".lab") and os.path.lexists(p):
        sys.stdout.buffer.write(p + b"\0")
' \
    | tar --null -T - -cf - \
    | tar -xf - -C "$dest"
)
git -C "$dest" init -q

# 3. Run.
for i in "${!skip_tests[@]}"; do
  echo "== skipping sanity test ${skip_tests[$i]}: ${skip_reason[$i]}"
done
skip_args=()
for t in "${skip_tests[@]}"; do skip_args+=(--skip-test "$t"); done

cd "$dest"
echo "== ansible-test sanity in $dest (python $py_version, --local)"
set +e
PATH="$venv_bin:$PATH" ANSIBLE_TEST_PREFER_PODMAN= \
  "$venv_bin/ansible-test" sanity --local --python "$py_version" --color no "${skip_args[@]}" "$@"
rc=$?
set -e
exit $rc
