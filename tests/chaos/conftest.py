"""What the chaos tests share: the repo root on sys.path (as tests/integration's conftest does) and
`chaos_figures`, which records one test's figures (faults injected, runs that recovered, data lost) as
a JSON file that `make chaos` sums up (tests/chaos/summary.py)."""

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / ".collections"))

# make chaos / make integration set it, to sum the figures up after the run; else the test's tmp.
FIGURES_ENV = "SCC_CHAOS_FIGURES"


@pytest.fixture
def chaos_figures(request, tmp_path):
    """record(faults_injected=, runs=, recovered=, data_lost=, **detail): this test's figures."""
    where = Path(os.environ.get(FIGURES_ENV) or tmp_path)

    def record(faults_injected: int, runs: int, recovered: int, data_lost: int, **detail):
        where.mkdir(parents=True, exist_ok=True)
        figures = dict(
            test=request.node.nodeid,
            faults_injected=faults_injected,
            runs=runs,
            recovered=recovered,
            data_lost=data_lost,
            detail=detail,
        )
        (where / (request.node.name + ".json")).write_text(json.dumps(figures, indent=2, default=str) + "\n")
        return figures

    return record
