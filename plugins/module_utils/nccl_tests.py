# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Parser of NVIDIA nccl-tests output (all_reduce_perf, all_gather_perf, alltoall_perf, ...).

Two layouts (NVIDIA/nccl-tests history):
- v2.13.0 and later (commit 51af557, "Resync with NCCL 2.13", 2022-08-19; header in src/common.cu):
  ``size count type redop root time algbw busbw #wrong time algbw busbw #wrong``; ``#wrong`` a count.
- before v2.13.0 (per-test headers, e.g. src/all_reduce.cu): no ``root`` column (and no ``redop`` in
  the tests without one, such as all_gather), an ``error`` column per half printed ``%5.0le``
  (``0e+00``, ``2e-07``); the header is ``#``-prefixed in some versions and not in others.
The columns are read from the header line (which columns lead, which name the error); a table without
its header falls back to the number of fields. No Ansible imports: the filter
scc.training.parse_nccl_tests wraps ``parse_nccl_tests``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_OUT_OF_BOUNDS = re.compile(r"Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)")
_AVG_BUSBW = re.compile(r"Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
_SIZE = re.compile(r"^\d+$")
_INT = re.compile(r"^-?\d+$")
# The values of each half (out-of-place, in-place), in the order nccl-tests prints them.
_HALF = ("time", "algbw", "busbw")
_ERROR_COLUMNS = ("#wrong", "error")
_LAYOUT = {"#wrong": "2.13+", "error": "pre-2.13"}


def _number(text):
    """'12646' -> 12646.0, 'N/A' -> None."""
    try:
        return float(text)
    except ValueError:
        return None


def _wrong(text, column):
    """#wrong is a count ('0'), the old 'error' column a float ('2e-07'); 'N/A' -> None."""
    if column == "#wrong" and text.isdigit():
        return int(text)
    return _number(text)


def _header(fields):
    """The columns of a table header line ('#' dropped), or None when the line is not one."""
    names = [f for f in fields if f != "#"]
    if names and names[0].startswith("#"):
        names[0] = names[0][1:]
    if names[:2] != ["size", "count"] or names.count("time") != 2:
        return None
    return names


def _columns(header, fields):
    """The names of the leading columns (those before the first 'time') and of the error column.

    Without a header of the row's width, 8 values follow the leading columns: a 4th leading value
    that is a number is a root, a word a redop; the error column is guessed from their number
    (redop and root both: only the current layout has them)."""
    if header and len(header) == len(fields):
        lead = header[: header.index("time")]
        return lead, next((c for c in header if c in _ERROR_COLUMNS), "#wrong")
    lead = ["size", "count", "type"] + [
        "root" if _INT.match(value) else "redop" for value in fields[3 : len(fields) - 8]
    ]
    return lead, "#wrong" if len(lead) == 5 else "error"


def _half(fields, error):
    time_us, algbw, busbw, wrong = fields
    return {
        "time_us": _number(time_us),
        "algbw_gbs": _number(algbw),
        "busbw_gbs": _number(busbw),
        "wrong": _wrong(wrong, error),
    }


def parse_nccl_tests(text):
    """``rows`` (one per message size: ``size_bytes``, ``count``, ``type``, ``redop`` and ``root``
    (null when the layout has no such column), then the out-of-place ``time_us``, ``algbw_gbs``,
    ``busbw_gbs``, ``wrong``, and ``in_place`` with the same four), ``layout`` (``2.13+`` or
    ``pre-2.13``, from the header's ``#wrong`` or ``error`` column; null without a header),
    ``avg_busbw_gbs``, ``out_of_bounds`` (count) and ``passed`` (the 'Out of bounds values' verdict
    was OK); the last three are null when the output has no summary (a run that did not finish)."""
    rows = []
    result = {"rows": rows, "layout": None, "avg_busbw_gbs": None, "out_of_bounds": None, "passed": None}
    header = None
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
        names = _header(fields)
        if names:
            header = names
            result["layout"] = next((_LAYOUT[c] for c in names if c in _LAYOUT), None)
            continue
        # A data row: size, count, type[, redop][, root], then 4 out-of-place and 4 in-place values.
        if not 11 <= len(fields) <= 13 or not _SIZE.match(fields[0]) or not _SIZE.match(fields[1]):
            continue
        lead, error = _columns(header, fields)
        row = {"size_bytes": int(fields[0]), "count": int(fields[1]), "type": fields[2], "redop": None, "root": None}
        for name, value in zip(lead[3:], fields[3 : len(lead)]):
            if name == "root":
                row["root"] = int(value) if _INT.match(value) else None
            elif name == "redop":
                row["redop"] = value
        n = len(lead)
        row.update(_half(fields[n : n + 4], error))
        row["in_place"] = _half(fields[n + 4 : n + 8], error)
        rows.append(row)
    return result
