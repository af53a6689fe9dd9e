"""plugins/module_utils/wheels.py and its filter: the manylinux tags pip accepts on a host."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter.wheels import wheel_platforms as wheel_platforms_filter
from ansible_collections.scc.training.plugins.module_utils.wheels import venv_version_problems, wheel_platforms
from ansible_collections.scc.training.plugins.plugin_utils import role_plans


def test_x86_64_debian12_has_every_pep600_tag_and_the_three_legacy_aliases():
    tags = wheel_platforms("x86_64", "2.36")
    assert tags[:2] == ["manylinux_2_36_x86_64", "manylinux_2_35_x86_64"]
    assert tags[-2:] == ["manylinux_2_5_x86_64", "manylinux1_x86_64"]
    assert len(tags) == (36 - 5 + 1) + 3
    # each alias right after the PEP 600 tag it equals (pip's order)
    assert tags[tags.index("manylinux_2_17_x86_64") + 1] == "manylinux2014_x86_64"
    assert tags[tags.index("manylinux_2_12_x86_64") + 1] == "manylinux2010_x86_64"


def test_aarch64_starts_at_glibc_2_17_and_has_only_manylinux2014():
    assert wheel_platforms("aarch64", "glibc 2.28") == [
        *("manylinux_2_%d_aarch64" % m for m in range(28, 16, -1)),
        "manylinux2014_aarch64",
    ]


def test_old_glibc_leaves_out_newer_aliases():
    tags = wheel_platforms("x86_64", "2.12")
    assert "manylinux2014_x86_64" not in tags and "manylinux2010_x86_64" in tags


def test_32_bit_x86_is_i686():
    assert wheel_platforms("i386", "2.17")[:2] == ["manylinux_2_17_i686", "manylinux2014_i686"]


@pytest.mark.parametrize(
    "arch,glibc,message",
    [
        ("sparc64", "2.36", "architecture"),
        ("x86_64", "musl 1.2", "glibc"),
        ("aarch64", "2.16", "older"),
    ],
)
def test_refusals(arch, glibc, message):
    with pytest.raises(ValueError, match=message):
        wheel_platforms(arch, glibc)
    with pytest.raises(AnsibleFilterError, match="wheel_platforms"):
        wheel_platforms_filter(arch, glibc)


@pytest.mark.parametrize("arch,glibc", [("x86_64", (2, 36)), ("x86_64", (2, 12)), ("aarch64", (2, 28))])
def test_same_tags_as_pip(monkeypatch, arch, glibc):
    """pip's own rule (packaging's _manylinux, a private module: skipped if it moves)."""
    manylinux = pytest.importorskip("packaging._manylinux")
    if not hasattr(manylinux, "_get_glibc_version") or not hasattr(manylinux, "_have_compatible_abi"):
        pytest.skip("packaging._manylinux changed its internals")
    monkeypatch.setattr(manylinux, "_get_glibc_version", lambda: glibc)
    monkeypatch.setattr(manylinux, "_have_compatible_abi", lambda executable, archs: True)
    monkeypatch.setattr(manylinux, "_is_compatible", lambda arch, version: True)
    assert wheel_platforms(arch, "%d.%d" % glibc) == list(manylinux.platform_tags([arch]))


# ---- venv_version_problems: python_env's verify judges every pin in one task

PINS = ["torch==2.4.1", "transformers==4.57.6", "tokenizers==0.22.1"]


def _report(dists, modules=None):
    """What python_env's verify command prints: dists from importlib.metadata, modules' __version__."""
    return {"dists": dists, "modules": modules if modules is not None else dict(dists)}


def test_a_venv_holding_every_pin_has_no_problem():
    held = _report({"torch": "2.4.1+cu121", "transformers": "4.57.6", "tokenizers": "0.22.1"})
    assert venv_version_problems(PINS, held) == []
    # a module without __version__ ("") is judged by its distribution
    assert venv_version_problems(["six==1.17.0"], _report({"six": "1.17.0"}, {"six": ""})) == []
    assert venv_version_problems([], _report({})) == []


@pytest.mark.parametrize(
    "pin, dists, modules, problem",
    [
        (
            "torch==2.4.1",
            {"torch": "2.4.0"},
            None,
            "torch 2.4.0 (module reports 2.4.0), python_env_requirements pins 2.4.1",
        ),
        # a pin naming a build holds only that build
        ("torch==2.4.1+cu121", {"torch": "2.4.1+cu118"}, None, "torch 2.4.1+cu118 (module reports 2.4.1+cu118)"),
        ("torch==2.4.1+cu121", {"torch": "2.4.1"}, None, "torch 2.4.1 (module reports 2.4.1)"),
        # a second copy shadows the venv's
        ("torch==2.4.1", {"torch": "2.4.1"}, {"torch": "2.3.0"}, "torch 2.4.1 (module reports 2.3.0)"),
        ("torch==2.4.1", {"torch": "2.4.1"}, {"torch": "2.5.0"}, "torch 2.4.1 (module reports 2.5.0)"),
        ("torch==2.4.1", {}, {}, "torch not installed (module reports nothing), python_env_requirements pins 2.4.1"),
        # a prefix is not the version
        ("torch==2.4.1", {"torch": "2.4.10"}, None, "torch 2.4.10"),
    ],
)
def test_each_pin_not_held_is_named(pin, dists, modules, problem):
    [found] = venv_version_problems([pin], _report(dists, modules))
    assert found.startswith(problem), found


def test_every_problem_is_named_in_the_pins_order():
    report = _report({"torch": "2.4.0", "transformers": "4.57.6", "tokenizers": "0.21.0"})
    assert [p.split()[0] for p in venv_version_problems(PINS, report)] == ["torch", "tokenizers"]


@pytest.mark.parametrize(
    "requirements, versions, expected",
    [("torch==2.4.1", _report({}), "must be a list"), (PINS, "{}", "must be a dict")],
)
def test_the_plan_refuses_bad_input_naming_itself(requirements, versions, expected):
    with pytest.raises(AnsibleFilterError, match="venv_version_problems: .*" + expected):
        role_plans.venv_version_problems(requirements, versions)
