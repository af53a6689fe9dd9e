"""plugins/module_utils/artifacts.py and envfile.py, and their filters: artifact_fetch's decisions, aiacc's env files."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import artifacts as artifact_filters
from ansible_collections.scc.training.plugins.filter.envfile import env_file as env_file_filter
from ansible_collections.scc.training.plugins.module_utils.artifacts import (
    artifact_fetch_input_problems,
    artifact_plan,
    artifacts_to_copy,
    mirror_files,
    mirror_manifest_sha256,
)
from ansible_collections.scc.training.plugins.module_utils.envfile import env_file
from ansible_collections.scc.training.plugins.plugin_utils import role_plans

MANIFEST = {
    "artifacts": [
        {"name": "nvidia_nccl_cu12-2.27.5-py3-none-manylinux2014_x86_64.whl", "sha256": "a" * 64, "size": 3},
        {"name": "nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.whl", "sha256": "b" * 64, "size": 2},
        {"name": "nvidia_cuda_runtime_cu12-12.9.79-py3-none-manylinux2014_x86_64.whl", "sha256": "c" * 64, "size": 2},
    ]
}
WHEELHOUSE = {
    "wheelhouse": "/c/wheels/cp311-x86_64-0123456789ab",
    "wheels": [{"name": "six-1.17.0-py2.py3-none-any.whl", "size": 11, "sha256": "d" * 64}],
}
FILES = [{"name": "perseus.whl", "url": "https://x/perseus.whl", "sha256": "e" * 64}]


def test_mirror_files_picks_one_entry_per_prefix_with_its_url():
    chosen = mirror_files(
        MANIFEST, ["nvidia_nccl_cu12-2.27.5-", "nvidia_cuda_runtime_cu12-12.8."], "http://127.0.0.1:8000/"
    )
    assert chosen == [
        {
            "name": "nvidia_nccl_cu12-2.27.5-py3-none-manylinux2014_x86_64.whl",
            "sha256": "a" * 64,
            "url": "http://127.0.0.1:8000/nvidia_nccl_cu12-2.27.5-py3-none-manylinux2014_x86_64.whl",
        },
        {
            "name": "nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.whl",
            "sha256": "b" * 64,
            "url": "http://127.0.0.1:8000/nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.whl",
        },
    ]


@pytest.mark.parametrize("prefix,count", [("nvidia_cuda_runtime_cu12-", 2), ("nvidia_cudnn", 0)])
def test_mirror_files_needs_exactly_one_match(prefix, count):
    with pytest.raises(ValueError, match="The mirror /m lists %d files named %s\\*" % (count, prefix)):
        mirror_files(MANIFEST, [prefix], "/m")
    with pytest.raises(AnsibleFilterError, match=r"artifact_mirror_files: .*exactly one is needed"):
        role_plans.artifact_mirror_files(MANIFEST, [prefix], "/m")


def test_flat_plan_puts_files_then_wheels_in_the_destination():
    plan = artifact_plan(FILES, "/c/files", WHEELHOUSE, "/mnt/cpfs/artifacts/")
    assert plan == {
        "artifacts": [
            {"name": "perseus.whl", "src": "/c/files/perseus.whl", "dest": "/mnt/cpfs/artifacts/perseus.whl"},
            {
                "name": "six-1.17.0-py2.py3-none-any.whl",
                "src": "/c/wheels/cp311-x86_64-0123456789ab/six-1.17.0-py2.py3-none-any.whl",
                "dest": "/mnt/cpfs/artifacts/six-1.17.0-py2.py3-none-any.whl",
            },
        ],
        "dirs": ["/mnt/cpfs/artifacts"],
        "wheelhouse": "/mnt/cpfs/artifacts",
        "sha256": {"perseus.whl": "e" * 64, "six-1.17.0-py2.py3-none-any.whl": "d" * 64},
    }


def test_wheelhouse_plan_keeps_the_set_in_its_directory_manifest_last():
    plan = artifact_plan([], "/c/files", WHEELHOUSE, "/mnt/cpfs/wheelhouse", "wheelhouse")
    home = "/mnt/cpfs/wheelhouse/cp311-x86_64-0123456789ab"
    assert plan["wheelhouse"] == home
    assert plan["dirs"] == ["/mnt/cpfs/wheelhouse", home]
    assert [a["name"] for a in plan["artifacts"]] == [
        "six-1.17.0-py2.py3-none-any.whl",
        "requirements.txt",
        "constraints.txt",
        "manifest.json",
    ]
    assert all(a["dest"] == home + "/" + a["name"] for a in plan["artifacts"])
    assert plan["artifacts"][-1]["src"] == "/c/wheels/cp311-x86_64-0123456789ab/manifest.json"


def test_plan_without_wheels_accepts_a_skipped_result():
    plan = artifact_plan(FILES, "/c/files", {"skipped": True, "changed": False}, "/opt/a", "wheelhouse")
    assert plan["wheelhouse"] == "" and plan["dirs"] == ["/opt/a"] and len(plan["artifacts"]) == 1


def test_plan_refusals():
    with pytest.raises(ValueError, match="layout"):
        artifact_plan(FILES, "/c/files", {}, "/opt/a", "tree")
    clash = [{"name": "six-1.17.0-py2.py3-none-any.whl"}]
    with pytest.raises(AnsibleFilterError, match="artifact_plan: two artifacts land at /opt/a/six"):
        role_plans.artifact_plan(clash, "/c/files", WHEELHOUSE, "/opt/a")


def test_to_copy_sends_what_is_missing_or_of_another_sha256():
    planned = artifact_plan(FILES, "/c/files", WHEELHOUSE, "/opt/a")
    plan, pinned = planned["artifacts"], planned["sha256"]
    controller = [{"path": plan[0]["src"], "size": 100, "checksum": "e" * 64}, {"path": plan[1]["src"], "size": 11, "checksum": "d" * 64}]  # fmt: skip
    assert artifacts_to_copy(plan, controller, [], pinned) == plan
    # The same size is not the same file: an altered copy on the host is sent again.
    altered = [{"path": "/opt/a/perseus.whl", "size": 100, "checksum": "f" * 64}]
    assert artifacts_to_copy(plan, controller, altered, pinned) == plan
    host = [{"path": "/opt/a/perseus.whl", "size": 1, "checksum": "E" * 64}, {"path": plan[1]["dest"], "checksum": "d" * 64}]  # fmt: skip
    assert artifacts_to_copy(plan, controller, host, pinned) == []
    assert artifacts_to_copy(plan, controller, host) == []
    with pytest.raises(AnsibleFilterError, match=r"artifacts_to_copy: the controller lacks /c/files/perseus\.whl"):
        role_plans.artifacts_to_copy(plan, controller[1:], host)


@pytest.mark.parametrize(
    "controller, host, message",
    [
        (
            [{"path": "/c/files/perseus.whl", "size": 100}],
            [],
            r"the controller's find must hash each file with sha256 \(get_checksum: true, checksum_algorithm: sha256\): "
            r'/c/files/perseus.whl has checksum ""',
        ),
        (
            [{"path": "/c/files/perseus.whl", "checksum": "e" * 64}],
            [{"path": "/opt/a/perseus.whl", "checksum": "a" * 40}],  # sha1, find's default
            "the host's find must hash each file with sha256",
        ),
        (
            [{"path": "/c/files/perseus.whl", "checksum": "9" * 64}],
            [],
            "the controller's /c/files/perseus.whl has sha256 9{64}, not the e{64} it was fetched against",
        ),
        (
            [{"path": "/c/files/perseus.whl", "checksum": "f" * 64}],
            [],
            "the controller's /c/files/perseus.whl has sha256 f{64}, not the e{64} it was fetched against",
        ),
    ],
    ids=["controller_not_hashed", "host_hashed_with_sha1", "controller_cache_altered", "altered_to_a_higher_sha256"],
)
def test_to_copy_refuses_what_is_not_held_to_its_sha256(controller, host, message):
    planned = artifact_plan(FILES, "/c/files", {}, "/opt/a")
    with pytest.raises(AnsibleFilterError, match="^artifacts_to_copy: " + message):
        role_plans.artifacts_to_copy(planned["artifacts"], controller, host, planned["sha256"])


def test_env_file_styles_match_what_aiacc_wrote_before():
    env = {"PERSEUS_ALLREDUCE_STREAMS": "6", "PERSEUS_ALLREDUCE_DTYPE": "1", "A_B": "two words"}
    assert env_file(env, "plain", "Managed by scc.training.aiacc") == (
        "# Managed by scc.training.aiacc\nA_B=two words\nPERSEUS_ALLREDUCE_DTYPE=1\nPERSEUS_ALLREDUCE_STREAMS=6\n"
    )
    assert env_file(env, "export") == (
        "export A_B='two words'\nexport PERSEUS_ALLREDUCE_DTYPE=1\nexport PERSEUS_ALLREDUCE_STREAMS=6\n"
    )
    assert env_file({}, "plain", "h") == "# h\n"


@pytest.mark.parametrize(
    "env,style,message",
    [
        ({"1BAD": "x"}, "plain", "not an environment variable name"),
        ({"A": "x\ny"}, "plain", "holds a control character"),
        ({}, "json", "style"),
    ],
)
def test_env_file_refusals(env, style, message):
    with pytest.raises(ValueError, match=message):
        env_file(env, style)
    with pytest.raises(AnsibleFilterError, match="env_file: "):
        env_file_filter(env, style)


@pytest.mark.parametrize("mirror", ["http://127.0.0.1:8000", "http://127.0.0.1:8000/"])
def test_the_manifest_pin_is_the_inventorys_with_or_without_trailing_slash(mirror):
    assert mirror_manifest_sha256({"http://127.0.0.1:8000/": "F" * 64}, mirror) == "f" * 64


@pytest.mark.parametrize(
    "pins",
    [{}, None, {"/other": "f" * 64}, {"/a": "f" * 64}, {"/m": "f" * 63}, {"/m": "f" * 64, "/m/": "e" * 64}],
)
def test_an_unpinned_mirror_is_refused_naming_the_variable(pins):
    with pytest.raises(ValueError, match=r"artifact_fetch_mirror_manifests must pin the mirror \"/m\""):
        mirror_manifest_sha256(pins, "/m")
    with pytest.raises(AnsibleFilterError, match=r"artifact_mirror_manifest_sha256: artifact_fetch_mirror_manifests"):
        role_plans.artifact_mirror_manifest_sha256(pins, "/m")


@pytest.mark.parametrize(
    ("path", "shared", "expected"),
    [
        ("/mnt/cpfs/scc-training/artifacts", ["/mnt/cpfs"], True),
        ("/mnt/cpfs", ["/mnt/cpfs/"], True),
        ("/mnt/cpfs/a/../b", ["/mnt/cpfs"], True),
        # A sibling whose name starts like the mount is not on it, nor is a path that climbs out of it.
        ("/mnt/cpfs2/artifacts", ["/mnt/cpfs"], False),
        ("/mnt/a", ["/mnt/cpfs"], False),  # sorts before the mount: no more on it
        ("/mnt/cpfs/../opt", ["/mnt/cpfs"], False),
        ("/opt/scc-training/artifacts", [], False),
        ("/opt/scc-training/artifacts", ["relative/dir"], False),
    ],
)
def test_path_is_shared_only_on_or_under_a_proven_shared_directory(path, shared, expected):
    assert artifact_filters.path_is_shared(path, shared) is expected


def test_path_is_shared_refuses_a_relative_path_or_a_string_of_paths():
    with pytest.raises(AnsibleFilterError, match=r"^path_is_shared: the path must be absolute"):
        artifact_filters.path_is_shared("artifacts", ["/mnt/cpfs"])
    with pytest.raises(AnsibleFilterError, match=r"^path_is_shared: the shared paths must be a list"):
        artifact_filters.path_is_shared("/mnt/cpfs/a", "/mnt/cpfs")


def test_mirror_messages_mask_the_mirrors_credentials_and_name_its_host():
    mirror = "https://alice:S3cretT0ken@mirror.corp/scc/"
    with pytest.raises(ValueError) as refused:
        mirror_files(MANIFEST, ["nvidia_cudnn"], mirror)
    assert "S3cretT0ken" not in str(refused.value) and "https://alice:****@mirror.corp/scc/" in str(refused.value)
    with pytest.raises(ValueError) as unpinned:
        mirror_manifest_sha256({}, mirror)
    assert "S3cretT0ken" not in str(unpinned.value) and "https://alice:****@mirror.corp/scc" in str(unpinned.value)
    # The download itself still gets the URL as given.
    chosen = mirror_files(MANIFEST, ["nvidia_nccl_cu12-"], mirror)
    assert chosen[0]["url"].startswith("https://alice:S3cretT0ken@mirror.corp/scc/nvidia_nccl_cu12-")


def test_an_unpinned_mirrors_message_shows_the_pins_given():
    with pytest.raises(ValueError) as refused:
        mirror_manifest_sha256({"/a": "f" * 64}, "/m")
    assert str(refused.value).endswith('got {"/a": "%s"}.' % ("f" * 64)), refused.value


@pytest.mark.parametrize(
    "mirror,select,together",
    [("/srv/mirror", ["nvidia_nccl"], True), ("", [], True), ("/srv/mirror", [], False), ("", ["nvidia_nccl"], False)],
)
def test_a_mirror_and_its_selection_go_together(mirror, select, together):
    settings = {
        "artifact_fetch_dest": "/opt/scc-training/artifacts",
        "artifact_fetch_files": [],
        "artifact_fetch_wheels": [],
        "artifact_fetch_mirror": mirror,
        "artifact_fetch_mirror_select": select,
        "artifact_fetch_mirror_manifests": {"/srv/mirror": "f" * 64},
    }
    problems = artifact_fetch_input_problems(settings)
    assert any("go together" in problem for problem in problems) is not together, problems
