"""What the cloud module and playbook tests share, against the offline emulator (lab/cloud).

Modules run in-process the way Ansible runs them: arguments in through the module argument channel
(ansible.module_utils.testing.patch_module_args), one JSON result out on stdout. Playbooks run as a
user runs them: ansible-playbook in a subprocess, credentials in the environment, the endpoints
from one vars file. Importable from unit and integration tests alike (their conftest.py puts the
repo root on sys.path).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ansible.module_utils.testing import patch_module_args

from lab.cloud.testing import emulator

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REGION = "cn-shanghai"
ZONE = "cn-shanghai-b"
# These emulators list a new resource at once (Timings.listing_lag 0): what is not listed within a
# second was deleted since its ClientToken made it (real cloud: listing_timeout's default, 60 s).
EMULATOR_LISTING_TIMEOUT = 1
WRITE_PREFIXES = ("Create", "Delete", "Run", "Authorize", "Revoke", "Modify", "Start", "Stop")

# Options of nas_cpfs_protocol_service refused before any API call, each with the option the message names.
BAD_PROTOCOL_SERVICE_OPTIONS = [
    ({"export_path": ""}, "export_path"),
    ({"export_path": "data/"}, "export_path"),
    ({"export_path": "/data"}, "export_path"),
    ({"export_path": "/my data/"}, "export_path"),
    ({"export_path": "/" + "d" * 1023 + "/"}, "export_path"),
    ({"file_system_id": "nas-0123abcd"}, "file_system_id"),
    ({"vpc_id": None}, "vpc_id"),
    ({"throughput": 0}, "throughput"),
    ({"throughput": -5}, "throughput"),
]


def module_emulator(timings):
    """A module-scoped pytest fixture: one emulator for the test file, which must end without an internal error."""

    @pytest.fixture(scope="module")
    def emu():
        with emulator(timings=timings) as running:
            yield running
            assert running.internal_errors == []

    return emu


def run_module(emu, module_name, check=False, diff=True, **args):
    """Run scc.training.<module_name> against ``emu`` like Ansible: args in, one JSON result out."""
    module = importlib.import_module("ansible_collections.scc.training.plugins.modules." + module_name)
    args = {
        "access_key": emu.access_key_id,
        "secret_key": emu.access_key_secret,
        "region": REGION,
        "ecs_endpoint": emu.endpoint,
        "nas_endpoint": emu.endpoint,
        "cs_endpoint": emu.endpoint,
        "vpc_endpoint": emu.endpoint,
        "listing_timeout": EMULATOR_LISTING_TIMEOUT,
        "_ansible_check_mode": check,
        "_ansible_diff": diff,
        **args,
    }
    out = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        module.main()
    return json.loads(out.getvalue())


def writes(emu, since):
    """The write actions the emulator served since call number ``since``."""
    return [c["action"] for c in emu.calls[since:] if c["action"].startswith(WRITE_PREFIXES)]


def cloud_vars(emu, path, **settings):
    """inventories/cloud/cloud.example.yml aimed at ``emu``, ``settings`` on top, written to ``path``."""
    values = yaml.safe_load((ROOT / "inventories/cloud/cloud.example.yml").read_text())
    values.update(
        scc_cloud_ecs_endpoint=emu.endpoint,
        scc_cloud_nas_endpoint=emu.endpoint,
        scc_cloud_cs_endpoint=emu.endpoint,
        scc_cloud_vpc_endpoint=emu.endpoint,
        # the host keys provision.yml reads from the consoles: beside the vars file, never the user's ~/.ssh
        scc_cloud_known_hosts_file=str(path.parent / "known_hosts"),
    )
    values.update(settings)
    path.write_text(yaml.safe_dump(values))
    return values


def playbook_env(emu):
    """The environment of an ansible-* subprocess: the emulator's credentials, no proxy, no colour."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(
        ALIBABA_CLOUD_ACCESS_KEY_ID=emu.access_key_id,
        ALIBABA_CLOUD_ACCESS_KEY_SECRET=emu.access_key_secret,
        SCC_ALICLOUD_LISTING_TIMEOUT=str(EMULATOR_LISTING_TIMEOUT),
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_NOCOLOR="1",
        PATH="%s:%s" % (BIN, env.get("PATH", "")),
    )
    return env


def run_ansible(env, program, *args, timeout=300):
    """``program`` (ansible, ansible-inventory, ...) of this venv with ``args``, from the repo root."""
    cmd = [str(BIN / program), *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=timeout)


def run_playbook(env, name, vars_file, *extra):
    """ansible-playbook playbooks/<name> -e @vars_file on localhost; returns (exit status, output)."""
    playbook = str(ROOT / "playbooks" / name)
    proc = run_ansible(env, "ansible-playbook", "-i", "localhost,", playbook, "-e", "@%s" % vars_file, *extra)
    return proc.returncode, proc.stdout + proc.stderr


def cpfs_args(name, vpc_id, vswitch_id, tags):
    """nas_cpfs options for a 3600 GiB file system in ZONE."""
    return dict(name=name, zone_id=ZONE, vpc_id=vpc_id, vswitch_id=vswitch_id, capacity=3600, tags=tags)


def recap(output):
    """The PLAY RECAP counts of localhost."""
    match = re.search(r"localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", output)
    assert match, output[-3000:]
    return dict(zip(("ok", "changed", "unreachable", "failed"), map(int, match.groups())))
