"""imagenet_prep's plans (plugins/plugin_utils/role_plans.py; filters until 0.4.0): thin wrappers; errors name the filter."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.plugin_utils import role_plans


def test_the_plans_are_registered():
    for name in ("imagenet_content_problems", "imagenet_shard_plan", "imagenet_local_paths"):
        assert role_plans.plan(name) is getattr(role_plans, name)


def test_the_plan_filter_names_itself_on_bad_input():
    with pytest.raises(AnsibleFilterError, match="imagenet_shard_plan: the plan needs at least one node"):
        role_plans.imagenet_shard_plan(
            {"train_images": 1, "val_images": 1, "train_shards": 1, "val_shards": 1, "nodes": []}
        )
    # imagenet_prep's input rules: the lookup role_input_problems (tests/unit/plugins/lookup/test_role_input_problems.py)
    assert "imagenet_prep_input_problems" not in role_plans.PLANS


def test_local_paths_keep_paths_and_put_mirror_downloads_in_the_cache(monkeypatch):
    monkeypatch.setenv("HOME", "/home/op")
    archives = {
        "train": {"src": "/data/ILSVRC2012_img_train.tar", "sha256": "0" * 64},
        "val": {"src": "https://mirror.example/ilsvrc/ILSVRC2012_img_val.tar", "sha256": "1" * 64},
        "synsets": {"src": "~/in/synsets.txt", "sha256": "2" * 64},
    }
    assert role_plans.imagenet_local_paths(archives, "~/.cache/imagenet") == {
        "train": "/data/ILSVRC2012_img_train.tar",
        "val": "/home/op/.cache/imagenet/ILSVRC2012_img_val.tar",
        "synsets": "/home/op/in/synsets.txt",
    }
    with pytest.raises(AnsibleFilterError, match="imagenet_local_paths"):
        role_plans.imagenet_local_paths({"train": {}}, "/cache")
