"""bert_lamb.Lamb against LAMB's formulas (You et al., arXiv:1904.00962, Algorithm 2, with apex
FusedLAMB's choices: decoupled weight decay inside the trust ratio, bias correction, no trust ratio
on tensors without weight decay), written here tensor by tensor; and bert_train's parameter groups
and optimizer choice."""

from __future__ import annotations

import math

import pytest
import torch
from scc_training_runtime import bert_lamb, bert_model, bert_train


def _reference_step(weights, grads, moments, step, lr, decay, betas=(0.9, 0.999), eps=1e-6):
    """One LAMB step per tensor, in plain float64 arithmetic: the new weights and moments."""
    beta1, beta2 = betas
    out = []
    for w, g, (m, v) in zip(weights, grads, moments):
        w, g, m, v = (t.double() for t in (w, g, m, v))
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat, v_hat = m / (1 - beta1**step), v / (1 - beta2**step)
        r = m_hat / (v_hat.sqrt() + eps) + decay * w
        trust = 1.0
        if decay != 0:
            w_norm, r_norm = w.norm().item(), r.norm().item()
            trust = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
        out.append((w - lr * trust * r, (m, v)))
    return out


def _params(seed=0):
    g = torch.Generator().manual_seed(seed)
    shapes = [(8, 4), (4,), (3, 3, 2)]
    return [torch.nn.Parameter(torch.randn(shape, generator=g)) for shape in shapes]


def _grads(params, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(p.shape, generator=g) * 10 ** (i - 1) for i, p in enumerate(params)]


@pytest.mark.parametrize("decay", [0.01, 0.0])
def test_two_steps_match_the_formulas(decay):
    params = _params()
    opt = bert_lamb.Lamb([{"params": params, "weight_decay": decay}], lr=0.05)
    weights = [p.detach().clone() for p in params]
    moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
    for step in (1, 2):  # the second step checks the moments carried over and the bias correction
        grads = _grads(params, seed=step)
        for p, g in zip(params, grads):
            p.grad = g.clone()
        opt.step()
        expected = _reference_step(weights, grads, moments, step, lr=0.05, decay=decay)
        weights = [w for w, _moments in expected]
        moments = [mv for _weight, mv in expected]
        for p, w in zip(params, weights):
            assert torch.allclose(p.detach().double(), w, rtol=1e-5, atol=1e-6)
    assert opt.param_groups[0]["step"] == 2


def test_the_trust_ratio_moves_every_decayed_tensor_by_lr_times_its_norm():
    # Gradients 1000x apart in scale: with the trust ratio each tensor still moves by lr * ||w||.
    params = _params(seed=3)
    before = [p.detach().clone() for p in params]
    opt = bert_lamb.Lamb(params, lr=0.01, weight_decay=0.01)
    for p, g in zip(params, _grads(params, seed=4)):
        p.grad = g
    opt.step()
    for p, w in zip(params, before):
        assert (p.detach() - w).norm().item() == pytest.approx(0.01 * w.norm().item(), rel=1e-4)


def test_without_weight_decay_the_update_is_adams():
    # Step 1 of bias-corrected Adam is lr * g / (|g| + eps): every element moves by about lr.
    params = _params(seed=5)
    before = [p.detach().clone() for p in params]
    opt = bert_lamb.Lamb([{"params": params, "weight_decay": 0.0}], lr=0.01)
    for p, g in zip(params, _grads(params, seed=6)):
        p.grad = g
    opt.step()
    for p, w in zip(params, before):
        assert torch.allclose((w - p.detach()).abs(), torch.full_like(w, 0.01), rtol=1e-3)


def test_a_zero_tensor_takes_the_plain_learning_rate_and_a_gradless_one_stays():
    zero, idle = torch.nn.Parameter(torch.zeros(5)), torch.nn.Parameter(torch.ones(3))
    opt = bert_lamb.Lamb([zero, idle], lr=0.01, weight_decay=0.01)
    zero.grad = torch.full((5,), 2.0)
    opt.step()
    # ||w|| = 0: trust ratio 1, so the step is Adam's first one, lr * sign(g).
    assert torch.allclose(zero.detach(), torch.full((5,), -0.01), rtol=1e-4)
    assert torch.equal(idle.detach(), torch.ones(3)) and not opt.state[idle]["exp_avg"].any()


def test_the_state_exists_before_the_first_step():
    # Horovod's broadcast_optimizer_state steps an optimizer whose state_dict has no state with zero
    # gradients: for LAMB that step would shrink every decayed tensor by lr.
    params = _params()
    opt = bert_lamb.Lamb(params, lr=0.01)
    assert len(opt.state_dict()["state"]) == len(params)
    assert all(not s["exp_avg"].any() and not s["exp_avg_sq"].any() for s in opt.state.values())


def test_a_restored_state_continues_as_the_uninterrupted_run():
    runs = []
    for restore in (False, True):
        params = _params(seed=7)
        opt = bert_lamb.Lamb(params, lr=0.02)
        for step in (1, 2, 3):
            if restore and step == 3:
                saved = opt.state_dict()
                opt = bert_lamb.Lamb(params, lr=0.02)
                opt.load_state_dict(saved)
            for p, g in zip(params, _grads(params, seed=10 + step)):
                p.grad = g
            opt.step()
        runs.append([p.detach().clone() for p in params])
    for a, b in zip(*runs):
        assert torch.equal(a, b)


@pytest.mark.parametrize(
    "kwargs, named",
    [
        ({"lr": 0}, "lr"),
        ({"lr": float("nan")}, "lr"),
        ({"eps": 0}, "eps"),
        ({"eps": float("nan")}, "eps"),
        ({"betas": (0.9, 1.0)}, "betas"),
        ({"weight_decay": -1}, "weight_decay"),
    ],
)
def test_bad_hyperparameters_are_refused_naming_them(kwargs, named):
    with pytest.raises(ValueError, match=named):
        bert_lamb.Lamb(_params(), **kwargs)


def test_decay_groups_leave_biases_and_layernorm_without_weight_decay():
    cfg = bert_model.model_config("tiny", None)
    model = bert_model.build_model(cfg, 1024, seed=1, device="cpu")
    decay, plain = bert_train.decay_groups(model.named_parameters())
    named = dict(model.named_parameters())
    plain_names = {n for n, p in named.items() if any(p is q for q in plain["params"])}
    assert plain["weight_decay"] == 0.0 and decay["weight_decay"] == bert_train.WEIGHT_DECAY
    assert plain_names == {n for n in named if n.endswith(".bias") or ".LayerNorm." in n}
    # Every 1-D tensor is a bias or a LayerNorm parameter; every weight matrix and embedding decays.
    assert all(p.dim() == 1 for p in plain["params"]) and all(p.dim() == 2 for p in decay["params"])
    assert len(decay["params"]) + len(plain["params"]) == len(named)


def test_auto_picks_lamb_above_a_global_batch_of_8192():
    assert bert_train.optimizer_choice("auto", 8192) == "adamw"
    assert bert_train.optimizer_choice("auto", 8193) == "lamb"
    assert bert_train.optimizer_choice("lamb", 16) == "lamb" and bert_train.optimizer_choice("adamw", 65536) == "adamw"


def test_lamb_trains_a_small_problem_faster_than_its_first_loss():
    # Least squares on a fixed batch: the loss falls well below where it started.
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 16, generator=g), torch.randn(64, 1, generator=g)
    layer = torch.nn.Linear(16, 1)
    opt = bert_lamb.Lamb(bert_train.decay_groups(layer.named_parameters()), lr=0.05)
    losses = []
    for _step in range(60):
        loss = torch.nn.functional.mse_loss(layer(x), y)
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert math.isfinite(losses[-1]) and losses[-1] < 0.7 * losses[0]
