"""cpfs_mount's CPFS-NFS path on two lab hosts, with a FIXTURE STAND-IN for Alibaba's aliyun-alinas-utils.

The lab kernel has no NFS client and Alibaba's package is not reachable from here, so the test builds
a stand-in .deb with dpkg-deb: package name aliyun-alinas-utils, one file, /sbin/mount.cpfs-nfs, a
shell script that records how mount(8) called it and bind-mounts the lab's shared directory. It is
NOT Alibaba's client. It is served from an offline mirror on 127.0.0.1 (manifest.json with its sha256).

Proven: Debian 12 (not on the package's verified list) refused to cpfs_mount_cpfs_nfs_client alinas without
cpfs_mount_alinas_allow_unverified_os, before any host changes; with auto (the default) Debian 12 gets the
distribution's NFS client instead (in --check --diff: nfs-common and the fstab line of type nfs planned, the
package never fetched); a mirror manifest other than the one
the inventory pins (artifact_fetch_mirror_manifests), and a pinned manifest whose sha256 is wrong, stop
on the controller before any host sees the file; with the override the package is fetched once for
both hosts, copied, installed with apt, the fstab line has type cpfs-nfs and the documented options,
and mount(8) hands source, mount point and options to /sbin/mount.cpfs-nfs; a re-run and --check
change nothing; verify refuses the stand-in's mount (not NFS); a mount /etc/fstab does not name as wanted (other
options, or the user's own filesystem) is refused on every run with fstab left as it was, and mounted once unmounted.
Not proven: Alibaba's package itself, its dependencies, a real CPFS mount, the rpm path (dnf,
rpmkeys signature check), the sharing proof over CPFS.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from tests.lab_runner import changed, failed, lab_fixture, ok_results, run_playbook

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOK = ROOT / "tests" / "integration" / "playbooks" / "cpfs_mount_alinas.yml"
ADDRESS = os.environ.get("SCC_CPFS_MOUNT_LAB_ADDRESS", "127.0.33.11")
PACKAGE = "aliyun-alinas-utils_0.0.0+scc.standin_all.deb"
SOURCE = "cpfs-0123456789abcdef-fedcba987654.cn-shanghai.cpfs.aliyuncs.com:/share"
MOUNT_PATH = "/mnt/scc-cpfs-nfs"
HELPER_LOG = "/var/log/scc-standin-mount.cpfs-nfs.log"
OPTIONS = "vers=3,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport,_netdev"
# What aliyun-alinas-utils' mount.cpfs-nfs hands mount.nfs for NFSv3 without its proxy, plus _netdev (the role's vars).
NFS_OPTIONS = (
    "vers=3,nolock,proto=tcp,port=2049,mountport=2049,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,"
    "noresvport,_netdev"
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")

HELPER = f"""#!/bin/sh
# FIXTURE STAND-IN for aliyun-alinas-utils' /sbin/mount.cpfs-nfs, built by
# tests/integration/test_cpfs_mount_alinas.py. NOT Alibaba's client (the lab kernel has no NFS):
# it records how mount(8) called it, then bind-mounts the lab's shared directory (/mnt/cpfs).
echo "$@" >> {HELPER_LOG}
exec mount --bind /mnt/cpfs "$2"
"""
CONTROL = """Package: aliyun-alinas-utils
Version: 0.0.0+scc.standin
Architecture: all
Maintainer: scc.training tests <tests@scc.training.invalid>
Description: FIXTURE STAND-IN for Alibaba's aliyun-alinas-utils (not the real client)
 Built by tests/integration/test_cpfs_mount_alinas.py: only a /sbin/mount.cpfs-nfs stand-in.
"""


def build_standin_deb(directory: Path) -> Path:
    root = directory / "root"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "sbin").mkdir()
    (root / "DEBIAN" / "control").write_text(CONTROL)
    (root / "sbin" / "mount.cpfs-nfs").write_text(HELPER)
    for path in (root, root / "DEBIAN", root / "sbin", root / "sbin" / "mount.cpfs-nfs"):
        path.chmod(0o755)
    deb = directory / PACKAGE
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(root), str(deb)], check=True, capture_output=True)
    return deb


class CountingHandler(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []

    def log_message(self, format, *args):
        CountingHandler.requests.append(self.path)


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """(directory, URL): the stand-in package and its manifest.json, served on 127.0.0.1."""
    root = tmp_path_factory.mktemp("alinas-mirror")
    deb = build_standin_deb(tmp_path_factory.mktemp("alinas-build"))
    (root / PACKAGE).write_bytes(deb.read_bytes())
    entry = {"name": PACKAGE, "sha256": hashlib.sha256(deb.read_bytes()).hexdigest(), "size": deb.stat().st_size}
    (root / "manifest.json").write_text(json.dumps({"artifacts": [entry]}))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(CountingHandler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


lab = lab_fixture(2, ADDRESS, name="cpfs-alinas")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The controller's download cache of the tests that mount: later runs download nothing."""
    return tmp_path_factory.mktemp("alinas-cache")


@pytest.fixture(scope="module")
def cleanup(lab):
    yield
    for host in lab.load():
        lab.ssh(
            host.address, f"umount {MOUNT_PATH} 2>/dev/null; dpkg --purge aliyun-alinas-utils >/dev/null 2>&1; true"
        )


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def settings(mirror_url, cache, manifest, **extra):
    """The role's settings for the mirror at mirror_url, its manifest pinned by the sha256 of ``manifest``."""
    return {
        "cpfs_mount_protocol": "cpfs-nfs",
        "cpfs_mount_source": SOURCE,
        "cpfs_mount_path": MOUNT_PATH,
        "cpfs_mount_alinas_package": PACKAGE,
        "cpfs_mount_alinas_mirror": mirror_url,
        "artifact_fetch_mirror_manifests": {mirror_url: sha256_of(manifest)},
        # The controller's download cache of this test only.
        "artifact_fetch_cache_dir": str(cache),
        **extra,
    }


def run(lab, workdir, extravars, check=False, skip_verify=True, envvars=None):
    # verify.yml expects the kernel's nfs type, which the stand-in's bind mount is not (last test).
    envvars = {"no_proxy": "127.0.0.1", "NO_PROXY": "127.0.0.1", **(envvars or {})}
    if skip_verify:
        envvars["ANSIBLE_SKIP_TAGS"] = "cpfs_mount_verify"
    status, _rc, events = run_playbook(PLAYBOOK, lab.inventory, workdir, extravars, check=check, envvars=envvars)
    return status, events


def on_hosts(lab, command):
    return {host.address: lab.ssh(host.address, command) for host in lab.load()}


def test_debian12_is_refused_to_an_explicit_alinas_without_the_override_before_any_change(lab, mirror, tmp_path):
    extravars = settings(
        mirror[1], tmp_path / "cache", mirror[0] / "manifest.json", cpfs_mount_cpfs_nfs_client="alinas"
    )
    status, events = run(lab, tmp_path, extravars)
    assert status == "failed"
    failures = failed(events)
    assert {host for host, _task, _msg in failures} == {"node1", "node2"}
    for _host, task, msg in failures:
        assert task == "Check the host can take Alibaba's CPFS-NFS client", task
        assert "runs Debian 12" in msg and "cpfs_mount_alinas_allow_unverified_os" in msg, msg
        assert "cpfs_mount_cpfs_nfs_client auto or nfs" in msg, msg
    assert changed(events) == []


def test_auto_mounts_debian12_with_the_distribution_nfs_client(lab, mirror, tmp_path):
    """Debian 12 is not on the package's list: auto (the default) chooses the distribution's NFS client, says so,
    plans nfs-common and the fstab line of type nfs with the helper's own mount.nfs options, and never fetches
    Alibaba's package. In --check --diff: the lab kernel has no NFS client to mount with, and nfs-common would come
    from Debian's network mirror, which the lab tests never reach."""
    extravars = settings(mirror[1], tmp_path / "cache", mirror[0] / "manifest.json")
    CountingHandler.requests.clear()
    status, events = run(lab, tmp_path, extravars, check=True, envvars={"ANSIBLE_DIFF_ALWAYS": "1"})
    assert status == "successful", failed(events)
    said = ok_results(events, "Say which client mounts CPFS here, and why")
    assert set(said) == {"node1", "node2"}, said
    for host, result in said.items():
        assert f"mounts {SOURCE} with the distribution's NFS client" in result["msg"], (host, result)
        assert "runs Debian 12" in result["msg"], (host, result)
    planned = set(changed(events))
    for host in ("node1", "node2"):
        assert (host, "Install the NFS client") in planned, planned
        assert (host, "Persist the mount in /etc/fstab") in planned, planned
    fstab = ok_results(events, "Persist the mount in /etc/fstab")
    wanted = f"{SOURCE} {MOUNT_PATH} nfs {NFS_OPTIONS} 0 0"
    for host, result in fstab.items():
        diffs = result["diff"] if isinstance(result["diff"], list) else [result["diff"]]
        assert any(wanted in d.get("after", "").splitlines() for d in diffs), (host, diffs)
    assert CountingHandler.requests == []
    # --check: nothing on the hosts changed.
    checks = f"grep -c -E '\\s{MOUNT_PATH}\\s' /etc/fstab; dpkg-query -W -f '${{Status}}' nfs-common 2>/dev/null; true"
    for address, result in on_hosts(lab, checks).items():
        assert result.stdout.split()[:1] == ["0"] and "install ok installed" not in result.stdout, (address, result)


def test_a_wrong_sha256_stops_on_the_controller_before_any_host_sees_the_file(lab, mirror, tmp_path):
    bad = tmp_path / "bad-mirror"
    bad.mkdir()
    (bad / PACKAGE).write_bytes((mirror[0] / PACKAGE).read_bytes())
    manifest = json.loads((mirror[0] / "manifest.json").read_text())
    manifest["artifacts"][0]["sha256"] = "0" * 64
    (bad / "manifest.json").write_text(json.dumps(manifest))
    # Pinned to the good manifest: the changed one is refused before it is read.
    good = mirror[0] / "manifest.json"
    extravars = settings(str(bad), tmp_path / "cache", good, cpfs_mount_alinas_allow_unverified_os=True)
    status, events = run(lab, tmp_path, extravars)
    assert status == "failed"
    (failure,) = failed(events)
    assert failure[1] == "Fetch the mirror's manifest once and check it against the pinned sha256", failure
    # Pinned to the changed manifest: read, and its wrong sha256 stops the package's download.
    extravars = settings(
        str(bad), tmp_path / "cache", bad / "manifest.json", cpfs_mount_alinas_allow_unverified_os=True
    )
    status, events = run(lab, tmp_path, extravars)
    assert status == "failed"
    (failure,) = failed(events)
    assert failure[1] == "Download each file once and check its sha256", failure
    for address, result in on_hosts(lab, f"test ! -e /opt/scc-training/artifacts/{PACKAGE}").items():
        assert result.returncode == 0, address


def test_the_package_is_fetched_once_installed_and_mounted_through_its_helper(lab, mirror, cache, cleanup, tmp_path):
    root, url = mirror
    extravars = settings(url, cache, root / "manifest.json", cpfs_mount_alinas_allow_unverified_os=True)
    CountingHandler.requests.clear()
    status, events = run(lab, tmp_path, extravars)
    assert status == "successful", failed(events)
    # One manifest read and one download for both hosts.
    assert sorted(CountingHandler.requests) == sorted(["/manifest.json", f"/{PACKAGE}"])
    digest = hashlib.sha256((root / PACKAGE).read_bytes()).hexdigest()
    fstab_line = f"{SOURCE} {MOUNT_PATH} cpfs-nfs {OPTIONS} 0 0"
    checks = (
        f"sha256sum /opt/scc-training/artifacts/{PACKAGE} | cut -d' ' -f1; "
        "dpkg-query -W -f '${Status} ${Version}\\n' aliyun-alinas-utils; "
        f"grep -E '^\\S+\\s+{MOUNT_PATH}\\s' /etc/fstab; "
        f"findmnt --noheadings --output TARGET --mountpoint {MOUNT_PATH}; "
        f"cat {HELPER_LOG}"
    )
    for address, result in on_hosts(lab, checks).items():
        lines = result.stdout.splitlines()
        assert result.returncode == 0 and len(lines) == 5, (address, result.stdout, result.stderr)
        assert lines[0] == digest, address
        assert lines[1] == "install ok installed 0.0.0+scc.standin", address
        assert lines[2] == fstab_line, address
        assert lines[3] == MOUNT_PATH, address
        # mount(8) ran the package's helper with the fstab source, the mount point and the options.
        # (mount(8) may add flags such as -n before -o.)
        helper_args = lines[4].split()
        assert helper_args[:2] == [SOURCE, MOUNT_PATH] and "-o" in helper_args, (address, lines[4])
        options = set(helper_args[helper_args.index("-o") + 1].split(","))
        assert {"vers=3", "rsize=1048576", "hard", "timeo=600", "retrans=2", "noresvport"} <= options, (
            address,
            options,
        )

    for check in (False, True):
        status, events = run(lab, tmp_path, extravars, check=check)
        assert status == "successful", (check, failed(events))
        assert changed(events) == [], check
    assert f"/{PACKAGE}" not in CountingHandler.requests[2:]

    # The role's verify does not take the stand-in's bind mount for CPFS-NFS.
    status, events = run(lab, tmp_path, extravars, skip_verify=False)
    assert status == "failed"
    assert {host for host, _task, _msg in failed(events)} == {"node1", "node2"}
    for _host, task, msg in failed(events):
        assert task == "Check the filesystem is mounted with the expected type", task
        assert "expected nfs" in msg, msg


def test_a_mount_fstab_does_not_name_is_refused_on_every_run_and_nothing_changes(lab, mirror, cache, cleanup, tmp_path):
    """The user's data at the mount point (another filesystem, or this one with other options) is never unmounted
    and /etc/fstab is left as it is, so the refusal holds on every run (a first run that rewrote fstab let the next
    one pass with the other filesystem mounted)."""
    root, url = mirror
    extravars = settings(url, cache, root / "manifest.json", cpfs_mount_alinas_allow_unverified_os=True)
    fstab_line = f"{SOURCE} {MOUNT_PATH} cpfs-nfs {OPTIONS} 0 0"
    refusal = "Fail when a filesystem other than the wanted one is mounted at the mount point"

    def refused(settings_):
        """The run fails on both nodes at the refusal, naming what findmnt shows mounted there on each (never an
        empty name: the check is about what is mounted), and changes nothing; -> what was mounted, per node."""
        findmnt = f"findmnt --noheadings --output SOURCE,FSTYPE --mountpoint {MOUNT_PATH}"
        mounted = {host.name: " ".join(lab.ssh(host.address, findmnt).stdout.split()) for host in lab.load()}
        assert set(mounted) == {"node1", "node2"} and all(mounted.values()), mounted
        status, events = run(lab, tmp_path, settings_)
        assert status == "failed"
        assert {host for host, _task, _msg in failed(events)} == {"node1", "node2"}
        for host, task, msg in failed(events):
            text = " ".join(str(msg).split())
            assert task == refusal, task
            assert f"already has {mounted[host]} mounted, which /etc/fstab does not name as wanted" in text, text
            assert "nothing was changed" in text, text
        assert changed(events) == []
        return mounted

    # CPFS mounted by the last test, wanted now with other options: fstab keeps the line of the mount it made.
    # What is mounted is the stand-in's bind mount of CPFS (the helper's mount --bind /mnt/cpfs), not the user's.
    mounted = refused(dict(extravars, cpfs_mount_options=["vers=3", "hard", "_netdev"]))
    assert not any(value.startswith("userdata") for value in mounted.values()), mounted
    for address, result in on_hosts(lab, f"grep -E '^\\S+\\s+{MOUNT_PATH}\\s' /etc/fstab").items():
        assert result.stdout.strip() == fstab_line, address

    # The user's own filesystem there and no fstab line for it: refused on the first run and on the next.
    on_hosts(lab, f"umount {MOUNT_PATH}; sed -i '\\#{MOUNT_PATH}#d' /etc/fstab; mount -t tmpfs userdata {MOUNT_PATH}")
    for _run in range(2):
        assert refused(extravars) == {"node1": "userdata tmpfs", "node2": "userdata tmpfs"}
        for address, result in on_hosts(
            lab, f"grep -c -E '\\s{MOUNT_PATH}\\s' /etc/fstab; findmnt -no SOURCE {MOUNT_PATH}"
        ).items():
            assert result.stdout.split() == ["0", "userdata"], (address, result.stdout)

    # Unmounted by the user: the role writes fstab and mounts.
    on_hosts(lab, f"umount {MOUNT_PATH}")
    status, events = run(lab, tmp_path, extravars)
    assert status == "successful", failed(events)
    checks = (
        f"grep -E '^\\S+\\s+{MOUNT_PATH}\\s' /etc/fstab; findmnt --noheadings --output TARGET --mountpoint {MOUNT_PATH}"
    )
    for address, result in on_hosts(lab, checks).items():
        assert result.stdout.splitlines() == [fstab_line, MOUNT_PATH], (address, result.stdout)
