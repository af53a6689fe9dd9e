"""Chaos on the lab: one 3-host lab (127.0.42.11-13) for three faults, in this order.

1. A host killed mid-prepare: prepare.yml's python_env part (`--tags python_env`, the cheapest real part
   of prepare.yml that takes seconds per host in the lab: the venv, the hash-locked install from the
   shared wheelhouse) while node2's whole PID namespace is killed (SIGKILL to its init, a power cut) as
   its venv is being made. The play that installs the software has no max_fail_percentage (only the
   reboot play of prepare.yml has, with serial batches): node1 and node3 finish. node2 comes back with
   its disk (the overlay's upper directory), and a re-run converges, changing node2 only.
2. A corrupted wheel on the shared storage: one byte of the wheel flipped on CPFS (same size) under a
   fresh venv path: artifact_fetch re-hashes the shared copy before any use (sha256, not the size, issue 27),
   copies the checked wheel again, and every host installs the pinned package: no pip ever reads the
   corrupted bytes. (pip's own refusal of a wheel whose hash is not the lock's, the layer behind this one, is
   tested in tests/unit/roles/python_env/test_python_env_pip_hashes.py.)
3. The results directory full: verify.yml's gpu_health and cluster_health (no GPU in the lab: CPU-only
   reports) write into a 64 KiB tmpfs that is full: the failure names the file and the lack of space,
   the results collected before are intact; once space is freed the re-run writes them.

The wheel is built here (a STAND-IN `torch`, pure Python), and the controller's pip downloads it from a local
directory: no index is reached. The lab hosts' apt (python3-venv) uses the Debian mirror as every lab test.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from lab import base, hosts
from tests.lab_runner import ROOT, changed, failed, lab_fixture, run_playbook, unreachable

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the lab needs root")

lab = lab_fixture(3, "127.0.42.11", name="chaos")

# A STAND-IN torch: a pure-Python wheel holding only __version__ (python_env needs a torch pin; the real
# one is gigabytes and comes from an index).
PACKAGE, VERSION = "torch", "2.13.0"
WHEEL = f"{PACKAGE}-{VERSION}-py3-none-any.whl"
VENV = "/opt/scc-training/venv"
KILLED = "node2"


def _quiet(*_args):
    """The lab's progress log, unwanted in test output."""


def build_wheel(directory: Path) -> Path:
    """The stand-in's wheel, built by the controller's pip (setuptools, no index, no build isolation)."""
    source = directory / "source"
    (source / PACKAGE).mkdir(parents=True)
    (source / PACKAGE / "__init__.py").write_text(f'__version__ = "{VERSION}"\n')
    (source / "pyproject.toml").write_text(
        f'[project]\nname = "{PACKAGE}"\nversion = "{VERSION}"\n'
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
    )
    pip = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index", "--no-build-isolation"]
    subprocess.run([*pip, "--wheel-dir", str(directory), str(source)], check=True, cwd=directory)
    return directory / WHEEL


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("chaos-runner")


@pytest.fixture(scope="module")
def python_env_vars(workdir):
    """python_env's variables for the stand-in torch wheel from a local directory."""
    wheels = workdir / "wheels"
    build_wheel(wheels)
    constraints = workdir / "constraints.txt"
    constraints.write_text(f"{PACKAGE}=={VERSION}\n")
    return {
        "python_env_requirements": [f"{PACKAGE}=={VERSION}"],
        "python_env_verify_imports": [PACKAGE],
        "python_env_constraints_file": str(constraints),
        "python_env_pip_extra_args": ["--no-index", f"--find-links={wheels}"],
        "python_env_cache_dir": str(workdir / "controller-cache"),
    }


def prepare(lab, workdir, extravars):
    started = time.monotonic()
    try:
        return run_playbook(
            ROOT / "playbooks/prepare.yml",
            lab.inventory,
            workdir,
            extravars,
            envvars={"ANSIBLE_RUN_TAGS": "python_env"},
        )
    finally:
        print("prepare.yml --tags python_env: %.1f s" % (time.monotonic() - started))


def host_state(lab, name):
    return next(s for s in lab.load() if s.name == name)


def power_cut(lab, name):
    """SIGKILL to the host's init: the kernel kills every process of its PID namespace at once."""
    state = host_state(lab, name)
    os.kill(state.init_pid, signal.SIGKILL)
    hosts.stop(state)  # reaps what is left: the unshare parent


def power_on(lab, name):
    """Boot the host again on its own disk (the overlay's upper directory is kept), as the lab records it."""
    states = lab.load()
    index = next(i for i, s in enumerate(states) if s.name == name)
    old = states[index]
    new = hosts.start(base.ensure_base(_quiet), lab.dir / "hosts" / name, lab.shared, name, old.address)
    states[index] = new
    lab.save(states)
    hosts.wait_ssh(new)


def probe(lab, address, venv=VENV):
    """The version of the stand-in the venv imports, or None."""
    result = lab.ssh(address, f"{venv}/bin/python -c 'import {PACKAGE}; print({PACKAGE}.__version__)'")
    return result.stdout.strip() if result.returncode == 0 else None


def test_host_killed_mid_prepare_the_others_finish_and_a_rerun_heals(lab, workdir, python_env_vars, chaos_figures):
    addresses = {s.name: s.address for s in lab.load()}
    # node2's venv appears in its overlay's upper directory as `python -m venv` makes it: the cut comes then.
    trigger = lab.dir / "hosts" / KILLED / "upper" / VENV.lstrip("/") / "bin" / "python"
    killed = threading.Event()
    done = threading.Event()

    def watch():
        while not done.is_set():
            if os.path.lexists(trigger):
                power_cut(lab, KILLED)
                killed.set()
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        first = prepare(lab, workdir, python_env_vars)
    finally:
        done.set()
        watcher.join()
    assert killed.is_set(), (
        "node2's venv never appeared: the fault was not injected",
        first.status,
        failed(first.events),
    )
    # The run fails for node2 alone: it is unreachable, nothing failed on the others.
    assert first.status == "failed" and first.rc != 0
    assert {e["event_data"]["host"] for e in unreachable(first.events)} == {KILLED}
    assert [f for f in failed(first.events) if f[0] != KILLED] == []
    # node1 and node3 finished: their venv imports the pinned version.
    assert probe(lab, addresses["node1"]) == VERSION
    assert probe(lab, addresses["node3"]) == VERSION

    # What the cut left on node2's disk: usually a venv without pip, which the re-run must make again.
    half_made = not os.path.lexists(trigger.with_name("pip"))
    power_on(lab, KILLED)
    second = prepare(lab, workdir, python_env_vars)
    versions = {name: probe(lab, address) for name, address in addresses.items()}
    healed = (second.status, second.rc) == ("successful", 0)
    # Data lost: a host whose venv no longer holds the pinned version once the re-run is done.
    chaos_figures(
        faults_injected=1,
        runs=1,
        recovered=int(healed),
        data_lost=sum(v != VERSION for v in versions.values()),
        killed=KILLED,
        venv_left_without_pip=half_made,
        healed_changes=changed(second.events),
    )
    assert healed, failed(second.events)
    assert {host for host, _task in changed(second.events)} == {KILLED}, changed(second.events)
    assert set(versions.values()) == {VERSION}, versions


# python_env alone, as prepare.yml's last play runs it (every host at once): the wheel's refusal is the
# role's, and this skips validate.yml and the other roles that prepare.yml's tag selection still visits.
def roles_play(workdir: Path, name: str, *roles: str) -> Path:
    """A playbook of one play running `roles` on every lab host."""
    play = [{"name": name, "hosts": "scc_cluster", "gather_facts": True, "roles": [{"role": r} for r in roles]}]
    path = workdir / (name.replace(" ", "_") + ".yml")
    path.write_text(yaml.safe_dump(play, sort_keys=False))
    return path


def test_corrupted_wheel_on_shared_storage_is_refused_then_healed(lab, workdir, python_env_vars, chaos_figures):
    # A fresh venv: every host's pip needs the wheel.
    fresh = "/opt/scc-training/venv-chaos"
    extravars = dict(python_env_vars, python_env_venv_path=fresh)
    (shared_wheel,) = (lab.shared / "wheelhouse").rglob(WHEEL)
    original = shared_wheel.read_bytes()
    corrupted = bytearray(original)
    corrupted[len(corrupted) // 2] ^= 0xFF
    shared_wheel.write_bytes(bytes(corrupted))

    play = roles_play(workdir, "venv from the shared wheelhouse", "scc.training.python_env")
    healed = run_playbook(play, lab.inventory, workdir, extravars)
    recopied = [task for _host, task in changed(healed.events) if task.startswith("Copy the checked artifacts")]
    versions = [probe(lab, s.address, fresh) for s in lab.load()]
    recovered = (healed.status, healed.rc) == ("successful", 0) and shared_wheel.read_bytes() == original
    # Data lost: a host left without the pinned package once the wheel is restored.
    chaos_figures(
        faults_injected=1,
        runs=1,
        recovered=int(recovered),
        data_lost=sum(v != VERSION for v in versions),
        recopied=len(recopied),
        wheel=WHEEL,
    )
    assert (healed.status, healed.rc) == ("successful", 0), failed(healed.events)
    assert recopied, changed(healed.events)
    assert shared_wheel.read_bytes() == original
    assert set(versions) == {VERSION}, versions


@pytest.fixture
def tiny_results(tmp_path):
    """A 64 KiB tmpfs under the test's tmp: the results directory, unmounted afterwards."""
    where = tmp_path / "results"
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "chaos-results", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


def test_results_directory_full_fails_clearly_keeps_what_was_collected(lab, workdir, tiny_results, chaos_figures):
    # As verify.yml runs them: the GPUs judged (CPU-only in the lab), then the nodes.
    play = roles_play(workdir, "judge and collect", "scc.training.gpu_health", "scc.training.cluster_health")
    env = {"SCC_TRAINING_RESULTS_DIR": str(tiny_results)}
    first = run_playbook(play, lab.inventory, workdir, envvars=env)
    assert (first.status, first.rc) == ("successful", 0), failed(first.events)
    collected = {p.name: p.read_bytes() for p in tiny_results.iterdir()}
    assert set(collected) == {"gpu-health.json", "cluster-health.json"}, collected

    # Fill the rest of the filesystem.
    filler = tiny_results / "filler"
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC
    full = run_playbook(play, lab.inventory, workdir, envvars=env)
    assert full.status == "failed" and full.rc != 0
    messages = [msg for _host, _task, msg in failed(full.events)]
    assert messages and all("No space left on device" in m for m in messages), messages
    assert any(str(tiny_results) in m for m in messages), messages
    # Data lost: a result collected before the disk filled that is gone or changed.
    lost = sum(1 for name, data in collected.items() if (tiny_results / name).read_bytes() != data)

    filler.unlink()
    again = run_playbook(play, lab.inventory, workdir, envvars=env)
    recovered = (again.status, again.rc) == ("successful", 0)
    chaos_figures(faults_injected=1, runs=1, recovered=int(recovered), data_lost=lost, failure=messages[0][:300])
    assert lost == 0
    assert recovered, failed(again.events)
    judged = json.loads((tiny_results / "cluster-health.json").read_text())
    assert judged["judged_at"] != json.loads(collected["cluster-health.json"])["judged_at"]
