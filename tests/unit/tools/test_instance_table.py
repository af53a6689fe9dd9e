"""tools/instance_table.py: README's supported-instance table rendered from instance_families.py."""

from __future__ import annotations

import re

import pytest

from tools import instance_table
from tools.instance_table import BEGIN, END, main, render_section, replace_section


def test_readme_table_is_current():
    # The README shows the module_util's facts; a change to one without the other fails here.
    assert main(["--check"]) == 0


def test_every_family_has_a_row_and_every_footnote_is_defined():
    lines = render_section()
    rows = [line for line in lines if line.startswith("| `")]
    assert [re.match(r"\| `([^`]+)`", row).group(1) for row in rows] == list(instance_table.table.FAMILIES)
    used = set(re.findall(r"\[\^(\d+)\](?!:)", "\n".join(rows + lines[:1])))
    defined = {match.group(1) for match in map(re.compile(r"^\[\^(\d+)\]: ").match, lines) if match}
    assert used == defined and defined == {str(n) for n in range(1, len(defined) + 1)}


def test_unconfirmed_facts_read_unconfirmed():
    row = next(line for line in render_section() if line.startswith("| `sccgn6ne`"))
    assert "100 Gb/s in all (UNCONFIRMED: ports, rate per port, MTU)" in row
    row = next(line for line in render_section() if line.startswith("| `ebmgn9g`"))
    assert "(UNCONFIRMED: model, compute capability)" in row


def test_replace_section_needs_one_marked_section():
    with pytest.raises(ValueError, match="exactly one"):
        replace_section("# README\n")
    text = "intro\n%s\nold\n%s\nafter\n" % (BEGIN, END)
    rendered = replace_section(text)
    assert rendered.startswith("intro\n" + BEGIN + "\n| family") and rendered.endswith(END + "\nafter\n")
    assert replace_section(rendered) == rendered


def test_main_rewrites_a_stale_readme(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("x\n%s\nstale\n%s\n" % (BEGIN, END), encoding="utf-8")
    assert main(["--check"], readme=readme) == 1
    assert "stale" in capsys.readouterr().err
    assert main([], readme=readme) == 0
    assert main(["--check"], readme=readme) == 0
    assert readme.read_text(encoding="utf-8") == "x\n" + "\n".join([BEGIN, *render_section(), END]) + "\n"


def test_the_does_column_is_backed_by_tests_that_exist():
    """Each family's "what the collection does on it" cell names the tests behind it; each one is collected."""
    root = instance_table.ROOT / "tests" / "unit"
    for line in render_section():
        if not line.startswith("| `"):
            continue
        tests = re.findall(r"`([\w/]+\.py)::(\w+)(?:\[([^\]]+)\])?`", line.rsplit(" | ", 1)[-1])
        assert len(tests) >= 3, line[:40]
        for path, function, case in tests:
            source = (root / path).read_text(encoding="utf-8")
            if function == "test_validate":  # validate_tests() makes it; the cases are ok_family_<every family>
                assert "validate_tests(" in source and '"ok_family_" + family' in source, path
                assert case.startswith("ok_family_") and case[len("ok_family_") :] in instance_table.table.FAMILIES
            else:
                assert re.search(r"^def %s\(" % function, source, re.M), (path, function)


def test_the_does_column_says_what_the_resolver_resolves():
    row = next(line for line in render_section() if line.startswith("| `ebmgn8is`"))
    assert "`gpu_health` 8 GPUs, no NVLink; `nccl_check` alone >= 11.02 GB/s (0.35 of PCIe Gen4 x16" in row
    row = next(line for line in render_section() if line.startswith("| `ebmgn8v`"))
    assert "18 NVLinks each (UNCONFIRMED count)" in row and "NCCL >= 2.19 enforced" in row
