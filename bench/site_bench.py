"""`make bench`: site.yml on fresh lab clusters of 1, 2 and 4 hosts.

For each size: the wall time of the first run (from bare hosts to a finished BERT run), the
wall time of the no-op re-run, and the upstream bytes the controller downloaded for the
cluster (python_env's download-stats.json, with an empty controller cache per cluster).
Printed as one table with the ratios re-run/first and N-host/1-host, all from this one run:
ratios, not absolute times, are what compare across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab.cluster import Lab


def playbook(inventory: Path, workdir: Path, extravars: dict, names=("site.yml",)) -> float:
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"))
    cmd = [
        str(Path(sys.executable).with_name("ansible-playbook")),
        "-i",
        str(inventory),
        *[str(ROOT / "playbooks" / n) for n in names],
        "-e",
        json.dumps(extravars),
    ]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-2000:])
        raise SystemExit(f"{' '.join(names)} failed on {inventory}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,2,4")
    args = parser.parse_args()
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        workdir = Path(tempfile.mkdtemp(prefix=f"scc-bench-{size}-"))
        cache = workdir / "controller-cache"
        lab = Lab(workdir / "lab")
        lab.up(size, "127.0.6.11", log=lambda *_: None)
        try:
            extravars = {
                "python_env_cache_dir": str(cache),
                "bert_launch_results_dir": str(workdir / "results"),
            }
            first = playbook(lab.inventory, workdir, extravars)
            rerun = playbook(lab.inventory, workdir, extravars)
            # The configuration stages alone: the true no-op (training always runs again).
            noop = playbook(lab.inventory, workdir, extravars, ("prepare.yml", "cluster.yml"))
        finally:
            lab.down(log=lambda *_: None)
        stats = json.loads((cache / "download-stats.json").read_text())
        rows.append((size, first, rerun, noop, stats["bytes_downloaded"]))
        print(f"  {size} host(s): first {first:.1f}s, re-run {rerun:.1f}s, no-op {noop:.1f}s", file=sys.stderr)

    base = rows[0]
    print("site.yml = validate + prepare + cluster + verify + train; no-op = prepare.yml + cluster.yml re-run")
    print(
        f"{'hosts':>5} {'first s':>8} {'re-run s':>9} {'no-op s':>8} {'re-run/first':>13} "
        f"{'no-op/first':>12} {'first/1h':>9} {'no-op/1h':>9} {'upstream MB':>12}"
    )
    for size, first, rerun, noop, downloaded in rows:
        print(
            f"{size:>5} {first:>8.1f} {rerun:>9.1f} {noop:>8.1f} {rerun / first:>13.2f} "
            f"{noop / first:>12.2f} {first / base[1]:>9.2f} {noop / base[3]:>9.2f} {downloaded / 1e6:>12.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
