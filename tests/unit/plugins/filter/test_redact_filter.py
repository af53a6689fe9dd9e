"""scc.training.redact_urls (plugins/filter/redact.py): what python_env publishes as the fact python_env_torch_build
(printed by set_fact at -v) masks a private index's credentials and keeps everything else."""

from __future__ import annotations

from ansible_collections.scc.training.plugins.filter.redact import FilterModule
from ansible_collections.scc.training.plugins.module_utils.torch_build import resolve_torch_build


def test_the_published_torch_build_masks_the_index_credentials_only():
    request = {
        "requirements": ["torch==2.13.0"],
        "torch_cuda": "12.6",
        "compute_capability": "7.0",
        "pip_extra_args": ["--index-url", "https://alice:S3cretT0ken@pypi.corp/whl/cu126", "--no-cache-dir"],
    }
    build = resolve_torch_build(request)
    published = FilterModule().filters()["redact_urls"](build)
    assert "S3cretT0ken" not in repr(published)
    assert published["pip_args"] == ["--index-url", "https://alice:****@pypi.corp/whl/cu126", "--no-cache-dir"]
    assert {k: v for k, v in published.items() if k != "pip_args"} == {
        k: v for k, v in build.items() if k != "pip_args"
    }
    # The download still gets the arguments as given.
    assert build["pip_args"][1] == "https://alice:S3cretT0ken@pypi.corp/whl/cu126"
