#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: gpu_info
short_description: Report the NVIDIA driver, CUDA version and GPUs of a host (nvidia-smi -q -x)
version_added: 0.1.0
author: scc.training developers (@scc-training)
description:
  - Runs C(nvidia-smi -q -x) and returns the driver version, the CUDA version the driver supports and,
    per GPU, its index, name, UUID, PCI bus id, memory, ECC mode, uncorrected volatile ECC errors,
    temperature, power limit, persistence mode and compute capability.
  - Read-only; it changes nothing, also outside check mode.
options:
  nvidia_smi_path:
    description:
      - The nvidia-smi binary, a name looked up on PATH (and in C(/usr/bin), C(/usr/local/nvidia/bin))
        or an absolute path.
    type: str
    default: nvidia-smi
  missing_ok:
    description:
      - When V(true), a host without nvidia-smi, or whose nvidia-smi cannot talk to a loaded driver,
        is not an error; the module then returns RV(nvidia_smi_found) or RV(driver_loaded) V(false)
        and no GPUs. Roles use this to tell "no driver yet" from "broken".
    type: bool
    default: false
extends_documentation_fragment:
  - scc.training.read_only
notes:
  - Compute capability comes from the product name through the collection's version matrix;
    it is V(null) for a GPU the matrix does not know.
"""

EXAMPLES = r"""
- name: Read the GPUs of every node
  scc.training.gpu_info:
  register: gpus

- name: Every node has 8 GPUs with ECC on and no uncorrected errors
  ansible.builtin.assert:
    that:
      - gpus.gpu_count == 8
      - gpus.gpus | map(attribute='ecc_mode') | unique == ['Enabled']
      - gpus.gpus | map(attribute='ecc_errors_uncorrected') | max == 0

- name: Tell a host without a driver from a broken one
  scc.training.gpu_info:
    nvidia_smi_path: /usr/bin/nvidia-smi
    missing_ok: true
  register: gpus_or_not
"""

RETURN = r"""
nvidia_smi_found:
  description: Whether the nvidia-smi binary was found.
  returned: always
  type: bool
  sample: true
driver_loaded:
  description: Whether nvidia-smi could talk to a loaded NVIDIA driver (false also when not found).
  returned: always
  type: bool
  sample: true
nvidia_smi_path:
  description: The binary that was run (absolute path), or the name asked for when not found.
  returned: always
  type: str
  sample: /usr/bin/nvidia-smi
error:
  description: What nvidia-smi printed when it failed and O(missing_ok) was set.
  returned: when driver_loaded is false
  type: str
  sample: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
driver_version:
  description: NVIDIA driver version.
  returned: always (null without a driver)
  type: str
  sample: "460.73.01"
cuda_version:
  description: Highest CUDA version the driver supports, as nvidia-smi reports it.
  returned: always (null without a driver)
  type: str
  sample: "11.2"
gpu_count:
  description: Number of GPUs.
  returned: always
  type: int
  sample: 8
gpus:
  description: One entry per GPU, in nvidia-smi index order. Fields nvidia-smi reports as N/A are null.
  returned: always
  type: list
  elements: dict
  contains:
    index:
      description: nvidia-smi index.
      type: int
      sample: 0
    name:
      description: Product name.
      type: str
      sample: Tesla V100S-PCIE-32GB
    uuid:
      description: GPU UUID.
      type: str
      sample: GPU-76098dc1-d3bc-9a1b-7ea6-f7b48837829e
    pci_bus_id:
      description: PCI bus id.
      type: str
      sample: "00000000:00:0D.0"
    memory_total_mib:
      description: Framebuffer memory in MiB.
      type: int
      sample: 32510
    ecc_mode:
      description: Current ECC mode (V(Enabled), V(Disabled)), null where not supported.
      type: str
      sample: Enabled
    ecc_errors_uncorrected:
      description: Uncorrected ECC errors since the driver loaded (volatile total), null where not reported.
      type: int
      sample: 0
    temperature_c:
      description: GPU temperature in degrees Celsius.
      type: int
      sample: 66
    power_limit_w:
      description: Current power limit in watts.
      type: float
      sample: 250.0
    persistence_mode:
      description: Persistence mode (V(Enabled), V(Disabled)).
      type: str
      sample: Disabled
    compute_capability:
      description: Compute capability from the product name (version matrix), null if unknown.
      type: str
      sample: "7.0"
    architecture:
      description: Architecture as nvidia-smi names it (newer drivers only).
      type: str
      sample: Volta
    ecc_errors_uncorrected_aggregate:
      description: Uncorrected ECC errors over the GPU's life (aggregate total), null where not reported.
      type: int
      sample: 0
    retired_pages:
      description:
        - Dynamic page retirement (Kepler and later), null where nvidia-smi reports none.
        - C(single_bit) and C(double_bit) retired page counts, C(pending) true when a page waits for the next
          driver reload.
      type: dict
      sample: {"single_bit": 0, "double_bit": 0, "pending": false}
    remapped_rows:
      description:
        - Row remapper (Ampere and later) with C(correctable), C(uncorrectable), C(pending) and C(failure);
          null where nvidia-smi reports N/A (Volta and older).
      type: dict
      sample: null
    pcie:
      description: PCIe link generation and width, current and maximum (C(gen_current), C(gen_max),
        C(width_current), C(width_max)).
      type: dict
      sample: {"gen_current": 3, "gen_max": 3, "width_current": 16, "width_max": 16}
    clocks_event_reasons:
      description:
        - Clock event (throttle) reasons, true when active; from C(clocks_event_reasons) or, before driver 535,
          C(clocks_throttle_reasons).
        - Keys C(gpu_idle), C(hw_slowdown), C(hw_thermal_slowdown), C(hw_power_brake_slowdown),
          C(sw_thermal_slowdown).
      type: dict
      sample: {"gpu_idle": true, "hw_slowdown": false, "hw_thermal_slowdown": false,
               "hw_power_brake_slowdown": false, "sw_thermal_slowdown": false}
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils import nvidia_smi

_EMPTY = {"driver_version": None, "cuda_version": None, "gpu_count": 0, "gpus": []}


def main():
    module = AnsibleModule(
        argument_spec={
            "nvidia_smi_path": {"type": "str", "default": "nvidia-smi"},
            "missing_ok": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    wanted = module.params["nvidia_smi_path"]
    missing_ok = module.params["missing_ok"]

    if os.path.isabs(wanted):
        path = wanted if os.access(wanted, os.X_OK) else None
    else:
        path = module.get_bin_path(wanted, opt_dirs=["/usr/bin", "/usr/local/nvidia/bin"])
    if path is None:
        if missing_ok:
            module.exit_json(
                changed=False,
                nvidia_smi_found=False,
                driver_loaded=False,
                nvidia_smi_path=wanted,
                error="%s not found" % wanted,
                **_EMPTY,
            )
        module.fail_json(
            msg="%s not found: no NVIDIA driver user-space tools on this host" % wanted,
            nvidia_smi_found=False,
            driver_loaded=False,
        )

    rc, out, err = module.run_command([path, "-q", "-x"], environ_update={"LC_ALL": "C"})
    if rc != 0:
        message = (err or out).strip() or "exit code %d" % rc
        if missing_ok:
            module.exit_json(
                changed=False, nvidia_smi_found=True, driver_loaded=False, nvidia_smi_path=path, error=message, **_EMPTY
            )
        module.fail_json(
            msg="%s -q -x failed (rc=%d): %s" % (path, rc, message), rc=rc, nvidia_smi_found=True, driver_loaded=False
        )
    try:
        result = nvidia_smi.parse(out)
    except nvidia_smi.NvidiaSmiParseError as exc:
        module.fail_json(msg="%s -q -x printed something unexpected: %s" % (path, exc), stdout=out[:2000])
    module.exit_json(changed=False, nvidia_smi_found=True, driver_loaded=True, nvidia_smi_path=path, **result)


if __name__ == "__main__":
    main()
