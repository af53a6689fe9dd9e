"""plugins/filter/k8s.py: thin wrappers over k8s_jobs.py, each documented by its sidecar; errors name the filter."""

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import k8s
from ansible_collections.scc.training.plugins.module_utils import k8s_jobs

FILTER_DIR = Path(k8s.__file__).parent


def test_every_filter_is_registered_and_documented():
    filters = k8s.FilterModule().filters()
    assert set(filters) == {
        "scc_launcher_problems",
        "k8s_cpfs_volume_manifests",
        "k8s_training_job",
        "k8s_launcher_variables",
        "mpijob_manifest",
        "arena_submit_command",
        "mpijob_status",
        "mpijob_results",
        "mpijob_conflict",
    }
    for name in filters:
        doc = yaml.safe_load((FILTER_DIR / ("%s.yml" % name)).read_text())
        assert doc["DOCUMENTATION"]["name"] == name and doc["RETURN"]["_value"]["description"]


def test_errors_name_the_filter():
    with pytest.raises(AnsibleFilterError, match=r"k8s_cpfs_volume_manifests: k8s_cpfs_volume: .*k8s_cpfs_volume_size"):
        k8s.k8s_cpfs_volume_manifests({"k8s_cpfs_volume_size": ""})
    with pytest.raises(AnsibleFilterError, match="k8s_training_job: input must be a dict"):
        k8s.k8s_training_job([])
    with pytest.raises(AnsibleFilterError, match="k8s_launcher_variables: k8s_training_job_workload"):
        k8s.k8s_launcher_variables("gpt")
    with pytest.raises(AnsibleFilterError, match="mpijob_manifest: input must be a dict"):
        k8s.mpijob_manifest("job")
    old = "%s\n{\"run_id\": \"old\"}\n%s\n" % (k8s_jobs.RESULTS_BEGIN, k8s_jobs.RESULTS_END)
    with pytest.raises(AnsibleFilterError, match=r"mpijob_results: .*run old, not this run new"):
        k8s.mpijob_results(old, "new", True, "tcp", "scc-bert-x")
    with pytest.raises(AnsibleFilterError, match="mpijob_conflict: input must be a dict or none"):
        k8s.mpijob_conflict("job", {})


def test_the_launcher_variables_are_the_launchers_public_ones():
    """Each name the MPIJob is built from is an option of the launcher's role spec (a rename there fails here)."""
    root = Path(__file__).resolve().parents[4] / "roles"
    for workload, role in (("bert", "bert_launch"), ("resnet", "resnet_launch")):
        spec = yaml.safe_load((root / role / "meta/argument_specs.yml").read_text())
        assert set(k8s.k8s_launcher_variables(workload)) <= set(spec["argument_specs"]["main"]["options"])
    assert k8s.scc_launcher_problems("mpijob") == [] and k8s.scc_launcher_problems("x")
    assert k8s.mpijob_status(None)["finished"] is False
    assert k8s.mpijob_results("", "r", False)["status"] == "failed"
    assert k8s_jobs.UNDEFINED == "__scc_training_undefined__"
