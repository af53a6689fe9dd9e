"""The client against the emulator with eventual consistency (Describe* lags a create) and faults:
no duplicate from a create however its replies are lost, a create without ClientToken not repeated
after a lost reply, and a clear error when the cloud has no stock."""

import contextlib
import dataclasses
import time

import pytest

from ansible_collections.scc.training.plugins.module_utils import _alicloud as ali
from lab.cloud import Timings
from lab.cloud.faults import ERRORS, RandomFaults
from lab.cloud.testing import client, emulator, network
from tests.cloud_helpers import REGION, ZONE, run_module

LAG = 0.02  # seconds Describe* lags a create here (real life: seconds)
# Where a test needs the lag to still last when the next call arrives, even on a loaded 2-core machine.
LONG_LAG = 0.5
QUICK = Timings(instance_pending=0, instance_starting=0, file_system=0, mount_target=0)


def api_for(emu, retries=12, listing_timeout=ali.LISTING_TIMEOUT):
    """An AlicloudApi aimed at ``emu`` whose pauses are short (tests: milliseconds, not seconds)."""
    return ali.AlicloudApi(
        emu.access_key_id,
        emu.access_key_secret,
        REGION,
        ecs_endpoint=emu.endpoint,
        nas_endpoint=emu.endpoint,
        vpc_endpoint=emu.endpoint,
        api_retries=retries,
        sleep=lambda seconds: time.sleep(min(seconds, 0.01)),
        listing_timeout=listing_timeout,
    )


def calls(emu, action):
    return sum(1 for c in emu.calls if c["action"] == action)


def create_instances(emu, net, api, runs):
    """``runs`` creates of one instance each (names run-000...): the ids they returned."""
    made = []
    for run in range(runs):
        params = {
            "InstanceType": "ecs.g6.large",
            "ImageId": "m-debian12",
            "VSwitchId": net["vsw"],
            "SecurityGroupId": net["sg"],
            "InstanceName": "run-%03d" % run,
            "Amount": 1,
        }
        ids, _reply = api.create(
            "ecs",
            "RunInstances",
            params,
            "InstanceIdSets.InstanceIdSet",
            lambda i: bool(ali.find_all(api, ali.INSTANCE, resource_id=i)),
        )
        made.extend(ids)
    return made


def test_a_hundred_creates_with_lag_and_faults_make_no_duplicate():
    with emulator(timings=Timings(instance_pending=0, instance_starting=0, listing_lag=LAG)) as emu:
        net = network(client(emu, auto_retry=False))
        # Every fault that fails or loses a reply, on every action (a reply dropped after RunInstances
        # was applied included); "slow" would only cost time.
        emu.faults.random = RandomFaults(seed=14, rate=0.2, kinds=(*ERRORS, "drop_before", "drop_after"))
        made = create_instances(emu, net, api_for(emu), 100)
        instances = emu.instances()
        assert len(instances) == 100 and sorted(i["InstanceId"] for i in instances) == sorted(made)
        assert sorted(i["InstanceName"] for i in instances) == ["run-%03d" % n for n in range(100)]
        # The faults did happen: lost replies were retried. (How many creates met the lag depends on the
        # machine's speed; that the lag alone makes duplicates without the wait is the next test.)
        assert emu.faults.injected["drop_after"] > 0 and calls(emu, "RunInstances") > 100


def test_moving_to_a_new_token_while_the_lag_lasts_makes_duplicates():
    """The test above can fail: without the wait (the old create), the lag alone makes duplicates,
    up to one instance per token generation (issue 14: one call made 8 RunInstances)."""
    with emulator(timings=Timings(instance_pending=0, instance_starting=0, listing_lag=LONG_LAG)) as emu:
        net = network(client(emu, auto_retry=False))
        with contextlib.suppress(ali.AlicloudApiError):  # ClientTokenExhausted, when all 8 ran within the lag
            create_instances(emu, net, api_for(emu, listing_timeout=0), 1)
        assert len(emu.instances()) > 1


def test_describe_lags_a_create_by_the_configured_time():
    with emulator(timings=Timings(listing_lag=LONG_LAG)) as emu:
        api = api_for(emu)
        vpc_id = api.call("vpc", "CreateVpc", {"CidrBlock": "10.0.0.0/16", "VpcName": "scc"})["VpcId"]
        assert ali.find_all(api, ali.VPC) == []  # not listed yet
        time.sleep(LONG_LAG)
        assert [v["VpcId"] for v in ali.find_all(api, ali.VPC)] == [vpc_id]


def cpfs(emu, net):
    params = {
        "FileSystemType": "cpfs",
        "ProtocolType": "cpfs",
        "StorageType": "advance_100",
        "Capacity": 3600,
        "ZoneId": ZONE,
        "VpcId": net["vpc"],
        "VSwitchId": net["vsw"],
    }
    return api_for(emu).call("nas", "CreateFileSystem", params)["FileSystemId"]


# Longer than the backoff before the retry (at most 0.5 s), shorter than run_module's listing_timeout (1 s).
@pytest.mark.parametrize("lag", [0, 0.7], ids=["listed-at-once", "listing-lags"])
@pytest.mark.parametrize("fault", ["drop_after", "drop_before"])
def test_a_mount_target_is_made_once_when_its_reply_is_lost(fault, lag):
    # With a lag the listing is read until the mount target shows (make chaos found a second one made).
    with emulator(timings=dataclasses.replace(QUICK, listing_lag=lag)) as emu:
        net = network(client(emu, auto_retry=False))
        fs_id = cpfs(emu, net)
        emu.inject(fault, action="CreateMountTarget")
        args = dict(file_system_id=fs_id, vpc_id=net["vpc"], vswitch_id=net["vsw"], security_group_id=net["sg"])
        result = run_module(emu, "nas_cpfs_mount_target", **args)
        assert not result.get("failed"), result
        assert result["changed"] and len(emu.mount_targets()) == 1
        # drop_after: the create was applied, the listing found it, no second CreateMountTarget.
        assert calls(emu, "CreateMountTarget") == (1 if fault == "drop_after" else 2)


def test_no_stock_names_the_instance_type_and_the_zone():
    with emulator(timings=QUICK) as emu:
        net = network(client(emu, auto_retry=False))
        emu.set_stock("ecs.g6.large", 1)
        wanted = dict(name="bert", count=2, instance_type="ecs.g6.large", image_id="m-debian12")
        result = run_module(emu, "ecs_instance", vswitch_id=net["vsw"], security_group_id=net["sg"], **wanted)
        assert result["failed"] and result["error"]["code"] == "OperationDenied.NoStock"
        assert "no stock of 2 more ecs.g6.large in zone %s" % ZONE in result["msg"]
        assert "instance_type" in result["msg"] and emu.instances() == []


def test_a_wait_returns_the_states_the_api_reported_on_the_way():
    # A module cannot print while it waits: its result says what each poll saw (state changes only) and when.
    timings = dataclasses.replace(QUICK, instance_pending=0.6, instance_starting=0.6)
    with emulator(timings=timings) as emu:
        net = network(client(emu, auto_retry=False))
        wanted = dict(name="bert", count=2, instance_type="ecs.g6.large", image_id="m-debian12")
        result = run_module(emu, "ecs_instance", vswitch_id=net["vsw"], security_group_id=net["sg"], **wanted)
        assert not result.get("failed"), result
        (waited,) = result["waits"]
        assert waited["what"] == "instances bert"
        states = [s["state"] for s in waited["states"]]
        assert states[0] == "Pending 2" and states[-1] == "Running 2", waited
        assert "Starting 2" in states, waited
        # One entry per change, in order, timed from the wait's start.
        assert len(set(states)) == len(states)
        times = [s["after_s"] for s in waited["states"]]
        assert times == sorted(times) and times[-1] >= 1.0 and waited["seconds"] >= times[-1]
        assert waited["polls"] >= len(states)
        # Converged: one poll finds them running.
        again = run_module(emu, "ecs_instance", vswitch_id=net["vsw"], security_group_id=net["sg"], **wanted)
        assert not again["changed"] and [s["state"] for s in again["waits"][0]["states"]] == ["Running 2"], again
        assert again["waits"][0]["polls"] == 1
