"""The plain-torch ResNet matches torchvision's: the parameter counts torchvision publishes (num_params of
https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet18 and ...resnet50.html) and the
v1.5 stride on the bottleneck's 3x3 convolution."""

import pytest
import torch
from scc_training_runtime import resnet_model


@pytest.mark.parametrize(("name", "params"), [("resnet18", 11_689_512), ("resnet50", 25_557_032)])
def test_parameter_counts_are_torchvisions(name, params):
    assert resnet_model.param_count(resnet_model.ResNet(name, 1000)) == params


def test_resnet50_is_v1_5_the_stride_on_the_3x3():
    model = resnet_model.ResNet("resnet50")
    first = model.layer2[0]
    assert (first.conv1.stride, first.conv2.stride, first.downsample[0].stride) == ((1, 1), (2, 2), (2, 2))
    assert first.conv2.kernel_size == (3, 3)


def test_a_forward_pass_gives_one_logit_per_class():
    model = resnet_model.build_model("resnet18", 4, seed=1, device=torch.device("cpu")).eval()
    with torch.no_grad():
        assert model(torch.zeros(2, 3, 32, 32)).shape == (2, 4)


def test_the_same_seed_builds_the_same_weights():
    a, b = (resnet_model.build_model("resnet18", 4, seed=7, device=torch.device("cpu")) for _copy in range(2))
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_an_unknown_model_is_refused():
    with pytest.raises(ValueError, match="unknown model 'resnet0'"):
        resnet_model.ResNet("resnet0")
