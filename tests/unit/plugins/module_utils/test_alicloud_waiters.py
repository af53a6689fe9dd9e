"""The states a cloud wait went through (plugins/module_utils/_alicloud_waiters.py), on a fake clock: what each poll
read, kept where it changed, timed from the wait's start; a timeout keeps what was read until then."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils._alicloud_waiters import WaitHistory, state_of, wait_for


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_the_state_is_the_apis_status_or_the_counts_of_a_list():
    assert state_of({"Status": "Starting", "InstanceId": "i-1"}) == "Starting"
    assert state_of({"state": "running"}) == "running"
    assert state_of({"InstanceId": "i-1"}) == "listed"
    assert state_of(None) == "not listed"
    assert state_of([{"Status": "Running"}, {"Status": "Starting"}, {"Status": "Running"}]) == "Running 2, Starting 1"
    assert state_of([]) == "none"


def test_a_wait_keeps_each_change_of_state_with_the_seconds_into_it():
    clock = _Clock()
    reads = iter([None, {"Status": "Pending"}, {"Status": "Pending"}, {"Status": "Starting"}, {"Status": "Running"}])
    history = WaitHistory("ecs_instance i-1")
    found = wait_for(
        lambda: next(reads),
        lambda value: value and value["Status"] == "Running",
        60,
        interval=1.0,
        sleep=clock.sleep,
        clock=clock,
        on_poll=history.record,
    )
    assert found == {"Status": "Running"}
    assert history.view() == {
        "what": "ecs_instance i-1",
        "polls": 5,
        "seconds": 15.0,
        "states": [
            {"state": "not listed", "after_s": 0.0},
            {"state": "Pending", "after_s": 1.0},
            {"state": "Starting", "after_s": 7.0},
            {"state": "Running", "after_s": 15.0},
        ],
    }


def test_a_timeout_keeps_the_states_read_until_then():
    clock = _Clock()
    history = WaitHistory("nas_cpfs cpfs-1")
    with pytest.raises(TimeoutError):
        wait_for(
            lambda: {"Status": "Pending"},
            lambda value: False,
            10,
            interval=4.0,
            sleep=clock.sleep,
            clock=clock,
            on_poll=history.record,
        )
    assert history.view()["states"] == [{"state": "Pending", "after_s": 0.0}]
    assert history.view()["polls"] == 3 and history.view()["seconds"] == 10.0
