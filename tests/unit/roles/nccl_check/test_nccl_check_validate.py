"""nccl_check's validate entry point: good inputs pass, bad ones fail naming the variable, whether the
argument spec (types, choices) or validate.yml (patterns, rules across variables) refuses them."""

from ansible_collections.scc.training.plugins.module_utils import instance_families
from tests.unit.roles.validate_runner import validate_tests

# One inventory per family of the README's supported-instance table: scc_instance_type alone validates.
FAMILY_TYPES = {family: facts["instance_types"][0] for family, facts in sorted(instance_families.FAMILIES.items())}

CASES = {
    "ok_defaults": ({}, None),
    "ok_stand_in_dir_tcp": (
        {"nccl_check_tests_dir": "/mnt/cpfs/nccl-standin", "nccl_check_transport": "tcp", "nccl_check_gpus": 2},
        None,
    ),
    "ok_mirror": ({"nccl_check_mirror": "/srv/mirror", "nccl_check_max_bytes": "256M"}, None),
    "bad_transport": ({"nccl_check_transport": "roce"}, "nccl_check_transport"),
    "bad_gpus_type": ({"nccl_check_gpus": "eight"}, "nccl_check_gpus"),
    "bad_sha256": ({"nccl_check_tests_sha256": "abc"}, "nccl_check_tests_sha256"),
    "bad_fraction": ({"nccl_check_single_min_fraction": 1.5}, "nccl_check_single_min_fraction"),
    "bad_link_rate": ({"nccl_check_link_rate_gbps": 0}, "nccl_check_link_rate_gbps"),
    "bad_size": ({"nccl_check_max_bytes": "1T"}, "nccl_check_max_bytes"),
    "bad_relative_tests_dir": ({"nccl_check_tests_dir": "build"}, "nccl_check_tests_dir"),
    "bad_interface": ({"nccl_check_tcp_interface": "eth0; rm"}, "nccl_check_tcp_interface"),
    "bad_env_type": ({"nccl_check_env": ["NCCL_ALGO=Ring"]}, "nccl_check_env"),
    "bad_instance_type": (
        {"scc_instance_type": "ecs.gn6i-c4g1.xlarge"},
        "scc_instance_type='ecs.gn6i-c4g1.xlarge': instance family 'gn6i-c4g1' is not in the supported",
    ),
    "bad_instance_type_a_number": (
        {"scc_instance_type": 8},
        "scc_instance_type (8) must be",
    ),
    # Issue 37: a compute capability (or 2.16-2.18's rendering "8" of a number) crashed the check naming nothing.
    "bad_instance_type_a_compute_capability": (
        {"scc_instance_type": "7.0"},
        "scc_instance_type ('7.0') is a compute capability",
    ),
    # Issue 35.2, the role run alone: a declared count the declared type contradicts, both named.
    "bad_gpus_contradict_the_type": (
        {"scc_instance_type": "ecs.ebmgn8v.48xlarge", "nccl_check_gpus": 9},
        "nccl_check_gpus=9 contradicts scc_instance_type=ecs.ebmgn8v.48xlarge (ebmgn8v), which has 8 GPUs",
    ),
    "ok_pcie_override": ({"nccl_check_nvlink_links": 0, "nccl_check_intra_node_gbs": 31.5}, None),
    "bad_nvlink_links_negative": ({"nccl_check_nvlink_links": -1}, "nccl_check_nvlink_links"),
    "bad_pcie_fraction": ({"nccl_check_pcie_min_fraction": 0}, "nccl_check_pcie_min_fraction"),
    **{"ok_family_" + family: ({"scc_instance_type": t}, None) for family, t in FAMILY_TYPES.items()},
}

results, test_validate = validate_tests("nccl_check", CASES)
