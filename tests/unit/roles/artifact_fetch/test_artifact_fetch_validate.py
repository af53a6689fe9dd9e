"""artifact_fetch's validate entry point (the argument spec, then tasks/validate.yml): every refusal names
its variable, and a mirror is refused unless the inventory pins its manifest.json by sha256 (one
ansible-playbook run for every case, no host contacted)."""

from tests.unit.roles.validate_runner import validate_tests

SHA = "0123456789abcdef" * 4
BASE = {"artifact_fetch_register": "__fetched"}
MIRROR = {
    **BASE,
    "artifact_fetch_mirror": "https://mirror.example/cuda/",
    "artifact_fetch_mirror_select": ["nvidia_cuda_runtime_cu12-12.8."],
}
FILE = {"name": "fw.bin", "url": "https://x.example/fw.bin", "sha256": SHA}

CASES = {
    "ok_nothing": (BASE, None),
    "ok_file_with_sha256": ({**BASE, "artifact_fetch_files": [FILE]}, None),
    # Pinned without the trailing slash the caller passes: the same mirror.
    "ok_mirror_pinned": ({**MIRROR, "artifact_fetch_mirror_manifests": {"https://mirror.example/cuda": SHA}}, None),
    "bad_mirror_unpinned": (MIRROR, "artifact_fetch_mirror_manifests must pin the mirror"),
    "bad_mirror_pinned_elsewhere": (
        {**MIRROR, "artifact_fetch_mirror_manifests": {"https://mirror.example/cudnn": SHA}},
        "artifact_fetch_mirror_manifests",
    ),
    "bad_mirror_pin_not_sha256": (
        {**MIRROR, "artifact_fetch_mirror_manifests": {"https://mirror.example/cuda": "latest"}},
        "artifact_fetch_mirror_manifests",
    ),
    "bad_mirror_pins_not_a_dict": (
        {**MIRROR, "artifact_fetch_mirror_manifests": "sha"},
        "artifact_fetch_mirror_manifests",
    ),
    "bad_mirror_without_select": (
        {**BASE, "artifact_fetch_mirror": "/srv/m", "artifact_fetch_mirror_manifests": {"/srv/m": SHA}},
        "artifact_fetch_mirror_select",
    ),
    "bad_mirror_relative": (
        {**MIRROR, "artifact_fetch_mirror": "m", "artifact_fetch_mirror_manifests": {"m": SHA}},
        "artifact_fetch_mirror (\"m\")",
    ),
    "bad_file_without_sha256": (
        {**BASE, "artifact_fetch_files": [{"name": "fw.bin", "url": "/srv/fw.bin"}]},
        "artifact_fetch_files",
    ),
    "bad_file_sha256_of_a_mirror": (
        {**BASE, "artifact_fetch_files": [{**FILE, "sha256": "md5:0"}]},
        "artifact_fetch_files",
    ),
    "bad_dest_relative": ({**BASE, "artifact_fetch_dest": "artifacts"}, "artifact_fetch_dest"),
    "bad_wheel_range": ({**BASE, "artifact_fetch_wheels": ["torch>=2"]}, "artifact_fetch_wheels"),
    "bad_no_register": ({}, "artifact_fetch_register"),
}


results, test_validate = validate_tests("artifact_fetch", CASES)
