# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The decisions of the mpi_job role (an mpirun job launched from the first node), as pure functions.

- ``proc_starttime``: a ``/proc/<pid>/stat`` line -> the process's start time (clock ticks since boot).
- ``processes_to_stop``: the pids our launcher and ranks recorded + what ``/proc`` shows now -> those
  still ours (same pid AND same start time: a reused pid is never ours), those gone, those reused.
- ``launcher_argv``: the caller's mpirun command -> the command mpi_job runs: a ``/bin/sh`` that records
  its own pid and start time, then ``exec``s the command (so the recorded pid is the command's own),
  with ``--tag-output`` and the ranks' environment inserted after mpirun.
- ``split_rank_output``: mpirun's ``--tag-output`` text -> each rank's lines, and the text untagged.
- ``mpirun_failed_rank``: the rank mpirun names when it aborted the job.
- ``job_results``: the exit status, the output and every rank's progress file -> the job's results,
  partial when it failed: steps done, last loss, the failing rank, its host and its log tail.

Open MPI facts used here (mpirun(1) of Open MPI 4.1, https://www.open-mpi.org/doc/v4.1/man1/mpirun.1.php):
``--tag-output`` tags "each line of output to stdout, stderr, and stddiag with [jobid, MCW_rank]<stdxxx>";
``-x NAME=value`` exports a variable to every rank. By default (MCA ``orte_abort_on_non_zero_status``,
true) mpirun aborts the whole job when one rank exits non-zero and then reports it as
``Process name: [[jobid,1],rank]`` (or ``process rank N with PID`` for a rank killed by a signal).

Pure Python, no Ansible imports: plugins/filter/mpi_job.py and the mpi_job_stop module wrap these
and turn their ValueError into the plugin's error.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import re

from ansible_collections.scc.training.plugins.module_utils.input_checks import env_value_problems

# proc(5): field 22 of /proc/<pid>/stat is starttime; fields 3.. follow the last ")" (comm may hold any byte).
_STARTTIME_AFTER_COMM = 19
_TAGGED = re.compile(r"^\[(\d+),(\d+)\]<(stdout|stderr|stddiag)>:(.*)$")
_MPIRUN_PROCESS_NAME = re.compile(r"Process name:\s*\[\[\d+,\d+\],(\d+)\]")
_MPIRUN_PROCESS_RANK = re.compile(r"process rank (\d+) with PID")
# coreutils timeout(1): 124 when the command timed out, 128+9 when it had to be killed.
_TIMEOUT_STATUSES = (124, 137)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
_PROGRESS_FILE = re.compile(r"(^|/)progress-rank[0-9]+\.json$")

# The launcher: record "$$" (this shell, which then becomes the command through exec) with its start
# time, atomically, then exec. $1 is the state directory, $2 the run id; the command follows.
LAUNCHER_SCRIPT = (
    'd="$1"; run="$2"; shift 2; '
    "st=$(sed 's/^.*) //' /proc/$$/stat | cut -d' ' -f20) && "
    'printf \'{"pid": %s, "starttime": %s, "run_id": "%s", "role": "launcher"}\\n\' "$$" "$st" "$run" '
    '> "$d/$$.json.tmp" && mv "$d/$$.json.tmp" "$d/$$.json" && exec "$@"'
)


def proc_starttime(stat_text):
    """The start time (clock ticks after boot) in a ``/proc/<pid>/stat`` line; ValueError when unreadable."""
    try:
        return int(stat_text.rsplit(")", 1)[1].split()[_STARTTIME_AFTER_COMM])
    except (AttributeError, IndexError, ValueError):
        raise ValueError("not a /proc/<pid>/stat line: %r" % (stat_text,)) from None


def _record_key(record):
    """``(pid, starttime)`` of a record, or None when it lacks either as an integer."""
    if not isinstance(record, dict):
        return None
    pid, start = record.get("pid"), record.get("starttime")
    if isinstance(pid, bool) or not isinstance(pid, int) or pid < 2:
        return None
    if isinstance(start, bool) or not isinstance(start, int):
        return None
    return pid, start


def processes_to_stop(records, stats):
    """Which recorded processes are still ours.

    ``records``: what our launcher and ranks recorded on this node (``{pid, starttime, ...}``);
    ``stats``: pid -> its ``/proc/<pid>/stat`` line now, or None where there is no such process.
    Returns ``{ours, gone, reused, invalid}``: ``ours`` run now with the recorded start time (the same
    process); ``reused`` have the pid but another start time (another process: left alone); ``gone``
    have no process (or a zombie); ``invalid`` records lack an integer pid > 1 or start time (never signalled).
    """
    verdicts = {"ours": [], "gone": [], "reused": [], "invalid": []}
    for record in records:
        key = _record_key(record)
        if key is None:
            verdicts["invalid"].append(record)
            continue
        stat = stats.get(key[0], stats.get(str(key[0])))
        if stat is None:
            verdicts["gone"].append(record)
            continue
        try:
            same = proc_starttime(stat) == key[1]
        except ValueError:
            same = False
        # A zombie (state Z) has exited; only its parent's wait() is missing.
        if same and stat.rsplit(")", 1)[1].split()[0] == "Z":
            verdicts["gone"].append(record)
            continue
        verdicts["ours" if same else "reused"].append(record)
    return verdicts


def launcher_argv(job):
    """The command mpi_job runs on the first node, from ``job``: ``argv`` (the caller's whole command,
    mpirun somewhere in it), ``mpirun_path`` (the element of ``argv`` that is mpirun), ``state_dir``
    (where the launcher records its pid), ``run_id`` and ``env`` (exported to every rank with ``-x``).

    ``--tag-output`` and the ``-x`` pairs go right after mpirun, so they reach mpirun whatever wraps it
    (``timeout``) and whatever program follows. Raises ValueError when mpirun is not in ``argv``.
    """
    if not isinstance(job, dict):
        raise ValueError("input must be a dict of mpi_job's settings, got %s" % type(job).__name__)
    try:
        argv = [str(arg) for arg in job["argv"]]
        mpirun, run_id = str(job["mpirun_path"]), str(job["run_id"])
        state_dir, env = str(job["state_dir"]), dict(job.get("env") or {})
    except KeyError as exc:
        raise ValueError("missing key %s" % exc) from None
    if mpirun not in argv:
        raise ValueError("mpirun_path %s is not in the command %s" % (mpirun, " ".join(argv)))
    if not re.match(r"^[A-Za-z0-9._-]+\Z", run_id):
        raise ValueError("run_id must be letters, digits, '.', '_' or '-', got %r" % run_id)
    bad = sorted(name for name in env if not _ENV_NAME.match(str(name)))
    if bad:
        raise ValueError("env names must be shell variable names, got %s" % ", ".join(map(str, bad)))
    problems = env_value_problems("env", env)
    if problems:
        raise ValueError(problems[0])
    at = argv.index(mpirun) + 1
    options = ["--tag-output"] + [item for name in sorted(env) for item in ("-x", "%s=%s" % (name, env[name]))]
    return ["/bin/sh", "-c", LAUNCHER_SCRIPT, "mpi_job", state_dir, run_id] + argv[:at] + options + argv[at:]


def split_rank_output(text):
    """mpirun's output with ``--tag-output`` -> ``{ranks: {rank: [lines]}, plain: text}``: each rank's
    lines in order, and the whole output with the tags removed (what a parser of the ranks' logs reads)."""
    ranks, plain = {}, []
    for line in (text or "").splitlines():
        match = _TAGGED.match(line)
        if match:
            ranks.setdefault(int(match.group(2)), []).append(match.group(4))
            plain.append(match.group(4))
        else:
            plain.append(line)
    return {"ranks": ranks, "plain": "\n".join(plain)}


def mpirun_failed_rank(text):
    """The rank mpirun names as the one that ended the job, or None."""
    for pattern in (_MPIRUN_PROCESS_NAME, _MPIRUN_PROCESS_RANK):
        match = pattern.search(text or "")
        if match:
            return int(match.group(1))
    return None


def _decoded(item):
    """A progress file: an ``ansible.builtin.slurp`` result (base64 ``content``) or the dict itself."""
    if isinstance(item, dict) and "content" in item:
        try:
            return json.loads(base64.b64decode(item["content"]).decode("utf-8"))
        except ValueError:
            return None
    return item if isinstance(item, dict) else None


def _split_collected(collected):
    """Slurp results (``source``, base64 ``content``) -> (the progress files, {file name: text} of the others)."""
    progress, files = [], {}
    for item in collected:
        source = str(item.get("source", "")) if isinstance(item, dict) else ""
        if _PROGRESS_FILE.search(source):
            progress.append(item)
        elif source:
            files[source.rsplit("/", 1)[-1]] = base64.b64decode(item.get("content", "")).decode("utf-8", "replace")
    return progress, files


def _failing_rank(progress, output, timed_out):
    """The rank to blame: the first to record a failure, else the one mpirun names, else (timeout)
    the rank that got least far."""
    failed = [p for p in progress if p.get("status") == "failed"]
    if failed:
        return min(failed, key=lambda p: (p.get("updated_at") or 0, p["rank"]))["rank"]
    named = mpirun_failed_rank(output)
    if named is not None or not timed_out or not progress:
        return named
    return min(progress, key=lambda p: (p.get("step") or 0, p["rank"]))["rank"]


def job_results(job):
    """The results of an mpi_job run, partial when it failed.

    ``job``: ``run_id``; ``rc`` (the command's exit status, None when it never finished); ``output``
    (its stdout and stderr, ``--tag-output`` lines); ``progress``: every rank's progress file
    (``{rank, host, step, steps, loss, status, error, updated_at}``) from every node, as slurp results
    or dicts; ``collected``: slurp results of the run directories, progress files and the files to
    collect (those go to ``files``, name -> text); ``tail_lines``: how many of the failing rank's last
    lines to keep.

    Returns ``{run_id, status (ok|failed), reason (null|rank_failed|timeout|launch_failed), rc,
    steps_completed (the steps every rank finished), last_loss (rank 0's, else the furthest rank's),
    failed_rank, failed_host, failed_error, failed_rank_log_tail, ranks, files, output (untagged), message}``.
    """
    if not isinstance(job, dict):
        raise ValueError("input must be a dict of the job's outcome, got %s" % type(job).__name__)
    rc = job.get("rc")
    output = split_rank_output(job.get("output") or "")
    collected_progress, files = _split_collected(job.get("collected") or [])
    progress = sorted(
        (
            p
            for p in map(_decoded, list(job.get("progress") or []) + collected_progress)
            if p and isinstance(p.get("rank"), int)
        ),
        key=lambda p: p["rank"],
    )
    tail = int(job.get("tail_lines", 20))
    timed_out = rc is None or rc in _TIMEOUT_STATUSES
    ok = rc == 0
    steps = [p.get("step") or 0 for p in progress]
    furthest = max(progress, key=lambda p: (p.get("step") or 0, -p["rank"])) if progress else {}
    loss_from = progress[0] if progress and progress[0]["rank"] == 0 else furthest
    results = {
        "run_id": job.get("run_id"),
        "status": "ok" if ok else "failed",
        "reason": None,
        "rc": rc,
        "steps_completed": min(steps) if steps else 0,
        "last_loss": loss_from.get("loss"),
        "last_loss_step": loss_from.get("step"),
        "failed_rank": None,
        "failed_host": None,
        "failed_error": None,
        "failed_rank_log_tail": [],
        "ranks": [{k: p.get(k) for k in ("rank", "host", "step", "loss", "status")} for p in progress],
        "files": files,
        "output": output["plain"],
        "message": "",
    }
    if ok:
        return results
    rank = _failing_rank(progress, job.get("output") or "", timed_out)
    record = next((p for p in progress if p["rank"] == rank), {})
    lines = output["ranks"].get(rank) if rank is not None else None
    if not lines:
        lines = output["plain"].splitlines()
    results.update(
        {
            "reason": "timeout" if timed_out else ("rank_failed" if rank is not None else "launch_failed"),
            "failed_rank": rank,
            "failed_host": record.get("host"),
            "failed_error": record.get("error"),
            "failed_rank_log_tail": lines[-tail:] if tail > 0 else [],
        }
    )
    who = "rank %s on %s" % (rank, record.get("host") or "an unknown host") if rank is not None else "no rank named"
    results["message"] = "run %s failed (%s, exit status %s): %s; %d step(s) done by every rank, last loss %s. " % (
        results["run_id"],
        results["reason"],
        rc,
        who,
        results["steps_completed"],
        results["last_loss"],
    ) + "Last lines: %s" % " | ".join(results["failed_rank_log_tail"])
    return results
