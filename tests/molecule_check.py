"""Molecule's check step, made strict: the scenario's converge.yml in --check mode on the converged lab,
failing on any task that reports a change, not only on errors (molecule's own `check` fails on errors
only, so it could not back the role READMEs' "--check changes nothing").

Run by .config/molecule/check_unchanged.yml, molecule's side_effect step in every scenario:
    python -m tests.molecule_check CONVERGE_PLAYBOOK INVENTORY
"""

from __future__ import annotations

import sys
import tempfile

from tests.lab_runner import changed, failed, run_playbook


def problems(run) -> list[str]:
    """Every changed or failed task of a --check run, one line each; empty when the run changed nothing."""
    lines = [f"changed in check mode: {host}: {task}" for host, task in changed(run.events)]
    lines += [f"failed in check mode: {host}: {task}: {msg}" for host, task, msg in failed(run.events)]
    if run.rc != 0 and not lines:
        lines.append(f"ansible-playbook --check ended with status {run.status}, rc {run.rc}")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    playbook, inventory = argv
    with tempfile.TemporaryDirectory(prefix="molecule-check-") as workdir:
        run = run_playbook(playbook, inventory, workdir, check=True)
    found = problems(run)
    for line in found:
        print(line)
    if found:
        return 1
    print(f"{playbook} --check: no task changed or failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
