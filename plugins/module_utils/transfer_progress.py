# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""How far a pip install or a download has got, as one line a person reads while waiting (pure functions).

The controller polls the host (the ``scc.training.pip_install_wait`` and ``scc.training.download`` actions, the loop
of plugins/plugin_utils/progress.py) and shows one line per poll instead of the executor's bare ``ASYNC POLL``:

- a pip install (python_env's venv): ``wanted_wheels`` takes what pip's dry run said it would install
  (``pip install --dry-run --report -``: name, version, the wheel's file); ``install_snapshot`` counts those whose
  ``<name>-<version>.dist-info`` is in the venv's site-packages with its ``RECORD`` (pip writes RECORD last, once
  every file of the wheel is in place) and weighs them by their wheel's size (a CUDA torch wheel is gigabytes, a
  pure-Python one kilobytes); ``install_line``: ``python_env on node1: installing wheels, 37 of 112 done (1.20 GB
  of 4.60 GB, last: numpy 1.26.4), 1m10s elapsed, about 2m05s left``;
- a download (artifact_fetch on the controller): ``download_line``: ``artifact_fetch: torch.whl, 1.20 GB of
  2.40 GB (50%), 85.3 MB/s, about 14s left, 15s elapsed``, from the size of get_url's partial file at two polls.

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from urllib.parse import quote, unquote

from ansible_collections.scc.training.plugins.module_utils.job_progress import duration

# The options of scc.training.pip_install_wait: its action (the controller's loop) and its module (one poll's read).
PIP_WAIT_ARGUMENT_SPEC = {
    "jid": {"type": "str", "required": True},
    "venv": {"type": "path", "required": True},
    "report": {"type": "dict", "required": True},
    "label": {"type": "str", "default": "pip install"},
    "poll_s": {"type": "int", "default": 10},
    "timeout_s": {"type": "int", "required": True},
}

# The options of scc.training.download: get_url's that artifact_fetch uses (passed to it unchanged), and the wait's.
GET_URL_OPTIONS = ("url", "dest", "checksum", "mode", "timeout", "force", "headers", "validate_certs")
DOWNLOAD_ARGUMENT_SPEC = {
    "url": {"type": "str", "required": True},
    "dest": {"type": "path", "required": True},
    "checksum": {"type": "str", "default": ""},
    "mode": {"type": "raw"},
    "timeout": {"type": "int", "default": 10},
    "force": {"type": "bool", "default": False},
    "headers": {"type": "dict"},
    "validate_certs": {"type": "bool", "default": True},
    "label": {"type": "str"},
    "poll_s": {"type": "int", "default": 10},
    "timeout_s": {"type": "int", "default": 3600},
    "total_bytes": {"type": "int"},
}


def partial_dir(dest):
    """Where get_url writes the file while it downloads (its ``tmp_dest``): a directory of its own beside ``dest``,
    so the poll finds the one partial file, and the finished file is renamed into place on the same file system."""
    head, tail = dest.rstrip("/").rsplit("/", 1) if "/" in dest.rstrip("/") else ("", dest)
    return "%s/.%s.partial" % (head, tail) if head else ".%s.partial" % tail


def canonical_name(name):
    """A distribution's name as PEP 503 compares them (``Foo.Bar_baz`` and ``foo-bar-baz`` are one)."""
    return re.sub(r"[-_.]+", "-", str(name)).lower()


def _file_path(url):
    """The local path of a ``file://`` URL (pip's report of a wheel in the wheelhouse), else None."""
    url = str(url or "")
    return unquote(url[len("file://") :]) if url.startswith("file://") else None


def wanted_wheels(report):
    """pip's ``--report`` of a dry run (dict) -> ``[{name, version, wheel}]`` of what it would install, in its order
    (``wheel``: the wheel's local path, None when pip named no local file). Entries without a name are left out."""
    wanted = []
    for item in (report or {}).get("install") or []:
        if not isinstance(item, dict):
            continue
        metadata = item.get("metadata") or {}
        if not metadata.get("name"):
            continue
        wanted.append(
            {
                "name": str(metadata["name"]),
                "version": str(metadata.get("version") or ""),
                "wheel": _file_path((item.get("download_info") or {}).get("url")),
            }
        )
    return wanted


def slim_report(report):
    """pip's report with only what ``wanted_wheels`` reads (the full one carries every package's description)."""
    return {
        "install": [
            {
                "metadata": {"name": w["name"], "version": w["version"]},
                "download_info": {"url": "file://" + quote(w["wheel"])},
            }
            if w["wheel"]
            else {"metadata": {"name": w["name"], "version": w["version"]}}
            for w in wanted_wheels(report)
        ]
    }


def dist_info_key(dirname):
    """``numpy-1.26.4.dist-info`` -> ``("numpy", "1.26.4")`` (canonical name, lower-case version); None for another
    name. The directory's name escapes ``-`` in the project's name (``_``), so the first ``-`` ends the name."""
    match = re.match(r"^([^-/]+)-([^-/]+)\.dist-info$", str(dirname))
    if not match:
        return None
    return canonical_name(match.group(1)), match.group(2).lower()


def install_snapshot(wanted, installed, wheel_bytes=None):
    """What pip has installed of ``wanted`` (``wanted_wheels``): ``installed`` is the venv's finished dist-info
    directories (``[{dist_info, finished_at}]``), ``wheel_bytes`` each wheel's size by its path.

    -> ``{done, total, bytes_done, bytes_total, last}``; ``last`` is the most recently finished wanted one (``name
    version``), None before the first; the bytes are None when a wheel's size is unknown."""
    finished = {}
    for entry in installed or []:
        key = dist_info_key(entry.get("dist_info", ""))
        if key:
            finished[key] = entry.get("finished_at") or 0
    sizes = wheel_bytes or {}
    done, bytes_done, bytes_total, last, last_at = 0, 0, 0, None, None
    for wheel in wanted:
        size = sizes.get(wheel.get("wheel"))
        if bytes_total is not None:
            bytes_total = bytes_total + size if isinstance(size, int) else None
        key = (canonical_name(wheel["name"]), wheel["version"].lower())
        if key not in finished:
            continue
        done += 1
        if isinstance(size, int):
            bytes_done += size
        if last_at is None or finished[key] >= last_at:
            last, last_at = "%s %s" % (wheel["name"], wheel["version"]), finished[key]
    return {
        "done": done,
        "total": len(wanted),
        "bytes_done": bytes_done if bytes_total is not None else None,
        "bytes_total": bytes_total,
        "last": last,
    }


def size(count):
    """Bytes as ``512 B``, ``3.4 kB``, ``12.0 MB``, ``2.31 GB`` (powers of 1000, as pip and curl print them)."""
    count = float(count)
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return ("%.2f %s" if unit == "GB" else "%.1f %s") % (count / scale, unit)
    return "%d B" % count


def _left(done, total, seconds):
    """``about 2m05s left`` at the average rate so far, or None when nothing is done yet."""
    if not done or not total or done >= total or seconds <= 0:
        return None
    return "about %s left" % duration((total - done) * seconds / done)


def install_line(label, snap, waited_s, finished=False):
    """One line for a person: how many wheels pip installed of the total, their bytes, the last one, the time."""
    if finished:
        return "%s: pip ended, %d of %d wheel(s) installed, %s elapsed" % (
            label,
            snap["done"],
            snap["total"],
            duration(waited_s),
        )
    if not snap["done"]:
        return "%s: pip is reading %d wheel(s), none installed yet, %s elapsed" % (
            label,
            snap["total"],
            duration(waited_s),
        )
    detail = []
    if snap.get("bytes_total"):
        detail.append("%s of %s" % (size(snap["bytes_done"]), size(snap["bytes_total"])))
    detail.append("last: %s" % snap["last"])
    parts = [
        "installing wheels, %d of %d done (%s)" % (snap["done"], snap["total"], ", ".join(detail)),
        "%s elapsed" % duration(waited_s),
    ]
    if snap.get("bytes_total"):
        left = _left(snap["bytes_done"], snap["bytes_total"], waited_s)
    else:
        left = _left(snap["done"], snap["total"], waited_s)
    if left:
        parts.append(left)
    return "%s: %s" % (label, ", ".join(parts))


def download_rate(samples):
    """Bytes per second between the first and the last ``(seconds, bytes)`` sample, or None."""
    if len(samples) < 2:
        return None
    (t0, b0), (t1, b1) = samples[0], samples[-1]
    if t1 <= t0 or b1 < b0:
        return None
    return (b1 - b0) / (t1 - t0)


def download_line(label, got, total, rate, waited_s, finished=False):
    """One line for a person: bytes so far of the total, the rate and the time left (``total`` None when the server
    announced no length; ``got`` None before the partial file exists)."""
    if finished:
        return "%s: download ended, %s elapsed" % (label, duration(waited_s))
    if got is None:
        return "%s: no bytes received yet, %s elapsed" % (label, duration(waited_s))
    parts = [size(got) + (" of %s (%d%%)" % (size(total), 100 * got // total) if total else "")]
    if rate is not None:
        parts.append("%s/s" % size(rate))
        if total and rate > 0 and got < total:
            parts.append("about %s left" % duration((total - got) / rate))
    parts.append("%s elapsed" % duration(waited_s))
    return "%s: %s" % (label, ", ".join(parts))
