"""plugins/module_utils/imagenet.py: the synset list, the val labels, Pascal VOC boxes (normalised and clipped
as tensorflow/models research/inception/inception/data/process_bounding_boxes.py does), the shard plan and the
input problems. Milliseconds: no archive bigger than a few bytes."""

import io
import tarfile

import pytest

from ansible_collections.scc.training.plugins.module_utils import imagenet

# Re-typed in the layout of ILSVRC2012_bbox_train_v2.tar.gz's n01440764/n01440764_10040.xml (Pascal VOC); values made up.
VOC = b"""<annotation>
  <folder>n01440764</folder><filename>n01440764_10040</filename>
  <source><database>ILSVRC_2012</database></source>
  <size><width>500</width><height>400</height><depth>3</depth></size>
  <segmented>0</segmented>
  <object><name>n01440764</name><pose>Unspecified</pose><truncated>0</truncated><difficult>0</difficult>
    <bndbox><xmin>50</xmin><ymin>40</ymin><xmax>250</xmax><ymax>200</ymax></bndbox></object>
  <object><name>n01440764</name><bndbox><xmin>450</xmin><ymin>380</ymin><xmax>-10</xmax><ymax>420</ymax></bndbox></object>
</annotation>"""


def test_synsets_one_per_line_or_with_their_description():
    text = "n01440764 tench, Tinca tinca\nn01443537\tgoldfish, Carassius auratus\n\nn01484850\n"
    assert imagenet.parse_synsets(text) == [
        {"wnid": "n01440764", "description": "tench, Tinca tinca"},
        {"wnid": "n01443537", "description": "goldfish, Carassius auratus"},
        {"wnid": "n01484850", "description": ""},
    ]


@pytest.mark.parametrize(
    "text, words",
    [
        ("tench n01440764\n", "line 1: 'tench' is not a WordNet id"),
        ("n01440764\nn01440764\n", "line 2: n01440764 is listed twice"),
        ("\n", "empty"),
    ],
)
def test_bad_synset_lists_say_which_line(text, words):
    with pytest.raises(ValueError, match=words):
        imagenet.parse_synsets(text)


def test_val_labels_by_order_of_the_sorted_file_names_or_by_name():
    images = ["ILSVRC2012_val_00000002.JPEG", "ILSVRC2012_val_00000001.JPEG"]
    assert imagenet.parse_val_labels("n01751748\nn09193705\n", images) == {
        "ILSVRC2012_val_00000001.JPEG": "n01751748",
        "ILSVRC2012_val_00000002.JPEG": "n09193705",
    }
    named = "val/ILSVRC2012_val_00000002.JPEG n01751748\nILSVRC2012_val_00000001.JPEG n09193705\n"
    assert imagenet.parse_val_labels(named, images)["ILSVRC2012_val_00000002.JPEG"] == "n01751748"


def test_val_labels_that_do_not_match_the_images_are_refused():
    with pytest.raises(ValueError, match="1 labels for 2 val images"):
        imagenet.parse_val_labels("n01751748\n", ["a.JPEG", "b.JPEG"])
    with pytest.raises(ValueError, match=r"not in the val archive: c\.JPEG"):
        imagenet.parse_val_labels("a.JPEG n01751748\nc.JPEG n01751748\n", ["a.JPEG", "b.JPEG"])


def test_voc_boxes_are_divided_by_the_size_swapped_and_clipped():
    parsed = imagenet.parse_voc_bbox(VOC)
    assert parsed["filename"] == "n01440764_10040" and (parsed["width"], parsed["height"]) == (500, 400)
    assert parsed["boxes"] == [
        {"synset": "n01440764", "xmin": 0.1, "ymin": 0.1, "xmax": 0.5, "ymax": 0.5},
        {"synset": "n01440764", "xmin": 0.0, "ymin": 0.95, "xmax": 0.9, "ymax": 1.0},
    ]


def test_a_voc_file_without_its_size_is_refused():
    with pytest.raises(ValueError, match="size/width"):
        imagenet.parse_voc_bbox(b"<annotation><filename>x</filename></annotation>")


def _images(train, val):
    return [{"split": "train", "name": "t%03d.JPEG" % i} for i in range(train)] + [
        {"split": "val", "name": "v%03d.JPEG" % i} for i in range(val)
    ]


def test_the_plan_covers_every_image_once_in_near_equal_shards_and_shares():
    plan = imagenet.shard_plan(_images(103, 17), 8, 3, ["node1", "node2", "node3"])
    names = [image["name"] for shard in plan for image in shard["images"]]
    assert sorted(names) == sorted(i["name"] for i in _images(103, 17))
    assert [s["name"] for s in plan[:2]] == ["train-00000-of-00008", "train-00001-of-00008"]
    assert plan[-1]["name"] == "validation-00002-of-00003"
    train_sizes = [len(s["images"]) for s in plan if s["split"] == "train"]
    assert max(train_sizes) - min(train_sizes) <= 1
    owners = [s["node"] for s in plan]
    assert max(owners.count(n) for n in set(owners)) - min(owners.count(n) for n in set(owners)) <= 1
    # The order is a hash of the names: the same plan whatever order the listing came in.
    assert imagenet.shard_plan(list(reversed(_images(103, 17))), 8, 3, ["node1", "node2", "node3"]) == plan


def test_the_summary_from_the_counts_is_the_plan_of_the_images():
    plan = imagenet.shard_plan(_images(50, 10), 4, 2, ["a", "b"])
    summary = imagenet.plan_summary(
        {"train_images": 50, "val_images": 10, "train_shards": 4, "val_shards": 2, "nodes": ["a", "b"]}
    )
    assert summary["a"]["shards"] == [s["name"] for s in plan if s["node"] == "a"]
    assert summary["a"]["images"] + summary["b"]["images"] == 60


def test_a_plan_without_nodes_or_shards_is_refused():
    with pytest.raises(ValueError, match="at least one node"):
        imagenet.shard_plan([], 1, 1, [])
    with pytest.raises(ValueError, match="train shard count must be >= 1"):
        imagenet.shard_plan([], 0, 1, ["a"])


def test_labels_follow_the_synset_list_from_one():
    synsets = imagenet.parse_synsets("n00000002\nn00000001\n")
    images = imagenet.labelled_images(synsets, {"n00000001": ["a.JPEG"]}, {"v.JPEG": "n00000002"})
    assert [(i["split"], i["synset"], i["label"]) for i in images] == [
        ("train", "n00000001", 2),
        ("val", "n00000002", 1),
    ]
    assert images[0]["member"] == "n00000001.tar"


def _tar(members, mode="w"):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_the_archives_are_listed_in_place(tmp_path):
    (tmp_path / "train.tar").write_bytes(
        _tar({"n00000001.tar": _tar({"n00000001_2.JPEG": b"x", "n00000001_1.JPEG": b"y"})})
    )
    (tmp_path / "val.tar").write_bytes(
        _tar({"ILSVRC2012_val_00000002.JPEG": b"x", "ILSVRC2012_val_00000001.JPEG": b"y", "README": b""})
    )
    (tmp_path / "bbox.tar.gz").write_bytes(_tar({"n01440764/n01440764_10040.xml": VOC, "n1/other.xml": VOC}, "w:gz"))
    assert imagenet.list_train_archive(str(tmp_path / "train.tar")) == {
        "n00000001": ["n00000001_1.JPEG", "n00000001_2.JPEG"]
    }
    assert imagenet.list_val_archive(str(tmp_path / "val.tar")) == [
        "ILSVRC2012_val_00000001.JPEG",
        "ILSVRC2012_val_00000002.JPEG",
    ]
    assert list(imagenet.read_bbox_archive(str(tmp_path / "bbox.tar.gz"), {"n01440764_10040"})) == ["n01440764_10040"]


SHA = "a" * 64


def _settings(**changes):
    archives = {key: {"src": "/data/" + key, "sha256": SHA} for key in imagenet.ARCHIVES}
    settings = {
        "group_hosts": ["node1"],
        "imagenet_prep_group": "scc_cluster",
        "imagenet_prep_archives": archives,
        "imagenet_prep_cache_dir": "~/.cache/scc-training/imagenet",
        "imagenet_prep_data_dir": "/mnt/cpfs/imagenet",
        "imagenet_prep_train_shards": 1024,
        "imagenet_prep_val_shards": 128,
        "imagenet_prep_workers": 8,
        "imagenet_prep_python": "/opt/scc-training/venv/bin/python",
    }
    settings.update(changes)
    return settings


def test_good_variables_have_no_problems():
    assert imagenet.imagenet_prep_input_problems(_settings()) == []


def test_each_bad_variable_is_named():
    archives = _settings()["imagenet_prep_archives"]
    archives = dict(archives, train={"src": "relative.tar", "sha256": "ABC"})
    del archives["bbox"]
    problems = imagenet.imagenet_prep_input_problems(
        _settings(
            group_hosts=[],
            imagenet_prep_archives=archives,
            imagenet_prep_data_dir="imagenet",
            imagenet_prep_val_shards=0,
        )
    )
    assert [p.split(" ", 1)[0] for p in problems] == [
        "imagenet_prep_group",
        "imagenet_prep_val_shards",
        "imagenet_prep_data_dir",
        "imagenet_prep_archives.train.src",
        "imagenet_prep_archives.train.sha256",
        "imagenet_prep_archives.bbox",
    ]


def _found(**changes):
    found = {
        "files": {key: {"path": "/data/" + key, "exists": True, "sha256": SHA} for key in imagenet.ARCHIVES},
        "synsets": ["n00000001", "n00000002"],
        "train_classes": ["n00000001", "n00000002"],
        "val_images": ["a.JPEG", "b.JPEG"],
        "val_label_count": 2,
        "val_label_synsets": ["n00000002"],
        "bbox_synsets": ["n00000001"],
        "parse_errors": {},
    }
    found.update(changes)
    return found


def test_archives_that_match_have_no_problems():
    assert imagenet.imagenet_content_problems(_settings()["imagenet_prep_archives"], _found()) == []


def test_a_missing_archive_or_a_wrong_sha256_is_named_first():
    found = _found()
    found["files"]["val"] = {"path": "/data/val", "exists": False, "sha256": None}
    found["files"]["bbox"] = dict(found["files"]["bbox"], sha256="b" * 64)
    assert imagenet.imagenet_content_problems(_settings()["imagenet_prep_archives"], found) == [
        "imagenet_prep_archives.val.src: /data/val does not exist on the controller.",
        "imagenet_prep_archives.bbox.sha256 (%s) does not match /data/bbox (its sha256 is %s)." % (SHA, "b" * 64),
    ]


def test_unknown_synsets_and_a_val_label_count_mismatch_are_named():
    found = _found(train_classes=["n00000001", "n00000009"], bbox_synsets=["n00000008"], val_label_count=1)
    assert imagenet.imagenet_content_problems(_settings()["imagenet_prep_archives"], found) == [
        "imagenet_prep_archives.train: class tar synset(s) n00000009 not in imagenet_prep_archives.synsets.",
        "imagenet_prep_archives.bbox: box label synset(s) n00000008 not in imagenet_prep_archives.synsets.",
        "imagenet_prep_archives.val_labels: 1 labels for 2 images in imagenet_prep_archives.val.",
    ]


def test_an_unreadable_file_is_named():
    found = _found(parse_errors={"synsets": "line 1: 'x' is not a WordNet id (n + 8 digits)"}, synsets=[])
    assert imagenet.imagenet_content_problems(_settings()["imagenet_prep_archives"], found) == [
        "imagenet_prep_archives.synsets: line 1: 'x' is not a WordNet id (n + 8 digits).",
    ]
