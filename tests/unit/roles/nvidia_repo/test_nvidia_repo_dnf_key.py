"""nvidia_repo on a dnf host (Alibaba Cloud Linux 3, made-up facts): no fingerprint from the user is needed any
more; the key the repository serves is checked against NVIDIA's pinned D42D0685 fingerprint on the controller, and
a key that is not NVIDIA's stops the play there, before any host is touched.

The controller's side only: the host facts are made up (a local connection standing in for an Alibaba Cloud Linux
3 node; this machine is Debian, the lab has no EL image), the key is a FIXTURE STAND-IN generated here with gpg and
served from loopback. NVIDIA's real key file cannot be fetched here; its fingerprint is pinned from NVIDIA's
published one (test_nvidia_repo_keys.py).
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import threading

import pytest

from tests.lab_runner import failed, local_play, run_playbook

NVIDIA_DNF = "610C7B14E068A878070DA4E99CD0A493D42D0685"
ALINUX3 = {
    "pkg_mgr": "dnf",
    "distribution": "Alibaba",
    "distribution_major_version": "3",
    "distribution_version": "3",
    "os_family": "RedHat",
    "architecture": "x86_64",
}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requests: list = []

    def log_message(self, *_args):
        _Quiet.requests.append(self.path)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A loopback server of one fixture key; yields (url, the key's fingerprint)."""
    root = tmp_path_factory.mktemp("nvidia-repo-dnf")
    home = root / "gnupg"
    home.mkdir(mode=0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    gpg = ["gpg", "--batch", "--passphrase", ""]
    subprocess.run(
        [*gpg, "--quick-gen-key", "fixture", "ed25519", "sign", "never"], env=env, check=True, capture_output=True
    )
    key = subprocess.run([*gpg, "--armor", "--export"], env=env, check=True, capture_output=True).stdout
    (root / "D42D0685.pub").write_bytes(key)
    listing = subprocess.run(
        [*gpg, "--with-colons", "--list-keys"], env=env, check=True, capture_output=True, text=True
    )
    fingerprints = [line.split(":")[9] for line in listing.stdout.splitlines() if line.startswith("fpr:")]
    assert fingerprints, listing.stdout
    fingerprint = fingerprints[0]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield "http://127.0.0.1:%d" % server.server_address[1], fingerprint
    finally:
        server.shutdown()


def _run(tmp_path, url, facts):
    tasks = [
        {
            "name": "The repository step of nvidia_repo",
            "ansible.builtin.include_role": {"name": "scc.training.nvidia_repo", "tasks_from": "repository"},
            "vars": {
                "ansible_facts": facts,
                "nvidia_repo_url": url,  # its key: <url>/D42D0685.pub, the default name on dnf
                "nvidia_repo_key_cache_dir": str(tmp_path / "cache"),
            },
        }
    ]
    playbook, inventory = local_play(tmp_path, "nvidia_repo on a stand-in dnf host", tasks)
    run = run_playbook(playbook, inventory, tmp_path)
    return run.status, failed(run.events)


def test_a_dnf_host_checks_the_key_against_nvidias_pinned_fingerprint(served, tmp_path):
    url, fixture = served
    _Quiet.requests.clear()
    status, failures = _run(tmp_path, url, ALINUX3)
    assert status == "failed"
    (failure,) = failures
    # No refusal before the download any more: the key was fetched (D42D0685.pub, rhel8's name) and judged.
    assert "/D42D0685.pub" in _Quiet.requests
    assert failure[1] == "Check the signing key file holds exactly the pinned key, on the controller", failure
    assert NVIDIA_DNF in failure[2] and fixture in failure[2], failure
    assert "Nothing was changed on the hosts" in failure[2]


def test_another_package_manager_still_needs_a_pinned_fingerprint(served, tmp_path):
    url, _fixture = served
    _Quiet.requests.clear()
    status, failures = _run(tmp_path, url, dict(ALINUX3, pkg_mgr="zypper"))
    assert status == "failed"
    (failure,) = failures
    assert "nvidia_repo_key_fingerprint must be set on zypper hosts" in failure[2], failure
    assert _Quiet.requests == []  # refused before any download
