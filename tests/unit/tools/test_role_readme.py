"""tools/role_readme.py: role README variable tables generated from meta/argument_specs.yml."""

from __future__ import annotations

import textwrap

import pytest
import yaml

from tools import role_readme
from tools.role_readme import BEGIN, END, MarkersMissing, default_cell, render_markup, render_section, replace_section

SPECS = {
    "main": {
        "short_description": "Write the thing",
        "options": {
            "demo_mode": {
                "type": "str",
                "default": "fast",
                "choices": ["fast", "safe"],
                "description": ["How to run: V(fast) or V(safe).", "See O(demo_paths)."],
            },
            "demo_paths": {
                "type": "list",
                "elements": "str",
                "default": [],
                "description": "Paths; C(a|b) is literal.",
            },
            "demo_targets": {
                "type": "list",
                "elements": "dict",
                "default": [],
                "description": "Targets.",
                "options": {"name": {"type": "str", "required": True, "description": "Its I(name)."}},
            },
        },
    },
}
SPECS["validate"] = {"short_description": "Check the demo variables.", "options": SPECS["main"]["options"]}
SPECS["stop"] = {"short_description": "Stop it", "options": {"demo_force": {"type": "bool", "description": "Force."}}}


# --- rendering --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "markup,markdown",
    [
        ("C(nvidia-smi -q -x) prints", "`nvidia-smi -q -x` prints"),
        ("O(cuda_version=12.8) and V(repo)", "`cuda_version=12.8` and `repo`"),
        (
            "E(SCC_LAB_DIR), P(scc.training.gpu_info#module), RV(changed)",
            "`SCC_LAB_DIR`, `scc.training.gpu_info#module`, `changed`",
        ),
        ("M(scc.training.ecs_vpc)", "`scc.training.ecs_vpc`"),
        ("I(not) B(this)", "*not* **this**"),
        (
            "L(the docs, https://example.org/x) or U(https://example.org/y)",
            "[the docs](https://example.org/x) or <https://example.org/y>",
        ),
        ("C(a|b) in a cell", "`a\\|b` in a cell"),
        ("bert-<run_id>.json, 1|2, *x*", "bert-\\<run_id>.json, 1\\|2, \\*x\\*"),
        ("CUDA (nvcc) and I alone", "CUDA (nvcc) and I alone"),
    ],
)
def test_render_markup(markup, markdown):
    assert render_markup(markup) == markdown


@pytest.mark.parametrize(
    "spec,cell",
    [
        ({"default": "12.8"}, "`12.8`"),
        ({"default": ""}, '`""`'),
        ({"default": True}, "`true`"),
        ({"default": 1800}, "`1800`"),
        ({"default": ["torch==2.13.0"]}, '`["torch==2.13.0"]`'),
        ({"default": {"A": "1"}}, '`{"A": "1"}`'),
        (
            {"default": "{{ scc_cluster_group | default('scc_cluster') }}"},
            "`{{ scc_cluster_group \\| default('scc_cluster') }}`",
        ),
        ({"required": True}, "required"),
        ({}, ""),
    ],
)
def test_default_cell(spec, cell):
    assert default_cell(spec) == cell


def test_section_lists_main_options_then_the_other_entry_points():
    lines = render_section(SPECS)
    assert lines[0] == "Entry point `main` (ansible checks these when the role runs): Write the thing."
    assert lines[2:4] == ["| Variable | Type | Default | Choices | Description |", "|---|---|---|---|---|"]
    assert lines[4:7] == [
        "| `demo_mode` | str | `fast` | `fast`, `safe` | How to run: `fast` or `safe`. See `demo_paths`. |",
        "| `demo_paths` | list of str | `[]` |  | Paths; `a\\|b` is literal. |",
        "| `demo_targets` | list of dict | `[]` |  | Targets. |",
    ]
    # Suboptions follow their option, named by their path.
    assert lines[7] == "| `demo_targets.name` | str | required |  | Its *name*. |"
    text = "\n".join(lines)
    # validate shares main's options (one YAML anchor): said, not repeated; stop has its own table.
    assert "- `validate`: Check the demo variables. The same options as `main`." in text
    assert "- `stop`: Stop it.\n\n  | Variable |" in text
    assert "  | `demo_force` | bool |  |  | Force. |" in text
    assert text.index("`stop`") < text.index("`validate`")


# --- the README section -------------------------------------------------------------------------

README = textwrap.dedent(
    """\
    # demo

    Prose before.

    ## Variables

    <!-- BEGIN ARGUMENT SPECS -->
    | hand | written |
    <!-- END ARGUMENT SPECS -->

    Prose after.
    """
)


def test_replace_section_keeps_the_prose_around_the_markers():
    out = replace_section(README, ["generated"])
    assert out == README.replace("<!-- BEGIN ARGUMENT SPECS -->\n| hand | written |", f"{BEGIN}\ngenerated")
    # Idempotent: the canonical BEGIN line is found again.
    assert replace_section(out, ["generated"]) == out


@pytest.mark.parametrize(
    "text",
    [
        "# no markers\n",
        f"{BEGIN}\n",
        f"{END}\n{BEGIN}\n",
        f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n",
    ],
)
def test_replace_section_refuses_a_readme_without_one_marker_pair(text):
    with pytest.raises(MarkersMissing):
        replace_section(text, ["generated"])


@pytest.fixture
def roles(tmp_path):
    for role in ("alpha", "beta"):
        (tmp_path / role / "meta").mkdir(parents=True)
        (tmp_path / role / "meta" / "argument_specs.yml").write_text(yaml.safe_dump({"argument_specs": SPECS}))
        (tmp_path / role / "README.md").write_text(README)
    return tmp_path


def test_check_names_each_stale_role_and_rewriting_makes_it_current(roles, capsys):
    assert role_readme.main(["--check"], roles_dir=roles) == 1
    err = capsys.readouterr().err
    assert "alpha: " in err and "beta: " in err and "stale" in err
    assert (roles / "alpha" / "README.md").read_text() == README, "--check rewrote a file"

    assert role_readme.main([], roles_dir=roles) == 0
    assert role_readme.main(["--check"], roles_dir=roles) == 0
    text = (roles / "alpha" / "README.md").read_text()
    assert "Prose before." in text and "Prose after." in text and "| `demo_mode` |" in text


def test_check_detects_a_changed_spec_in_one_role(roles, capsys):
    role_readme.main([], roles_dir=roles)
    capsys.readouterr()
    spec_file = roles / "beta" / "meta" / "argument_specs.yml"
    specs = yaml.safe_load(spec_file.read_text())
    specs["argument_specs"]["main"]["options"]["demo_mode"]["default"] = "safe"
    spec_file.write_text(yaml.safe_dump(specs))
    assert role_readme.main(["--check"], roles_dir=roles) == 1
    err = capsys.readouterr().err
    assert err.startswith("beta: ") and "alpha" not in err


def test_a_readme_without_markers_fails_naming_the_role(roles, capsys):
    (roles / "alpha" / "README.md").write_text("# alpha\n")
    assert role_readme.main(["--check"], roles_dir=roles) == 1
    assert "alpha: " in capsys.readouterr().err
    assert role_readme.main(["alpha"], roles_dir=roles) == 1
