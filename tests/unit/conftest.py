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


# make unit runs these tests on two workers (pytest-xdist, --dist loadgroup): each file is one group, so that a file's
# module-scoped fixtures (an Ansible run shared by its cases) are computed once; the roles' validate tables and
# test_refusal_cases.py, which judges the same runs' messages again (tests/unit/roles/validate_runner.py's
# per-session cache), are one group, on one worker, so that no role's validate run is made twice.
VALIDATE_GROUP = "validate-runs"


def _group(path: Path) -> str:
    relative = path.relative_to(ROOT / "tests" / "unit")
    # The modules test_refusal_cases.role_tables() imports: tests/unit/roles/<role>/test_*validate*.py.
    in_a_role = len(relative.parts) == 3 and relative.parts[0] == "roles"
    if (in_a_role and "validate" in path.name) or path.name == "test_refusal_cases.py":
        return VALIDATE_GROUP
    return str(relative)


def pytest_collection_modifyitems(config, items):
    import pytest

    if not config.pluginmanager.hasplugin("xdist"):  # the ansible-core matrix's venvs have no pytest-xdist
        return
    for item in items:
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(_group(Path(str(item.fspath)))))
