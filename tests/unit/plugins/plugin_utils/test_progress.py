"""The waiting loop the collection's actions share (plugins/plugin_utils/progress.py) and the cloud modules' action
(plugins/plugin_utils/cloud_wait.py), on a fake clock: no test sleeps, and none depends on how fast the machine is.

STAND-INS, named as such: ``FakeClock`` replaces ``time`` in progress.py (``sleep`` advances it, ``monotonic`` reads
it); ``FakeAction`` is an action plugin whose ``_execute_module`` answers async_status from a script of statuses and
records every module it was asked to run (slurp of the progress file, file absent, the background start). The real
runs of these actions through ansible-runner: tests/unit/plugins/action/test_cloud_wait.py, test_pip_install_wait.py.
"""

from __future__ import annotations

import base64
import json

import pytest

from ansible_collections.scc.training.plugins.plugin_utils import cloud_wait, progress


class FakeClock:
    """STAND-IN for the ``time`` module progress.py uses: time passes only when the loop sleeps."""

    def __init__(self):
        self.now, self.sleeps = 1000.0, []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


class FakeTask:
    def __init__(self, args=None, action="scc.training.nas_cpfs", poll=None, async_val=0, check_mode=False):
        self.args, self.action, self.poll, self.async_val = dict(args or {}), action, poll, async_val
        self.check_mode, self.no_log = check_mode, True  # no_log: no line is printed (the result keeps them)


class FakeAction:
    """STAND-IN for an action plugin: async_status answers ``statuses`` in turn (the last one again and again)."""

    def __init__(self, statuses, task=None, waits=None):
        self._task = task or FakeTask()
        self.statuses, self.calls, self.waits = list(statuses), [], waits

    def _remote_expand_user(self, path):
        return path.replace("~", "/home/u")

    def get_shell_option(self, name, default=None):
        return default

    def _execute_module(self, module_name=None, module_args=None, task_vars=None, wrap_async=False):
        self.calls.append((module_name, dict(module_args or {}), wrap_async, self._task.async_val))
        if module_name == "ansible.legacy.async_status":
            if module_args["mode"] == "cleanup":
                return {}
            return dict(self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0])
        if module_name == "ansible.legacy.slurp":
            if self.waits is None:
                return {"failed": True, "msg": "file not found"}
            return {"content": base64.b64encode(json.dumps({"waits": self.waits}).encode()).decode()}
        if module_name == self._task.action:
            return {"ansible_job_id": "j1", "started": 1, "finished": 0}
        return {}

    def modules(self, name):
        return [call for call in self.calls if call[0] == name]


@pytest.fixture(name="clock")
def _clock(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(progress, "time", clock)
    return clock


RUNNING = {"started": 1, "finished": 0, "ansible_job_id": "j1"}
DONE = {"started": 1, "finished": 1, "ansible_job_id": "j1", "rc": 0, "stdout": "ok", "results_file": "/r"}


def test_a_wait_polls_until_the_job_ends_with_a_line_per_poll_and_cleans_up(clock):
    action = FakeAction([RUNNING, RUNNING, DONE])
    seen = []

    def line_of(status, waited):
        seen.append(waited)
        return "poll at %ds" % waited

    status, polls, lines = progress.wait(action, "j1", {}, 5, 100, line_of, cleanup=True, first_poll_s=2)
    assert status["finished"] == 1 and polls == 3
    assert lines == ["poll at 2s", "poll at 7s", "poll at 12s"] and seen == [2, 7, 12]
    assert clock.sleeps == [2, 5, 5]
    modes = [call[1]["mode"] for call in action.modules("ansible.legacy.async_status")]
    assert modes == ["status", "status", "status", "cleanup"]
    assert action.modules("ansible.legacy.async_status")[0][1]["_async_dir"] == "/home/u/.ansible_async"


def test_a_wait_cut_off_by_its_time_limit_returns_the_unfinished_status_without_cleanup(clock):
    action = FakeAction([RUNNING])
    status, polls, lines = progress.wait(action, "j1", {}, 10, 35, lambda s, w: None, cleanup=True)
    # Polls at 0, 10, 20, 30 s: one more (40 s) would pass the limit.
    assert not status["finished"] and polls == 4 and lines == []
    assert clock.sleeps == [0, 10, 10, 10]
    assert [call[1]["mode"] for call in action.modules("ansible.legacy.async_status")] == ["status"] * 4


def test_a_wait_that_ends_at_its_limit_exactly_polls_there_once_more(clock):
    action = FakeAction([RUNNING, RUNNING, DONE])
    status, polls, _lines = progress.wait(action, "j1", {}, 10, 20, lambda s, w: None)
    assert status["finished"] and polls == 3 and clock.now == 1020
    # Without cleanup the job's status file stays (the caller removes it).
    assert [call[1]["mode"] for call in action.modules("ansible.legacy.async_status")] == ["status"] * 3


def test_a_backed_off_wait_doubles_its_interval_up_to_the_poll(clock):
    action = FakeAction([RUNNING] * 6 + [DONE])
    _status, polls, _lines = progress.wait(action, "j1", {}, 6, 1000, lambda s, w: None, first_poll_s=1, backoff=True)
    assert polls == 7 and clock.sleeps == [1, 1, 2, 4, 6, 6, 6]


def test_a_line_function_may_give_several_lines_and_only_the_last_50_are_kept(clock):
    action = FakeAction([RUNNING] * 60 + [DONE])
    _status, polls, lines = progress.wait(action, "j1", {}, 1, 10**6, lambda s, w: ["a%d" % w, "b%d" % w])
    assert polls == 61
    assert lines == [x % w for w in range(36, 61) for x in ("a%d", "b%d")]


@pytest.mark.parametrize("wanted", [True, False])
def test_the_lines_are_displayed_once_each_only_where_wanted(monkeypatch, clock, wanted):
    shown = []
    monkeypatch.setattr(progress, "display_wanted", lambda task: wanted)
    monkeypatch.setattr(progress.display, "display", shown.append)
    action = FakeAction([RUNNING, DONE])
    _status, _polls, lines = progress.wait(action, "j1", {}, 1, 100, lambda s, w: "at %ds" % w)
    assert lines == ["at 0s", "at 1s"] and shown == (lines if wanted else [])


def test_backoff_starts_at_a_second_at_least():
    assert [progress.backoff_interval(n, 30, 0) for n in (1, 2, 3)] == [1, 2, 4]
    assert [progress.backoff_interval(n, 30, 3) for n in (1, 2, 3, 4)] == [3, 6, 12, 24]
    assert progress.backoff_interval(40, 30, 1) == 30
    # The doubling stops at 2**16 (about 18 h from 1 s): no huge integers after thousands of polls.
    assert [progress.backoff_interval(n, 10**6, 1) for n in (16, 17, 18, 5000)] == [2**15, 2**16, 2**16, 2**16]


def test_start_runs_the_module_in_the_background_under_the_limit_and_restores_the_tasks_async():
    action = FakeAction([DONE])
    started = progress.start(action, "scc.training.nas_cpfs", {"a": 1}, {}, 900)
    assert started["ansible_job_id"] == "j1"
    assert action.calls[-1] == ("scc.training.nas_cpfs", {"a": 1}, True, 900)
    assert action._task.async_val == 0


def test_ended_keeps_the_jobs_own_keys_and_changes_nothing():
    result = progress.ended(dict(DONE, cmd="secret argv"), 3, ["l"], "j1")
    assert result == {
        "rc": 0,
        "stdout": "ok",
        "changed": False,
        "finished": True,
        "polls": 3,
        "progress_lines": ["l"],
        "ansible_job_id": "j1",
    }
    assert progress.ended(RUNNING, 1, [], "j1")["finished"] is False


def _cloud_action(statuses, args=None, waits=None, **task):
    action = object.__new__(cloud_wait.CloudWaitAction)  # no connection, loader or templar: only what run() uses
    fake = FakeAction(statuses, FakeTask(dict({"name": "c1"}, **(args or {})), **task), waits)
    for name in ("_execute_module", "_remote_expand_user", "get_shell_option"):
        setattr(action, name, getattr(fake, name))
    action._task = fake._task
    action._run_action_base = lambda tmp, task_vars: {"base": True}
    return action, fake


def test_a_cloud_wait_cut_off_by_its_time_limit_fails_and_removes_its_progress_file(clock):
    action, fake = _cloud_action([RUNNING], args={"wait_timeout": 100, "listing_timeout": 10}, poll=30)
    result = action.run(task_vars={})
    limit = 2 * 100 + 10 + 600 + 300
    assert result["failed"] is True
    assert result["msg"] == "nas_cpfs did not end within %d s (its waits and API calls)" % limit
    assert fake.calls[0][2:] == (True, limit)  # started in the background, ended by the wrapper after the limit
    path = fake.calls[0][1]["progress_file"]
    assert path.startswith("/home/u/.ansible_async/scc_training_waits.") and path.endswith(".json")
    assert fake.modules("ansible.legacy.file") == [("ansible.legacy.file", {"path": path, "state": "absent"}, False, 0)]
    # Polled until the limit passed (the module's own wait_timeout ends it first), not a poll more.
    assert limit <= clock.now - 1000 <= limit + 30 and result["polls"] >= 2
    assert "started" not in result and "ansible_job_id" not in result and result["base"] is True


def test_a_cloud_wait_that_ends_returns_the_modules_result_and_its_lines(clock):
    waits = [{"what": "CPFS file system cpfs-1", "polls": 1, "seconds": 1.0, "ready": False, "states": []}]
    waits[0]["states"] = [{"state": "Pending", "after_s": 0.0}]
    done = dict(DONE, changed=True, waits=[dict(waits[0], ready=True, seconds=9.0)])
    done["waits"][0]["states"] = waits[0]["states"] + [{"state": "Running", "after_s": 9.0}]
    action, fake = _cloud_action([RUNNING, done], poll=5, waits=waits)
    result = action.run(task_vars={})
    assert "failed" not in result and result["changed"] is True and result["rc"] == 0
    assert result["polls"] == 2 and "finished" not in result and "results_file" not in result
    assert result["progress_lines"] == [
        "nas_cpfs: CPFS file system cpfs-1: Pending, 1s elapsed",
        "nas_cpfs: CPFS file system cpfs-1: Pending -> Running, ready after 9s",
    ]
    assert fake.modules("ansible.legacy.file") == []
    # The job's status file is removed once it ended.
    assert [call[1]["mode"] for call in fake.modules("ansible.legacy.async_status")][-1] == "cleanup"
    assert clock.sleeps == [1, 1]  # a second before the first poll: a converged run shows no line


@pytest.mark.parametrize(
    "args, task",
    [
        ({"wait": "false"}, {}),
        ({"wait": False}, {}),
        ({"wait": "no"}, {}),
        ({"wait": "sometimes"}, {}),  # not a boolean: the module's own argument check refuses it, by name
        ({}, {"check_mode": True}),
        ({}, {"async_val": 60}),
    ],
)
def test_a_cloud_task_that_cannot_wait_runs_as_a_plain_task(monkeypatch, clock, args, task):
    plain = []
    monkeypatch.setattr(
        cloud_wait.NormalAction, "run", lambda self, tmp=None, task_vars=None: plain.append(1) or {"n": 1}
    )
    action, fake = _cloud_action([RUNNING], args=args, **task)
    assert action.run(task_vars={}) == {"n": 1} and plain == [1] and fake.calls == []


def test_a_cloud_task_told_to_wait_in_a_string_waits(monkeypatch, clock):
    monkeypatch.setattr(cloud_wait.NormalAction, "run", lambda self, tmp=None, task_vars=None: {"plain": True})
    action, fake = _cloud_action([DONE], args={"wait": "true"})
    assert "plain" not in action.run(task_vars={}) and fake.calls[0][2] is True


def test_a_failed_background_start_is_the_result(clock):
    action, fake = _cloud_action([DONE])
    fake._execute_module = lambda **kw: {"failed": True, "msg": "no python"}
    action._execute_module = fake._execute_module
    result = action.run(task_vars={})
    assert result == {"base": True, "failed": True, "msg": "no python"} and clock.sleeps == []


def test_read_waits_tolerates_a_missing_or_broken_file():
    fake = FakeAction([DONE], waits=[{"what": "x"}])
    assert cloud_wait.read_waits(fake, "/p", {}) == [{"what": "x"}]
    assert cloud_wait.read_waits(FakeAction([DONE]), "/p", {}) == []
    broken = FakeAction([DONE])
    broken._execute_module = lambda **kw: {"content": base64.b64encode(b"not json").decode()}
    assert cloud_wait.read_waits(broken, "/p", {}) == []


class _Polling(progress.PollingAction):
    """STAND-IN for a waiting action (mpi_job_wait, pip_install_wait): its options as validate_argument_spec
    returned them, and what poll_run was given."""

    ARGUMENT_SPEC = {"poll_s": {"type": "int"}, "timeout_s": {"type": "int"}}

    def poll_run(self, args, task_vars):
        self.ran = args
        return {"polled": True}


def _polling(monkeypatch, **args):
    monkeypatch.setattr(progress.ActionBase, "run", lambda self, tmp=None, task_vars=None: {"base": True})
    action = object.__new__(_Polling)
    action._task = FakeTask(action="scc.training.mpi_job_wait")
    action.ran = None
    action.validate_argument_spec = lambda argument_spec=None: (object(), dict(args))
    return action


@pytest.mark.parametrize("poll_s, timeout_s", [(0, 10), (10, 0), (-1, -1)])
def test_a_polling_action_refuses_a_poll_or_limit_under_a_second_by_its_name(monkeypatch, poll_s, timeout_s):
    action = _polling(monkeypatch, poll_s=poll_s, timeout_s=timeout_s)
    result = action.run(task_vars={})
    assert result == {"base": True, "failed": True, "msg": "mpi_job_wait: poll_s and timeout_s must be at least 1"}
    assert action.ran is None
    # The task may name the action without its collection (the play's collections keyword).
    action._task.action = "mpi_job_wait"
    assert action.run(task_vars={})["msg"] == "mpi_job_wait: poll_s and timeout_s must be at least 1"


def test_a_polling_action_runs_with_its_checked_options(monkeypatch):
    for poll_s, timeout_s in ((1, 1), (10, 3600)):
        action = _polling(monkeypatch, poll_s=poll_s, timeout_s=timeout_s)
        assert action.run(task_vars={}) == {"base": True, "polled": True}
        assert action.ran == {"poll_s": poll_s, "timeout_s": timeout_s}


def test_a_cloud_wait_polls_every_second_without_a_poll_and_takes_the_modules_default_timeouts(clock):
    action, fake = _cloud_action([RUNNING, RUNNING, RUNNING, DONE], args={"wait_timeout": 100})
    action._task.action = "nas_cpfs"  # named without its collection
    result = action.run(task_vars={})
    assert clock.sleeps == [1, 1, 1, 1] and result["polls"] == 4
    assert fake.calls[0][3] == 2 * 100 + 60 + 600 + 300  # listing 60 s, dependencies 600 s: the modules' defaults
    assert result["progress_lines"] == [] and "failed" not in result


def test_a_start_without_a_job_id_is_the_result_and_nothing_waits(clock):
    action, fake = _cloud_action([DONE])
    action._execute_module = fake._execute_module = lambda **kw: {"msg": "async not supported"}
    assert action.run(task_vars={}) == {"base": True, "msg": "async not supported"} and clock.sleeps == []


def test_read_waits_of_a_reply_without_content_is_nothing():
    empty = FakeAction([DONE])
    empty._execute_module = lambda **kw: {}
    assert cloud_wait.read_waits(empty, "/p", {}) == []
