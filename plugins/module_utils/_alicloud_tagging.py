# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Tags of Alibaba Cloud resources (compare amazon.aws tagging.py): a ``{key: value}`` dict to the RPC
form (``Tag.N.Key``/``Tag.N.Value``) and back from a Describe reply's ``Tags`` node.

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations


def tags_to_api(tags):
    """``{k: v}`` -> ``{"Tag.1.Key": k, "Tag.1.Value": v}``, keys sorted (RPC ``Tag.N.*``, N from 1)."""
    flat = {}
    for i, (tag_key, tag_value) in enumerate(sorted(tags.items()), start=1):
        flat["Tag.%d.Key" % i] = tag_key
        flat["Tag.%d.Value" % i] = tag_value
    return flat


def tags_from_api(tags_node, key_field="TagKey", value_field="TagValue"):
    """``{"Tag": [{"TagKey": k, "TagValue": v}]}`` (ECS) or Key/Value (NAS) -> ``{k: v}``."""
    result = {}
    for tag in (tags_node or {}).get("Tag", []) or []:
        key = tag.get(key_field, tag.get("Key"))
        if key is not None:
            result[key] = tag.get(value_field, tag.get("Value", ""))
    return result
