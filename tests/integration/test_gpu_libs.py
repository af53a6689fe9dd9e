"""The GPU library roles on two lab hosts, proven usable without a GPU, changed=0 on re-run:
- cuda, cudnn, nccl from NVIDIA's real PyPI wheels (fetched once, shared storage), also --check;
- cuda from an offline mirror served on 127.0.0.1 (per-host copies), and a mirror whose sha256
  is wrong stopping on the controller before any host changes;
- aiacc from a mirror holding a FIXTURE STAND-IN wheel (Alibaba's site is not reachable);
- cudnn from a signed flat apt repository on 127.0.0.1 with FIXTURE STAND-IN packages that
  carry NVIDIA's real libcudnn libraries.

The controller's download cache is ROOT/.cache/nvidia-artifacts (git-ignored): CI downloads the
wheels (about 1.2 GB) once, later runs reuse them. The lab address is SCC_GPU_LIBS_LAB_ADDRESS.
"""

import functools
import hashlib
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

import ansible_runner
import pytest

from lab.cluster import Lab

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOK = ROOT / "tests" / "integration" / "playbooks" / "gpu_libs.yml"
CACHE = ROOT / ".cache" / "nvidia-artifacts"
ADDRESS = os.environ.get("SCC_GPU_LIBS_LAB_ADDRESS", "127.0.13.21")
ROLES = ("cuda", "cudnn", "nccl")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = Lab(tmp_path_factory.mktemp("gpu-libs") / "lab")
    lab.up(2, ADDRESS, log=lambda *_: None)
    try:
        yield lab
    finally:
        lab.down(log=lambda *_: None)


def addresses(lab):
    return [h.address for h in lab.load()]


def source_vars(source, prefix_root, artifacts, shared, only=ROLES, **extra):
    out = {"scc_cpu_only": False}
    for role in ROLES:
        if role not in only:
            out[f"{role}_cpu_only"] = True
            continue
        out.update({f"{role}_source": source, f"{role}_cache_dir": str(CACHE),
                    f"{role}_prefix": f"{prefix_root}/{role}",
                    f"{role}_artifacts_path": artifacts, f"{role}_artifacts_shared": shared})
    out.update(extra)
    return out


def run(lab, workdir, extravars, check=False):
    private = Path(tempfile.mkdtemp(dir=workdir, prefix="run-"))
    result = ansible_runner.run(
        private_data_dir=str(private), playbook=str(PLAYBOOK), inventory=str(lab.inventory),
        extravars=extravars,
        envvars={"ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
                 # ansible-runner sets ANSIBLE_HOST_KEY_CHECKING=False unless told otherwise;
                 # the lab hosts' keys are pinned and must be checked.
                 "ANSIBLE_HOST_KEY_CHECKING": "True",
                 "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".collections"),
                 "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
        cmdline="--check" if check else None, quiet=True,
    )
    events = list(result.events)
    shutil.rmtree(private, ignore_errors=True)
    return result.status, events


def ok_results(events, task):
    return {e["event_data"]["host"]: e["event_data"]["res"] for e in events
            if e["event"] == "runner_on_ok" and e["event_data"]["task"] == task}


def changed(events):
    return [(e["event_data"]["host"], e["event_data"]["task"]) for e in events
            if e["event"] == "runner_on_ok" and e["event_data"]["res"].get("changed")]


def failed(events):
    return [(e["event_data"]["host"], e["event_data"]["task"], e["event_data"]["res"].get("msg", ""))
            for e in events if e["event"] == "runner_on_failed"]


def installed_facts(events):
    facts = {}
    for role, task in (("cuda", "Publish what verify found"), ("cudnn", "Publish the cuDNN that verify found"),
                       ("nccl", "Publish the NCCL that verify found")):
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
        assert seen["cudnn"]["code"] == 91002 and seen["cudnn"]["path"].startswith("/opt/scc-training/cudnn/9.10.2.21/")
        assert seen["nccl"]["code"] == 22705 and seen["nccl"]["path"].startswith("/opt/scc-training/nccl/2.27.5/")

    # Shared storage: one copy of each wheel, through the first host only, seen by both.
    wheels = sorted(p.name for p in (lab.shared / "artifacts").iterdir())
    assert len(wheels) == 5 and all(w.startswith("nvidia_") and w.endswith(".whl") for w in wheels), wheels
    copied_on = {h for h, t in changed(events) if t.startswith("Copy the checked artifacts")}
    assert copied_on <= {"node1"}

    status, events = run(lab, workdir, extravars)
    assert status == "successful", failed(events)
    assert changed(events) == []

    status, events = run(lab, workdir, extravars, check=True)
    assert status == "successful", failed(events)
    assert changed(events) == []


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """The CUDA wheels the pypi test downloaded, as an offline mirror served on 127.0.0.1."""
    root = tmp_path_factory.mktemp("mirror")
    entries = []
    for wheel in sorted(CACHE.glob("wheels/*/nvidia_cuda_*.whl")):
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

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        QuietHandler.requests.append(self.path)


def test_mirror_over_http_installs_cuda_per_host_copies(lab, workdir, mirror, tmp_path):
    root, url = mirror
    assert len(json.loads((root / "manifest.json").read_text())["artifacts"]) == 3
    QuietHandler.requests.clear()
    # A controller cache of its own, so that the requests below are this test's downloads.
    extravars = source_vars("mirror", "/opt/scc-mirror", "/opt/scc-mirror/artifacts", False, only=("cuda",),
                            cuda_mirror=url, cuda_cache_dir=str(tmp_path / "cache"))
    status, events = run(lab, workdir, extravars)
    assert status == "successful", failed(events)
    # The controller fetched each file once: one manifest read and one GET per wheel, not one per host.
    assert sorted(QuietHandler.requests) == sorted(["/manifest.json"] + [f"/{p.name}" for p in root.glob("*.whl")])
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
    extravars = source_vars("mirror", "/opt/scc-bad", "/opt/scc-bad/artifacts", False, only=("cuda",),
                            cuda_mirror=str(bad), cuda_cache_dir=str(tmp_path / "cache"))
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
    (mirror / "manifest.json").write_text(json.dumps({"artifacts": [
        {"name": wheel.name, "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(), "size": wheel.stat().st_size}]}))
    extravars = {"scc_cpu_only": False, "aiacc_source": "mirror", "aiacc_mirror": str(mirror),
                 "aiacc_artifact_name": wheel.name, "aiacc_venv_path": "/opt/scc-fixture-venv",
                 "aiacc_cache_dir": str(tmp_path / "cache"), "aiacc_artifacts_path": "/mnt/cpfs/aiacc",
                 "aiacc_artifacts_shared": True}
    private_playbook = ROOT / "tests" / "integration" / "playbooks" / "aiacc.yml"
    for attempt in ("converge", "rerun", "check"):
        private = Path(tempfile.mkdtemp(dir=workdir, prefix="run-"))
        result = ansible_runner.run(
            private_data_dir=str(private), playbook=str(private_playbook), inventory=str(lab.inventory),
            extravars=extravars,
            envvars={"ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
                     # ansible-runner sets ANSIBLE_HOST_KEY_CHECKING=False unless told otherwise;
                     # the lab hosts' keys are pinned and must be checked.
                     "ANSIBLE_HOST_KEY_CHECKING": "True",
                     "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".collections"),
                     "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
            cmdline="--check" if attempt == "check" else None, quiet=True,
        )
        events = list(result.events)
        shutil.rmtree(private, ignore_errors=True)
        assert result.status == "successful", (attempt, failed(events))
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


def build_apt_repo(root, libs, gnupghome):
    """A flat apt repository like NVIDIA's (suite "/"), signed by a throwaway key, holding
    FIXTURE STAND-IN packages libcudnn9-cuda-12 and libcudnn9-dev-cuda-12 9.10.2.21-1: not
    NVIDIA's packages, but the first carries real libraries from NVIDIA's wheel (libcudnn.so.9
    and libcudnn_graph.so.9, which cudnnGetVersion loads), so verify's call is a real one."""
    import email.utils
    import subprocess
    version = "9.10.2.21-1"
    for name, payload in (("libcudnn9-cuda-12", libs), ("libcudnn9-dev-cuda-12", None)):
        pkg = root / "build" / name
        (pkg / "DEBIAN").mkdir(parents=True)
        doc = pkg / "usr" / "share" / "doc" / name
        doc.mkdir(parents=True)
        (doc / "README.fixture").write_text("FIXTURE STAND-IN built by tests/integration/test_gpu_libs.py; "
                                            "not NVIDIA's package.\n")
        depends = ""
        if payload:
            lib = pkg / "usr" / "lib" / "x86_64-linux-gnu"
            lib.mkdir(parents=True)
            for path in payload:
                shutil.copy2(path, lib / path.name)
            # As NVIDIA's packages do: the linker cache is refreshed by dpkg's ldconfig trigger.
            (pkg / "DEBIAN" / "triggers").write_text("activate-noawait ldconfig\n")
        else:
            depends = f"Depends: libcudnn9-cuda-12 (= {version})\n"
        (pkg / "DEBIAN" / "control").write_text(
            f"Package: {name}\nVersion: {version}\nArchitecture: amd64\nMaintainer: scc.training tests\n"
            f"{depends}Description: FIXTURE STAND-IN for NVIDIA's {name} (test package)\n")
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(pkg), str(root / f"{name}_{version}_amd64.deb")],
                       check=True, capture_output=True)
    shutil.rmtree(root / "build")
    packages = subprocess.run(["dpkg-scanpackages", "--multiversion", "."], cwd=root, check=True,
                              capture_output=True, text=True).stdout
    (root / "Packages").write_text(packages)
    digest = hashlib.sha256(packages.encode()).hexdigest()
    (root / "Release").write_text(
        f"Origin: scc.training fixture\nLabel: scc.training fixture\nArchitectures: amd64\n"
        f"Date: {email.utils.formatdate(usegmt=True)}\nSHA256:\n {digest} {len(packages.encode())} Packages\n")
    env = {**os.environ, "GNUPGHOME": str(gnupghome)}
    gnupghome.mkdir(mode=0o700)
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "scc.training fixture repository",
                    "rsa2048", "sign", "never"], env=env, check=True, capture_output=True)
    subprocess.run(["gpg", "--batch", "--yes", "--clearsign", "-o", str(root / "InRelease"), str(root / "Release")],
                   env=env, check=True, capture_output=True)
    key = subprocess.run(["gpg", "--batch", "--armor", "--export"], env=env, check=True, capture_output=True).stdout
    (root / "fixture-key.asc").write_bytes(key)


def test_repo_source_installs_pinned_packages_from_a_signed_loopback_repository(lab, workdir, tmp_path):
    (libcudnn,) = CACHE.glob("wheels/*/nvidia_cudnn_cu12-9.10.2.21-*.whl")
    import zipfile
    with zipfile.ZipFile(libcudnn) as wheel:
        libs = [Path(wheel.extract(f"nvidia/cudnn/lib/{name}", tmp_path / "wheel"))
                for name in ("libcudnn.so.9", "libcudnn_graph.so.9")]
    repo = tmp_path / "repo"
    repo.mkdir()
    build_apt_repo(repo, libs, tmp_path / "gnupg")
    handler = functools.partial(QuietHandler, directory=str(repo))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        extravars = {"scc_cpu_only": False, "cuda_cpu_only": True, "nccl_cpu_only": True,
                     "cudnn_source": "repo", "cuda_repo_url": url, "cuda_repo_key_url": f"{url}/fixture-key.asc",
                     "cuda_cache_dir": str(tmp_path / "cache")}
        status, events = run(lab, workdir, extravars)
        assert status == "successful", failed(events)
        facts = installed_facts(events)
        for host in ("node1", "node2"):
            assert facts[host]["cudnn"]["code"] == 91002
            # /lib is /usr/lib on Debian 12 (merged /usr): the linker cache names either.
            assert facts[host]["cudnn"]["path"].endswith("lib/x86_64-linux-gnu/libcudnn.so.9"), facts[host]
        for address in addresses(lab):
            shown = lab.ssh(address, "dpkg-query -W libcudnn9-cuda-12 libcudnn9-dev-cuda-12; "
                                     "cat /etc/apt/sources.list.d/scc-cuda.sources").stdout
            assert "libcudnn9-cuda-12\t9.10.2.21-1" in shown and "libcudnn9-dev-cuda-12\t9.10.2.21-1" in shown, shown
            assert "Signed-By: /etc/apt/keyrings/scc-cuda.asc" in shown, shown
        status, events = run(lab, workdir, extravars)
        assert status == "successful", failed(events)
        assert changed(events) == []
        status, events = run(lab, workdir, extravars, check=True)
        assert status == "successful", failed(events)
        assert changed(events) == []
    finally:
        server.shutdown()
        server.server_close()
