"""plugins/filter/resnet.py and mpi_framework_modules: thin wrappers; errors name the filter."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter import mpi, resnet
from ansible_collections.scc.training.plugins.plugin_utils import role_plans


def test_the_filters_are_registered():
    assert resnet.FilterModule().filters() == {
        "transport_legs_problems": resnet.transport_legs_problems,
        "transport_comparison": resnet.transport_comparison,
    }
    assert role_plans.plan("mpi_framework_modules") is role_plans.mpi_framework_modules
    assert "mpi_framework_modules" not in mpi.FilterModule().filters()


def test_errors_name_the_filter():
    with pytest.raises(AnsibleFilterError, match="transport_comparison: input must be a dict of tcp and/or rdma"):
        resnet.transport_comparison({})
    assert "resnet_launch_input_problems" not in resnet.FilterModule().filters()
    with pytest.raises(AnsibleFilterError, match="mpi_framework_modules: framework must be one of"):
        role_plans.mpi_framework_modules("x")


def test_the_legs_filter_takes_the_declared_transport():
    assert resnet.transport_legs_problems(["tcp"], "tcp") == []
    assert "declares scc_transport: tcp" in resnet.transport_legs_problems(["tcp", "rdma"], "tcp")[0]
