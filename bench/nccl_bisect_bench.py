"""`make bench`: the rounds nccl_check's bisection takes to name the slow nodes, against N.

Simulated nodes (no cluster, no timing): a group run is slow when it holds a bad node. For each N
in 4 .. 256 and one or two bad nodes at several placements (first, middle, last, spread, adjacent),
prints the most rounds and group runs any placement took, beside the bound 2*log2(N)+2 (and the
N(N-1)/2 runs that testing every pair would take), and exits non-zero when a placement exceeds the
bound or names the wrong nodes. Runs in well under a second.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".collections"))

from ansible_collections.scc.training.plugins.module_utils.nccl_bisect import bisect

SIZES = (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)


class GroupRun:
    """The simulated oracle: a group is slow (2 GB/s) when it holds a bad node; every run recorded."""

    def __init__(self, bad, runs):
        self.bad, self.runs = bad, runs

    def __call__(self, hosts):
        self.runs.append(hosts)
        ok = not set(hosts) & self.bad
        return ok, 10.0 if ok else 2.0


def placements(n: int, bad: int) -> list[tuple[int, ...]]:
    """Indexes of the bad nodes: at the edges, the middle, spread out, side by side."""
    if bad == 1:
        return sorted({(0,), (n // 2,), (n - 1,), (n // 3,)})
    return sorted({(0, 1), (0, n - 1), (n // 2 - 1, n // 2), (n // 4, 3 * n // 4), (1, n - 2)})


def main() -> int:
    failures = []
    print("nccl_check bisection: rounds of parallel disjoint group runs to name the slow nodes")
    print(f"{'N':>4} {'bad':>3} {'placements':>10} {'max rounds':>10} {'bound':>6} {'max runs':>9} {'all pairs':>9}")
    for n in SIZES:
        names = [f"node{i + 1}" for i in range(n)]
        for count in (1, 2):
            worst_rounds = worst_runs = 0
            cases = placements(n, count)
            for indexes in cases:
                bad = {names[i] for i in indexes}
                runs = []
                state = bisect(names, GroupRun(bad, runs))
                rounds = len(state["rounds"])
                worst_rounds, worst_runs = max(worst_rounds, rounds), max(worst_runs, len(runs))
                bound = 2 * math.log2(n) + 2
                if set(state["bad"]) != bad or rounds > bound:
                    failures.append(
                        f"N={n} bad={sorted(bad)}: found {state['bad']} in {rounds} rounds (bound {bound:.1f})"
                    )
            print(
                f"{n:>4} {count:>3} {len(cases):>10} {worst_rounds:>10} {2 * math.log2(n) + 2:>6.1f} "
                f"{worst_runs:>9} {n * (n - 1) // 2:>9}"
            )
    for failure in failures:
        print("FAIL", failure)
    print("all within 2*log2(N)+2" if not failures else f"{len(failures)} placement(s) over the bound or wrong")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
