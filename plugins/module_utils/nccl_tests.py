# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Parser of NVIDIA nccl-tests output (all_reduce_perf, all_gather_perf, alltoall_perf, ...).

Both layouts: the current one ('#'-prefixed header, redop and root columns, '#wrong') and the
older one (no '#', no redop/root, an 'error' column). No Ansible imports: the filter
scc.training.parse_nccl_tests wraps ``parse_nccl_tests``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_OUT_OF_BOUNDS = re.compile(r"Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)")
_AVG_BUSBW = re.compile(r"Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
_SIZE = re.compile(r"^\d+$")


def _number(text):
    """'12646' -> 12646.0, 'N/A' -> None."""
    try:
        return float(text)
    except ValueError:
        return None


def _wrong(text):
    """#wrong is a count ('0'), the old 'error' column a float ('1e+00'); 'N/A' -> None."""
    if text.isdigit():
        return int(text)
    return _number(text)


def _half(fields):
    time_us, algbw, busbw, wrong = fields
    return {
        "time_us": _number(time_us),
        "algbw_gbs": _number(algbw),
        "busbw_gbs": _number(busbw),
        "wrong": _wrong(wrong),
    }


def parse_nccl_tests(text):
    """``rows`` (one per message size: ``size_bytes``, ``count``, ``type``, ``redop`` and ``root``
    (null in the old layout), then the out-of-place ``time_us``, ``algbw_gbs``, ``busbw_gbs``,
    ``wrong``, and ``in_place`` with the same four), ``avg_busbw_gbs``, ``out_of_bounds`` (count)
    and ``passed`` (the 'Out of bounds values' verdict was OK); the last three are null when
    the output has no summary (a run that did not finish)."""
    rows = []
    result = {"rows": rows, "avg_busbw_gbs": None, "out_of_bounds": None, "passed": None}
    for line in (text or "").splitlines():
        match = _OUT_OF_BOUNDS.search(line)
        if match:
            result["out_of_bounds"] = int(match.group(1))
            result["passed"] = match.group(2) == "OK"
            continue
        match = _AVG_BUSBW.search(line)
        if match:
            result["avg_busbw_gbs"] = _number(match.group(1))
            continue
        fields = line.split()
        # A data row: size, count, type[, redop, root], then 4 out-of-place and 4 in-place values.
        if len(fields) not in (11, 13) or not _SIZE.match(fields[0]) or not _SIZE.match(fields[1]):
            continue
        lead = len(fields) - 8
        row = {
            "size_bytes": int(fields[0]),
            "count": int(fields[1]),
            "type": fields[2],
            "redop": fields[3] if lead == 5 else None,
            "root": int(fields[4]) if lead == 5 else None,
        }
        row.update(_half(fields[lead : lead + 4]))
        row["in_place"] = _half(fields[lead + 4 : lead + 8])
        rows.append(row)
    return result
