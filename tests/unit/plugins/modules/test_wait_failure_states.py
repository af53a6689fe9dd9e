"""A wait for a state a resource will not reach ends at once on a failure state the API documents (DescribeProtocol-
Service "Status": Creating, Starting, Running, Updating, Deleting, Stopping, Stopped; tests/unit/plugins/module_utils/
test_api_state_names.py holds the names to the model), not at ``wait_timeout``."""

from __future__ import annotations

import time

from lab.cloud import nas
from lab.cloud.store import Timings
from lab.cloud.testing import client, network
from tests.cloud_helpers import ZONE, module_emulator, run_module

emu = module_emulator(Timings(vpc=0, file_system=0, mount_target=0, protocol_service=0.05))


def test_a_protocol_service_that_stops_fails_the_wait_at_once(emu, monkeypatch):
    net = network(client(emu), cluster=False)
    fs = run_module(
        emu, "nas_cpfs", name="t-stop", zone_id=ZONE, vpc_id=net["vpc"], vswitch_id=net["vsw"],
        storage_type="advance_100", capacity=3600, tags={"test": "stop"},
    )["file_system"]["file_system_id"]  # fmt: skip
    real = nas._add_part

    def stopping(s, ctx, fs, table, key, fields, *timeline):
        if table == "protocol_services":  # it never comes up: Creating -> Stopped
            timeline = ((0, "Creating"), (0.05, "Stopped"))
        return real(s, ctx, fs, table, key, fields, *timeline)

    monkeypatch.setattr(nas, "_add_part", stopping)
    started = time.monotonic()
    result = run_module(
        emu, "nas_cpfs_protocol_service", file_system_id=fs, vpc_id=net["vpc"], vswitch_id=net["vsw"], wait_timeout=60
    )
    assert result["failed"] and "is Stopped, not Running" in result["msg"], result
    assert time.monotonic() - started < 30  # not the 60 s wait_timeout
