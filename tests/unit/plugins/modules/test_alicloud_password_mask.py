"""A module's no_log options (cs_cluster_nodes' ACK node password) join the credentials on the list of
values masked in the cloud's error texts: a server that echoes the password back shows it to no one."""

import json

from aliyunsdkcore.acs_exception.exceptions import ServerException
from ansible.module_utils.testing import patch_module_args

from ansible_collections.scc.training.plugins.module_utils._alicloud import MASK, AlicloudApiError, AlicloudModule

PASSWORD = "Node/Passw0rd+1="


class _EchoingServer:
    """Stands in for AcsClient: its one reply is an error whose message quotes the request's password."""

    def do_action_with_exception(self, request):
        raise ServerException("InvalidPassword.Malformed", "password %s is not allowed" % PASSWORD, 400, "R-1")


def test_the_ack_node_password_is_masked_in_a_cloud_error():
    args = {"access_key": "AKID", "secret_key": "SECRET", "region": "cn-shanghai", "password": PASSWORD}
    with patch_module_args(args):
        module = AlicloudModule({"password": dict(type="str", no_log=True), "name": dict(type="str")})
    module.api._client = _EchoingServer()
    try:
        module.api.call("ecs", "DescribeVpcs", {})
    except AlicloudApiError as exc:
        text = str(exc) + json.dumps(exc.to_result())
    assert "password %s is not allowed" % MASK in text and PASSWORD not in text
