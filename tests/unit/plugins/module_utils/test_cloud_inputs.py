"""cloud_inputs.problems: every scc_cloud_* variable of provision.yml judged before any API call (issues 36.7, 34.7).

One table of bad inputs, each refused with one sentence that names its variable, its value and one rule, and no
unrelated variable (tests/refusal_names.py); odd types (null, lists, mappings, numbers, booleans, huge strings,
U+2028 and other line ends) for every class of input, none raising. The shipped example and the defaults pass.
"""

from __future__ import annotations

import pytest
import yaml

from ansible_collections.scc.training.plugins.filter import cloud as cloud_filters
from ansible_collections.scc.training.plugins.module_utils import cloud_inputs
from tests.refusal_names import ROOT, assert_names_only

DEFAULTS = yaml.safe_load((ROOT / "roles/scc_cloud/defaults/main.yml").read_text())
EXAMPLE = yaml.safe_load((ROOT / "inventories/cloud/cloud.example.yml").read_text())
GOOD = {**DEFAULTS, **EXAMPLE, "scc_cloud_ssh_source_cidr": "192.168.0.0/16", "scc_cloud_period": None}
# The templated defaults as Ansible renders them with the example: scc_cloud_jumbo_frames follows scc_jumbo_frames.
GOOD["scc_cloud_jumbo_frames"] = EXAMPLE["scc_jumbo_frames"]
GOOD["scc_cloud_image_id"] = "aliyun_3_x64_20G_uefi_alibase_20250101.vhd"
HUGE = "a" * 100_000
LINE_ENDS = ("\n", "\r", "\u2028", "\u2029", "\x85", "\x00")
# Odd values for an input that must be a string.
ODD = {"null": None, "list": ["a"], "dict": {"a": 1}, "int": 7, "float": 2.5, "true": True}


def case(variable, value, fragment, related=(), **others):
    return (dict(others, **{variable: value}), variable, fragment, tuple(related))


CASES = {
    # The cluster name: prefix of every resource name (CreateSecurityGroup/CreateHpcCluster: a letter first).
    "name_short": case("scc_cloud_name", "b", "2 to 31 characters"),
    "name_long": case("scc_cloud_name", "b" * 32, "2 to 31 characters"),
    "name_upper": case("scc_cloud_name", "Bert", "start with a letter"),
    "name_digit_first": case("scc_cloud_name", "1bert", "start with a letter"),
    "name_underscore": case("scc_cloud_name", "my_bert", "only a-z"),
    "name_http": case("scc_cloud_name", "http://x", "only a-z"),
    "name_trailing_hyphen": case("scc_cloud_name", "bert-", "must not end with '-'"),
    "name_double_hyphen": case("scc_cloud_name", "be--rt", "'--'"),
    "name_huge": case("scc_cloud_name", HUGE, "(100000 characters)"),
    "name_newline": case("scc_cloud_name", "bert\nx", "only a-z"),
    "name_u2028": case("scc_cloud_name", "bert\u2028x", "only a-z"),
    # Region and zone.
    "region_upper": case("scc_cloud_region", "CN-SHANGHAI", "region ID"),
    "region_no_dash": case("scc_cloud_region", "shanghai", "region ID"),
    "region_trailing": case("scc_cloud_region", "cn-shanghai-", "region ID"),
    "region_space": case("scc_cloud_region", "cn shanghai", "region ID"),
    "region_u2028": case("scc_cloud_region", "cn-shanghai\u2028", "region ID"),
    "zone_other_region": case("scc_cloud_zone", "cn-beijing-a", "zone of scc_cloud_region", ["scc_cloud_region"]),
    "zone_is_region": case("scc_cloud_zone", "cn-shanghai", "zone of scc_cloud_region", ["scc_cloud_region"]),
    "zone_two_letters_glued": case("scc_cloud_zone", "cn-shanghaibb", "zone of", ["scc_cloud_region"]),
    "zone_upper": case("scc_cloud_zone", "cn-shanghai-B", "zone of", ["scc_cloud_region"]),
    # Tags: managed-by is teardown's guard; RunInstances' Tag.N limits.
    "tags_no_marker": case("scc_cloud_tags", {"scc-cluster": "bert"}, "managed-by: scc.training"),
    "tags_wrong_marker": case("scc_cloud_tags", {"managed-by": "me"}, "managed-by: scc.training"),
    "tags_too_many": case(
        "scc_cloud_tags", {"managed-by": "scc.training", **{"k%d" % i: "v" for i in range(19)}}, "more than 19"
    ),
    "tags_aliyun_key": case("scc_cloud_tags", {"managed-by": "scc.training", "aliyun-x": "v"}, "aliyun or acs:"),
    "tags_acs_key": case("scc_cloud_tags", {"managed-by": "scc.training", "acs:x": "v"}, "aliyun or acs:"),
    "tags_long_key": case("scc_cloud_tags", {"managed-by": "scc.training", "k" * 129: "v"}, "1 to 128"),
    "tags_url_value": case("scc_cloud_tags", {"managed-by": "scc.training", "a": "https://x"}, "no http://"),
    "tags_long_value": case("scc_cloud_tags", {"managed-by": "scc.training", "a": HUGE}, "at most 128"),
    "tags_newline_value": case("scc_cloud_tags", {"managed-by": "scc.training", "a": "x\u2028y"}, "one line"),
    "tags_list_value": case("scc_cloud_tags", {"managed-by": "scc.training", "a": [1]}, "a tag value is a string"),
    "tags_null_value": case("scc_cloud_tags", {"managed-by": "scc.training", "a": None}, "a tag value is a string"),
    "tags_bool_value": case("scc_cloud_tags", {"managed-by": "scc.training", "a": True}, "a tag value is a string"),
    "tags_number_key": case("scc_cloud_tags", {"managed-by": "scc.training", 5: "v"}, "1 to 128"),
    # Endpoints: empty, or a host (with a scheme and a port for the emulator).
    "ecs_endpoint_path": case("scc_cloud_ecs_endpoint", "http://h/x/y", "host name"),
    "nas_endpoint_space": case("scc_cloud_nas_endpoint", "nas cn", "host name"),
    "cs_endpoint_newline": case("scc_cloud_cs_endpoint", "cs.example\n", "host name"),
    "vpc_endpoint_ftp": case("scc_cloud_vpc_endpoint", "ftp://vpc.example", "host name"),
    # The VPC's CIDR block (CreateVpc).
    "vpc_cidr_host_bits": case("scc_cloud_vpc_cidr", "192.168.1.0/16", "host bits", vswitch="-"),
    "vpc_cidr_not_cidr": case("scc_cloud_vpc_cidr", "192.168.0.0", "mask of 8 to 28"),
    "vpc_cidr_garbage": case("scc_cloud_vpc_cidr", "a.b.c.d/16", "IPv4 CIDR block"),
    "vpc_cidr_ipv6": case("scc_cloud_vpc_cidr", "fd00::/48", "not IPv6"),
    "vpc_cidr_mask_29": case("scc_cloud_vpc_cidr", "192.168.0.0/29", "mask of 8 to 28"),
    "vpc_cidr_mask_4": case("scc_cloud_vpc_cidr", "0.0.0.0/4", "mask of 8 to 28"),
    "vpc_cidr_loopback": case("scc_cloud_vpc_cidr", "127.0.0.0/16", "reserved range 127.0.0.0/8"),
    "vpc_cidr_cgnat": case("scc_cloud_vpc_cidr", "100.64.0.0/16", "reserved range 100.64.0.0/10"),
    "vpc_cidr_link_local": case("scc_cloud_vpc_cidr", "169.254.0.0/16", "reserved range"),
    "vpc_cidr_multicast": case("scc_cloud_vpc_cidr", "224.0.0.0/16", "reserved range"),
    # The vSwitch's (CreateVSwitch): mask 16 to 29, inside the VPC's, room for the nodes.
    "vswitch_outside_vpc": case(
        "scc_cloud_vswitch_cidr", "10.9.0.0/24", "inside scc_cloud_vpc_cidr", ["scc_cloud_vpc_cidr"]
    ),
    "vswitch_mask_30": case("scc_cloud_vswitch_cidr", "192.168.0.0/30", "mask of 16 to 29"),
    "vswitch_mask_15": case("scc_cloud_vswitch_cidr", "192.168.0.0/15", "mask of 16 to 29"),
    "vswitch_host_bits": case("scc_cloud_vswitch_cidr", "192.168.0.1/24", "host bits"),
    "vswitch_garbage": case("scc_cloud_vswitch_cidr", "192.168.0.0/24/1", "IPv4 CIDR block"),
    # Who may ssh (AuthorizeSecurityGroup SourceCidrIp).
    "ssh_world": case("scc_cloud_ssh_source_cidr", "0.0.0.0/0", "whole internet"),
    "ssh_garbage": case("scc_cloud_ssh_source_cidr", "office", "IPv4 CIDR block or address"),
    "ssh_ipv6": case("scc_cloud_ssh_source_cidr", "2001:db8::/32", "not IPv6"),
    "ssh_host_bits": case("scc_cloud_ssh_source_cidr", "10.1.2.3/8", "IPv4 CIDR block or address"),
    # A later list of CIDRs (scc_cloud_admin_cidrs) is judged alike when the spec has it.
    "admin_cidrs_string": case("scc_cloud_admin_cidrs", "10.0.0.0/8", "list of IPv4 CIDR blocks"),
    "admin_cidrs_world": case(
        "scc_cloud_admin_cidrs",
        ["10.0.0.0/8", "0.0.0.0/0"],
        "holds \"0.0.0.0/0\"",
        ["scc_cloud_admin_cidrs_allow_internet"],
    ),
    # The instance type against the supported-instance table.
    "type_no_prefix": case("scc_cloud_instance_type", "ebmgn8v.48xlarge", "ecs.<family>.<size>"),
    "type_family_only": case("scc_cloud_instance_type", "ecs.ebmgn8v", "ecs.<family>.<size>"),
    "type_unknown_size": case("scc_cloud_instance_type", "ecs.ebmgn8v.8xlarge", "not a size of family ebmgn8v"),
    "type_sccgn6_size": case("scc_cloud_instance_type", "ecs.sccgn6.8xlarge", "not a size of family sccgn6"),
    "type_upper": case("scc_cloud_instance_type", "ECS.EBMGN8V.48XLARGE", "ecs.<family>.<size>"),
    "type_blank": case("scc_cloud_instance_type", "", "ecs.<family>.<size>"),
    "type_u2028": case("scc_cloud_instance_type", "ecs.ebmgn8v.48xlarge\u2028", "ecs.<family>.<size>"),
    # Unknown family: its ERI count must be given by hand (DescribeInstanceTypes EriQuantity).
    "type_unknown_family_auto_eri": case(
        "scc_cloud_eri_count",
        "auto",
        "not in the supported-instance table",
        ["scc_cloud_instance_type"],
        scc_cloud_instance_type="ecs.gn7i.16xlarge",
    ),
    # The node count: whole, 0 only with the explicit word, at most 2000, room in the vSwitch.
    "count_negative": case("scc_cloud_instance_count", -1, "at least 0"),
    "count_over": case("scc_cloud_instance_count", 2001, "at most 2000", ["scc_cloud_vswitch_cidr"]),
    "count_float": case("scc_cloud_instance_count", 2.5, "whole number"),
    "count_text": case("scc_cloud_instance_count", "two", "whole number"),
    "count_bool": case("scc_cloud_instance_count", True, "whole number"),
    "count_zero": case(
        "scc_cloud_instance_count", 0, "scc_cloud_release_all_nodes: true", ["scc_cloud_release_all_nodes"]
    ),
    "count_beyond_vswitch": case(
        "scc_cloud_instance_count",
        100,
        "needs 300 addresses",
        ["scc_cloud_vswitch_cidr"],
        scc_cloud_vswitch_cidr="192.168.0.0/25",
    ),
    "release_all_maybe": case("scc_cloud_release_all_nodes", "maybe", "true or false"),
    # The image and the key pair (CreateKeyPair's rule).
    "image_blank": case("scc_cloud_image_id", "", "image ID"),
    "image_space": case("scc_cloud_image_id", "m-abc def", "image ID"),
    "image_newline": case("scc_cloud_image_id", "m-abc\n", "image ID"),
    "image_huge": case("scc_cloud_image_id", HUGE, "image ID"),
    "key_pair_digit_first": case("scc_cloud_key_pair_name", "1key", "starting with a letter"),
    "key_pair_one_char": case("scc_cloud_key_pair_name", "k", "2 to 128"),
    "key_pair_slash": case("scc_cloud_key_pair_name", "k/ey", "2 to 128"),
    "key_pair_http": case("scc_cloud_key_pair_name", "http://key", "2 to 128"),
    "key_pair_huge": case("scc_cloud_key_pair_name", "k" * 129, "2 to 128"),
    # ERIs, jumbo frames, the subscription (RunInstances Period per PeriodUnit).
    "eri_over": case("scc_cloud_eri_count", 3, "more than the 2 Elastic RDMA Interfaces"),
    "eri_negative": case("scc_cloud_eri_count", -1, "'auto' or a whole number"),
    "eri_word": case("scc_cloud_eri_count", "many", "'auto' or a whole number"),
    "eri_float": case("scc_cloud_eri_count", 1.5, "'auto' or a whole number"),
    "jumbo_maybe": case("scc_cloud_jumbo_frames", "maybe", "true or false"),
    "jumbo_list": case("scc_cloud_jumbo_frames", [True], "true or false"),
    "charge_other": case("scc_cloud_instance_charge_type", "Spot", "PostPaid or PrePaid"),
    "period_postpaid": case("scc_cloud_period", 1, "PrePaid only", ["scc_cloud_instance_charge_type"]),
    "period_missing": case(
        "scc_cloud_period", None, "is required with PrePaid", scc_cloud_instance_charge_type="PrePaid"
    ),
    "period_month_10": case(
        "scc_cloud_period", 10, "not a valid Month subscription", scc_cloud_instance_charge_type="PrePaid"
    ),
    "period_week_5": case(
        "scc_cloud_period",
        5,
        "not a valid Week subscription",
        ["scc_cloud_period_unit"],
        scc_cloud_instance_charge_type="PrePaid",
        scc_cloud_period_unit="Week",
    ),
    "period_float": case("scc_cloud_period", 1.5, "not a valid Month", scc_cloud_instance_charge_type="PrePaid"),
    "period_unit_year": case(
        "scc_cloud_period_unit", "Year", "Week or Month", scc_cloud_instance_charge_type="PrePaid", scc_cloud_period=1
    ),
    "auto_renew_postpaid": case("scc_cloud_auto_renew", True, "PrePaid only", ["scc_cloud_instance_charge_type"]),
    "auto_renew_maybe": case("scc_cloud_auto_renew", "sometimes", "true or false"),
    # CPFS: capacity 3600 GiB to 1 PiB in steps of 1200; the export path starts and ends with '/'.
    "cpfs_capacity_small": case("scc_cloud_cpfs_capacity", 1200, "at least 3600"),
    "cpfs_capacity_huge": case("scc_cloud_cpfs_capacity", 2_000_000, "at most 1048576"),
    "cpfs_capacity_step": case("scc_cloud_cpfs_capacity", 4000, "multiple of 1200"),
    "cpfs_capacity_float": case("scc_cloud_cpfs_capacity", 3600.5, "whole number"),
    "cpfs_capacity_text": case("scc_cloud_cpfs_capacity", "3.6T", "whole number"),
    "cpfs_capacity_economic_small": case(
        "scc_cloud_cpfs_capacity", 2400, "at least 3600", scc_cloud_cpfs_storage_type="economic"
    ),
    "cpfs_enabled_maybe": case("scc_cloud_cpfs_enabled", "maybe", "true or false"),
    "export_relative": case("scc_cloud_cpfs_nfs_export_path", "share/", "start and end with '/'"),
    "export_no_trailing": case("scc_cloud_cpfs_nfs_export_path", "/share", "start and end with '/'"),
    "export_dotdot": case("scc_cloud_cpfs_nfs_export_path", "/a/../", "'..'"),
    "export_double_slash": case("scc_cloud_cpfs_nfs_export_path", "//", "empty segments"),
    "export_too_long": case("scc_cloud_cpfs_nfs_export_path", "/" + "a/" * 600, "1 to 1024"),
    "export_newline": case("scc_cloud_cpfs_nfs_export_path", "/a\u2028b/", "one line"),
    "export_empty": case("scc_cloud_cpfs_nfs_export_path", "", "1 to 1024"),
    # The data-prep ECS and ACK, their switches read as Ansible reads them ("false" is false).
    "data_prep_type_scc": case(
        "scc_cloud_data_prep_instance_type",
        "ecs.sccgn6.24xlarge",
        "an SCC type",
        ["scc_cloud_data_prep_enabled"],
        scc_cloud_data_prep_enabled="true",
        scc_cloud_data_prep_image_id="m-1",
    ),
    "data_prep_type_list": case(
        "scc_cloud_data_prep_instance_type",
        ["ecs.g7.8xlarge"],
        "must be a string",
        scc_cloud_data_prep_enabled=True,
        scc_cloud_data_prep_image_id="m-1",
    ),
    "data_prep_disk_small": case(
        "scc_cloud_data_prep_system_disk_size",
        100,
        "309 to 2048",
        scc_cloud_data_prep_enabled=True,
        scc_cloud_data_prep_image_id="m-1",
    ),
    "data_prep_no_image": case(
        "scc_cloud_data_prep_image_id", "", "must name the image", scc_cloud_data_prep_enabled="yes"
    ),
    "data_prep_enabled_maybe": case("scc_cloud_data_prep_enabled", "maybe", "true or false"),
    "ack_version": case(
        "scc_cloud_ack_kubernetes_version",
        "latest",
        "1.32.1-aliyun.1",
        scc_cloud_ack_enabled=True,
        scc_cloud_key_pair_name="key",
    ),
    "ack_service_overlaps": case(
        "scc_cloud_ack_service_cidr",
        "192.168.0.0/20",
        "overlaps",
        ["scc_cloud_vpc_cidr"],
        scc_cloud_ack_enabled=True,
        scc_cloud_key_pair_name="key",
    ),
    "ack_service_number": case(
        "scc_cloud_ack_service_cidr", 172, "must be a string", scc_cloud_ack_enabled=True, scc_cloud_key_pair_name="k1"
    ),
    "ack_no_logon": case(
        "scc_cloud_ack_node_password", "", "must be set", ["scc_cloud_key_pair_name"], scc_cloud_ack_enabled="true"
    ),
    "ack_enabled_maybe": case("scc_cloud_ack_enabled", "maybe", "true or false"),
}
# Every input that must be a string, given each odd type: one sentence naming it, never an exception.
STRINGS = (
    "scc_cloud_name",
    "scc_cloud_region",
    "scc_cloud_zone",
    "scc_cloud_vpc_cidr",
    "scc_cloud_vswitch_cidr",
    "scc_cloud_ssh_source_cidr",
    "scc_cloud_instance_type",
    "scc_cloud_image_id",
    "scc_cloud_cpfs_nfs_export_path",
)
for _variable in STRINGS:
    for _kind in ("null", "list", "dict", "int"):
        CASES[f"{_variable[10:]}_{_kind}"] = case(_variable, ODD[_kind], "must be a string")
for _variable in ("scc_cloud_key_pair_name", "scc_cloud_ecs_endpoint"):
    for _kind in ("list", "dict", "float"):
        CASES[f"{_variable[10:]}_{_kind}"] = case(_variable, ODD[_kind], "must be a string")
for _kind in ("null", "list", "dict"):
    CASES[f"instance_count_{_kind}"] = case("scc_cloud_instance_count", ODD[_kind], "whole number")
    CASES[f"cpfs_capacity_{_kind}"] = case("scc_cloud_cpfs_capacity", ODD[_kind], "whole number")
    CASES[f"jumbo_frames_{_kind}"] = case("scc_cloud_jumbo_frames", ODD[_kind], "true or false")
for _kind in ("null", "list", "int", "true"):
    CASES[f"tags_{_kind}"] = case("scc_cloud_tags", ODD[_kind], "mapping of tag keys")
for _i, _end in enumerate(LINE_ENDS):
    CASES[f"zone_line_end_{_i}"] = case("scc_cloud_zone", "cn-shanghai-b" + _end, "zone of", ["scc_cloud_region"])
    CASES[f"vpc_cidr_line_end_{_i}"] = case("scc_cloud_vpc_cidr", "192.168.0.0/16" + _end, "CIDR block")
# An existing network by ID (issue 34.3 c), the known_hosts file and the host keys wait (issue 34.4).
CASES["vpc_id_name"] = case("scc_cloud_vpc_id", "my-vpc", "must be vpc- followed by")
CASES["vpc_id_upper"] = case("scc_cloud_vpc_id", "vpc-ABC", "must be vpc- followed by")
CASES["vpc_id_newline"] = case("scc_cloud_vpc_id", "vpc-abc\n", "must be vpc- followed by")
CASES["vswitch_id_prefix"] = case(
    "scc_cloud_vswitch_id", "vpc-abc", "must be vsw- followed by", scc_cloud_vpc_id="vpc-a1"
)
CASES["vswitch_id_without_vpc"] = case(
    "scc_cloud_vswitch_id", "vsw-abc", "needs scc_cloud_vpc_id", ["scc_cloud_vpc_id"]
)
CASES["security_group_id_list"] = case(
    "scc_cloud_security_group_id", ["sg-a"], "must be a string", scc_cloud_vpc_id="vpc-a1"
)
CASES["security_group_id_without_vpc"] = case(
    "scc_cloud_security_group_id", "sg-0123", "needs scc_cloud_vpc_id", ["scc_cloud_vpc_id"]
)
CASES["known_hosts_directory"] = case("scc_cloud_known_hosts_file", "/tmp/", "must name a file")
CASES["known_hosts_empty"] = case("scc_cloud_known_hosts_file", "", "must name a file")
CASES["known_hosts_null"] = case("scc_cloud_known_hosts_file", None, "must be a string")
CASES["known_hosts_u2028"] = case("scc_cloud_known_hosts_file", "/tmp/k\u2028x", "must be one line")
CASES["host_keys_timeout_zero"] = case("scc_cloud_host_keys_timeout", 0, "at least 1")
CASES["host_keys_timeout_float"] = case("scc_cloud_host_keys_timeout", 2.5, "whole number of seconds")
CASES["host_keys_timeout_true"] = case("scc_cloud_host_keys_timeout", True, "whole number of seconds")

# Issue 34.3 (b): the bastion way, scc_cloud_access: bastion with scc_cloud_admin_cidrs.
BASTION = {"scc_cloud_access": "bastion", "scc_cloud_admin_cidrs": ["203.0.113.0/24"]}
CASES["access_other"] = case("scc_cloud_access", "public", "must be vpc")
CASES["access_null"] = case("scc_cloud_access", None, "must be vpc")
CASES["access_list"] = case("scc_cloud_access", ["bastion"], "must be vpc")
CASES["admin_cidrs_missing"] = case(
    "scc_cloud_admin_cidrs",
    [],
    "is required with scc_cloud_access bastion",
    ["scc_cloud_access"],
    scc_cloud_access="bastion",
)
CASES["admin_cidrs_null"] = case(
    "scc_cloud_admin_cidrs", None, "is required with", ["scc_cloud_access"], scc_cloud_access="bastion"
)
CASES["admin_cidrs_internet"] = case(
    "scc_cloud_admin_cidrs",
    ["203.0.113.0/24", "0.0.0.0/0"],
    "from the whole internet",
    ["scc_cloud_admin_cidrs_allow_internet"],
    scc_cloud_access="bastion",
)
CASES["admin_cidrs_internet_vpc"] = case(
    "scc_cloud_admin_cidrs", ["0.0.0.0/0"], "from the whole internet", ["scc_cloud_admin_cidrs_allow_internet"]
)
CASES["admin_cidrs_string"] = case("scc_cloud_admin_cidrs", "203.0.113.0/24", "must be a list", **BASTION)
CASES["admin_cidrs_host_bits"] = case("scc_cloud_admin_cidrs", ["203.0.113.1/24"], "not an IPv4 CIDR block", **BASTION)
CASES["admin_cidrs_ipv6"] = case("scc_cloud_admin_cidrs", ["2001:db8::/32"], "not an IPv4 CIDR block", **BASTION)
CASES["admin_cidrs_name"] = case("scc_cloud_admin_cidrs", ["office"], "not an IPv4 CIDR block", **BASTION)
CASES["admin_cidrs_number"] = case("scc_cloud_admin_cidrs", [7], "not an IPv4 CIDR block", **BASTION)
CASES["admin_cidrs_line_end"] = case("scc_cloud_admin_cidrs", ["203.0.113.0/24\n"], "not an IPv4", **BASTION)
CASES["admin_cidrs_too_many"] = case(
    "scc_cloud_admin_cidrs", ["10.0.%d.0/24" % i for i in range(51)], "more than 50", **BASTION
)
CASES["admin_cidrs_allow_internet_word"] = case("scc_cloud_admin_cidrs_allow_internet", "maybe", "true or false")
CASES["bastion_instance_type_short"] = case(
    "scc_cloud_bastion_instance_type", "g7.large", "ecs.<family>.<size>", **BASTION
)
CASES["bastion_instance_type_null"] = case("scc_cloud_bastion_instance_type", None, "must be a string", **BASTION)
CASES["bastion_image_blank"] = case("scc_cloud_bastion_image_id", "m 1", "must be an image ID", **BASTION)
CASES["bastion_image_list"] = case("scc_cloud_bastion_image_id", ["m-1"], "must be a string", **BASTION)
# issue 34.3: the NAT gateway's EIP (AllocateEipAddress, pay-by-traffic: 1 to 200 Mbit/s).
CASES["nat_gateway_word"] = case("scc_cloud_nat_gateway", "maybe", "true or false")
CASES["nat_bandwidth_zero"] = case("scc_cloud_nat_bandwidth", 0, "must be at least 1")
CASES["nat_bandwidth_over"] = case("scc_cloud_nat_bandwidth", 201, "must be at most 200")
CASES["nat_bandwidth_bool"] = case("scc_cloud_nat_bandwidth", True, "must be 1 to 200")
CASES["nat_bandwidth_float"] = case("scc_cloud_nat_bandwidth", 1.5, "scc_cloud_nat_bandwidth")


def test_the_nat_gateways_bounds_pass():
    for bandwidth in (1, 200, "100"):
        assert cloud_inputs.problems(dict(GOOD, scc_cloud_nat_gateway=True, scc_cloud_nat_bandwidth=bandwidth)) == []


def test_the_bastion_way_passes():
    assert cloud_inputs.problems(dict(GOOD, **BASTION)) == []
    assert cloud_inputs.problems(dict(GOOD, **BASTION, scc_cloud_bastion_image_id="m-abc")) == []
    # 0.0.0.0/0 with the explicit word; the bastion's type and image are not judged without the bastion.
    anywhere = dict(GOOD, **BASTION)
    anywhere.update(scc_cloud_admin_cidrs=["0.0.0.0/0"], scc_cloud_admin_cidrs_allow_internet=True)
    assert cloud_inputs.problems(anywhere) == []
    assert cloud_inputs.problems(dict(GOOD, scc_cloud_access="vpc", scc_cloud_bastion_instance_type=None)) == []


def test_an_existing_network_by_id_passes():
    given = dict(GOOD, scc_cloud_vpc_id="vpc-a1", scc_cloud_vswitch_id="vsw-b2", scc_cloud_security_group_id="sg-c3")
    assert cloud_inputs.problems(given) == []


def test_the_shipped_example_and_the_defaults_pass():
    assert cloud_inputs.problems(GOOD) == []
    assert cloud_inputs.problems(dict(GOOD, scc_cloud_instance_type="ecs.sccgn6.24xlarge", scc_cloud_eri_count=0)) == []
    # A family outside the table with its ERI count given by hand; a zone glued to its region (ap-southeast-1a).
    assert cloud_inputs.problems(dict(GOOD, scc_cloud_instance_type="ecs.gn7i.16xlarge", scc_cloud_eri_count=0)) == []
    assert cloud_inputs.problems(dict(GOOD, scc_cloud_region="ap-southeast-1", scc_cloud_zone="ap-southeast-1a")) == []
    prepaid = dict(GOOD, scc_cloud_instance_charge_type="PrePaid", scc_cloud_period=12, scc_cloud_auto_renew=True)
    assert cloud_inputs.problems(prepaid) == []
    assert (
        cloud_inputs.problems(
            dict(
                GOOD,
                scc_cloud_cpfs_capacity=1_047_600,
                scc_cloud_instance_count=2000,
                scc_cloud_vswitch_cidr="192.168.0.0/16",
            )
        )
        == []
    )
    # "false" is false: neither the data-prep ECS nor ACK is judged (nor CPFS's capacity).
    off = dict(GOOD, scc_cloud_data_prep_enabled="false", scc_cloud_ack_enabled="no", scc_cloud_cpfs_enabled="false")
    assert cloud_inputs.problems(dict(off, scc_cloud_data_prep_image_id="", scc_cloud_cpfs_capacity=1)) == []


# --- make mutation's survivors of cloud_inputs (issue 36.8): each case sits on a rule's boundary ---
SCCGN6 = dict(scc_cloud_instance_type="ecs.sccgn6.24xlarge", scc_cloud_eri_count=0)
TINY_VSWITCH = dict(scc_cloud_vpc_cidr="192.168.0.0/16", scc_cloud_vswitch_cidr="192.168.0.0/29")
NINETEEN_TAGS = {"managed-by": "scc.training", **{"k%d" % i: "v" for i in range(18)}}
FIFTY_BLOCKS = ["10.%d.0.0/16" % i for i in range(50)]


CASES["vswitch_one_node_too_many"] = case(
    "scc_cloud_instance_count", 5, "needs 5 addresses (1 per node", ["scc_cloud_vswitch_cidr"], **SCCGN6, **TINY_VSWITCH
)
CASES["tags_key_129"] = case("scc_cloud_tags", {"managed-by": "scc.training", "k" * 129: "v"}, "1 to 128 characters")
CASES["tags_value_129"] = case("scc_cloud_tags", {"managed-by": "scc.training", "k": "v" * 129}, "at most 128")
CASES["export_path_1025"] = case("scc_cloud_cpfs_nfs_export_path", "/" + "a" * 1023 + "/", "1 to 1024 characters")
CASES["admin_cidrs_51"] = case("scc_cloud_admin_cidrs", FIFTY_BLOCKS + ["10.99.0.0/16"], "more than 50", **BASTION)
CASES["admin_cidrs_internet_then_bad"] = case(
    "scc_cloud_admin_cidrs",
    ["0.0.0.0/0", "10.0.0.1/8"],
    "holds \"10.0.0.1/8\", which is not",
    **dict(BASTION, scc_cloud_admin_cidrs_allow_internet=True),
)
CASES["extra_cidrs_not_a_list"] = case("scc_cloud_extra_cidrs", "10.0.0.0/8", "must be a list")
CASES["extra_cidrs_internet"] = case("scc_cloud_extra_cidrs", ["0.0.0.0/0"], "other than 0.0.0.0/0")
CASES["early_cidrs_bad"] = case("scc_cloud_a_cidrs", ["10.0.0.1/8"], "not an IPv4 CIDR block")
CASES["cpfs_capacity_switch_unset"] = case("scc_cloud_cpfs_capacity", 100, "must be at least 3600")
CASES["data_prep_type_not_text"] = case(
    "scc_cloud_data_prep_instance_type",
    7,
    "such as 'ecs.g7.8xlarge', not int",
    scc_cloud_data_prep_enabled=True,
    scc_cloud_data_prep_image_id="m-abc",
)
CASES["data_prep_image_not_text"] = case(
    "scc_cloud_data_prep_image_id", 7, "such as 'm-...', not int", scc_cloud_data_prep_enabled=True
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_bad_input_is_refused_naming_it_alone(name):
    change, variable, fragment, related = CASES[name]
    settings = dict(GOOD, **change)
    problems = cloud_inputs.problems(settings)
    assert len(problems) == 1, problems
    [message] = problems
    assert fragment in message, message
    assert_names_only(message, variable, related)
    assert "\n" not in message and "\u2028" not in message and len(message) < 700


def test_teardown_judges_only_its_own_variables():
    teardown = {k: GOOD[k] for k in ("scc_cloud_name", "scc_cloud_region", "scc_cloud_tags", "scc_cloud_cpfs_enabled")}
    assert cloud_inputs.problems(teardown) == []
    # The switches alone (teardown.yml's entry point): ACK and the data-prep ECS are not judged without their variables.
    assert cloud_inputs.problems(dict(teardown, scc_cloud_ack_enabled=True, scc_cloud_data_prep_enabled="yes")) == []
    assert cloud_inputs.problems(dict(teardown, scc_cloud_name="X")) == [
        "scc_cloud_name (\"X\") must be 2 to 31 characters (it prefixes every resource name)."
    ]


def test_several_bad_inputs_are_each_named_once():
    bad = dict(GOOD, scc_cloud_name=None, scc_cloud_cpfs_capacity=1, scc_cloud_period=3)
    problems = cloud_inputs.problems(bad)
    assert [p.split(" ", 1)[0] for p in problems] == ["scc_cloud_name", "scc_cloud_cpfs_capacity", "scc_cloud_period"]


def test_the_route_takes_a_mapping_only():
    from ansible_collections.scc.training.plugins.module_utils import role_problems

    assert role_problems.problems("scc_cloud", GOOD) == []
    assert role_problems.rules("scc_cloud") == ("cloud_inputs", "problems", None)
    assert cloud_inputs.problems("x") == ["the scc_cloud_* settings must be a mapping, not str."]


def test_ssh_rules_open_tcp_22_from_each_network_once():
    rules = cloud_filters.cloud_ssh_rules(["203.0.113.0/24", "192.168.0.7", "203.0.113.0/24"])
    assert rules == [
        {"ip_protocol": "tcp", "port_range": "22/22", "source_cidr_ip": "203.0.113.0/24"},
        {"ip_protocol": "tcp", "port_range": "22/22", "source_cidr_ip": "192.168.0.7/32"},
    ]
    assert cloud_filters.cloud_ssh_rules([]) == []
    with pytest.raises(Exception, match=r"cloud_ssh_rules: .*203\.0\.113\.1/24"):
        cloud_filters.cloud_ssh_rules(["203.0.113.1/24"])
    with pytest.raises(Exception, match="cloud_ssh_rules: input must be a list"):
        cloud_filters.cloud_ssh_rules("203.0.113.0/24")
    # With a description (provision.yml's mark on the nodes' rule from the bastion): on every rule.
    marked = cloud_filters.cloud_ssh_rules(["192.168.0.7", "192.168.0.8"], "SSH from bert-bastion (scc.training)")
    assert [r["description"] for r in marked] == ["SSH from bert-bastion (scc.training)"] * 2
    assert [r["source_cidr_ip"] for r in marked] == ["192.168.0.7/32", "192.168.0.8/32"]
    with pytest.raises(Exception, match="cloud_ssh_rules: description must be a string, not int"):
        cloud_filters.cloud_ssh_rules(["192.168.0.7"], 7)


@pytest.mark.parametrize(
    "change",
    [
        # A /29 holds 8 addresses, 4 of them the VSwitch's own: 4 nodes of one ENI each fit exactly.
        dict(SCCGN6, **TINY_VSWITCH, scc_cloud_instance_count=4),
        dict(scc_cloud_name="ab"),
        dict(scc_cloud_name="a" * 31),
        dict(SCCGN6, scc_cloud_vpc_cidr="192.168.0.0/28", scc_cloud_vswitch_cidr="192.168.0.0/29"),
        dict(scc_cloud_tags=NINETEEN_TAGS),
        dict(scc_cloud_tags={"managed-by": "scc.training", "k" * 128: "v" * 128}),
        dict(scc_cloud_cpfs_nfs_export_path="/" + "a" * 1022 + "/"),
        dict(scc_cloud_access="bastion", scc_cloud_admin_cidrs=FIFTY_BLOCKS),
        dict(scc_cloud_host_keys_timeout=1),
        dict(scc_cloud_instance_count=0, scc_cloud_release_all_nodes=True),
        dict(scc_cloud_vpc_id=None, scc_cloud_vswitch_id="", scc_cloud_security_group_id=None),
        dict(scc_cloud_extra_cidrs=["10.0.0.0/8", "192.168.1.0/24"]),
    ],
)
def test_a_value_on_a_rules_boundary_passes(change):
    assert cloud_inputs.problems(dict(GOOD, **change)) == []


def test_a_switch_left_unset_reads_as_its_default():
    # scc_cloud_cpfs_enabled unset: CPFS is on (its default), so its capacity is judged.
    settings = {k: v for k, v in GOOD.items() if k != "scc_cloud_cpfs_enabled"}
    assert any(
        p.startswith("scc_cloud_cpfs_capacity")
        for p in cloud_inputs.problems(dict(settings, scc_cloud_cpfs_capacity=100))
    )
    # scc_cloud_auto_renew unset: off, and nothing to read.
    settings = {k: v for k, v in GOOD.items() if k != "scc_cloud_auto_renew"}
    assert cloud_inputs.problems(settings) == []
    # scc_cloud_admin_cidrs_allow_internet unset: 0.0.0.0/0 is refused.
    settings = {k: v for k, v in dict(GOOD, **BASTION).items() if k != "scc_cloud_admin_cidrs_allow_internet"}
    (problem,) = cloud_inputs.problems(dict(settings, scc_cloud_admin_cidrs=["0.0.0.0/0"]))
    assert "whole internet" in problem


def test_a_bad_switch_beside_the_rule_it_guards_is_named_once_without_a_crash():
    (problem,) = cloud_inputs.problems(dict(GOOD, scc_cloud_instance_count=0, scc_cloud_release_all_nodes="maybe"))
    assert problem.startswith("scc_cloud_release_all_nodes")
    internet = dict(BASTION, scc_cloud_admin_cidrs=["0.0.0.0/0"], scc_cloud_admin_cidrs_allow_internet="maybe")
    problems = cloud_inputs.problems(dict(GOOD, **internet))
    assert [p.split(" ", 1)[0] for p in problems] == ["scc_cloud_admin_cidrs", "scc_cloud_admin_cidrs_allow_internet"]
    # An unknown charge type with auto-renew on: both named.
    problems = cloud_inputs.problems(dict(GOOD, scc_cloud_instance_charge_type="Spot", scc_cloud_auto_renew=True))
    assert [p.split(" ", 1)[0] for p in problems] == ["scc_cloud_instance_charge_type", "scc_cloud_auto_renew"]


def test_an_acks_password_of_the_wrong_type_is_not_shown():
    settings = dict(GOOD, scc_cloud_ack_enabled=True, scc_cloud_ack_node_password=12345678)
    settings.update(scc_cloud_ack_service_cidr=7)
    problems = cloud_inputs.problems(settings)
    assert "scc_cloud_ack_node_password ((hidden)) must be a string, not int." in problems
    assert "scc_cloud_ack_service_cidr (7) must be a string, not int." in problems
    assert not any("12345678" in p for p in problems)


def test_show_cuts_at_80_characters_and_sorts_keys():
    # A value is shown whole while its JSON holds at most 80 characters: ["x...x"] is 4 more than its x's.
    assert cloud_inputs.show(["x" * 76]) == '["%s"]' % ("x" * 76)
    assert cloud_inputs.show(["x" * 77]) == '["%s"... (81 characters)' % ("x" * 77)
    # A string's JSON adds its quotes; a string longer than 80 is cut before it is dumped (a huge one is never
    # dumped whole), and its own length is given.
    assert cloud_inputs.show("a" * 78) == '"%s"' % ("a" * 78)
    assert cloud_inputs.show("a" * 80) == '"%s... (82 characters)' % ("a" * 79)
    assert cloud_inputs.show("a" * 81) == '"%s"... (81 characters)' % ("a" * 80)
    assert cloud_inputs.show({"b": 1, "a": 2}) == '{"a": 2, "b": 1}'
