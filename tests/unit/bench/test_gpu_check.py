"""bench/gpu_check.py's logic on the CPU, with named stand-ins for what the lab lacks: STAND-IN nvidia-smi (a script
printing the bytes real nvidia-smi wrote: a T4's -q -x, a real H200's topo -m with its escape sequences, nvlink -s
printing nothing as on the single-GPU H200 VM of issue 22), a stand-in kernel log (cat of a fixture), the BERT part
run tiny on the CPU, and the nccl-tests judgement on the parse of a published all_reduce_perf output."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.scc.training.plugins.module_utils import hardware_defaults, nccl_check, nccl_tests, xid

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "bench" / "gpu_check.py")
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)


def standin_nvidia_smi(tmp_path, xml):
    """A STAND-IN for nvidia-smi: prints the captured bytes of the subcommand asked for."""
    script = tmp_path / "nvidia-smi-standin"
    script.write_text(
        "#!%s\n"
        "import sys\n"
        "args = sys.argv[1:]\n"
        "files = {('-q', '-x'): %r, ('topo', '-m'): %r, ('nvlink', '-s'): None}\n"
        "path = files[tuple(args)]\n"
        "sys.stdout.buffer.write(open(path, 'rb').read() if path else b'')\n"
        % (
            sys.executable,
            str(FIXTURES / "nvidia_smi" / xml),
            str(FIXTURES / "nvidia_topo" / "h200-1gpu-590.48.01-raw.txt"),
        )
    )
    script.chmod(0o755)
    return script


def standin_sysfs(tmp_path, gpus=1):
    """A STAND-IN for /sys/bus/pci/devices: ``gpus`` NVIDIA 3D controllers (vendor 0x10de, class 0x030200)."""
    root = tmp_path / "pci-devices"
    for index in range(gpus):
        dev = root / ("0000:%02x:00.0" % (0x1B + index))
        dev.mkdir(parents=True)
        (dev / "vendor").write_text("0x10de\n")
        (dev / "class").write_text("0x030200\n")
    host_bridge = root / "0000:00:00.0"
    host_bridge.mkdir(parents=True)
    (host_bridge / "vendor").write_text("0x8086\n")
    (host_bridge / "class").write_text("0x060000\n")
    return root


def check(tmp_path, *options):
    """bench/gpu_check.sh with this venv's Python (its torch), as on a GPU machine: no PYTHONPATH."""
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        ["bash", str(ROOT / "bench" / "gpu_check.sh"), sys.executable, "--report", str(report), "--device", "cpu",
         *options],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, check=False, env=env,
    )  # fmt: skip
    return done, json.loads(report.read_text())


@pytest.mark.parametrize(
    "xml,log,status,verdict",
    [
        # persistence mode off: a finding, not a failure; an empty kernel log
        ("rtx-3080-595-na-ecc.xml", os.devnull, "PASS", "amber"),
        # a link trained at x8 of x16 (the role's remedy: reboot), and a kernel log with Xid 79/119/48 lines
        ("tesla-t4-515.xml", str(FIXTURES / "xid" / "kernel_log_xid_layouts.txt"), "FAIL", "red"),
    ],
)
def test_health_and_placement_judge_the_real_bytes_through_the_collections_python(tmp_path, xml, log, status, verdict):
    smi = standin_nvidia_smi(tmp_path, xml)
    done, report = check(tmp_path, "--parts", "health,placement", "--nvidia-smi", str(smi), "--dcgmi", "no-such-dcgmi",
                         "--kernel-log", "cat", log, "--pci-devices", str(standin_sysfs(tmp_path)))  # fmt: skip
    health, placement = report["parts"]
    # gpu_health's own verdicts and status, the Xid lines of the kernel log among them.
    assert (health["status"], health["report"]["status"]) == (status, verdict), health
    assert any("xid: Xid 79" in p for p in health["report"]["problems"]) is (verdict == "red")
    assert "kernel log: cat" in health["summary"] and "(read); DCGM: not installed" in health["summary"]
    # The H200's topo -m, its header in escape sequences, still yields its GPU and NUMA node.
    assert placement["placement"]["reason"].startswith("GPUs [0] on NUMA nodes [0]"), placement
    # --device cpu: torch sees no GPU, the topology shows one: the placement part says so and fails.
    assert placement["status"] == "FAIL" and "topo -m shows 1 GPU(s), torch 0" in placement["summary"]
    lines = done.stdout.splitlines()
    assert re.match(r"^%s health +%s: \d+ checks, failing: GPU 0 " % (status, verdict), lines[0]), done.stdout
    assert lines[-1].startswith("FAIL gpu-check: 2 part(s)") and done.returncode == 1


def test_a_gpu_on_the_bus_that_nvidia_smi_does_not_list_fails_the_node(tmp_path):
    smi = standin_nvidia_smi(tmp_path, "rtx-3080-595-na-ecc.xml")
    sysfs = standin_sysfs(tmp_path, gpus=2)
    _done, report = check(
        tmp_path, "--parts", "health", "--nvidia-smi", str(smi), "--kernel-log", "true", "--pci-devices", str(sysfs)
    )
    (health,) = report["parts"]
    assert health["status"] == "FAIL" and "node gpu_count: 1 GPUs seen by nvidia-smi, 2 expected" in health["summary"]


def test_a_missing_nvidia_smi_fails_the_health_part_without_stopping_the_others(tmp_path):
    done, report = check(tmp_path, "--parts", "health,placement,nccl", "--nvidia-smi", "no-such-nvidia-smi",
                         "--kernel-log", "true")  # fmt: skip
    statuses = {part["part"]: part["status"] for part in report["parts"]}
    assert statuses == {"health": "FAIL", "placement": "FAIL", "nccl": "SKIP"}, done.stdout
    assert "nvidia-smi -q -x failed" in report["parts"][0]["summary"]


def test_the_kernel_log_falls_back_to_dmesg_without_journalctl(tmp_path):
    """gpu_health's default kernel-log command, the one gpu_check.py runs, with a PATH holding only sh and
    STAND-IN journalctl/dmesg scripts: journalctl -k where it is installed, else dmesg's bytes, Xid lines read."""
    argv = gpu_check.kernel_log_command()
    role = yaml.safe_load((ROOT / "roles" / "gpu_health" / "defaults" / "main.yml").read_text())
    assert argv == role["gpu_health_kernel_log_command"]  # the role runs the same argv
    (tmp_path / "sh").symlink_to(shutil.which("sh"))
    dmesg = tmp_path / "dmesg"
    dmesg.write_text("#!/bin/sh\nexec %s %s\n" % (shutil.which("cat"), FIXTURES / "xid" / "kernel_log_xid_layouts.txt"))
    dmesg.chmod(0o755)
    env = {"PATH": str(tmp_path)}
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    assert [e["xid"] for e in xid.parse_xid(out)] == [79, 119, 43, 13, 63, 48, 63, 13]
    journalctl = tmp_path / "journalctl"
    journalctl.write_text('#!/bin/sh\necho "journalctl $*"\n')
    journalctl.chmod(0o755)
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    assert out == "journalctl -k --no-pager\n"


def test_nccl_tests_judgement_one_gpu_and_several(tmp_path):
    # In this process the collection's modules come from the checkout's .collections (conftest.py), imported before
    # a test installs Ansible's collection loader; gpu_check.py's own link is for gpu_check.py's process.
    parsed = nccl_tests.parse_nccl_tests((FIXTURES / "nccl" / "nccl_tests_all_reduce_h100_2nodes.txt").read_text())
    check_mod = nccl_check
    # Several GPUs: nccl_check's own verdict at the threshold.
    assert gpu_check.judge_nccl(parsed, 16, 300.0, check_mod)[0] is True
    assert gpu_check.judge_nccl(parsed, 16, 400.0, check_mod)[0] is False
    # One GPU: busbw is 0 by definition; algbw, #wrong and the out-of-bounds summary are what it proves.
    one = copy.deepcopy(parsed)
    for row in one["rows"]:
        row["busbw_gbs"] = row["in_place"]["busbw_gbs"] = 0.0
    assert gpu_check.judge_nccl(one, 1, 300.0, check_mod)[:2] == (True, [])
    one["rows"][-1]["wrong"] = 3
    assert gpu_check.judge_nccl(one, 1, 300.0, check_mod)[1] == ["3 wrong values (#wrong)"]
    one["rows"] = []
    assert gpu_check.judge_nccl(one, 1, 300.0, check_mod)[0] is False


def test_nccl_tests_judgement_reads_the_largest_size_and_both_passes_and_two_gpus_are_several():
    parsed = nccl_tests.parse_nccl_tests((FIXTURES / "nccl" / "nccl_tests_all_reduce_h100_2nodes.txt").read_text())
    # Two GPUs are several: nccl_check's busbw verdict, which this run fails at 400 GB/s (one GPU's path would pass).
    assert gpu_check.judge_nccl(parsed, 2, 400.0, nccl_check)[0] is False
    one = copy.deepcopy(parsed)
    for row in one["rows"]:
        row["busbw_gbs"] = row["in_place"]["busbw_gbs"] = 0.0
    # One GPU: what one GPU proves, never a busbw threshold.
    ok, problems, details = gpu_check.judge_nccl(one, 1, 300.0, nccl_check)
    assert (ok, problems, details) == (True, [], {"algbw_gbps": 180.71})  # the largest size's, the last row
    # algbw 0 only at the largest size fails and names it; 0 at the two sizes below it does not.
    for index in (0, 1, -2):
        one["rows"][index]["algbw_gbs"] = 0.0
    assert gpu_check.judge_nccl(one, 1, 300.0, nccl_check)[:2] == (True, [])
    one["rows"][-1]["algbw_gbs"] = 0.0
    assert gpu_check.judge_nccl(one, 1, 300.0, nccl_check)[1] == ["algbw 0 at 8589934592 bytes"]
    # A wrong value in the in-place pass alone counts too.
    two = copy.deepcopy(parsed)
    two["rows"][3]["in_place"]["wrong"] = 2
    assert gpu_check.judge_nccl(two, 1, 300.0, nccl_check)[1] == ["2 wrong values (#wrong)"]


def test_a_pci_device_without_a_readable_class_is_counted_by_what_it_has(tmp_path):
    def mu(name):
        from ansible_collections.scc.training.plugins.module_utils import nvidia_pci

        return {"nvidia_pci": nvidia_pci}[name]

    sysfs = standin_sysfs(tmp_path, gpus=2)
    (sysfs / "0000:1c:00.0" / "class").unlink()  # a device whose class cannot be read: not a GPU, no crash
    assert gpu_check.pci_gpu_count(sysfs, mu) == 1
    assert gpu_check.pci_gpu_count(tmp_path / "no-such-folder", mu) is None


def test_the_single_node_threshold_is_hardware_defaults_for_the_gpu_model():
    def mu(name):
        return {"hardware_defaults": hardware_defaults}[name]

    assert gpu_check.single_node_threshold(mu, "NVIDIA H200") == 315.0  # 18 NVLinks x 25 GB/s x 0.7
    assert gpu_check.single_node_threshold(mu, "Tesla V100-SXM2-32GB") == 105.0  # 6 x 25 x 0.7
    assert gpu_check.single_node_threshold(mu, "NVIDIA L20") == round(31.5 * 0.35, 2)  # PCIe 4 x16 basis
    assert gpu_check.single_node_threshold(mu, "NVIDIA GeForce RTX 3080") is None


def test_nccl_tests_source_must_match_nccl_checks_pin(tmp_path, monkeypatch):
    version = gpu_check.role_default("nccl_check", "nccl_check_tests_version")
    monkeypatch.setattr(gpu_check, "NCCL_SOURCE_DIR", tmp_path)
    args = type("Args", (), {"python": sys.executable})()
    assert "make nccl-tests-source" in gpu_check.build_nccl_tests(args, "9.0", tmp_path)[1]
    (tmp_path / ("nccl-tests-%s.tar.gz" % version)).write_bytes(b"not the release")
    assert "nccl_check pins" in gpu_check.build_nccl_tests(args, "9.0", tmp_path)[1]


def test_gpu_check_sh_runs_the_trainers_from_the_installed_wheel_and_keeps_the_c_compiler(tmp_path):
    """Issue 22 defects 1 and 2, issue 38: gpu_check.sh installs the runtime wheel built from this checkout into its
    venv over the given Python (no index, no dependencies), and the trainers import from there with no PYTHONPATH; the
    caller's CC reaches the trainer unchanged (Inductor runs it)."""
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        ["bash", str(ROOT / "bench" / "gpu_check.sh"), sys.executable, "--help"],
        env=bare, capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Its venv: named by the given Python's path.
    venv = ROOT / ".cache" / "gpu-check" / ("venv-" + hashlib.sha256(sys.executable.encode()).hexdigest()[:12])
    python = str(venv / "bin" / "python")
    where = subprocess.run(
        [python, "-c", "import scc_training_runtime as r, torch; print(r.__file__); print(r.__version__)"],
        env=bare, capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert where.returncode == 0, where.stderr
    path, version = where.stdout.split()
    # The wheel installed is the one this checkout builds (the collection's version, labelled by the tree's files).
    built = json.loads(subprocess.run([sys.executable, str(ROOT / "runtime" / "build_wheel.py"), "--out",
                                       str(tmp_path / "wheel")], capture_output=True, text=True, check=True).stdout)  # fmt: skip
    assert path.startswith(str(venv)) and version == built["version"]
    assert version.split("+")[0] == yaml.safe_load((ROOT / "galaxy.yml").read_text())["version"]
    assert (venv / "runtime.sha256").read_text().strip() == built["sha256"]
    # Outside that venv, the bare Python has no runtime: it is the wheel, not a path, that makes the trainers importable.
    outside = subprocess.run([sys.executable, "-c", "import scc_training_runtime"], env=bare, capture_output=True,
                             text=True, check=False, cwd=tmp_path)  # fmt: skip
    assert outside.returncode != 0
    env = dict(gpu_check.trainer_env(), CC="/usr/bin/gcc-standin")
    assert "PYTHONPATH" not in env or env["PYTHONPATH"] == os.environ.get("PYTHONPATH")
    with_fix = subprocess.run(
        [python, "-m", gpu_check.BERT_MODULE, "--help"], env=env, capture_output=True, text=True, check=False
    )
    assert with_fix.returncode == 0, with_fix.stderr
    seen = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ['CC'])"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert seen.stdout.strip() == "/usr/bin/gcc-standin"


SHELL_GLOBS = ("bench/*.sh", "tools/*.sh", "roles/*/files/*.sh", "roles/*/templates/*.sh*", "lab/**/*.sh", "Makefile")


def test_no_script_of_ours_sets_the_c_compiler_variables():
    """CC/CXX belong to the environment (torch.compile's Inductor execs $CC): issue 22 found bench/gpu_bert.sh's
    compute capability in CC, and Inductor executing '9.0'."""
    setting = re.compile(r"^\s*(?:export\s+|local\s+|declare\s+\S*\s*|readonly\s+)?(CC|CXX)\s*[:+]?=", re.M)
    scripts = sorted({path for pattern in SHELL_GLOBS for path in ROOT.glob(pattern)})
    assert any(path.name == "gpu_bert.sh" for path in scripts)
    offenders = [str(path.relative_to(ROOT)) for path in scripts if setting.search(path.read_text(errors="replace"))]
    assert offenders == []
    assert setting.search('CC=$("$PYTHON" -c "...")\n') and not setting.search("NCCL_HOME=/x\nCUDA_CC=1\n")


def test_the_bert_part_runs_pretrain_bert_with_an_h200s_levers_and_reports_mfu_fields(tmp_path):
    done, report = check(tmp_path, "--parts", "bert", "--bert-size", "tiny", "--bert-steps", "3", "--bert-batch", "2",
                         "--bert-runs", "defaults,tuned", "--bert-levers-for", "9.0", "--bert-timeout", "240")  # fmt: skip
    (bert,) = report["parts"]
    assert bert["status"] == "PASS", done.stdout + done.stderr
    tuned = bert["runs"]["tuned"]
    # The levers bert_launch resolves for compute capability 9.0, pre-tokenised shards among them.
    assert {"--data", "shards", "--attention", "sdpa", "--mlm-head", "masked"} <= set(tuned["options"])
    for run in bert["runs"].values():
        assert run["mfu"] is None and run["useful_mfu"] is None  # a CPU has no peak in the table: printed as n/a
        assert run["step_ms"] > 0 and run["syncs_per_step"] is not None and run["batch_size"] == "2"
    assert done.stdout.startswith("PASS bert      defaults MFU n/a useful n/a (")


def test_nccl_tests_build_for_the_gpus_architecture_against_the_nccl_wheel(tmp_path, monkeypatch):
    """The build's inputs with STAND-INs: a source tarball of the pinned name and sha256, a CUDA toolkit whose nvcc is a
    script, an nvidia-nccl wheel layout (include/nccl.h, lib/libnccl.so.2 without the unversioned link) on the
    Python's path, and a make that records its arguments."""
    import hashlib
    import tarfile

    version = gpu_check.role_default("nccl_check", "nccl_check_tests_version")
    src = tmp_path / "src" / ("nccl-tests-%s" % version)
    src.mkdir(parents=True)
    (src / "Makefile").write_text("all:\n")
    tarball = tmp_path / "cache" / ("nccl-tests-%s.tar.gz" % version)
    tarball.parent.mkdir()
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(src, arcname=src.name)
    sha = hashlib.sha256(tarball.read_bytes()).hexdigest()
    real_default = gpu_check.role_default
    monkeypatch.setattr(
        gpu_check, "role_default", lambda role, name: sha if name.endswith("sha256") else real_default(role, name)
    )
    monkeypatch.setattr(gpu_check, "NCCL_SOURCE_DIR", tarball.parent)
    wheel = tmp_path / "site" / "nvidia" / "nccl"
    (wheel / "include").mkdir(parents=True)
    (wheel / "include" / "nccl.h").write_text("/* stand-in */\n")
    (wheel / "lib").mkdir()
    (wheel / "lib" / "libnccl.so.2").write_text("stand-in\n")
    cuda = tmp_path / "cuda"
    (cuda / "bin").mkdir(parents=True)
    (cuda / "bin" / "nvcc").write_text("#!/bin/sh\n")
    (cuda / "bin" / "nvcc").chmod(0o755)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "make").write_text('#!/bin/sh\nprintf "%s\\n" "$@" > make.args\nmkdir -p build\n')
    (tools / "make").chmod(0o755)
    monkeypatch.setenv("PATH", "%s:%s" % (tools, os.environ["PATH"]))
    monkeypatch.setenv("CUDA_HOME", str(cuda))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    work = tmp_path / "work"
    work.mkdir()
    args = type("Args", (), {"python": sys.executable})()
    build, why = gpu_check.build_nccl_tests(args, "9.0", work)
    assert why is None and build == work / src.name / "build"
    made = (work / src.name / "make.args").read_text().split("\n")
    assert "NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90" in made and "CUDA_HOME=%s" % cuda in made
    home = Path(next(a for a in made if a.startswith("NCCL_HOME=")).split("=", 1)[1])
    assert (home / "include" / "nccl.h").is_file() and (home / "lib" / "libnccl.so").resolve() == (
        wheel / "lib" / "libnccl.so.2"
    )
    assert os.environ["LD_LIBRARY_PATH"].startswith(str(home / "lib"))
    # No toolkit: the part is skipped with the reason, nothing built.
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "no-cuda"))
    assert "no nvcc" in gpu_check.build_nccl_tests(args, "9.0", tmp_path / "work2")[1]


@pytest.mark.parametrize("source", ["synthetic", "tfrecord"])
def test_the_resnet_part_reports_images_per_second_and_which_data(tmp_path, source):
    """Without --resnet-data the part runs train_resnet.py --data synthetic (a GPU machine has no shards), and says
    so; with it, the shards (written by the resnet unit tests' helper, the tfrecord package's writer)."""
    options = []
    if source == "tfrecord":
        from tests.unit.resnet.shards import write_shards

        write_shards(tmp_path / "shards", "train", 2, 8)
        options = ["--resnet-data", str(tmp_path / "shards")]
    done, report = check(tmp_path, "--parts", "resnet", "--resnet-model", "resnet18", "--resnet-batch", "4",
                         "--resnet-image-size", "32", "--resnet-steps", "3", *options)  # fmt: skip
    (resnet,) = report["parts"]
    assert resnet["status"] == "PASS", done.stdout + done.stderr
    results = resnet["results"]
    assert results["data"]["source"] == source and results["model"]["name"] == "resnet18"
    assert results["throughput"]["measured_steps"] == 2 and results["per_rank_batch"] == 4
    images = results["throughput"]["images_per_s"]
    assert images > 0
    line = "PASS resnet    resnet18 %s images/s (fp32, batch 4, %s data)" % (format(images, ".1f"), source)
    assert done.stdout.splitlines()[0] == line, done.stdout
