# -*- coding: utf-8 -*-
"""Every role default that depends on the hardware reads the cluster's resolved fact (scc_hardware, through the
lookup scc.training.hardware), never a hard-coded value nor a second resolution of scc_instance_type.

The test reads the roles' defaults, vars and tasks files: it lists the defaults whose name says hardware (compute
capability, driver branch, NCCL environment, MTU, link rates, GPU and NVLink counts, RDMA source...) and fails on
one that is not classified below, on a classified one that hard-codes its value, and on any file that resolves the
instance type itself (instance_profile, hardware_defaults, ``scc_instance_type | default('sccgn6')``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from ansible_collections.scc.training.plugins.module_utils.hardware_fact import ROLE_DEFAULTS, cluster_fact
from ansible_collections.scc.training.plugins.module_utils.hardware_fact import value as fact_value

ROOT = Path(__file__).resolve().parents[2]
ROLES = ROOT / "roles"

# A default whose name matches is hardware-dependent unless EXEMPT says why not.
HARDWARE_NAME = re.compile(
    r"compute_capability|driver_branch$|_branch$|kernel_modules$|nccl_env$|netdev_mtu$|link_rate_gbps$|"
    r"expected_(gpus|nvlinks|links|rate_gbps)$|nvlink|intra_node_gbs$|_gpus$|gencode$|torch_cuda$|rdma_stack_source$|"
    r"qp_count$|_qps$"
)

# Null (or auto, or empty) defaults that the role resolves from the fact at run time (a hand-set value wins): the
# file that reads the lookup.
RESOLVED_IN = {
    "gpu_health_expected_gpus": "tasks/report.yml",
    "gpu_health_expected_nvlinks": "tasks/report.yml",
    "ib_check_expected_links": "vars/main.yml",
    "ib_check_expected_rate_gbps": "vars/main.yml",
    "nccl_check_gpus": "tasks/resolve.yml",
    "rdma_stack_netdev_mtu": "vars/main.yml",
    "rdma_bandwidth_link_rate_gbps": "vars/main.yml",
    # perftest -q: the family's queue pairs (eRDMA), else one per link of the port.
    "rdma_bandwidth_qp_count": "vars/main.yml",
    "nccl_check_nvcc_gencode": "tasks/resolve.yml",
    "nccl_check_nvlink_links": "tasks/resolve.yml",
    "nccl_check_nvlink_gbs_per_link": "tasks/resolve.yml",
    "nccl_check_intra_node_gbs": "tasks/resolve.yml",
    "nccl_check_link_rate_gbps": "tasks/resolve.yml",
    # auto: scc.training.torch_build picks the build from the fact's compute capability.
    "python_env_torch_cuda": "vars/main.yml",
}

# Hardware-named defaults that do not come from the fact, and why.
EXEMPT = {
    # The scc_gpu_count declaration, compared with what the node shows (0: not declared).
    "gpu_health_declared_gpus": "a declaration (scc_gpu_count), held against the fact by validate.yml",
}

# Defaults computed from another default of the same role that reads the fact (so a hand-set value of that one
# carries through): the name it must use.
DERIVED = {
    # open or proprietary from the GPU's compute capability (scc.training.nvidia_kernel_modules).
    "nvidia_driver_kernel_modules": "nvidia_driver_gpu_compute_capability",
}

# A role's own copy of the instance type is a second route in (0.4.0 removed gpu_health's, ib_check's, nccl_check's and
# rdma_stack's): a role default named *_instance_type, or any role variable that copies scc_instance_type. What a role
# provisions is no copy of the cluster's type, and says why here.
INSTANCE_TYPE_NAME = re.compile(r"_instance_type$")
NOT_A_COPY = {
    # The utility instance that prepares the data set (provision.yml), not a GPU node of the cluster.
    "scc_cloud_data_prep_instance_type": "the data-prep instance, a CPU type provision.yml creates",
    # The bastion (scc_cloud_access bastion): a small CPU instance the controller jumps through, no GPU node either.
    "scc_cloud_bastion_instance_type": "the bastion, a CPU type provision.yml creates",
}
COPY = re.compile(r"^\s*\w+:\s*[\"']?\{\{\s*scc_instance_type\b", re.M)

# How a role may not read the hardware: it resolves the instance type itself or hard-codes a GPU.
FORBIDDEN = (
    re.compile(r"scc\.training\.instance_profile"),
    re.compile(r"scc\.training\.hardware_defaults"),
    re.compile(r"default\(\s*'sccgn6'"),
    # The cluster-wide hand-set value is part of the fact (hardware_fact.cluster_fact's compute_capability).
    re.compile(r"scc_gpu_compute_capability\s*\|\s*default\((?!none\))"),
)


def _defaults(roles):
    out = {}
    for path in sorted(roles.glob("*/defaults/main.yml")):
        for name, value in (yaml.safe_load(path.read_text()) or {}).items():
            out[name] = (path.parts[-3], value)
    return out


def _lookup(key):
    return "{{ lookup('scc.training.hardware', '%s') }}" % key


def offenders(roles=ROLES):
    """Every way a role's hardware default escapes the fact, one line each."""
    problems = []
    defaults = _defaults(roles)
    for name, (role, value) in sorted(defaults.items()):
        if not HARDWARE_NAME.search(name) or name in EXEMPT:
            continue
        if name in ROLE_DEFAULTS:
            if str(value).strip() != _lookup(ROLE_DEFAULTS[name]):
                problems.append("%s: %s: %r does not read %s" % (role, name, value, _lookup(ROLE_DEFAULTS[name])))
        elif name in DERIVED:
            source = DERIVED[name]
            if source not in ROLE_DEFAULTS or not re.match(r"^\{\{\s*%s\b" % source, str(value).strip()):
                problems.append(
                    "%s: %s: %r is not computed from %s (which reads the fact)" % (role, name, value, source)
                )
        elif name in RESOLVED_IN:
            if value not in (None, "", "auto"):
                problems.append(
                    "%s: %s: %r is hard-coded (null, empty or auto: resolved from the fact)" % (role, name, value)
                )
            elif "lookup('scc.training.hardware'" not in (roles / role / RESOLVED_IN[name]).read_text():
                problems.append("%s: %s: %s does not read the fact" % (role, name, RESOLVED_IN[name]))
        else:
            problems.append("%s: %s depends on the hardware and is not classified in this test" % (role, name))
    for name in ROLE_DEFAULTS:
        if name not in defaults:
            problems.append("%s (hardware_fact.ROLE_DEFAULTS) is no role's default" % name)
    for name, (role, _value) in sorted(defaults.items()):
        if INSTANCE_TYPE_NAME.search(name) and name not in NOT_A_COPY:
            problems.append("%s: %s is a second route in for the instance type (read scc_hardware)" % (role, name))
    for path in sorted(roles.glob("*/defaults/*.yml")) + sorted(roles.glob("*/vars/*.yml")):
        if COPY.search(path.read_text()):
            problems.append(
                "%s: copies scc_instance_type into a role variable (read scc_hardware)" % path.relative_to(roles)
            )
    for path in (
        sorted(roles.glob("*/defaults/*.yml"))
        + sorted(roles.glob("*/vars/*.yml"))
        + sorted(p for p in roles.glob("*/tasks/*.yml") if p.name != "validate.yml")
    ):
        text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
        for pattern in FORBIDDEN:
            if pattern.search(text):
                problems.append("%s: resolves the hardware itself (%s)" % (path.relative_to(roles), pattern.pattern))
    return problems


def test_every_hardware_default_reads_the_resolved_fact():
    assert offenders() == []


def test_the_list_is_not_empty_and_covers_the_launchers_and_rdma():
    listed = set(ROLE_DEFAULTS) | set(RESOLVED_IN)
    for name in ("bert_launch_gpu_compute_capability", "bert_launch_nccl_env", "resnet_launch_nccl_env",
                 "rdma_stack_source", "rdma_bandwidth_link_rate_gbps", "rdma_bandwidth_qp_count", "nccl_check_link_rate_gbps",
                 "gpu_health_expected_gpus"):  # fmt: skip
        assert name in listed
    found = [name for name in _defaults(ROLES) if HARDWARE_NAME.search(name)]
    assert len(found) >= len(ROLE_DEFAULTS) + len(RESOLVED_IN)


def test_argument_specs_document_the_same_default():
    """A str option shows the lookup; another type (the docs schema reads no template there) the fact's value with
    nothing declared, and its description names the fact."""
    bare = cluster_fact(None)
    defaults = _defaults(ROLES)
    for name, key in ROLE_DEFAULTS.items():
        role = defaults[name][0]
        spec = yaml.safe_load((ROLES / role / "meta" / "argument_specs.yml").read_text())
        option = spec["argument_specs"]["main"]["options"][name]
        if option.get("type", "str") == "str":
            assert option["default"] == _lookup(key), name
        else:
            assert option["default"] == fact_value(bare, key), name
            assert "scc_hardware" in " ".join(option["description"]), name


@pytest.mark.parametrize(
    "role, old, new, expected",
    [
        ("bert_launch", _lookup("compute_capability"), "'7.0'", "does not read"),
        ("rdma_stack", _lookup("rdma_stack.source"), "distro", "does not read"),
        ("nccl_check", "nccl_check_link_rate_gbps: null", "nccl_check_link_rate_gbps: 25", "is hard-coded"),
        ("rdma_bandwidth", "rdma_bandwidth_qp_count: null", "rdma_bandwidth_qp_count: 1", "is hard-coded"),
        ("bert_launch", "bert_launch_env: {}", "bert_launch_env: {}\nbert_launch_nvlink_count: 6", "not classified"),
        (
            "nvidia_driver",
            "{{ nvidia_driver_gpu_compute_capability | scc.training.nvidia_kernel_modules }}",
            "proprietary",
            "is not computed from nvidia_driver_gpu_compute_capability",
        ),
    ],
)
def test_a_hard_coded_default_is_caught(tmp_path, role, old, new, expected):
    roles = tmp_path / "roles"
    shutil.copytree(ROLES, roles)
    defaults = roles / role / "defaults" / "main.yml"
    text = defaults.read_text()
    assert old in text
    defaults.write_text(text.replace(old, new, 1))
    assert any(expected in line for line in offenders(roles))


@pytest.mark.parametrize(
    "role, line, expected",
    [
        # The variables 0.4.0 removed, as they were.
        ("gpu_health", "gpu_health_instance_type: \"{{ scc_instance_type | default('', true) }}\"", "second route in"),
        ("rdma_stack", "rdma_stack_type: \"{{ scc_instance_type }}\"", "copies scc_instance_type"),
        ("ib_check", "ib_check_instance_type: ''", "ib_check_instance_type is a second route in"),
    ],
)
def test_a_roles_own_instance_type_is_caught(tmp_path, role, line, expected):
    roles = tmp_path / "roles"
    shutil.copytree(ROLES, roles)
    defaults = roles / role / "defaults" / "main.yml"
    defaults.write_text(defaults.read_text() + line + "\n")
    assert any(expected in problem for problem in offenders(roles)), offenders(roles)


def test_a_second_resolution_of_the_instance_type_is_caught(tmp_path):
    roles = tmp_path / "roles"
    shutil.copytree(ROLES, roles)
    path = roles / "cuda" / "vars" / "main.yml"
    path.write_text(
        path.read_text().replace(
            _lookup("compute_capability")[3:-3],
            "(scc_instance_type | default('sccgn6', true) | scc.training.instance_profile).compute_capability",
        )
    )
    assert any("cuda/vars/main.yml: resolves the hardware itself" in line for line in offenders(roles))
