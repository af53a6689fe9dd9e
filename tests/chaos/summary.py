"""Sums up the chaos tests' figures (one JSON per test, tests/chaos/conftest.py's chaos_figures) into
the line `make chaos` prints:

    chaos: faults injected N, runs recovered M of K, data lost D

Exit status 1 when there is no figure at all, when data was lost, or when a run did not recover.
Usage: python tests/chaos/summary.py DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def summarise(figures: list[dict]) -> tuple[str, bool]:
    """(the summary line, whether every run recovered and nothing was lost)."""
    faults = sum(f["faults_injected"] for f in figures)
    runs = sum(f["runs"] for f in figures)
    recovered = sum(f["recovered"] for f in figures)
    lost = sum(f["data_lost"] for f in figures)
    line = "chaos: faults injected %d, runs recovered %d of %d, data lost %d" % (faults, recovered, runs, lost)
    return line, bool(figures) and lost == 0 and recovered == runs


def main(argv: list[str]) -> int:
    directory = Path(argv[1])
    files = sorted(directory.glob("*.json")) if directory.is_dir() else []
    figures = [json.loads(p.read_text()) for p in files]
    line, good = summarise(figures)
    for item in figures:
        print(
            "  %s: faults %d, recovered %d of %d, data lost %d"
            % (item["test"], item["faults_injected"], item["recovered"], item["runs"], item["data_lost"])
        )
    print(line if figures else "chaos: no figures in %s (did the chaos tests run?)" % directory)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
