"""The ranks' optimizer step (mpi_job_framework's TorchDDP.step, what pretrain_bert.py and train_resnet.py call):
the gradients are clipped to norm 1 after the loss scaler's unscale, whatever the scale."""

from __future__ import annotations

import pytest
import torch
from scc_training_runtime import mpi_job_framework


@pytest.mark.parametrize("scaled", [False, True], ids=["fp32", "fp16_loss_scaling"])
def test_a_step_clips_the_gradient_to_norm_1(scaled):
    weight = torch.zeros(2, requires_grad=True)
    optimizer = torch.optim.SGD([weight], lr=1.0)
    scaler = torch.amp.GradScaler("cpu", enabled=scaled, init_scale=2.0**10)
    loss = (weight * torch.tensor([30.0, 40.0])).sum()  # gradient (30, 40): norm 50
    scaler.scale(loss).backward()
    mpi_job_framework.TorchDDP({}).step(optimizer, scaler, [weight])
    assert torch.allclose(weight.detach(), torch.tensor([-0.6, -0.8]))


def test_a_gradient_within_norm_1_is_left_as_it_is():
    weight = torch.zeros(2, requires_grad=True)
    optimizer = torch.optim.SGD([weight], lr=1.0)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    (weight * torch.tensor([0.3, 0.4])).sum().backward()
    mpi_job_framework.TorchDDP({}).step(optimizer, scaler, [weight])
    assert torch.allclose(weight.detach(), torch.tensor([-0.3, -0.4]))
