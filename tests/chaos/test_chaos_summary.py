"""The summary line `make chaos` prints from the chaos tests' figures (milliseconds, no lab)."""

import json

from tests.chaos.summary import main, summarise


def figures(faults, runs, recovered, lost):
    return dict(test="t", faults_injected=faults, runs=runs, recovered=recovered, data_lost=lost, detail={})


def test_the_line_sums_every_test():
    line, good = summarise([figures(31, 1, 1, 0), figures(1, 1, 1, 0)])
    assert line == "chaos: faults injected 32, runs recovered 2 of 2, data lost 0"
    assert good


def test_data_lost_or_a_run_not_recovered_fails():
    assert summarise([figures(1, 1, 1, 1)])[1] is False
    assert summarise([figures(1, 2, 1, 0)])[1] is False


def test_no_figures_fails(tmp_path, capsys):
    assert main(["summary.py", str(tmp_path / "missing")]) == 1
    assert "no figures" in capsys.readouterr().out


def test_main_reads_the_directory(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(figures(3, 1, 1, 0)))
    assert main(["summary.py", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "chaos: faults injected 3, runs recovered 1 of 1, data lost 0"
