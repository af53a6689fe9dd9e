"""The ib_write_bw client's argv (roles/rdma_bandwidth: vars/main.yml's options, tasks/round.yml's server address)
ends its options with `--` before the server's address (issue 27), rendered here by Ansible's own templating.

perftest reads the server name as argv[optind] once its getopt_long loop stops (parser() in src/perftest_parameters.c,
linux-rdma/perftest commit 00b55b6); getopt_long steps over `--` and stops there. Python's getopt.gnu_getopt follows
the same GNU rules and stands in for it below: with perftest's option string, an address such as `-v` or
`-oProxyCommand=x` is the server name after `--`, and an option without it."""

from __future__ import annotations

import getopt
from pathlib import Path

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

ROOT = Path(__file__).resolve().parents[4]
ROLE = ROOT / "roles" / "rdma_bandwidth"
# ib_write_bw's short options (getopt_long's optstring in parser(), src/perftest_parameters.c at commit 00b55b6).
PERFTEST_OPTSTRING = "w:y:p:d:i:m:s:n:t:u:S:x:c:q:I:o:M:r:Q:A:l:D:f:B:T:L:E:J:j:K:k:X:W:aFegzRvhbNVCHUOZP"
PERFTEST_LONG = ["report_gbits"]


def trusted(value):
    """The role's own YAML, trusted as templates as Ansible trusts a role's files (ansible-core 2.19)."""
    if isinstance(value, dict):
        return {key: trusted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [trusted(item) for item in value]
    return trust_as_template(value) if isinstance(value, str) else value


def round_task() -> dict:
    return trusted(yaml.safe_load((ROLE / "tasks" / "round.yml").read_text())[0])


def client_argv(address: str, links: int = 1, **declared) -> list[str]:
    role_vars = trusted(yaml.safe_load((ROLE / "vars" / "main.yml").read_text()))
    variables = {
        **trusted(yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())),
        **declared,
        "_rdma_bandwidth_perftest_argv": role_vars["_rdma_bandwidth_perftest_argv"],
        "_rdma_bandwidth_qp_count": role_vars["_rdma_bandwidth_qp_count"],
        "_rdma_bandwidth_port": {"device": "mlx5_0", "port": 1, "links": links, "gid_index": 3},
        "__peer": {"address": address},
    }
    templar = Templar(loader=DataLoader(), variables=variables)
    return [str(word) for word in templar.template(round_task()["vars"]["__argv"]["client"]["rdma"])]


def servername(argv: list[str]) -> str | None:
    """perftest's reading of argv: the one word left after the options, else none (a server)."""
    _options, rest = getopt.gnu_getopt(argv[1:], PERFTEST_OPTSTRING, PERFTEST_LONG)
    return rest[0] if len(rest) == 1 else None


@pytest.mark.parametrize("address", ["10.0.0.12", "node2", "-v", "-oProxyCommand=x"])
def test_the_client_ends_its_options_before_the_servers_address(address):
    argv = client_argv(address)
    assert argv[0] == "ib_write_bw" and argv[-2:] == ["--", address], argv
    assert argv.count("--") == 1
    assert servername(argv) == address


def test_without_the_separator_an_address_like_an_option_is_read_as_one():
    """What `--` prevents: the stand-in parser takes `-v` as perftest's -v option and `-oProxyCommand=x` as its
    -o (outstanding reads) with an argument, leaving no server name: the client would start as a server."""
    for address in ("-v", "-oProxyCommand=x"):
        assert servername([word for word in client_argv(address) if word != "--"]) is None


def test_the_server_side_takes_no_address():
    argv = yaml.safe_load((ROLE / "tasks" / "round.yml").read_text())[0]["vars"]["__argv"]["server"]["rdma"]
    assert argv == "{{ _rdma_bandwidth_perftest_argv }}"


def _qps(argv: list[str]) -> str:
    return argv[argv.index("-q") + 1]


@pytest.mark.parametrize(
    "declared, links, qps",
    [
        # eRDMA: the hardware fact's count (hardware_fact.ERDMA_QP_COUNT, UNCONFIRMED for perftest).
        ({"scc_instance_type": "ecs.ebmgn8v.48xlarge"}, 1, "8"),
        # mlx5 RoCE (sccgn6) or nothing declared: one queue pair per physical link of the port (a bond of two: 2).
        ({"scc_instance_type": "ecs.sccgn6.24xlarge"}, 2, "2"),
        ({}, 1, "1"),
        # A hand-set count wins over the fact.
        ({"scc_instance_type": "ecs.ebmgn8v.48xlarge", "rdma_bandwidth_qp_count": 2}, 1, "2"),
        ({"rdma_bandwidth_qp_count": 16}, 2, "16"),
    ],
)
def test_the_queue_pairs_come_from_the_fact_and_a_hand_set_count_wins(declared, links, qps):
    argv = client_argv("10.0.0.12", links, **declared)
    assert _qps(argv) == qps, argv
