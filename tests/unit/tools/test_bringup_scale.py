"""bench/bringup_scale.py's pure parts (the benchmark itself is `make bench-scale`, never in make test):
the fake cluster it writes, the counting callback, and its last line."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[3]


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = load(ROOT / "bench" / "bringup_scale.py", "bringup_scale")
counter = load(ROOT / "bench" / "callback_plugins" / "scale_count.py", "scale_count")


def test_last_line_compares_the_largest_cluster_with_the_smallest():
    rows = [(25, 50.0, 2.0), (50, 50.0, 2.1), (200, 51.0, 2.5)]
    assert bench.ratios(rows) == "bench-scale: per-host cpu ratio N=200/N=25: 1.25; per-host task ratio: 1.02"


def test_fake_cluster_is_local_with_distinct_addresses_and_per_node_files(tmp_path):
    inventory = bench.inventory(tmp_path, 300)["scc_cluster"]
    addresses = [host["ansible_host"] for host in inventory["hosts"].values()]
    assert len(inventory["hosts"]) == 300 and len(set(addresses)) == 300
    assert all(address.startswith("127.") for address in addresses)
    assert inventory["vars"]["ansible_connection"] == "local"
    for name in ("hosts_file_path", "ssh_trust_known_hosts_file", "mpi_hostfile_path"):
        assert inventory["vars"][name].startswith(f"{tmp_path}/nodes/{{{{ inventory_hostname }}}}/")


def test_write_cluster_makes_every_node_its_directory_and_the_stand_ins(tmp_path):
    bench.write_cluster(tmp_path, 3)
    assert sorted(p.name for p in (tmp_path / "nodes").iterdir()) == ["node1", "node2", "node3"]
    assert json.loads((tmp_path / "inventory.json").read_text())["scc_cluster"]["hosts"]["node3"]
    assert {p.name for p in (tmp_path / "bin").iterdir()} == set(bench.STANDINS)


def result(host: str, loop: bool = False, role: str | None = None):
    task = SimpleNamespace(_role=SimpleNamespace(get_name=lambda: role) if role else None)
    return SimpleNamespace(
        _host=SimpleNamespace(get_name=lambda: host), _result={"results": []} if loop else {}, _task=task
    )


def test_callback_counts_a_loop_item_once_and_skips_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("SCC_BENCH_COUNTS", str(tmp_path / "counts.json"))
    callback = counter.CallbackModule()
    callback.v2_runner_on_ok(result("node1"))
    callback.v2_runner_item_on_ok(result("node1", role="scc.training.hosts_file"))
    callback.v2_runner_item_on_ok(result("node1", role="scc.training.hosts_file"))
    callback.v2_runner_on_ok(result("node1", loop=True, role="scc.training.hosts_file"))
    callback.v2_runner_on_skipped(result("node2"))
    callback.v2_runner_on_skipped(result("node2", role="scc.training.cuda"))
    callback.v2_playbook_on_stats(None)
    assert json.loads((tmp_path / "counts.json").read_text()) == {
        "ran": {"node1": 3},
        "skipped": {"node2": 2},
        "roles": {"-": 1, "scc.training.hosts_file": 2},
        "skipped_roles": {"-": 1, "scc.training.cuda": 1},
    }


def test_last_line_adds_cpu_per_host_at_the_largest_n_and_the_slicing_verdict():
    rows = [(25, 20.0, 2.0), (200, 19.0, 2.2)]
    line = bench.last_line(rows, {"cluster": 2.04, "validate": 0.16}, True)
    assert line == (
        "bench-scale: per-host cpu ratio N=200/N=25: 1.10; per-host task ratio: 0.95; cpu s per host at N=200: "
        "cluster 2.0, validate 0.2, prepare-rerun n/a; sliced 4 = unsliced: yes"
    )
    assert bench.last_line(rows, {}, False).endswith("validate n/a, prepare-rerun n/a; sliced 4 = unsliced: no")


def test_node_files_compare_contents_without_the_fake_clusters_own_directory(tmp_path):
    for workdir in (tmp_path / "a", tmp_path / "b"):
        (workdir / "nodes" / "node1").mkdir(parents=True)
        (workdir / "nodes" / "node1" / "conf").write_text(f"GlobalKnownHostsFile {workdir}/nodes/node1/known\n")
    assert bench.node_files(tmp_path / "a") == bench.node_files(tmp_path / "b")
    (tmp_path / "b" / "nodes" / "node1" / "conf").write_text("changed\n")
    assert bench.node_files(tmp_path / "a") != bench.node_files(tmp_path / "b")


def test_node_cpu_sums_every_module_runs_times(tmp_path):
    assert bench.node_cpu(tmp_path) == 0.0
    (tmp_path / "node-cpu").write_text("0m0.002s 0m0.000s\n0m0.102s 0m0.026s\n1m0.500s 0m0.250s\n")
    assert abs(bench.node_cpu(tmp_path) - 60.88) < 1e-9


def test_last_line_reads_the_labs_prepare_rerun_when_measured():
    rows = [(25, 20.0, 2.0), (200, 19.0, 2.2)]
    line = bench.last_line(rows, {"cluster": 2.04, "validate": 0.16, "prepare": 16.64}, True)
    assert "cluster 2.0, validate 0.2, prepare-rerun 16.6; sliced 4" in line


def test_recap_changed_sums_every_hosts_changed_count():
    recap = (
        "PLAY RECAP *********************************************************************\n"
        "node1                      : ok=120  changed=0    unreachable=0    failed=0    skipped=80   rescued=0\n"
        "node2                      : ok=118  changed=2    unreachable=0    failed=0    skipped=82   rescued=0\n"
    )
    assert bench.recap_changed(recap) == 2
    assert bench.recap_changed("") == 0


def test_reap_left_behind_ends_only_what_started_after_the_snapshot():
    import os
    import subprocess

    earlier = subprocess.Popen(["sleep", "30"])
    try:
        before = bench.our_children()
        assert earlier.pid in before
        later = subprocess.Popen(["sleep", "30"])
        assert bench.reap_left_behind(before) == 1
        with pytest.raises(ProcessLookupError):
            os.kill(later.pid, 0)
        os.kill(earlier.pid, 0)
    finally:
        earlier.kill()
        earlier.wait()


def test_by_role_ranks_the_roles_by_executions_per_host():
    roles = {"scc.training.artifact_fetch": 80, "-": 6, "scc.training.python_env": 20, "scc.training.cuda": 20}
    assert bench.by_role(roles, 2) == "artifact_fetch 40.0, cuda 10.0, python_env 10.0, - 3.0"


def test_at_scale_splits_a_run_into_its_fixed_and_per_host_parts():
    # 2 hosts 15 s, 1 host 10.6 s: 4.4 s per host, 6.2 s fixed; at 200 hosts 4.4 + 6.2 / 200 per host.
    per_host_at_200, per_host, fixed = bench.at_scale(15.0, 10.6, 2, 200)
    assert abs(per_host - 4.4) < 1e-9 and abs(fixed - 6.2) < 1e-9
    assert abs(per_host_at_200 - 4.431) < 1e-9
    # 4 hosts: the per-host part is the slope over the 3 added hosts; at the lab's own size it is total / hosts.
    per_host_at_4, per_host, fixed = bench.at_scale(22.0, 10.0, 4, 4)
    assert abs(per_host - 4.0) < 1e-9 and abs(fixed - 6.0) < 1e-9 and abs(per_host_at_4 - 22.0 / 4) < 1e-9


def test_a_failure_shows_each_failed_task_once_with_its_first_host_not_only_the_recap():
    output = "\n".join(
        ["TASK [scc.training.hosts_file : Check] ***", "ok: [node1]"]
        + ["TASK [scc.training.ssh_trust : Verify] ***"]
        + ["fatal: [node%d]: FAILED! => {\"msg\": \"timed out\"}" % n for n in range(1, 101)]
        + ["", "PLAY RECAP ***"]
        + ["node%d                      : ok=20   changed=7    failed=1" % n for n in range(1, 101)]
    )
    excerpt = bench.failure_excerpt(output, "a warning")
    assert excerpt.count("fatal:") == 1 and "fatal: [node1]: FAILED!" in excerpt and "timed out" in excerpt
    assert excerpt.startswith("TASK [scc.training.ssh_trust : Verify] ***\nfatal: [node1]")
    assert "node50 " not in excerpt and "PLAY RECAP" in excerpt and excerpt.rstrip().endswith("a warning")


def test_changed_tasks_names_each_task_and_host_that_changed():
    output = "\n".join(
        [
            "TASK [scc.training.python_env : Install the runtime wheel] ***",
            "ok: [node1]",
            "changed: [node2]",
            "TASK [scc.training.openmpi : Build] ***",
            "changed: [node1] => (item=x)",
            "skipping: [node2]",
            "PLAY RECAP ***",
            "node1 : ok=3 changed=1",
        ]
    )
    assert bench.changed_tasks(output) == [
        "scc.training.python_env : Install the runtime wheel on node2",
        "scc.training.openmpi : Build on node1",
    ]
    assert bench.changed_tasks("") == []
