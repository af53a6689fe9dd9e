"""module_utils/job_progress.py: the progress line of a running job, from the ranks' progress files."""

import json

import pytest

from ansible_collections.scc.training.plugins.module_utils import job_progress


def rank(n, step, loss=None, updated_at=100.0, status="running", **extra):
    return dict(
        {"rank": n, "host": "node1", "step": step, "steps": 200, "loss": loss, "status": status, "error": None},
        updated_at=updated_at,
        **extra,
    )


def test_the_slowest_rank_sets_the_step_and_rank_0_the_loss():
    snap = job_progress.snapshot(
        [rank(1, 42, 6.5, 110.0), rank(0, 40, 7.25, 108.0, samples_per_step=64, unit="sequences"), "junk"]
    )
    assert (snap["step"], snap["steps"], snap["loss"], snap["loss_rank"]) == (40, 200, 7.25, 0)
    assert (snap["updated_at"], snap["samples_per_step"], snap["unit"], snap["ranks"]) == (108.0, 64, "sequences", 2)
    assert snap["failed"] == [] and not snap["finished"]


def test_a_non_finite_or_missing_loss_is_no_loss_and_bools_are_not_numbers():
    snap = job_progress.snapshot([rank(0, True, float("nan"))])
    assert snap["step"] == 0 and snap["loss"] is None
    # The bytes a rank writes (json.dump), read back: null loss before the first one reached the host.
    assert job_progress.snapshot([json.loads(json.dumps(rank(0, 3)))])["loss"] is None


def test_no_file_yet():
    snap = job_progress.snapshot([])
    assert snap["ranks"] == 0
    assert job_progress.progress_line("bert run r", snap, waited_s=12) == (
        "bert run r: starting, no rank has written its progress yet (12s)"
    )


def test_rate_by_the_ranks_clock_over_the_window():
    polls = [
        job_progress.snapshot([rank(0, 0, updated_at=90.0)]),
        job_progress.snapshot([rank(0, 10, updated_at=100.0)]),
        job_progress.snapshot([rank(0, 30, updated_at=110.0)]),
    ]
    assert job_progress.rate(polls[:2]) is None
    # From step 10 on: step 0's time stamp is the rank's start (data, model), not a step's end.
    assert job_progress.rate(polls) == pytest.approx(20 / 10)
    # A poll where no step ended (or the clock did not move) gives no rate rather than a division by zero.
    assert job_progress.rate([polls[1], polls[1]]) is None


def test_the_line_a_person_reads():
    snap = job_progress.snapshot([rank(0, 40, 7.12345, samples_per_step=64, unit="sequences")])
    line = job_progress.progress_line("bert run r", snap, 0.5)
    assert line == "bert run r: step 40/200 (20%), loss 7.1235, 32.0 sequences/s, about 5m20s left (1 rank(s) read)"
    # Without samples per step (an older rank helper): steps/s.
    snap = job_progress.snapshot([rank(0, 40, 7.0)])
    assert "0.50 steps/s, about 5m20s left" in job_progress.progress_line("j", snap, 0.5)
    assert "step 40/200 (20%), loss 7.0000 (1 rank" in job_progress.progress_line("j", snap, None)


def test_the_end_and_a_failed_rank():
    done = job_progress.snapshot([rank(0, 200, 5.5, status="ok")])
    assert done["finished"]
    line = job_progress.progress_line("j", done, 2.0, finished=True)
    assert line == "j: step 200/200 (100%), loss 5.5000, 2.00 steps/s, ended (1 rank(s) read)"
    failed = job_progress.snapshot([rank(0, 12, 7.0), rank(1, 12, None, status="failed")])
    assert failed["failed"] == [1]
    assert "FAILED rank(s) 1" in job_progress.progress_line("j", failed, None)


@pytest.mark.parametrize(
    "seconds, text", [(0, "0s"), (59.4, "59s"), (60, "1m00s"), (128, "2m08s"), (3600, "1h00m"), (11100, "3h05m")]
)
def test_duration(seconds, text):
    assert job_progress.duration(seconds) == text


@pytest.mark.parametrize(
    "callback, wrapped, one_line, no_log, wanted",
    [
        ("default", None, False, False, True),
        (None, None, False, False, True),
        ("community.general.yaml", None, False, False, True),
        ("ansible.posix.json", None, False, False, False),
        ("json", None, False, False, False),
        ("ansible.posix.jsonl", None, False, False, False),
        ("minimal", None, False, False, False),
        ("default", None, True, False, False),
        ("default", None, False, True, False),
        # ansible-runner / AWX: awx_display wraps the user's choice, named in $ORIGINAL_STDOUT_CALLBACK.
        ("awx_display", None, False, False, True),
        ("awx_display", "json", False, False, False),
        ("awx_display", "ansible.builtin.default", False, False, True),
    ],
)
def test_display_wanted(callback, wrapped, one_line, no_log, wanted):
    assert job_progress.display_wanted(callback, wrapped, one_line=one_line, no_log=no_log) is wanted


def test_durations_at_their_unit_boundaries():
    assert [job_progress.duration(s) for s in (0, 59, 60, 119, 3599, 3600, 7322)] == [
        "0s",
        "59s",
        "1m00s",
        "1m59s",
        "59m59s",
        "1h00m",
        "2h02m",
    ]


def test_lines_are_wanted_by_default_and_a_wrapped_callback_is_judged_by_its_last_name():
    assert job_progress.display_wanted("default") is True
    assert job_progress.display_wanted("awx_display", "community.general.yaml") is True
    assert job_progress.display_wanted("awx_display", "ansible.posix.json") is False
    assert job_progress.display_wanted("x.y.awx_display", "json") is False


def test_a_rank_that_has_not_stepped_yet_is_the_slowest():
    snap = job_progress.snapshot([rank(0, 5), dict(rank(1, None), updated_at=50.0)])
    assert (snap["step"], snap["updated_at"]) == (0, 50.0)
    assert (
        job_progress.rate([{"updated_at": 10.0, "ranks": 1, "step": 5}, {"updated_at": 9.0, "ranks": 1, "step": 9}])
        is None
    )


def _snap(step, at, ranks=1):
    return {"step": step, "updated_at": at, "ranks": ranks}


def test_the_rate_is_from_the_first_timed_snapshot_to_the_last():
    assert job_progress.rate([_snap(10, 100.0), _snap(20, 110.0), _snap(50, 120.0)]) == 2.0
    assert job_progress.rate([_snap(0, 90.0), _snap(10, 100.0), _snap(11, 101.0)]) == 1.0  # before step 1: left out
    assert job_progress.rate([_snap(10, 100.0)]) is None
    assert job_progress.rate([]) is None
    assert job_progress.rate([_snap(10, 100.0), _snap(11, 100.5)]) == 2.0  # half a second is a time
    assert job_progress.rate([_snap(10, 100.0), _snap(10, 105.0)]) is None  # no step: no rate
    assert job_progress.rate([_snap(10, 100.0), _snap(11, 100.0)]) is None  # no time: no rate


def test_no_rank_read_is_step_0_of_nothing_and_not_finished():
    assert job_progress.snapshot([]) == {
        "step": 0,
        "steps": None,
        "loss": None,
        "loss_rank": None,
        "updated_at": None,
        "samples_per_step": None,
        "unit": None,
        "ranks": 0,
        "failed": [],
        "finished": False,
    }
    snap = job_progress.snapshot([rank(0, 3, status="done"), rank(1, 3, status="done", samples_per_step=64)])
    assert (snap["failed"], snap["finished"], snap["samples_per_step"]) == ([], True, 64)
