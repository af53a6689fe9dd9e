# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""One declaration, every hardware default: the resolver over the supported-instance table.

``resolve(instance_type=None, nodes=None, jumbo_frames=False, fractions=None) -> dict``
    ``instance_type`` (``scc_instance_type``: ``ecs.ebmgn8v.48xlarge``, a family, or empty) wins;
    without it ``nodes`` -- ``{host: {"gpus": gpu_info's gpus (names), "rdma_devices": rdma_info's
    devices}}``, what the nodes report -- decides. The result holds every default a role reads:

    - ``gpu_models`` (the GPU_MODELS keys of the cluster), ``gpu_count`` (per node; from nodes the
      smallest they show), ``compute_capabilities`` (all of a mixed cluster's, computed once);
    - ``driver_branch`` (the oldest "last branch" of the cluster's GPUs, else R580), ``kernel_modules`` (open, or
      proprietary where a GPU is older than Turing: ``instance_families.kernel_modules``),
      ``torch_cuda_builds`` (the stable wheels with kernels for every GPU) and ``torch_cuda`` (the newest);
    - ``nccl_tests_gencode``: nvcc's ``-gencode`` for every compute capability of the cluster;
    - ``nvlink_links`` and ``nvlink_gbs_per_link`` per GPU (0 and None on a PCIe-only GPU),
      ``intra_node``: ``{kind: nvlink | pcie, gbs, detail}`` -- the per-GPU, per-direction bandwidth
      that bounds all_reduce's busbw on one node;
    - ``rdma``: ``{kind: roce_v2 | erdma | None, ports, rate_gbps, total_gbps}`` and ``mtu`` (eRDMA's
      netdev MTU: 8500 with jumbo frames, else 1400; None for mlx5 RoCE);
    - ``nccl_env`` (eRDMA: PAI's preset values; mlx5 RoCE: the current ``NCCL_SOCKET_IFNAME``),
      ``nccl_min_version`` (eRDMA: 2.19);
    - ``nccl_check``: ``{nvlink_links, nvlink_gbs_per_link, intra_node_gbs, link_rate_gbps}``, the
      inputs of ``nccl_check.thresholds``; ``thresholds`` (its result with ``fractions``) and
      ``expected`` (the busbw a healthy node reaches by the published ratios below);
    - ``unconfirmed``: what no vendor source confirms, ``notes``: what the caller must look at.
    Raises ValueError naming ``scc_instance_type`` when neither input resolves a GPU.

Why these bases (nccl-tests ``doc/PERFORMANCE.md``: all_reduce busbw = algbw x 2(n-1)/n, "a number
that reflects how optimally the hardware is used", comparable to the per-GPU link bandwidth of one
direction; hardware_facts 7.2):

- NVLink / NVSwitch: links x GB/s per link and direction (NVLink2, 3 and 4: 25 GB/s per direction,
  50 GB/s both ways; NVIDIA datasheets, ``HW_SOURCES``). A healthy 8-GPU node reaches about 0.8 of it
  (NVIDIA/nccl-tests#149, sjeaugey: ~20 GB/s effective per link on A100 -> ~230 GB/s;
  NVIDIA/nccl-tests#212: 8x H100 ~370 GB/s of 450).
- PCIe only: the x16 link's rate per direction (PCI Express Base Specification: 16 GT/s per lane in
  Gen4, 32 GT/s in Gen5, 128b/130b encoding -> 31.5 and 63.0 GB/s for x16). 8 GPUs on PCIe reach
  less of it, bound by the CPU and memory (NVIDIA/nccl#1639, sjeaugey: 28 GB/s busbw on 8 RTX 5090,
  PCIe Gen5, "I'm actually impressed"), i.e. 0.44 of 63 GB/s; the default PCIe fraction (0.35) sits
  below that. No published L20 figure was found: UNCONFIRMED for L20 itself.
- Between nodes: the node's RDMA rate (ports x rate: RoCE ports, or ERIs) / 8; NVIDIA/nccl-tests#119
  (sjeaugey): ~12 GB/s busbw per 100 Gb/s NIC, 0.96 of the line rate. For eRDMA no published 8-GPU
  figure at these rates was found: the ratio is NVIDIA's, UNCONFIRMED on ERIs.

Pure Python, no Ansible imports: the filter ``scc.training.hardware_defaults`` wraps ``resolve``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.scc.training.plugins.module_utils import instance_families as table
from ansible_collections.scc.training.plugins.module_utils import nccl_check, rdma
from ansible_collections.scc.training.plugins.module_utils.input_checks import boolean

HW_SOURCES = {
    "nv-v100": (
        "NVIDIA Tesla V100 datasheet: NVLink 300 GB/s (six NVLink2 links x 50 GB/s both ways); Volta whitepaper",
        "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf",
    ),
    "nv-a100": (
        "NVIDIA A100 datasheet: NVLink 600 GB/s (twelve NVLink3 links x 50 GB/s both ways) on SXM4",
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
    ),
    "nv-h100": (
        "NVIDIA H100 datasheet: NVLink 900 GB/s on SXM5; Hopper whitepaper: 18 fourth-generation NVLinks",
        "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
    ),
    "nv-h200": (
        "NVIDIA H200 datasheet: NVLink 900 GB/s on the SXM board (the H200 NVL PCIe card: 2- or 4-way bridges)",
        "https://www.nvidia.com/en-us/data-center/h200/",
    ),
    "h800": (
        "H800 (export variant of H100 SXM5): NVLink 400 GB/s both ways (press and vendor comparisons; NVIDIA "
        "publishes no H800 datasheet in English); 8 links is 400 / 50, not a published count",
        "https://www.philisun.com/technical-analysis/nvidia-h800-vs-h100-a-technical-deep-dive-into-politically-defined-ai-chips/",
    ),
    "h20": (
        "H20 (export variant of Hopper): 96 GB HBM3 at 4.0 TB/s, NVLink 900 GB/s (third-party spec pages; "
        "Alibaba's ebmgn8v page: NVLink 900 GB/s); 18 links is 900 / 50, not a published count",
        "https://willitrunai.com/es/gpus/h20-96gb",
    ),
    "pcie": (
        "PCI Express Base Specification 4.0 / 5.0: 16 and 32 GT/s per lane, 128b/130b: x16 = 31.5 and 63.0 GB/s "
        "per direction",
        "https://pcisig.com/specifications",
    ),
    "nccl-perf": (
        "nccl-tests doc/PERFORMANCE.md: busbw of all_reduce = algbw x 2(n-1)/n, comparable to the hardware's "
        "link bandwidth",
        "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md",
    ),
    "nccl-tests-149": (
        "NVIDIA/nccl-tests#149 (sjeaugey): 8x A100 ~230 GB/s, 12 NVLinks x ~20 GB/s effective",
        "https://github.com/NVIDIA/nccl-tests/issues/149",
    ),
    "nccl-tests-119": (
        "NVIDIA/nccl-tests#119 (sjeaugey): ~12 GB/s busbw per 100 Gb/s NIC",
        "https://github.com/NVIDIA/nccl-tests/issues/119",
    ),
    "nccl-1639": (
        "NVIDIA/nccl#1639: 8x RTX 5090 on PCIe Gen5, all_reduce busbw 28 GB/s (sjeaugey: PCIe systems are "
        "bound by what the CPU and memory deliver)",
        "https://github.com/NVIDIA/nccl/issues/1639",
    ),
}

# Published efficiencies (busbw / basis) of a healthy node: the "expected" figures of the tests.
EXPECTED_RATIO = {"nvlink": 0.8, "pcie": 0.44, "network": 0.96}
DEFAULT_FRACTIONS = {"single_fraction": 0.7, "pcie_fraction": 0.35, "multi_fraction": 0.7}
PCIE_X16_GBS = {4: 31.5, 5: 63.0}


class _Model(object):
    """One GPU model: its nvidia-smi name pattern and interconnect facts."""

    def __init__(self, key, pattern, cc, links, pcie_gen, sources, unconfirmed=()):
        self.key, self.pattern, self.cc = key, re.compile(pattern, re.I), cc
        self.links, self.pcie_gen, self.sources, self.unconfirmed = links, pcie_gen, sources, unconfirmed

    @property
    def gbs_per_link(self):
        # NVLink2, 3 and 4 all run 25 GB/s per link and direction (50 GB/s both ways).
        return 25.0 if self.links else None


# First match wins: the PCIe forms of a model come before its SXM form.
GPU_MODELS = (
    _Model("V100 PCIe", r"V100S?[- ]PCIE", "7.0", 0, 3, ("nv-v100",)),
    _Model("V100 SXM2", r"V100.*SXM", "7.0", 6, 3, ("nv-v100",)),
    _Model("A100 PCIe", r"A100[- ]PCIE", "8.0", 0, 4, ("nv-a100",)),
    _Model("A100 SXM4", r"A100.*SXM", "8.0", 12, 4, ("nv-a100",)),
    _Model("H100 PCIe", r"H100[- ](PCIE|NVL)", "9.0", 0, 5, ("nv-h100",)),
    _Model("H800 SXM5", r"\bH800\b(?!.*PCIE)", "9.0", 8, 5, ("h800",), ("nvlink_links",)),
    _Model("H100 SXM5", r"\bH100\b", "9.0", 18, 5, ("nv-h100",)),
    _Model("H200 NVL", r"\bH200 NVL\b", "9.0", 0, 5, ("nv-h200",)),
    _Model("H200 SXM", r"\bH200\b", "9.0", 18, 5, ("nv-h200",)),
    _Model("H20", r"\bH20\b", "9.0", 18, 5, ("h20", "ali-ebm"), ("nvlink_links",)),
    _Model("L20", r"\bL20\b", "8.9", 0, 4, ("ali-ebm", "pcie")),
    _Model(
        "Blackwell professional",
        r"RTX PRO \d+\b.*Blackwell|Blackwell professional",
        "12.0",
        0,
        5,
        ("ali-ebm", "pcie"),
        ("gpu",),
    ),
    _Model("T4", r"\bT4\b", "7.5", 0, 3, ("nv-cuda-gpus",)),
)
_MODELS = {model.key: model for model in GPU_MODELS}

# Family -> GPU model key (instance_families.FAMILIES' ``gpu``, as nvidia-smi names the model).
FAMILY_GPU = {
    "sccgn6": "V100 SXM2",
    "sccgn6e": "V100 SXM2",
    "sccgn6ne": "V100 SXM2",
    "ebmgn7ex": "A100 SXM4",
    "ebmgn8v": "H20",
    "ebmgn8is": "L20",
    "ebmgn8ia": "L20",
    "gn8is": "L20",
    "gn8v": "H20",
    "ebmgn9g": "Blackwell professional",
    "ebmgn9ge": "Blackwell professional",
    "ebmgn9gc": "Blackwell professional",
}

# The mlx5 RoCE families' NCCL settings today (instance_families: NCCL_SOCKET_IFNAME only).
_ERDMA_HCA = {"NCCL_IB_HCA": "erdma"}


def model_for_name(name):
    """nvidia-smi's product name -> the GPU_MODELS entry, or None when not known."""
    for model in GPU_MODELS:
        if name and model.pattern.search(name):
            return model
    return None


def expected_nvlinks_for(name):
    """Active NVLinks per GPU of this product name, or None when the model is not known."""
    model = model_for_name(name)
    return None if model is None else model.links


def gencode(ccs):
    """['8.9', '9.0'] -> '-gencode=arch=compute_89,code=sm_89 -gencode=arch=compute_90,code=sm_90'."""
    flags = []
    for cc in sorted(set(ccs), key=lambda c: tuple(int(p) for p in c.split("."))):
        digits = cc.replace(".", "")
        flags.append("-gencode=arch=compute_%s,code=sm_%s" % (digits, digits))
    return " ".join(flags)


def _intra_node(models):
    """The slowest GPU's basis: NVLink links x 25 GB/s, else its PCIe x16 rate per direction."""
    bases = []
    for model in models:
        if model.links:
            bases.append(("nvlink", model.links * model.gbs_per_link, "%d NVLinks x 25 GB/s" % model.links))
        else:
            bases.append(("pcie", PCIE_X16_GBS[max(model.pcie_gen, 4)], "PCIe Gen%d x16 (no NVLink)" % model.pcie_gen))
    kind, gbs, detail = min(bases, key=lambda b: b[1])
    return {"kind": kind, "gbs": gbs, "detail": detail}


def _rdma_from_devices(devices):
    """rdma_info's devices of one node -> {kind, provider, ports, rate_gbps, total_gbps}."""
    active = [(d, p) for d in devices or [] for p in d.get("ports", []) if p.get("state") == "PORT_ACTIVE"]
    if not active:
        return {"kind": None, "provider": None, "ports": 0, "rate_gbps": None, "total_gbps": None}
    erdma = any(rdma.is_erdma(d) for d, _p in active)
    rates = {p.get("rate_gbps") for _d, p in active}
    rate = rates.pop() if len(rates) == 1 else None
    return {
        "kind": "erdma" if erdma else "roce_v2",
        "provider": "erdma" if erdma else "mlx5",
        "ports": len(active),
        "rate_gbps": rate,
        "total_gbps": rate * len(active) if rate else None,
    }


def _from_nodes(nodes):
    """What the nodes report -> (models, gpu_count, rdma, notes, unknown names)."""
    models, counts, notes, unknown, rdmas = {}, [], [], [], []
    for host in sorted(nodes or {}):
        report = nodes[host] or {}
        gpus = report.get("gpus") or []
        counts.append(len(gpus))
        for gpu in gpus:
            name = gpu.get("name") if isinstance(gpu, dict) else gpu
            model = model_for_name(name)
            if model is None:
                unknown.append("%s: %s" % (host, name))
            else:
                models[model.key] = model
        rdmas.append(_rdma_from_devices(report.get("rdma_devices")))
    if counts and len(set(counts)) > 1:
        notes.append("the nodes show different GPU counts (%s): the smallest is used" % sorted(set(counts)))
    kinds = {r["kind"] for r in rdmas}
    if len(kinds) > 1:
        notes.append("the nodes report different RDMA kinds %s: set scc_instance_type" % sorted(map(str, kinds)))
    rdma = min(rdmas, key=lambda r: r["total_gbps"] or 0) if rdmas else None
    return list(models.values()), (min(counts) if counts else None), rdma, notes, unknown


def _family_facts(instance_type):
    prof = table.profile(instance_type, "scc_instance_type")
    if prof["family"] is None:
        raise ValueError(
            "scc_instance_type (%r) must name an instance type or family such as 'ecs.sccgn6.24xlarge' (supported: "
            "%s), not a compute capability" % (instance_type, ", ".join(sorted(FAMILY_GPU)))
        )
    model = _MODELS[FAMILY_GPU[prof["family"]]]
    if prof["gpus_per_node"] == 1 and model.links:
        # A one-GPU size of a VM family (gn8v.4xlarge): no peer to link to, its basis is the PCIe link.
        model = _Model(model.key, model.pattern.pattern, model.cc, 0, model.pcie_gen, model.sources, model.unconfirmed)
    elif model.links and prof["gpus_per_node"] < 8 and "nvlink_links" not in model.unconfirmed:
        # A 2- or 4-GPU size of a VM family: how many of the GPU's NVLinks reach its peers is not published.
        model = _Model(
            model.key,
            model.pattern.pattern,
            model.cc,
            model.links,
            model.pcie_gen,
            model.sources,
            tuple(model.unconfirmed) + ("nvlink_links",),
        )
    rdma = dict(prof["rdma"])
    return prof, model, rdma


def _nccl_env(kind, family_env):
    if kind == "erdma":
        return dict(family_env, **_ERDMA_HCA)
    return dict(family_env)


def _torch(ccs):
    """The stable builds with kernels for every compute capability, oldest CUDA first."""
    per_cc = [table.torch_cuda_builds(cc) for cc in ccs]
    tags = set.intersection(*[{b["tag"] for b in builds} for builds in per_cc]) if per_cc else set()
    return [b for b in per_cc[0] if b["tag"] in tags] if per_cc else []


def resolve(instance_type=None, nodes=None, jumbo_frames=False, fractions=None):
    """See the module docstring."""
    limits = dict(DEFAULT_FRACTIONS, **(fractions or {}))
    jumbo = boolean(jumbo_frames)  # as Ansible reads it: the string "false" is false, never Python's bool("false")
    if jumbo is None:
        raise ValueError("jumbo_frames (scc_jumbo_frames) must be true or false, got %r" % (jumbo_frames,))
    unconfirmed, notes = [], []
    family = None
    declared = instance_type is not None and str(instance_type).strip() != ""
    if declared and not isinstance(instance_type, str):
        raise ValueError(
            "scc_instance_type (%r) must be a string naming an instance type such as 'ecs.sccgn6.24xlarge', not a %s"
            % (instance_type, type(instance_type).__name__)
        )
    if declared:
        prof, model, rdma = _family_facts(instance_type)
        family, models, gpu_count = prof["family"], [model], prof["gpus_per_node"]
        rdma = {k: rdma.get(k) for k in ("kind", "provider", "ports", "rate_gbps", "total_gbps")}
        family_env, nccl_min = prof["nccl_env"], prof["nccl_min_version"]
        unconfirmed += ["family." + key for key in prof["unconfirmed"]]
        source = "scc_instance_type"
    else:
        models, gpu_count, rdma, notes, unknown = _from_nodes(nodes)
        if unknown:
            notes.append("GPU model not in the table, not judged by name: %s" % ", ".join(unknown))
        if not models:
            raise ValueError(
                "scc_instance_type is not set and the nodes report no known GPU (%s): set scc_instance_type "
                "(supported: %s) or the roles' own values"
                % (", ".join(unknown) or "none", ", ".join(sorted(FAMILY_GPU)))
            )
        rdma = rdma or {"kind": None, "provider": None, "ports": 0, "rate_gbps": None, "total_gbps": None}
        family_env = (
            table.FAMILIES["ebmgn8v"]["nccl_env"] if rdma["kind"] == "erdma" else table.FAMILIES["sccgn6"]["nccl_env"]
        )
        nccl_min = "2.19" if rdma["kind"] == "erdma" else None
        source = "nodes"
        if rdma["kind"] is not None and rdma["total_gbps"] is None:
            notes.append("the RDMA ports report no common rate: set nccl_check_link_rate_gbps")
    for model in models:
        unconfirmed += ["%s.%s" % (model.key, key) for key in model.unconfirmed]
    ccs = sorted({m.cc for m in models}, key=lambda c: tuple(int(p) for p in c.split(".")))
    branches = [table.driver_branch(cc) for cc in ccs]
    intra = _intra_node(models)
    nvlink_links = min(m.links for m in models)
    link_rate = rdma["total_gbps"]
    limits_in = {
        "nvlink_links": nvlink_links,
        "nvlink_gbs_per_link": 25.0 if nvlink_links else None,
        "intra_node_gbs": intra["gbs"],
        "link_rate_gbps": link_rate,
    }
    builds = _torch(ccs)
    result = {
        "source": source,
        "family": family,
        "gpu_models": [m.key for m in models],
        "gpu_count": gpu_count,
        "compute_capabilities": ccs,
        "driver_branch": min((b[0] for b in branches), key=int),
        "kernel_modules": table.kernel_modules(ccs),
        "torch_cuda_builds": builds,
        "torch_cuda": builds[-1]["tag"] if builds else None,
        "nccl_tests_gencode": gencode(ccs),
        "nvlink_links": nvlink_links,
        "nvlink_gbs_per_link": limits_in["nvlink_gbs_per_link"],
        "intra_node": intra,
        "rdma": rdma,
        "mtu": ({True: 8500, False: 1400}[jumbo] if rdma["kind"] == "erdma" else None),
        "nccl_env": _nccl_env(rdma["kind"], family_env),
        "nccl_min_version": nccl_min,
        "nccl_check": limits_in,
        "unconfirmed": unconfirmed,
        "notes": notes,
    }
    result["thresholds"] = threshold_pair(limits_in, limits)
    result["expected"] = {
        "single_node_gbps": round(EXPECTED_RATIO[intra["kind"]] * intra["gbs"], 2),
        "multi_node_gbps": round(EXPECTED_RATIO["network"] * link_rate / 8.0, 2) if link_rate else None,
    }
    return result


def threshold_pair(limits_in, fractions):
    """The resolved bases and the fractions -> nccl_check.thresholds' result (multi None without a rate)."""
    pcie = not limits_in.get("nvlink_links")
    rate = limits_in.get("link_rate_gbps")
    result = nccl_check.thresholds(
        {
            "nvlink_links": limits_in.get("nvlink_links") or 0,
            "nvlink_gbs_per_link": limits_in.get("nvlink_gbs_per_link") or 0,
            "intra_node_gbs": limits_in["intra_node_gbs"] if pcie else None,
            "single_fraction": fractions["pcie_fraction"] if pcie else fractions["single_fraction"],
            "link_rate_gbps": rate or 1,
            "multi_fraction": fractions["multi_fraction"],
        }
    )
    if not rate:
        result["multi_node_gbps"] = None
    return result


# nccl_check's variables that a hand-set value overrides (null: the resolved one).
_NCCL_CHECK_OVERRIDES = (
    ("nccl_check_nvlink_links", "nvlink_links"),
    ("nccl_check_nvlink_gbs_per_link", "nvlink_gbs_per_link"),
    ("nccl_check_intra_node_gbs", "intra_node_gbs"),
    ("nccl_check_link_rate_gbps", "link_rate_gbps"),
)


def _set(value):
    return value is not None and str(value).strip() != ""


def nccl_check_settings(hardware, settings, node_count=1):
    """resolve()'s result and nccl_check's variables -> what the role runs with:
    ``{gpus, gencode, limits, thresholds, basis, unconfirmed, notes}``. A variable set by hand wins over
    the resolved value. Raises ValueError naming the variable that must be set when neither gives it."""
    hardware = hardware or {}
    resolved = dict(hardware.get("nccl_check") or {})
    limits = {}
    for variable, key in _NCCL_CHECK_OVERRIDES:
        limits[key] = float(settings[variable]) if _set(settings.get(variable)) else resolved.get(key)
    # A hand-set NVLink count decides the basis: links x rate when > 0, the PCIe basis at 0.
    if _set(settings.get("nccl_check_nvlink_links")):
        limits["nvlink_links"] = int(float(settings["nccl_check_nvlink_links"]))
        if limits["nvlink_links"] and not _set(settings.get("nccl_check_nvlink_gbs_per_link")):
            limits["nvlink_gbs_per_link"] = limits["nvlink_gbs_per_link"] or 25.0
    pcie = not limits.get("nvlink_links")
    if pcie and not limits.get("intra_node_gbs"):
        raise ValueError(
            "nccl_check_intra_node_gbs: no NVLink and no PCIe bandwidth is known for these GPUs (%s): set it, or "
            "nccl_check_nvlink_links and nccl_check_nvlink_gbs_per_link" % ", ".join(hardware.get("gpu_models") or [])
        )
    if int(node_count) > 1 and not limits.get("link_rate_gbps"):
        raise ValueError(
            "nccl_check_link_rate_gbps: the RDMA rate between nodes is not known (%s): set it (Gb/s per node, all "
            "ports)" % ("; ".join(hardware.get("notes") or []) or "no RDMA port reported")
        )
    fractions = {
        "single_fraction": settings.get("nccl_check_single_min_fraction", DEFAULT_FRACTIONS["single_fraction"]),
        "pcie_fraction": settings.get("nccl_check_pcie_min_fraction", DEFAULT_FRACTIONS["pcie_fraction"]),
        "multi_fraction": settings.get("nccl_check_multi_min_fraction", DEFAULT_FRACTIONS["multi_fraction"]),
    }
    gpus = settings.get("nccl_check_gpus")
    gpus = int(gpus) if _set(gpus) else hardware.get("gpu_count")
    if not gpus:
        raise ValueError("nccl_check_gpus: the GPU count per node is not known: set it")
    gencode_flags = settings.get("nccl_check_nvcc_gencode")
    return {
        "gpus": gpus,
        "gencode": gencode_flags if _set(gencode_flags) else hardware.get("nccl_tests_gencode"),
        "limits": limits,
        "thresholds": threshold_pair(limits, fractions),
        "basis": (
            "PCIe %.1f GB/s per GPU and direction" % limits["intra_node_gbs"]
            if pcie
            else "%d NVLinks x %.1f GB/s" % (limits["nvlink_links"], limits["nvlink_gbs_per_link"])
        ),
        "unconfirmed": list(hardware.get("unconfirmed") or []),
        "notes": list(hardware.get("notes") or []),
    }
