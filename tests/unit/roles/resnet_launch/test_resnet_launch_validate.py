"""resnet_launch's validate.yml as a play runs it: the master address (issue 27: not checked at all before) and the
secret environment reach the input checks, each refusal naming its variable; no host is contacted (one
ansible-playbook run for every case)."""

from tests.unit.roles.validate_runner import validate_tests

CASES = {
    "ok_default": ({}, None),
    "ok_master_addr_ip": ({"resnet_launch_master_addr": "10.0.0.5"}, None),
    "ok_master_addr_name": ({"resnet_launch_master_addr": "node1.cluster.local"}, None),
    "bad_master_addr_option": (
        {"resnet_launch_master_addr": "-oProxyCommand=x"},
        "resnet_launch_master_addr must be empty, an IP address or an RFC 1123 host name",
    ),
    "bad_master_addr_underscore": ({"resnet_launch_master_addr": "gpu_node1"}, "resnet_launch_master_addr"),
    "bad_secret_env_also_public": (
        {"resnet_launch_secret_env": {"HF_TOKEN": "x"}, "resnet_launch_env": {"HF_TOKEN": "y"}},
        "resnet_launch_secret_env",
    ),
}

results, test_validate = validate_tests("resnet_launch", CASES)
