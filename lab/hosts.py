"""One lab host: an overlay root over the cached base, its own mount/UTS/PID namespaces,
and an sshd on its own loopback address.

The host's private files (authorized_keys, host keys, hostname, sshd settings) are written
into the overlay's upper directory BEFORE the overlay is mounted: files written there while
it is mounted do not show through (see shared/LAB.md).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import LabError

INIT_PATH = "usr/local/sbin/scc-lab-init"
SHARED_MOUNTPOINT = "mnt/cpfs"
MARKER = "scc-lab-init"

# Runs inside the new namespaces (as the unshare'd shell); $1.. are filled by start().
_BOOT = r"""set -eu
base=$1 upper=$2 work=$3 root=$4 shared=$5 name=$6 addr=$7
mount -t overlay overlay -o "lowerdir=$base,upperdir=$upper,workdir=$work" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount -t tmpfs -o mode=755 tmpfs "$root/run"
mount --rbind /dev "$root/dev"
mount --bind "$shared" "$root/mnt/cpfs"
hostname "$name"
exec chroot "$root" /usr/bin/python3 /usr/local/sbin/scc-lab-init "$addr"
"""


@dataclass
class HostState:
    name: str
    address: str
    unshare_pid: int
    init_pid: int
    init_start: str  # /proc/<pid>/stat start time: tells our process from a reused pid


def address_free(address: str, port: int = 22) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, port))
        except OSError:
            return False
    return True


def _proc_start(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def is_ours(state: HostState) -> bool:
    """True while the recorded init process is alive and is still the one we started."""
    if _proc_start(state.init_pid) != state.init_start:
        return False
    try:
        cmdline = Path(f"/proc/{state.init_pid}/cmdline").read_bytes()
    except OSError:
        return False
    return MARKER.encode() in cmdline


def keygen(path: Path, kind: str, comment: str) -> None:
    """A new key pair at path / path.pub (private key 0600, as ssh-keygen writes it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
    )


def seed(hostdir: Path, name: str, address: str, controller_pubkey: str) -> dict[str, str]:
    """Write the host's own files into its upper directory; return its public host keys."""
    upper = hostdir / "upper"
    for sub in ("upper", "work", "root"):
        (hostdir / sub).mkdir(parents=True, exist_ok=True)
    ssh_dir = upper / "root/.ssh"
    ssh_dir.mkdir(parents=True, mode=0o700, exist_ok=True)
    os.chmod(upper / "root", 0o700)
    auth = ssh_dir / "authorized_keys"
    auth.write_text(controller_pubkey + "\n")
    os.chmod(auth, 0o600)
    etc = upper / "etc"
    (etc / "ssh/sshd_config.d").mkdir(parents=True, exist_ok=True)
    host_keys = {}
    for kind in ("ed25519", "ecdsa"):
        key = etc / f"ssh/ssh_host_{kind}_key"
        keygen(key, kind, f"root@{name}")
        host_keys[kind] = Path(f"{key}.pub").read_text().split()[:2]
    (etc / "ssh/sshd_config.d/scc-lab.conf").write_text(
        "# Written by the scc.training lab.\n"
        "PermitRootLogin prohibit-password\n"
        "PasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\n"
        "UseDNS no\n"
        "MaxStartups 100:30:200\n"
        "MaxSessions 100\n"
        "HostKey /etc/ssh/ssh_host_ed25519_key\n"
        "HostKey /etc/ssh/ssh_host_ecdsa_key\n"
    )
    (etc / "hostname").write_text(name + "\n")
    (etc / "hosts").write_text(f"127.0.0.1\tlocalhost\n{address}\t{name}\n")
    if Path("/etc/resolv.conf").is_file():
        shutil.copyfile("/etc/resolv.conf", etc / "resolv.conf")
    init = upper / INIT_PATH
    init.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(__file__).with_name("lab_init.py"), init)
    (upper / SHARED_MOUNTPOINT).mkdir(parents=True, exist_ok=True)
    return {kind: " ".join(value) for kind, value in host_keys.items()}


def start(base: Path, hostdir: Path, shared: Path, name: str, address: str) -> HostState:
    log = open(hostdir / "console.log", "ab")
    proc = subprocess.Popen(
        [
            "unshare",
            "--mount",
            "--uts",
            "--pid",
            "--fork",
            "--propagation",
            "private",
            "sh",
            "-c",
            _BOOT,
            "scc-lab-boot",
            str(base),
            str(hostdir / "upper"),
            str(hostdir / "work"),
            str(hostdir / "root"),
            str(shared),
            name,
            address,
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    log.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        kids = _children(proc.pid)
        if kids and MARKER.encode() in Path(f"/proc/{kids[0]}/cmdline").read_bytes():
            start_time = _proc_start(kids[0])
            if start_time:
                return HostState(name, address, proc.pid, kids[0], start_time)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    console = (hostdir / "console.log").read_text(errors="replace").strip().splitlines()[-10:]
    raise LabError(f"{name} did not start (exit {proc.returncode}):\n" + "\n".join(console))


def wait_ssh(state: HostState, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # Looked at twice: while the boot shell execs chroot and python, /proc/<pid>/cmdline can read empty
        # for an instant (seen under load as a false "stopped" of a host that then ran on).
        if not is_ours(state) and not (time.sleep(0.2) or is_ours(state)):
            raise LabError(f"{state.name} stopped while starting: see its console.log")
        try:
            with socket.create_connection((state.address, 22), timeout=1) as sock:
                if sock.recv(64).startswith(b"SSH-"):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise LabError(f"{state.name}: sshd did not answer on {state.address}:22 within {timeout:.0f}s")


def stop(state: HostState, timeout: float = 10.0) -> None:
    """Stop exactly the processes recorded for this host: its init (which ends the rest of
    the host's PID namespace), then the unshare parent that waited for it."""
    if is_ours(state):
        os.kill(state.init_pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while is_ours(state) and time.monotonic() < deadline:
            time.sleep(0.05)
        if is_ours(state):
            os.kill(state.init_pid, signal.SIGKILL)
    # The unshare process exits once its child is gone; reap it if it is still ours.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            cmdline = Path(f"/proc/{state.unshare_pid}/cmdline").read_bytes()
        except OSError:
            return
        if b"scc-lab-boot" not in cmdline:
            return
        try:
            pid, _dummy = os.waitpid(state.unshare_pid, os.WNOHANG)
            if pid:
                return
        except ChildProcessError:
            pass  # not our child (started by an earlier `lab up`): wait for it to exit
        time.sleep(0.05)
    raise LabError(f"{state.name}: unshare process {state.unshare_pid} did not exit")


def as_dict(state: HostState) -> dict:
    return asdict(state)
