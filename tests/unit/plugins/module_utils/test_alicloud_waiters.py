"""The states a cloud wait went through (plugins/module_utils/_alicloud_waiters.py), on a fake clock: what each poll
read, kept where it changed, timed from the wait's start; a timeout keeps what was read until then. Then what the
cloud modules' action (plugins/plugin_utils/cloud_wait.py) makes of them while the module runs: the progress file
the module rewrites, the lines of each poll, the background job's limit."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.scc.training.plugins.module_utils._alicloud_waiters import (
    WaitHistory,
    job_limit_s,
    state_of,
    wait_for,
    wait_lines,
    write_waits,
)


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
        "ready": True,
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
    assert history.view()["ready"] is False


def _view(what, states, seconds, ready=False):
    """A wait as WaitHistory.view() shows it: ``states`` as (state, after_s)."""
    return {
        "what": what,
        "polls": len(states),
        "seconds": seconds,
        "ready": ready,
        "states": [{"state": state, "after_s": after} for state, after in states],
    }


def test_each_poll_shows_the_new_states_then_the_current_one_then_the_end_once():
    shown = {}
    label = "ecs_instance"
    what = "instances scc-node"
    first = [_view(what, [("not listed", 0.0), ("Pending 2", 0.8)], 1.6)]
    assert wait_lines(label, first, shown, ended=False) == [
        "ecs_instance: instances scc-node: not listed -> Pending 2, 2s elapsed"
    ]
    # Nothing new: the state it is still in.
    same = [_view(what, [("not listed", 0.0), ("Pending 2", 0.8)], 16.0)]
    assert wait_lines(label, same, shown, ended=False) == ["ecs_instance: instances scc-node: Pending 2, 16s elapsed"]
    # New states follow the last one shown; the wait got there: its end.
    done = [
        _view(what, [("not listed", 0.0), ("Pending 2", 0.8), ("Starting 2", 20.1), ("Running 2", 34.2)], 34.2, True)
    ]
    assert wait_lines(label, done, shown, ended=False) == [
        "ecs_instance: instances scc-node: Pending 2 -> Starting 2 -> Running 2, ready after 34s"
    ]
    # Its end is shown once, also when the module's result repeats it.
    assert wait_lines(label, done, shown, ended=True) == []


def test_a_later_wait_gets_its_own_lines_and_a_timeout_is_no_ready():
    shown = {}
    service = _view("protocol service ps-1", [("Creating", 0.0)], 30.0)
    assert wait_lines("nas_cpfs_protocol_service", [service], shown, ended=False) == [
        "nas_cpfs_protocol_service: protocol service ps-1: Creating, 30s elapsed"
    ]
    # Between two polls the service came up and the export's wait began.
    service_up = _view("protocol service ps-1", [("Creating", 0.0), ("Running", 41.0)], 41.0, True)
    export = _view("export ex-1", [("Creating", 0.0)], 5.0)
    assert wait_lines("nas_cpfs_protocol_service", [service_up, export], shown, ended=False) == [
        "nas_cpfs_protocol_service: protocol service ps-1: Creating -> Running, ready after 41s",
        "nas_cpfs_protocol_service: export ex-1: Creating, 5s elapsed",
    ]
    # The module ended (here: its wait_timeout passed) with the export never ready.
    stuck = _view("export ex-1", [("Creating", 0.0)], 1800.0)
    assert wait_lines("nas_cpfs_protocol_service", [service_up, stuck], shown, ended=True) == [
        "nas_cpfs_protocol_service: export ex-1: Creating, stopped waiting after 30m00s"
    ]


def test_no_wait_or_a_module_that_ended_before_the_first_poll_shows_no_line():
    assert wait_lines("nas_cpfs", [], {}, ended=False) == []
    assert wait_lines("nas_cpfs", [], {}, ended=True) == []
    quick = [_view("mount target m-1", [("Pending", 0.0), ("Active", 0.4)], 0.4, True)]
    assert wait_lines("nas_cpfs_mount_target", quick, {}, ended=True) == []
    # A wait read before its first poll came back lists no state yet.
    assert wait_lines("nas_cpfs", [_view("CPFS file system cpfs-1", [], 0.0)], {}, ended=False) == []


def test_the_progress_file_is_replaced_whole_and_private(tmp_path):
    path = tmp_path / "async" / "waits.json"
    views = [_view("CPFS file system cpfs-1", [("Pending", 0.0)], 3.0)]
    write_waits(str(path), views)
    write_waits(str(path), views + views)
    assert json.loads(path.read_text()) == {"waits": views + views}
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert oct(path.parent.stat().st_mode & 0o777) == "0o700"  # the directory it made: the user's alone
    assert sorted(os.listdir(path.parent)) == ["waits.json"]


def test_the_background_jobs_limit_covers_its_waits_and_api_retries():
    # Two waits of wait_timeout, the listing and dependency retries, a margin for the API calls.
    assert job_limit_s(1200, 60, 600) == 2 * 1200 + 60 + 600 + 300
    # Unset or not a number (as a task may give it): the longest defaults.
    assert job_limit_s(None) == 2 * 3600 + 60 + 600 + 300
    assert job_limit_s("900", "30", None) == 2 * 900 + 30 + 600 + 300


def test_a_wait_with_default_intervals_polls_after_a_quarter_second_doubling_up_to_fifteen():
    clock, sleeps = _Clock(), []

    def sleep(seconds):
        sleeps.append(seconds)
        clock.sleep(seconds)

    values = iter(range(9))
    assert wait_for(lambda: next(values), lambda v: v == 8, 100, sleep=sleep, clock=clock) == 8
    assert sleeps == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 15.0]


def test_a_history_before_its_first_poll_and_its_times_to_a_tenth():
    history = WaitHistory("vpc v-1")
    assert history.view() == {"what": "vpc v-1", "polls": 0, "seconds": 0.0, "ready": False, "states": []}
    history.record({"Status": "Pending"}, 2.34)
    assert history.view()["ready"] is False
    history.record({"Status": "Available"}, 7.86, ready=True)
    assert history.view() == {
        "what": "vpc v-1",
        "polls": 2,
        "seconds": 7.9,
        "ready": True,
        "states": [{"state": "Pending", "after_s": 2.3}, {"state": "Available", "after_s": 7.9}],
    }


def test_an_earlier_wait_is_over_once_a_later_one_began_and_a_wait_without_seconds_is_at_0s():
    shown = {}
    mounts = {"what": "mount targets", "states": [{"state": "Deleting 1", "after_s": 0.0}], "seconds": 12.0}
    itself = {"what": "CPFS file system cpfs-1", "states": [{"state": "Running", "after_s": 0.0}]}
    assert wait_lines("nas_cpfs", [mounts, itself], shown, ended=False) == [
        "nas_cpfs: mount targets: Deleting 1, stopped waiting after 12s",
        "nas_cpfs: CPFS file system cpfs-1: Running, 0s elapsed",
    ]


def test_a_limit_of_zero_seconds_is_zero_not_the_default():
    assert job_limit_s(0, 0, 0) == 300  # the API margin alone
    assert job_limit_s(-5, "-1", 0) == 300


def test_a_wait_never_asks_to_sleep_a_negative_time():
    # A clock that moves on between the deadline check and the sleep (a loaded machine): time.sleep(-x) raises.
    ticks, sleeps = iter(range(100)), []
    with pytest.raises(TimeoutError, match=r"still not ready after 1\.5s"):
        wait_for(lambda: None, lambda v: False, 1.5, sleep=sleeps.append, clock=lambda: next(ticks))
    assert sleeps and min(sleeps) >= 0, sleeps


def test_unset_or_bad_timeouts_take_the_defaults():
    assert job_limit_s(100, None, None) == 2 * 100 + 60 + 600 + 300
    assert job_limit_s("x", "y", "z") == 2 * 3600 + 60 + 600 + 300


def test_the_last_sleep_ends_at_the_deadline_not_after_it():
    clock, sleeps = _Clock(), []

    def sleep(seconds):
        sleeps.append(seconds)
        clock.sleep(seconds)

    with pytest.raises(TimeoutError):
        wait_for(lambda: None, lambda v: False, 0.6, sleep=sleep, clock=clock)
    assert sleeps == [0.25, pytest.approx(0.35)]


def test_a_progress_file_that_cannot_be_written_leaves_no_partial_file(tmp_path):
    path = tmp_path / "waits.json"
    with pytest.raises(TypeError):
        write_waits(str(path), [{"what": object()}])
    assert os.listdir(tmp_path) == []
