"""ansible-playbook as a user runs it, for the tests of validate.yml whose nodes are never contacted (nothing listens
at their address): the checkout's ansible.cfg and collections, this venv's ansible-playbook, a fact cache of the
test's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ENV = {
    **os.environ,
    "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
    "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".collections"),
    "ANSIBLE_NOCOLOR": "1",
    "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
}
# The lab's own declarations (docs/DEVELOPING.md): CPU only, tcp, its links' rate.
LAB_LIKE = {"scc_cpu_only": True, "scc_transport": "tcp", "rdma_bandwidth_link_rate_gbps": 2}


def ansible_playbook(tmp_path: Path, inventory: Path, playbook: Path, *args: str, rc: int = 0) -> str:
    """Its stdout and stderr, once it exited with ``rc`` and contacted no node."""
    env = dict(ENV, ANSIBLE_CACHE_PLUGIN_CONNECTION=str(tmp_path / "facts"))
    argv = [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inventory), str(playbook), *args]
    proc = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == rc and "UNREACHABLE" not in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]
    return proc.stdout + proc.stderr
