# -*- coding: utf-8 -*-
"""Unit tests for the supported-instance table (module_utils/instance_families.py) and its filter
``scc.training.instance_profile``."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter.instances import FilterModule, hardware_defaults, instance_profile
from ansible_collections.scc.training.plugins.module_utils import _gpu_matrix
from ansible_collections.scc.training.plugins.module_utils import instance_families as m


def _tags(profile):
    return {b["tag"]: (b["torch_min"], b["torch_max"]) for b in profile["torch_cuda_builds"]}


def _dotted(profile, key):
    value = profile
    for part in key.split("."):
        value = value[part]
    return value


# --- the table itself --------------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(m.FAMILIES))
def test_every_family_is_consistent(family):
    facts = m.FAMILIES[family]
    assert facts["compute_capability"] in _gpu_matrix.ARCH_CUDA_RANGE
    assert all(m.family_of(t) == family for t in facts["instance_types"])
    assert facts.get("gpus_by_type", {}).keys() <= set(facts["instance_types"])
    assert {key for group in facts["sources"].values() for key in group} <= set(m.SOURCES)
    assert {"gpu", "rdma", "rdma_stack", "nccl_env"} <= set(facts["sources"])
    rdma = facts["rdma"]
    assert rdma["kind"] in ("roce_v2", "erdma")
    if rdma["ports"] and rdma["rate_gbps"]:
        assert rdma["ports"] * rdma["rate_gbps"] == rdma["total_gbps"]
    # The active ports are discovered on the hosts, never written down here.
    assert "NCCL_IB_HCA" not in facts["nccl_env"]
    profile = m.profile(family)
    for key in facts["unconfirmed"]:
        _dotted(profile, key)  # names a real key of the profile
    assert profile["sources"] and all(s for s in profile["sources"])


@pytest.mark.parametrize("family", sorted(m.FAMILIES))
def test_driver_branch_fits_the_version_matrix_and_every_listed_wheel(family):
    profile = m.profile(family)
    check = _gpu_matrix.check_stack(
        {"driver": profile["driver_branch"], "compute_capability": profile["compute_capability"]}
    )
    assert check["ok"], check["problems"]
    assert profile["torch_cuda_builds"], "no PyTorch build runs on %s" % family
    for build in profile["torch_cuda_builds"]:
        assert int(profile["driver_branch"]) >= int(build["driver_min_branch"])


def test_roce_gid_is_discovered_erdma_gid_is_alibabas():
    assert m.profile("sccgn6")["rdma"]["gid_index"] is None
    assert "NCCL_IB_GID_INDEX" not in m.profile("sccgn6")["nccl_env"]
    erdma = m.profile("ebmgn8is")
    assert erdma["rdma"]["gid_index"] == 1 and erdma["nccl_env"]["NCCL_IB_GID_INDEX"] == "1"
    assert erdma["rdma"]["mtu"] == {"jumbo_frames": 8500, "standard": 1400}
    assert erdma["nccl_min_version"] == "2.19"


# --- profiles ----------------------------------------------------------------------------


def test_sccgn6_profile():
    profile = m.profile("ecs.sccgn6.24xlarge")
    assert list(profile) == list(m.PROFILE_KEYS)
    assert profile["family"] == "sccgn6" and profile["instance_type"] == "ecs.sccgn6.24xlarge"
    assert (profile["compute_capability"], profile["gpus_per_node"], profile["nvlink"]) == ("7.0", 8, True)
    assert profile["rdma"]["kind"] == "roce_v2" and profile["rdma"]["provider"] == "mlx5"
    assert (profile["rdma"]["ports"], profile["rdma"]["rate_gbps"], profile["rdma"]["total_gbps"]) == (2, 25, 50)
    assert (profile["driver_branch"], profile["driver_branch_max"]) == ("580", "580")
    assert profile["rdma_stack"]["source"] == "doca-ofed"
    assert profile["nccl_env"] == {"NCCL_SOCKET_IFNAME": "eth0"}


@pytest.mark.parametrize("value", ["ecs.sccgn6.24xlarge", "sccgn6", "ecs.sccgn6", " sccgn6.24xlarge "])
def test_type_or_family_find_the_family(value):
    assert m.profile(value)["family"] == "sccgn6"
    assert m.family_of(value) == "sccgn6"


def test_v100_builds_are_cu126_to_2_14_and_cu128_to_2_10():
    # torch 2.13.0 + 12.6 on 7.0 fits; 2.10.0 + 12.8 fits; 2.11.0 + 12.8, any 13.x, and 2.15 do not.
    assert _tags(m.profile("7.0")) == {"cu126": ("2.8", "2.14"), "cu128": ("2.8", "2.10")}


def test_hopper_and_blackwell_builds():
    # The stable builds of the version matrix: cu130 stable from 2.11, cu132 from 2.14 (2.15 unpublished).
    assert _tags(m.profile("ebmgn8v")) == {
        "cu126": ("2.8", "2.14"),
        "cu128": ("2.8", "2.11"),
        "cu130": ("2.11", "2.14"),
        "cu132": ("2.14", "2.14"),
    }
    # No sm_120 in the CUDA 12.6 builds, and sm_90 code does not run on 12.0.
    assert "cu126" not in _tags(m.profile("ebmgn9g"))


def test_ada_runs_sm_86_code():
    # L20 (8.9): the cu126 wheels carry sm_86, which runs on 8.9 (same major, higher minor).
    assert "cu126" in _tags(m.profile("ebmgn8is"))


def test_builds_carry_index_and_driver():
    builds = {b["tag"]: b for b in m.profile("9.0")["torch_cuda_builds"]}
    assert builds["cu126"]["index_url"] == "https://download.pytorch.org/whl/cu126"
    assert (builds["cu128"]["driver_min_branch"], builds["cu130"]["driver_min_branch"]) == ("525", "580")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("7.0", "7.0"),
        (7.0, "7.0"),
        (7, "7.0"),
        ("sm_70", "7.0"),
        ("70", "7.0"),
        ("12", "12.0"),
        ("120", "12.0"),
        (8.9, "8.9"),
    ],
)
def test_compute_capability_forms(value, expected):
    assert m.compute_capability(value) == expected
    assert m.profile(value)["compute_capability"] == expected


def test_compute_capability_profile_has_gpu_keys_only():
    profile = m.profile("7.0")
    assert list(profile) == list(m.PROFILE_KEYS)
    assert profile["family"] is None and profile["rdma"] is None and profile["nccl_env"] == {}
    assert profile["driver_branch"] == "580" and profile["sources"]


def test_newer_gpus_get_the_long_term_branch_without_a_cap():
    profile = m.profile("ebmgn7ex")
    assert (profile["driver_branch"], profile["driver_branch_max"]) == ("580", None)


def test_profile_is_a_copy():
    m.profile("ebmgn8v")["nccl_env"]["NCCL_IB_GID_INDEX"] = "9"
    m.profile("ebmgn8v")["rdma"]["mtu"]["standard"] = 1
    assert m.profile("ebmgn8v")["nccl_env"]["NCCL_IB_GID_INDEX"] == "1"
    assert m.profile("ebmgn8v")["rdma"]["mtu"]["standard"] == 1400


def test_unconfirmed_keys_are_listed():
    assert "compute_capability" in m.profile("ebmgn9gc")["unconfirmed"]
    assert "rdma.ports" in m.profile("sccgn6ne")["unconfirmed"]
    assert m.profile("sccgn6ne")["rdma"]["ports"] is None


# --- refusals name the variable ----------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "name", "words"),
    [
        (
            "ecs.gn6i-c4g1.xlarge",
            None,
            ["scc_instance_type=", "'gn6i-c4g1'", "supported: ebmgn7ex", "scc_gpu_compute_capability"],
        ),
        (
            "ecs.foo.2xlarge",
            "ecs_instance_type",
            ["ecs_instance_type='ecs.foo.2xlarge'", "not in the supported-instance table"],
        ),
        ("ecs.sccgn6.12xlarge", None, ["scc_instance_type='ecs.sccgn6.12xlarge'", "ecs.sccgn6.24xlarge"]),
        ("3.5", None, ["scc_gpu_compute_capability='3.5'", "not in the version matrix", "7.0"]),
        ("sm_35", "nvidia_driver_gpu_compute_capability", ["nvidia_driver_gpu_compute_capability='sm_35'"]),
        ("", None, ["scc_instance_type is empty"]),
        (None, "ecs_instance_type", ["ecs_instance_type is empty"]),
    ],
)
def test_refusals_name_the_variable(value, name, words):
    with pytest.raises(ValueError) as err:
        m.profile(value, name)
    for word in words:
        assert word in str(err.value)


# --- the filter --------------------------------------------------------------------------


def test_filter_is_registered():
    filters = FilterModule().filters()
    assert filters == {
        "instance_profile": instance_profile,
        "nvidia_kernel_modules": filters["nvidia_kernel_modules"],
        "hardware_defaults": hardware_defaults,
        "scc_cluster_input_problems": filters["scc_cluster_input_problems"],
        "cluster_hardware": filters["cluster_hardware"],
        "hardware_contradictions": filters["hardware_contradictions"],
    }
    assert filters["scc_cluster_input_problems"]({"scc_jumbo_frames": "false"}) == []


def test_filter_returns_the_profile():
    assert instance_profile("ecs.ebmgn7ex.32xlarge") == m.profile("ecs.ebmgn7ex.32xlarge")


def test_filter_errors_name_the_filter():
    with pytest.raises(AnsibleFilterError, match=r"^instance_profile: scc_instance_type='ecs\.foo\.2xlarge': "):
        instance_profile("ecs.foo.2xlarge")
    with pytest.raises(
        AnsibleFilterError,
        match=r"^instance_profile: scc_instance_type \(\{'family': 'sccgn6'\}\) must be a string: .*not a dict$",
    ):
        instance_profile({"family": "sccgn6"})
    with pytest.raises(AnsibleFilterError, match=r"^instance_profile: name must be a variable name, got int$"):
        instance_profile("sccgn6", 3)
    # Issue 36: a number passed for a compute capability (8 -> 8.0) instead of being refused.
    with pytest.raises(
        AnsibleFilterError, match=r"^instance_profile: scc_instance_type \(8\) must be a string: .*not a int$"
    ):
        instance_profile(8)
    with pytest.raises(AnsibleFilterError, match=r"^instance_profile: x_instance_type \(True\) must be a string"):
        instance_profile(True, "x_instance_type")


def test_declared_problems_names_the_variable_or_is_empty():
    assert m.declared_problems("", "x_instance_type") == m.declared_problems(None, "x") == []
    assert m.declared_problems("ecs.ebmgn8v.48xlarge", "x_instance_type") == []
    (problem,) = m.declared_problems("ecs.gn6i-c4g1.xlarge", "x_instance_type (scc_instance_type)")
    assert problem.startswith("x_instance_type (scc_instance_type)='ecs.gn6i-c4g1.xlarge': instance family 'gn6i-c4g1'")
    # Issue 36: a number or a boolean is refused for its type, naming the variable and the value.
    (problem,) = m.declared_problems(8, "x_instance_type (scc_instance_type)")
    assert problem == (
        "x_instance_type (scc_instance_type) (8) must be a string naming an instance type or family such as "
        "'ecs.sccgn6.24xlarge', not a int."
    )


class _TaggedInt(int):
    """Stands in for ansible-core 2.19's templated int (_AnsibleTaggedInt): a subclass whose name means nothing."""


def test_declared_problems_judges_the_type_on_scc_instance_type_as_given():
    """ansible-core 2.16 to 2.18 render the role's templated copy of scc_instance_type: 8 as the string "8": the type
    is judged on scc_instance_type itself (issue 37), with plain type names on every version."""
    name = "x_instance_type (scc_instance_type)"
    (problem,) = m.declared_problems("8", name, 8)
    assert (
        problem.startswith(name + " (8) must be a string naming an instance type or family") and "not a int." in problem
    )
    (problem,) = m.declared_problems(_TaggedInt(8), name, _TaggedInt(8))
    assert problem.endswith("not a int.")
    for value, kind in ((8.0, "float"), (True, "bool"), (["a"], "list"), ({"a": 1}, "dict")):
        (problem,) = m.declared_problems(str(value), name, value)
        assert problem.endswith("not a %s." % kind), problem
    assert m.declared_problems("ecs.sccgn6.24xlarge", name, "ecs.sccgn6.24xlarge") == []
    # Set on the role, unset cluster-wide: the role's own value is judged.
    assert m.declared_problems("sccgn6", name, None) == []
    (problem,) = m.declared_problems(7, name, None)
    assert problem.endswith("not a int.")


@pytest.mark.parametrize("value", ["8", "7.0", "sm_90"])
def test_declared_problems_refuses_a_compute_capability_for_an_instance_type(value):
    """A role that takes an instance type resolves its family (hardware_defaults): a compute capability has none.
    It crashed gpu_health's and ib_check's checks ("object of type 'NoneType' has no len()"), naming nothing."""
    (problem,) = m.declared_problems(value, "x_instance_type (scc_instance_type)")
    assert problem.startswith(
        "x_instance_type (scc_instance_type) (%r) is a compute capability, not an instance type" % value
    )
    assert "scc_gpu_compute_capability" in problem and "sccgn6" in problem


def test_cluster_input_problems_judge_the_instance_type_against_the_table():
    """Issue 35: the roles read the instance type from scc_instance_type alone (their copies were removed): it is
    judged once, here, by type and against the table; a key ending in _instance_type is no copy any more."""
    problems = FilterModule().filters()["scc_cluster_input_problems"]
    assert problems({"scc_instance_type": None, "x_instance_type": "7.0"}) == []
    assert problems({"scc_instance_type": "ebmgn8v"}) == []
    (problem,) = problems({"scc_instance_type": "7.0"})
    assert problem.startswith("scc_instance_type ('7.0') is a compute capability"), problem
    (problem,) = problems({"scc_instance_type": "ecs.gn6i-c4g1.xlarge"})
    assert problem.startswith("scc_instance_type='ecs.gn6i-c4g1.xlarge': instance family 'gn6i-c4g1'"), problem
    (problem,) = problems({"scc_instance_type": "ecs.gn6i-c4g1.xlarge", "scc_jumbo_frames": "maybe"})[1:]
    assert problem == "scc_jumbo_frames ('maybe') must be true or false."


@pytest.mark.parametrize(
    ("settings", "problems"),
    [
        ({}, []),
        ({"scc_instance_type": None, "scc_jumbo_frames": "false"}, []),
        ({"scc_instance_type": "ecs.ebmgn8v.48xlarge", "scc_jumbo_frames": "yes"}, []),
        ({"scc_instance_type": 8}, ["scc_instance_type (8) must be a string"]),
        ({"scc_instance_type": False}, ["scc_instance_type (False) must be a string"]),
        ({"scc_jumbo_frames": "maybe"}, ["scc_jumbo_frames ('maybe') must be true or false."]),
        ({"scc_instance_type": 7.0, "scc_jumbo_frames": None}, ["scc_instance_type (7.0)", "scc_jumbo_frames (None)"]),
    ],
)
def test_cluster_input_problems_name_the_variable_and_the_value(settings, problems):
    found = m.cluster_input_problems(settings)
    assert len(found) == len(problems) and all(found[i].startswith(p) for i, p in enumerate(problems)), found


# --- kernel modules and the GPU VM families (issue 35) ----------------------------------------


@pytest.mark.parametrize(
    ("value", "flavour"),
    [
        ("7.0", "proprietary"),  # V100: the open modules do not run before Turing
        ("7.5", "open"),
        ("8.9", "open"),
        ("9.0", "open"),
        ("10.0", "open"),  # Blackwell: open only
        ("12.0", "open"),
        (["7.0", "12.0"], "proprietary"),  # mixed: NVIDIA says proprietary; _gpu_matrix then refuses the Blackwell
    ],
)
def test_kernel_modules_follow_the_gpu(value, flavour):
    assert m.kernel_modules(value) == flavour


@pytest.mark.parametrize(
    ("value", "flavour"),
    [("sccgn6", "proprietary"), ("ecs.ebmgn9g.64xlarge", "open"), ("ebmgn8v", "open"), ("ecs.gn8is.2xlarge", "open")],
)
def test_every_profile_names_its_kernel_modules_and_the_matrix_accepts_them(value, flavour):
    profile = m.profile(value)
    assert profile["kernel_modules"] == flavour
    check = _gpu_matrix.check_stack({"kernel_modules": flavour, "compute_capability": profile["compute_capability"]})
    assert check["ok"], check["problems"]


@pytest.mark.parametrize(
    ("instance_type", "family", "gpus"),
    [
        ("ecs.gn8is.2xlarge", "gn8is", 1),
        ("ecs.gn8is-2x.8xlarge", "gn8is", 2),
        ("ecs.gn8is-8x.32xlarge", "gn8is", 8),
        ("ecs.gn8v.6xlarge", "gn8v", 1),
        ("ecs.gn8v-4x.24xlarge", "gn8v", 4),
        ("ecs.ebmgn8v.48xlarge", "ebmgn8v", 8),
    ],
)
def test_vm_sizes_carry_their_gpu_count(instance_type, family, gpus):
    profile = m.profile(instance_type)
    assert (profile["family"], profile["instance_type"], profile["gpus_per_node"]) == (family, instance_type, gpus)


def test_gpu_vms_are_erdma_with_what_the_sources_give():
    gn8is, gn8v = m.profile("gn8is"), m.profile("gn8v")
    # PAI's eRDMA guide: 1 eRDMA NIC on gn8is.*; none given for gn8v, and no ERI rate for either.
    assert gn8is["rdma"]["kind"] == gn8v["rdma"]["kind"] == "erdma"
    assert gn8is["rdma"]["ports"] == 1 and gn8v["rdma"]["ports"] is None
    assert "rdma.ports" in gn8v["unconfirmed"] and "rdma.ports" not in gn8is["unconfirmed"]
    assert "rdma.rate_gbps" in gn8is["unconfirmed"] and "rdma.rate_gbps" in gn8v["unconfirmed"]
    assert (gn8is["nvlink"], gn8v["nvlink"]) == (False, True)
    assert gn8is["uefi_only"] is False and gn8v["uefi_only"] is False
    assert {"gpu", "compute_capability"} <= set(gn8v["unconfirmed"])


def test_a_size_of_another_family_is_refused():
    with pytest.raises(ValueError, match="not an instance type of family gn8is"):
        m.profile("ecs.gn8is-3x.12xlarge")


@pytest.mark.parametrize(
    ("value", "flavour"),
    [("sm_90", "open"), (9.0, "open"), ("3.5", "proprietary"), ("not a cc", "proprietary"), ([], "proprietary")],
)
def test_kernel_modules_never_fail_on_a_bad_compute_capability(value, flavour):
    # The default of nvidia_driver_kernel_modules: a bad compute capability is the version matrix's to refuse by
    # name, so this one must not fail first (3.5 is Kepler: proprietary; garbage reads as no GPU).
    assert m.kernel_modules(value) == flavour


def test_nvidia_kernel_modules_filter():
    from ansible_collections.scc.training.plugins.filter.instances import nvidia_kernel_modules

    assert FilterModule().filters()["nvidia_kernel_modules"] is nvidia_kernel_modules
    assert nvidia_kernel_modules("7.0") == "proprietary" and nvidia_kernel_modules("12.0") == "open"
    assert nvidia_kernel_modules(["8.9", "9.0"]) == "open"
    with pytest.raises(AnsibleFilterError, match="nvidia_kernel_modules"):
        nvidia_kernel_modules({"cc": "7.0"})
