import sys
from pathlib import Path

# The repo root, so that `lab` and the collection's plugins import from a checkout.
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / ".collections"))

# Ansible's collection finder, installed before any test imports the collection (as ansible-test's unit runner does):
# a test that needs the plugin loader (the vars lookup, tests/unit/roles/launch_render.py) would otherwise install it
# midway, after ansible_collections.* was imported as a namespace package from sys.path, and a module imported later
# got its package's search path twice ("this loader requires exactly one path to search"): `pytest tests/unit/roles`
# then failed where `make unit`'s order happened to import it first.
from ansible.plugins.loader import init_plugin_loader  # noqa: E402

init_plugin_loader([str(ROOT / ".collections")])
