"""The cluster roles' node commands (the shell scripts in their vars/main.yml) end their options with `--` before
any host name (issue 27): a name such as `-v` or `-oProxyCommand=x` reaches getent and ssh as a name, never as an
option. Run here with the real getent and a stand-in ssh that records its argv; milliseconds."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]


def script(role: str, name: str) -> str:
    return yaml.safe_load((ROOT / "roles" / role / "vars" / "main.yml").read_text())[name]


def sh(text: str, *args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", text, "sh", *args], capture_output=True, text=True, env=env, check=False)


def test_hosts_file_resolves_a_name_that_looks_like_an_option_as_a_name():
    proc = sh(script("hosts_file", "_hosts_file_resolve_script"), "-v", "localhost")
    assert "invalid option" not in proc.stderr, proc.stderr
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert rows[0][:2] == ["-v", "2"] and rows[1][:2] == ["localhost", "0"], rows


def test_mpi_hostfile_check_resolves_names_that_look_like_options_as_names(tmp_path):
    (tmp_path / "mpihosts").write_text("localhost slots=1\n")
    proc = sh(script("mpi_hostfile", "_mpi_hostfile_check_script"), str(tmp_path / "mpihosts"), "localhost", "-v")
    assert "invalid option" not in proc.stderr, proc.stderr
    digest, rc = proc.stdout.splitlines()[:2]
    assert len(digest) == 64 and rc == "2"
    proc = sh(script("mpi_hostfile", "_mpi_hostfile_check_script"), str(tmp_path / "missing"), "localhost")
    assert proc.stdout.splitlines()[:2] == ["missing", "0"]


def test_ssh_trust_mesh_ends_ssh_options_before_the_peer(tmp_path):
    (tmp_path / "ssh").write_text('#!/bin/sh\nprintf "%s\\n" "$@" >"$RECORD"\necho peer\n')
    (tmp_path / "ssh").chmod(0o755)
    env = dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}", RECORD=str(tmp_path / "argv"))
    proc = sh(script("ssh_trust", "_ssh_trust_mesh_script"), "5", "1", "-oProxyCommand=touch_pwned", env=env)
    assert proc.returncode == 0, proc.stderr
    argv = (tmp_path / "argv").read_text().splitlines()
    assert argv[-3:] == ["--", "-oProxyCommand=touch_pwned", "hostname"], argv
    assert proc.stdout.split("\t")[:3] == ["-oProxyCommand=touch_pwned", "0", "peer "]


# --- every role's command/shell tasks (issue 27): a static scan, so a new call cannot slip in -------------------

HOST_COMMANDS = {"ssh", "ssh-keyscan", "getent", "ping", "ping6"}


def tasks_of(items):
    """Every task of a task file, blocks (block/rescue/always) flattened."""
    for item in items or []:
        if not isinstance(item, dict):
            continue
        for key in ("block", "rescue", "always"):
            yield from tasks_of(item.get(key))
        yield item


def host_command_calls():
    """(role/file, argv) of each command/shell task whose program takes a host name. Shell strings are split on
    whitespace, which keeps a Jinja expression without spaces in one word."""
    for path in sorted((ROOT / "roles").glob("*/tasks/*.yml")) + sorted((ROOT / "playbooks").glob("*.yml")):
        where = str(path.relative_to(ROOT))
        for task in tasks_of(yaml.safe_load(path.read_text())):
            for module in ("ansible.builtin.command", "ansible.builtin.shell"):
                args = task.get(module)
                if args is None:
                    continue
                argv = args.get("argv") if isinstance(args, dict) else None
                text = args.get("cmd", "") if isinstance(args, dict) else args
                lines = [argv] if isinstance(argv, list) else [line.split() for line in str(text or "").splitlines()]
                for words in lines:
                    if words and os.path.basename(str(words[0])) in HOST_COMMANDS:
                        yield where, [str(w) for w in words]


def test_every_role_command_that_takes_a_host_ends_its_options_before_it():
    calls = list(host_command_calls())
    # The scan sees the two calls issue 27 named, so it is not vacuous.
    seen = {(where, argv[0]) for where, argv in calls}
    assert ("roles/mpi_job/tasks/resolve.yml", "getent") in seen, calls
    assert ("roles/cluster_report/tasks/collect.yml", "ssh") in seen, calls
    for where, argv in calls:
        hosts = [i for i, word in enumerate(argv) if "{{" in word or word.startswith(("$", '"$'))]
        assert "--" in argv and all(i > argv.index("--") for i in hosts), (where, argv)
