import sys
from pathlib import Path

# The repo root, so that `lab` and the collection's plugins import from a checkout.
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / ".collections"))
# The torch scripts' tests run in their own pytest process without Ansible: importing it patches sys.intern, which
# torch._dynamo refuses ("substitute_in_graph expects a function").
TORCH_TESTS = (ROOT / "tests" / "unit" / "bert", ROOT / "tests" / "unit" / "resnet")


def pytest_configure(config):
    """Ansible's collection finder, installed before any test imports the collection (as ansible-test's unit runner
    does): a test that needs the plugin loader (the vars lookup, tests/unit/roles/launch_render.py) installed it
    midway, after ansible_collections.* was imported as a namespace package from sys.path, and a module imported later
    got its package's search path twice ("this loader requires exactly one path to search"): `pytest tests/unit/roles`
    failed on its own where `make unit`'s order imported the module first. Not in a run of the torch tests alone."""
    here = config.invocation_params.dir
    paths = [(here / str(arg).split("::", maxsplit=1)[0]).resolve() for arg in config.args]
    if paths and all(any(path == d or d in path.parents for d in TORCH_TESTS) for path in paths):
        return
    from ansible.plugins.loader import init_plugin_loader

    init_plugin_loader([str(ROOT / ".collections")])
