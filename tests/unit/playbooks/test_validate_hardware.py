"""validate.yml, issue 35: the cluster's hardware fact (scc_hardware) resolved once and kept on every node, the
roles' hardware defaults reading it, and settings that contradict scc_instance_type refused before anything
changes, naming both variables. The nodes are never contacted (nothing listens at their address)."""

from __future__ import annotations

import json

import yaml

from tests.unit.playbooks.ansible_playbook import LAB_LIKE, ROOT, ansible_playbook

# validate.yml, then each node's fact and what the roles' defaults read from it (the defaults of bert_launch and
# rdma_stack, loaded as the roles load them).
PLAYBOOK = f"""
- name: Validate
  ansible.builtin.import_playbook: {ROOT / "playbooks" / "validate.yml"}
- name: Report
  hosts: scc_cluster
  gather_facts: false
  tasks:
    - name: Load bert_launch's and rdma_stack's defaults
      ansible.builtin.include_vars:
        file: "{{{{ item }}}}"
      loop:
        - {ROOT / "roles" / "bert_launch" / "defaults" / "main.yml"}
        - {ROOT / "roles" / "rdma_stack" / "defaults" / "main.yml"}
    - name: Report the fact
      ansible.builtin.debug:
        msg: >-
          HW {{{{ {{'host': inventory_hostname, 'source': scc_hardware.source, 'family': scc_hardware.family,
                   'cc': bert_launch_gpu_compute_capability, 'nccl_env': bert_launch_nccl_env,
                   'rdma_source': rdma_stack_source, 'mtu': lookup('scc.training.hardware', 'rdma_stack.netdev_mtu')}} | to_json }}}} HW
"""


def run(tmp_path, hosts, cluster_vars=None, playbook=None, rc=0):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        yaml.safe_dump({"scc_cluster": {"hosts": hosts, "vars": {**LAB_LIKE, **(cluster_vars or {})}}})
    )
    path = tmp_path / "play.yml"
    path.write_text(playbook or PLAYBOOK)
    return ansible_playbook(tmp_path, inventory, path, rc=rc)


def _reports(out):
    return {r["host"]: r for r in (json.loads(part.split(" HW")[0]) for part in out.split("HW ")[1:])}


HOSTS = {"node1": {"ansible_host": "127.0.13.81"}, "node2": {"ansible_host": "127.0.13.82"}}


# What an eRDMA cluster declares for rdma_stack's default source (erdma): Alibaba's installer from an offline mirror.
ERDMA_INSTALLER = {
    "rdma_stack_mirror": "/srv/mirror",
    "rdma_stack_artifact_name": "erdma_installer-1.5.7.tar.gz",
    "rdma_stack_artifact_sha256": "0" * 64,
}


def test_a_declared_erdma_type_reaches_every_node_and_the_roles_defaults(tmp_path):
    cluster = {"scc_instance_type": "ecs.ebmgn8v.48xlarge", "scc_jumbo_frames": True, **ERDMA_INSTALLER}
    out = run(tmp_path, HOSTS, cluster)
    reports = _reports(out)
    assert sorted(reports) == ["node1", "node2"]
    for report in reports.values():
        assert (report["source"], report["family"], report["cc"]) == ("scc_instance_type", "ebmgn8v", "9.0")
        assert (report["rdma_source"], report["mtu"]) == ("erdma", 8500)
        assert report["nccl_env"]["NCCL_IB_QPS_PER_CONNECTION"] == "8"
    # Resolved once: one task result for the cluster (run_once), not one per node.
    assert out.count("TASK [Resolve scc_hardware from scc_instance_type for every node]") == 1
    assert "skipping: [node2]" not in out.split("Resolve scc_hardware")[1].split("TASK")[0]


def test_nothing_declared_is_the_default_family_and_a_hand_set_value_wins(tmp_path):
    # The cluster-wide hand-set compute capability is part of the fact (a role's own variable wins as Ansible's
    # precedence says: the include_vars above would hide one set in the inventory).
    hosts = {"node1": {"ansible_host": "127.0.13.81", "scc_gpu_compute_capability": "8.0"}}
    (report,) = _reports(run(tmp_path, hosts)).values()
    assert (report["source"], report["family"], report["cc"], report["rdma_source"]) == (
        "default",
        "sccgn6",
        "8.0",
        "distro",
    )


def test_contradictions_are_refused_naming_both_variables(tmp_path):
    out = " ".join(
        run(
            tmp_path,
            HOSTS,
            {
                "scc_instance_type": "ecs.ebmgn8v.48xlarge",
                "scc_gpu_compute_capability": "7.0",
                "gpu_health_expected_gpus": 9,
            },
            rc=2,
        ).split()
    )
    assert "scc_gpu_compute_capability=7.0 contradicts scc_instance_type=ecs.ebmgn8v.48xlarge (ebmgn8v)" in out
    assert (
        "gpu_health_expected_gpus=9 contradicts scc_instance_type=ecs.ebmgn8v.48xlarge (ebmgn8v), which has 8 GPUs"
        in out
    )
    # Before anything: no role's checks ran, no fact was kept.
    assert "Validate role variables" not in out and "HW {" not in out


def test_erdma_on_a_roce_family_is_refused(tmp_path):
    out = " ".join(run(tmp_path, HOSTS, {"scc_instance_type": "sccgn6", "rdma_stack_source": "erdma"}, rc=2).split())
    assert "rdma_stack_source=erdma contradicts scc_instance_type=sccgn6 (sccgn6)" in out
