"""Chaos on the cloud API: provision.yml against the offline emulator (lab/cloud) while it throttles,
answers 5xx, drops replies (before and after the action took effect) and lists new resources only
after a lag (eventual consistency). No lab hosts: the instances are never contacted.

Asserted: the run converges (a user's re-run, if the faults outlast the retries, is counted), the
cloud then holds exactly one of each resource (zero duplicates), a fault-free re-run changes nothing,
and the schedule really injected faults of every kind."""

from __future__ import annotations

from lab.cloud.faults import RandomFaults
from lab.cloud.store import Timings
from lab.cloud.testing import emulator
from tests.cloud_helpers import cloud_vars, playbook_env, recap, run_playbook

NAME = "chaos"
TAGS = {"managed-by": "scc.training", "scc-cluster": NAME}
# Transient kinds only: each is retried by the client (or, for a drop after the action, found again by
# its ClientToken or by listing); a permanent error is test_cloud_playbooks.py's midway failure.
KINDS = ("throttling", "unavailable", "internal", "drop_before", "drop_after")
# A new resource stays out of every Describe* listing this long after its create returned.
LISTING_LAG = 0.5
TIMINGS = Timings(
    vpc=0.02, instance_pending=0.05, instance_starting=0.05, file_system=0.1, mount_target=0.05, listing_lag=LISTING_LAG
)
EXPECTED = {
    "vpcs": 1,
    "vswitches": 1,
    "security_groups": 1,
    "hpc_clusters": 1,
    "instances": 2,
    "file_systems": 1,
    "mount_targets": 1,
}
# A user re-runs a failed provision.yml; more than this many runs is not converging.
MAX_RUNS = 3


def counts(emu):
    return {table: len(getattr(emu.store, table)) for table in EXPECTED}


def test_provision_converges_through_api_faults_without_duplicates(tmp_path, chaos_figures):
    with emulator(timings=TIMINGS) as emu:
        vars_file = tmp_path / "cloud.yml"
        cloud_vars(
            emu,
            vars_file,
            scc_cloud_name=NAME,
            scc_cloud_instance_type="ecs.sccgn6.24xlarge",  # the example is ebmgn8v (UEFI images only)
            scc_cloud_image_id="m-scc",
            scc_cloud_tags=TAGS,
            # The mount-target path: CreateMountTarget has no ClientToken, so a dropped reply is listed first.
            scc_cloud_cpfs_protocol="cpfs",
        )
        env = playbook_env(emu)
        # The listing lag must stay under the deadline a ClientToken is kept for.
        env["SCC_ALICLOUD_LISTING_TIMEOUT"] = "3"
        # The replies lost after the action took effect, where a duplicate would come from.
        for action in ("CreateVpc", "RunInstances", "CreateFileSystem", "CreateMountTarget"):
            emu.faults.add("drop_after", action=action)
        emu.set_random_faults(RandomFaults(seed=14, rate=0.25, kinds=KINDS, delay=0.02))

        outputs, runs = [], 0
        while runs < MAX_RUNS:
            runs += 1
            rc, out = run_playbook(env, "provision.yml", vars_file)
            outputs.append(out)
            if rc == 0:
                break
        emu.set_random_faults(None)
        injected = dict(emu.faults.injected)
        made = counts(emu)
        # A fault-free re-run: converged means it changes nothing and makes nothing.
        rerun_rc, rerun_out = run_playbook(env, "provision.yml", vars_file)
        # Data lost here: a duplicate resource (the cloud's money) or one missing.
        duplicates = sum(max(0, made[t] - n) for t, n in EXPECTED.items())
        missing = sum(max(0, n - made[t]) for t, n in EXPECTED.items())
        converged = rc == 0 and rerun_rc == 0 and recap(rerun_out)["changed"] == 0 and counts(emu) == EXPECTED
        chaos_figures(
            faults_injected=emu.faults_injected,
            runs=1,
            recovered=int(converged),
            data_lost=duplicates + missing,
            faults_by_kind=injected,
            provision_runs=runs,
            listing_lag_s=LISTING_LAG,
            duplicates=duplicates,
        )
        assert rc == 0, outputs[-1][-4000:]
        assert made == EXPECTED, made
        for kind in KINDS:
            assert injected.get(kind, 0) > 0, (kind, injected)
        assert emu.internal_errors == []
        assert rerun_rc == 0 and recap(rerun_out)["changed"] == 0, rerun_out[-3000:]
        assert counts(emu) == EXPECTED
