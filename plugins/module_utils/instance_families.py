# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The supported-instance table of scc.training: ONE place for the facts per Alibaba Cloud GPU
instance family (GPU, NVLink, RDMA, driver branch, PyTorch builds, RDMA stack, NCCL settings).

Used by the filter ``scc.training.instance_profile`` (plugins/filter/instances.py) and by
tools/instance_table.py, which renders the README's "Supported instances" table from it.

Interface
---------
``profile(value, name=None) -> dict``
    ``value`` is an instance type (``ecs.sccgn6.24xlarge``), a family (``sccgn6``), or a
    compute capability (``"7.0"``, ``7.0``, ``"sm_70"``). ``name`` is the variable the value came
    from, named in every error (default ``scc_instance_type``, or ``scc_gpu_compute_capability``
    for a compute capability). An unknown family, instance size or compute capability raises
    ValueError naming the variable and the supported choices.

    Returns ``{family, instance_type, gpu, compute_capability, gpus_per_node, nvlink, rdma,
    driver_branch, driver_branch_max, kernel_modules, torch_cuda_builds, rdma_stack, nccl_env, nccl_min_version,
    status, uefi_only, unconfirmed, sources}``. From a compute capability only the GPU-level
    keys are filled (``compute_capability``, ``driver_branch``, ``driver_branch_max``, ``kernel_modules``,
    ``torch_cuda_builds``); the family keys are None, ``nccl_env`` is empty. ``gpus_per_node`` of a GPU VM
    family (gn8is, gn8v: sizes of 1 to 8 GPUs, ``ecs.gn8is-4x.16xlarge``) is the size's, the family alone reads
    as its 8-GPU size.

    - ``rdma``: ``{kind: roce_v2 | erdma, provider: mlx5 | erdma, ports, rate_gbps (per port),
      total_gbps, link_layer, gid_index, mtu}``; ``gid_index`` None means "discover it on the
      host" (rdma_info's RoCE v2 GID), ``mtu`` is None or ``{jumbo_frames, standard}``.
    - ``torch_cuda_builds``: the PyTorch CUDA wheels whose kernels run on the GPU, each
      ``{cuda, tag, torch_min, torch_max, index_url, driver_min_branch}`` (torch releases 2.8 to
      2.14 covered; the driver branch is the oldest the wheel's CUDA runtime runs on).
    - ``nccl_env``: only what the family documents; NCCL_IB_HCA is never here (the active ports
      are discovered on the hosts: rdma_info -> scc.training.nccl_ib_env).
    - ``unconfirmed``: the keys (dotted) no vendor source confirms; README shows them as UNCONFIRMED.

``family_of(instance_type) -> str``: ``"ecs.sccgn6.24xlarge"`` -> ``"sccgn6"``, ``"ecs.gn8is-4x.16xlarge"`` -> ``"gn8is"``.
``kernel_modules(ccs) -> str``: "open" or "proprietary" for one compute capability or a cluster's list.
``torch_cuda_builds(cc)``, ``driver_branch(cc)``: the GPU-level facts for one compute capability.

Sources (checked 2026-12; each row names its keys in ``SOURCES``, cite them when you change a row)
-------------------------------------------------------------------------------------------------
- sccgn6 / sccgn6e / sccgn6ne (8x V100 SXM2, NVLink 6 x 25 GB/s, RoCE v2): Alibaba Cloud ECS docs,
  "Super Computing Cluster instance type family - Overview" (AlibabaCloudDocs/ecs, sccgn6: RoCE
  "25*2" Gbit/s), and help.aliyun.com "已停售的实例规格" (discontinued families: sccgn6 and sccgn6e
  RoCE 50 Gbit/s, sccgn6ne RoCE 100 Gbit/s, 32 GB V100).
- ebmgn7ex, ebmgn8v, ebmgn8ia, ebmgn8is, ebmgn9g/ge/gc (eRDMA through ERIs): help.aliyun.com
  document 25378 (ECS Bare Metal GPU families, zh) and the English "GPU-accelerated
  compute-optimized instance families" page; ebmgn7ex's GPU model from Alibaba's Deep-NCCL
  README (PyPI aiacc-nccl).
- gn8is, gn8v (GPU VMs with ERIs, sizes of 1 to 8 GPUs): the same English page ("gn8v and gn8v-tee", "gn8is":
  sizes, GPUs, NVLink 900 GB/s on gn8v, L20 on PCIe Gen4 x16, "Supports ERIs", available in specific regions
  through sales); PAI's eRDMA guide: 1 eRDMA NIC on gn8is.*. No ERI rate, nor gn8v's ERI count, is published.
- Kernel modules: NVIDIA Driver Installation Guide, "Kernel Modules", and NVIDIA's blog "Transitions Fully Towards
  Open-Source GPU Kernel Modules" (Blackwell must use the open modules).
- eRDMA: "Enable eRDMA on GPU-accelerated instances" (MTU 8500 with jumbo frames for NCCL's
  LL128, else 1400), PAI "eRDMA: distributed training" (preset NCCL variables, NCCL >= 2.19, two
  eRDMA NICs on ebmgn8v and ebmgn8is), ACK "enable eRDMA acceleration" (driver mode ofed for
  GPU-accelerated instances), eRDMA usage (installer from mirrors.cloud.aliyuncs.com).
- Driver: NVIDIA "CUDA Toolkit, Driver and Architecture Matrix" (R580 is the last branch for
  Volta) and "Supported Drivers and CUDA Toolkit Versions" (R580 LTSB, EOL June 2028, CUDA 13);
  the per-architecture limits themselves are _gpu_matrix.py's.
- PyTorch wheels: pytorch/pytorch RELEASE.md "Release Compatibility Matrix" (CUDA builds and arch
  lists per release), issue 172352 (CUDA 12.8 builds drop Volta in 2.11), and the arch lists we
  read from the PyPI wheels torch 2.10.0+cu128 (sm_70 ... sm_120) and 2.13.0+cu130 (sm_75 ...
  sm_120, no PTX). A cubin built for X.y runs on X.z with z >= y (CUDA C++ Programming Guide,
  "Binary Compatibility").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils import _gpu_matrix, input_checks
from ansible_collections.scc.training.plugins.module_utils.torch_build import TORCH_INDEX

# --- sources -------------------------------------------------------------------------------

# key -> (what it says, where). The README renders these as footnotes.
SOURCES = {
    "ali-scc": (
        "Alibaba Cloud ECS docs, Super Computing Cluster instance families: sccgn6 = 8x V100 SXM2 16 GB, "
        "NVLink 6 x 25 GB/s, RoCE v2 25*2 Gbit/s, CPFS",
        "https://github.com/AlibabaCloudDocs/ecs/blob/4643b3b450786e559cac3b8b1df834826844e0b6/intl.en-US/"
        "Instance/Instance%20type%20families/Super%20Computing%20Cluster%20instance%20type%20family/Overview.md",
    ),
    "ali-discontinued": (
        "help.aliyun.com, 已停售的实例规格 (families no longer sold): sccgn6 and sccgn6e RoCE 50 Gbit/s, "
        "sccgn6ne RoCE 100 Gbit/s with 8x V100 32 GB (page found by its title; URL not recorded)",
        None,
    ),
    "ali-ebm": (
        "help.aliyun.com 实例规格族, ECS Bare Metal GPU families (ebmgn9g/ge/gc, ebmgn8v, ebmgn8ia, ebmgn8is, "
        "ebmgn7ex): GPUs, interconnect, network and ERI bandwidth, UEFI-only images",
        "https://help.aliyun.com/document_detail/25378.html",
    ),
    "ali-gpu-en": (
        "Alibaba Cloud ECS docs, GPU-accelerated compute-optimized instance families (English; the same "
        "ECS Bare Metal GPU families)",
        "https://www.alibabacloud.com/help/en/ecs/user-guide/gpu-accelerated-compute-optimized-and-vgpu-accelerated-instance-families-1",
    ),
    "aiacc-nccl": (
        "Alibaba's Deep-NCCL README (PyPI aiacc-nccl): ecs.ebmgn7ex.32xlarge is A100 x 8 on eRDMA",
        "https://pypi.org/project/aiacc-nccl/",
    ),
    "ali-erdma-gpu": (
        "Alibaba Cloud ECS docs, Enable eRDMA on GPU-accelerated instances: MTU 8500 with jumbo frames (NCCL "
        "LL128), else 1400; public images auto-install the GPU driver and the eRDMA software stack",
        "https://www.alibabacloud.com/help/en/ecs/user-guide/on-the-gpu-instance-configuration-erdma",
    ),
    "ali-erdma-usage": (
        "Alibaba Cloud ECS docs, eRDMA usage: installer http://mirrors.cloud.aliyuncs.com/erdma/"
        "erdma_installer-<version>.tar.gz (VPC-internal mirror) and its release notes",
        "https://www.alibabacloud.com/help/en/ecs/user-guide/erdma-usage",
    ),
    "ali-pai-erdma": (
        "Alibaba Cloud PAI docs, eRDMA distributed training: preset NCCL_IB_GID_INDEX=1, NCCL_IB_HCA=erdma, "
        "NCCL_SOCKET_IFNAME=eth0, NCCL_IB_QPS_PER_CONNECTION=8, NCCL_MIN_NCHANNELS=16, NCCL_NET_PLUGIN=none; "
        "NCCL >= 2.19; 2 eRDMA NICs on ebmgn8v and ebmgn8is",
        "https://www.alibabacloud.com/help/en/pai/user-guide/erdma-distributed-training-with-high-performance-networks",
    ),
    "ali-ack-erdma": (
        "Alibaba Cloud ACK docs, eRDMA acceleration: eRDMA driver mode ofed (OFED-based) recommended for "
        "GPU-accelerated instances",
        "https://www.alibabacloud.com/help/en/ack/cloud-native-ai-suite/user-guide/"
        "submit-a-pytorch-distributed-training-job-through-arena-and-enable-erdma-acceleration",
    ),
    "ali-aiacc-demo": (
        "Alibaba's AIACC demos launch NCCL with -x NCCL_SOCKET_IFNAME=eth0 (the primary ENI)",
        "https://github.com/aliyun/alibabacloud-aiacc-demo",
    ),
    "nv-arch-matrix": (
        "NVIDIA CUDA Toolkit, Driver and Architecture Matrix: R580 is the last driver branch for Volta (7.0)",
        "https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html",
    ),
    "nv-drivers": (
        "NVIDIA Supported Drivers and CUDA Toolkit Versions: R580 is a long-term support branch "
        "(EOL June 2028, CUDA 13)",
        "https://docs.nvidia.com/datacenter/tesla/drivers/supported-drivers-and-cuda-toolkit-versions.html",
    ),
    "nv-cuda-gpus": ("NVIDIA, CUDA GPUs: compute capability per GPU", "https://developer.nvidia.com/cuda-gpus"),
    "nv-kernel-modules": (
        "NVIDIA Driver Installation Guide, Kernel Modules: proprietary required for Maxwell, Pascal and Volta; open "
        "for Turing and newer, the default and suggested flavour from the 560 branch on",
        "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/kernel-modules.html",
    ),
    "nv-open-modules": (
        "NVIDIA, Transitions Fully Towards Open-Source GPU Kernel Modules: Grace Hopper and Blackwell must use the "
        "open modules (the proprietary ones are unsupported there); recommended for Turing, Ampere, Ada, Hopper",
        "https://developer.nvidia.com/blog/nvidia-transitions-fully-towards-open-source-gpu-kernel-modules/",
    ),
    "nv-binary-compat": (
        "CUDA C++ Programming Guide, Binary Compatibility: a cubin for compute capability X.y runs on X.z, z >= y",
        "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility",
    ),
    "pt-release": (
        "PyTorch RELEASE.md, Release Compatibility Matrix: CUDA builds and their arch lists per release",
        "https://github.com/pytorch/pytorch/blob/main/RELEASE.md",
    ),
    "pt-172352": (
        "pytorch/pytorch issue 172352: the CUDA 12.8 builds drop Volta (sm_70) from 2.11",
        "https://github.com/pytorch/pytorch/issues/172352",
    ),
    "pt-wheels": (
        "arch lists read from the PyPI wheels torch 2.10.0+cu128 (sm_70 ... sm_120) and 2.13.0+cu130 "
        "(sm_75 ... sm_120, no PTX), with the commands that read them (issue 11)",
        None,
    ),
    "nv-cuda-compat": (
        "NVIDIA CUDA Compatibility, minor version compatibility: CUDA 12.x runs on drivers >= 525, CUDA 13.x on >= 580",
        "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html",
    ),
    "nccl-env": (
        "NCCL environment variables: NCCL_IB_HCA, NCCL_IB_GID_INDEX (auto-selected since 2.21), NCCL_SOCKET_IFNAME",
        "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
    ),
    "nv-peermem": (
        "NVIDIA GPUDirect RDMA: nvidia-peermem (with the driver since R470) needs the peer-memory API of "
        "MLNX_OFED / DOCA-OFED",
        "https://docs.nvidia.com/cuda/gpudirect-rdma/index.html",
    ),
    "doca-ofed": (
        "NVIDIA MLNX_OFED to DOCA-OFED Transition Guide (DOCA-OFED replaces MLNX_OFED after 24.10)",
        "https://docs.nvidia.com/doca/sdk/mlnx_ofed-to-doca-ofed-transition-guide/index.html",
    ),
    "rdma-core": (
        "linux-rdma/rdma-core: the mlx5 and erdma providers (Debian/Ubuntu ibverbs-providers, EL libibverbs)",
        "https://github.com/linux-rdma/rdma-core",
    ),
}

# --- GPU-level facts -----------------------------------------------------------------------

# The newest driver branch that every GPU of the table runs on: R580, a long-term support
# branch (EOL June 2028) with CUDA 13.0, so it also runs the cu13x wheels [nv-drivers]. A GPU
# whose last branch is older (_gpu_matrix.ARCH_DRIVER_BRANCH_MAX) gets that one instead.
RECOMMENDED_DRIVER_BRANCH = 580

# The PyTorch CUDA wheels, their kernels and the drivers they run on come from the version matrix
# (_gpu_matrix.TORCH_BUILDS, arch_covers, wheel_min_driver: one copy of those facts); this table
# lists the stable builds [pt-release, pt-172352, pt-wheels, nv-binary-compat, nv-cuda-compat].
TORCH_SOURCES = ("pt-release", "pt-172352", "pt-wheels", "nv-binary-compat", "nv-cuda-compat")
DRIVER_SOURCES = ("nv-arch-matrix", "nv-drivers", "nv-kernel-modules", "nv-open-modules")

# --- the families --------------------------------------------------------------------------


# The RoCE v2 families: 8x V100 SXM2 on NVLink2, mlx5 ports whose RoCE v2 GID is discovered on the
# host, DOCA-OFED for GPUDirect [ali-scc, ali-discontinued, doca-ofed, nv-peermem, rdma-core]. All
# three are no longer sold.
def _scc_v100(family, memory_gb, rdma, unconfirmed, gpu_sources, rdma_sources):
    return {
        "instance_types": ("ecs.%s.24xlarge" % family,),
        "gpu": "NVIDIA V100 SXM2 %d GB" % memory_gb,
        "compute_capability": "7.0",
        "gpus_per_node": 8,
        "nvlink": True,
        "nvlink_detail": "NVLink2, 6 links x 25 GB/s per GPU (300 GB/s)",
        "rdma": dict(rdma, kind="roce_v2", provider="mlx5", link_layer="Ethernet", gid_index=None, mtu=None),
        "rdma_stack": {
            "source": "doca-ofed",
            "alternative": "distro",
            "gpudirect": "nvidia-peermem, which needs DOCA-OFED or MLNX_OFED",
            "installer_url": None,
        },
        "nccl_env": {"NCCL_SOCKET_IFNAME": "eth0"},
        "nccl_min_version": None,
        "status": "discontinued (no longer sold in the China site)",
        "uefi_only": False,
        "unconfirmed": ("rdma.mtu",) + unconfirmed,
        "sources": {
            "gpu": gpu_sources + ("nv-cuda-gpus",),
            "rdma": rdma_sources,
            "rdma_stack": ("doca-ofed", "nv-peermem", "rdma-core"),
            "nccl_env": ("ali-aiacc-demo", "nccl-env"),
            "status": ("ali-discontinued",),
        },
    }


# The eRDMA families: ECS Bare Metal with ERIs, UEFI images only [ali-ebm, ali-gpu-en,
# ali-erdma-gpu, ali-erdma-usage, ali-pai-erdma, ali-ack-erdma]. How eRDMA ports show in sysfs /
# rdma_info (link layer, reported rate) and the GPUDirect mechanism of OFED mode are confirmed for
# none of them.
def _ebm_erdma(gpu, rdma, status, unconfirmed=(), gpu_sources=("ali-ebm", "ali-gpu-en"), status_source="ali-gpu-en"):
    return {
        "instance_types": gpu["instance_types"],
        "gpu": gpu["name"],
        "compute_capability": gpu["compute_capability"],
        "gpus_per_node": gpu.get("count", 8),
        "nvlink": gpu["nvlink"],
        "nvlink_detail": gpu["nvlink_detail"],
        "rdma": dict(
            rdma,
            kind="erdma",
            provider="erdma",
            link_layer="Ethernet",
            gid_index=1,
            mtu={"jumbo_frames": 8500, "standard": 1400},
        ),
        "rdma_stack": {
            "source": "erdma-installer",
            "alternative": "distro",
            "gpudirect": "the eRDMA driver in OFED mode, which Alibaba recommends for GPU instances",
            "installer_url": "http://mirrors.cloud.aliyuncs.com/erdma/erdma_installer-<version>.tar.gz",
        },
        "nccl_env": {
            "NCCL_SOCKET_IFNAME": "eth0",
            "NCCL_IB_GID_INDEX": "1",
            "NCCL_IB_QPS_PER_CONNECTION": "8",
            "NCCL_MIN_NCHANNELS": "16",
            "NCCL_NET_PLUGIN": "none",
        },
        "nccl_min_version": "2.19",
        "status": status,
        "uefi_only": True,
        "unconfirmed": unconfirmed + ("rdma.link_layer", "rdma_stack.gpudirect"),
        "sources": {
            "gpu": gpu_sources + ("nv-cuda-gpus",),
            "rdma": ("ali-ebm", "ali-gpu-en", "ali-erdma-gpu"),
            "rdma_stack": ("ali-erdma-usage", "ali-ack-erdma", "rdma-core"),
            "nccl_env": ("ali-pai-erdma", "nccl-env"),
            "status": (status_source,),
        },
    }


_SPECIFIC_REGIONS = "specific regions (outside China), through Alibaba Cloud sales"
_PREVIEW = "invitational preview (by ticket)"

# family -> facts. ``instance_types`` are the sizes the family has; ``unconfirmed`` the keys no
# source confirms (kept as the best reading, shown as UNCONFIRMED); ``sources`` per key group.
FAMILIES = {
    "sccgn6": _scc_v100(
        "sccgn6", 16, {"ports": 2, "rate_gbps": 25, "total_gbps": 50}, (), ("ali-scc",), ("ali-scc", "ali-discontinued")
    ),
    # 50 Gbit/s RoCE; its split into 2 x 25 is sccgn6's, not stated for sccgn6e in the pages read.
    "sccgn6e": _scc_v100(
        "sccgn6e",
        32,
        {"ports": 2, "rate_gbps": 25, "total_gbps": 50},
        ("rdma.ports", "rdma.rate_gbps"),
        ("ali-discontinued",),
        ("ali-discontinued",),
    ),
    "sccgn6ne": _scc_v100(
        "sccgn6ne",
        32,
        {"ports": None, "rate_gbps": None, "total_gbps": 100},
        ("rdma.ports", "rdma.rate_gbps"),
        ("ali-discontinued",),
        ("ali-discontinued",),
    ),
    # Two ERIs on different NIC indexes: 160 Gbit/s; on the same index: 100 Gbit/s.
    "ebmgn7ex": _ebm_erdma(
        {
            "instance_types": ("ecs.ebmgn7ex.32xlarge",),
            "name": "NVIDIA A100 80 GB",
            "compute_capability": "8.0",
            "nvlink": True,
            "nvlink_detail": "NVLink (Alibaba: use it for GPU-to-GPU traffic of transformer training)",
        },
        {"ports": 2, "rate_gbps": 80, "total_gbps": 160},
        "on sale",
        gpu_sources=("ali-ebm", "aiacc-nccl"),
        status_source="ali-ebm",
    ),
    # The family pages give 96 GB HBM3 at 4 TB/s, NVLink 900 GB/s and FP8, not the model: Hopper
    # (9.0) is the architecture with all three; "H20" is what Alibaba solution documents name.
    # Network 170 (85 x 2) Gbit/s; the ERIs reach 160 Gbit/s; PAI mounts 2 eRDMA NICs.
    "ebmgn8v": _ebm_erdma(
        {
            "instance_types": ("ecs.ebmgn8v.48xlarge",),
            "name": "NVIDIA Hopper 96 GB HBM3, H20",
            "compute_capability": "9.0",
            "nvlink": True,
            "nvlink_detail": "NVLink 900 GB/s between the 8 GPUs",
        },
        {"ports": 2, "rate_gbps": 80, "total_gbps": 160},
        _SPECIFIC_REGIONS,
        unconfirmed=("gpu", "compute_capability"),
    ),
    "ebmgn8is": _ebm_erdma(
        {
            "instance_types": ("ecs.ebmgn8is.32xlarge",),
            "name": "NVIDIA L20 48 GB",
            "compute_capability": "8.9",
            "nvlink": False,
            "nvlink_detail": "none: PCIe Gen4 x16 through a PCIe switch",
        },
        {"ports": 2, "rate_gbps": 80, "total_gbps": 160},
        _SPECIFIC_REGIONS,
    ),
    # Network 160 (80 x 2) Gbit/s, ERIs up to 160; the ERI count is read from "80 x 2".
    "ebmgn8ia": _ebm_erdma(
        {
            "instance_types": ("ecs.ebmgn8ia.64xlarge",),
            "name": "NVIDIA L20 48 GB",
            "compute_capability": "8.9",
            "count": 4,
            "nvlink": False,
            "nvlink_detail": "none: PCIe Gen4 x16",
        },
        {"ports": 2, "rate_gbps": 80, "total_gbps": 160},
        _SPECIFIC_REGIONS,
        unconfirmed=("rdma.ports",),
    ),
}


# The eRDMA GPU VMs (not bare metal): one family, sizes of 1 to 8 GPUs. What that changes against the ebm
# families: the GPU count is the size's (``gpus_by_type``; the family alone reads as its 8-GPU size), the ERIs are
# a VM's (PAI's eRDMA guide: 1 eRDMA NIC on gn8is.*; none given for gn8v, UNCONFIRMED), no ERI rate is published
# (the page gives each size's network baseline: gn8is 8 to 100, gn8v 12 to 100 Gbit/s), NVLink exists only
# between the GPUs of one VM, and the family pages state no UEFI-only rule (they do for the ebm families)
# [ali-gpu-en, ali-pai-erdma, ali-ack-erdma].
def _vm_erdma(gpus_by_type, gpu, ports, status, unconfirmed=()):
    facts = _ebm_erdma(
        dict(gpu, instance_types=tuple(gpus_by_type), count=max(gpus_by_type.values())),
        {"ports": ports, "rate_gbps": None, "total_gbps": None},
        status,
        unconfirmed=unconfirmed + ("rdma.rate_gbps",) + (() if ports else ("rdma.ports",)),
        gpu_sources=("ali-gpu-en",),
    )
    facts["gpus_by_type"] = dict(gpus_by_type)
    facts["uefi_only"] = False
    facts["sources"]["rdma"] = ("ali-gpu-en", "ali-pai-erdma", "ali-erdma-gpu")
    return facts


# gn8is: NVIDIA L20 48 GB (Ada Lovelace, PCIe Gen4 x16), ERIs; PAI: 1 eRDMA NIC on gn8is.*; ACK's eRDMA controller
# names gn8is among its node types. Its page does not say it supports jumbo frames (gn8v's does): MTU 8500 with
# scc_jumbo_frames is UNCONFIRMED there (1400, the default, is not).
FAMILIES["gn8is"] = _vm_erdma(
    {
        "ecs.gn8is.2xlarge": 1,
        "ecs.gn8is.4xlarge": 1,
        "ecs.gn8is-2x.8xlarge": 2,
        "ecs.gn8is-4x.16xlarge": 4,
        "ecs.gn8is-8x.32xlarge": 8,
    },
    {
        "name": "NVIDIA L20 48 GB",
        "compute_capability": "8.9",
        "nvlink": False,
        "nvlink_detail": "none: PCIe Gen4 x16",
    },
    1,
    _SPECIFIC_REGIONS,
    unconfirmed=("rdma.mtu",),
)
# gn8v: the ebmgn8v GPU (96 GB HBM3 at 4 TB/s, NVLink 900 GB/s, FP8; model not named: Hopper, "H20" in Alibaba's
# solution documents) as a VM; the ERI count per size is not published.
FAMILIES["gn8v"] = _vm_erdma(
    {
        "ecs.gn8v.4xlarge": 1,
        "ecs.gn8v.6xlarge": 1,
        "ecs.gn8v-2x.8xlarge": 2,
        "ecs.gn8v-4x.8xlarge": 4,
        "ecs.gn8v-2x.12xlarge": 2,
        "ecs.gn8v-8x.16xlarge": 8,
        "ecs.gn8v-4x.24xlarge": 4,
        "ecs.gn8v-8x.48xlarge": 8,
    },
    {
        "name": "NVIDIA Hopper 96 GB HBM3, H20",
        "compute_capability": "9.0",
        "nvlink": True,
        "nvlink_detail": "NVLink 900 GB/s between the GPUs of one instance",
    },
    None,
    _SPECIFIC_REGIONS,
    unconfirmed=("gpu", "compute_capability"),
)

# ebmgn9g / ebmgn9ge / ebmgn9gc: the same GPU board with 48 or 72 GB and more or less host
# memory. The pages name a "Blackwell professional GPU" with graphics (RT cores, OpenGL, video
# engines) and CUDA 12.8, not the model: the Blackwell GPUs with graphics are compute
# capability 12.0 (the 10.x data-centre parts have none). Network 360 (180 x 2) Gbit/s, ERIs
# up to 360; the ERI count is read from "180 x 2".
for _family, _memory in (("ebmgn9g", 48), ("ebmgn9ge", 72), ("ebmgn9gc", 72)):
    FAMILIES[_family] = _ebm_erdma(
        {
            "instance_types": ("ecs.%s.64xlarge" % _family,),
            "name": "NVIDIA Blackwell professional GPU %d GB" % _memory,
            "compute_capability": "12.0",
            "nvlink": False,
            "nvlink_detail": "none: PCIe Gen5 x16 through a PCIe switch, P2P",
        },
        {"ports": 2, "rate_gbps": 180, "total_gbps": 360},
        _PREVIEW,
        unconfirmed=("gpu", "compute_capability", "rdma.ports"),
        status_source="ali-ebm",
    )
del _family, _memory

# --- lookups -------------------------------------------------------------------------------

_CC = re.compile(r"^(?:sm_(\d+)|(\d+)\.(\d+)|(\d+))$")


def compute_capability(value):
    """'7.0' / 7.0 / 7 / 'sm_70' / '70' -> '7.0'; None when ``value`` does not read as one.

    A bare number below 20 is a major version (7 -> 7.0, 12 -> 12.0); from 20 on it is the
    sm_ digits (70 -> 7.0, 120 -> 12.0), as _gpu_matrix reads them.
    """
    if isinstance(value, bool) or value is None:
        return None
    match = _CC.match(str(value).strip().lower())
    if not match:
        return None
    digits = match.group(1) or match.group(4)
    if match.group(2) is not None:
        return "%d.%d" % (int(match.group(2)), int(match.group(3)))
    if match.group(1) is None and int(digits) < 20:
        return "%d.0" % int(digits)
    return "%d.%s" % (int(digits[:-1] or "0"), digits[-1])


# A multi-GPU size of a VM family carries its GPU count: ecs.gn8is-4x.16xlarge is family gn8is.
_GPU_COUNT_SUFFIX = re.compile(r"^(?P<family>.+)-\d+x$")


def _split_type(value):
    """'ecs.sccgn6.24xlarge' -> ('sccgn6', 'ecs.sccgn6.24xlarge'); 'sccgn6' or 'ecs.sccgn6' -> ('sccgn6', None);
    'ecs.gn8is-4x.16xlarge' -> ('gn8is', 'ecs.gn8is-4x.16xlarge')."""
    text = str(value).strip()
    body = text[len("ecs.") :] if text.startswith("ecs.") else text
    family, dot, size = body.partition(".")
    suffix = _GPU_COUNT_SUFFIX.match(family)
    if suffix and dot and size:
        family = suffix.group("family")
    return family, ("ecs." + body if dot and size else None)


def family_of(instance_type):
    """'ecs.sccgn6.24xlarge' / 'ecs.sccgn6' / 'sccgn6' -> 'sccgn6'."""
    return _split_type(instance_type)[0]


def _version(text):
    return tuple(int(p) for p in text.split("."))


def torch_cuda_builds(cc):
    """The stable PyTorch CUDA wheels with kernels for compute capability ``cc``, oldest CUDA first."""
    releases = {}
    for torch, builds in _gpu_matrix.TORCH_BUILDS.items():
        for cuda, build in builds.items():
            if build.stable and _gpu_matrix.arch_covers(build.archs, cc):
                releases.setdefault(cuda, []).append(torch)
    out = []
    for cuda in sorted(releases, key=_version):
        tag = "cu" + cuda.replace(".", "")
        torches = sorted(releases[cuda], key=_version)
        out.append(
            {
                "cuda": cuda,
                "tag": tag,
                "torch_min": torches[0],
                "torch_max": torches[-1],
                "index_url": TORCH_INDEX % tag[2:],
                "driver_min_branch": _gpu_matrix.wheel_min_driver(cuda).split(".")[0],
            }
        )
    return out


def driver_branch(cc):
    """(branch to install, last branch that supports ``cc`` or None) as text."""
    last = _gpu_matrix.ARCH_DRIVER_BRANCH_MAX.get(cc)
    branch = RECOMMENDED_DRIVER_BRANCH if last is None else min(last, RECOMMENDED_DRIVER_BRANCH)
    return str(branch), None if last is None else str(last)


def kernel_modules(ccs):
    """The NVIDIA kernel-module flavour for a cluster's compute capabilities (one, or a list; any spelling
    ``compute_capability`` reads): "proprietary" when any GPU is older than Turing (7.5: the open modules do not run
    there, nor in a mixed system, NVIDIA says), else "open": required on Blackwell (10.0 and newer), NVIDIA's default
    and suggested flavour on Turing to Hopper from the 560 branch on, and RECOMMENDED_DRIVER_BRANCH (580) is later
    [nv-kernel-modules, nv-open-modules]. A value that reads as no compute capability is left out (the version
    matrix refuses it by name); with none left, "proprietary". The limits are _gpu_matrix's, which refuses the other
    flavour where it cannot run."""
    values = [ccs] if isinstance(ccs, (str, int, float)) else list(ccs or [])
    parsed = [cc for cc in map(compute_capability, values) if cc is not None]
    if not parsed or min(map(_version, parsed)) < _version(_gpu_matrix.OPEN_KERNEL_MODULES_CC_MIN):
        return "proprietary"
    return "open"


def _known_cc(cc, name, value):
    if cc not in _gpu_matrix.ARCH_CUDA_RANGE:
        raise ValueError(
            "%s=%r: compute capability %s is not in the version matrix; known: %s"
            % (name, value, cc, ", ".join(sorted(_gpu_matrix.ARCH_CUDA_RANGE, key=_version)))
        )


def _gpu_profile(cc):
    branch, last = driver_branch(cc)
    return {
        "compute_capability": cc,
        "driver_branch": branch,
        "driver_branch_max": last,
        "kernel_modules": kernel_modules(cc),
        "torch_cuda_builds": torch_cuda_builds(cc),
    }


# The keys of a profile, in the order the filter documents them.
PROFILE_KEYS = (
    "family",
    "instance_type",
    "gpu",
    "compute_capability",
    "gpus_per_node",
    "nvlink",
    "rdma",
    "driver_branch",
    "driver_branch_max",
    "kernel_modules",
    "torch_cuda_builds",
    "rdma_stack",
    "nccl_env",
    "nccl_min_version",
    "status",
    "uefi_only",
    "unconfirmed",
    "sources",
)


def _ordered(values):
    """A profile with every key of PROFILE_KEYS, in that order (None, or empty, when not known)."""
    empty = {"nccl_env": {}, "unconfirmed": [], "sources": []}
    return {key: values.get(key, empty.get(key)) for key in PROFILE_KEYS}


def _source_urls(keys):
    """The URLs (or titles, where no URL was recorded) of source keys, in first-use order."""
    seen = []
    for key in keys:
        text, url = SOURCES[key]
        entry = url or text
        if entry not in seen:
            seen.append(entry)
    return seen


def family_source_keys(facts):
    """Every source key of a family, GPU-level ones (driver, torch) last."""
    keys = [key for group in facts["sources"].values() for key in group]
    return keys + list(DRIVER_SOURCES) + list(TORCH_SOURCES)


def profile(value, name=None):
    """The profile of an instance type, family or compute capability (see the module doc)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValueError(
            "%s is empty: set an instance type such as 'ecs.sccgn6.24xlarge' or a compute capability such as '7.0'"
            % (name or "scc_instance_type")
        )
    cc = compute_capability(value)
    if cc is not None:
        name = name or "scc_gpu_compute_capability"
        _known_cc(cc, name, value)
        return _ordered(dict(_gpu_profile(cc), sources=_source_urls(DRIVER_SOURCES + TORCH_SOURCES)))

    name = name or "scc_instance_type"
    family, instance_type = _split_type(value)
    facts = FAMILIES.get(family)
    if facts is None:
        raise ValueError(
            "%s=%r: instance family %r is not in the supported-instance table "
            "(plugins/module_utils/instance_families.py); supported: %s. For another GPU set "
            "scc_gpu_compute_capability instead" % (name, value, family, ", ".join(sorted(FAMILIES)))
        )
    if instance_type is not None and instance_type not in facts["instance_types"]:
        raise ValueError(
            "%s=%r is not an instance type of family %s; its types: %s"
            % (name, value, family, ", ".join(facts["instance_types"]))
        )
    result = _gpu_profile(facts["compute_capability"])
    result.update(
        {
            "family": family,
            "instance_type": instance_type,
            "gpu": facts["gpu"],
            "gpus_per_node": facts.get("gpus_by_type", {}).get(instance_type, facts["gpus_per_node"]),
            "nvlink": facts["nvlink"],
            "rdma": dict(facts["rdma"], mtu=dict(facts["rdma"]["mtu"]) if facts["rdma"]["mtu"] else None),
            "rdma_stack": dict(facts["rdma_stack"]),
            "nccl_env": dict(facts["nccl_env"]),
            "nccl_min_version": facts["nccl_min_version"],
            "status": facts["status"],
            "uefi_only": facts["uefi_only"],
            "unconfirmed": list(facts["unconfirmed"]),
            "sources": _source_urls(family_source_keys(facts)),
        }
    )
    return _ordered(result)


def type_name(value):
    """The plain type name of a value: ``int``, ``float``, ``bool``, ``str``, ``list``, ``dict`` (ansible-core 2.19
    hands templated values as its own subclasses, such as ``_AnsibleTaggedInt``, whose names mean nothing to a user)."""
    for kind in (bool, int, float, str, dict, list):
        if isinstance(value, kind):
            return kind.__name__
    if hasattr(value, "keys"):
        return "dict"
    if isinstance(value, (tuple, set)) or hasattr(value, "__iter__"):
        return "list"
    return type(value).__name__


def declared_problems(value, name, declared=None):
    """A role's validate: ``[]`` when ``value`` (``scc_instance_type`` as the user gave it, never a templated copy) is
    empty or names a family of the table, else one sentence naming the variable ``name``, the value and the rule.

    ``declared``, when given, is judged first for its type: ansible-core 2.16 to 2.18 render a templated default such
    as ``{{ scc_instance_type }}`` as a string, so a number 8 reaches a templated copy as ``"8"`` (2.19 keeps the 8);
    the roles pass the variable itself (their own copies were removed in 0.4.0: the hardware has one route in). A
    compute capability (``"7.0"``, ``"8"``) is refused too: the roles resolve the family (the hardware fact
    ``scc_hardware``); another GPU is declared with ``scc_gpu_compute_capability``."""
    for given in (declared, value):
        if given is not None and not isinstance(given, str):
            # A number would pass for a compute capability (8 -> 8.0), a boolean for a family 'True'.
            return [
                "%s (%r) must be a string naming an instance type or family such as 'ecs.sccgn6.24xlarge', not a %s."
                % (name, given, type_name(given))
            ]
    if value is None or not value.strip():
        return []
    try:
        resolved = profile(value, name)
    except ValueError as exc:
        return ["%s." % exc]
    if resolved["family"] is None:
        return [
            "%s (%r) is a compute capability, not an instance type: set an instance type or family such as "
            "'ecs.sccgn6.24xlarge' (supported: %s), or scc_gpu_compute_capability for a GPU the table does not "
            "know." % (name, value, ", ".join(sorted(FAMILIES)))
        ]
    return []


def cluster_input_problems(settings):
    """The cluster-wide ``scc_instance_type`` and ``scc_jumbo_frames`` (playbooks/validate.yml, before any host is
    contacted) -> one sentence per value of the wrong type, naming the variable, the value and the rule: the
    instance type a string (or null/empty: not declared), never a number (it would pass for a compute capability)
    nor a boolean, and a family of the supported-instance table (``declared_problems``: the one check, for every
    role: the roles read the instance type from scc_instance_type alone); jumbo frames a boolean as Ansible reads
    one ("false" is false)."""
    problems = declared_problems(settings.get("scc_instance_type"), "scc_instance_type")
    jumbo = settings.get("scc_jumbo_frames", False)
    if input_checks.boolean(jumbo) is None:
        problems.append("scc_jumbo_frames (%r) must be true or false." % (jumbo,))
    return problems
