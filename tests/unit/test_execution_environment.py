"""execution-environment.yml and bindep.txt, as ansible-builder reads them.

`ansible-builder create` (no container engine needed) writes the build context of the
execution environment into a temp dir: the file must pass ansible-builder's schema 3, and the
Containerfile and context must carry the base image, the ansible-core and ansible-runner pins of
requirements.in (= requirements.lock's), requirements.txt, the lock and bindep.txt, and the collection
artifact `make ee` builds (a stand-in file here: the artifact itself is tested in
test_collection_build.py). Then ansible-builder's own introspection, run on an installed copy of the
collection, must find the collection's Python and system requirements (they ship in the artifact for
EE users) as requirements.txt's ranges, never an exact pin, and bindep must select the controller's
packages without the lab's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EE = yaml.safe_load((ROOT / "execution-environment.yml").read_text(encoding="utf-8"))


def _pins(path: Path) -> dict:
    """{name: 'name==version'} of the exact pins in a requirements file (and the files it -r includes)."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            pins.update(_pins(path.parent / line[3:].strip()))
        elif "==" in line:
            pins[line.split("==", 1)[0].strip().lower()] = line
    return pins


def _run(cmd, **kwargs):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120, check=False, **kwargs)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def context(tmp_path_factory):
    """ansible-builder create's output for a copy of the files execution-environment.yml names."""
    src = tmp_path_factory.mktemp("ee-src")
    for name in ("execution-environment.yml", "requirements.txt", "requirements.lock", "bindep.txt"):
        shutil.copy2(ROOT / name, src / name)
    build_file = EE["additional_build_files"][0]
    artifact = src / build_file["src"]
    artifact.parent.mkdir(parents=True)
    artifact.write_bytes(b"stand-in for the collection artifact")
    out = tmp_path_factory.mktemp("ee") / "context"
    _run(
        [
            BIN / "ansible-builder",
            "create",
            "--file",
            src / "execution-environment.yml",
            "--context",
            out,
            "--output-filename",
            "Containerfile",
        ],
        cwd=src,
    )
    return out


def test_the_definition_is_schema_3():
    assert EE["version"] == 3


def test_containerfile_starts_from_the_base_image_with_the_pinned_ansible(context):
    containerfile = (context / "Containerfile").read_text()
    assert f'ARG EE_BASE_IMAGE="{EE["images"]["base_image"]["name"]}"' in containerfile
    assert "FROM $EE_BASE_IMAGE AS base" in containerfile
    interpreter = EE["dependencies"]["python_interpreter"]
    assert f'ARG PYCMD="{interpreter["python_path"]}"' in containerfile
    assert f'ARG PYPKG="{interpreter["package_system"]}"' in containerfile
    refs = re.search(r'ARG ANSIBLE_INSTALL_REFS="([^"]*)"', containerfile).group(1).split()
    pins = _pins(ROOT / "requirements.in")
    assert refs == [pins["ansible-core"], pins["ansible-runner"]], (
        "execution-environment.yml and requirements.in pin different versions"
    )
    lock = (ROOT / "requirements.lock").read_text()
    assert all(f"\n{pin} \\\n" in lock for pin in refs), "requirements.lock differs from requirements.in: make lock"
    # The collections and their requirements are installed, then the system packages from bindep.
    for step in ("ansible-galaxy collection install", "introspect.py introspect", "install-from-bindep"):
        assert step in containerfile


def test_the_controllers_requirements_are_installed_from_the_lock_by_sha256(context):
    containerfile = (context / "Containerfile").read_text()
    assert (context / "_build" / "configs" / "requirements.lock").read_text() == (
        ROOT / "requirements.lock"
    ).read_text()
    install = "RUN $PYCMD -m pip install --no-cache-dir --require-hashes --force-reinstall --no-deps -r "
    assert install + "/tmp/scc-training-requirements.lock" in containerfile
    # After the base image's pip and ansible-core, before the stages that install the rest.
    assert (
        containerfile.index("ANSIBLE_INSTALL_REFS")
        < containerfile.index(install)
        < containerfile.index("FROM base AS builder")
    )


def test_context_holds_the_requirements_and_the_collection(context):
    build = context / "_build"
    assert (build / "requirements.txt").read_text() == (ROOT / "requirements.txt").read_text()
    assert (build / "bindep.txt").read_text() == (ROOT / "bindep.txt").read_text()
    galaxy = yaml.safe_load((build / "requirements.yml").read_text())
    (collection,) = galaxy["collections"]
    assert collection["type"] == "file"
    # The galaxy stage runs in /build, the context's _build: the artifact must be there.
    assert (build / collection["name"]).read_bytes() == b"stand-in for the collection artifact"


def test_ansible_builder_finds_the_installed_collections_requirements(context, tmp_path):
    """What the builder stage does with the installed collection: requirements.txt and bindep.txt
    ship at the collection root, so introspection takes them without any EE metadata file."""
    installed = tmp_path / "collections" / "ansible_collections" / "scc" / "training"
    installed.mkdir(parents=True)
    (installed / "MANIFEST.json").write_text("{}")  # what marks an installed collection
    for name in ("requirements.txt", "bindep.txt"):
        shutil.copy2(ROOT / name, installed / name)
    proc = _run(
        [
            sys.executable,
            context / "_build" / "scripts" / "introspect.py",
            "introspect",
            tmp_path / "collections",
            "--write-pip",
            tmp_path / "pip.txt",
            "--write-bindep",
            tmp_path / "bindep.txt",
        ]
    )
    pip = (tmp_path / "pip.txt").read_text()
    ours = [line for line in pip.splitlines() if line.endswith("# from collection scc.training")]
    wanted = [
        line.split("#", 1)[0].strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.split("#", 1)[0].strip()
    ]
    for name in (
        "aliyun-python-sdk-core",
        "aliyun-python-sdk-ecs",
        "aliyun-python-sdk-nas",
        "matplotlib",
        "kubernetes",
    ):
        assert any(w.startswith(name + ">=") for w in wanted), f"{name} is not a range in requirements.txt"
    assert sorted(line.split("#", 1)[0].strip() for line in ours) == sorted(wanted), proc.stdout
    # Ranges only: an image that holds other collections too may resolve them together.
    assert not [line for line in ours if "==" in line], ours
    # ansible-builder installs ansible-core and ansible-runner itself (the pins above), never from a collection.
    assert "ansible-core" not in pip and "ansible-runner" not in pip
    assert "openssh-client [platform:dpkg]  # from collection scc.training" in (tmp_path / "bindep.txt").read_text()


@pytest.mark.parametrize(
    "profiles,wanted,unwanted",
    [
        ([], {"openssh-client", "libc-bin"}, {"debootstrap", "dpkg-dev", "gnupg"}),
        (["lab", "test"], {"openssh-client", "debootstrap", "util-linux", "dpkg-dev", "gnupg"}, set()),
    ],
)
def test_bindep_profiles(profiles, wanted, unwanted):
    """On this machine (Debian: platform dpkg) the default profile is the controller's packages only."""
    if shutil.which("dpkg") is None:
        pytest.skip("the packages named here are Debian's")
    proc = _run([BIN / "bindep", "--file", ROOT / "bindep.txt", "--list_all", "newline", *profiles])
    listed = set(proc.stdout.split())
    assert wanted <= listed and not (unwanted & listed), listed


def test_the_image_runs_plays_with_ansible_s_own_strategy(context):
    # ansible-core 2.19 deprecates strategy plugins outside ansible.builtin (a warning on every run): the image
    # leaves the strategy to Ansible (linear) or a play's `strategy` keyword.
    containerfile = (context / "Containerfile").read_text()
    assert "ANSIBLE_STRATEGY" not in containerfile
