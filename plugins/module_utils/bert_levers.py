# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""bert_launch's training levers: their defaults per GPU generation, and pretrain_bert.py's options.

Pure Python, no Ansible imports (bench/gpu_bert.sh loads it by path, outside Ansible).

Interface
---------
``generation(compute_capability, cpu_only) -> str``: ``cpu``, ``volta``, ``ampere``, ``hopper`` or
``blackwell`` (compute capability 7.x, 8.x, 9.x, 10.x and 12.x).

``bert_levers(settings) -> dict``: ``settings`` holds ``compute_capability`` (``scc_gpu_compute_capability``),
``cpu_only`` and one key per lever of ``LEVERS`` (``bert_launch_<lever>`` without the prefix), each
``auto`` (the generation's default from ``DEFAULTS``) or a value. Returns every lever resolved, plus
``generation``. Raises ValueError naming ``bert_launch_<lever>`` on a bad value.

``lever_problems(settings) -> list``: the same checks as sentences (bert_launch's validate).

``lever_argv(levers) -> list``: pretrain_bert.py's options for resolved levers.

Why each default (what was proven where: the role README)
----------------------------------------------------------
- vocab_multiple 64: the decoder's [rows x H] x [H x V] GEMM keeps V on tensor-core tile boundaries
  (NVIDIA "Matrix Multiplication Background User's Guide": multiples of 8 for fp16, 64 better;
  BERT's 30522 becomes 30528). Harmless on CPUs.
- mlm_head masked: the decoder on the ~15% predicted positions only, as NVIDIA DeepLearningExamples'
  BERT does (its masked_lm_positions); measured on the lab's CPUs by ``make bench-train``.
- attention sdpa: torch.nn.functional.scaled_dot_product_attention (flash kernels on sm80+,
  memory-efficient ones on sm70); eager elsewhere only when asked.
- optimizer auto: left to pretrain_bert.py, which alone knows the world size: LAMB above a global
  batch of 8192 sequences (the LAMB paper, arXiv:1904.00962: earlier large-batch methods do not
  perform well for BERT beyond 8192; it trains at 32768-65536), AdamW below. LAMB is the role's
  own multi-tensor implementation (bert_lamb.py; apex's FusedLAMB would need an apex build).
- fused_adamw: one kernel for the whole update on GPUs (torch.optim.AdamW(fused=True)); it also
  takes GradScaler's inf check on the device, where the unfused step reads it on the host.
- grad_accum 1: accumulation changes the global batch; it is a choice, not a hardware default.
- DDP: gradient_as_bucket_view saves a gradient copy; static_graph lets DDP skip the unused-
  parameter search (refused with grad_accum > 1: DDP's no_sync then fails an internal assert in
  torch 2.13); bucket 25 MiB is DDP's own default.
- ddp_compression fp16 on volta: sccgn6 has 2 x 25 Gbit/s RoCE per node, and fp32 gradients of
  BERT-large all-reduce slower than they compute (issue 13); half-width gradients halve the bytes
  (Horovod's and AIACC's fp16 compression). The later families have 160 Gbit/s and more of eRDMA:
  none, so no gradient loses precision.
- compile off: minutes of compilation for runs of minutes (the lab's too); opt in per run.
- data shards: tokenised once (on CPFS when mounted, shared by every node) and read by a
  DataLoader; 2 workers with pinned memory on GPU nodes, 0 on CPUs (no extra process competing with
  the ranks for the cores).
"""

from __future__ import absolute_import, division, print_function

import json

from ansible_collections.scc.training.plugins.module_utils import input_checks as checks

__metaclass__ = type

# lever -> (pretrain_bert.py option, kind): int (>= 1, or >= 0 for loader_workers), bool (a flag),
# or the tuple of its choices (checked by bert_launch's argument spec, which lists them too, with auto).
LEVERS = {
    "vocab_multiple": ("--vocab-multiple", "int"),
    "mlm_head": ("--mlm-head", ("full", "masked")),
    "attention": ("--attention", ("eager", "sdpa")),
    "grad_accum": ("--grad-accum", "int"),
    "optimizer": ("--optimizer", ("adamw", "lamb")),
    "fused_adamw": ("--fused-adamw", ("on", "off")),
    "ddp_bucket_mb": ("--ddp-bucket-mb", "int"),
    "ddp_static_graph": ("--ddp-static-graph", "bool"),
    "ddp_grad_as_bucket_view": ("--ddp-grad-as-bucket-view", "bool"),
    "ddp_compression": ("--ddp-compression", ("none", "fp16", "bf16")),
    "compile": ("--compile", "bool"),
    "data": ("--data", ("inline", "shards")),
    "loader_workers": ("--loader-workers", "int0"),
}

_GPU = {
    "vocab_multiple": 64,
    "mlm_head": "masked",
    "attention": "sdpa",
    "grad_accum": 1,
    "optimizer": "auto",
    "fused_adamw": "on",
    "ddp_bucket_mb": 25,
    "ddp_static_graph": True,
    "ddp_grad_as_bucket_view": True,
    "ddp_compression": "none",
    "compile": False,
    "data": "shards",
    "loader_workers": 2,
}
DEFAULTS = {
    "cpu": dict(_GPU, fused_adamw="off", ddp_static_graph=False, loader_workers=0),
    "volta": dict(_GPU, ddp_compression="fp16"),
    "ampere": dict(_GPU),
    "hopper": dict(_GPU),
    "blackwell": dict(_GPU),
}
_GENERATIONS = {7: "volta", 8: "ampere", 9: "hopper", 10: "blackwell", 12: "blackwell"}


def generation(compute_capability, cpu_only=False):
    """The generation whose defaults apply: cpu when ``cpu_only``, else by the major compute capability."""
    if cpu_only:
        return "cpu"
    text = str(compute_capability).strip().lower().replace("sm_", "")
    major = text.split(".", 1)[0] if "." in text else text[:-1]
    if not major.isdigit() or int(major) not in _GENERATIONS:
        raise ValueError(
            "bert_launch_gpu_compute_capability (scc_gpu_compute_capability) (%s) has no bert_launch lever defaults;"
            " known majors: %s"
            % (
                json.dumps(
                    compute_capability
                    if isinstance(compute_capability, (str, int, float))
                    else repr(compute_capability)
                ),
                ", ".join(str(m) for m in sorted(_GENERATIONS)),
            )
        )
    return _GENERATIONS[int(major)]


def _as_bool(value):
    """Ansible's reading of a boolean (input_checks.boolean), None for what is none."""
    return checks.boolean(value)


def _resolve(name, value, default):
    """(value, problem): `value` resolved against the default, or a sentence naming the variable."""
    if value is None or str(value) == "auto":
        return default, None
    kind = LEVERS[name][1]
    if kind in ("int", "int0"):
        low = 0 if kind == "int0" else 1
        try:
            number = int(str(value))
        except ValueError:
            number = None
        if isinstance(value, bool) or number is None or number < low:
            return None, "bert_launch_%s must be auto or an integer >= %d (got %s)." % (name, low, value)
        return number, None
    if kind == "bool":
        flag = _as_bool(value)
        if flag is None:
            return None, "bert_launch_%s must be auto, true or false (got %s)." % (name, value)
        return flag, None
    # A choice: bert_launch's argument spec holds its choices (and checks them), not judged again here.
    return str(value), None


def _resolved(settings):
    gen = generation(settings.get("compute_capability"), _as_bool(settings.get("cpu_only", False)))
    levers, problems = {}, []
    for name in LEVERS:
        value, problem = _resolve(name, settings.get(name, "auto"), DEFAULTS[gen][name])
        levers[name] = value
        if problem:
            problems.append(problem)
    if not problems and levers["grad_accum"] > 1 and levers["ddp_static_graph"]:
        if str(settings.get("ddp_static_graph", "auto")) == "auto":
            levers["ddp_static_graph"] = False  # DDP's no_sync refuses static_graph (module doc)
        else:
            problems.append(
                "bert_launch_ddp_static_graph true does not combine with bert_launch_grad_accum > 1 "
                "(DDP's no_sync fails an internal assert with static_graph in torch 2.13)."
            )
    levers["generation"] = gen
    return levers, problems


def lever_problems(settings):
    """One sentence per bad lever value, naming its variable ([] when all is well)."""
    try:
        return _resolved(settings)[1]
    except ValueError as exc:
        return [str(exc) + "."]


def bert_levers(settings):
    """Every lever resolved for the generation (module doc); ValueError naming the variable on a bad value."""
    levers, problems = _resolved(settings)
    if problems:
        raise ValueError(" ".join(problems))
    return levers


def lever_argv(levers):
    """pretrain_bert.py's options for resolved levers (a flag only when true)."""
    argv = []
    for name, (option, kind) in LEVERS.items():
        if name not in levers:
            continue
        value = levers[name]
        if kind == "bool":
            argv += [option] if value else []
        else:
            argv += [option, str(value)]
    return argv
