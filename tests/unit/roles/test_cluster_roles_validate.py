"""The validate entry points of the cluster and verify roles: good inputs pass, bad ones fail naming the
variable, whether the argument spec (types, choices) or validate.yml (patterns, ranges, rules across
variables) refuses them. One ansible-playbook run per role, every case a host."""

import pytest

from tests.unit.roles.validate_runner import run_validate

TARGET = {"psid": "MT_0000000359", "version": "22.39.1002"}

CASES = {
    "hosts_file": {
        "ok": ({"hosts_file_interface": "eth0.100"}, None),
        "bad_interface": ({"hosts_file_interface": "eth0 eth1"}, "hosts_file_interface"),
        "bad_marker": ({"hosts_file_marker": "# scc"}, "hosts_file_marker"),
        "bad_verify": ({"hosts_file_verify": "maybe"}, "hosts_file_verify"),
        "bad_group": ({"hosts_file_group": "no_such_group"}, "hosts_file_group (no_such_group)"),
        "bad_interface_chars": ({"hosts_file_interface": "eth0;reboot"}, "hosts_file_interface"),
        "bad_path_relative": ({"hosts_file_path": "etc/hosts"}, "hosts_file_path"),
        "bad_marker_not_a_comment": ({"hosts_file_marker": "{mark} scc.training"}, "hosts_file_marker"),
        "bad_marker_two_lines": ({"hosts_file_marker": "# {mark}\nscc.training"}, "hosts_file_marker"),
    },
    "ssh_trust": {
        "ok": ({"ssh_trust_authorized_key_options": ["no-pty"]}, None),
        "bad_cluster_name": ({"ssh_trust_cluster_name": "my cluster"}, "ssh_trust_cluster_name"),
        "bad_options_from": (
            {"ssh_trust_authorized_key_options": ['from="10.0.0.1"']},
            "ssh_trust_authorized_key_options",
        ),
        "bad_bind": ({"ssh_trust_bind_address": "sometimes"}, "ssh_trust_bind_address"),
        "bad_timeout": ({"ssh_trust_verify_timeout": 0}, "ssh_trust_verify_timeout"),
        "bad_key_name_root_default": ({"ssh_trust_key_name": "id_ed25519"}, "ssh_trust_key_name (id_ed25519)"),
        "bad_option_typo": (
            {"ssh_trust_authorized_key_options": ["no-agent-fowarding"]},
            "ssh_trust_authorized_key_options",
        ),
        "bad_known_hosts_relative": ({"ssh_trust_known_hosts_file": "known_hosts"}, "ssh_trust_known_hosts_file"),
        "bad_config_not_conf": (
            {"ssh_trust_ssh_config_file": "/etc/ssh/ssh_config.d/scc"},
            "ssh_trust_ssh_config_file",
        ),
    },
    "openmpi": {
        "ok": ({"openmpi_packages": ["openmpi-bin", "libopenmpi-dev"], "openmpi_version_min": "4.1"}, None),
        "bad_version_min": ({"openmpi_version_min": "4.x"}, "openmpi_version_min"),
        "bad_packages_one_string": ({"openmpi_packages": ["openmpi-bin libopenmpi-dev"]}, "openmpi_packages"),
        "bad_extra_package_option": ({"openmpi_extra_packages": ["--allow-unauthenticated"]}, "openmpi_extra_packages"),
        "bad_install_method": ({"openmpi_install_method": "source"}, "openmpi_install_method"),
    },
    "mpi_hostfile": {
        "ok": ({"mpi_hostfile_slots": 8, "scc_gpu_count": 8}, None),
        "bad_slots_zero": ({"mpi_hostfile_slots": 0}, "mpi_hostfile_slots"),
        "bad_slots_text": ({"mpi_hostfile_slots": "eight"}, "mpi_hostfile_slots"),
        "bad_path": ({"mpi_hostfile_path": "etc/mpihosts"}, "mpi_hostfile_path"),
        "bad_gpu_count": ({"scc_gpu_count": -1}, "scc_gpu_count"),
        "bad_exclude_unhealthy": ({"mpi_hostfile_exclude_unhealthy": "sometimes"}, "mpi_hostfile_exclude_unhealthy"),
    },
    "cluster_health": {
        "ok": ({"cluster_health_gates": ["gpu_health"]}, None),
        "bad_gate_name": ({"cluster_health_gates": ["gpu health"]}, "cluster_health_gates"),
        "bad_no_gate": ({"cluster_health_gates": []}, "cluster_health_gates"),
        "bad_group": ({"cluster_health_group": "no_such_group"}, "cluster_health_group"),
    },
    "ib_check": {
        "ok": ({"ib_check_expected_link_layer": "InfiniBand", "ib_check_expected_rate_gbps": 100}, None),
        "bad_transport": ({"ib_check_transport": "roce"}, "ib_check_transport"),
        "bad_links": ({"ib_check_expected_links": 0}, "ib_check_expected_links"),
        "bad_rate": ({"ib_check_expected_rate_gbps": "fast"}, "ib_check_expected_rate_gbps"),
        "bad_sysfs": ({"ib_check_sysfs_path": "sys/class/infiniband"}, "ib_check_sysfs_path"),
        "ok_erdma_family": ({"scc_instance_type": "ecs.ebmgn8v.48xlarge"}, None),
        "bad_instance_type": (
            {"scc_instance_type": "ecs.gn6i-c4g1.xlarge"},
            "scc_instance_type='ecs.gn6i-c4g1.xlarge': instance family 'gn6i-c4g1' is not in the supported",
        ),
        # Issue 37: a number (rendered "8" by ansible-core 2.16-2.18) or a compute capability crashed the check.
        "bad_instance_type_a_number": (
            {"scc_instance_type": 8},
            "scc_instance_type (8) must be",
        ),
        "bad_instance_type_a_compute_capability": (
            {"scc_instance_type": "7.0"},
            "scc_instance_type ('7.0') is a compute capability",
        ),
        # Issue 35.2, the role run alone: a declared count the declared type contradicts, both named.
        "bad_links_contradict_the_type": (
            {"scc_instance_type": "sccgn6", "ib_check_expected_links": 3},
            "ib_check_expected_links=3 contradicts scc_instance_type=sccgn6 (sccgn6), which has 2 RDMA ports",
        ),
    },
    "cluster_report": {
        "ok": ({}, None),
        "bad_cpfs_path": ({"cluster_report_cpfs_path": "mnt/cpfs"}, "cluster_report_cpfs_path"),
        "bad_ssh_check": ({"cluster_report_ssh_check": "often"}, "cluster_report_ssh_check"),
        "bad_group": ({"cluster_report_group": "no_such_group"}, "cluster_report_group (no_such_group)"),
        "bad_results_dir_empty": ({"cluster_report_results_dir": ""}, "cluster_report_results_dir"),
    },
    "fabric_monitor": {
        "ok": ({"fabric_monitor_interfaces": ["eth0", "bond0.100"]}, None),
        "bad_interval": ({"fabric_monitor_interval_s": 0.01}, "fabric_monitor_interval_s"),
        "bad_interface": ({"fabric_monitor_interfaces": ["eth0 eth1"]}, "fabric_monitor_interfaces"),
    },
    "nic_firmware": {
        "ok": (
            {"nic_firmware_targets": [dict(TARGET, image="files/fw.bin", sha256="ab" * 32)], "nic_firmware_burn": True},
            None,
        ),
        # The image's sha256 is the inventory's: an image without one is never copied to a host.
        "bad_image_without_sha256": (
            {"nic_firmware_targets": [dict(TARGET, image="files/fw.bin")], "nic_firmware_burn": True},
            "every target with an image needs the image's sha256",
        ),
        "bad_psid": ({"nic_firmware_targets": [dict(TARGET, psid="ConnectX6")]}, "MT_0000000359"),
        "bad_no_version": ({"nic_firmware_targets": [{"psid": "MT_0000000359"}]}, "version"),
        "bad_burn_without_image": (
            {"nic_firmware_burn": True, "nic_firmware_targets": [TARGET]},
            "nic_firmware_burn is true",
        ),
        "bad_tool": ({"nic_firmware_tool": "flint"}, "nic_firmware_tool"),
        "bad_tool_path_with_auto": ({"nic_firmware_tool_path": "/usr/bin/mstflint"}, "nic_firmware_tool_path"),
    },
    # Issue 37: the GPU stack's roles read scc_instance_type itself (no templated copy): another type than a string
    # is refused naming it, on every ansible-core version.
    "nccl": {
        "ok_erdma_family": ({"scc_instance_type": "ecs.ebmgn8v.48xlarge"}, None),
        "bad_instance_type_a_list": (
            {"scc_instance_type": ["sccgn6"]},
            "scc_instance_type (['sccgn6']) must be a string",
        ),
    },
    "nvidia_repo": {
        "ok": ({"nvidia_repo_cache_path": "/mnt/cpfs/scc-apt", "nvidia_repo_install_timeout_s": 60}, None),
        "bad_install_timeout": ({"nvidia_repo_install_timeout_s": 30}, "nvidia_repo_install_timeout_s"),
        "bad_cache_path": ({"nvidia_repo_cache_path": "mnt/cpfs"}, "nvidia_repo_cache_path"),
    },
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return {
        role: run_validate(role, {case: v[0] for case, v in cases.items()}, tmp_path_factory.mktemp(role))
        for role, cases in CASES.items()
    }


@pytest.mark.parametrize(("role", "case"), [(role, case) for role, cases in CASES.items() for case in sorted(cases)])
def test_validate(results, role, case):
    expected, message = CASES[role][case][1], results[role][case]
    if expected is None:
        assert message is None, f"{role} {case} should pass, failed with: {message}"
    else:
        assert message is not None and expected in message, f"{role} {case} should fail naming {expected}: {message}"
