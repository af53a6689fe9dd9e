"""provision.yml and teardown.yml in check mode against the emulator (lab/cloud, which records every request it
receives): bad scc_cloud_* variables are refused, each named with its value, before any request reaches the API;
the same vars file made good reaches it (so the count of requests is the proof, not an accident of the setup).
One playbook run judges many bad variables at once (cloud_inputs.problems reports each)."""

from __future__ import annotations

import pytest

from lab.cloud.testing import emulator
from tests.cloud_helpers import cloud_vars, playbook_env, run_playbook

# Values the argument spec's types accept, each breaking one documented rule of cloud_inputs.py.
BAD = {
    "scc_cloud_zone": "cn-beijing-a",
    "scc_cloud_vswitch_cidr": "192.168.0.1/24",
    "scc_cloud_instance_type": "ecs.ebmgn8v.8xlarge",
    "scc_cloud_instance_count": 2001,
    "scc_cloud_cpfs_capacity": 4000,
    "scc_cloud_cpfs_nfs_export_path": "share",
    "scc_cloud_key_pair_name": "1key",
    "scc_cloud_tags": {"managed-by": "scc.training", "acs:x": "y"},
    "scc_cloud_ssh_source_cidr": "0.0.0.0/0",
}


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("provision-refusals")
    with emulator() as emu:
        yield emu, tmp, playbook_env(emu)


def test_bad_variables_are_refused_in_check_mode_before_any_request(cloud):
    emu, tmp, env = cloud
    bad = tmp / "bad.yml"
    cloud_vars(emu, bad, **BAD)
    mark = len(emu.calls)
    rc, out = run_playbook(env, "provision.yml", bad, "--check")
    assert rc != 0, out[-3000:]
    flat = " ".join(out.split())
    for variable in BAD:
        assert variable + " (" in flat, (variable, out[-4000:])
    assert '"cn-beijing-a"' in flat and '"ecs.ebmgn8v.8xlarge"' in flat and "(4000)" in flat
    assert emu.calls[mark:] == []

    # A type the spec refuses (a word for a count) is named by the spec, also before any request.
    rc, out = run_playbook(env, "provision.yml", bad, "--check", "-e", "scc_cloud_instance_count=two")
    assert rc != 0 and "scc_cloud_instance_count" in out, out[-3000:]
    assert emu.calls[mark:] == []

    teardown = tmp / "teardown.yml"
    cloud_vars(emu, teardown, scc_cloud_name="Bert", scc_cloud_region="cn shanghai")
    rc, out = run_playbook(env, "teardown.yml", teardown, "--check")
    flat = " ".join(out.split())
    assert rc != 0 and 'scc_cloud_name ("Bert")' in flat and 'scc_cloud_region ("cn shanghai")' in flat, out[-3000:]
    assert emu.calls[mark:] == []


def test_the_same_vars_file_made_good_reaches_the_emulator(cloud):
    emu, tmp, env = cloud
    good = tmp / "good.yml"
    cloud_vars(emu, good)
    mark = len(emu.calls)
    rc, out = run_playbook(env, "provision.yml", good, "--check")
    assert rc == 0, out[-3000:]
    assert len(emu.calls) > mark  # the check run asked the API what exists
    assert all(not c["action"].startswith(("Create", "Run", "Delete")) for c in emu.calls[mark:])
