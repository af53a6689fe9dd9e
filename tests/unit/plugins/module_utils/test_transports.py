"""plugins/module_utils/transports.py: the legs refused before anything runs, and the one report of a job
over tcp and over rdma (throughputs, the NCCL proof of each leg, the speedup)."""

import pytest

from ansible_collections.scc.training.plugins.module_utils.transports import (
    transport_comparison,
    transport_legs_problems,
)


def results(run_id, images_per_s, backend="nccl", nccl=None, **changes):
    base = {
        "run_id": run_id, "status": "ok", "model": {"name": "resnet50"}, "world_size": 16, "num_hosts": 2,
        "global_batch": 4096, "image_size": 224, "steps": 100, "warmup_steps": 10, "precision": "fp16",
        "framework": "torch", "backend": backend, "throughput": {"images_per_s": images_per_s, "step_time_s": 1.0},
        "loss_first": 6.9, "loss_last": 6.5, "top1": {"accuracy": 0.01}, "nccl": nccl,
    }  # fmt: skip
    base.update(changes)
    return base


def nccl(transport, connections, roce=False, devices=()):
    return {"transport": transport, "roce": roce, "channels": 4, "connections": connections,
            "ib_devices": [{"name": d} for d in devices]}  # fmt: skip


SOCKET = nccl("Socket", {"NET/Socket": 8})
IB = nccl("IB", {"NET/IB": 8}, roce=True, devices=("mlx5_0", "mlx5_1"))


def test_an_rdma_leg_is_refused_on_a_cluster_that_declares_tcp():
    (problem,) = transport_legs_problems(["tcp", "rdma"], "tcp")
    assert "compare_transports_legs has rdma, but this cluster declares scc_transport: tcp" in problem
    assert transport_legs_problems(["tcp"], "tcp") == []
    assert transport_legs_problems(["tcp", "rdma"], "rdma") == []


def test_unknown_repeated_or_no_legs_are_refused():
    for legs in ([], ["tcp", "tcp"], ["ib"]):
        assert transport_legs_problems(legs, "rdma")[0].startswith("compare_transports_legs (")


def test_both_legs_proved_give_the_speedup():
    report = transport_comparison(
        {"tcp": results("c-tcp", 1000.0, nccl=SOCKET), "rdma": results("c-rdma", 2500.0, nccl=IB)}
    )
    assert report["speedup"] == 2.5 and report["problems"] == [] and report["same_job"]
    rdma = report["legs"]["rdma"]
    assert rdma["proof"] == {
        "nccl_transport": "IB",
        "ok": True,
        "evidence": "NCCL IB (RoCE), 4 channel(s), connections NET/IB=8 on mlx5_0, mlx5_1",
        "expected": "NET/IB channels",
    }
    assert report["legs"]["tcp"]["proof"]["evidence"] == "NCCL Socket, 4 channel(s), connections NET/Socket=8"
    assert report["summary"][-1] == "speedup rdma/tcp: 2.50x"
    assert report["summary"][0].startswith("rdma: 2500.0 images/s (run c-rdma); NCCL IB")


def test_a_leg_whose_log_does_not_prove_its_transport_is_a_problem():
    report = transport_comparison({"tcp": results("t", 900.0, nccl=SOCKET), "rdma": results("r", 950.0, nccl=SOCKET)})
    assert report["problems"] == [
        "rdma leg (run r): the NCCL log does not prove rdma (NCCL Socket, 4 channel(s), connections NET/Socket=8)."
    ]
    # rdma that fell back to sockets: the speedup is still reported, with the problem next to it.
    assert report["speedup"] == pytest.approx(950 / 900)


def test_the_lab_tcp_leg_over_gloo_is_proved_by_nccl_not_running():
    report = transport_comparison({"tcp": results("lab-tcp", 40.0, backend="gloo")})
    assert report["legs"]["tcp"]["proof"] == {
        "nccl_transport": None,
        "ok": True,
        "evidence": "no NCCL line logged (backend gloo)",
    }
    assert report["speedup"] is None and report["problems"] == [] and report["same_job"]
    assert report["summary"] == [
        "tcp: 40.0 images/s (run lab-tcp); no NCCL line logged (backend gloo)",
        "speedup rdma/tcp: n/a",
    ]


def test_legs_of_different_jobs_and_failed_legs_are_named():
    report = transport_comparison(
        {"tcp": results("t", 1.0, nccl=SOCKET), "rdma": results("r", None, nccl=IB, global_batch=2048, status="failed")}
    )
    assert not report["same_job"] and report["differences"] == ["global_batch: tcp 4096, rdma 2048"]
    assert report["problems"] == ["rdma leg (run r) ended failed."] and report["speedup"] is None


def test_bad_input_is_refused():
    for bad in ({}, {"ib": {}}, []):
        with pytest.raises(ValueError, match="tcp and/or rdma"):
            transport_comparison(bad)
