"""gpu_health's validate entry point: good inputs pass, bad ones fail naming the variable."""

from ansible_collections.scc.training.plugins.module_utils import instance_families
from tests.unit.roles.validate_runner import validate_tests

# One inventory per family of the README's supported-instance table: scc_instance_type alone validates.
FAMILY_TYPES = {family: facts["instance_types"][0] for family, facts in sorted(instance_families.FAMILIES.items())}

CASES = {
    "ok_default": ({}, None),
    "ok_declared": (
        {
            "gpu_health_expected_gpus": 8,
            "gpu_health_expected_nvlinks": 6,
            "gpu_health_kernel_log_command": ["dmesg", "-T"],
            "gpu_health_xid_ignore": [48, 63],
            "gpu_health_require_persistence": False,
        },
        None,
    ),
    "ok_pcie_no_nvlink": ({"gpu_health_expected_nvlinks": 0}, None),
    "bad_expected_gpus_zero": ({"gpu_health_expected_gpus": 0}, "gpu_health_expected_gpus"),
    "bad_expected_gpus_text": ({"gpu_health_expected_gpus": "eight"}, "gpu_health_expected_gpus"),
    "bad_expected_nvlinks": ({"gpu_health_expected_nvlinks": -1}, "gpu_health_expected_nvlinks"),
    "bad_ecc_max": ({"gpu_health_ecc_volatile_uncorrectable_max": -1}, "gpu_health_ecc_volatile_uncorrectable_max"),
    "bad_kernel_log_empty": ({"gpu_health_kernel_log_command": []}, "gpu_health_kernel_log_command"),
    "bad_kernel_log_string": ({"gpu_health_kernel_log_command": {"cmd": "dmesg"}}, "gpu_health_kernel_log_command"),
    "bad_nvidia_smi_empty": ({"gpu_health_nvidia_smi_path": ""}, "gpu_health_nvidia_smi_path"),
    "bad_pci_path_relative": ({"gpu_health_pci_devices_path": "sys/bus/pci"}, "gpu_health_pci_devices_path"),
    "bad_xid_ignore": ({"gpu_health_xid_ignore": ["seventy-nine"]}, "gpu_health_xid_ignore"),
    "bad_require_ecc": ({"gpu_health_require_ecc": "sometimes"}, "gpu_health_require_ecc"),
    "bad_instance_type": (
        {"scc_instance_type": "ecs.gn6i-c4g1.xlarge"},
        "scc_instance_type='ecs.gn6i-c4g1.xlarge': instance family 'gn6i-c4g1' is not in the supported",
    ),
    # Issue 36: a null instance type crashed the role's vars (None | length), a number passed for a compute capability.
    "ok_instance_type_null": ({"scc_instance_type": None}, None),
    "bad_instance_type_a_number": (
        {"scc_instance_type": 8},
        "scc_instance_type (8) must be",
    ),
    # Issue 37: a compute capability (or 2.16-2.18's rendering "8" of a number) crashed the check naming nothing.
    "bad_instance_type_a_compute_capability": (
        {"scc_instance_type": "7.0"},
        "scc_instance_type ('7.0') is a compute capability",
    ),
    "bad_instance_type_a_string_number": (
        {"scc_instance_type": "8"},
        "scc_instance_type ('8')",
    ),
    # Issue 35.2, the role run alone: a declared count the declared type contradicts, both named (once: the role's
    # gpu_health_declared_gpus follows scc_gpu_count and is not named a second time).
    "bad_gpus_contradict_the_type": (
        {"scc_instance_type": "ecs.ebmgn8v.48xlarge", "gpu_health_expected_gpus": 9},
        "gpu_health_expected_gpus=9 contradicts scc_instance_type=ecs.ebmgn8v.48xlarge (ebmgn8v), which has 8 GPUs",
    ),
    "bad_gpu_count_contradicts_the_type": (
        {"scc_instance_type": "ecs.ebmgn8v.48xlarge", "scc_gpu_count": 16},
        "gpu_health: scc_gpu_count=16 contradicts scc_instance_type=ecs.ebmgn8v.48xlarge",
    ),
    "bad_declared_gpus": ({"scc_gpu_count": "eight"}, "gpu_health_declared_gpus"),
    "ok_declared_gpus": ({"scc_gpu_count": 4}, None),
    # Issue 27: a negative count is never above what a node shows (it passed every node).
    "bad_declared_gpus_negative": ({"scc_gpu_count": -1}, "gpu_health_declared_gpus"),
    "bad_declared_gpus_negative_own": ({"gpu_health_declared_gpus": -8}, "gpu_health_declared_gpus"),
    **{"ok_family_" + family: ({"scc_instance_type": t}, None) for family, t in FAMILY_TYPES.items()},
}


results, test_validate = validate_tests("gpu_health", CASES)
