"""One GPU check of a node, before a job: every GPU-facing part of the collection run on this machine's GPUs, each
judged by the collection's own Python, one summary line per part and one JSON report (bench/gpu_check.sh runs it;
`make gpu-check` too). Needs only a Python with torch: no Ansible, no venv of ours (gpu_check.sh makes a venv over that
Python's packages and installs the runtime wheel built from this checkout into it: the trainers run from the wheel). The collection's module_utils are
imported as Ansible would (ansible_collections.scc.training, here a link to this checkout); none imports Ansible.

Parts (each PASS, FAIL or SKIP with the reason):
  torch      python_env's probe (roles/python_env/files/torch_gpu_probe.py) judged by torch_build.torch_gpu_problems
  health     gpu_health's inputs read as its collect.yml reads them (nvidia-smi -q -x, nvidia-smi nvlink -s, the kernel
             log: the role's journalctl command, or dmesg where journalctl is absent; dcgmi diag -r 1 -j where dcgmi
             is installed), judged by gpu_health.verdicts as its report.yml does
  nccl       nccl-tests (the version and sha256 nccl_check pins) built for this GPU's architecture against the NCCL
             of the nvidia-nccl-cu* wheel torch uses, all_reduce_perf on every GPU, parsed by parse_nccl_tests; several
             GPUs: judged by nccl_check.run_verdict against the single-node threshold hardware_defaults resolves for the GPU
             model; one GPU:
             busbw is 0 by definition (factor 2(n-1)/n), so it is judged on what one GPU proves (it ran, algbw > 0,
             #wrong 0, no value out of bounds)
  placement  nvidia-smi topo -m read by nvidia_topo.launch_placement for a rank per GPU
  bert       pretrain_bert (the runtime wheel's), BERT-base at seq 128: the role's defaults, the tuned levers (bert_levers for this
             compute capability), tuned + torch.compile; MFU and useful MFU (non-padding tokens) each
  resnet     train_resnet (the runtime wheel's), one short run: images/s; on --resnet-data's shards, else on synthetic data (random
             images made once on the GPU: the model's step alone, said so in its line and report)

Stand-ins for the CPU tests (tests/unit/bench/test_gpu_check.py): --nvidia-smi, --kernel-log, --nccl-tests-dir name
programs that print captured bytes, --device cpu and --bert-size tiny run the trainers small on the CPU.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The trainers are modules of the runtime wheel (runtime/scc_training_runtime), run as `--python -m <module>`: that
# Python has the wheel installed (bench/gpu_check.sh installs it into a venv over the given Python's packages), as
# python_env's venv has it on a node. No PYTHONPATH.
BERT_MODULE = "scc_training_runtime.pretrain_bert"
RESNET_MODULE = "scc_training_runtime.train_resnet"
PARTS = ("torch", "health", "nccl", "placement", "bert", "resnet")
NCCL_SOURCE_DIR = ROOT / ".cache" / "nccl-tests"
# Issue 22: BERT-base, seq 128, bf16, one H200, the role's defaults (the "tuned" run).
BERT_GOAL = {"mfu": 0.45, "useful_mfu": 0.40}


def role_default(role: str, name: str) -> str:
    """A scalar default of a role (roles/<role>/defaults/main.yml), read without YAML: ``name: value`` on one line."""
    text = (ROOT / "roles" / role / "defaults" / "main.yml").read_text()
    match = re.search(r"^%s:\s*(.*?)\s*$" % re.escape(name), text, re.M)
    if not match:
        raise KeyError("%s has no default %s" % (role, name))
    return match.group(1).strip("\"'")


def collection_modules(work: Path):
    """Import the collection's module_utils as ansible_collections.scc.training (a link to this checkout)."""
    base = work / "collections" / "ansible_collections" / "scc"
    base.mkdir(parents=True, exist_ok=True)
    link = base / "training"
    if not link.exists():
        link.symlink_to(ROOT)
    sys.path.insert(0, str(work / "collections"))
    import importlib

    return lambda name: importlib.import_module("ansible_collections.scc.training.plugins.module_utils." + name)


def trainer_env(extra=None) -> dict:
    """The environment of a trainer run: the caller's, without a rank's variables (the trainers come from the installed
    runtime wheel, no PYTHONPATH is added). The caller's CC/CXX (the C compiler torch.compile's Inductor runs) are
    passed through untouched: nothing here names a variable CC."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMPI_COMM_WORLD_")}
    env.update(TOKENIZERS_PARALLELISM="false", MASTER_ADDR="127.0.0.1")
    env.update(extra or {})
    return env


def run(argv, timeout=600, env=None, cwd=None):
    """argv -> (exit status, stdout, stderr); a missing program is status 127, a timeout 124."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd, errors="replace", check=False
        )
    except FileNotFoundError as exc:
        return 127, "", str(exc)
    except subprocess.TimeoutExpired as exc:
        return 124, exc.stdout or "", "timed out after %ss" % timeout
    return done.returncode, done.stdout, done.stderr


def result(part, ok, summary, **details):
    return {"part": part, "status": "SKIP" if ok is None else "PASS" if ok else "FAIL", "summary": summary, **details}


# --- the parts -------------------------------------------------------------------------------------------------


def part_torch(args, mu):
    code, out, err = run([args.python, str(ROOT / "roles" / "python_env" / "files" / "torch_gpu_probe.py")], 300)
    if code != 0:
        return result("torch", False, "torch_gpu_probe.py exited %d: %s" % (code, (err or out).strip()[-300:]))
    probe = json.loads(out)
    if args.device == "cpu":
        return result("torch", None, "--device cpu: torch %s, not judged on a GPU" % probe.get("torch"), probe=probe)
    problems = mu("torch_build").torch_gpu_problems(probe)
    devices = ", ".join("%s (%s)" % (d["name"], d["capability"]) for d in probe.get("devices") or [])
    return result(
        "torch", not problems, "; ".join(problems) or "torch %s CUDA %s on %s" % (probe["torch"], probe["cuda"], devices),
        probe=probe, problems=problems,
    )  # fmt: skip


def kernel_log_command():
    """gpu_health's default kernel-log command, read from the role's defaults (one JSON line there): journalctl -k,
    or dmesg where journalctl is not installed."""
    return json.loads(role_default("gpu_health", "gpu_health_kernel_log_command"))


def pci_gpu_count(devices, mu):
    """The GPUs on the PCI bus, as gpu_health counts them when gpu_health_expected_gpus is unset (sysfs vendor and
    class through nvidia_pci); None where sysfs has no such folder or shows no NVIDIA GPU at all (a sandbox such as
    gVisor, whose sysfs is not the host's: then the GPU count is not judged)."""
    folder = Path(devices)
    if not folder.is_dir():
        return None
    lines = []
    for dev in sorted(folder.iterdir()):
        fields = [dev.name]
        for name in ("vendor", "class"):
            try:
                fields.append((dev / name).read_text().strip())
            except OSError:
                fields.append("")
        lines.append(" ".join(fields))
    return len(mu("nvidia_pci").nvidia_pci_devices(lines)["gpus"]) or None


def part_health(args, mu):
    smi = args.nvidia_smi
    code, xml, err = run([smi, "-q", "-x"], 120)
    parsed, smi_error = None, None
    if code == 0:
        try:
            parsed = mu("nvidia_smi").parse(xml)
        except ValueError as exc:
            smi_error = str(exc)
    else:
        smi_error = "exit %d: %s" % (code, (err or xml).strip()[:200])
    code, nvlink_text, _stderr = run([smi, "nvlink", "-s"], 60)
    nvlink = mu("nvidia_smi").parse_nvlink_status(nvlink_text) if code == 0 else None
    log_cmd = args.kernel_log or kernel_log_command()
    code, log, _stderr = run(log_cmd, 60)
    xid = mu("xid").parse_xid(log) if code == 0 else None
    dcgmi = shutil.which(args.dcgmi)
    if dcgmi:
        code, out, err = run([dcgmi, "diag", "-r", "1", "-j"], 300)
        dcgm = mu("dcgm").diag_outcome("auto", True, out, err, code)
    else:
        dcgm = mu("dcgm").diag_outcome("auto", False)
    health = mu("gpu_health")
    verdicts = health.verdicts(
        parsed, dcgm=dcgm["results"], dcgm_error=dcgm["error"], xid_events=xid, nvlink=nvlink,
        expected_gpus=pci_gpu_count(args.pci_devices, mu), smi_error=smi_error,
    )  # fmt: skip
    report = health.report(verdicts)  # red fails the node (remedy reset_gpu or worse), amber passes with its findings
    failed = [v for v in verdicts if not v["ok"]]
    summary = "%s: %d checks%s; kernel log: %s (%s); DCGM: %s" % (
        report.get("status"), len(verdicts),
        ", failing: " + "; ".join("%s %s: %s" % (v["gpu"], v["check"], v["detail"]) for v in failed) if failed else "",
        " ".join(log_cmd), "read" if xid is not None else "not read", "run" if dcgmi else "not installed",
    )  # fmt: skip
    return result("health", report["ok"], summary, report=report)


def nccl_home(python):
    """NCCL_HOME for building against the NCCL torch loads: the nvidia-nccl-cu* wheel's nvidia/nccl (include/, lib/),
    with the unversioned libnccl.so link the wheel lacks (hardware_facts.md 4.7) made in a scratch copy."""
    # The wheel's folder: nvidia/nccl in the cu12 wheels; found by its nccl.h so that another layout is found too.
    probe = (
        "import nvidia, pathlib; print(next(str(h.parents[1]) for p in nvidia.__path__ "
        "for h in sorted(pathlib.Path(p).glob('**/include/nccl.h'))))"
    )
    code, out, _stderr = run([python, "-c", probe], 60)
    if code != 0 or not out.strip():
        return None
    wheel = Path(out.strip())
    home = Path(tempfile.mkdtemp(prefix="nccl-home."))
    (home / "include").symlink_to(wheel / "include")
    (home / "lib").mkdir()
    for lib in (wheel / "lib").glob("libnccl.so*"):
        (home / "lib" / lib.name).symlink_to(lib)
    if not (home / "lib" / "libnccl.so").exists():
        versioned = sorted((wheel / "lib").glob("libnccl.so.*"))
        if not versioned:
            return None
        (home / "lib" / "libnccl.so").symlink_to(versioned[0])
    return home


def build_nccl_tests(args, capability, work):
    """nccl-tests built here -> (its build directory, None) or (None, why not)."""
    version, sha = (
        role_default("nccl_check", "nccl_check_tests_version"),
        role_default("nccl_check", "nccl_check_tests_sha256"),
    )
    tarball = NCCL_SOURCE_DIR / ("nccl-tests-%s.tar.gz" % version)
    if not tarball.is_file():
        return None, "no %s (make nccl-tests-source fetches it on a machine that reaches GitHub)" % tarball
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if digest != sha:
        return None, "%s: sha256 %s, nccl_check pins %s" % (tarball.name, digest, sha)
    home = nccl_home(args.python)
    if home is None:
        return None, "no nvidia-nccl-cu* wheel's nccl.h under %s's nvidia package" % args.python
    with tarfile.open(tarball) as tar:
        try:
            tar.extractall(work, filter="data")
        except TypeError:  # a Python without extraction filters (before 3.10.12 / 3.11.4): the sha256 was checked
            tar.extractall(work)
    src = next(work.glob("nccl-tests-*"))
    cuda_home = os.environ.get("CUDA_HOME") or str(Path(shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc").parents[1])
    if not (Path(cuda_home) / "bin" / "nvcc").is_file():
        return None, "no nvcc in %s/bin (set CUDA_HOME to a CUDA toolkit)" % cuda_home
    sm = capability.replace(".", "")
    code, out, err = run(
        ["make", "-j", str(os.cpu_count() or 4), "CUDA_HOME=" + cuda_home, "NCCL_HOME=" + str(home),
         "NVCC_GENCODE=-gencode=arch=compute_%s,code=sm_%s" % (sm, sm)],
        600, env=dict(os.environ, PATH=cuda_home + "/bin:" + os.environ["PATH"]), cwd=src,
    )  # fmt: skip
    if code != 0:
        return None, "make exited %d: %s" % (code, (err or out).strip()[-300:])
    os.environ["LD_LIBRARY_PATH"] = str(home / "lib") + os.pathsep + os.environ.get("LD_LIBRARY_PATH", "")
    return src / "build", None


def judge_nccl(parsed, gpus, threshold_gbps, check):
    """One GPU: what it can prove (busbw is 0 by definition); several: nccl_check.run_verdict at the threshold."""
    if gpus > 1:
        verdict = check.run_verdict(parsed, threshold_gbps)
        return verdict["ok"], verdict["problems"], verdict
    rows = parsed.get("rows") or []
    problems = []
    if not rows:
        problems.append("no result rows (the run failed or printed no table)")
    elif not rows[-1].get("algbw_gbs"):
        problems.append("algbw 0 at %s bytes" % rows[-1].get("size_bytes"))
    wrong = [r.get("wrong") for r in rows] + [(r.get("in_place") or {}).get("wrong") for r in rows]
    if any(w for w in wrong if w is not None):
        problems.append("%d wrong values (#wrong)" % sum(w for w in wrong if w))
    if parsed.get("out_of_bounds"):
        problems.append("%d values out of bounds" % parsed["out_of_bounds"])
    elif rows and parsed.get("out_of_bounds") is None:
        problems.append("no 'Out of bounds values' summary (the run did not finish)")
    return not problems, problems, {"algbw_gbps": rows[-1].get("algbw_gbs") if rows else None}


def single_node_threshold(mu, gpu_name):
    """nccl_check's single-node busbw threshold for this GPU model, as hardware_defaults resolves it (NVLink links x
    25 GB/s, or the PCIe x16 rate, times nccl_check's fraction); None for a model not in its table."""
    hardware = mu("hardware_defaults")
    model = hardware.model_for_name(gpu_name)
    if model is None:
        return None
    limits = {
        "nvlink_links": model.links,
        "nvlink_gbs_per_link": model.gbs_per_link,
        "intra_node_gbs": hardware.PCIE_X16_GBS.get(model.pcie_gen),
        "link_rate_gbps": None,
    }
    return hardware.threshold_pair(limits, hardware.DEFAULT_FRACTIONS)["single_node_gbps"]


def part_nccl(args, mu, gpus, capability, work):
    if gpus < 1:
        return result("nccl", None, "no GPU")
    build, why = (Path(args.nccl_tests_dir), None) if args.nccl_tests_dir else build_nccl_tests(args, capability, work)
    if build is None:
        return result("nccl", None, "nccl-tests not built: %s" % why)
    code, out, err = run([str(build / "all_reduce_perf"), "-b", "8M", "-e", "1G", "-f", "2", "-g", str(gpus)], 300)
    if code != 0:
        return result("nccl", False, "all_reduce_perf exited %d: %s" % (code, (err or out).strip()[-300:]))
    parsed = mu("nccl_tests").parse_nccl_tests(out)
    check = mu("nccl_check")
    threshold = single_node_threshold(mu, args.gpu_name)
    if gpus > 1 and threshold is None:
        return result(
            "nccl", None, "%s is not in hardware_defaults' table: no single-node threshold to judge by" % args.gpu_name
        )
    ok, problems, verdict = judge_nccl(parsed, gpus, threshold, check)
    last = (parsed.get("rows") or [{}])[-1]
    summary = "%d GPU(s), %s bytes: algbw %s GB/s, busbw %s GB/s%s" % (
        gpus, last.get("size_bytes"), last.get("algbw_gbs"), last.get("busbw_gbs"),
        " (threshold %.2f)" % threshold if gpus > 1 else " (one GPU: busbw 0 by definition)",
    )  # fmt: skip
    return result("nccl", ok, summary + ("; " + "; ".join(problems) if problems else ""), verdict=verdict)


def part_placement(args, mu, gpus):
    code, text, err = run([args.nvidia_smi, "topo", "-m"], 60)
    if code != 0:
        return result("placement", False, "nvidia-smi topo -m exited %d: %s" % (code, (err or text).strip()[:200]))
    topo = mu("nvidia_topo")
    found = len(topo.parse_topo_matrix(text)["gpus"])
    chosen = topo.launch_placement(text, max(gpus, 1), 1)
    ok = found == gpus
    summary = "--map-by %s --bind-to %s (%s)%s" % (
        chosen["map_by"], chosen["bind_to"], chosen["reason"], "" if ok else "; topo -m shows %d GPU(s), torch %d" % (found, gpus)
    )  # fmt: skip
    return result("placement", ok, summary, placement=chosen)


def bert_runs(args, mu, capability):
    """(name, pretrain_bert.py options) of the three BERT runs."""
    levers = mu("bert_levers")
    capability = args.bert_levers_for or capability
    tuned = levers.lever_argv(levers.bert_levers({"compute_capability": capability})) if capability else []
    runs = {"defaults": [], "tuned": tuned, "compiled": [*tuned, "--compile"]}
    return [(name, runs[name]) for name in args.bert_runs.split(",") if name]


def part_bert(args, mu, capability, work):
    lines, runs, ok = [], {}, True
    for name, options in bert_runs(args, mu, capability):
        out = work / ("bert-" + name)
        argv = [
            args.python, "-m", BERT_MODULE, "--output-dir", str(out), "--model-size", args.bert_size,
            "--seq-len", "128", "--batch-size", str(args.bert_batch), "--steps", str(args.bert_steps),
            "--warmup-steps", str(args.bert_steps // 3), "--device", args.device, "--log-every", "1000",
            "--master-port", str(29600 + len(runs)), "--data-dir", str(work / "bert-shards"), *options,
        ]  # fmt: skip
        if name != "compiled":
            argv.append("--count-syncs")  # its patches of torch.Tensor would disturb the compiled run's tracing
        if args.device == "cpu":
            argv += ["--threads", "1"]
        code, stdout, stderr = run(argv, args.bert_timeout, env=trainer_env())
        if code != 0 or not (out / "results.json").is_file():
            ok = False
            lines.append("%s: exit %d: %s" % (name, code, (stderr or stdout).strip()[-400:]))
            runs[name] = {"exit": code}
            continue
        r = json.loads((out / "results.json").read_text())
        t, f = r["throughput"], r["flops"]
        runs[name] = {
            "options": options, "step_ms": t["step_time_s"] and t["step_time_s"] * 1000, "mfu": f["mfu"],
            "useful_mfu": f["useful_mfu"], "tokens_per_s": t["tokens_per_s"], "syncs_per_step": t["host_syncs_per_step"],
            "precision": r["precision"], "batch_size": args.bert_batch,
        }  # fmt: skip
        lines.append(
            "%s MFU %s useful %s (%s ms/step)"
            % (name, fmt(f["mfu"]), fmt(f["useful_mfu"]), fmt(runs[name]["step_ms"], ".1f"))
        )
    # Issue 22's goal for the role's defaults (the tuned run) on one H200: reported, not judged (not yet met there).
    tuned = runs.get("tuned") or {}
    if tuned.get("mfu") is not None:
        met = tuned["mfu"] >= BERT_GOAL["mfu"] and (tuned.get("useful_mfu") or 0) >= BERT_GOAL["useful_mfu"]
        lines.append(
            "goal MFU >= %.2f, useful >= %.2f: %s"
            % (BERT_GOAL["mfu"], BERT_GOAL["useful_mfu"], "met" if met else "not met")
        )
    return result("bert", ok, "; ".join(lines), runs=runs, goal=BERT_GOAL, batch=args.bert_batch)


def part_resnet(args, mu, work):
    out = work / "resnet"
    argv = [
        args.python, "-m", RESNET_MODULE, "--output-dir", str(out), "--steps", str(args.resnet_steps),
        "--warmup-steps", str(args.resnet_steps // 3), "--device", args.device, "--master-port", "29650",
        "--model", args.resnet_model, "--batch-size", str(args.resnet_batch), "--image-size", str(args.resnet_image_size),
    ]  # fmt: skip
    # Without shards: train_resnet.py's synthetic data (no tfrecord or Pillow needed), named in the line.
    argv += ["--data-dir", args.resnet_data] if args.resnet_data else ["--data", "synthetic"]
    if args.device == "cpu":
        argv += ["--threads", "1"]
    code, stdout, stderr = run(argv, 300, env=trainer_env())
    if code != 0 or not (out / "results.json").is_file():
        return result("resnet", False, "train_resnet.py exit %d: %s" % (code, (stderr or stdout).strip()[-400:]))
    r = json.loads((out / "results.json").read_text())
    images = (r.get("throughput") or {}).get("images_per_s")
    return result(
        "resnet",
        images is not None,
        "%s %s images/s (%s, batch %d, %s data)"
        % (args.resnet_model, fmt(images, ".1f"), r.get("precision"), args.resnet_batch, r["data"]["source"]),
        results=r,
    )


def fmt(value, spec=".3f"):
    return "n/a" if value is None else format(value, spec)


def gpu_facts(python, device):
    if device == "cpu":
        return 0, None, None
    probe = (
        "import torch; n = torch.cuda.device_count(); "
        "print(n, '%d.%d' % torch.cuda.get_device_capability() if n else '-', "
        "torch.cuda.get_device_name() if n else '')"
    )
    code, out, _stderr = run([python, "-c", probe], 120)
    if code != 0:
        return 0, None, None
    fields = out.split(None, 2)
    return (
        int(fields[0]),
        (fields[1] if fields[1:] and fields[1] != "-" else None),
        (fields[2].strip() if fields[2:] else None),
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    p.add_argument("--python", default=sys.executable, help="the Python with torch the parts run under")
    p.add_argument("--parts", default=",".join(PARTS), help="comma-separated, of: " + ", ".join(PARTS))
    p.add_argument("--report", default="gpu-check.json", help="the JSON report's path")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda", help="cpu: the CPU tests' runs")
    p.add_argument("--nvidia-smi", default="nvidia-smi")
    p.add_argument("--dcgmi", default="dcgmi")
    p.add_argument("--pci-devices", default="/sys/bus/pci/devices", help="sysfs PCI devices (the expected GPU count)")
    p.add_argument("--kernel-log", nargs="+", help="the kernel-log command (default: journalctl -k, else dmesg)")
    p.add_argument("--nccl-tests-dir", help="a built nccl-tests build/ directory instead of building one")
    p.add_argument("--bert-size", default="base")
    p.add_argument("--bert-batch", default="auto", help="per-GPU batch (auto: bert_levers.auto_batch_size)")
    p.add_argument("--bert-steps", type=int, default=90)
    p.add_argument("--bert-timeout", type=int, default=300)
    p.add_argument("--resnet-steps", type=int, default=30)
    p.add_argument("--resnet-data", help="imagenet_prep's TFRecord shards (default: synthetic data)")
    p.add_argument("--resnet-model", default="resnet50")
    p.add_argument("--resnet-batch", type=int, default=256, help="images per step (train_resnet.py's default)")
    p.add_argument("--resnet-image-size", type=int, default=224)
    p.add_argument("--bert-levers-for", help="the compute capability whose tuned levers to use (default: the GPU's)")
    p.add_argument("--bert-runs", default="defaults,tuned,compiled", help="which BERT runs, comma-separated")
    args = p.parse_args(argv)
    parts = [part.strip() for part in args.parts.split(",") if part.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        p.error("--parts: unknown %s (known: %s)" % (", ".join(unknown), ", ".join(PARTS)))
    work = Path(tempfile.mkdtemp(prefix="gpu-check."))
    mu = collection_modules(work)
    gpus, capability, args.gpu_name = gpu_facts(args.python, args.device)
    started = time.time()
    results = []
    for part in parts:
        t0 = time.time()
        try:
            if part == "torch":
                res = part_torch(args, mu)
            elif part == "health":
                res = part_health(args, mu)
            elif part == "nccl":
                res = part_nccl(args, mu, gpus, capability, work)
            elif part == "placement":
                res = part_placement(args, mu, gpus)
            elif part == "bert":
                res = part_bert(args, mu, capability, work)
            else:
                res = part_resnet(args, mu, work)
        except Exception as exc:  # a part that breaks is a failed part, the others still run
            res = result(part, False, "%s: %s" % (type(exc).__name__, exc))
        res["seconds"] = round(time.time() - t0, 1)
        results.append(res)
        print("%-4s %-9s %s" % (res["status"], part, res["summary"]), flush=True)
    report = {
        "ok": all(r["status"] != "FAIL" for r in results),
        "gpus": gpus,
        "compute_capability": capability,
        "seconds": round(time.time() - started, 1),
        "parts": results,
    }
    Path(args.report).write_text(json.dumps(report, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    print("%s gpu-check: %d part(s), report %s" % ("PASS" if report["ok"] else "FAIL", len(results), args.report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
