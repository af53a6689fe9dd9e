"""The GPU library roles on two lab hosts, proven usable without a GPU, changed=0 on re-run:
- cuda, cudnn, nccl from NVIDIA's real PyPI wheels (fetched once, shared storage), also --check;
- cuda from an offline mirror served on 127.0.0.1 (per-host copies), its manifest pinned by the
  sha256 the inventory holds (artifact_fetch_mirror_manifests); a manifest that is not the pinned
  one, and a pinned manifest whose file sha256 is wrong, stopping on the controller before any
  host changes;
- aiacc from a mirror holding a FIXTURE STAND-IN wheel (Alibaba's site is not reachable);
- cuda, cudnn and nccl from a signed flat apt repository on 127.0.0.1 with FIXTURE STAND-IN
  packages under NVIDIA's names that carry NVIDIA's real libraries and ptxas (the nvcc program in
  it is a stand-in: no reachable package ships NVIDIA's nvcc driver); its key is refused unless
  pinned by fingerprint (nvidia_repo_key_fingerprint), a key file holding the pinned key and another
  one is refused too, and nvidia_driver's apt pin keeps
  cuda-drivers-580 from pulling a 590 driver (stand-in metapackages, asked with apt-get -s).

The controller's download cache is ROOT/.cache/nvidia-artifacts (git-ignored): CI downloads the
wheels (about 1.7 GB) once, later runs reuse them. The lab address is SCC_GPU_LIBS_LAB_ADDRESS.
"""

import functools
import hashlib
import http.server
import json
import os
import shutil
import threading
import urllib.parse
from pathlib import Path

import pytest

from tests.lab_runner import changed, failed, lab_fixture, ok_results, ok_runs, run_playbook

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOK = ROOT / "tests" / "integration" / "playbooks" / "gpu_libs.yml"
CACHE = ROOT / ".cache" / "nvidia-artifacts"
ADDRESS = os.environ.get("SCC_GPU_LIBS_LAB_ADDRESS", "127.0.13.21")
ROLES = ("cuda", "cudnn", "nccl")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")


lab = lab_fixture(2, ADDRESS, name="gpu-libs")


def addresses(lab):
    return [h.address for h in lab.load()]


def source_vars(source, prefix_root, artifacts, shared, only=ROLES, **extra):
    out = {"scc_cpu_only": False}
    for role in ROLES:
        if role not in only:
            out[f"{role}_cpu_only"] = True
            continue
        out.update(
            {
                f"{role}_source": source,
                f"{role}_cache_dir": str(CACHE),
                f"{role}_prefix": f"{prefix_root}/{role}",
                f"{role}_artifacts_path": artifacts,
                f"{role}_artifacts_shared": shared,
            }
        )
    out.update(extra)
    return out


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def run(lab, workdir, extravars, check=False, playbook=PLAYBOOK):
    """(status, events) of one run on the lab's hosts."""
    status, _rc, events = run_playbook(playbook, lab.inventory, workdir, extravars, check=check)
    return status, events


def assert_unchanged_on_rerun_and_check(lab, workdir, extravars):
    """On converged hosts: a re-run and a --check run succeed and change nothing."""
    for check in (False, True):
        status, events = run(lab, workdir, extravars, check=check)
        assert status == "successful", (check, failed(events))
        assert changed(events) == [], check


def installed_facts(events):
    facts = {}
    for role, task in (
        ("cuda", "Publish what verify found"),
        ("cudnn", "Publish the cuDNN that verify found"),
        ("nccl", "Publish the NCCL that verify found"),
    ):
        for host, res in ok_results(events, task).items():
            facts.setdefault(host, {})[role] = res["ansible_facts"][f"{role}_installed"]
    return facts


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("gpu-libs-runner")


def test_pypi_wheels_install_real_libraries_once_then_rerun_unchanged(lab, workdir):
    extravars = source_vars("pypi", "/opt/scc-training", "/mnt/cpfs/artifacts", True)
    status, events = run(lab, workdir, extravars)
    assert status == "successful", failed(events)

    facts = installed_facts(events)
    assert set(facts) == {"node1", "node2"}
    for host, seen in facts.items():
        assert seen["cuda"]["runtime"]["code"] == 12080, (host, seen["cuda"])
        assert seen["cuda"]["runtime"]["path"].startswith("/opt/scc-training/cuda/12.8/nvidia/cuda_runtime/lib/")
        assert seen["cuda"]["cubin"] == {"elf": True, "machine": 190, "sm": 70}, (host, seen["cuda"])
        assert seen["cuda"]["cublaslt"]["code"] == 120804, (host, seen["cuda"])
        # cuDNN finds the cuBLASLt its engines load at run time: the cuda role's.
        assert seen["cudnn"]["needs"]["libcublasLt.so.12"].startswith("/opt/scc-training/cuda/12.8/nvidia/cublas/lib/")
        assert seen["cudnn"]["code"] == 91002 and seen["cudnn"]["path"].startswith("/opt/scc-training/cudnn/9.10.2.21/")
        assert seen["nccl"]["code"] == 22705 and seen["nccl"]["path"].startswith("/opt/scc-training/nccl/2.27.5/")

    # Shared storage: one copy of each wheel, through the first host only, seen by both.
    wheels = sorted(p.name for p in (lab.shared / "artifacts").iterdir())
    assert len(wheels) == 6 and all(w.startswith("nvidia_") and w.endswith(".whl") for w in wheels), wheels
    copied_on = {h for h, t in changed(events) if t.startswith("Copy the checked artifacts")}
    assert copied_on <= {"node1"}

    assert_unchanged_on_rerun_and_check(lab, workdir, extravars)


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """The CUDA wheels the pypi test downloaded, as an offline mirror served on 127.0.0.1."""
    root = tmp_path_factory.mktemp("mirror")
    entries = []
    # The cache keeps one directory per wheel set ever fetched: the same file may lie in several.
    wheels = {
        p.name: p for p in [*CACHE.glob("wheels/*/nvidia_cuda_*.whl"), *CACHE.glob("wheels/*/nvidia_cublas_*.whl")]
    }
    for wheel in (wheels[name] for name in sorted(wheels)):
        os.link(wheel, root / wheel.name)
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        entries.append({"name": wheel.name, "sha256": digest, "size": wheel.stat().st_size})
    (root / "manifest.json").write_text(json.dumps({"artifacts": entries}, indent=2))
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    requests = []

    def log_message(self, format, *args):
        QuietHandler.requests.append((self.command, self.path))


def test_mirror_over_http_installs_cuda_per_host_copies(lab, workdir, mirror, tmp_path):
    root, url = mirror
    assert len(json.loads((root / "manifest.json").read_text())["artifacts"]) == 4
    QuietHandler.requests.clear()
    # A controller cache of its own, so that the requests below are this test's downloads.
    extravars = source_vars(
        "mirror",
        "/opt/scc-mirror",
        "/opt/scc-mirror/artifacts",
        False,
        only=("cuda",),
        cuda_mirror=url,
        cuda_cache_dir=str(tmp_path / "cache"),
        artifact_fetch_mirror_manifests={url + "/": sha256_of(root / "manifest.json")},
    )
    status, events = run(lab, workdir, extravars)
    assert status == "successful", failed(events)
    # The controller fetched each file once: one manifest read and one GET per wheel, not one per host. A download
    # still running at its first poll also asks the file's size once (HEAD: scc.training.download's progress line).
    wheels = [f"/{p.name}" for p in root.glob("*.whl")]
    gets = [path for method, path in QuietHandler.requests if method == "GET"]
    heads = [path for method, path in QuietHandler.requests if method == "HEAD"]
    assert sorted(gets) == sorted(["/manifest.json"] + wheels)
    assert len(heads) == len(set(heads)) and set(heads) <= set(wheels), heads
    assert len(gets) + len(heads) == len(QuietHandler.requests), QuietHandler.requests
    facts = installed_facts(events)
    for host in ("node1", "node2"):
        assert facts[host]["cuda"]["runtime"]["path"].startswith("/opt/scc-mirror/cuda/12.8/"), facts[host]
        assert facts[host]["cuda"]["cubin"]["sm"] == 70
    for address in addresses(lab):
        assert lab.ssh(address, "ls /opt/scc-mirror/artifacts/nvidia_cuda_nvcc_cu12-*.whl").returncode == 0

    status, events = run(lab, workdir, extravars)
    assert status == "successful", failed(events)
    assert changed(events) == []


def test_mirror_with_a_wrong_sha256_stops_before_any_host_changes(lab, workdir, mirror, tmp_path):
    root = mirror[0]
    bad = tmp_path / "bad-mirror"
    bad.mkdir()
    manifest = json.loads((root / "manifest.json").read_text())
    for entry in manifest["artifacts"]:
        os.link(root / entry["name"], bad / entry["name"])
    manifest["artifacts"][0]["sha256"] = "0" * 64
    (bad / "manifest.json").write_text(json.dumps(manifest))
    # Pinned to the good manifest: the mirror's changed manifest is never read.
    extravars = source_vars(
        "mirror",
        "/opt/scc-bad",
        "/opt/scc-bad/artifacts",
        False,
        only=("cuda",),
        cuda_mirror=str(bad),
        cuda_cache_dir=str(tmp_path / "cache"),
        artifact_fetch_mirror_manifests={str(bad): sha256_of(root / "manifest.json")},
    )
    status, events = run(lab, workdir, extravars)
    assert status == "failed"
    (fail,) = failed(events)
    assert fail[1] == "Fetch the mirror's manifest once and check it against the pinned sha256", fail
    assert "checksum" in fail[2].lower(), fail
    # Pinned to this manifest: it is read, and its wrong file sha256 stops the download.
    extravars["artifact_fetch_mirror_manifests"] = {str(bad): sha256_of(bad / "manifest.json")}
    status, events = run(lab, workdir, extravars)
    assert status == "failed"
    (fail,) = failed(events)
    assert fail[1] == "Download each file once and check its sha256", fail
    for address in addresses(lab):
        assert lab.ssh(address, "test ! -e /opt/scc-bad").returncode == 0


STANDIN_MODULE = '''"""FIXTURE STAND-IN for AIACC-Training's perseus.torch.horovod, built by
tests/integration/test_gpu_libs.py. It is NOT AIACC: Alibaba publishes no wheel the lab can
reach. It proves only that the aiacc role fetches, checks, installs and imports what the mirror
holds, with the environment it writes."""

FIXTURE_STANDIN = True


def init():
    raise NotImplementedError("fixture stand-in of perseus.torch.horovod, not AIACC")
'''


def build_standin_wheel(directory):
    """A minimal valid wheel: scc_fixture_perseus_standin 0.0.1 providing perseus.torch.horovod."""
    import base64
    import zipfile

    name = "scc_fixture_perseus_standin-0.0.1-py3-none-any.whl"
    info = "scc_fixture_perseus_standin-0.0.1.dist-info"
    files = {
        "perseus/__init__.py": "",
        "perseus/torch/__init__.py": "",
        "perseus/torch/horovod/__init__.py": STANDIN_MODULE,
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: scc-fixture-perseus-standin\nVersion: 0.0.1\n"
        "Summary: FIXTURE STAND-IN for AIACC-Training (not AIACC)\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: scc.training tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = "\n".join(record) + "\n"
    path = directory / name
    with zipfile.ZipFile(path, "w") as wheel:
        for member, text in files.items():
            wheel.writestr(zipfile.ZipInfo(member, date_time=(2026, 1, 1, 0, 0, 0)), text)
    return path


def test_aiacc_from_mirror_imports_the_standin_with_its_environment(lab, workdir, tmp_path):
    mirror = tmp_path / "aiacc-mirror"
    mirror.mkdir()
    wheel = build_standin_wheel(mirror)
    (mirror / "manifest.json").write_text(
        json.dumps(
            {
                "artifacts": [
                    {
                        "name": wheel.name,
                        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
                        "size": wheel.stat().st_size,
                    }
                ]
            }
        )
    )
    extravars = {
        "scc_cpu_only": False,
        "aiacc_source": "mirror",
        "aiacc_mirror": str(mirror),
        "artifact_fetch_mirror_manifests": {str(mirror): sha256_of(mirror / "manifest.json")},
        "aiacc_artifact_name": wheel.name,
        "aiacc_venv_path": "/opt/scc-fixture-venv",
        "aiacc_cache_dir": str(tmp_path / "cache"),
        "aiacc_artifacts_path": "/mnt/cpfs/aiacc",
        "aiacc_artifacts_shared": True,
    }
    playbook = ROOT / "tests" / "integration" / "playbooks" / "aiacc.yml"
    for attempt in ("converge", "rerun", "check"):
        status, events = run(lab, workdir, extravars, check=attempt == "check", playbook=playbook)
        assert status == "successful", (attempt, failed(events))
        if attempt == "converge":
            seen = ok_results(events, "Publish what verify found")
            assert set(seen) == {"node1", "node2"}
            for host, res in seen.items():
                fact = res["ansible_facts"]["aiacc_installed"]
                assert fact["file"].startswith("/opt/scc-fixture-venv/lib/"), (host, fact)
                assert fact["file"].endswith("perseus/torch/horovod/__init__.py")
                assert fact["env"]["PERSEUS_ALLREDUCE_DTYPE"] == "1"
            for address in addresses(lab):
                env = lab.ssh(address, "cat /etc/scc-training/aiacc.env").stdout
                assert "PERSEUS_ALLREDUCE_FUSION=32" in env.splitlines(), env
        else:
            assert changed(events) == [], attempt


STANDIN_NVCC = """#!/usr/bin/python3
# FIXTURE STAND-IN for nvcc, built by tests/integration/test_gpu_libs.py into the stand-in
# package cuda-nvcc-12-8. It is NOT nvcc: no public package the lab can reach ships NVIDIA's nvcc
# driver. It accepts only the call the cuda role's verify makes (-cubin -arch=sm_NN -o OUT SRC)
# and compiles with NVIDIA's real NVRTC (libnvrtc.so.12 of the stand-in cuda-nvrtc-12-8) to PTX
# and NVIDIA's real ptxas (next to this file) to a cubin.
import ctypes, os, subprocess, sys

args = sys.argv[1:]
out, arch = args[args.index("-o") + 1], args[[a.startswith("-arch=sm_") for a in args].index(True)][9:]
assert "-cubin" in args, "fixture stand-in nvcc: only -cubin is supported"
source = open(args[-1], "rb").read()
nvrtc = ctypes.CDLL("libnvrtc.so.12")
prog = ctypes.c_void_p()
assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source, b"in.cu", 0, None, None) == 0
opts = (ctypes.c_char_p * 1)(("--gpu-architecture=compute_" + arch).encode())
if nvrtc.nvrtcCompileProgram(prog, 1, opts):
    sys.exit("fixture stand-in nvcc: NVRTC failed")
size = ctypes.c_size_t()
nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
ptx = ctypes.create_string_buffer(size.value)
nvrtc.nvrtcGetPTX(prog, ptx)
with open(out + ".ptx", "wb") as handle:
    handle.write(ptx.value)
ptxas = os.path.join(os.path.dirname(os.path.realpath(__file__)), "ptxas")
sys.exit(subprocess.call([ptxas, "-arch=sm_" + arch, "-o", out, out + ".ptx"]))
"""


def wheel_members(pattern, members, into):
    """Extract members of the cached wheel matching pattern; returns their paths."""
    import zipfile

    # The same wheel may lie in several cached wheel sets (one directory per set of pins).
    found = sorted(CACHE.glob(f"wheels/*/{pattern}"))
    assert found, f"{pattern} is not in {CACHE} (the pypi test downloads it)"
    wheel = found[0]
    with zipfile.ZipFile(wheel) as archive:
        return [Path(archive.extract(member, into)) for member in members]


def build_deb(root, name, version, files, depends="", links=None):
    """One FIXTURE STAND-IN .deb named like NVIDIA's: files {path in package: source path or text}."""
    import subprocess

    pkg = root / "build" / name
    (pkg / "DEBIAN").mkdir(parents=True)
    files = {
        f"usr/share/doc/{name}/README.fixture": "FIXTURE STAND-IN built by tests/integration/test_gpu_libs.py; not NVIDIA's package.\n",
        **files,
    }
    for dest, source in files.items():
        target = pkg / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path):
            shutil.copy2(source, target)
        else:
            target.write_text(source)
            target.chmod(0o755 if source.startswith("#!") else 0o644)
    for dest, points_to in (links or {}).items():
        (pkg / dest).parent.mkdir(parents=True, exist_ok=True)
        (pkg / dest).symlink_to(points_to)
    if any(dest.startswith("usr/lib/") for dest in files):
        # As NVIDIA's packages do: the linker cache is refreshed by dpkg's ldconfig trigger.
        (pkg / "DEBIAN" / "triggers").write_text("activate-noawait ldconfig\n")
    (pkg / "DEBIAN" / "control").write_text(
        f"Package: {name}\nVersion: {version}\nArchitecture: amd64\nMaintainer: scc.training tests\n"
        + (f"Depends: {depends}\n" if depends else "")
        + f"Description: FIXTURE STAND-IN for NVIDIA's {name} (test package)\n"
    )
    # Uncompressed: the payload is already-compressed shared libraries, and xz would cost minutes.
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Znone", "--build", str(pkg), str(root / f"{name}_{version}_amd64.deb")],
        check=True,
        capture_output=True,
    )
    shutil.rmtree(pkg)


def sign_apt_repo(root, gnupghome):
    """Index and sign a flat apt repository like NVIDIA's (suite "/") with a throwaway key;
    returns the key's fingerprint."""
    import email.utils
    import subprocess

    packages = subprocess.run(
        ["dpkg-scanpackages", "--multiversion", "."], cwd=root, check=True, capture_output=True, text=True
    ).stdout
    (root / "Packages").write_text(packages)
    digest = hashlib.sha256(packages.encode()).hexdigest()
    (root / "Release").write_text(
        f"Origin: scc.training fixture\nLabel: scc.training fixture\nArchitectures: amd64\n"
        f"Date: {email.utils.formatdate(usegmt=True)}\nSHA256:\n {digest} {len(packages.encode())} Packages\n"
    )
    env = {**os.environ, "GNUPGHOME": str(gnupghome)}
    gnupghome.mkdir(mode=0o700)
    subprocess.run(
        [
            "gpg",
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            "scc.training fixture repository",
            "rsa2048",
            "sign",
            "never",
        ],
        env=env,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        ["gpg", "--batch", "--yes", "--clearsign", "-o", str(root / "InRelease"), str(root / "Release")],
        env=env,
        check=True,
        capture_output=True,
    )
    key = subprocess.run(["gpg", "--batch", "--armor", "--export"], env=env, check=True, capture_output=True).stdout
    (root / "fixture-key.asc").write_bytes(key)
    listing = subprocess.run(
        ["gpg", "--batch", "--with-colons", "--list-keys"], env=env, check=True, capture_output=True, text=True
    ).stdout
    return next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:"))


def add_unpinned_key(root, tmp):
    """fixture-and-extra-key.asc: the repository's key file with a second, unpinned key appended;
    returns that key's fingerprint."""
    import subprocess

    home = tmp / "gnupg-extra"
    home.mkdir(mode=0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    gpg = ["gpg", "--batch", "--passphrase", ""]
    subprocess.run(
        [*gpg, "--quick-gen-key", "unpinned", "ed25519", "sign", "never"], env=env, check=True, capture_output=True
    )
    key = subprocess.run([*gpg, "--armor", "--export"], env=env, check=True, capture_output=True).stdout
    (root / "fixture-and-extra-key.asc").write_bytes((root / "fixture-key.asc").read_bytes() + key)
    listing = subprocess.run(
        [*gpg, "--with-colons", "--list-keys"], env=env, check=True, capture_output=True, text=True
    )
    return next(line.split(":")[9] for line in listing.stdout.splitlines() if line.startswith("fpr:"))


def build_nvidia_like_repo(root, tmp):
    """FIXTURE STAND-IN packages under NVIDIA's names and versions for the pinned CUDA 12.8, cuDNN
    9.10.2.21 and NCCL 2.27.5: not NVIDIA's packages, but they carry NVIDIA's real libraries and
    ptxas from the cached wheels, in the places NVIDIA's packages put them, so that verify's calls
    (cudaRuntimeGetVersion, NVRTC + ptxas, cudnnGetVersion, ncclGetVersion) are real ones. Only
    the nvcc program is a stand-in (STANDIN_NVCC)."""
    cudart = wheel_members("nvidia_cuda_runtime_cu12-12.8.90-*.whl", ["nvidia/cuda_runtime/lib/libcudart.so.12"], tmp)
    nvrtc = wheel_members(
        "nvidia_cuda_nvrtc_cu12-12.8.93-*.whl",
        ["nvidia/cuda_nvrtc/lib/libnvrtc.so.12", "nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.8"],
        tmp,
    )
    (ptxas,) = wheel_members("nvidia_cuda_nvcc_cu12-12.8.93-*.whl", ["nvidia/cuda_nvcc/bin/ptxas"], tmp)
    (cublaslt,) = wheel_members("nvidia_cublas_cu12-12.8.4.1-*.whl", ["nvidia/cublas/lib/libcublasLt.so.12"], tmp)
    cudnn = wheel_members(
        "nvidia_cudnn_cu12-9.10.2.21-*.whl",
        ["nvidia/cudnn/lib/libcudnn.so.9", "nvidia/cudnn/lib/libcudnn_graph.so.9"],
        tmp,
    )
    (nccl,) = wheel_members("nvidia_nccl_cu12-2.27.5-*.whl", ["nvidia/nccl/lib/libnccl.so.2"], tmp)
    ptxas.chmod(0o755)
    target = "usr/local/cuda-12.8/targets/x86_64-linux/lib"
    build_deb(
        root,
        "cuda-cudart-12-8",
        "12.8.90-1",
        {f"{target}/{p.name}": p for p in cudart},
        links={"usr/local/cuda-12.8/lib64": "targets/x86_64-linux/lib"},
    )
    build_deb(
        root, "cuda-nvrtc-12-8", "12.8.93-1", {f"{target}/{p.name}": p for p in nvrtc}, depends="cuda-cudart-12-8"
    )
    build_deb(
        root,
        "cuda-nvcc-12-8",
        "12.8.93-1",
        {"usr/local/cuda-12.8/bin/ptxas": ptxas, "usr/local/cuda-12.8/bin/nvcc": STANDIN_NVCC},
        depends="cuda-nvrtc-12-8, python3",
    )
    build_deb(
        root, "libcublas-12-8", "12.8.4.1-1", {f"{target}/libcublasLt.so.12": cublaslt}, depends="cuda-cudart-12-8"
    )
    build_deb(root, "libcudnn9-cuda-12", "9.10.2.21-1", {f"usr/lib/x86_64-linux-gnu/{p.name}": p for p in cudnn})
    build_deb(root, "libcudnn9-dev-cuda-12", "9.10.2.21-1", {}, depends="libcudnn9-cuda-12 (= 9.10.2.21-1)")
    build_deb(root, "libnccl2", "2.27.5-1+cuda12.8", {"usr/lib/x86_64-linux-gnu/libnccl.so.2": nccl})
    build_deb(root, "libnccl-dev", "2.27.5-1+cuda12.8", {}, depends="libnccl2 (= 2.27.5-1+cuda12.8)")
    # A newer NCCL built for another CUDA, as NVIDIA's repository holds: the pin must not take it.
    build_deb(root, "libnccl2", "2.28.3-1+cuda13.0", {"usr/lib/x86_64-linux-gnu/libnccl.so.2": nccl})
    # Driver metapackages with NVIDIA's dependency shape (">=" without an upper bound) and a newer
    # branch next to the wanted one: empty stand-ins, only asked about with apt-get -s, never installed.
    build_deb(root, "cuda-drivers-580", "580.95.05-1", {}, depends="nvidia-driver (>= 580.65.06)")
    for version in ("580.95.05-1", "590.44.01-1"):
        build_deb(root, "nvidia-driver", version, {}, depends=f"libcuda1 (= {version})")
        build_deb(root, "libcuda1", version, {})
    shutil.rmtree(root / "build", ignore_errors=True)
    return sign_apt_repo(root, tmp / "gnupg")


def test_repo_source_installs_pinned_packages_from_a_signed_loopback_repository(lab, workdir, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    fingerprint = build_nvidia_like_repo(repo, tmp_path)
    handler = functools.partial(QuietHandler, directory=str(repo))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        extravars = {
            "scc_cpu_only": False,
            "cuda_source": "repo",
            "cudnn_source": "repo",
            "nccl_source": "repo",
            "nvidia_repo_url": url,
            "nvidia_repo_key_url": f"{url}/fixture-key.asc",
            "nvidia_repo_key_cache_dir": str(tmp_path / "cache"),
        }
        # The default pin is NVIDIA's key: the fixture key is refused on the controller, no host changes.
        status, events = run(lab, workdir, extravars)
        assert status == "failed"
        (fail,) = {(task, msg) for _host, task, msg in failed(events)}
        assert fail[0] == "Check the signing key file holds exactly the pinned key, on the controller", fail
        assert fingerprint in fail[1] and "EB693B3035CD5710E231E123A4B469963BF863CC" in fail[1], fail
        # Pinned to the fixture key, but the file holds another key besides (apt would trust both): refused.
        extra = add_unpinned_key(repo, tmp_path)
        pinned = {**extravars, "nvidia_repo_key_url": f"{url}/fixture-and-extra-key.asc"}
        pinned["nvidia_repo_key_fingerprint"] = fingerprint
        status, events = run(lab, workdir, pinned)
        assert status == "failed"
        (fail,) = {(task, msg) for _host, task, msg in failed(events)}
        assert "nobody pinned: " + extra in fail[1], fail
        for address in addresses(lab):
            assert lab.ssh(address, "test ! -e /etc/apt/keyrings/scc-cuda.asc").returncode == 0
        # Pinned to the fixture key (written as gpg prints it in groups, lower case): accepted.
        # The packages come from the internet once per cluster: into the shared directory, once, even when
        # the play runs in batches of one host (a run_once task runs once per batch: the download's record
        # on the shared directory stops the second batch's).
        extravars["nvidia_repo_key_fingerprint"] = " ".join(fingerprint[i : i + 4] for i in range(0, 40, 4)).lower()
        extravars["nvidia_repo_cache_path"] = "/mnt/cpfs/scc-apt"
        QuietHandler.requests.clear()
        status, events = run(lab, workdir, {**extravars, "gpu_libs_serial": 1})
        assert status == "successful", failed(events)
        # Three downloads (cuda's, cudnn's and nccl's packages), all in the first batch (node1); the second
        # batch (node2) finds each record and runs none.
        looked = ok_runs(
            events, "Look for the record of a download of these packages into the cluster's package directory"
        )
        assert [(h, r["stat"]["exists"]) for h, r in looked] == [("node1", False)] * 3 + [("node2", True)] * 3, looked
        downloads = ok_runs(events, "Download the packages and what they need, on the first host that misses them")
        assert [h for h, _r in downloads] == ["node1"] * 3, downloads
        debs = sorted(
            urllib.parse.unquote(r.rsplit("/", 1)[-1]) for _m, r in QuietHandler.requests if r.endswith(".deb")
        )
        assert debs == sorted(set(debs)) and len(debs) == 8, debs  # 8 packages, each fetched once
        assert sorted(p.name for p in (lab.shared / "scc-apt").glob("*.deb")) == debs
        downloaded_on = {
            h
            for h, t in changed(events)
            if t == "Download the packages and what they need, on the first host that misses them"
        }
        assert len(downloaded_on) == 1, downloaded_on
        facts = installed_facts(events)
        for host in ("node1", "node2"):
            cuda = facts[host]["cuda"]
            assert cuda["runtime"]["code"] == 12080, cuda
            assert cuda["runtime"]["path"].startswith("/usr/local/cuda-12.8/"), cuda
            assert cuda["compiler"] == "/usr/local/cuda-12.8/bin/nvcc" and cuda["cubin"] == {
                "elf": True,
                "machine": 190,
                "sm": 70,
            }
            assert cuda["cublaslt"]["code"] == 120804 and cuda["cublaslt"]["path"].startswith(
                "/usr/local/cuda-12.8/"
            ), cuda
            assert facts[host]["cudnn"]["needs"]["libcublasLt.so.12"].startswith("/usr/local/cuda-12.8/"), facts[host]
            # /lib is /usr/lib on Debian 12 (merged /usr): the linker cache names either.
            assert facts[host]["cudnn"]["code"] == 91002
            assert facts[host]["cudnn"]["path"].endswith("lib/x86_64-linux-gnu/libcudnn.so.9"), facts[host]
            assert facts[host]["nccl"]["code"] == 22705
            assert facts[host]["nccl"]["path"].endswith("lib/x86_64-linux-gnu/libnccl.so.2"), facts[host]
        for address in addresses(lab):
            shown = lab.ssh(
                address,
                "dpkg-query -W cuda-cudart-12-8 cuda-nvcc-12-8 cuda-nvrtc-12-8 libcublas-12-8 libcudnn9-cuda-12 "
                "libcudnn9-dev-cuda-12 libnccl2 libnccl-dev g++; "
                "cat /etc/apt/sources.list.d/scc-cuda.sources /etc/profile.d/scc-cuda.sh",
            ).stdout
            for line in (
                "cuda-cudart-12-8\t12.8.90-1",
                "cuda-nvcc-12-8\t12.8.93-1",
                "cuda-nvrtc-12-8\t12.8.93-1",
                "libcublas-12-8\t12.8.4.1-1",
                "libcudnn9-cuda-12\t9.10.2.21-1",
                "libcudnn9-dev-cuda-12\t9.10.2.21-1",
                "libnccl2\t2.27.5-1+cuda12.8",
                "libnccl-dev\t2.27.5-1+cuda12.8",
                "Signed-By: /etc/apt/keyrings/scc-cuda.asc",
                "export CUDA_HOME=/usr/local/cuda-12.8",
            ):
                assert line in shown.splitlines(), (line, shown)
            assert "\ng++\t" in "\n" + shown, shown
        assert_unchanged_on_rerun_and_check(lab, workdir, extravars)

        # nvidia_driver's apt pin: without it cuda-drivers-580 would pull the 590 driver (no Volta).
        simulate = "apt-get install -s -o Debug::NoLocking=1 cuda-drivers-580"
        address = addresses(lab)[0]
        assert "Inst nvidia-driver (590.44.01-1" in lab.ssh(address, simulate).stdout
        pin = PLAYBOOK.parent / "nvidia_driver_apt_pin.yml"
        status, events = run(lab, workdir, {"nvidia_driver_branch": "580"}, playbook=pin)
        assert status == "successful", failed(events)
        for address in addresses(lab):
            shown = lab.ssh(address, simulate).stdout
            assert "Inst nvidia-driver (580.95.05-1" in shown and "Inst libcuda1 (580.95.05-1" in shown, shown
            assert "590.44.01" not in shown, shown
        status, events = run(lab, workdir, {"nvidia_driver_branch": "580"}, playbook=pin)
        assert status == "successful" and changed(events) == [], changed(events)
    finally:
        server.shutdown()
        server.server_close()
