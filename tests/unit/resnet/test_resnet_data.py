"""The TFRecord shards read back through tfrecord.torch.dataset.TFRecordDataset: finished shards only, each
rank's part, decoded images and labels."""

import random

import torch
from scc_training_runtime import resnet_data

from tests.unit.resnet.shards import write_shards


def test_only_finished_shards_of_the_split_are_read(tmp_path):
    write_shards(tmp_path, "train", 2, 1)
    write_shards(tmp_path, "val", 1, 1)
    (tmp_path / "train-00002-of-00003").write_bytes(b"")  # being written: no .done marker
    assert [p.rsplit("/", 1)[1] for p in resnet_data.shard_files(str(tmp_path), "train")] == [
        "train-00000-of-00002",
        "train-00001-of-00002",
    ]
    assert [p.rsplit("/", 1)[1] for p in resnet_data.shard_files(str(tmp_path), "val")] == ["validation-00000-of-00001"]


def test_each_rank_reads_every_world_th_shard_or_every_world_th_record():
    shards = ["a", "b", "c", "d"]
    assert resnet_data.rank_part(shards, 1, 2) == (["b", "d"], None)
    assert resnet_data.rank_part(shards[:1], 1, 2) == (["a"], (1, 2))


def test_a_record_decodes_to_a_normalised_image_and_its_label_less_one(tmp_path):
    labels = write_shards(tmp_path, "val", 1, 3)
    stream = resnet_data.ShardStream(resnet_data.shard_files(str(tmp_path), "val"), None, 32, False, 0, repeat=False)
    items = list(stream)
    assert [label for _image, label in items] == [label - 1 for label in labels]
    image = items[0][0]
    assert image.shape == (3, 32, 32) and image.dtype == torch.float32
    # Class 1 is red: after normalisation the red channel is far above the blue one.
    assert image[0].mean() > 1.0 > image[2].mean()


def test_two_ranks_sharing_one_shard_see_every_record_once(tmp_path):
    write_shards(tmp_path, "train", 1, 5)
    shards = resnet_data.shard_files(str(tmp_path), "train")
    seen = []
    for rank in range(2):
        part, stride = resnet_data.rank_part(shards, rank, 2)
        stream = resnet_data.ShardStream(part, stride, 32, False, 0, repeat=False)
        seen.append([label for _image, label in stream])
    assert seen == [[0, 2, 0], [1, 3]]


def test_a_train_stream_repeats_with_random_crops_of_the_right_size(tmp_path):
    write_shards(tmp_path, "train", 2, 2)
    stream = resnet_data.ShardStream(resnet_data.shard_files(str(tmp_path), "train"), None, 24, True, 3, repeat=True)
    items = [item for item, _index in zip(stream, range(9))]
    assert len(items) == 9 and {tuple(image.shape) for image, _label in items} == {(3, 24, 24)}


def test_the_crop_keeps_inside_the_image():
    from PIL import Image

    image = Image.new("RGB", (40, 30))
    for seed in range(20):
        crop = resnet_data._random_crop(image, random.Random(seed))
        assert 0 < crop.size[0] <= 40 and 0 < crop.size[1] <= 30
