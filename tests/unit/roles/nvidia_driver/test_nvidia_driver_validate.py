"""nvidia_driver's validate entry point: the kernel-module flavour follows the GPU, and the two flavours NVIDIA
rules out are refused naming both variables (issue 35).

NVIDIA: the open modules do not run before Turing (V100); "For cutting-edge platforms such as NVIDIA Grace Hopper or
NVIDIA Blackwell, you must use the open-source GPU kernel modules"
(https://developer.nvidia.com/blog/nvidia-transitions-fully-towards-open-source-gpu-kernel-modules/).
"""

from ansible_collections.scc.training.plugins.module_utils import instance_families
from tests.unit.roles.validate_runner import validate_tests

# Every family of the supported-instance table validates with scc_instance_type alone (its default flavour).
FAMILY_TYPES = {family: facts["instance_types"][0] for family, facts in sorted(instance_families.FAMILIES.items())}

CASES = {
    "ok_default": ({}, None),  # sccgn6, V100: proprietary by default
    "ok_v100_proprietary": (
        {"scc_instance_type": "ecs.sccgn6.24xlarge", "nvidia_driver_kernel_modules": "proprietary"},
        None,
    ),
    "bad_v100_open": (
        {"scc_instance_type": "ecs.sccgn6.24xlarge", "nvidia_driver_kernel_modules": "open"},
        "nvidia_driver_kernel_modules=open does not support compute capability 7.0 (nvidia_driver_gpu_compute_capability)",
    ),
    "bad_blackwell_proprietary": (
        {"scc_instance_type": "ecs.ebmgn9g.64xlarge", "nvidia_driver_kernel_modules": "proprietary"},
        "nvidia_driver_kernel_modules=proprietary does not support compute capability 12.0 "
        "(nvidia_driver_gpu_compute_capability)",
    ),
    "bad_b200_proprietary_by_cc": (
        {"scc_gpu_compute_capability": "10.0", "nvidia_driver_kernel_modules": "proprietary"},
        "must use the open GPU kernel modules",
    ),
    "ok_blackwell_open": ({"scc_instance_type": "ecs.ebmgn9gc.64xlarge", "nvidia_driver_kernel_modules": "open"}, None),
    "ok_hopper_proprietary_by_hand": (
        {"scc_instance_type": "ecs.ebmgn8v.48xlarge", "nvidia_driver_kernel_modules": "proprietary"},
        None,
    ),
    "ok_gn8is_size": ({"scc_instance_type": "ecs.gn8is-4x.16xlarge"}, None),
    "bad_kernel_modules_choice": ({"nvidia_driver_kernel_modules": "nouveau"}, "nvidia_driver_kernel_modules"),
    **{"ok_family_" + family: ({"scc_instance_type": t}, None) for family, t in FAMILY_TYPES.items()},
    # One task judges the variables and what scc_instance_type contradicts: both in its one message.
    "bad_version_and_a_contradiction_named_together": (
        {
            "scc_instance_type": "ecs.sccgn6.24xlarge",
            "nvidia_driver_version": "1.2",
            "nvidia_driver_gpu_compute_capability": "9.0",
        },
        'such as 580.95.05. nvidia_driver_gpu_compute_capability=9.0 contradicts scc_instance_type=ecs.sccgn6.24xlarge',
    ),
}


results, test_validate = validate_tests("nvidia_driver", CASES)
