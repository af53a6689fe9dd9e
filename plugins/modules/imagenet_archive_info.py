#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: imagenet_archive_info
short_description: Read what the ILSVRC2012 (ImageNet) archives hold, before anything is converted
version_added: 0.2.0
author: scc.training developers (@scc-training)
description:
  - Checks that each archive exists and computes its sha256; lists the class tars of the train tar (a tar of per-class
    tars, each named after its WordNet id), the images of the val tar, the synsets named by the bounding-box XML files
    (Pascal VOC), the synset list and the val labels.
  - The role scc.training.imagenet_prep runs it on the controller, and judges the result with the filter
    the plan C(imagenet_content_problems) of P(scc.training.role_plan#lookup) before any host changes.
  - Read-only; it changes nothing, also outside check mode.
options:
  archives:
    description:
      - The archives by key, each an absolute path on this machine (C(~) expanded).
    type: dict
    required: true
    suboptions:
      train:
        description: The train tar (a tar of per-class tars).
        type: path
      val:
        description: The val tar.
        type: path
      bbox:
        description: The bounding-box archive (Pascal VOC XML files).
        type: path
      synsets:
        description: The synset list.
        type: path
      val_labels:
        description: The val labels.
        type: path
extends_documentation_fragment:
  - scc.training.read_only
"""

EXAMPLES = r"""
- name: Read the archives
  scc.training.imagenet_archive_info:
    archives:
      train: /data/ILSVRC2012_img_train.tar
      val: /data/ILSVRC2012_img_val.tar
      bbox: /data/ILSVRC2012_bbox_train_v2.tar.gz
      synsets: /data/LOC_synset_mapping.txt
      val_labels: /data/imagenet_2012_validation_synset_labels.txt
  delegate_to: localhost
  register: __imagenet
"""

RETURN = r"""
files:
  description: Per key, the path, whether it exists and its sha256 (null when missing).
  returned: always
  type: dict
  sample: {train: {path: /data/ILSVRC2012_img_train.tar, exists: true, sha256: "9e1e...8b2a"}}
synsets:
  description: The WordNet ids of the synset list, in order.
  returned: always
  type: list
  elements: str
train_classes:
  description: The WordNet ids of the class tars in the train tar.
  returned: always
  type: list
  elements: str
train_images:
  description: How many images the class tars hold.
  returned: always
  type: int
val_images:
  description: The image file names of the val tar, sorted.
  returned: always
  type: list
  elements: str
val_label_count:
  description: How many labels the val labels file holds.
  returned: always
  type: int
val_label_synsets:
  description: The distinct WordNet ids the val labels name.
  returned: always
  type: list
  elements: str
bbox_synsets:
  description: The distinct WordNet ids the bounding boxes name.
  returned: always
  type: list
  elements: str
bbox_files:
  description: How many XML annotations the bounding-box archive holds.
  returned: always
  type: int
parse_errors:
  description: Per key, why the file could not be read (absent when it could).
  returned: always
  type: dict
"""

import os
import tarfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.scc.training.plugins.module_utils import imagenet


def inspect(paths):
    """The archives' paths -> what the module returns (existence and sha256 first; contents only when all exist)."""
    found = {
        "files": {},
        "synsets": [],
        "train_classes": [],
        "train_images": 0,
        "val_images": [],
        "val_label_count": 0,
        "val_label_synsets": [],
        "bbox_synsets": [],
        "bbox_files": 0,
        "parse_errors": {},
    }
    for key in imagenet.ARCHIVES:
        path = paths.get(key) or ""
        exists = bool(path) and os.path.isfile(path)
        found["files"][key] = {"path": path, "exists": exists, "sha256": imagenet.file_sha256(path) if exists else None}
    if not all(entry["exists"] for entry in found["files"].values()):
        return found
    readers = (
        ("synsets", _read_synsets),
        ("train", _read_train),
        ("val", _read_val),
        ("val_labels", _read_val_labels),
        ("bbox", _read_bbox),
    )
    for key, reader in readers:
        try:
            reader(found["files"][key]["path"], found)
        except (ValueError, tarfile.TarError, OSError, UnicodeDecodeError) as error:
            found["parse_errors"][key] = str(error)
    return found


def _read_synsets(path, found):
    with open(path, encoding="utf-8") as handle:
        found["synsets"] = [synset["wnid"] for synset in imagenet.parse_synsets(handle.read())]


def _read_train(path, found):
    classes = imagenet.list_train_archive(path)
    found["train_classes"] = sorted(classes)
    found["train_images"] = sum(len(names) for names in classes.values())


def _read_val(path, found):
    found["val_images"] = imagenet.list_val_archive(path)


def _read_val_labels(path, found):
    with open(path, encoding="utf-8") as handle:
        lines = [line.split() for line in handle if line.strip()]
    found["val_label_count"] = len(lines)
    found["val_label_synsets"] = sorted({fields[-1] for fields in lines})


def _read_bbox(path, found):
    boxes = imagenet.read_bbox_archive(path)
    found["bbox_files"] = len(boxes)
    found["bbox_synsets"] = sorted({box["synset"] for entry in boxes.values() for box in entry["boxes"]})


def main():
    module = AnsibleModule(
        argument_spec={
            "archives": {
                "type": "dict",
                "required": True,
                "options": {key: {"type": "path"} for key in imagenet.ARCHIVES},
            }
        },
        supports_check_mode=True,
    )
    module.exit_json(changed=False, **inspect(module.params["archives"]))


if __name__ == "__main__":
    main()
