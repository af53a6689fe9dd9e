"""rdma_bandwidth's validate.yml: good inputs pass, bad ones fail naming the variable."""

from tests.unit.roles.validate_runner import validate_tests

CASES = {
    "ok_rdma_detect": ({}, None),
    "ok_tcp_declared": ({"rdma_bandwidth_mode": "tcp", "rdma_bandwidth_link_rate_gbps": 25}, None),
    "ok_both": (
        {
            "rdma_bandwidth_mode": "both",
            "rdma_bandwidth_link_rate_gbps": 25.0,
            "rdma_bandwidth_gid_index": 3,
            "rdma_bandwidth_device": "mlx5_0",
            "rdma_bandwidth_min_fraction": 1,
        },
        None,
    ),
    "bad_mode": ({"rdma_bandwidth_mode": "ib"}, "rdma_bandwidth_mode"),
    "bad_tcp_without_rate": ({"rdma_bandwidth_mode": "tcp"}, "rdma_bandwidth_link_rate_gbps"),
    # The declared family gives the rate (scc_hardware): TCP needs no hand-set one then.
    "ok_tcp_rate_from_the_family": ({"rdma_bandwidth_mode": "tcp", "scc_instance_type": "ecs.sccgn6.24xlarge"}, None),
    "bad_rate_negative": ({"rdma_bandwidth_link_rate_gbps": -25}, "rdma_bandwidth_link_rate_gbps"),
    "bad_rate_text": ({"rdma_bandwidth_link_rate_gbps": "25G"}, "rdma_bandwidth_link_rate_gbps"),
    "bad_fraction": ({"rdma_bandwidth_min_fraction": 1.5}, "rdma_bandwidth_min_fraction"),
    "bad_tcp_fraction_zero": ({"rdma_bandwidth_tcp_min_fraction": 0}, "rdma_bandwidth_tcp_min_fraction"),
    "bad_duration": ({"rdma_bandwidth_duration_s": 0}, "rdma_bandwidth_duration_s"),
    "bad_port": ({"rdma_bandwidth_tcp_port": 70000}, "rdma_bandwidth_tcp_port"),
    "bad_same_ports": ({"rdma_bandwidth_tcp_port": 18515}, "rdma_bandwidth_rdma_port"),
    "bad_gid": ({"rdma_bandwidth_gid_index": "three"}, "rdma_bandwidth_gid_index"),
    "ok_qp_count": ({"rdma_bandwidth_qp_count": 4}, None),
    "bad_qp_count": ({"rdma_bandwidth_qp_count": 0}, "rdma_bandwidth_qp_count (0) must be >= 1 or null"),
    "bad_device": ({"rdma_bandwidth_device": "mlx5_0 mlx5_1"}, "rdma_bandwidth_device"),
    "bad_fail_flag": ({"rdma_bandwidth_fail_below_threshold": "sometimes"}, "rdma_bandwidth_fail_below_threshold"),
}


results, test_validate = validate_tests("rdma_bandwidth", CASES)
