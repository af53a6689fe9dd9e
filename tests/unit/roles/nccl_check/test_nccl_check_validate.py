"""nccl_check's validate entry point: good inputs pass, bad ones fail naming the variable, whether the
argument spec (types, choices) or validate.yml (patterns, rules across variables) refuses them."""

from tests.unit.roles.validate_runner import validate_tests

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
}

results, test_validate = validate_tests("nccl_check", CASES)
