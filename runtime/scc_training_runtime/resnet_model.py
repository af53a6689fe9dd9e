"""ResNet in plain torch (no torchvision on the nodes): He et al. 2015, "Deep Residual Learning for Image
Recognition" (arXiv:1512.03385), in the v1.5 form torchvision and NVIDIA's DeepLearningExamples train: the
bottleneck's stride on its 3x3 convolution, not the first 1x1 (torchvision.models.resnet50's note,
https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet50.html). The layer names, the
initialisation (Kaiming normal, fan_out; BN weight 1, bias 0) and so the parameter counts are torchvision's:
resnet18 11,689,512 and resnet50 25,557,032 with 1000 classes (the num_params of those two pages;
tests/unit/resnet checks them).
"""

from __future__ import annotations

import torch
from torch import nn

# name -> (block, blocks per stage) (the paper's table 1).
ARCHITECTURES = {
    "resnet18": ("basic", (2, 2, 2, 2)),
    "resnet34": ("basic", (3, 4, 6, 3)),
    "resnet50": ("bottleneck", (3, 4, 6, 3)),
    "resnet101": ("bottleneck", (3, 4, 23, 3)),
    "resnet152": ("bottleneck", (3, 8, 36, 3)),
}


def _conv3x3(inp: int, out: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(inp, out, kernel_size=3, stride=stride, padding=1, bias=False)


def _conv1x1(inp: int, out: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(inp, out, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inp: int, planes: int, stride: int = 1, downsample: nn.Module | None = None):
        super().__init__()
        self.conv1, self.bn1 = _conv3x3(inp, planes, stride), nn.BatchNorm2d(planes)
        self.conv2, self.bn2 = _conv3x3(planes, planes), nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + identity)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (the stride: v1.5), 1x1 expand by 4."""

    expansion = 4

    def __init__(self, inp: int, planes: int, stride: int = 1, downsample: nn.Module | None = None):
        super().__init__()
        self.conv1, self.bn1 = _conv1x1(inp, planes), nn.BatchNorm2d(planes)
        self.conv2, self.bn2 = _conv3x3(planes, planes, stride), nn.BatchNorm2d(planes)
        self.conv3, self.bn3 = _conv1x1(planes, planes * 4), nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.relu(self.bn3(self.conv3(out)) + identity)


class ResNet(nn.Module):
    def __init__(self, name: str, num_classes: int = 1000):
        super().__init__()
        if name not in ARCHITECTURES:
            raise ValueError(f"unknown model {name!r}; one of {', '.join(ARCHITECTURES)}")
        kind, blocks = ARCHITECTURES[name]
        block = BasicBlock if kind == "basic" else Bottleneck
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._stage(block, 64, blocks[0], 1)
        self.layer2 = self._stage(block, 128, blocks[1], 2)
        self.layer3 = self._stage(block, 256, blocks[2], 2)
        self.layer4 = self._stage(block, 512, blocks[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.constant_(module.weight, 1)
                nn.init.constant_(module.bias, 0)

    def _stage(self, block, planes: int, count: int, stride: int) -> nn.Sequential:
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                _conv1x1(self.inplanes, planes * block.expansion, stride), nn.BatchNorm2d(planes * block.expansion)
            )
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes) for _block in range(1, count)]
        return nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def build_model(name: str, num_classes: int, seed: int, device) -> ResNet:
    """The model, the same initial weights on every rank (seeded), on `device`."""
    torch.manual_seed(seed)
    return ResNet(name, num_classes).to(device)


def param_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
