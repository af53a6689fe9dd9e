"""Credentials never leave a cloud module or the inventory plugin in an error text: a real connection
error (a closed loopback port) whose text carries the signed URL, STS token included."""

import json

import pytest
from ansible.errors import AnsibleError

from ansible_collections.scc.training.plugins.inventory.ecs import InventoryModule
from ansible_collections.scc.training.plugins.modules import ecs_vpc_info, nas_cpfs_info
from tests.unit.plugins.cloud_secrets import KEY_ID, KEY_SECRET, STS_TOKEN, closed_loopback_port, secret_leaks
from tests.unit.plugins.modules.module_runner import run_module


def connection(endpoint_option):
    return {
        "access_key": KEY_ID,
        "secret_key": KEY_SECRET,
        "security_token": STS_TOKEN,
        "region": "cn-shanghai",
        endpoint_option: "127.0.0.1:%d" % closed_loopback_port(),
        "connect_timeout": 2,
        "api_retries": 0,
    }


@pytest.mark.parametrize("module,option", [(ecs_vpc_info, "ecs_endpoint"), (nas_cpfs_info, "nas_endpoint")])
def test_a_module_failing_on_a_connection_error_shows_no_credential(module, option):
    result = run_module(module, connection(option))
    assert result["failed"] and "SDK.HttpError" in result["msg"]
    assert secret_leaks(json.dumps(result)) == []


def test_a_module_refuses_plain_http_to_a_real_endpoint_naming_the_option():
    result = run_module(ecs_vpc_info, dict(connection("ecs_endpoint"), ecs_endpoint="http://ecs.example.com"))
    assert result["failed"] and "ecs_endpoint: http://ecs.example.com is plain HTTP" in result["msg"]


def test_the_inventory_plugin_failing_on_a_connection_error_shows_no_credential():
    options = dict(
        connection("ecs_endpoint"),
        read_timeout=5,
        tags={},
        vpc_id=None,
        hpc_cluster_id=None,
        instance_types=[],
        statuses=[],
    )
    plugin = InventoryModule()
    plugin.get_option = lambda name: options[name]
    with pytest.raises(AnsibleError) as err:
        plugin._fetch()
    assert "SDK.HttpError" in str(err.value) and "SecurityToken=" in str(err.value)
    assert secret_leaks(str(err.value)) == []
