#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: imagenet_tfrecord
short_description: Convert this node's share of ILSVRC2012 (ImageNet) to TFRecord shards, resumably
version_added: 0.2.0
author: scc.training developers (@scc-training)
description:
  - Lists the archives (on storage every node mounts, e.g. CPFS), plans the shards the same way on every node
    (scc.training's imagenet shard plan, a hash order cut into near-equal runs, shard k to node k mod N), extracts the
    images of this node's shards under O(raw_dir) and writes each of its shards as a TFRecord file of
    C(tf.train.Example) records with the Inception / TF-slim keys of tensorflow/models
    research/inception/inception/data/build_imagenet_data.py (C(image/encoded), C(image/format), C(image/filename),
    C(image/colorspace), C(image/channels), C(image/height), C(image/width), C(image/class/label),
    C(image/class/synset), C(image/class/text), C(image/object/bbox/xmin|ymin|xmax|ymax|label)).
  - The writer is the PyPI package C(tfrecord) (TFRecord framing with masked CRC32C by the C(crc32c) package,
    C(tf.train.Example) encoded with C(protobuf)); images are read and, when not RGB JPEG, re-encoded by Pillow.
  - A shard is written under a temporary name, read back (record count, both CRCs of every record, one image decoded by
    Pillow), renamed, then recorded in a marker C(<shard>.done) holding its record count and sha256. A shard whose
    marker matches its file is never redone; an interrupted one is redone from scratch.
options:
  train_archive:
    description: The train tar (a tar of per-class tars named C(<wnid>.tar)).
    type: path
    required: true
  val_archive:
    description: The val tar.
    type: path
    required: true
  bbox_archive:
    description: The tar(.gz) of Pascal VOC bounding-box XML files.
    type: path
    required: true
  synsets_file:
    description: The synset list (one WordNet id per line, optionally followed by its description).
    type: path
    required: true
  val_labels_file:
    description: The val labels (one WordNet id per line in sorted file-name order, or C(<file> <wnid>) lines).
    type: path
    required: true
  output_dir:
    description: Where the shards go.
    type: path
    required: true
  raw_dir:
    description: Where the images of this node's shards are extracted (C(train/<wnid>/), C(val/)).
    type: path
    required: true
  train_shards:
    description: How many train shards in all (1024 in build_imagenet_data.py).
    type: int
    default: 1024
  val_shards:
    description: How many val shards in all (128 in build_imagenet_data.py).
    type: int
    default: 128
  nodes:
    description: Every node of the conversion, in the same order on each node.
    type: list
    elements: str
    required: true
  node:
    description: This node's name in O(nodes).
    type: str
    required: true
  workers:
    description: Shards converted at once on this node (processes).
    type: int
    default: 4
attributes:
  check_mode:
    description: Reports the shards it would convert and converts none.
    support: full
  diff_mode:
    description: No diff.
    support: none
requirements:
  - Pillow
  - tfrecord (PyPI, with crc32c, protobuf and numpy)
"""

EXAMPLES = r"""
- name: Convert this node's shards
  scc.training.imagenet_tfrecord:
    train_archive: /mnt/cpfs/imagenet/archives/ILSVRC2012_img_train.tar
    val_archive: /mnt/cpfs/imagenet/archives/ILSVRC2012_img_val.tar
    bbox_archive: /mnt/cpfs/imagenet/archives/ILSVRC2012_bbox_train_v2.tar.gz
    synsets_file: /mnt/cpfs/imagenet/archives/LOC_synset_mapping.txt
    val_labels_file: /mnt/cpfs/imagenet/archives/imagenet_2012_validation_synset_labels.txt
    output_dir: /mnt/cpfs/imagenet/tfrecord
    raw_dir: /mnt/cpfs/imagenet/raw
    nodes: "{{ groups['scc_cluster'] }}"
    node: "{{ inventory_hostname }}"
  vars:
    ansible_python_interpreter: /opt/scc-training/venv/bin/python
"""

RETURN = r"""
shards:
  description: This node's shards, each with its name, records, sha256 and whether this run wrote it.
  returned: always
  type: list
  elements: dict
  sample: [{name: train-00000-of-01024, records: 1251, sha256: "5c1f...", converted: true}]
converted:
  description: How many shards this run wrote (in check mode, would write).
  returned: always
  type: int
records:
  description: How many images this run converted.
  returned: always
  type: int
seconds:
  description: Wall time of the conversion on this node.
  returned: always
  type: float
images_per_second:
  description: RV(records) / RV(seconds) (0 when nothing was converted).
  returned: always
  type: float
"""

import io
import json
import os
import struct
import tarfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.scc.training.plugins.module_utils import imagenet

try:
    import crc32c
    import tfrecord
    from PIL import Image
    from tfrecord import example_pb2
except ImportError:
    LIBRARY_ERROR = traceback.format_exc()
else:
    LIBRARY_ERROR = None

_MASK = 0xA282EAD8


def _masked_crc(data):
    crc = crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK) & 0xFFFFFFFF


def marker_path(output_dir, name):
    return os.path.join(output_dir, name + ".done")


def finished(output_dir, name):
    """The marker of a finished shard when it matches the shard's file, else None."""
    try:
        with open(marker_path(output_dir, name), encoding="utf-8") as handle:
            marker = json.load(handle)
    except (OSError, ValueError):
        return None
    path = os.path.join(output_dir, name)
    if not os.path.isfile(path) or imagenet.file_sha256(path) != marker.get("sha256"):
        return None
    return marker


def verify_shard(path):
    """Read a shard back: every record's length and data CRC, then one image decoded by Pillow -> record count."""
    records = 0
    first = None
    with open(path, "rb") as handle:
        while True:
            header = handle.read(12)
            if not header:
                break
            if len(header) != 12 or struct.unpack("<I", header[8:])[0] != _masked_crc(header[:8]):
                raise ValueError("%s: record %d has a bad length CRC" % (path, records))
            data = handle.read(struct.unpack("<Q", header[:8])[0])
            footer = handle.read(4)
            if len(footer) != 4 or struct.unpack("<I", footer)[0] != _masked_crc(data):
                raise ValueError("%s: record %d has a bad data CRC" % (path, records))
            first = data if first is None else first
            records += 1
    if first is not None:
        example = example_pb2.Example()
        example.ParseFromString(first)
        with Image.open(io.BytesIO(example.features.feature["image/encoded"].bytes_list.value[0])) as image:
            image.load()
    return records


def _extract(images, train_archive, val_archive, raw_dir):
    """Extract the images (grouped by class tar, each opened once) -> {image name: path}; existing files are kept."""
    paths = {}
    wanted = {}
    for image in images:
        folder = (
            os.path.join(raw_dir, "train", image["synset"])
            if image["split"] == "train"
            else os.path.join(raw_dir, "val")
        )
        paths[image["name"]] = os.path.join(folder, image["name"])
        if not os.path.isfile(paths[image["name"]]):
            wanted.setdefault(image.get("member"), set()).add(image["name"])
    if not wanted:
        return paths
    for folder in {os.path.dirname(path) for path in paths.values()}:
        os.makedirs(folder, exist_ok=True)
    if None in wanted:
        _extract_members(val_archive, None, wanted.pop(None), os.path.join(raw_dir, "val"))
    if wanted:
        with tarfile.open(train_archive, "r:") as outer:
            for member in outer:
                if member.isfile() and member.name.rsplit("/", 1)[-1] in wanted:
                    class_tar = member.name.rsplit("/", 1)[-1]
                    folder = os.path.join(raw_dir, "train", class_tar[: -len(".tar")])
                    _extract_members(None, outer.extractfile(member), wanted[class_tar], folder)
    return paths


def _extract_members(path, fileobj, names, folder):
    with tarfile.open(path, "r:*", fileobj=fileobj) as archive:
        for member in archive:
            name = member.name.rsplit("/", 1)[-1]
            if member.isfile() and name in names:
                temporary = os.path.join(folder, "." + name + ".part")
                with open(temporary, "wb") as handle:
                    handle.write(archive.extractfile(member).read())
                os.replace(temporary, os.path.join(folder, name))


def _jpeg(path):
    """The image as build_imagenet_data.py stores it: RGB JPEG bytes (PNG and CMYK re-encoded), height, width."""
    with open(path, "rb") as handle:
        data = handle.read()
    with Image.open(io.BytesIO(data)) as image:
        if image.format == "JPEG" and image.mode == "RGB":
            return data, image.height, image.width
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, format="JPEG", quality=100)
        return buffer.getvalue(), image.height, image.width


def convert_shard(job):
    """Write one shard under a temporary name, verify it, rename it, write its marker -> its entry."""
    shard, paths, boxes, texts, output_dir = job
    final = os.path.join(output_dir, shard["name"])
    temporary = os.path.join(output_dir, "." + shard["name"] + ".part")
    writer = tfrecord.TFRecordWriter(temporary)
    try:
        for image in shard["images"]:
            encoded, height, width = _jpeg(paths[image["name"]])
            corners = list(boxes.get(imagenet.image_stem(image["name"]), {}).get("boxes", []))
            writer.write(
                {
                    "image/height": (height, "int"),
                    "image/width": (width, "int"),
                    "image/colorspace": (b"RGB", "byte"),
                    "image/channels": (3, "int"),
                    "image/class/label": (image["label"], "int"),
                    "image/class/synset": (image["synset"].encode("utf-8"), "byte"),
                    "image/class/text": (texts.get(image["synset"], "").encode("utf-8"), "byte"),
                    "image/object/bbox/xmin": ([b["xmin"] for b in corners], "float"),
                    "image/object/bbox/xmax": ([b["xmax"] for b in corners], "float"),
                    "image/object/bbox/ymin": ([b["ymin"] for b in corners], "float"),
                    "image/object/bbox/ymax": ([b["ymax"] for b in corners], "float"),
                    "image/object/bbox/label": ([image["label"]] * len(corners), "int"),
                    "image/format": (b"JPEG", "byte"),
                    "image/filename": (image["name"].encode("utf-8"), "byte"),
                    "image/encoded": (encoded, "byte"),
                }
            )
    finally:
        writer.close()
    records = verify_shard(temporary)
    if records != len(shard["images"]):
        raise ValueError("%s: %d records read back, %d written" % (shard["name"], records, len(shard["images"])))
    os.replace(temporary, final)
    marker = {"name": shard["name"], "records": records, "sha256": imagenet.file_sha256(final)}
    with open(marker_path(output_dir, shard["name"]) + ".part", "w", encoding="utf-8") as handle:
        json.dump(marker, handle)
    os.replace(marker_path(output_dir, shard["name"]) + ".part", marker_path(output_dir, shard["name"]))
    return dict(marker, converted=True)


def plan_mine(params):
    """List the archives and plan the shards (the same plan on every node) -> this node's shards, the synset texts."""
    with open(params["synsets_file"], encoding="utf-8") as handle:
        synsets = imagenet.parse_synsets(handle.read())
    val_images = imagenet.list_val_archive(params["val_archive"])
    with open(params["val_labels_file"], encoding="utf-8") as handle:
        val_labels = imagenet.parse_val_labels(handle.read(), val_images)
    images = imagenet.labelled_images(synsets, imagenet.list_train_archive(params["train_archive"]), val_labels)
    plan = imagenet.shard_plan(images, params["train_shards"], params["val_shards"], params["nodes"])
    texts = {synset["wnid"]: synset["description"] for synset in synsets}
    return [shard for shard in plan if shard["node"] == params["node"]], texts


def run(module):
    params = module.params
    mine, texts = plan_mine(params)
    done = {}
    for shard in mine:
        marker = finished(params["output_dir"], shard["name"])
        if marker is not None:
            done[shard["name"]] = dict(marker, converted=False)
    todo = [shard for shard in mine if shard["name"] not in done]
    result = {"converted": len(todo), "records": sum(len(s["images"]) for s in todo), "seconds": 0.0}
    if module.check_mode or not todo:
        result["shards"] = [
            done.get(s["name"], {"name": s["name"], "records": len(s["images"]), "converted": True}) for s in mine
        ]
        result["images_per_second"] = 0.0
        return dict(result, changed=bool(todo))
    start = time.time()
    os.makedirs(params["output_dir"], exist_ok=True)
    images = [image for shard in todo for image in shard["images"]]
    paths = _extract(images, params["train_archive"], params["val_archive"], params["raw_dir"])
    boxes = imagenet.read_bbox_archive(params["bbox_archive"], {imagenet.image_stem(i["name"]) for i in images})
    jobs = [(shard, paths, boxes, texts, params["output_dir"]) for shard in todo]
    with ProcessPoolExecutor(max_workers=max(1, min(params["workers"], len(jobs)))) as pool:
        written = {entry["name"]: entry for entry in pool.map(convert_shard, jobs)}
    result["seconds"] = round(time.time() - start, 3)
    result["images_per_second"] = round(result["records"] / result["seconds"], 1) if result["seconds"] else 0.0
    result["shards"] = [done.get(s["name"]) or written[s["name"]] for s in mine]
    return dict(result, changed=True)


def main():
    module = AnsibleModule(
        argument_spec={
            "train_archive": {"type": "path", "required": True},
            "val_archive": {"type": "path", "required": True},
            "bbox_archive": {"type": "path", "required": True},
            "synsets_file": {"type": "path", "required": True},
            "val_labels_file": {"type": "path", "required": True},
            "output_dir": {"type": "path", "required": True},
            "raw_dir": {"type": "path", "required": True},
            "train_shards": {"type": "int", "default": 1024},
            "val_shards": {"type": "int", "default": 128},
            "nodes": {"type": "list", "elements": "str", "required": True},
            "node": {"type": "str", "required": True},
            "workers": {"type": "int", "default": 4},
        },
        supports_check_mode=True,
    )
    if LIBRARY_ERROR:
        # python_env's venv (imagenet_prep_python) has them once its requirements carry the pins.
        module.fail_json(
            msg=missing_required_lib(
                "Pillow and tfrecord (with crc32c and protobuf)",
                reason="for the conversion by imagenet_prep_python (python_env's venv by default: add pillow==13.0.0, "
                "tfrecord==1.14.6, crc32c==2.9.post0 and protobuf==7.36.2 to python_env_requirements, as "
                "roles/imagenet_prep/README.md says)",
            ),
            exception=LIBRARY_ERROR,
        )
    if module.params["node"] not in module.params["nodes"]:
        module.fail_json(msg="node %s is not in nodes %s" % (module.params["node"], module.params["nodes"]))
    try:
        module.exit_json(**run(module))
    except (ValueError, OSError, tarfile.TarError) as error:
        module.fail_json(msg=str(error), exception=traceback.format_exc())


if __name__ == "__main__":
    main()
