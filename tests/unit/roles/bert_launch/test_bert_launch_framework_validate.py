"""bert_launch's validate.yml for the framework choice: good inputs pass, bad ones fail naming
the variables, and no host is contacted (one ansible-playbook run for every case)."""

from tests.unit.roles.validate_runner import validate_tests

ACSPEED, TCP = {"bert_launch_framework": "acspeed"}, {"bert_launch_transport": "tcp"}

CASES = {
    "ok_default_torch": ({}, None),
    "ok_min_nodes_one": ({"bert_launch_min_nodes": 1}, None),
    "bad_min_nodes_zero": ({"bert_launch_min_nodes": 0}, "bert_launch_min_nodes (0) must be between 1"),
    "bad_min_nodes_over_the_group": ({"bert_launch_min_nodes": 999}, "bert_launch_min_nodes (999) must be between 1"),
    "ok_torch_gloo_cpu_only": (
        {"bert_launch_backend": "gloo", "scc_cpu_only": True, "bert_launch_transport": "tcp"},
        None,
    ),
    "ok_horovod_cpu_only": (
        {"bert_launch_framework": "horovod", "scc_cpu_only": True, "bert_launch_transport": "tcp"},
        None,
    ),
    "ok_aiacc_gpus": ({"bert_launch_framework": "aiacc", "scc_cpu_only": False}, None),
    "bad_framework": ({"bert_launch_framework": "deepspeed"}, "bert_launch_framework"),
    "bad_aiacc_cpu_only": ({"bert_launch_framework": "aiacc", "scc_cpu_only": True}, "bert_launch_cpu_only"),
    "bad_aiacc_cpu_only_role_var": (
        {"bert_launch_framework": "aiacc", "bert_launch_cpu_only": True},
        "bert_launch_framework aiacc needs GPUs",
    ),
    "bad_horovod_backend": ({"bert_launch_framework": "horovod", "bert_launch_backend": "nccl"}, "bert_launch_backend"),
    "bad_rdma_gloo": ({"bert_launch_backend": "gloo", "bert_launch_transport": "rdma"}, "bert_launch_transport"),
    "bad_rdma_horovod_cpu_only": (
        {"bert_launch_framework": "horovod", "scc_cpu_only": True, "bert_launch_transport": "rdma"},
        "bert_launch_cpu_only true",
    ),
    "bad_rdma_torch_auto_cpu_only": ({"scc_cpu_only": True, "scc_transport": "rdma"}, "set scc_transport"),
    "ok_rdma_horovod_gpus": (
        {"bert_launch_framework": "horovod", "scc_cpu_only": False, "bert_launch_transport": "rdma"},
        None,
    ),
    "ok_acspeed_gpus": ({**ACSPEED, "scc_cpu_only": False}, None),
    "bad_acspeed_cpu_only": ({**ACSPEED, "scc_cpu_only": True, **TCP}, "bert_launch_framework acspeed needs GPUs"),
    "bad_acspeed_backend": ({**ACSPEED, "bert_launch_backend": "gloo", **TCP}, "bert_launch_backend must be auto"),
    # Issue 36: a float batch size passed validate and was refused by the trainer only, after prepare and cluster;
    # a secret that is not a string was written as Python renders it.
    "bad_float_batch_size": ({"bert_launch_batch_size": 2.5}, "bert_launch_batch_size (2.5) must be auto"),
    "ok_batch_size_string": ({"bert_launch_batch_size": "32"}, None),
    "bad_secret_not_a_string": (
        {"bert_launch_secret_env": {"HF_TOKEN": 12345}},
        "bert_launch_secret_env: the value of HF_TOKEN is not a string",
    ),
    "bad_aiacc_env_file": (
        {"bert_launch_framework": "aiacc", "bert_launch_aiacc_env_file": "aiacc.env"},
        "bert_launch_aiacc_env_file",
    ),
}


results, test_validate = validate_tests("bert_launch", CASES)
