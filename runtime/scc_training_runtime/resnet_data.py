"""The ImageNet TFRecord shards that scc.training.imagenet_prep wrote (TF-slim / Inception layout:
``train-00000-of-01024``, ``validation-00000-of-00128``; keys ``image/encoded`` (JPEG) and
``image/class/label``, 1..1000 in synset-list order, 0 left for background), read with the PyPI
``tfrecord`` package's PyTorch reader (tfrecord.torch.dataset.TFRecordDataset,
https://github.com/vahidk/tfrecord), decoded by Pillow.

- ``shard_files``: the finished shards of a split (those with imagenet_prep's ``<shard>.done`` marker;
  a shard still being written is never read), in name order.
- ``rank_part``: which shards a rank reads (every world-th from its rank), or, with fewer shards than
  ranks, every shard and every world-th record.
- ``decode``: one record -> (CHW float tensor, normalised with ImageNet's mean and std; label - 1).
- ``ShardStream``: an IterableDataset over a rank's part, DataLoader workers splitting it by shard.
- ``synthetic_batch``: random images and labels made once on the device (train_resnet.py --data synthetic);
  tfrecord and Pillow are imported only where records are read and decoded, so that mode needs neither.
"""

from __future__ import annotations

import glob
import io
import math
import os
import random
from typing import Any, Iterator

import torch
import torch.utils.data

SPLITS = {"train": "train", "val": "validation"}
# The keys the trainer reads (the converter writes more: format, synset, size, boxes).
DESCRIPTION = {"image/encoded": "byte", "image/class/label": "int"}
# ImageNet's per-channel mean and std (of [0, 1] pixels), as torchvision's and DALI's examples normalise.
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
# Labels are 1..1000: 0 is TF-slim's background class, which the trainer does not learn.
LABEL_OFFSET = 1


def shard_files(data_dir: str, split: str) -> list[str]:
    """The finished shards of ``split`` (train or val) under ``data_dir``, in name order."""
    pattern = os.path.join(data_dir, f"{SPLITS[split]}-[0-9]*-of-[0-9]*")
    return sorted(path for path in glob.glob(pattern) if not path.endswith(".done") and os.path.exists(path + ".done"))


def rank_part(shards: list[str], rank: int, world: int) -> tuple[list[str], tuple[int, int] | None]:
    """(the shards this rank reads, (rank, world) when it keeps only every world-th record of them)."""
    if len(shards) >= world:
        return shards[rank::world], None
    return list(shards), (rank, world)


def _random_crop(image, rng: random.Random):
    """Inception-style crop: 8..100% of the area, aspect ratio 3/4..4/3 (ten tries, else the whole image)."""
    width, height = image.size
    for _try in range(10):
        area = width * height * rng.uniform(0.08, 1.0)
        ratio = math.exp(rng.uniform(math.log(3 / 4), math.log(4 / 3)))
        w, h = round(math.sqrt(area * ratio)), round(math.sqrt(area / ratio))
        if 0 < w <= width and 0 < h <= height:
            left, top = rng.randint(0, width - w), rng.randint(0, height - h)
            return image.crop((left, top, left + w, top + h))
    return image


def _center_crop(image, size: int):
    """Shorter side to size * 256/224, then the centre size x size (the usual evaluation crop)."""
    width, height = image.size
    scale = round(size * 256 / 224) / min(width, height)
    image = image.resize((max(size, round(width * scale)), max(size, round(height * scale))))
    width, height = image.size
    left, top = (width - size) // 2, (height - size) // 2
    return image.crop((left, top, left + size, top + size))


def decode(record: dict, image_size: int, train: bool, rng: random.Random | None = None):
    """A record (tfrecord's dict: the JPEG as bytes, the label an int array) -> (float tensor 3 x size x size, label - 1)."""
    from PIL import Image

    image = Image.open(io.BytesIO(bytes(record["image/encoded"]))).convert("RGB")
    if train:
        rng = rng or random.Random()
        image = _random_crop(image, rng).resize((image_size, image_size))
        if rng.random() < 0.5:
            image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    else:
        image = _center_crop(image, image_size)
    pixels = torch.frombuffer(bytearray(image.tobytes()), dtype=torch.uint8).view(image_size, image_size, 3)
    return normalise(pixels.permute(2, 0, 1)), int(record["image/class/label"][0]) - LABEL_OFFSET


def normalise(pixels):
    """uint8 pixels (..., 3, H, W) -> float, [0, 1] then ImageNet's mean and std per channel, on their device."""
    tensor = pixels.float().div_(255)
    mean = torch.tensor(MEAN, device=tensor.device).view(3, 1, 1)
    std = torch.tensor(STD, device=tensor.device).view(3, 1, 1)
    return (tensor - mean) / std


def synthetic_batch(batch_size: int, image_size: int, num_classes: int, seed: int, device):
    """One batch of random uint8 images and labels 0..num_classes-1, made on ``device`` and normalised as
    ``decode`` normalises real ones: what a synthetic-data benchmark feeds every step, so that the step measured is
    the model's, not the input pipeline's (as Horovod's examples/pytorch/pytorch_synthetic_benchmark.py does)."""
    generator = torch.Generator(device=device).manual_seed(seed)
    pixels = torch.randint(
        0, 256, (batch_size, 3, image_size, image_size), dtype=torch.uint8, device=device, generator=generator
    )
    labels = torch.randint(0, num_classes, (batch_size,), dtype=torch.int64, device=device, generator=generator)
    return normalise(pixels), labels


class ShardStream(torch.utils.data.IterableDataset):
    """A rank's records as (image, label) pairs: its shards in turn (a new shuffled order every pass
    when ``repeat``), each read by tfrecord.torch.dataset.TFRecordDataset. With DataLoader workers,
    worker k reads every num_workers-th shard (or record, with a single shard)."""

    def __init__(self, shards, stride, image_size: int, train: bool, seed: int, repeat: bool, shuffle_queue: int = 0):
        super().__init__()
        self.shards, self.stride, self.image_size = list(shards), stride, image_size
        self.train, self.seed, self.repeat, self.shuffle_queue = train, seed, repeat, shuffle_queue

    def _records(self, shards, keep) -> Iterator[dict]:
        from tfrecord.torch.dataset import TFRecordDataset

        index = 0
        for shard in shards:
            for record in TFRecordDataset(shard, None, DESCRIPTION, shuffle_queue_size=self.shuffle_queue or None):
                if keep is None or index % keep[1] == keep[0]:
                    yield record
                index += 1

    def __iter__(self) -> Iterator[Any]:
        worker = torch.utils.data.get_worker_info()
        shards, keep = self.shards, self.stride
        if worker is not None and worker.num_workers > 1:
            if len(shards) >= worker.num_workers:
                shards = shards[worker.id :: worker.num_workers]
            else:
                base = keep or (0, 1)
                keep = (base[0] + base[1] * worker.id, base[1] * worker.num_workers)
        rng = random.Random(self.seed + (worker.id if worker is not None else 0))
        epoch = 0
        while True:
            order = list(shards)
            if self.train:
                random.Random(self.seed + epoch).shuffle(order)
            for record in self._records(order, keep):
                yield decode(record, self.image_size, self.train, rng)
            epoch += 1
            if not self.repeat:
                return
