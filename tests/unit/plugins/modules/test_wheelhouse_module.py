# -*- coding: utf-8 -*-
"""The wheelhouse module with a private index's credentials in pip_args: its whole result, the invocation Ansible
shows at -vvv and keeps in a registered variable included, carries none of them, and still names the index."""

from __future__ import annotations

import json

from ansible_collections.scc.training.plugins.modules import wheelhouse
from tests.unit.plugins.modules.module_runner import run_module

SECRET = "S3cretT0ken"


def test_failed_fill_result_and_invocation_carry_no_credentials(tmp_path):
    bad = tmp_path / "badpython"
    bad.write_text('#!/bin/sh\necho "ERROR: could not fetch from $*" >&2\nexit 1\n')
    bad.chmod(0o755)
    args = {
        "path": str(tmp_path / "wheels"),
        "requirements": ["torch==2.13.0"],
        "python_version": "3.11",
        "platforms": ["manylinux_2_28_x86_64"],
        "pip_args": [
            "--index-url",
            "https://alice:%s@pypi.corp/simple" % SECRET,
            "--extra-index-url=https://pypi.org/simple",
        ],
        "python": str(bad),
    }
    result = run_module(wheelhouse, args)
    assert result["failed"] is True and result["msg"] == "pip download failed"
    assert SECRET not in json.dumps(result)
    assert "https://alice:****@pypi.corp/simple" in result["output"]
    assert "pypi.corp/simple" in json.dumps(result["invocation"]["module_args"]["pip_args"])
