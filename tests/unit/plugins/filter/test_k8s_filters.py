"""plugins/filter/k8s.py: thin wrappers over k8s_jobs.py, each documented by its sidecar; errors name the filter."""

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import k8s
from ansible_collections.scc.training.plugins.module_utils import k8s_jobs
from ansible_collections.scc.training.plugins.plugin_utils import role_plans

FILTER_DIR = Path(k8s.__file__).parent


def test_every_filter_is_registered_and_documented():
    filters = k8s.FilterModule().filters()
    assert set(filters) == {
        "scc_launcher_problems",
        "k8s_training_job",
        "mpijob_manifest",
        "arena_submit_command",
    }
    for name in (
        "k8s_cpfs_volume_manifests",
        "k8s_launcher_variables",
        "mpijob_status",
        "mpijob_results",
        "mpijob_conflict",
    ):
        assert role_plans.plan(name) is getattr(role_plans, name)
    for name in filters:
        doc = yaml.safe_load((FILTER_DIR / ("%s.yml" % name)).read_text())
        assert doc["DOCUMENTATION"]["name"] == name and doc["RETURN"]["_value"]["description"]


def test_errors_name_the_filter():
    with pytest.raises(AnsibleFilterError, match=r"k8s_cpfs_volume_manifests: k8s_cpfs_volume: .*k8s_cpfs_volume_size"):
        role_plans.k8s_cpfs_volume_manifests({"k8s_cpfs_volume_size": ""})
    with pytest.raises(AnsibleFilterError, match="k8s_training_job: input must be a dict"):
        k8s.k8s_training_job([])
    with pytest.raises(AnsibleFilterError, match="k8s_launcher_variables: k8s_training_job_workload"):
        role_plans.k8s_launcher_variables("gpt")
    with pytest.raises(AnsibleFilterError, match="mpijob_manifest: input must be a dict"):
        k8s.mpijob_manifest("job")
    old = "%s\n{\"run_id\": \"old\"}\n%s\n" % (k8s_jobs.RESULTS_BEGIN, k8s_jobs.RESULTS_END)
    with pytest.raises(AnsibleFilterError, match=r"mpijob_results: .*run old, not this run new"):
        role_plans.mpijob_results(old, "new", True, "tcp", "scc-bert-x")
    with pytest.raises(AnsibleFilterError, match="mpijob_conflict: input must be a dict or none"):
        role_plans.mpijob_conflict("job", {})


def test_the_launcher_variables_are_the_launchers_public_ones():
    """Each name the MPIJob is built from is an option of the launcher's role spec (a rename there fails here)."""
    root = Path(__file__).resolve().parents[4] / "roles"
    for workload, role in (("bert", "bert_launch"), ("resnet", "resnet_launch")):
        spec = yaml.safe_load((root / role / "meta/argument_specs.yml").read_text())
        assert set(role_plans.k8s_launcher_variables(workload)) <= set(spec["argument_specs"]["main"]["options"])
    assert k8s.scc_launcher_problems("mpijob") == [] and k8s.scc_launcher_problems("x")
    assert role_plans.mpijob_status(None)["finished"] is False
    assert role_plans.mpijob_results("", "r", False)["status"] == "failed"
    assert k8s_jobs.UNDEFINED == "__scc_training_undefined__"
