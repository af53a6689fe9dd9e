"""Mutation testing (cosmic-ray, pinned in requirements-dev.txt) over the modules that judge and guard:
`make mutation` prints `mutation: killed K of N (P%)` and fails below --min (95).

Each target is a module (plugins/module_utils, plugins/plugin_utils, bench/, a role's files/), the functions of it
that judge or guard (None: all; ``!name``: all but these), and the unit tests that cover them: cosmic-ray mutates the
file in place, one mutant at a time, and runs those tests (`pytest -x`); a mutant is killed when they fail (or time
out), survives when they pass. Mutations outside the named functions are marked skipped before the run, and so are two kinds that say nothing about the tests:
an arithmetic operator replaced by a bitwise, shift, power, floor-division or modulo one (most sites are
``"..." % args``, where any of them raises at once) and ``==``/``!=``/``<``... replaced by ``is``/``is not``
(the same for the small ints and interned strings compared here: equivalent mutants). A mutant of one module must
not be seen by the tests of another running beside it: in one tree targets run one after another; ``--jobs N`` runs
N at a time, each in its own copy of the working tree (under --work/trees), every copy's results in --work.

A survivor is a test to write, unless no input can tell it from the original (an equivalent mutant): those are
listed in EQUIVALENT below, each with its reason, printed apart and left out of the percentage. The bert_data
target's tests import torch (tests/unit/bert): run it alone (`--only bert_data`), never beside the lab tests.

    tools/mutation.py                  every target
    tools/mutation.py --jobs 2         every target, two at a time (two trees, two cores)
    tools/mutation.py --only health    one target, while developing
    tools/mutation.py --report         the line again from the last runs' results (.cache/mutation)
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
UNIT = "tests/unit/plugins/module_utils/"
PROGRESS = "tests/unit/plugins/plugin_utils/test_progress.py"

# name: (module, functions (None: all), test files)
TARGETS = {
    "gpu_health": ("plugins/module_utils/gpu_health.py", None, [UNIT + "test_gpu_health.py", UNIT + "test_dcgm.py"]),
    "health": ("plugins/module_utils/health.py", None, [UNIT + "test_health.py"]),
    "nccl_bisect": (
        "plugins/module_utils/nccl_bisect.py",
        None,
        [UNIT + "test_nccl_bisect.py", "tests/unit/plugins/modules/test_nccl_bisect_module.py"],
    ),
    "artifacts": (
        "plugins/module_utils/artifacts.py",
        None,
        [UNIT + "test_artifacts.py", UNIT + "test_digests.py", UNIT + "test_refusals.py"],
    ),
    "digests": (
        "plugins/module_utils/wheels.py",
        ["wheel_hash_lock", "pip_hash_mismatches", "python_env_input_problems", "venv_version_problems"],
        [UNIT + "test_digests.py", UNIT + "test_refusals.py", UNIT + "test_wheels.py"],
    ),
    "input_checks": (
        "plugins/module_utils/input_checks.py",
        None,
        [
            UNIT + "test_input_checks.py",
            UNIT + "test_input_problems.py",
            UNIT + "test_refusals.py",
            UNIT + "test_digests.py",
        ],
    ),
    "host_names": (
        "plugins/module_utils/cluster.py",
        ["host_names", "host_name_problems", "_unique"],
        [UNIT + "test_host_name_rule.py", UNIT + "test_cluster_addresses.py"],
    ),
    "cloud_secrets": (
        "plugins/module_utils/_alicloud_errors.py",
        ["secret_forms", "mask_secrets"],
        [
            UNIT + "test_alicloud.py",
            "tests/unit/plugins/modules/test_alicloud_secrets.py",
            "tests/unit/plugins/modules/test_alicloud_error_masking.py",
        ],
    ),
    "cloud_client": (
        "plugins/module_utils/_alicloud_client.py",
        ["client_token", "_send"],
        [
            UNIT + "test_alicloud.py",
            "tests/unit/plugins/modules/test_alicloud_secrets.py",
            "tests/unit/plugins/modules/test_alicloud_error_masking.py",
        ],
    ),
    "mpi_hostfile": (
        "plugins/module_utils/mpi.py",
        ["_hostfile_entry", "render_hostfile", "parse_hostfile", "hostfile_ranks", "hostfile_nodes"],
        [UNIT + "test_mpi_argv.py", "tests/unit/plugins/filter/test_mpi.py"],
    ),
    # The modules added since issue 22 (issue 36.8).
    "hardware_defaults": (
        "plugins/module_utils/hardware_defaults.py",
        None,
        [
            UNIT + "test_hardware_defaults.py",
            UNIT + "test_rdma_parsers.py",
            "tests/unit/plugins/filter/test_rdma_filters.py",
        ],
    ),
    "hardware_fact": (
        "plugins/module_utils/hardware_fact.py",
        None,
        [UNIT + "test_hardware_fact.py", "tests/unit/plugins/lookup/test_hardware.py"],
    ),
    "cloud_nodes": ("plugins/module_utils/cloud_nodes.py", None, [UNIT + "test_cloud_nodes.py"]),
    "training_job": ("plugins/module_utils/training_job.py", None, [UNIT + "test_training_job.py"]),
    "redact": (
        "plugins/module_utils/redact.py",
        None,
        [UNIT + "test_redact.py", "tests/unit/plugins/filter/test_redact_filter.py"],
    ),
    "job_progress": ("plugins/module_utils/job_progress.py", None, [UNIT + "test_job_progress.py"]),
    "cloud_waiters": ("plugins/module_utils/_alicloud_waiters.py", None, [UNIT + "test_alicloud_waiters.py"]),
    "progress": ("plugins/plugin_utils/progress.py", None, [PROGRESS]),
    "cloud_wait": ("plugins/plugin_utils/cloud_wait.py", None, [PROGRESS]),
    # cluster.py less the host-name rule (its own target above).
    "cluster": (
        "plugins/module_utils/cluster.py",
        ["!host_names", "!host_name_problems", "!_unique"],
        [
            UNIT + "test_cluster_addresses.py",
            UNIT + "test_cluster_rules.py",
            UNIT + "test_host_name_rule.py",
            "tests/unit/plugins/filter/test_cluster_filters.py",
        ],
    ),
    "nccl_check": ("plugins/module_utils/nccl_check.py", None, [UNIT + "test_nccl_check.py"]),
    # bench/gpu_check.py's judgements; the test file's other tests run torch and nvidia-smi stand-ins (minutes).
    "gpu_check": (
        "bench/gpu_check.py",
        ["judge_nccl", "single_node_threshold", "pci_gpu_count"],
        [
            "tests/unit/bench/test_gpu_check.py::test_nccl_tests_judgement_one_gpu_and_several",
            "tests/unit/bench/test_gpu_check.py::"
            "test_nccl_tests_judgement_reads_the_largest_size_and_both_passes_and_two_gpus_are_several",
            "tests/unit/bench/test_gpu_check.py::test_a_pci_device_without_a_readable_class_is_counted_by_what_it_has",
            "tests/unit/bench/test_gpu_check.py::test_the_single_node_threshold_is_hardware_defaults_for_the_gpu_model",
            "tests/unit/bench/test_gpu_check.py::test_a_gpu_on_the_bus_that_nvidia_smi_does_not_list_fails_the_node",
        ],
    ),
    "nvidia_topo": ("plugins/module_utils/nvidia_topo.py", None, [UNIT + "test_nvidia_topo.py"]),
    "bert_prep": ("plugins/module_utils/bert_prep.py", None, [UNIT + "test_bert_prep.py"]),
    "cloud_inputs": ("plugins/module_utils/cloud_inputs.py", None, [UNIT + "test_cloud_inputs.py"]),
    "host_keys": ("plugins/module_utils/host_keys.py", None, [UNIT + "test_host_keys.py"]),
    "ack": ("plugins/module_utils/ack.py", None, [UNIT + "test_ack.py"]),
    # The trainer's and the preparer's own files (tests/unit/bert: torch; run under flock /tmp/scc-lab.lock).
    "bert_data": (
        "runtime/scc_training_runtime/bert_data.py",
        ["rank_spans", "batch_indices"],
        [
            "tests/unit/bert/test_bert_prep.py::test_rank_spans_are_disjoint_and_cover_every_row",
            "tests/unit/bert/test_bert_prep.py::test_every_rank_gets_its_even_share_when_ranks_share_shards",
            "tests/unit/bert/test_pretrain_bert.py::test_batch_indices_disjoint_and_cover_an_epoch",
            "tests/unit/bert/test_pretrain_bert.py::test_batch_indices_order_each_seed_and_epoch_apart",
        ],
    ),
}


# The survivors judged equivalent (no input can tell them from the original), each with its reason: target ->
# [(the line before, the line after (stripped, as the survivor prints them), why[, the line above, where the
# same line occurs twice in the file and only one is equivalent])]. They are printed and counted
# apart, and left out of the percentage; any other survivor is a test to write.
EQUIVALENT = {
    "digests": [
        *(
            (
                'if not at_least(settings.get("python_env_install_timeout_s", 3600), 60):',
                'if not at_least(settings.get("python_env_install_timeout_s", %d), 60):' % default,
                "the default is read only when the role passes no timeout (its spec always does), and any default "
                "of a minute or more passes",
            )
            for default in (3599, 3601)
        ),
    ],
    "host_names": [
        (
            'return _unique([host, host.split(".", 1)[0]])',
            'return _unique([host, host.split(".", 2)[0]])',
            "the first field of a split is the same whatever its limit",
        ),
    ],
    "redact": [
        (
            'return "%s%s:%s@" % (match.group("scheme"), userinfo.split(":", 1)[0], MASK)',
            'return "%s%s:%s@" % (match.group("scheme"), userinfo.split(":", 2)[0], MASK)',
            "the first field of a split is the same whatever the split's limit",
        ),
    ],
    "cloud_nodes": [
        (
            'erdma = rdma["kind"] == "erdma"',
            'erdma = rdma["kind"] <= "erdma"',
            "the table's RDMA kinds are erdma and roce_v2 only (instance_families.FAMILIES): none sorts before erdma",
        ),
        (
            'limit = (rdma["ports"] or 0) if erdma else 0',
            'limit = (rdma["ports"] or 1) if erdma else 0',
            "no eRDMA family has 0 ports; one with None (gn8v) takes the unpublished-count branch, which sets "
            "eri_limit None and never reads limit",
        ),
        (
            'limit = (rdma["ports"] or 0) if erdma else 0',
            'limit = (rdma["ports"] or -1) if erdma else 0',
            "as above: the 'or' fallback is never read",
        ),
    ],
    "hardware_defaults": [
        (
            "if len(kinds) > 1:",
            "if len(kinds) != 1:",
            "kinds has a member per node and resolve() refuses nodes without a known GPU first: never empty",
        ),
        (
            "if counts and len(set(counts)) > 1:",
            "if counts and len(set(counts)) != 1:",
            "a set of a non-empty list has at least one member",
        ),
        (
            "if int(node_count) > 1 and not limits.get(\"link_rate_gbps\"):",
            "if int(node_count) != 1 and not limits.get(\"link_rate_gbps\"):",
            "nccl_check passes the play's node count, at least 1 (tested: 1 needs no rate, 2 does)",
        ),
        (
            '"link_rate_gbps": rate or 1,',
            '"link_rate_gbps": rate or 2,',
            "without a rate the multi-node threshold computed from the stand-in is replaced by None",
        ),
        (
            '"nvlink_gbs_per_link": limits_in.get("nvlink_gbs_per_link") or 0,',
            '"nvlink_gbs_per_link": limits_in.get("nvlink_gbs_per_link") or -1,',
            "read only with NVLinks, where the rate is always set (resolved 25.0, or nccl_check_settings' 25.0)",
        ),
        (
            'declared = instance_type is not None and str(instance_type).strip() != ""',
            'declared = instance_type is not None and str(instance_type).strip() > ""',
            "every string but the empty one sorts after it",
        ),
        (
            'return value is not None and str(value).strip() != ""',
            'return value is not None and str(value).strip() > ""',
            "every string but the empty one sorts after it",
        ),
        (
            '"nvlink_links": limits_in.get("nvlink_links") or 0,',
            '"nvlink_links": limits_in.get("nvlink_links") or 1,',
            "without NVLinks the basis is intra_node_gbs (never None there: nccl_check_settings refuses it first)",
        ),
        (
            '"nvlink_links": limits_in.get("nvlink_links") or 0,',
            '"nvlink_links": limits_in.get("nvlink_links") or -1,',
            "as above",
        ),
        (
            'elif model.links and prof["gpus_per_node"] < 8 and "nvlink_links" not in model.unconfirmed:',
            'elif model.links and prof["gpus_per_node"] != 8 and "nvlink_links" not in model.unconfirmed:',
            "no VM size has more than 8 GPUs, and 1 GPU is the branch before",
        ),
        (
            '"nvlink_gbs_per_link": limits_in.get("nvlink_gbs_per_link") or 0,',
            '"nvlink_gbs_per_link": limits_in.get("nvlink_gbs_per_link") or 1,',
            "as above: the rate is always set where it is read",
        ),
        (
            "rate = rates.pop() if len(rates) == 1 else None",
            "rate = rates.pop() if len(rates) <= 1 else None",
            "rates has a member per active port, and a node without one returned before: never empty",
        ),
        (
            'rdma = min(rdmas, key=lambda r: r["total_gbps"] or 0) if rdmas else None',
            'rdma = min(rdmas, key=lambda r: r["total_gbps"] or 1) if rdmas else None',
            "no RDMA port runs below 1 Gb/s: a node without a rate sorts first either way",
        ),
        (
            'rdma = rdma or {"kind": None, "provider": None, "ports": 0, "rate_gbps": None, "total_gbps": None}',
            'rdma = rdma or {"kind": None, "provider": None, "ports": -1, "rate_gbps": None, "total_gbps": None}',
            "_from_nodes gives an rdma per node, and no node is refused before: the fallback is never taken",
        ),
        (
            'rdma = min(rdmas, key=lambda r: r["total_gbps"] or 0) if rdmas else None',
            'rdma = min(rdmas, key=lambda r: r["total_gbps"] or -1) if rdmas else None',
            "as above: a node without a rate sorts first with 0 or -1",
        ),
        (
            'rdma = rdma or {"kind": None, "provider": None, "ports": 0, "rate_gbps": None, "total_gbps": None}',
            'rdma = rdma or {"kind": None, "provider": None, "ports": 1, "rate_gbps": None, "total_gbps": None}',
            "as above: the fallback is never taken",
        ),
        (
            'if prof["gpus_per_node"] == 1 and model.links:',
            'if prof["gpus_per_node"] <= 1 and model.links:',
            "no instance type has 0 GPUs",
        ),
        (
            "def nccl_check_settings(hardware, settings, node_count=1):",
            "def nccl_check_settings(hardware, settings, node_count= 0):",
            "0 and 1 node both need no network rate (node_count > 1)",
        ),
        (
            'elif model.links and prof["gpus_per_node"] < 8 and "nvlink_links" not in model.unconfirmed:',
            'elif model.links and prof["gpus_per_node"] < 7 and "nvlink_links" not in model.unconfirmed:',
            "the VM families' sizes have 1, 2, 4 or 8 GPUs (instance_families.FAMILIES): none has 7",
        ),
        (
            '"single_node_gbps": round(EXPECTED_RATIO[intra["kind"]] * intra["gbs"], 2),',
            '"single_node_gbps": round(EXPECTED_RATIO[intra["kind"]] * intra["gbs"], 3),',
            "0.8 x 25 GB/s x links and 0.44 x 31.5 or 63 GB/s have two decimals at most: rounding to 3 is the same",
        ),
    ]
    # The PCIe generation of an NVLink model is read only for a one-GPU VM size (gn8v's H20): the others' are facts
    # for the table's reader, never read (a model with links is judged by them).
    + [
        (
            '_Model("%s", r"%s", "%s", %d, %d, ("%s",)%s),' % (key, pattern, cc, links, gen, source, extra),
            '_Model("%s", r"%s", "%s", %d, %d, ("%s",)%s),' % (key, pattern, cc, links, gen + step, source, extra),
            "the PCIe generation of an NVLink model that no one-GPU size has",
        )
        for key, pattern, cc, links, gen, source, extra in (
            ("V100 SXM2", "V100.*SXM", "7.0", 6, 3, "nv-v100", ""),
            ("A100 SXM4", "A100.*SXM", "8.0", 12, 4, "nv-a100", ""),
            ("H800 SXM5", "\\bH800\\b(?!.*PCIE)", "9.0", 8, 5, "h800", ', ("nvlink_links",)'),
            ("H100 SXM5", "\\bH100\\b", "9.0", 18, 5, "nv-h100", ""),
            ("H200 SXM", "\\bH200\\b", "9.0", 18, 5, "nv-h200", ""),
        )
        for step in (-1, 1)
    ],
    "job_progress": [
        (
            'slowest = min(ranks, key=lambda r: (_number(r.get("step")) or 0, r["rank"]))',
            'slowest = min(ranks, key=lambda r: (_number(r.get("step")) or 1, r["rank"]))',
            "steps are whole numbers: the or makes 0 and None the same least step either way",
        ),
    ],
    "ack": [
        (
            "if network is None or network.version != 4:",
            "if network is None or network.version > 4:",
            "IP networks are version 4 or 6 only",
        ),
        (
            "if len(set(ids)) != len(ids):",
            "if len(set(ids)) < len(ids):",
            "a set of a list is never longer than the list",
        ),
        (
            'if state == "present":',
            'if state >= "present":',
            "cs_cluster_nodes' state is present or absent (its choices): absent sorts before",
        ),
        (
            'if params.get("state") == "present":',
            'if params.get("state") >= "present":',
            "state is present or absent (the module's choices): absent sorts before",
        ),
        (
            'if params.get("state") == "absent":',
            'if params.get("state") <= "absent":',
            "state is present or absent (the module's choices): present sorts after",
        ),
        (
            'if plugin != "flannel":',
            'if plugin > "flannel":',
            "plugin is one of NETWORK_PLUGINS here (refused above otherwise): terway-eniip sorts after flannel",
        ),
        (
            'enabled = enabled.lower() == "true"',
            'enabled = enabled.lower() >= "true"',
            "the value is 'true' or 'false' here (the line's own guard): false sorts before",
        ),
        (
            'if option == "scc_cloud_ack_pod_cidr" and settings.get("scc_cloud_ack_network_plugin") == "terway-eniip":',
            'if option <= "scc_cloud_ack_pod_cidr" and settings.get("scc_cloud_ack_network_plugin") == "terway-eniip":',
            "the loop's other option, scc_cloud_ack_service_cidr, sorts after scc_cloud_ack_pod_cidr",
        ),
        (
            "continue  # Terway gives pods addresses of the VPC: no pod CIDR is sent",
            "break  # Terway gives pods addresses of the VPC: no pod CIDR is sent",
            "the pod block is the loop's last option: nothing follows it",
        ),
        (
            "if block.version == vpc.version and block.overlaps(vpc):",
            "if block.version >= vpc.version and block.overlaps(vpc):",
            "block is IPv4 here (judged above): 4 >= the VPC's version holds exactly when they are equal",
        ),
        (
            "if block.version == vpc.version and block.overlaps(vpc):",
            "if block.version <= vpc.version and block.overlaps(vpc):",
            "overlaps() is False between an IPv4 and an IPv6 network (ipaddress), so the version test only saves a call",
        ),
        (
            '"container_cidr": params.get("pod_cidr") if (params.get("network_plugin") or "flannel") == "flannel" else None,',
            '"container_cidr": params.get("pod_cidr") if (params.get("network_plugin") or "flannel") <= "flannel" else None,',
            "network_plugin is flannel or terway-eniip (the module's choices): terway-eniip sorts after",
        ),
    ],
    "cloud_inputs": [
        (
            "if network.version != 4:",
            "if network.version > 4:",
            "IP networks are version 4 or 6 only",
        ),
        (
            "if network.prefixlen == 0:",
            "if network.prefixlen <= 0:",
            "a prefix length is never negative",
        ),
        (
            "if input_checks.is_text(item) and _network(item) is not None and _network(item).prefixlen == 0:",
            "if input_checks.is_text(item) and _network(item) is not None and _network(item).prefixlen <= 0:",
            "a prefix length is never negative",
        ),
        (
            'if count == 0 and "scc_cloud_release_all_nodes" in settings:',
            'if count <= 0 and "scc_cloud_release_all_nodes" in settings:',
            "count is a whole number >= 0 here (_whole's lower bound above)",
        ),
        (
            'if charge == "PostPaid":',
            'if charge <= "PostPaid":',
            "charge is PostPaid or PrePaid here (refused above): PrePaid sorts after",
        ),
        (
            'if input_checks.boolean(settings["scc_cloud_release_all_nodes"]) is False:',
            'if input_checks.boolean(settings["scc_cloud_release_all_nodes"]) == False:',
            "boolean() returns True, False or None: == False holds exactly when is False does",
        ),
        (
            "if input_checks.boolean(allow) is True:",
            "if input_checks.boolean(allow) == True:",
            "boolean() returns True, False or None: == True holds exactly when is True does",
        ),
        (
            'first = problem.split(" ", 1)[0]',
            'first = problem.split(" ", 2)[0]',
            "the first field of a split is the same whatever its limit",
        ),
        (
            'plan["scc_cloud_jumbo_frames"] = input_checks.boolean(settings.get("scc_cloud_jumbo_frames", False))',
            'plan["scc_cloud_jumbo_frames"] = input_checks.boolean(settings.get("scc_cloud_jumbo_frames", True))',
            "the ERI problems kept here do not depend on jumbo frames (node_plan: they set the MTU only)",
        ),
    ],
    "bert_prep": [
        (
            'name = corpus.rsplit("/", 1)[-1] or "corpus"',
            'name = corpus.rsplit("/", 2)[-1] or "corpus"',
            "the last field of a right split is the same whatever its limit",
        ),
    ],
    "hardware_fact": [
        (
            'return value is not None and str(value).strip() != ""',
            'return value is not None and str(value).strip() > ""',
            "a stripped string is  or sorts after it: !=  and >  agree on every string",
        ),
        (
            'return value_ is not None and str(value_).strip() != ""',
            'return value_ is not None and str(value_).strip() > ""',
            "a stripped string is  or sorts after it: !=  and >  agree on every string",
        ),
        (
            'elif source in ("doca", "mlnx_ofed") and kind == "erdma":',
            'elif source in ("doca", "mlnx_ofed") and kind <= "erdma":',
            "the RDMA kinds are erdma and roce_v2 only (instance_families.FAMILIES): only erdma sorts at or before erdma",
        ),
        (
            'if _set(mtu) and kind == "erdma" and _int(mtu) not in (8500, 1400):',
            'if _set(mtu) and kind <= "erdma" and _int(mtu) not in (8500, 1400):',
            "the RDMA kinds are erdma and roce_v2 only (instance_families.FAMILIES): only erdma sorts at or before erdma",
        ),
        (
            'elif _set(mtu) and kind == "erdma" and fact["mtu"] is not None and _int(mtu) != fact["mtu"]:',
            'elif _set(mtu) and kind <= "erdma" and fact["mtu"] is not None and _int(mtu) != fact["mtu"]:',
            "the RDMA kinds are erdma and roce_v2 only (instance_families.FAMILIES): only erdma sorts at or before erdma",
        ),
        (
            'elif _set(mtu) and kind == "erdma" and fact["mtu"] is not None and _int(mtu) != fact["mtu"]:',
            'elif _set(mtu) and kind >= "erdma" and fact["mtu"] is not None and _int(mtu) != fact["mtu"]:',
            "the other kind, roce_v2, has no MTU in its fact (fact['mtu'] None): the line's next test fails for it either way",
        ),
        (
            'if source == "erdma" and kind != "erdma":',
            'if source == "erdma" and kind > "erdma":',
            "the RDMA kinds are erdma and roce_v2 only: > erdma holds exactly for roce_v2",
        ),
        (
            'if source == "erdma" and kind != "erdma":',
            'if source == "erdma" and kind >= "erdma":',
            "rdma_stack_source=erdma on an eRDMA family equals the role's default and is dropped before judging (_declared_only): kind is never erdma here",
        ),
    ],
    "gpu_check": [
        (
            "if gpus > 1:",
            "if gpus != 1:",
            "part_nccl returns before judge_nccl when gpus < 1 (no GPU): gpus is 1 or more here",
        ),
    ],
    "bert_data": [
        (
            "spans, offset = [], 0",
            "spans, offset = [], 1",
            "the shared rows' round-robin starts one rank later: still disjoint, covering and even to one row",
        ),
        (
            "spans, offset = [], 0",
            "spans, offset = [], -1",
            "the shared rows' round-robin starts one rank earlier: still disjoint, covering and even to one row",
        ),
        (
            "random.Random(seed * 1_000_003 + epoch).shuffle(perm)",
            "random.Random(seed * 1000004 + epoch).shuffle(perm)",
            "another multiplier mixes seed and epoch as well: a distinct order per (seed, epoch) all the same",
        ),
        (
            "random.Random(seed * 1_000_003 + epoch).shuffle(perm)",
            "random.Random(seed * 1000002 + epoch).shuffle(perm)",
            "another multiplier mixes seed and epoch as well: a distinct order per (seed, epoch) all the same",
        ),
        (
            "random.Random(seed * 1_000_003 + epoch).shuffle(perm)",
            "random.Random(seed * 1_000_003 - epoch).shuffle(perm)",
            "seed * 1_000_003 - epoch is as distinct per (seed, epoch) for any epoch below 1_000_003 / 2",
        ),
        (
            "random.Random(seed * 1_000_003 + epoch).shuffle(perm)",
            "random.Random(seed / 1_000_003 + epoch).shuffle(perm)",
            "a float seed mixes seed and epoch as well (random hashes it): a distinct order per (seed, epoch)",
        ),
    ],
    "artifacts": [
        (
            'if layout == "wheelhouse":',
            'if layout >= "wheelhouse":',
            'layout is "flat" or "wheelhouse" (LAYOUTS, refused otherwise): "flat" >= "wheelhouse" is False too',
        ),
        (
            "if len(found) != 1 or not SHA256.match(found[0]):",
            "if len(found) != 1 or not SHA256.match(found[ -1]):",
            "found holds exactly one item here (the len test before it): its first is its last",
        ),
        ("return found[0]", "return found[ -1]", "found holds exactly one item here (refused above otherwise)"),
        (
            "entry = matches[0]",
            "entry = matches[ -1]",
            "matches holds exactly one entry here (refused above otherwise)",
        ),
    ],
    "health": [
        (
            "if len(set(nodes)) != len(nodes):",
            "if len(set(nodes)) < len(nodes):",
            "a set of the nodes is never larger than their list: != and < agree",
        ),
    ],
    "nccl_bisect": [
        (
            "if len(set(nodes)) != len(nodes):",
            "if len(set(nodes)) < len(nodes):",
            "a set of the nodes is never larger than their list: != and < agree",
        ),
    ],
    "cluster": [
        (
            'return value is not None and not isinstance(value, bool) and str(value).strip() != "" and int(value) > 0',
            'return value is not None and not isinstance(value, bool) and str(value).strip() > "" and int(value) > 0',
            "a stripped string is  or sorts after it: !=  and >  agree on every string",
        ),
        (
            'if scope == "mesh" or not hosts or host not in hosts or host == hosts[0]:',
            'if scope <= "mesh" or not hosts or host not in hosts or host == hosts[0]:',
            'scope is "ring" or "mesh" by then (VERIFY_SCOPES, checked above): "ring" <= "mesh" is False too',
        ),
        (
            'if percent and (parsed.version != 6 or not re.match(r"^[0-9A-Za-z_.-]+\\Z", zone)):',
            'if percent and (parsed.version < 6 or not re.match(r"^[0-9A-Za-z_.-]+\\Z", zone)):',
            "an address's version is 4 or 6 (ipaddress): != 6 and < 6 are the same test",
        ),
        (
            "if parsed.version == 6 and parsed.ipv4_mapped is not None:",
            "if parsed.version >= 6 and parsed.ipv4_mapped is not None:",
            "IP versions are 4 and 6 only",
        ),
        (
            'full_by_label.setdefault(identity.split(".", 1)[0], []).append(identity)',
            'full_by_label.setdefault(identity.split(".", 2)[0], []).append(identity)',
            "the first field of a split is the same whatever its limit",
        ),
        (
            "short: full_by_label[short][0]",
            "short: full_by_label[short][ -1]",
            "the list holds exactly one full name here (the comprehension's len == 1)",
        ),
        (
            "continue",
            "break",
            "an entry's fields are its inventory name (never empty) then ansible_host: a None key is the last field, nothing follows it",
            "if key is None:",
        ),
        (
            'if all(field == "ansible_host" and value == found[0][2] for _h, field, value in found):',
            'if all(field <= "ansible_host" and value == found[0][2] for _h, field, value in found):',
            "the fields are 'inventory name' and 'ansible_host': only the latter sorts at or before 'ansible_host'",
        ),
        (
            'if all(field == "ansible_host" and value == found[0][2] for _h, field, value in found):',
            'if all(field == "ansible_host" and value == found[ -1][2] for _h, field, value in found):',
            "every value equals the first exactly when every value equals the last",
        ),
        (
            'if all(field == "ansible_host" and value == found[0][2] for _h, field, value in found):',
            'if all(field == "ansible_host" and value == found[ 1][2] for _h, field, value in found):',
            "every value equals the first exactly when every value equals the second (a group has two or more)",
        ),
        (
            'what = "share ansible_host %s" % found[0][2]',
            'what = "share ansible_host %s" % found[ -1][2]',
            "reached only when every value of the group is the same",
        ),
        (
            'what = "share ansible_host %s" % found[0][2]',
            'what = "share ansible_host %s" % found[ 1][2]',
            "reached only when every value of the group is the same",
        ),
        (
            "if len(hosts) > 1",
            "if len(hosts) != 1",
            "a by_address list holds at least the node that made it",
        ),
        (
            "def mpi_slots(slots=None, gpu_count=None, gpu_devices=0, vcpus=None):",
            "def mpi_slots(slots=None, gpu_count=None, gpu_devices= -1, vcpus=None):",
            "_positive() reads -1 as it reads 0: not a count",
        ),
        (
            '("scc_gpu_count", gpu_count, 0, "unset or an integer >= 0"),',
            '("scc_gpu_count", gpu_count, -1, "unset or an integer >= 0"),',
            "_integer_at_least reads digits only: no negative value passes whatever the least",
        ),
        (
            'plan.append({"host": host, "slots": mpi_slots(slots, gpu_count, devices or 0, vcpus)})',
            'plan.append({"host": host, "slots": mpi_slots(slots, gpu_count, devices or -1, vcpus)})',
            "_positive() reads -1 as it reads 0: not a count",
        ),
    ],
    "cloud_waiters": [
        (
            "chain = states[max(0, count - 1) :] if count < len(states) else states[-1:]",
            "chain = states[max(0, count - 1) :] if count <= len(states) else states[-1:]",
            "at count == len(states) both give the last state alone",
        ),
        (
            "count, end_shown = shown.get(index, (0, False))",
            "count, end_shown = shown.get(index, ( 1, False))",
            "a wait not shown yet starts its chain at state 0 from a count of 0 or 1 alike (max(0, count - 1))",
        ),
        (
            "chain = states[max(0, count - 1) :] if count < len(states) else states[-1:]",
            "chain = states[max(0, count - 1) :] if count != len(states) else states[-1:]",
            "count is how many states were shown, and states only grow: never above len(states)",
        ),
        (
            "count, end_shown = shown.get(index, (0, False))",
            "count, end_shown = shown.get(index, ( -1, False))",
            "as above: max(0, count - 1) is 0 from -1 too",
        ),
        (
            "continue",
            "break",
            "the one continue that survives is a wait with no state yet, which only the last wait can be (each "
            "wait polls at once, and a later one begins after): nothing follows it",
            "if not states:",
        ),
        (
            'elapsed = duration(view.get("seconds") or 0)',
            'elapsed = duration(view.get("seconds") or -1)',
            "duration() counts a negative time as 0 s",
        ),
        (
            "over = bool(view.get(\"ready\")) or ended or index < len(views) - 1",
            "over = bool(view.get(\"ready\")) or ended or index != len(views) - 1",
            "index runs over range(len(views)): it is never above the last",
        ),
    ],
    "progress": [
        (
            'name = self._task.action.rsplit(".", 1)[-1]',
            'name = self._task.action.rsplit(".", 2)[-1]',
            "the last dotted part is the same whatever the split's limit",
        ),
        (
            "TRANSFERS_FILES = False",
            "TRANSFERS_FILES = True",
            "decides only whether Ansible makes a remote temporary directory before the action runs; the polling "
            "actions copy no file, and their results are the same",
        ),
    ],
    "cloud_wait": [
        (
            "poll_s = max(1, self._task.poll or 1)",
            "poll_s = max(1, self._task.poll or 0)",
            "max(1, 0) is 1: the fallback is the floor",
        ),
        (
            "poll_s = max(1, self._task.poll or 1)",
            "poll_s = max( 0, self._task.poll or 1)",
            "a task's poll is 0 or more, and 0 is made 1 by the or: never below 1",
        ),
        (
            'label = self._task.action.rsplit(".", 1)[-1]',
            'label = self._task.action.rsplit(".", 2)[-1]',
            "the last dotted part is the same whatever the split's limit",
        ),
    ],
    "nccl_check": [
        (
            "if int(node_count) > 1:",
            "if int(node_count) != 1:",
            "the role passes the play's node count, at least 1",
        ),
        (
            'return lambda value: value is None or str(value).strip() == "" or check(value)',
            'return lambda value: value is None or str(value).strip() <= "" or check(value)',
            'no string sorts before ""',
        ),
        (
            'return {"status": status, "ok": status != "red", "problems": problems, "single_node": summary}',
            'return {"status": status, "ok": status < "red", "problems": problems, "single_node": summary}',
            "the statuses are amber, green and red: both others sort before red",
        ),
    ],
    "training_job": [
        (
            "return checks.boolean(value) is True",
            "return checks.boolean(value) == True",
            "input_checks.boolean returns True, False or None: == True and is True agree on each",
        ),
        (
            "elif how == SWITCH:",
            "elif how <= SWITCH:",
            "the kinds are levers (taken by the branch before), switch and value, which sorts after switch",
        ),
        (
            "if how == LEVER_GROUP:",
            "if how <= LEVER_GROUP:",
            "switch and value both sort after levers",
        ),
        (
            'if workload == "bert":',
            'if workload <= "bert":',
            "the workloads are bert and resnet (SCRIPTS; anything else is refused first), resnet after bert",
        ),
    ],
    "nvidia_topo": [
        (
            'if bind_to != "auto" and map_by != "auto":',
            'if bind_to > "auto" and map_by != "auto":',
            "every value of mpirun's --bind-to (none, hwthread, core, l1cache..l3cache, package, socket, numa, board) "
            "sorts after auto",
        ),
        (
            '"bind_to": chosen["bind_to"] if bind_to == "auto" else bind_to,',
            '"bind_to": chosen["bind_to"] if bind_to <= "auto" else bind_to,',
            "as above: no --bind-to value sorts before auto",
        ),
        (
            '"map_by": chosen["map_by"] if map_by == "auto" else map_by,',
            '"map_by": chosen["map_by"] if map_by <= "auto" else map_by,',
            "every value of mpirun's --map-by (slot, hwthread, core, l1cache..l3cache, package, socket, numa, board, "
            "node, seq, dist, ppr:N:resource, pe-list=...) sorts after auto",
        ),
        (
            'if bind_to != "auto" and map_by != "auto":',
            'if bind_to != "auto" and map_by > "auto":',
            "as above for --map-by",
        ),
        (
            "if not match or line is header:",
            "if not match or line == header:",
            "no row of the matrix is the same text as its header (a row starts with its GPU's name, the header with "
            "the indent before GPU0)",
        ),
        (
            "if not match or line is header:",
            "if not match or line <= header:",
            "the header starts with an indent (nvidia-smi's layout), which sorts before the G of every row",
        ),
        (
            'if line.strip() and not line.lstrip().startswith("#"):',
            'if line.strip() or not line.lstrip().startswith("#"):',
            "a blank or # line kept is never the header (GPU0 first) nor a row (GPU<n> first): parsed the same",
        ),
        (
            "links = dict(zip(columns, cells[1 : 1 + len(columns)]))",
            "links = dict(zip(columns, cells[1 : 2 + len(columns)]))",
            "zip stops at the last column: a cell more is never paired",
        ),
        (
            "break  # the legends follow the matrix",
            "continue  # the legends follow the matrix",
            "no legend line starts with a GPU<n> cell, so skipping them parses what stopping there does",
        ),
    ],
}


def _spans(module: Path, functions):
    """(first line, last line) of each named function or method of ``module``; names written ``!name``: every line
    but those of these functions."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    left_out = {name[1:] for name in functions if name.startswith("!")}
    named = {name for name in functions if not name.startswith("!")}
    missing = (named | left_out) - {n.name for n in defs}
    if missing:
        raise SystemExit("mutation: %s has no function %s" % (module, ", ".join(sorted(missing))))
    if left_out:
        spans, line = [], 1
        for first, last in sorted((n.lineno, n.end_lineno) for n in defs if n.name in left_out):
            spans.append((line, first - 1))
            line = last + 1
        return spans + [(line, 10**9)]
    return [(n.lineno, n.end_lineno) for n in defs if n.name in named]


_ARITHMETIC = {"Add", "Sub", "Mul", "Div"}


def _uninformative(operator: str) -> bool:
    """The mutations the docstring leaves out: exotic arithmetic, and a comparison made an identity test."""
    parts = operator.split("/")[-1].split("_")
    if parts[0] == "ReplaceBinaryOperator":
        return not set(parts[1:]) <= _ARITHMETIC
    if parts[0] == "ReplaceComparisonOperator":
        return parts[1] not in ("Is", "IsNot") and parts[2] in ("Is", "IsNot")
    return False


def _skip(db_path: Path, module: Path, functions) -> None:
    """Mark skipped the mutations outside ``functions`` (all, when None) and the uninformative ones
    (cosmic-ray's own filters do the same for pragmas)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    spans = _spans(module, functions) if functions else [(1, 10**9)]
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        outside = [
            item.job_id
            for item in db.work_items
            if _uninformative(item.mutations[0].operator_name)
            or not any(first <= m.start_pos[0] <= last for m in item.mutations for first, last in spans)
        ]
        if outside:
            db.set_multiple_results(
                outside, WorkResult(output=None, test_outcome=None, diff=None, worker_outcome=WorkerOutcome.SKIPPED)
            )


def _changed(diff: str):
    """(the line before, the line after, the diff's context line just above them) of a one-line mutant, stripped.
    The line above tells apart two identical lines of one file (two ``continue``)."""
    lines = (diff or "").splitlines()
    minus = [line[1:].strip() for line in lines if line.startswith("-") and not line.startswith("---")]
    plus = [line[1:].strip() for line in lines if line.startswith("+") and not line.startswith("+++")]
    first = next((i for i, line in enumerate(lines) if line[:1] in "-+" and not line.startswith(("---", "+++"))), 0)
    above = next((line[1:].strip() for line in reversed(lines[:first]) if line[:1] == " " and line.strip()), "")
    return (minus[0] if minus else "", plus[0] if plus else "", above)


def _equivalent_reason(known, diff):
    """The reason a survivor is listed as equivalent, or None. An entry with a fourth item, the line above the
    mutated one, matches only there; one without matches the line wherever it is."""
    before, after, above = _changed(diff)
    return known.get((before, after, above)) or known.get((before, after, None))


def _tally(db_path: Path, name: str = ""):
    """(killed, survivors: [diff], equivalent: [(diff, why)]) of the mutants that ran."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    known = {(entry[0], entry[1], entry[3] if len(entry) > 3 else None): entry[2] for entry in EQUIVALENT.get(name, [])}
    killed, survivors, equivalent = 0, [], []
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        for _item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            if result.test_outcome == TestOutcome.SURVIVED:
                why = _equivalent_reason(known, result.diff)
                if why:
                    equivalent.append((result.diff, why))
                else:
                    survivors.append(result.diff)
            else:  # killed, or incompetent (a timeout, a mutant that cannot run)
                killed += 1
    return killed, survivors, equivalent


def _survivor(diff: str) -> str:
    """A survivor in two lines: where, and the line before and after ('-'/'+' of the diff)."""
    lines = (diff or "").splitlines()
    where = next((line for line in lines if line.startswith("@@")), "")
    changed = [line for line in lines if line[:1] in "-+" and not line.startswith(("---", "+++"))]
    return "  survived %s\n    %s" % (where, "\n    ".join(changed))


def run_target(name: str, work: Path, timeout: float) -> tuple[int, list, list]:
    module, functions, tests = TARGETS[name]
    config = work / (name + ".toml")
    db = work / (name + ".sqlite")
    command = [str(BIN / "python"), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
    config.write_text(
        "[cosmic-ray]\n"
        "module-path = %r\n"
        "timeout = %s\n"
        "excluded-modules = []\n"
        "test-command = %r\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n' % (module, timeout, " ".join(command + tests)),
        encoding="utf-8",
    )
    db.unlink(missing_ok=True)
    subprocess.run([str(BIN / "cosmic-ray"), "init", str(config), str(db)], cwd=ROOT, check=True)
    _skip(db, ROOT / module, functions)
    baseline = subprocess.run(command + tests, cwd=ROOT, capture_output=True, text=True, check=False)
    if baseline.returncode != 0:
        raise SystemExit("mutation: the tests of %s fail unmutated:\n%s" % (name, baseline.stdout[-3000:]))
    subprocess.run([str(BIN / "cosmic-ray"), "exec", str(config), str(db)], cwd=ROOT, check=True)
    return _tally(db, name)


def tree_copy(dest: Path, root: Path = ROOT) -> Path:
    """A copy of ``root``'s working tree at ``dest`` (tracked files and untracked ones git does not ignore, as they
    are now): cosmic-ray mutates in place, so two targets run side by side only in two trees. The copy's collection
    path (.collections/ansible_collections/scc/training) points at the copy itself, the other collections at root's."""
    if dest.exists():
        shutil.rmtree(dest)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    for name in sorted({os.fsdecode(n) for n in listed.split(b"\0") if n}):
        source, target = root / name, dest / name
        if not source.is_file() and not source.is_symlink():  # deleted from the tree, not yet from the index
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    collections = root / ".collections" / "ansible_collections"
    for namespace in sorted(collections.iterdir()) if collections.is_dir() else []:
        if namespace.name == "scc":
            (dest / ".collections/ansible_collections/scc").mkdir(parents=True)
            (dest / ".collections/ansible_collections/scc/training").symlink_to("../../..")
        else:
            (dest / ".collections/ansible_collections").mkdir(parents=True, exist_ok=True)
            (dest / ".collections/ansible_collections" / namespace.name).symlink_to(namespace.resolve())
    return dest


def by_size(names) -> list:
    """The targets, largest module first: with a queue of jobs, the long ones start early (the module's size stands
    in for its mutants, not counted before a run)."""
    return sorted(names, key=lambda name: -(ROOT / TARGETS[name][0]).stat().st_size)


def run_parallel(names, work: Path, timeout: float, jobs: int) -> list:
    """Every target of ``names`` run in one of ``jobs`` copies of the tree, each taking the next target of a queue
    when it is free; results into ``work``. Returns the targets whose run failed (their tests failed unmutated)."""
    trees = [tree_copy(work / "trees" / str(k)) for k in range(jobs)]
    queue, failed, lock = by_size(names), [], threading.Lock()

    def worker(tree: Path) -> None:
        while True:
            with lock:
                if not queue:
                    return
                name = queue.pop(0)
            command = [sys.executable, str(tree / "tools" / "mutation.py"), "--only", name, "--work", str(work)]
            done = subprocess.run(
                command + ["--min", "0", "--timeout", str(timeout)],
                cwd=tree,
                capture_output=True,
                text=True,
                check=False,
            )
            with lock:
                print("mutation: %s ran in %s (exit %d)" % (name, tree.name, done.returncode), flush=True)
                if done.returncode != 0:
                    failed.append(name)
                    print((done.stdout + done.stderr)[-3000:], flush=True)

    threads = [threading.Thread(target=worker, args=(tree,)) for tree in trees]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", choices=sorted(TARGETS), help="a target (repeatable)")
    parser.add_argument("--min", type=float, default=95.0, help="the least percentage killed (default 95)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one mutant's tests may take")
    parser.add_argument("--work", type=Path, default=ROOT / ".cache" / "mutation")
    parser.add_argument("--report", action="store_true", help="tally the last runs' results, run nothing")
    parser.add_argument("--jobs", type=int, default=1, help="targets run at a time, each in a copy of the tree")
    args = parser.parse_args(argv)
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    names = args.only or list(TARGETS)
    if args.jobs > 1 and not args.report:
        failed = run_parallel(names, args.work, args.timeout, args.jobs)
        if failed:
            raise SystemExit("mutation: the tests of %s fail unmutated" % ", ".join(sorted(failed)))
        args.report = True  # every target ran: the tally below reads their results
    killed = total = equivalents = 0
    for name in names:
        if args.report:
            dead, survivors, equivalent = _tally(args.work / (name + ".sqlite"), name)
        else:
            dead, survivors, equivalent = run_target(name, args.work, args.timeout)
        count = dead + len(survivors)
        killed, total, equivalents = killed + dead, total + count, equivalents + len(equivalent)
        print(
            "mutation: %s: killed %d of %d (%d equivalent left out)" % (name, dead, count, len(equivalent)), flush=True
        )
        for diff in survivors:
            print(_survivor(diff), flush=True)
        for diff, why in equivalent:
            print(_survivor(diff).replace("survived", "equivalent", 1) + "\n    (%s)" % why, flush=True)
    percent = 100.0 * killed / total if total else 0.0
    print(
        "mutation: killed %d of %d (%.1f%%); %d equivalent mutants (EQUIVALENT in tools/mutation.py) left out"
        % (killed, total, percent, equivalents)
    )
    return 0 if total and percent >= args.min else 1


if __name__ == "__main__":
    sys.exit(main())
