# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""ILSVRC2012 (ImageNet) inputs for imagenet_prep: the synset list, the val labels, the Pascal VOC
bounding boxes, the archive listings, the shard plan and the input problems.

The layout followed is TensorFlow's Inception / TF-slim converter, tensorflow/models
research/inception/inception/data/build_imagenet_data.py (labels 1..1000 in synset-list order, 0 left
for background; shards named ``train-00000-of-01024`` / ``validation-00000-of-00128``; images spread
over the shards, not one class per shard) and process_bounding_boxes.py (box corners divided by the
image size from the XML, min/max swapped when reversed, clipped to [0, 1]).

Pure Python (standard library only); the converter module adds Pillow and the TFRecord writer.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os.path
import re
import tarfile
from xml.etree import ElementTree

from ansible_collections.scc.training.plugins.module_utils.input_checks import (
    ABSOLUTE,
    SHA256,
    group_problems,
    minimum,
    pattern,
    rule_problems,
    show,
)

WNID = re.compile(r"^n[0-9]{8}\Z")
ARCHIVES = ("train", "val", "bbox", "synsets", "val_labels")
IMAGE_SUFFIXES = (".jpeg", ".jpg", ".png")


def parse_synsets(text):
    """A synset list -> ``[{wnid, description}]`` in file order (the label of the i-th is i + 1).

    Layouts: one WordNet id per line (imagenet_lsvrc_2015_synsets.txt, build_imagenet_data.py's
    ``--labels_file``) or a WordNet id then its description (LOC_synset_mapping.txt,
    ``n01440764 tench, Tinca tinca``; imagenet_metadata.txt separates them by a tab). Blank lines skipped.
    """
    synsets = []
    seen = set()
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.strip().split(None, 1)
        if not fields:
            continue
        if not WNID.match(fields[0]):
            raise ValueError("line %d: %r is not a WordNet id (n + 8 digits)" % (number, fields[0]))
        if fields[0] in seen:
            raise ValueError("line %d: %s is listed twice" % (number, fields[0]))
        seen.add(fields[0])
        synsets.append({"wnid": fields[0], "description": fields[1].strip() if len(fields) > 1 else ""})
    if not synsets:
        raise ValueError("the synset list is empty")
    return synsets


def parse_val_labels(text, val_images):
    """The val labels -> ``{image file name: wnid}``.

    Layouts: one WordNet id per line, the n-th line labelling the n-th val image in sorted file-name
    order (imagenet_2012_validation_synset_labels.txt, read by tensorflow/models
    research/inception/inception/data/preprocess_imagenet_validation_data.py), or ``<file> <wnid>``
    per line. Raises ValueError when the count does not match ``val_images`` or a file is unknown.
    """
    lines = [line.split() for line in text.splitlines() if line.strip()]
    images = sorted(val_images)
    if all(len(fields) == 1 for fields in lines):
        if len(lines) != len(images):
            raise ValueError("%d labels for %d val images" % (len(lines), len(images)))
        return dict(zip(images, (fields[0] for fields in lines)))
    labels = {}
    for number, fields in enumerate(lines, 1):
        if len(fields) != 2:
            raise ValueError("line %d: expected '<file> <wnid>' or '<wnid>', got %r" % (number, " ".join(fields)))
        labels[fields[0].rsplit("/", 1)[-1]] = fields[1]
    missing = sorted(set(images) - set(labels))
    extra = sorted(set(labels) - set(images))
    if missing or extra or len(lines) != len(images):
        raise ValueError(
            "%d labels for %d val images (unlabelled: %s; not in the val archive: %s)"
            % (len(lines), len(images), ", ".join(missing[:3]) or "none", ", ".join(extra[:3]) or "none")
        )
    return labels


def _child_text(element, path):
    found = element.find(path)
    if found is None or found.text is None:
        raise ValueError("the annotation has no <%s>" % path)
    return found.text.strip()


def _clip(value):
    return min(max(value, 0.0), 1.0)


def parse_voc_bbox(xml_text):
    """A Pascal VOC annotation (ILSVRC2012_bbox_train_v2 / bbox_val) -> ``{filename, width, height,
    boxes: [{synset, xmin, ymin, xmax, ymax}]}``, the corners divided by ``<size>`` and clipped to
    [0, 1] with min/max swapped when reversed, as process_bounding_boxes.py does."""
    root = ElementTree.fromstring(xml_text)
    width = float(_child_text(root, "size/width"))
    height = float(_child_text(root, "size/height"))
    if width <= 0 or height <= 0:
        raise ValueError("the annotation's <size> is %gx%g" % (width, height))
    boxes = []
    for obj in root.findall("object"):
        xs = [float(_child_text(obj, "bndbox/xmin")) / width, float(_child_text(obj, "bndbox/xmax")) / width]
        ys = [float(_child_text(obj, "bndbox/ymin")) / height, float(_child_text(obj, "bndbox/ymax")) / height]
        boxes.append(
            {
                "synset": _child_text(obj, "name"),
                "xmin": _clip(min(xs)),
                "ymin": _clip(min(ys)),
                "xmax": _clip(max(xs)),
                "ymax": _clip(max(ys)),
            }
        )
    return {"filename": _child_text(root, "filename"), "width": width, "height": height, "boxes": boxes}


def image_stem(name):
    """``n01440764/n01440764_10026.JPEG`` -> ``n01440764_10026`` (the key shared with the bbox XML)."""
    return name.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _is_image(name):
    return name.lower().endswith(IMAGE_SUFFIXES)


def list_train_archive(path):
    """The train tar of per-class tars (``n01440764.tar`` holding ``n01440764_*.JPEG``) ->
    ``{wnid: [image file names]}``; the class tars are read in place (seeks, no extraction)."""
    classes = {}
    with tarfile.open(path, "r:") as outer:
        for member in outer:
            if not member.isfile() or not member.name.endswith(".tar"):
                continue
            wnid = member.name.rsplit("/", 1)[-1][: -len(".tar")]
            with tarfile.open(fileobj=outer.extractfile(member), mode="r:") as inner:
                classes[wnid] = sorted(m.name.rsplit("/", 1)[-1] for m in inner if m.isfile() and _is_image(m.name))
    return classes


def list_val_archive(path):
    """The val tar (``ILSVRC2012_val_00000001.JPEG`` ...) -> the sorted image file names."""
    with tarfile.open(path, "r:*") as archive:
        return sorted(m.name.rsplit("/", 1)[-1] for m in archive if m.isfile() and _is_image(m.name))


def read_bbox_archive(path, wanted=None):
    """The bounding-box tar(.gz) of VOC XML files -> ``{image stem: parse_voc_bbox(...)}``; only the
    stems in ``wanted`` when given (a node reads the boxes of its own images)."""
    boxes = {}
    with tarfile.open(path, "r:*") as archive:
        for member in archive:
            if not member.isfile() or not member.name.endswith(".xml"):
                continue
            stem = image_stem(member.name)
            if wanted is None or stem in wanted:
                boxes[stem] = parse_voc_bbox(archive.extractfile(member).read())
    return boxes


def file_sha256(path, block=1 << 20):
    """The sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(block), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _order_key(name):
    # A hash, not random.shuffle: every node and every Python orders the images the same way, and
    # the classes are mixed over the shards as build_imagenet_data.py's shuffle mixes them.
    return hashlib.sha256(name.encode("utf-8")).hexdigest(), name


def shard_name(split, index, count):
    """build_imagenet_data.py's names: ``train-00000-of-01024``, ``validation-00000-of-00128``."""
    return "%s-%05d-of-%05d" % ("train" if split == "train" else "validation", index, count)


def shard_plan(images, train_shards, val_shards, nodes):
    """Images -> the shards, each with its node.

    ``images``: ``[{split: train|val, name, synset, ...}]``; ``nodes``: the node names in inventory
    order. Each split is ordered by a hash of the file name and cut into contiguous, near-equal runs
    (sizes differ by at most one); shard ``k`` of the whole plan goes to node ``k mod len(nodes)``,
    so every node converts a near-equal share. Linear in the images; no pairs of nodes.
    Returns ``[{name, split, index, node, images}]``.
    """
    if not nodes:
        raise ValueError("the plan needs at least one node")
    shards = []
    for split, count in (("train", train_shards), ("val", val_shards)):
        if int(count) < 1:
            raise ValueError("the %s shard count must be >= 1, got %r" % (split, count))
        count = int(count)
        ordered = sorted((image for image in images if image["split"] == split), key=lambda i: _order_key(i["name"]))
        for index in range(count):
            start, end = len(ordered) * index // count, len(ordered) * (index + 1) // count
            shards.append(
                {"name": shard_name(split, index, count), "split": split, "index": index, "images": ordered[start:end]}
            )
    for position, shard in enumerate(shards):
        shard["node"] = nodes[position % len(nodes)]
    return shards


def plan_summary(settings):
    """The plan from the counts alone (the run_once fact): ``settings``: ``train_images``, ``val_images``,
    ``train_shards``, ``val_shards``, ``nodes`` -> ``{node: {shards: [names], images: n}}``, the same
    assignment shard_plan makes (sizes and owners depend only on the counts)."""
    images = [{"split": "train", "name": "%d" % i} for i in range(int(settings["train_images"]))]
    images += [{"split": "val", "name": "%d" % i} for i in range(int(settings["val_images"]))]
    summary = {node: {"shards": [], "images": 0} for node in settings["nodes"]}
    for shard in shard_plan(images, settings["train_shards"], settings["val_shards"], settings["nodes"]):
        summary[shard["node"]]["shards"].append(shard["name"])
        summary[shard["node"]]["images"] += len(shard["images"])
    return summary


def labelled_images(synsets, train_classes, val_labels):
    """The synset list, the train listing and the val labels -> ``[{split, name, synset, label,
    member}]`` (label = position in the synset list + 1, as build_imagenet_data.py numbers them)."""
    labels = {synset["wnid"]: index + 1 for index, synset in enumerate(synsets)}
    images = []
    for wnid in sorted(train_classes):
        for name in train_classes[wnid]:
            images.append(
                {"split": "train", "name": name, "synset": wnid, "label": labels[wnid], "member": wnid + ".tar"}
            )
    for name in sorted(val_labels):
        images.append({"split": "val", "name": name, "synset": val_labels[name], "label": labels[val_labels[name]]})
    return images


_VALIDATE_RULES = (
    ("imagenet_prep_train_shards", minimum(1), "a number of shards >= 1"),
    ("imagenet_prep_val_shards", minimum(1), "a number of shards >= 1"),
    ("imagenet_prep_workers", minimum(1), "a number of worker processes >= 1"),
    ("imagenet_prep_data_dir", pattern(ABSOLUTE.pattern), "an absolute directory on every node"),
    ("imagenet_prep_python", pattern(ABSOLUTE.pattern), "an absolute path to the Python that runs the converter"),
    ("imagenet_prep_cache_dir", pattern(r"^(/|~)"), "a directory on the controller"),
)


def _archive_problems(archives):
    problems = []
    for key in ARCHIVES:
        entry = archives.get(key) if isinstance(archives, dict) else None
        name = "imagenet_prep_archives.%s" % key
        if not isinstance(entry, dict):
            problems.append("%s must be a dict with src (a path on the controller or a mirror URL) and sha256." % name)
            continue
        src = entry.get("src") or ""
        if not re.match(r"^(/|~|https?://)", str(src)):
            problems.append(
                "%s.src (%s) must be an absolute path on the controller or an http(s) mirror URL." % (name, show(src))
            )
        if not SHA256.match(str(entry.get("sha256") or "")):
            problems.append("%s.sha256 (%s) must be 64 lowercase hex digits." % (name, show(entry.get("sha256"))))
    return problems


def local_paths(archives, cache_dir):
    """Where each archive is on the controller: {key: path}. A path stays itself; a mirror URL is the file
    of its name in ``cache_dir``, where the role downloads it (both with ``~`` expanded)."""
    paths = {}
    for key, entry in archives.items():
        src = str(entry["src"])
        if re.match(r"^https?://", src):
            src = os.path.join(cache_dir, src.rstrip("/").rsplit("/", 1)[-1])
        paths[key] = os.path.expanduser(src)
    return paths


def imagenet_prep_input_problems(settings):
    """imagenet_prep's variables -> one sentence per problem, naming the variable ([] when all is well).

    ``settings``: the ``imagenet_prep_*`` variables and ``group_hosts`` (the hosts of imagenet_prep_group).
    """
    return (
        group_problems(settings, "imagenet_prep_group")
        + rule_problems(settings, _VALIDATE_RULES)
        + _archive_problems(settings["imagenet_prep_archives"])
    )


def imagenet_content_problems(archives, found):
    """What the archives hold -> one sentence per problem, naming the variable.

    ``archives``: imagenet_prep_archives; ``found``: the imagenet_archive_info module's result
    (``files: {key: {path, exists, sha256}}``, ``synsets``, ``train_classes``, ``val_images``,
    ``val_label_count``, ``bbox_synsets``, ``parse_errors: {key: message}``). A missing archive, a wrong
    sha256, a synset not in the list (a class tar, a val label, a box), a val label count that does
    not match the val images.
    """
    problems = []
    files = found.get("files", {})
    for key in ARCHIVES:
        name = "imagenet_prep_archives.%s" % key
        entry = files.get(key, {})
        if not entry.get("exists"):
            problems.append("%s.src: %s does not exist on the controller." % (name, entry.get("path")))
        elif entry.get("sha256") != archives[key]["sha256"]:
            problems.append(
                "%s.sha256 (%s) does not match %s (its sha256 is %s)."
                % (name, archives[key]["sha256"], entry.get("path"), entry.get("sha256"))
            )
    if problems:
        return problems
    for key, message in sorted(found.get("parse_errors", {}).items()):
        problems.append("imagenet_prep_archives.%s: %s." % (key, message))
    known = set(found.get("synsets", []))
    if not known:
        return problems
    checks = (
        ("train", "class tar", found.get("train_classes", [])),
        ("val_labels", "val label", found.get("val_label_synsets", [])),
        ("bbox", "box label", found.get("bbox_synsets", [])),
    )
    for key, what, synsets in checks:
        unknown = sorted(set(synsets) - known)
        if unknown:
            problems.append(
                "imagenet_prep_archives.%s: %s synset(s) %s not in imagenet_prep_archives.synsets."
                % (key, what, ", ".join(unknown[:5]))
            )
    if found.get("val_label_count") != len(found.get("val_images", [])) and "val_labels" not in found.get(
        "parse_errors", {}
    ):
        problems.append(
            "imagenet_prep_archives.val_labels: %s labels for %d images in imagenet_prep_archives.val."
            % (found.get("val_label_count"), len(found.get("val_images", [])))
        )
    return problems
