"""LAMB, the layer-wise adaptive optimizer for large global batches (--optimizer lamb).

You et al., "Large Batch Optimization for Deep Learning: Training BERT in 76 Minutes" (ICLR 2020,
arXiv:1904.00962): Adam-style moments, then each tensor's update scaled by the trust ratio
||w|| / ||update||, so that every layer moves by the same fraction of its norm whatever its
gradient's scale. The paper trains BERT at global batches of 32768-65536 where earlier large-batch
methods fail beyond 8192; NVIDIA DeepLearningExamples' BERT pretrains with it (phase 1: global
batch 65536, learning rate 6e-3, scripts/run_pretraining.sh).

torch ships no LAMB, and the maintained fused one (NVIDIA apex's FusedLAMB) needs an apex build the
python_env role does not install. This is the same update in torch's multi-tensor `_foreach` ops
(a few kernel launches per parameter group, no host sync), following apex's FusedLAMB
(apex/optimizers/fused_lamb.py and csrc/multi_tensor_lamb.cu) in its defaults and choices:
- decoupled weight decay added to the update before the trust ratio (adam_w_mode=True);
- bias correction of both moments; eps 1e-6 outside the square root;
- the trust ratio only on tensors with weight decay (use_nvlamb=False: biases and LayerNorm keep
  the plain learning rate), and 1 where either norm is zero;
- the global gradient-norm clip at 1.0 (FusedLAMB's max_grad_norm) is the framework's step's
  (mpi_job_framework._unscale_and_clip, the same for AdamW), not repeated here.
"""

from __future__ import annotations

import math

import torch


class Lamb(torch.optim.Optimizer):
    """LAMB (module doc). State per parameter: exp_avg, exp_avg_sq (from the start); per group: step."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-6, weight_decay: float = 0.01):
        if not math.isfinite(lr) or lr <= 0:  # NaN compares false with everything
            raise ValueError(f"Lamb: lr must be a finite number > 0 (got {lr})")
        if not math.isfinite(eps) or eps <= 0:
            raise ValueError(f"Lamb: eps must be a finite number > 0 (got {eps})")
        if not all(0.0 <= beta < 1.0 for beta in betas):
            raise ValueError(f"Lamb: betas must be within [0, 1) (got {betas})")
        if weight_decay < 0:
            raise ValueError(f"Lamb: weight_decay must be >= 0 (got {weight_decay})")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay})

    def add_param_group(self, param_group) -> None:
        """The group, with its moments made now rather than at the first step: Horovod's
        broadcast_optimizer_state takes a zero-gradient step on an optimizer without state, which
        for LAMB would shrink every decayed tensor by lr (the trust ratio scales the bare decay up)."""
        super().add_param_group(param_group)
        for p in self.param_groups[-1]["params"]:
            self.state[p]["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            self.state[p]["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if params:
                self._update(group, params)
        return loss

    def _update(self, group, params) -> None:
        beta1, beta2 = group["betas"]
        # One step count per group, a Python int: bias correction without a device read.
        group["step"] = step = group.get("step", 0) + 1
        grads = [p.grad for p in params]
        exp_avg = [self.state[p]["exp_avg"] for p in params]
        exp_avg_sq = [self.state[p]["exp_avg_sq"] for p in params]

        # m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
        torch._foreach_lerp_(exp_avg, grads, 1 - beta1)
        torch._foreach_mul_(exp_avg_sq, beta2)
        torch._foreach_addcmul_(exp_avg_sq, grads, grads, 1 - beta2)
        # update = (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) + wd * w
        denom = torch._foreach_sqrt(exp_avg_sq)
        torch._foreach_div_(denom, (1 - beta2**step) ** 0.5)
        torch._foreach_add_(denom, group["eps"])
        update = torch._foreach_div(exp_avg, denom)
        torch._foreach_div_(update, 1 - beta1**step)
        if group["weight_decay"] != 0:
            torch._foreach_add_(update, params, alpha=group["weight_decay"])
            # The trust ratio ||w|| / ||update|| per tensor (1 where either is zero), on the device.
            w_norm = torch.stack(torch._foreach_norm(params))
            u_norm = torch.stack(torch._foreach_norm(update))
            ratio = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
            torch._foreach_mul_(update, list(ratio.unbind()))
        torch._foreach_add_(params, update, alpha=-group["lr"])
