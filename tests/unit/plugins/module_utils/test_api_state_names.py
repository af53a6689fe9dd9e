"""Every state name a module waits for or fails on is one the API documents (the Tea SDK response models' "Valid
values" lists, lab/cloud/contract.py): a misnamed failure state would let a wait run to its timeout."""

from ansible_collections.scc.training.plugins.module_utils import ack
from ansible_collections.scc.training.plugins.modules import nas_cpfs_protocol_service
from lab.cloud import contract


def documented(package, body, *path):
    m = contract.model(package, body)
    for key in path[:-1]:
        m = contract.model(package, m.fields[key].nested)
    return set(m.fields[path[-1]].enum)


def test_ack_cluster_states_are_the_models():
    states = documented("alibabacloud_cs20151215", "DescribeClusterDetailResponseBody", "state")
    assert {ack.READY, ack.GONE, *ack.FAILED} <= states
    assert "delete_failed" in ack.FAILED


def test_ack_node_ready_state_is_the_models():
    states = documented("alibabacloud_cs20151215", "DescribeClusterNodesResponseBody", "nodes", "state")
    assert ack.READY in states


def test_protocol_service_states_are_the_models():
    states = documented("alibabacloud_nas20170626", "DescribeProtocolServiceResponseBody", "ProtocolServices", "Status")
    assert {nas_cpfs_protocol_service.SERVICE_UP, *nas_cpfs_protocol_service.SERVICE_FAILED} <= states


def test_nat_gateway_states_are_the_models():
    """The states ecs_nat_gateway waits through or for are those DescribeNatGatewaysRequest's Status comment lists
    (alibabacloud_vpc20160428; its bullets are prose, so the contract's enum reader gives none: the comment is read)."""
    import importlib
    import inspect

    from ansible_collections.scc.training.plugins.modules import ecs_nat_gateway

    models = importlib.import_module("alibabacloud_vpc20160428.models")
    source = inspect.getsource(models.DescribeNatGatewaysRequest.__init__)
    comment = source.split("self.status = status", maxsplit=1)[0].rsplit("self.", 1)[-1]
    for state in ("Available", "Deleting", *ecs_nat_gateway.GATEWAY_PASSING):
        assert "**%s**" % state in comment, state
