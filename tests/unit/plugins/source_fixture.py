# -*- coding: utf-8 -*-
"""Real tool outputs under tests/fixtures/<family>/, each naming its public source on its first line."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def source_fixture(family, name):
    """The fixture's text, once its first line is checked to name its public source."""
    text = (FIXTURES / family / name).read_text(encoding="utf-8")
    assert text.startswith("# source: https://github.com/"), name
    return text
