# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Import the collection's controller-side plugins once, in ansible-playbook's own process.

Ansible runs each task of each host in a forked worker process. To find one filter of a collection, its Jinja2
plugin loader imports every file of the collection's ``plugins/filter`` package (ansible.plugins.loader.Jinja2Loader
``get_with_context`` walks them all), and a collection's Python files are compiled from source on every import (its
loader keeps no bytecode cache). A worker starts with what its parent had imported, so without this every task that
touches one filter compiled all of them and the module_utils they import again: about 30 ms of controller CPU per
task and host, a third of a converged ``prepare.yml`` run (bench/bringup_scale.py). Imported here once, in the
parent, every worker finds them in ``sys.modules`` (the loaders look there first).
"""

from __future__ import annotations

import importlib
import pkgutil

COLLECTION_PACKAGE = "ansible_collections.scc.training.plugins"
# Plugin types whose files a worker imports while it runs a task: Jinja2 filters, lookups and action plugins (and,
# through them, the module_utils and plugin_utils they import). Modules are not imported on the controller.
PLUGIN_TYPES = ("filter", "lookup", "action")


def preload(package: str = COLLECTION_PACKAGE, plugin_types: tuple[str, ...] = PLUGIN_TYPES) -> list[str]:
    """Import every plugin file of ``plugin_types`` under ``package``; the names imported, in order."""
    imported = []
    for plugin_type in plugin_types:
        try:
            types_package = importlib.import_module(f"{package}.{plugin_type}")
        except ImportError:
            # A collection without plugins of this type.
            continue
        for info in sorted(pkgutil.iter_modules(types_package.__path__, types_package.__name__ + "."), key=str):
            if not info.ispkg:
                importlib.import_module(info.name)
                imported.append(info.name)
    return imported
