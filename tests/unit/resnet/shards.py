"""Small ImageNet TFRecord shards in imagenet_prep's layout (``train-00000-of-00002`` + ``.done``; the keys
image/encoded, image/format, image/class/label, image/class/synset, image/height, image/width), written by the
tfrecord package's writer. Each class is one colour with a little noise, so a few steps learn it."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

FILES = Path(__file__).resolve().parents[3] / "runtime" / "scc_training_runtime"
# The directory above the package: what a source checkout puts on sys.path (an installed wheel needs none).
RUNTIME = FILES.parent
COLOURS = ((220, 30, 30), (30, 200, 40), (40, 50, 230), (230, 220, 40))


def jpeg(label: int, seed: int, size=(40, 30)) -> bytes:
    from PIL import Image

    rng = random.Random(seed)
    base = COLOURS[(label - 1) % len(COLOURS)]
    pixels = bytes(max(0, min(255, c + rng.randint(-20, 20))) for _pixel in range(size[0] * size[1]) for c in base)
    buffer = io.BytesIO()
    Image.frombytes("RGB", size, pixels).save(buffer, format="JPEG")
    return buffer.getvalue()


def write_shards(where: Path, split: str, shards: int, per_shard: int, classes: int = 4, done: bool = True):
    """``shards`` shards of ``per_shard`` records under ``where``; labels 1..classes in turn -> the labels."""
    from tfrecord.writer import TFRecordWriter

    where.mkdir(parents=True, exist_ok=True)
    name = "train" if split == "train" else "validation"
    labels = []
    for index in range(shards):
        path = where / f"{name}-{index:05d}-of-{shards:05d}"
        writer = TFRecordWriter(str(path))
        for record in range(per_shard):
            label = 1 + (index * per_shard + record) % classes
            labels.append(label)
            writer.write(
                {
                    "image/encoded": (jpeg(label, index * 1000 + record), "byte"),
                    "image/format": (b"JPEG", "byte"),
                    "image/class/label": (label, "int"),
                    "image/class/synset": (b"n%08d" % label, "byte"),
                    "image/height": (30, "int"),
                    "image/width": (40, "int"),
                }
            )
        writer.close()
        if done:
            Path(str(path) + ".done").write_text(json.dumps({"records": per_shard}))
    return labels
