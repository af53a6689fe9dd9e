"""No credential leaves the cloud client in an error text, through each of its two masking layers alone and on
every error path: the values themselves (the access key, its secret, the STS token, a module's no_log options
such as cs_cluster_nodes' ACK node password; raw or percent-encoded) and the signed request's credential
parameters (AccessKeyId=, SecurityToken=, Signature=) whatever their value."""

import json
from urllib.parse import quote

import pytest
from aliyunsdkcore.acs_exception.exceptions import ClientException, ServerException
from ansible.module_utils.testing import patch_module_args

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    MASK,
    AlicloudApi,
    AlicloudApiError,
    AlicloudModule,
)
from tests.unit.plugins.cloud_secrets import KEY_ID, KEY_SECRET, STS_TOKEN, secret_leaks

PASSWORD = "Node/Passw0rd+1="


class _Replying:
    """Stands in for AcsClient: its one reply is ``error``."""

    def __init__(self, error):
        self.error = error

    def do_action_with_exception(self, request):
        raise self.error


def _failure(error, **options):
    """The AlicloudApiError an STS-credentialed client raises when its one call meets ``error``, as text."""
    api = AlicloudApi(KEY_ID, KEY_SECRET, "cn-shanghai", security_token=STS_TOKEN, api_retries=0, **options)
    api._client = _Replying(error)
    with pytest.raises(AlicloudApiError) as info:
        api.call("ecs", "DescribeVpcs", {})
    return str(info.value) + json.dumps(info.value.to_result())


def test_a_server_that_echoes_the_token_shows_it_to_no_one():
    # Not a query string: only the values layer masks it.
    text = _failure(ServerException("InvalidSecurityToken.Expired", "token %s has expired" % STS_TOKEN, 400, "R-1"))
    assert "token %s has expired" % MASK in text and secret_leaks(text) == []


def test_a_connection_error_with_the_token_outside_the_url_shows_it_to_no_one():
    text = _failure(ClientException("SDK.HttpError", "proxy refused %s (key %s)" % (quote(STS_TOKEN), KEY_SECRET)))
    assert "proxy refused %s (key %s)" % (MASK, MASK) in text and secret_leaks(text) == []


def test_the_signed_parameters_are_masked_whatever_their_value():
    # A token this client does not hold (a stale one in a cached URL): only the parameters layer masks it.
    url = "https://ecs.example/?AccessKeyId=LTAIother&SecurityToken=other%2Btoken&Signature=c2ln%3D&Action=X"
    text = _failure(ClientException("SDK.HttpError", "HTTPSConnectionPool: %s" % url))
    assert "AccessKeyId=%s&SecurityToken=%s&Signature=%s&Action=X" % (MASK, MASK, MASK) in text
    assert "other%2Btoken" not in text and "LTAIother" not in text


@pytest.mark.parametrize(
    "options, code",
    [
        ({"region": ""}, "MissingRegion"),
        ({"ecs_endpoint": "ftp://ecs.example"}, "InvalidEndpoint"),
        ({"ecs_endpoint": "http://ecs.example"}, "InsecureEndpoint"),
        ({"secret_key": ""}, "MissingCredentials"),
    ],
)
def test_no_error_of_the_client_names_a_credential(options, code):
    settings = {"access_key": KEY_ID, "secret_key": KEY_SECRET, "region": "cn-shanghai", **options}
    with pytest.raises(AlicloudApiError) as info:
        AlicloudApi(
            settings.pop("access_key"),
            settings.pop("secret_key"),
            settings.pop("region"),
            security_token=STS_TOKEN,
            **settings,
        )
    text = str(info.value) + json.dumps(info.value.to_result())
    assert info.value.code == code and secret_leaks(text) == []


def test_the_ack_node_password_is_masked_in_a_cloud_error():
    args = {"access_key": "AKID", "secret_key": "SECRET", "region": "cn-shanghai", "password": PASSWORD}
    with patch_module_args(args):
        module = AlicloudModule({"password": dict(type="str", no_log=True), "name": dict(type="str")})
    module.api._client = _Replying(
        ServerException("InvalidPassword.Malformed", "password %s is not allowed" % PASSWORD, 400, "R-1")
    )
    with pytest.raises(AlicloudApiError) as info:
        module.api.call("ecs", "DescribeVpcs", {})
    text = str(info.value) + json.dumps(info.value.to_result())
    assert "password %s is not allowed" % MASK in text and PASSWORD not in text
