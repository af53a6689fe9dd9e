"""The lab's input checks and inventory, without starting hosts."""

import os

import pytest
import yaml

from lab import cluster, hosts
from lab.errors import LabError


def test_addresses_are_consecutive_loopback():
    assert cluster.Lab._addresses("127.0.1.11", 3) == ["127.0.1.11", "127.0.1.12", "127.0.1.13"]


@pytest.mark.parametrize("first,count", [("10.0.0.1", 1), ("127.255.255.254", 2), ("not-an-ip", 1)])
def test_addresses_outside_loopback_are_refused(first, count):
    with pytest.raises(LabError):
        cluster.Lab._addresses(first, count)


def test_zero_hosts_refused_before_anything_is_made(tmp_path):
    lab = cluster.Lab(tmp_path / "lab")
    with pytest.raises(LabError, match="--hosts must be at least 1"):
        lab.up(0, "127.0.38.11")
    assert not (tmp_path / "lab").exists()


def test_not_root_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    lab = cluster.Lab(tmp_path / "lab")
    with pytest.raises(LabError, match="needs root"):
        lab.up(1, "127.0.38.11")
    assert not (tmp_path / "lab").exists()


def test_missing_debootstrap_without_cache_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SCC_LAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(cluster.shutil, "which", lambda tool: None if tool == "debootstrap" else "/usr/bin/" + tool)
    lab = cluster.Lab(tmp_path / "lab")
    with pytest.raises(LabError, match="debootstrap is not installed"):
        lab.up(1, "127.0.38.11")
    assert not (tmp_path / "lab").exists()
    assert not (tmp_path / "cache").exists()


def test_inventory_pins_host_keys_and_never_disables_checking(tmp_path):
    lab = cluster.Lab(tmp_path)
    states = [hosts.HostState("node1", "127.0.38.11", 1, 2, "0"), hosts.HostState("node2", "127.0.38.12", 3, 4, "0")]
    inv = yaml.safe_load(lab.render_inventory(states))
    group = inv["scc_cluster"]
    assert group["hosts"] == {"node1": {"ansible_host": "127.0.38.11"}, "node2": {"ansible_host": "127.0.38.12"}}
    args = group["vars"]["ansible_ssh_common_args"]
    assert "StrictHostKeyChecking=yes" in args
    assert f"UserKnownHostsFile={tmp_path}/known_hosts" in args


def test_mirror_override_wins(monkeypatch):
    monkeypatch.setenv("SCC_LAB_MIRROR", "http://mirror.example/debian")
    assert cluster.base.machine_mirror() == "http://mirror.example/debian"
