"""The unit tests import the collection through Ansible's collection finder from the start (tests/unit/conftest.py):
a test that installs it midway left the packages imported before it with their search path twice, and a module
imported after that failed ("this loader requires exactly one path to search"), so `pytest tests/unit/roles` failed
on its own while `make unit`'s order passed."""

import sys

from ansible.utils.collection_loader import AnsibleCollectionConfig


def test_the_collection_finder_is_installed_before_any_test_runs():
    assert AnsibleCollectionConfig.collection_finder is not None


def test_no_collection_package_searches_a_path_twice():
    from ansible_collections.scc.training.plugins.module_utils import health  # noqa: F401  (a module imported late)

    packages = {name: list(module.__path__) for name, module in list(sys.modules.items())
                if name.startswith("ansible_collections.scc.training") and hasattr(module, "__path__")}  # fmt: skip
    assert packages and all(len(paths) == len(set(paths)) for paths in packages.values()), packages
