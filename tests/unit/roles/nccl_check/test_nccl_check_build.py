"""nccl_check's build (tasks/build.yml) on the controller itself (connection local, no lab host): nccl-tests is built
anew when a make variable changes, a re-run changes nothing, and --check predicts the rebuild and changes nothing.

The source is a STAND-IN: a tarball named as the pinned release (nccl-tests-<version>.tar.gz, fetched through
nccl_check_tests_url file:// and its sha256, as artifact_fetch checks any download) whose Makefile writes
build/all_reduce_perf holding the variables make was given; the machine has no CUDA to build the real one. Only the
build runs (ANSIBLE_RUN_TAGS=nccl_check_build: validate, resolve, build); the GPU count and gencode are resolved from
scc_instance_type."""

import hashlib
import io
import re
import sys
import tarfile

import yaml

from ansible_collections.scc.training.plugins.module_utils import hardware_defaults
from tests.lab_runner import changed, failed, run_playbook

VERSION = "2.17.6"
# STAND-IN for nccl-tests' Makefile: records what it was built with instead of compiling.
MAKEFILE = (
    "all:\n"
    "\tmkdir -p build\n"
    '\tprintf \'%s\\n\' "MPI=$(MPI)" "MPI_HOME=$(MPI_HOME)" "CUDA_HOME=$(CUDA_HOME)" "NCCL_HOME=$(NCCL_HOME)" '
    '"NVCC_GENCODE=$(NVCC_GENCODE)" > build/all_reduce_perf\n'
)
PLAY = """
- name: Build nccl-tests (stand-in source)
  hosts: scc_cluster
  gather_facts: false
  roles:
    - scc.training.nccl_check
"""
VOLTA = "-gencode=arch=compute_70,code=sm_70"
HOPPER = VOLTA + " -gencode=arch=compute_90,code=sm_90"


def stand_in_source(where):
    """nccl-tests-<version>.tar.gz holding nccl-tests-<version>/Makefile (the stand-in) -> its sha256."""
    tarball = where / ("nccl-tests-%s.tar.gz" % VERSION)
    with tarfile.open(tarball, "w:gz") as tar:
        data = MAKEFILE.encode()
        info = tarfile.TarInfo("nccl-tests-%s/Makefile" % VERSION)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return "file://%s" % tarball, hashlib.sha256(tarball.read_bytes()).hexdigest()


def built(build_dir):
    """{source tree under nccl_check_build_dir: the make variables its build/all_reduce_perf was built with}."""
    return {
        str(path.parent.parent.relative_to(build_dir)): dict(
            line.split("=", 1) for line in path.read_text().splitlines()
        )
        for path in sorted(build_dir.rglob("all_reduce_perf"))
    }


def test_a_changed_make_variable_rebuilds_a_rerun_changes_nothing_and_check_mode_predicts(tmp_path):
    url, sha256 = stand_in_source(tmp_path)
    inventory = {
        "scc_cluster": {
            "hosts": {"node1": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}}
        }
    }
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / "play.yml").write_text(PLAY)
    build_dir = tmp_path / "build"
    extravars = {
        "scc_instance_type": "ecs.sccgn6.24xlarge",
        "nccl_check_tests_url": url,
        "nccl_check_tests_sha256": sha256,
        "nccl_check_cache_dir": str(tmp_path / "cache"),
        "nccl_check_artifacts_path": str(tmp_path / "artifacts"),
        "nccl_check_build_dir": str(build_dir),
        "nccl_check_mpi_home": "/opt/openmpi",
    }

    def run(check=False, **changes):
        result = run_playbook(
            tmp_path / "play.yml",
            tmp_path / "inventory.yml",
            tmp_path,
            {**extravars, **changes},
            check=check,
            envvars={"ANSIBLE_RUN_TAGS": "nccl_check_build"},
        )
        assert result.status == "successful", failed(result.events)
        return {task for _host, task in changed(result.events)}

    make = "Build nccl-tests with MPI against the installed CUDA, NCCL and Open MPI"
    assert make in run()
    first = built(build_dir)
    (made,) = first.values()
    assert made == {
        "MPI": "1",
        "MPI_HOME": "/opt/openmpi",
        "CUDA_HOME": "/usr/local/cuda",
        "NCCL_HOME": "/usr",
        "NVCC_GENCODE": hardware_defaults.resolve("ecs.sccgn6.24xlarge")["nccl_tests_gencode"],
    }
    assert made["NVCC_GENCODE"] == VOLTA

    # --check with another gencode: the new build directory is the predicted change; nothing is built or written.
    predicted = run(check=True, nccl_check_nvcc_gencode=HOPPER)
    assert predicted and all(task.startswith("Create the build directory") for task in predicted), predicted
    assert built(build_dir) == first

    # The gencode changed: built anew, in its own directory; the old build stays as it was.
    assert make in run(nccl_check_nvcc_gencode=HOPPER)
    second = built(build_dir)
    assert len(second) == 2 and {k: second[k] for k in first} == first
    (new,) = set(second) - set(first)
    assert re.fullmatch(r"2\.17\.6-[0-9a-f]{12}/nccl-tests-2\.17\.6", new) and second[new]["NVCC_GENCODE"] == HOPPER

    # The same inputs again: nothing changes.
    assert run(nccl_check_nvcc_gencode=HOPPER) == set()
