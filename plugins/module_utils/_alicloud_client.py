# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The Alibaba Cloud RPC and ROA client (compare amazon.aws botocore.py): ``AlicloudApi``, one signed
AcsClient per run for ECS 2014-05-26, NAS 2017-06-26 (RPC) and CS 2015-12-15 (ROA); the endpoint rule
(HTTPS, plain HTTP only to loopback), the request-derived ClientToken, the RPC parameter form, and the
one retry loop (policy in ``_alicloud_retries``, errors in ``_alicloud_errors``).

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import random
import time
from urllib.parse import urlsplit

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.scc.training.plugins.module_utils._alicloud_errors import (
    AlicloudApiError,
    mask_secrets,
    roa_error,
)
from ansible_collections.scc.training.plugins.module_utils._alicloud_retries import (
    DEPENDENCY_TIMEOUT,
    backoff_delay,
    is_dependency_error,
    is_retryable,
)
from ansible_collections.scc.training.plugins.module_utils._alicloud_tagging import tags_to_api

try:
    from aliyunsdkcore.acs_exception.exceptions import ClientException, ServerException
    from aliyunsdkcore.auth.credentials import AccessKeyCredential, StsTokenCredential
    from aliyunsdkcore.client import AcsClient
    from aliyunsdkcore.http import protocol_type
    from aliyunsdkcore.request import CommonRequest

    HAS_SDK = True
    SDK_IMPORT_ERROR = None
except ImportError as exc:  # pragma: no cover - exercised only without the SDK
    HAS_SDK = False
    SDK_IMPORT_ERROR = exc

# product -> (SDK product code, API version, default endpoint pattern)
PRODUCTS = {
    "ecs": ("Ecs", "2014-05-26", "ecs.{region}.aliyuncs.com"),
    "nas": ("NAS", "2017-06-26", "nas.{region}.aliyuncs.com"),
    # VPCs and vSwitches: the VPC API (2016-04-28; alibabacloud_vpc20160428), not ECS 2014-05-26's older copies of
    # its actions. Endpoint vpc.<region>.aliyuncs.com (VPC API reference, "Endpoints").
    "vpc": ("Vpc", "2016-04-28", "vpc.{region}.aliyuncs.com"),
    # ROA: aliyun-python-sdk-cs 4.8.1, aliyunsdkcs/request/v20151215/*Request.py
    # (RoaRequest.__init__(self, 'CS', '2015-12-15', ...)); endpoint cs.<region>.aliyuncs.com.
    "cs": ("CS", "2015-12-15", "cs.{region}.aliyuncs.com"),
}


# A ClientToken is at most 64 ASCII characters (ECS "How to ensure idempotence").
CLIENT_TOKEN_LENGTH = 64
# How many fresh tokens a create may try when the resource an earlier token made is gone.
TOKEN_GENERATIONS = 8
# How long a create waits for what its token made to appear in Describe* (eventual consistency)
# before it takes that resource for deleted and moves to the next token.
LISTING_TIMEOUT = 60


def endpoint_protocol(option, endpoint):
    """``(host[:port], protocol)`` of an endpoint option: HTTPS, except plain HTTP to a loopback host.

    The V1.0 SDKs send plain HTTP unless the request says otherwise; the protocol is set per request
    (alibabacloud.com/help/en/sdk/developer-reference/using-https-1, "Configure an HTTPS request"),
    in aliyunsdkcore ``request.set_protocol_type(protocol_type.HTTPS)`` (request.py:
    ``_default_protocol_type = protocol_type.HTTP``). http_response.py compares with ``is``, so the
    SDK's own constants are returned, never equal strings.
    An endpoint with ``http://`` is refused unless its host is loopback (the emulator).
    """
    scheme, sep, rest = endpoint.partition("://")
    if not sep:
        scheme, rest = "", endpoint
    scheme = scheme.lower()
    rest = rest.rstrip("/")
    host = urlsplit("//" + rest).hostname or ""
    if scheme not in ("", "http", "https"):
        raise AlicloudApiError(
            "client", "InvalidEndpoint", "%s: %r is neither https:// nor a host name" % (option, endpoint)
        )
    if scheme == "https":
        return rest, protocol_type.HTTPS
    if is_loopback(host):
        return rest, protocol_type.HTTP
    if scheme == "http":
        raise AlicloudApiError(
            "client",
            "InsecureEndpoint",
            "%s: %s is plain HTTP to a host that is not loopback; use https:// (plain HTTP is allowed only to"
            " 127.0.0.0/8, ::1 or localhost: the emulator)" % (option, endpoint),
        )
    return rest, protocol_type.HTTPS


def is_loopback(host):
    """True for localhost and addresses in 127.0.0.0/8 or ::1."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def client_token(action, params, generation=0, basis=None):
    """A ClientToken derived from the request: same request, same token, in any run.

    ``generation`` > 0 gives a different token for the same request; it is used when the
    resource the previous token made was deleted since (a token keeps returning its result).

    ``basis`` is what the create was decided from and the request does not show (ecs_instance: the
    IDs the set already has). ECS makes the token one create's identity, not the request's: "a unique
    ... string that is generated by a client" for "the idempotence of the retried requests", and a
    token in use returns that create's result (alibabacloud.com/help/en/ecs/developer-reference/
    how-to-ensure-idempotence; research/aliyun_facts.md, ClientToken). Two creates with the same
    parameters, such as growing a set 1 -> 2 after creating its first instance, must differ in
    ``basis``; a retry of one create, made from the same state, keeps it and so its token.
    None leaves the token as the request alone gives it.
    """
    canonical = {k: v for k, v in params.items() if k not in ("ClientToken", "DryRun")}
    key = [action, canonical, generation] if basis is None else [action, canonical, generation, basis]
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), default=str)
    return "scc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[: CLIENT_TOKEN_LENGTH - 4]


def flatten_params(params):
    """Flatten lists and tag dicts into the RPC form (``Tag.1.Key``, ``InstanceId.1``)."""
    flat = {}
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, dict) and key == "Tag":
            flat.update(tags_to_api(value))
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value, start=1):
                if isinstance(item, dict):
                    for sub_key, sub_value in item.items():
                        flat["%s.%d.%s" % (key, i, sub_key)] = sub_value
                else:
                    flat["%s.%d" % (key, i)] = item
        elif isinstance(value, bool):
            flat[key] = "true" if value else "false"
        else:
            flat[key] = value
    return flat


def roa_query(query):
    """ROA query parameters as strings (booleans as ``true``/``false``); None values dropped."""
    out = {}
    for key, value in (query or {}).items():
        if value is None:
            continue
        out[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


class AlicloudApi:
    """One signed RPC client per run, shared by the ECS and NAS calls of a module or plugin."""

    def __init__(
        self,
        access_key,
        secret_key,
        region,
        security_token=None,
        ecs_endpoint=None,
        nas_endpoint=None,
        cs_endpoint=None,
        vpc_endpoint=None,
        connect_timeout=5,
        read_timeout=30,
        api_retries=6,
        sleep=time.sleep,
        clock=time.monotonic,
        listing_timeout=LISTING_TIMEOUT,
        dependency_timeout=DEPENDENCY_TIMEOUT,
        secrets=(),
    ):
        """``secrets``: other values masked in the error texts besides the credentials (a module's no_log
        options: the ACK node password of cs_cluster_nodes)."""
        if not HAS_SDK:
            raise AlicloudApiError("client", "SDK.Missing", missing_required_lib("aliyun-python-sdk-core"))
        if not access_key or not secret_key:
            raise AlicloudApiError(
                "client",
                "MissingCredentials",
                "set access_key and secret_key, or ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET",
            )
        if not region:
            raise AlicloudApiError("client", "MissingRegion", "set region, or ALIBABA_CLOUD_REGION_ID")
        self._secrets = [value for value in (access_key, secret_key, security_token, *secrets) if value]
        self._endpoints = {
            "ecs": endpoint_protocol("ecs_endpoint", ecs_endpoint or PRODUCTS["ecs"][2].format(region=region)),
            "nas": endpoint_protocol("nas_endpoint", nas_endpoint or PRODUCTS["nas"][2].format(region=region)),
            "cs": endpoint_protocol("cs_endpoint", cs_endpoint or PRODUCTS["cs"][2].format(region=region)),
            "vpc": endpoint_protocol("vpc_endpoint", vpc_endpoint or PRODUCTS["vpc"][2].format(region=region)),
        }
        if security_token:
            credential = StsTokenCredential(access_key, secret_key, security_token)
        else:
            credential = AccessKeyCredential(access_key, secret_key)
        # auto_retry=False: our retry below is the only one, for every action.
        self._client = AcsClient(
            region_id=region,
            credential=credential,
            auto_retry=False,
            connect_timeout=connect_timeout,
            timeout=read_timeout,
        )
        self.region = region
        self._attempts = max(1, int(api_retries) + 1)
        self._sleep = sleep
        self._clock = clock
        self._listing_timeout = listing_timeout
        self._dependency_timeout = dependency_timeout
        self.calls = []  # (action, attempts) of this run, for debugging output

    def _request(self, product, action, params):
        code, version, _pattern = PRODUCTS[product]
        domain, protocol = self._endpoints[product]
        request = CommonRequest(domain=domain, version=version, action_name=action, product=code)
        request.set_protocol_type(protocol)
        request.set_method("POST")
        request.set_accept_format("json")
        for key, value in flatten_params(params).items():
            request.add_query_param(key, value)
        return request

    def _roa_request(self, action, method, path, query=None, body=None):
        """A signed-as-the-SDK-signs ROA request (aliyunsdkcore request.py ``RoaRequest``, reached through
        ``CommonRequest`` with a ``uri_pattern``): ``path`` is sent as it is (ids are never encoded by
        the SDK either), ``query`` in the URL, ``body`` as JSON (Content-Type application/json)."""
        code, version, _pattern = PRODUCTS["cs"]
        domain, protocol = self._endpoints["cs"]
        request = CommonRequest(domain=domain, version=version, action_name=action, uri_pattern=path, product=code)
        request.set_protocol_type(protocol)
        request.set_method(method)
        request.set_accept_format("json")
        for key, value in roa_query(query).items():
            request.add_query_param(key, value)
        if body is not None:
            request.set_content_type("application/json")
            request.set_content(json.dumps(body, sort_keys=True).encode("utf-8"))
        return request

    def call(self, product, action, params=None, client_token_generation=None, before_retry=None, token_basis=None):
        """Call ``action``; return the reply as a dict. Raise AlicloudApiError on failure.

        ``client_token_generation`` (an int) marks a create call: it gets a ClientToken derived
        from the request (and ``token_basis``, see ``client_token``), so every retry here and in
        later runs is the same request to the cloud.
        ``before_retry(error)`` marks a create without ClientToken: run before each retry with the
        attempt's AlicloudApiError, it returns the reply to use instead when the failed attempt did
        create the resource (a lost reply), else None.
        """
        params = dict(params or {})
        if client_token_generation is not None:
            params["ClientToken"] = client_token(action, params, client_token_generation, token_basis)
        return self._send(action, lambda: self._request(product, action, params), before_retry)

    def call_roa(self, action, method, path, query=None, body=None, before_retry=None):
        """Call the CS (ACK) ROA ``action``: ``method`` on ``path`` with ``query`` and a JSON ``body``.
        Same retries, errors and masking as ``call``; ``before_retry`` as there (a create without a
        token: the cluster listed by name and tags is what a lost reply made)."""
        return self._send(action, lambda: self._roa_request(action, method, path, query, body), before_retry)

    def _send(self, action, build, before_retry=None):
        attempt = 0
        while True:
            attempt += 1
            try:
                body = self._client.do_action_with_exception(build())
                self.calls.append((action, attempt))
                return json.loads(body) if body else {}
            except ServerException as exc:
                code, message, request_id = roa_error(exc.get_error_code(), exc.get_error_msg(), exc.get_request_id())
                error = AlicloudApiError(
                    action,
                    code,
                    mask_secrets(message, self._secrets),
                    exc.get_http_status(),
                    request_id,
                    attempt,
                )
            except ClientException as exc:
                message = mask_secrets(exc.get_error_msg(), self._secrets)
                error = AlicloudApiError(action, exc.get_error_code(), message, None, None, attempt)
            if attempt >= self._attempts or not is_retryable(error.code, error.http_status):
                self.calls.append((action, attempt))
                raise error
            self._sleep(backoff_delay(attempt - 1))
            made = before_retry(error) if before_retry else None
            if made is not None:
                self.calls.append((action, attempt))
                return made

    def delete(self, product, action, params):
        """Call the delete ``action``; a dependency error (``is_dependency_error``) is retried with
        backoff until ``dependency_timeout`` passes, then raised as it is."""
        deadline = self._clock() + self._dependency_timeout
        attempt = 0
        while True:
            try:
                return self.call(product, action, params)
            except AlicloudApiError as exc:
                if not is_dependency_error(action, exc.code) or self._clock() >= deadline:
                    raise
            pause = backoff_delay(attempt, base=1.0, cap=15.0, rand=lambda: 0.5 + random.random() / 2)
            self._sleep(min(pause, max(0.0, deadline - self._clock())))
            attempt += 1

    def paginate(self, product, action, params, list_path):
        """All items of a PageNumber/PageSize listing; ``list_path`` like ("Vpcs", "Vpc")."""
        items = []
        page = 1
        while True:
            reply = self.call(product, action, dict(params, PageNumber=page, PageSize=50))
            node = reply
            for key in list_path:
                node = (node or {}).get(key) or {}
            batch = node if isinstance(node, list) else []
            items.extend(batch)
            total = int(reply.get("TotalCount", 0) or 0)
            if not batch or len(items) >= total:
                return items
            page += 1

    def paginate_token(self, product, action, params, list_key):
        """All items of a NextToken/MaxResults listing: where the API offers it (DescribeInstances,
        DescribeSecurityGroups, the NAS protocol service actions; PageNumber/PageSize is "about to be deprecated"
        in DescribeInstances, research/aliyun_facts.md). ``list_key``: the reply's list, flat or RPC-wrapped."""
        items = []
        token = None
        while True:
            page = dict(params, MaxResults=100)
            if token:
                page["NextToken"] = token
            reply = self.call(product, action, page)
            items.extend(_as_list(reply.get(list_key)))
            token = reply.get("NextToken")
            if not token:
                return items

    def create(self, product, action, params, id_field, still_exists, token_basis=None):
        """Create with a derived ClientToken; return ``(id, reply)``. ``token_basis``: what the
        create was decided from, where two creates may send the same request (``client_token``).

        Describe* may not list a new resource yet (eventual consistency): the same token is kept
        (a repeat returns what it made, never a second one) until ``still_exists(id)`` says yes or
        ``listing_timeout`` passes. A token keeps returning what it made even after that was
        deleted: only then is the next generation of token tried, a deterministic sequence, so a
        retry in a later run still converges.
        """
        for generation in range(TOKEN_GENERATIONS):
            reply = self.call(product, action, params, client_token_generation=generation, token_basis=token_basis)
            resource_id = _dig(reply, id_field)
            if resource_id and self.wait_listed(resource_id, still_exists):
                return resource_id, reply
        raise AlicloudApiError(action, "ClientTokenExhausted", "every derived ClientToken names a deleted resource")

    def wait_listed(self, resource_id, still_exists):
        """True once ``still_exists`` says yes for ``resource_id`` (or any of a list of ids), False when
        ``listing_timeout`` passes first; polled with a growing pause."""
        ids = resource_id if isinstance(resource_id, list) else [resource_id]
        deadline = self._clock() + self._listing_timeout
        pause = 0.1
        while not any(still_exists(i) for i in ids):
            if self._clock() >= deadline:
                return False
            self._sleep(pause)
            pause = min(pause * 2, 5.0)
        return True


def _as_list(node):
    """A reply list, flat (``[...]``) or wrapped the RPC way (``{"Item": [...]}``)."""
    if isinstance(node, dict):
        node = next(iter(node.values()), []) if len(node) == 1 else []
    return list(node or [])


def _dig(node, path):
    for key in path.split("."):
        node = (node or {}).get(key)
    return node
