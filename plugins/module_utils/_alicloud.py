# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The one Alibaba Cloud client factory of scc.training (ECS 2014-05-26 and NAS 2017-06-26 RPC,
CS 2015-12-15 ROA).

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.

Every module and the ``scc.training.ecs`` inventory plugin talk to the cloud through
``AlicloudApi.call``. It adds what the SDK (aliyun-python-sdk-core) does not do:

* our own bounded, jittered retry on throttling, 5xx and connection errors for EVERY action
  (the SDK retries only some ECS actions and no NAS action, so its own retry is switched off
  and the two never multiply);
* a ``ClientToken`` on every create call, derived from the request itself, so that a run that
  retries after a lost reply (even a later run) presents the same token and the cloud returns
  the resource it already made instead of a second one (the SDK never sets one: a known bug);
* errors as ``AlicloudApiError`` with code, message, HTTP status and request id, the credentials
  masked in them (raw and percent-encoded: a connection error's text carries the signed URL);
* HTTPS for every request (the SDK's default is plain HTTP), plain HTTP only to a loopback
  endpoint (the emulator, lab/cloud/); any other ``http://`` endpoint is refused.

The Container Service for Kubernetes (ACK) API, CS 2015-12-15, is a ROA API (method + path + JSON
body, signed in the Authorization header): ``AlicloudApi.call_roa`` sends it through the same
AcsClient, credentials, endpoint rule, retry loop and masking as ``call`` (one client, one factory).

On top of it, what every module shares: a ``ResourceKind`` per kind of resource (how it is
listed, created, deleted and shown), ``find_all`` / ``find_one`` (the one look-up: every page, by
name, tags or id; ``find_one`` refuses to guess between several), and ``AlicloudModule``, whose
``for_state`` + ``run_state`` run a state module and ``run_info`` an info module.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import random
import re
import time
from urllib.parse import quote, quote_plus, urlsplit

from ansible.module_utils.basic import AnsibleModule, env_fallback, missing_required_lib

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
    # ROA: aliyun-python-sdk-cs 4.8.1, aliyunsdkcs/request/v20151215/*Request.py
    # (RoaRequest.__init__(self, 'CS', '2015-12-15', ...)); endpoint cs.<region>.aliyuncs.com.
    "cs": ("CS", "2015-12-15", "cs.{region}.aliyuncs.com"),
}

# Transient errors: retried with backoff. Everything else fails at once.
RETRY_CODES = frozenset(
    (
        "Throttling",
        "Throttling.User",
        "Throttling.Api",
        "Throttling.Resource",
        "ServiceUnavailable",
        "InternalError",
        "InternalError.Dispatch",
        "UnknownError",
        "SDK.HttpError",  # connection refused/reset, read or connect timeout
    )
)

# Deletes refused because something still depends on the resource: retried (with backoff) until the
# module's dependency deadline, as a teardown deletes in order and the cloud releases what it
# deleted with a lag ("releasing ECS instances and ENIs is asynchronous", DeleteSecurityGroup).
# A code matches when it is one of these or starts with one of them plus ".".
DEPENDENCY_RETRY_CODES = {
    # DeleteVpc: "release or transfer every resource in the VPC first" (help.aliyun.com document 35738);
    # the emulator names the dependency (DependencyViolation.VSwitch, .SecurityGroup).
    "DeleteVpc": ("DependencyViolation",),
    # DeleteVSwitch: 400 DependencyViolation "Specified object has dependent resources." (DeleteVSwitch error codes)
    "DeleteVSwitch": ("DependencyViolation",),
    # DeleteSecurityGroup: 403 DependencyViolation "There is still instance(s) in the specified security group."
    # (alibabacloud.com/help/doc-detail/25558.htm)
    "DeleteSecurityGroup": ("DependencyViolation",),
    # DeleteHpcCluster: UNCONFIRMED, its documented error list names no dependency code; the emulator's.
    "DeleteHpcCluster": ("DependencyViolation",),
    # DeleteFileSystem: "delete all mount targets first" (alibabacloud.com/help/en/nas/api-deletefilesystem);
    # the code is UNCONFIRMED (not in the documented list): the emulator's.
    "DeleteFileSystem": ("OperationDenied.DependencyViolation",),
    "DeleteProtocolService": ("OperationDenied.DependencyViolation",),
}
# How long a delete keeps retrying a dependency error by default (a released instance frees its
# security group and vSwitch within minutes).
DEPENDENCY_TIMEOUT = 600

# A ClientToken is at most 64 ASCII characters (ECS "How to ensure idempotence").
CLIENT_TOKEN_LENGTH = 64
# How many fresh tokens a create may try when the resource an earlier token made is gone.
TOKEN_GENERATIONS = 8
# How long a create waits for what its token made to appear in Describe* (eventual consistency)
# before it takes that resource for deleted and moves to the next token.
LISTING_TIMEOUT = 60


def alicloud_argument_spec():
    """The connection options every module shares (doc fragment scc.training.alicloud)."""
    return dict(
        access_key=dict(
            type="str",
            no_log=True,
            aliases=["access_key_id"],
            fallback=(env_fallback, ["ALIBABA_CLOUD_ACCESS_KEY_ID", "ALICLOUD_ACCESS_KEY"]),
        ),
        secret_key=dict(
            type="str",
            no_log=True,
            aliases=["access_key_secret"],
            fallback=(env_fallback, ["ALIBABA_CLOUD_ACCESS_KEY_SECRET", "ALICLOUD_SECRET_KEY"]),
        ),
        security_token=dict(
            type="str",
            no_log=True,
            fallback=(env_fallback, ["ALIBABA_CLOUD_SECURITY_TOKEN", "ALICLOUD_SECURITY_TOKEN"]),
        ),
        region=dict(
            type="str",
            aliases=["region_id"],
            fallback=(env_fallback, ["ALIBABA_CLOUD_REGION_ID", "ALICLOUD_REGION"]),
        ),
        ecs_endpoint=dict(type="str", fallback=(env_fallback, ["ALIBABA_CLOUD_ECS_ENDPOINT"])),
        nas_endpoint=dict(type="str", fallback=(env_fallback, ["ALIBABA_CLOUD_NAS_ENDPOINT"])),
        cs_endpoint=dict(type="str", fallback=(env_fallback, ["ALIBABA_CLOUD_CS_ENDPOINT"])),
        connect_timeout=dict(type="int", default=5),
        read_timeout=dict(type="int", default=30),
        api_retries=dict(type="int", default=6),
        listing_timeout=dict(
            type="int", default=int(LISTING_TIMEOUT), fallback=(env_fallback, ["SCC_ALICLOUD_LISTING_TIMEOUT"])
        ),
        dependency_timeout=dict(
            type="int",
            default=DEPENDENCY_TIMEOUT,
            fallback=(env_fallback, ["SCC_ALICLOUD_DEPENDENCY_TIMEOUT"]),
        ),
    )


class AlicloudApiError(Exception):
    """An API call that failed for good (after retries where the error was transient)."""

    def __init__(self, action, code, message, http_status=None, request_id=None, attempts=1):
        super().__init__("%s failed: %s: %s" % (action, code, message))
        self.action = action
        self.code = code
        self.message = message
        self.http_status = http_status
        self.request_id = request_id
        self.attempts = attempts

    def to_result(self):
        return dict(
            action=self.action,
            code=self.code,
            message=self.message,
            http_status=self.http_status,
            request_id=self.request_id,
            attempts=self.attempts,
        )


def may_have_applied(http_status):
    """True when a failed call may still have taken effect: no reply at all (a connection dropped or
    timed out) or a server-side 5xx; False for a 4xx (throttling included), refused before acting."""
    return http_status is None or int(http_status) >= 500


def is_retryable(code, http_status):
    """True for throttling, server-side 5xx and connection errors; False for everything else."""
    if code in RETRY_CODES or (code or "").startswith("Throttling"):
        return True
    return http_status is not None and 500 <= int(http_status) <= 599


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


# The signed request's credential parameters in a query string (a connection error names the URL).
_SIGNED_PARAMS = re.compile(r"\b(AccessKeyId|SecurityToken|Signature)=[^&\s'\"]*")
MASK = "********"


def secret_forms(secret):
    """``secret`` as it may appear in a text: raw, percent-encoded once or twice (the string to sign)."""
    once = {quote(secret, safe=""), quote(secret, safe="~"), quote_plus(secret), quote(secret, safe="/")}
    twice = {quote(form, safe="") for form in once}
    return sorted({secret} | once | twice, key=len, reverse=True)


def mask_secrets(text, secrets):
    """``text`` with every form of each of ``secrets``, and the credential parameters of a signed
    query string, masked."""
    if not text:
        return text
    text = _SIGNED_PARAMS.sub(r"\1=" + MASK, str(text))
    for secret in secrets:
        if secret:
            for form in secret_forms(secret):
                text = text.replace(form, MASK)
    return text


def is_dependency_error(action, code):
    """True when ``code`` says ``action`` (a delete) was refused because something still depends on
    the resource (``DEPENDENCY_RETRY_CODES``)."""
    return any(
        code == known or (code or "").startswith(known + ".") for known in DEPENDENCY_RETRY_CODES.get(action, ())
    )


def backoff_delay(attempt, base=0.5, cap=20.0, rand=random.random):
    """Full-jitter exponential backoff: uniform in [0, min(cap, base * 2**attempt)]."""
    return rand() * min(cap, base * (2**attempt))


def client_token(action, params, generation=0):
    """A ClientToken derived only from the request: same request, same token, in any run.

    ``generation`` > 0 gives a different token for the same request; it is used when the
    resource the previous token made was deleted since (a token keeps returning its result).
    """
    canonical = {k: v for k, v in params.items() if k not in ("ClientToken", "DryRun")}
    text = json.dumps([action, canonical, generation], sort_keys=True, separators=(",", ":"), default=str)
    return "scc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[: CLIENT_TOKEN_LENGTH - 4]


def flatten_params(params):
    """Flatten lists and tag dicts into the RPC form (``Tag.1.Key``, ``InstanceId.1``)."""
    flat = {}
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, dict) and key == "Tag":
            for i, (tag_key, tag_value) in enumerate(sorted(value.items()), start=1):
                flat["Tag.%d.Key" % i] = tag_key
                flat["Tag.%d.Value" % i] = tag_value
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


_SDK_UNPARSED = "ServerResponseBody: "


def roa_error(code, message, request_id):
    """``(code, message, request_id)`` of a failed call. The CS API answers errors with lower-case keys
    (``{"code": ..., "message": ..., "requestId": ...}``), which aliyunsdkcore (client.py
    ``_parse_error_info_from_response_body``) does not read: it reports SDK.UnknownServerError with
    the body in the message. Here that body is read; an RPC error passes through as it is."""
    if code != "SDK.UnknownServerError" or not (message or "").startswith(_SDK_UNPARSED):
        return code, message, request_id
    try:
        body = json.loads(message[len(_SDK_UNPARSED) :])
    except ValueError:
        return code, message, request_id
    if not isinstance(body, dict) or not body.get("code"):
        return code, message, request_id
    return (
        str(body["code"]),
        str(body.get("message") or ""),
        request_id or body.get("requestId") or body.get("request_id"),
    )


def tags_from_api(tags_node, key_field="TagKey", value_field="TagValue"):
    """``{"Tag": [{"TagKey": k, "TagValue": v}]}`` (ECS) or Key/Value (NAS) -> ``{k: v}``."""
    result = {}
    for tag in (tags_node or {}).get("Tag", []) or []:
        key = tag.get(key_field, tag.get("Key"))
        if key is not None:
            result[key] = tag.get(value_field, tag.get("Value", ""))
    return result


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

    def call(self, product, action, params=None, client_token_generation=None, before_retry=None):
        """Call ``action``; return the reply as a dict. Raise AlicloudApiError on failure.

        ``client_token_generation`` (an int) marks a create call: it gets a ClientToken derived
        from the request, so every retry here and in later runs is the same request to the cloud.
        ``before_retry(error)`` marks a create without ClientToken: run before each retry with the
        attempt's AlicloudApiError, it returns the reply to use instead when the failed attempt did
        create the resource (a lost reply), else None.
        """
        params = dict(params or {})
        if client_token_generation is not None:
            params["ClientToken"] = client_token(action, params, client_token_generation)
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
        """All items of a NextToken/MaxResults listing (the NAS protocol service actions)."""
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

    def create(self, product, action, params, id_field, still_exists):
        """Create with a derived ClientToken; return ``(id, reply)``.

        Describe* may not list a new resource yet (eventual consistency): the same token is kept
        (a repeat returns what it made, never a second one) until ``still_exists(id)`` says yes or
        ``listing_timeout`` passes. A token keeps returning what it made even after that was
        deleted: only then is the next generation of token tried, a deterministic sequence, so a
        retry in a later run still converges.
        """
        for generation in range(TOKEN_GENERATIONS):
            reply = self.call(product, action, params, client_token_generation=generation)
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


def wait_for(fetch, done, timeout, interval=0.25, max_interval=15.0, sleep=time.sleep, clock=time.monotonic):
    """Poll ``fetch()`` until ``done(value)``; return the last value or raise TimeoutError.

    The interval doubles from ``interval`` up to ``max_interval``: quick for the short waits
    (a VPC), gentle on the API for the long ones (a CPFS file system takes 20 to 40 minutes).
    """
    deadline = clock() + timeout
    while True:
        value = fetch()
        if done(value):
            return value
        if clock() >= deadline:
            raise TimeoutError("still not ready after %ss" % timeout)
        sleep(min(interval, max(0.0, deadline - clock())))
        interval = min(max_interval, interval * 2)


# ---------------------------------------------------------------------------------------------
# Kinds of resource: how each is listed, created, deleted and shown


def rule_key(rule):
    """What tells two ingress rules apart (the description does not)."""
    return (
        rule["ip_protocol"].lower(),
        rule["port_range"],
        rule["source_cidr_ip"],
        rule["policy"].lower(),
        int(rule["priority"]),
    )


def rule_from_api(perm):
    return dict(
        ip_protocol=perm.get("IpProtocol", "").lower(),
        port_range=perm.get("PortRange"),
        source_cidr_ip=perm.get("SourceCidrIp"),
        policy=(perm.get("Policy") or "accept").lower(),
        priority=int(perm.get("Priority") or 1),
        description=perm.get("Description") or None,
    )


def with_ingress_rules(api, group):
    """The group with its ingress rules (``IngressRules``, in the form of ecs_security_group's ``rules``)."""
    reply = api.call(
        "ecs", "DescribeSecurityGroupAttribute", {"SecurityGroupId": group["SecurityGroupId"], "Direction": "ingress"}
    )
    perms = (reply.get("Permissions") or {}).get("Permission", []) or []
    rules = [rule_from_api(p) for p in perms if (p.get("Direction") or "ingress") == "ingress"]
    return dict(group, IngressRules=rules)


def _list_at(path):
    """A view field holding the list at ``path`` (``"VSwitchIds.VSwitchId"``), empty when absent."""
    return lambda item: list(_dig(item, path) or [])


def _tags(item):
    return tags_from_api(item.get("Tags"))


def _mount_target_domains(fs):
    return [t.get("MountTargetDomain") for t in _list_at("MountTargets.MountTarget")(fs)]


def _ingress_rules(group):
    return sorted(group.get("IngressRules") or [], key=rule_key)


class ResourceKind:
    """How one kind of resource is listed, created, deleted and shown: what the helpers below need.

    ``items`` is the path to the list in a Describe reply; ``token_paged`` listings page with
    NextToken instead of PageNumber. ``id_param`` asks the server for one id (a name ending in
    ``Ids`` takes a JSON list); without it the id is matched here. ``parent`` is the scope key the
    delete call needs as well (a NAS file system's children). ``gone`` is the part of an error
    code that means "already deleted". ``created_match`` marks a create that takes no ClientToken
    (``{listed field: create parameter}``): after a lost reply, the one listed whose fields equal
    those parameters is what it made. ``fields`` map the snake_case names modules return to an
    API field (dotted for nested ones) or to a function of the item.
    """

    def __init__(self, what, plural, product, describe, items, id_field, **extra):
        self.what, self.plural, self.product, self.describe = what, plural, product, describe
        self.items, self.id_field = items, id_field
        self.id_param = extra.pop("id_param", None)
        self.token_paged = extra.pop("token_paged", False)
        self.server_tags = extra.pop("server_tags", False)
        self.fixed = extra.pop("fixed", {})
        self.create = extra.pop("create", None)
        self.delete = extra.pop("delete", None)
        self.gone = extra.pop("gone", "NotFound")
        self.parent = extra.pop("parent", None)
        self.created_match = extra.pop("created_match", None)
        self.fields = extra.pop("fields", {})
        if extra:
            raise TypeError("unknown ResourceKind fields: %s" % ", ".join(sorted(extra)))

    def view(self, item):
        """The snake_case dict modules return for an API item; {} for none."""
        if not item:
            return {}
        return {name: _dig(item, f) if isinstance(f, str) else f(item) for name, f in self.fields.items()}


VPC = ResourceKind(
    "VPC", "VPCs", "ecs", "DescribeVpcs", ("Vpcs", "Vpc"), "VpcId", id_param="VpcId",
    create="CreateVpc", delete="DeleteVpc", gone="InvalidVpcId.NotFound",
    fields={"vpc_id": "VpcId", "vpc_name": "VpcName", "cidr_block": "CidrBlock", "status": "Status",
            "description": "Description", "vswitch_ids": _list_at("VSwitchIds.VSwitchId")},
)  # fmt: skip
VSWITCH = ResourceKind(
    "VSwitch", "VSwitches", "ecs", "DescribeVSwitches", ("VSwitches", "VSwitch"), "VSwitchId", id_param="VSwitchId",
    create="CreateVSwitch", delete="DeleteVSwitch", gone="InvalidVSwitchId.NotFound",
    fields={"vswitch_id": "VSwitchId", "vswitch_name": "VSwitchName", "vpc_id": "VpcId", "zone_id": "ZoneId",
            "cidr_block": "CidrBlock", "status": "Status", "description": "Description"},
)  # fmt: skip
SECURITY_GROUP = ResourceKind(
    "security group", "security groups", "ecs", "DescribeSecurityGroups", ("SecurityGroups", "SecurityGroup"),
    "SecurityGroupId", id_param="SecurityGroupId", server_tags=True,
    create="CreateSecurityGroup", delete="DeleteSecurityGroup",
    fields={"security_group_id": "SecurityGroupId", "security_group_name": "SecurityGroupName", "vpc_id": "VpcId",
            "description": "Description", "tags": _tags, "rules": _ingress_rules},
)  # fmt: skip
HPC_CLUSTER = ResourceKind(
    "HPC cluster", "HPC clusters", "ecs", "DescribeHpcClusters", ("HpcClusters", "HpcCluster"), "HpcClusterId",
    id_param="HpcClusterIds", create="CreateHpcCluster", delete="DeleteHpcCluster",
    fields={"hpc_cluster_id": "HpcClusterId", "name": "Name", "description": "Description"},
)  # fmt: skip
# Instances are never one of a kind: ecs_instance keeps a count of them (find_all, RunInstances).
INSTANCE = ResourceKind(
    "instance", "instances", "ecs", "DescribeInstances", ("Instances", "Instance"), "InstanceId",
    id_param="InstanceIds", server_tags=True,
    fields={"instance_id": "InstanceId", "instance_name": "InstanceName", "host_name": "HostName",
            "status": "Status", "instance_type": "InstanceType", "instance_type_family": "InstanceTypeFamily",
            "zone_id": "ZoneId", "region_id": "RegionId", "image_id": "ImageId", "cpu": "Cpu", "memory": "Memory",
            "gpu_amount": "GPUAmount", "gpu_spec": "GPUSpec",
            "hpc_cluster_id": lambda i: i.get("HpcClusterId") or None,
            "deployment_set_id": lambda i: i.get("DeploymentSetId") or None,
            "vpc_id": "VpcAttributes.VpcId", "vswitch_id": "VpcAttributes.VSwitchId",
            "private_ip_addresses": _list_at("VpcAttributes.PrivateIpAddress.IpAddress"),
            "rdma_ip_addresses": _list_at("RdmaIpAddress.IpAddress"),
            "public_ip_addresses": _list_at("PublicIpAddress.IpAddress"),
            "security_group_ids": _list_at("SecurityGroupIds.SecurityGroupId"),
            "creation_time": "CreationTime", "tags": _tags},
)  # fmt: skip
INSTANCE_GONE = ("Deleted", "Released")
CPFS = ResourceKind(
    "CPFS file system", "CPFS file systems", "nas", "DescribeFileSystems", ("FileSystems", "FileSystem"),
    "FileSystemId", id_param="FileSystemId", fixed={"FileSystemType": "cpfs"},
    create="CreateFileSystem", delete="DeleteFileSystem",
    fields={"file_system_id": "FileSystemId", "description": "Description", "file_system_type": "FileSystemType",
            "status": "Status", "capacity": "Capacity", "storage_type": "StorageType", "zone_id": "ZoneId",
            "vpc_id": "VpcId", "mount_targets": _mount_target_domains, "tags": _tags},
)  # fmt: skip
MOUNT_TARGET = ResourceKind(
    "mount target", "mount targets", "nas", "DescribeMountTargets", ("MountTargets", "MountTarget"),
    "MountTargetDomain", parent="FileSystemId", create="CreateMountTarget", delete="DeleteMountTarget",
    created_match={"VswId": "VSwitchId"},  # no ClientToken (research/aliyun_facts.md, CreateMountTarget)
    fields={"mount_target_domain": "MountTargetDomain", "status": "Status", "network_type": "NetworkType",
            "vpc_id": "VpcId", "vswitch_id": lambda t: t.get("VswId") or t.get("VSwitchId")},
)  # fmt: skip
# nas_cpfs_protocol_service shows a service and its export together (its own view).
PROTOCOL_SERVICE = ResourceKind(
    "protocol service", "protocol services", "nas", "DescribeProtocolService", ("ProtocolServices",),
    "ProtocolServiceId", token_paged=True, parent="FileSystemId",
    create="CreateProtocolService", delete="DeleteProtocolService",
)  # fmt: skip
EXPORT = ResourceKind(
    "export", "exports", "nas", "DescribeProtocolMountTarget", ("ProtocolMountTargets",), "ExportId",
    token_paged=True, parent="FileSystemId", create="CreateProtocolMountTarget", delete="DeleteProtocolMountTarget",
)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Finding resources: the one listing helper for every kind


class AmbiguousMatch(Exception):
    """More than one resource fits what should name exactly one."""

    def __init__(self, kind, criteria, matches):
        self.ids = [m.get(kind.id_field) for m in matches]
        wanted = ", ".join("%s=%s" % item for item in sorted(criteria.items())) or "the filters"
        super().__init__(
            "%d %s match %s (%s); rename or delete the extra ones, this module will not guess"
            % (len(matches), kind.plural, wanted, ", ".join(map(str, self.ids)))
        )


def find_all(api, kind, scope=None, where=None, tags=None, resource_id=None):
    """Every ``kind`` in ``scope`` (server-side filters) whose fields equal ``where`` and which
    carries all ``tags`` (and is ``resource_id``, when given), read over every page, oldest first.
    None values in ``scope`` and ``where`` are no filter."""
    params = {k: v for k, v in dict(kind.fixed, **(scope or {})).items() if v is not None}
    wanted = {k: v for k, v in (where or {}).items() if v is not None}
    if resource_id is not None:
        wanted[kind.id_field] = resource_id
        if kind.id_param:
            params[kind.id_param] = json.dumps([resource_id]) if kind.id_param.endswith("Ids") else resource_id
    if tags and kind.server_tags:
        params["Tag"] = dict(tags)
    if kind.token_paged:
        found = api.paginate_token(kind.product, kind.describe, params, kind.items[0])
    else:
        found = api.paginate(kind.product, kind.describe, params, kind.items)
    matches = [
        item
        for item in found
        if all(item.get(k) == v for k, v in wanted.items())
        and all(tags_from_api(item.get("Tags")).get(k) == v for k, v in (tags or {}).items())
    ]
    return sorted(matches, key=lambda i: (i.get("CreationTime") or i.get("CreateTime") or "", i.get(kind.id_field)))


def find_one(api, kind, scope=None, where=None, tags=None, resource_id=None):
    """The one ``kind`` that ``find_all`` matches, or None; AmbiguousMatch when several do."""
    matches = find_all(api, kind, scope, where, tags, resource_id)
    if len(matches) > 1:
        criteria = {k: v for k, v in dict(scope or {}, **(where or {})).items() if v is not None}
        criteria.update(("tag:%s" % k, v) for k, v in (tags or {}).items())
        raise AmbiguousMatch(kind, criteria, matches)
    return matches[0] if matches else None


# ---------------------------------------------------------------------------------------------
# ACK (CS API 2015-12-15, ROA): paths and methods as aliyun-python-sdk-cs 4.8.1 declares them
# (aliyunsdkcs/request/v20151215/<Action>Request.py)

CS_CLUSTER_GONE = "ErrorClusterNotFound"
# action -> (method, uri pattern); tests/unit/plugins/module_utils/test_ack.py checks each against
# the SDK's own request class.
CS_ROUTES = {
    "CreateCluster": ("POST", "/clusters"),
    "DescribeClustersV1": ("GET", "/api/v1/clusters"),
    "DescribeClusterDetail": ("GET", "/clusters/[ClusterId]"),
    "DeleteCluster": ("DELETE", "/clusters/[ClusterId]"),
    "AttachInstances": ("POST", "/clusters/[ClusterId]/attach"),
    "DescribeClusterNodes": ("GET", "/clusters/[ClusterId]/nodes"),
    "DeleteClusterNodes": ("POST", "/clusters/[ClusterId]/nodes"),
}


def cs_path(action, **path_params):
    """``(method, path)`` of a CS action, its ``[Name]`` path parameters filled in (percent-encoded)."""
    method, pattern = CS_ROUTES[action]
    path = re.sub(r"\[(\w+)\]", lambda m: quote(str(path_params[m.group(1)]), safe=""), pattern)
    return method, path


def cs_call(api, action, query=None, body=None, before_retry=None, **path_params):
    """``api.call_roa`` of a CS ``action`` by name (CS_ROUTES)."""
    method, path = cs_path(action, **path_params)
    return api.call_roa(action, method, path, query, body, before_retry)


def cs_clusters(api, name=None):
    """Every ACK cluster of the region (DescribeClustersV1, GET /api/v1/clusters), every page;
    ``name`` is passed as the API's name filter (the caller still matches it exactly)."""
    found, page = [], 1
    while True:
        reply = cs_call(api, "DescribeClustersV1", {"name": name, "page_size": 50, "page_number": page})
        batch = reply.get("clusters") or []
        found.extend(batch)
        total = int((reply.get("page_info") or {}).get("total_count") or 0)
        if not batch or len(found) >= total:
            return found
        page += 1


def cs_cluster(api, cluster_id):
    """DescribeClusterDetail (GET /clusters/[ClusterId]); None once the cluster is gone or deleted."""
    try:
        detail = cs_call(api, "DescribeClusterDetail", ClusterId=cluster_id)
    except AlicloudApiError as exc:
        if exc.code == CS_CLUSTER_GONE:
            return None
        raise
    return None if detail.get("state") == "deleted" else detail


def cs_cluster_nodes(api, cluster_id, nodepool_id=None):
    """The nodes of a cluster (DescribeClusterNodes, GET /clusters/[ClusterId]/nodes), every page."""
    found, page = [], 1
    while True:
        query = {"nodepool_id": nodepool_id, "pageSize": 100, "pageNumber": page}
        reply = cs_call(api, "DescribeClusterNodes", query, ClusterId=cluster_id)
        batch = reply.get("nodes") or []
        found.extend(batch)
        total = int((reply.get("page") or {}).get("total_count") or 0)
        if not batch or len(found) >= total:
            return found
        page += 1


# ---------------------------------------------------------------------------------------------
# The module wrapper


class AlicloudModule(AnsibleModule):
    """AnsibleModule with the shared connection options, ``api`` and the steps every module shares.

    Every module supports check mode: state modules predict and make no write call.
    """

    def __init__(self, argument_spec, validate=None, **kwargs):
        """``validate(params)`` returns the errors no argument spec can express, each naming its
        option; any of them fails the module before the first API call."""
        spec = alicloud_argument_spec()
        spec.update(argument_spec)
        kwargs.setdefault("supports_check_mode", True)
        super().__init__(argument_spec=spec, **kwargs)
        if not HAS_SDK:
            self.fail_json(msg=missing_required_lib("aliyun-python-sdk-core"), exception=str(SDK_IMPORT_ERROR))
        self._api = None
        errors = validate(self.params) if validate else []
        if errors:
            self.fail_json(msg="; ".join(errors))

    @classmethod
    def for_state(cls, argument_spec, wait_timeout=None, validate=None):
        """A module that creates and deletes: ``argument_spec`` plus ``state`` (doc fragment
        scc.training.alicloud.state) and, given the default ``wait_timeout``, ``wait`` and
        ``wait_timeout`` (scc.training.alicloud.wait)."""
        spec = dict(argument_spec, state=dict(type="str", default="present", choices=["present", "absent"]))
        if wait_timeout is not None:
            spec.update(wait=dict(type="bool", default=True), wait_timeout=dict(type="int", default=wait_timeout))
        return cls(spec, validate=validate)

    @property
    def api(self):
        if self._api is None:
            p = self.params
            try:
                self._api = AlicloudApi(
                    p["access_key"],
                    p["secret_key"],
                    p["region"],
                    security_token=p["security_token"],
                    ecs_endpoint=p["ecs_endpoint"],
                    nas_endpoint=p["nas_endpoint"],
                    cs_endpoint=p.get("cs_endpoint"),
                    connect_timeout=p["connect_timeout"],
                    read_timeout=p["read_timeout"],
                    api_retries=p["api_retries"],
                    listing_timeout=p["listing_timeout"],
                    dependency_timeout=p["dependency_timeout"],
                    # Every no_log option (the ACK node password, ...) is masked in the cloud's error texts too.
                    secrets=[
                        p[name]
                        for name, option in self.argument_spec.items()
                        if option.get("no_log") and isinstance(p.get(name), str)
                    ],
                )
            except AlicloudApiError as exc:
                self.fail_api(exc)
        return self._api

    def run_state(self, present, absent, view, key=None, diff_view=None):
        """Dispatch on ``state`` and exit with the outcome: how every state module's ``main()`` ends.

        ``present(module)`` and ``absent(module)`` return ``(changed, before, after)``: the resource
        as found (None when there was none) and as left (None once deleted); in check mode, as
        predicted. The result carries ``view(after)`` under ``key`` (merged into the result when
        ``key`` is None); with --diff, ``diff_view`` (default ``view``) of before and after.
        """
        step = present if self.params["state"] == "present" else absent
        try:
            changed, before, after = step(self)
        except AlicloudApiError as exc:
            self.fail_api(exc)
        result = {key: view(after)} if key else dict(view(after))
        if self._diff:
            shown = diff_view or view
            result["diff"] = dict(before=shown(before), after=shown(after))
        self.exit_json(changed=changed, **result)

    def run_info(self, kind, key, scope=None, where=None, tags=None, resource_id=None, view=None):
        """Exit with every ``kind`` that ``find_all`` matches under ``key``, each as ``view`` (default
        ``kind.view``) shows it: how every info module's ``main()`` ends."""
        view = view or kind.view
        try:
            found = [view(item) for item in find_all(self.api, kind, scope, where, tags, resource_id)]
        except AlicloudApiError as exc:
            self.fail_api(exc)
        self.exit_json(changed=False, **{key: found})

    def find_one(self, kind, option="name", scope=None, where=None, tags=None, resource_id=None):
        """``find_one``; when several match, fail naming ``option``, the option that should tell them apart."""
        try:
            return find_one(self.api, kind, scope, where, tags, resource_id)
        except AmbiguousMatch as exc:
            self.fail_json(msg="%s: %s" % (option, exc), matches=exc.ids)
        return None  # not reached: fail_json exits

    def create_unless_found(self, kind, found, params, scope=None, ready=None):
        """``present`` of a one-resource module: ``found`` as it is, else created from ``params``
        (``create``), or in check mode predicted by them. Returns ``(changed, before, after)``."""
        if found:
            return False, found, found
        if self.check_mode:
            return True, None, params
        return True, None, self.create(kind, params, scope, ready)

    def delete_if_found(self, kind, found, scope=None, wait_gone=False):
        """``absent`` of a one-resource module: ``found``, if any, deleted (``remove``).
        Returns ``(changed, before, after)``."""
        if found:
            self.remove(kind, found, scope, wait_gone)
        return bool(found), found, None

    def create(self, kind, params, scope=None, ready=None):
        """Create one ``kind`` with a request-derived ClientToken and return it as listed in ``scope``:
        with ``ready`` (a Status) and the module's ``wait`` (true where it has none), once it has it."""

        def fetch(resource_id):
            return self.find_one(kind, scope=scope, resource_id=resource_id)

        def listed(resource_id):
            return fetch(resource_id) is not None

        if kind.created_match is None:
            resource_id, _reply = self.api.create(kind.product, kind.create, params, kind.id_field, listed)
        else:
            resource_id = self.create_without_token(kind, params, scope)
            self.api.wait_listed(resource_id, listed)
        if ready and self.params.get("wait", True):
            return self.wait(
                lambda: fetch(resource_id),
                lambda found: found and found.get("Status") == ready,
                "%s %s" % (kind.what, resource_id),
            )
        return fetch(resource_id)

    def create_without_token(self, kind, params, scope):
        """Create ``kind`` whose create takes no ClientToken; return its id. Before a retry after a
        failure that may have taken effect (``may_have_applied``), the listing is read until it shows
        the resource or ``listing_timeout`` passes, as Describe* may lag a create: a failed attempt
        that did create it (a lost reply) is not repeated."""
        where = {field: params[param] for field, param in kind.created_match.items()}
        found = []

        def listed(_where):
            found[:] = find_all(self.api, kind, scope, where=where)
            return bool(found)

        def made(error):
            if not may_have_applied(error.http_status) or not self.api.wait_listed(where, listed):
                return None
            return {kind.id_field: found[0][kind.id_field]}

        return self.api.call(kind.product, kind.create, params, before_retry=made)[kind.id_field]

    def remove(self, kind, resource, scope=None, wait_gone=False):
        """Delete ``resource`` unless in check mode. Already gone is no error: another run got there
        first. With ``wait_gone`` and the module's ``wait``, return once it is no longer listed."""
        if self.check_mode:
            return
        resource_id = resource[kind.id_field]
        params = {kind.id_field: resource_id}
        if kind.parent:
            params[kind.parent] = scope[kind.parent]
        try:
            self.api.delete(kind.product, kind.delete, params)
        except AlicloudApiError as exc:
            if kind.gone not in exc.code:
                raise
        if wait_gone and self.params["wait"]:
            self.wait(
                lambda: self.find_one(kind, scope=scope, resource_id=resource_id),
                lambda found: found is None,
                "%s %s" % (kind.what, resource_id),
            )

    def wait(self, fetch, done, what):
        """``wait_for`` within the module's ``wait_timeout``; a timeout fails the module naming ``what``."""
        try:
            return wait_for(fetch, done, self.params["wait_timeout"])
        except TimeoutError as exc:
            self.fail_json(msg="%s: %s" % (what, exc))
        return None  # not reached: fail_json exits

    def fail_api(self, exc, msg=None, **result):
        """fail_json with the cloud's error code, message and request id."""
        detail = exc.to_result()
        text = "%s failed: %s: %s" % (exc.action, exc.code, exc.message)
        if exc.request_id:
            text += " (RequestId %s)" % exc.request_id
        self.fail_json(msg="%s: %s" % (msg, text) if msg else text, error=detail, **result)
