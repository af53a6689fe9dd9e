"""cluster.yml under AWX/AAP job slicing (issue 25): run as 4 parallel ``--limit`` slices it gives every node the
same files as one run over the whole group, and a node whose facts are missing from the cache is refused by
name instead of being left out of a file. On bench/bringup_scale.py's fake cluster (local connection, stubbed
setup and node commands, no lab): two runs of cluster.yml on 8 nodes, a minute or two."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location("bringup_scale", ROOT / "bench" / "bringup_scale.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
# validate.yml's per-role checks (once per run, about 60 task executions) have nothing to do with slicing: left out
# of these runs to keep them cheap; the cluster roles' own checks still run.
CHEAP = {"scc_validate_roles": []}


def run_cluster(workdir, **options):
    """cluster.yml on the fake cluster in workdir (bench.command's options: tags, limit), validate.yml kept cheap."""
    argv = bench.command(workdir, "cluster", extravars=CHEAP, **options)
    env = bench.environment(workdir)
    return subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True, check=False)


def test_slices_are_dealt_as_awx_deals_them():
    assert bench.job_slices([f"n{i}" for i in range(1, 8)], 4) == [["n1", "n5"], ["n2", "n6"], ["n3", "n7"], ["n4"]]


def test_four_parallel_slices_write_what_one_run_writes():
    same, differ = bench.sliced_equals_unsliced(8, 4, CHEAP)
    assert same, differ


def test_a_node_without_cached_facts_outside_the_slice_is_refused_by_name(tmp_path):
    bench.write_cluster(tmp_path, 4)
    bench.seed(tmp_path)
    # ansible-core names a jsonfile cache entry after the host, behind its schema prefix (s1_node3).
    (cached,) = (tmp_path / "facts").glob("*node3")
    cached.unlink()
    # A run over the whole group makes the key first (as README.md says): the slice is refused for node3's facts.
    proc = run_cluster(tmp_path, tags="ssh_trust_install")
    assert proc.returncode == 0, proc.stdout[-3000:]
    proc = run_cluster(tmp_path, limit=["node1", "node2"])
    assert proc.returncode != 0
    assert "no gathered facts for node3" in proc.stdout, proc.stdout[-3000:]
    # Refused before ssh_trust wrote anything: no partial known_hosts on the slice's nodes.
    assert not (tmp_path / "nodes" / "node1" / "ssh_known_hosts").exists()


def test_a_slice_never_makes_its_own_cluster_key(tmp_path):
    bench.write_cluster(tmp_path, 4)
    bench.seed(tmp_path)
    proc = run_cluster(tmp_path, limit=["node1", "node3"])
    assert proc.returncode != 0
    assert "this run covers only part of group 'scc_cluster'" in proc.stdout, proc.stdout[-3000:]
    assert not (tmp_path / "controller-key").exists()
