"""plugins/module_utils/wheels.py and its filter: the manylinux tags pip accepts on a host."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter.wheels import wheel_platforms as wheel_platforms_filter
from ansible_collections.scc.training.plugins.module_utils.wheels import wheel_platforms


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
