"""The Debian 12 base root filesystem, built once with debootstrap and cached.

Every lab host mounts it read-only as the lower layer of an overlay, so the cache is never
written after it is built. A build goes to a temporary directory that is renamed into place
only when debootstrap succeeded: an interrupted build leaves no half-built base behind.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from .errors import LabError

SUITE = "bookworm"
# What a freshly installed cloud image of Debian 12 has that Ansible and the roles rely on.
PACKAGES = ("openssh-server", "python3", "python3-apt", "iproute2", "procps", "ca-certificates")
DEFAULT_MIRROR = "http://deb.debian.org/debian"


def cache_root() -> Path:
    return Path(os.environ.get("SCC_LAB_CACHE", "/var/cache/scc-lab"))


def base_path() -> Path:
    """The cache path depends on suite and package list, so changing either rebuilds."""
    key = hashlib.sha256(" ".join((SUITE,) + PACKAGES).encode()).hexdigest()[:12]
    return cache_root() / f"base-{SUITE}-{key}"


def machine_mirror() -> str:
    """The Debian mirror this machine's own apt uses (the only one known to be reachable)."""
    if os.environ.get("SCC_LAB_MIRROR"):
        return os.environ["SCC_LAB_MIRROR"]
    candidates = sorted(Path("/etc/apt/sources.list.d").glob("*.sources")) + [Path("/etc/apt/sources.list")]
    for path in candidates:
        try:
            text = path.read_text()
        except OSError:
            continue
        match = re.search(r"^URIs:\s*(\S+/debian)/?\s*$", text, re.M) or re.search(
            r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+/debian)/?\s+", text, re.M
        )
        if match:
            return match.group(1)
    return DEFAULT_MIRROR


def ensure_base(log=print) -> Path:
    """Return the cached base, building it first when it is missing. Labs coming up at once (the
    integration tests run two files at a time) wait on a lock: one builds, the others find it built."""
    path = base_path()
    if (path / ".scc-lab-complete").is_file():
        return path
    if shutil.which("debootstrap") is None:
        raise LabError(
            "debootstrap is not installed and no cached base exists at "
            f"{path}: install it (apt-get install debootstrap) and run again"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (path / ".scc-lab-complete").is_file():
            return path
        return _build_base(path, log)


def _build_base(path: Path, log) -> Path:
    tmp = path.with_name(path.name + ".building")
    if tmp.exists():
        shutil.rmtree(tmp)
    mirror = machine_mirror()
    log(f"building the Debian {SUITE} base with debootstrap from {mirror} (once, about a minute)")
    cmd = [
        "debootstrap",
        "--variant=minbase",
        "--include=" + ",".join(PACKAGES),
        SUITE,
        str(tmp),
        mirror,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise LabError(f"debootstrap failed (exit {proc.returncode}); nothing was cached:\n{tail}")
    # Host keys made by the openssh-server package would be shared by every host; each host
    # gets its own keys instead (see hosts.py), so remove these from the shared base.
    for key in (tmp / "etc/ssh").glob("ssh_host_*"):
        key.unlink()
    subprocess.run(["chroot", str(tmp), "apt-get", "clean"], check=False, capture_output=True)
    (tmp / ".scc-lab-complete").write_text(" ".join(PACKAGES) + "\n")
    os.replace(tmp, path)
    return path
