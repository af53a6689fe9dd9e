"""rdma_stack's validate entry point: good inputs pass, bad ones fail naming the variables, whether the
argument spec (types, choices) or validate.yml (patterns, rules across variables) refuses them."""

from tests.unit.roles.validate_runner import validate_tests

SHA = "0123456789abcdef" * 4
DOCA = {
    "rdma_stack_source": "doca",
    "rdma_stack_mirror": "https://mirror.example.internal/nvidia",
    "rdma_stack_artifact_name": "doca-host_2.9.1-018000-24.10-ubuntu2204_amd64.deb",
    "rdma_stack_artifact_sha256": SHA,
}
MLNX = dict(
    DOCA, rdma_stack_source="mlnx_ofed", rdma_stack_artifact_name="MLNX_OFED_LINUX-24.10-3.2.5.0-ubuntu22.04-x86_64.tgz"
)

# Alibaba's eRDMA installer 1.5.7 and its sha256 as the "Enable eRDMA" release notes list them
# (https://www.alibabacloud.com/help/en/ecs/user-guide/erdma-usage), from a mirror the inventory names.
ERDMA = {
    "rdma_stack_source": "erdma",
    "rdma_stack_mirror": "https://mirror.example.internal/erdma",
    "rdma_stack_artifact_name": "erdma_installer-1.5.7.tar.gz",
    "rdma_stack_artifact_sha256": "cb44f4c4aaaabfbd81224c85a9e7889732bda26cc832ff70ecc0559bcc14165c",
}

CASES = {
    "ok_default_distro": ({}, None),
    "ok_distro_tcp_mtu": ({"rdma_stack_transport": "tcp", "rdma_stack_mtu": 4096}, None),
    # peermem defaults to on with doca/mlnx_ofed on GPU hosts, off on a CPU-only cluster.
    "ok_doca_gpu": (DOCA, None),
    "ok_doca_rpm_cpu_only": (
        dict(DOCA, rdma_stack_artifact_name="doca-host-2.9.1-018000_24.10_rhel94.x86_64.rpm", scc_cpu_only=True),
        None,
    ),
    "ok_mlnx_ofed_from_a_controller_directory": (dict(MLNX, rdma_stack_mirror="/srv/mirror"), None),
    "bad_source": ({"rdma_stack_source": "ofed"}, "rdma_stack_source"),
    "bad_distro_with_peermem": ({"rdma_stack_peermem": True}, "rdma_stack_source"),
    "bad_distro_with_peermem_names_it": ({"rdma_stack_peermem": True}, "rdma_stack_peermem"),
    "bad_peermem_on_cpu_only": (dict(DOCA, rdma_stack_peermem=True, scc_cpu_only=True), "rdma_stack_cpu_only"),
    "bad_doca_without_sha256": (dict(DOCA, rdma_stack_artifact_sha256=""), "rdma_stack_artifact_sha256"),
    "bad_doca_with_an_ofed_archive": (
        dict(DOCA, rdma_stack_artifact_name=MLNX["rdma_stack_artifact_name"]),
        "doca-host_",
    ),
    "bad_mlnx_ofed_name": (dict(MLNX, rdma_stack_artifact_name="mlnx-ofed.iso"), "MLNX_OFED_LINUX-"),
    "bad_mirror": (dict(MLNX, rdma_stack_mirror="mirror.example.internal"), "rdma_stack_mirror"),
    "bad_mtu": ({"rdma_stack_mtu": 9000}, "rdma_stack_mtu"),
    "bad_transport": ({"rdma_stack_transport": "roce"}, "rdma_stack_transport"),
    "bad_package_name": ({"rdma_stack_packages": ["rdma-core; rm"]}, "rdma_stack_packages"),
    "bad_install_timeout": ({"rdma_stack_install_timeout_s": 5}, "rdma_stack_install_timeout_s"),
    "bad_install_timeout_type": ({"rdma_stack_install_timeout_s": "an hour"}, "rdma_stack_install_timeout_s"),
    "ok_erdma_ofed_gpu": (dict(ERDMA, scc_instance_type="ecs.ebmgn8v.48xlarge", scc_jumbo_frames=True), None),
    "ok_erdma_default_mode_no_peermem": (dict(ERDMA, rdma_stack_erdma_mode="default"), None),
    "bad_erdma_peermem_in_compat_mode": (
        dict(ERDMA, rdma_stack_erdma_mode="compat", rdma_stack_peermem=True),
        "rdma_stack_erdma_mode",
    ),
    "bad_erdma_mode": (dict(ERDMA, rdma_stack_erdma_mode="roce"), "rdma_stack_erdma_mode"),
    "bad_erdma_installer_name": (dict(ERDMA, rdma_stack_artifact_name="erdma.tgz"), "erdma_installer-<version>.tar.gz"),
    "bad_erdma_without_sha256": (dict(ERDMA, rdma_stack_artifact_sha256=""), "rdma_stack_artifact_sha256"),
    # The role's hardware defaults read the cluster's fact (lookup scc.training.hardware): its error names
    # scc_instance_type, the one route in (issue 35).
    "bad_instance_type": (
        {"scc_instance_type": "ecs.gn6i-c4g1.xlarge"},
        "scc_instance_type='ecs.gn6i-c4g1.xlarge': instance family 'gn6i-c4g1' is not in the supported-instance table",
    ),
    "bad_sysfs_path": ({"rdma_stack_sysfs_path": "sys/class/infiniband"}, "rdma_stack_sysfs_path"),
    # Issue 36: a null instance type crashed the role's vars, a number passed for a compute capability.
    "ok_instance_type_null": ({"scc_instance_type": None}, None),
    "bad_instance_type_a_number": ({"scc_instance_type": 8.0}, "scc_instance_type (8.0) must be a string"),
    # Issue 37: a compute capability (or 2.16-2.18's rendering "8" of a number) crashed the check naming nothing.
    "bad_instance_type_a_compute_capability": ({"scc_instance_type": "7.0"}, "scc_instance_type ('7.0')"),
    # Issue 35.2, the role run alone: a declared setting the declared type contradicts, both named.
    "bad_mtu_contradicts_jumbo_frames": (
        dict(ERDMA, scc_instance_type="ecs.ebmgn8v.48xlarge", scc_jumbo_frames=True, rdma_stack_netdev_mtu=1400),
        "rdma_stack_netdev_mtu=1400 contradicts scc_jumbo_frames=True on scc_instance_type=ecs.ebmgn8v.48xlarge",
    ),
    # One task judges the variables and what scc_instance_type contradicts: both in its one message.
    "bad_mtu_and_a_contradiction_named_together": (
        {
            "scc_instance_type": "ecs.sccgn6.24xlarge",
            "rdma_stack_mtu": 1234,
            "nvidia_driver_gpu_compute_capability": "9.0",
        },
        "(got 1234). nvidia_driver_gpu_compute_capability=9.0 contradicts scc_instance_type=ecs.sccgn6.24xlarge",
    ),
    "bad_removed_instance_type": (
        {"scc_instance_type": "sccgn6", "rdma_stack_instance_type": "sccgn6"},
        "rdma_stack_instance_type=sccgn6 is no longer read (removed in 0.4.0)",
    ),
}

results, test_validate = validate_tests("rdma_stack", CASES)
