"""The cloud modules' progress lines (plugins/plugin_utils/cloud_wait.py, the action of ecs_instance and the other
modules that wait) on a real playbook run through ansible-runner: scc.training.ecs_instance against the offline
emulator (lab/cloud), whose instances pass through Pending and Starting for about 3 s before they are Running, the
action polling every second (the task's ``poll``). No lab host: the module runs on localhost.

Asserted: one line per poll naming what is waited on, the states the API reported and the elapsed time, the last
one saying the instances are ready; no ``FAILED - RETRYING`` and no bare ``ASYNC POLL`` line; the module's own result
(its ``waits`` too) comes back; the job's status file and the progress file are removed; the secret key is in no
event. A converged re-run and a check-mode task wait for nothing: no line, no change. Under a machine-readable stdout
callback no line is printed (the result keeps them). The lines themselves are tested on the pure functions
(tests/unit/plugins/module_utils/test_alicloud_waiters.py)."""

from __future__ import annotations

import json
import re
import threading

import pytest

from ansible_collections.scc.training.plugins.plugin_utils import progress
from lab.cloud.store import Store, Timings
from lab.cloud.testing import client, emulator, network
from tests.lab_runner import changed, failed, local_play, ok_results, run_playbook, stdout_lines

# An explicit handshake, not a race against the clock (issue 36: on a loaded machine the module's 3 s wait ended
# before the action's first poll read it, and no line was shown): a new instance stays Pending (for an hour) until
# the action has read a progress file that shows it Pending; then it is Starting, and Running half a second later.
TIMINGS = Timings(instance_pending=3600, instance_starting=0.5)
# STAND-IN for ansible.builtin.slurp, found first as ansible.legacy.slurp (ANSIBLE_LIBRARY): the action reads the
# module's progress file with it. It touches $SCC_TEST_SLURP_MARK when the file it reads shows a wait on Pending, and
# answers as slurp does (content base64, source, encoding). Self-contained: ansible-core 2.16 to 2.18 ship a module
# only its module_utils, so importing ansible.modules.slurp from it failed there, and nothing was ever read.
SLURP = """#!/usr/bin/python
import base64
import os

from ansible.module_utils.basic import AnsibleModule

module = AnsibleModule(argument_spec={"src": {"type": "path", "required": True, "aliases": ["path"]}},
                       supports_check_mode=True)
source = module.params["src"]
try:
    with open(source, "rb") as handle:
        data = handle.read()
except OSError as exc:
    module.fail_json(msg="unable to read %s: %s" % (source, exc))
if b"Pending" in data:
    open(os.environ["SCC_TEST_SLURP_MARK"], "a").close()
module.exit_json(content=base64.b64encode(data).decode("ascii"), source=source, encoding="base64")
"""
LINE = re.compile(
    r"^ecs_instance: instances t-wait: (?:\S+(?: \d+)?(?:, \S+ \d+)*)(?: -> [^,]+(?:, \S+ \d+)*)*, "
    r"(?:\d+s elapsed|ready after \d+s)$"
)


@pytest.fixture(name="cloud", scope="module")
def _cloud():
    with emulator(timings=TIMINGS) as emu:
        yield emu, network(client(emu))
        assert emu.internal_errors == []


def _instances(emu, ids, count, **task):
    args = {
        "access_key": emu.access_key_id,
        "secret_key": emu.access_key_secret,
        "region": "cn-shanghai",
        "ecs_endpoint": emu.endpoint,
        "nas_endpoint": emu.endpoint,
        "vpc_endpoint": emu.endpoint,
        "listing_timeout": 1,
        "name": "t-wait",
        "count": count,
        "instance_type": "ecs.sccgn6.24xlarge",
        "image_id": "m-scc-centos75",
        "vswitch_id": ids["vsw"],
        "security_group_id": ids["sg"],
        "hpc_cluster_id": ids["hpc"],
        "tags": {"managed-by": "scc.training", "test": "cloud-wait"},
        "wait_timeout": 60,
    }
    return dict({"scc.training.ecs_instance": args, "poll": 1}, **task)


def _release_when_read_pending(emu, mark, stop):
    """The handshake's other side: once the action read a progress file showing Pending, the instances held Pending
    are Starting (then Running). No sleep decides anything: the wait ends only after a line could show Pending."""
    while not stop.wait(0.05):
        if mark.exists():
            with emu.store.lock:
                for instance in emu.store.instances.values():
                    if Store.status(instance) == "Pending":
                        instance["_timeline"] = Store.timeline((0, "Starting"), (TIMINGS.instance_starting, "Running"))
            mark.unlink()


def _run(tmp_path, tasks, envvars=None, emu=None):
    playbook, inventory = local_play(tmp_path, "Instances, waiting until Running", tasks)
    library, mark = tmp_path / "library", tmp_path / "read-pending"
    library.mkdir(exist_ok=True)
    (library / "slurp.py").write_text(SLURP)
    env = {"ANSIBLE_ASYNC_DIR": str(tmp_path / "async"), "ANSIBLE_LIBRARY": str(library)}
    env.update(envvars or {}, SCC_TEST_SLURP_MARK=str(mark))
    stop = threading.Event()
    releaser = threading.Thread(target=_release_when_read_pending, args=(emu, mark, stop), daemon=True)
    if emu is not None:
        releaser.start()
    try:
        return run_playbook(playbook, inventory, tmp_path, envvars=env)
    finally:
        stop.set()
        if emu is not None:
            releaser.join()


def _progress(lines):
    return [line for line in lines if line.startswith("ecs_instance: ")]


def test_a_wait_shows_its_states_per_poll_and_a_converged_run_none(cloud, tmp_path):
    emu, ids = cloud
    run = _run(tmp_path, [dict(_instances(emu, ids, 1), name="Create")], emu=emu)
    assert run.status == "successful", failed(run.events)
    lines = stdout_lines(run.events)
    assert not [line for line in lines if "FAILED - RETRYING" in line or "ASYNC POLL" in line], lines
    made = ok_results(run.events, "Create")["node1"]
    shown = _progress(lines)
    assert shown and shown == made["progress_lines"], (shown, made)
    assert all(LINE.match(line) for line in shown), shown
    # The states the API reported on the way, in order, and the end: the instance left Pending only after a poll of
    # the action read it there (the handshake), so a line shows it Pending, then the later states.
    states = " -> ".join(shown)
    assert "Pending 1" in shown[0] and states.index("Pending 1") < states.index("Running 1"), shown
    assert re.search(r", ready after \d+s$", shown[-1]) and "Running 1" in shown[-1], shown
    # The module's own result, its waits included.
    assert made["changed"] and len(made["created"]) == 1 and made["instances"][0]["status"] == "Running", made
    assert made["waits"][-1]["ready"] and made["waits"][-1]["states"][-1]["state"] == "Running 1", made["waits"]
    assert made["polls"] >= 1
    assert emu.access_key_secret not in json.dumps(run.events)
    # The job's status file and the progress file are gone.
    assert sorted(p.name for p in (tmp_path / "async").iterdir()) == [], list((tmp_path / "async").iterdir())

    # Converged, and check mode asked to release them: no wait, no line; only the prediction changes.
    tasks = [
        dict(_instances(emu, ids, 1), name="Again"),
        dict(_instances(emu, ids, 0), name="Release, predicted", check_mode=True),
    ]
    again = _run(tmp_path, tasks, emu=emu)
    assert again.status == "successful", failed(again.events)
    assert changed(again.events) == [("node1", "Release, predicted")]
    assert _progress(stdout_lines(again.events)) == []
    assert ok_results(again.events, "Again")["node1"]["progress_lines"] == []
    assert [i["Status"] for i in emu.instances() if i["InstanceName"].startswith("t-wait")] == ["Running"]


def test_a_machine_readable_callback_gets_no_progress_line(cloud, tmp_path):
    emu, ids = cloud
    run = _run(
        tmp_path, [dict(_instances(emu, ids, 2), name="Grow")], envvars={"ANSIBLE_STDOUT_CALLBACK": "minimal"}, emu=emu
    )
    assert run.status == "successful", failed(run.events)
    grown = ok_results(run.events, "Grow")["node1"]
    assert grown["changed"] and grown["progress_lines"], grown
    assert _progress(stdout_lines(run.events)) == []


def test_the_nat_gateway_runs_under_the_waiting_action(cloud, tmp_path):
    # Its waits (the gateway Creating, its EIP Associating, its SNAT entry Pending) take minutes in real life: the
    # action runs it in the background, so its result carries the action's polls and lines beside its own waits.
    emu, ids = cloud
    api = {
        "access_key": emu.access_key_id,
        "secret_key": emu.access_key_secret,
        "region": "cn-shanghai",
        "vpc_endpoint": emu.endpoint,
        "ecs_endpoint": emu.endpoint,
        "listing_timeout": 1,
    }
    tags = {"managed-by": "scc.training", "test": "cloud-wait-nat"}
    gateway = dict(api, name="t-wait-nat", tags=tags, vpc_id=ids["vpc"], vswitch_id=ids["vsw"], wait_timeout=60)
    gateway["eip_allocation_id"] = "{{ address.eip.allocation_id }}"
    tasks = [
        {"name": "Address", "scc.training.ecs_eip": dict(api, name="t-wait-nat", tags=tags), "register": "address"},
        {"name": "Gateway", "scc.training.ecs_nat_gateway": gateway, "poll": 1},
    ]
    run = _run(tmp_path, tasks, emu=emu)
    assert run.status == "successful", failed(run.events)
    made = ok_results(run.events, "Gateway")["node1"]
    assert made["changed"] and made["nat_gateway"]["status"] == "Available", made
    assert made["polls"] >= 1 and isinstance(made["progress_lines"], list), made
    assert all(line.startswith("ecs_nat_gateway: ") for line in made["progress_lines"]), made["progress_lines"]
    assert made["waits"] and made["waits"][-1]["ready"], made["waits"]
    assert emu.access_key_secret not in json.dumps(run.events)


def test_polls_back_off_from_a_second_to_the_tasks_poll():
    # A run that waits for nothing ends within seconds: it costs no full poll of 15 s.
    assert [progress.backoff_interval(n, 15, 1) for n in range(1, 8)] == [1, 2, 4, 8, 15, 15, 15]
    assert [progress.backoff_interval(n, 1, 1) for n in (1, 2, 3)] == [1, 1, 1]
    assert progress.backoff_interval(10**6, 15, 1) == 15
