# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The data-prep ECS of provision.yml (the manual's ECS that prepares ImageNet): what its
``scc_cloud_data_prep_*`` variables must be, checked before any API call.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re

from ansible_collections.scc.training.plugins.module_utils.input_checks import number, show, text

GIB = 1 << 30
# ILSVRC2012's image archives in bytes, as published (CompVis/taming-transformers taming/data/imagenet.py SIZES;
# `ls -l` in jkjung-avt/keras_imagenet's README): ILSVRC2012_img_train.tar and ILSVRC2012_img_val.tar, 144 GiB.
ILSVRC2012_ARCHIVE_BYTES = 147897477120 + 6744924160
# The TFRecord shards carry the same JPEG bytes plus a few hundred bytes of features per image, so about the
# archives' size again (UNCONFIRMED: an estimate, no published size of the Inception layout's shards was found).
ILSVRC2012_TFRECORD_BYTES = ILSVRC2012_ARCHIVE_BYTES
# Alibaba Cloud Linux 3's public image takes 20 GiB of the system disk (its ID says so: aliyun_3_x64_20G_alibase_*).
IMAGE_GIB = 20
# The archives and their TFRecords on the instance's own disk, as the manual's ECS keeps them, plus the image.
MIN_SYSTEM_DISK_GIB = math.ceil((ILSVRC2012_ARCHIVE_BYTES + ILSVRC2012_TFRECORD_BYTES) / GIB) + IMAGE_GIB
# SystemDisk.Size: 20 to 2048 GiB (RunInstances; the limit scc.training.ecs_instance checks).
MAX_SYSTEM_DISK_GIB = 2048
INSTANCE_TYPE = re.compile(r"^ecs\.([a-z][a-z0-9-]*)\.([a-z0-9-]+)\Z")


def _instance_type_problems(instance_type):
    match = INSTANCE_TYPE.match(instance_type)
    if not match:
        return [
            "scc_cloud_data_prep_instance_type (%s) must be ecs.<family>.<size>, e.g. ecs.g7.8xlarge."
            % show(instance_type)
        ]
    if match.group(1).startswith("scc"):
        # SCC types are the GPU nodes themselves (they need the HPC cluster): that is imagenet_prep's default.
        return [
            "scc_cloud_data_prep_instance_type (%s) is an SCC type; the data-prep ECS is a general-purpose one"
            " (e.g. ecs.g7.8xlarge); to convert on the SCC nodes, leave scc_cloud_data_prep_enabled false."
            % show(instance_type)
        ]
    return []


def data_prep_input_problems(settings):
    """``scc_cloud_data_prep_*`` -> one sentence per problem, naming the variable (empty when all is well).

    Nothing is checked while ``scc_cloud_data_prep_enabled`` is false: provision.yml then only releases an
    instance made earlier, which needs none of the other variables.
    """
    if not settings.get("scc_cloud_data_prep_enabled"):
        return []
    problems = _instance_type_problems(text(settings.get("scc_cloud_data_prep_instance_type")))
    if not text(settings.get("scc_cloud_data_prep_image_id")):
        problems.append("scc_cloud_data_prep_image_id must name the image of the data-prep ECS (it has no default).")
    size = settings.get("scc_cloud_data_prep_system_disk_size")
    gib = number(size)
    if gib is None or not MIN_SYSTEM_DISK_GIB <= gib <= MAX_SYSTEM_DISK_GIB:
        problems.append(
            "scc_cloud_data_prep_system_disk_size (%s) must be %d to %d GiB: ILSVRC2012's archives (%d GiB) and their"
            " TFRecords (about as much) plus the image's %d GiB."
            % (
                show(size),
                MIN_SYSTEM_DISK_GIB,
                MAX_SYSTEM_DISK_GIB,
                math.ceil(ILSVRC2012_ARCHIVE_BYTES / GIB),
                IMAGE_GIB,
            )
        )
    return problems
