# -*- coding: utf-8 -*-
"""Run one of the collection's modules in the test's process, with arguments as a task gives them."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from ansible.module_utils.testing import patch_module_args


def run_module(module, args):
    """``module.main()`` with `args`: its result as a dict, ``failed`` True when it failed."""
    out = io.StringIO()
    with patch_module_args(args), contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exited:
        module.main()
    result = json.loads(out.getvalue())
    assert bool(result.get("failed")) == (exited.value.code != 0), result
    result.setdefault("failed", False)
    return result
