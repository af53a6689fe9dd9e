# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The one Alibaba Cloud client factory of scc.training (ECS 2014-05-26 and NAS 2017-06-26 RPC).

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
* errors as ``AlicloudApiError`` with code, message, HTTP status and request id.
"""

from __future__ import annotations

import hashlib
import json
import random
import time

from ansible.module_utils.basic import AnsibleModule, env_fallback, missing_required_lib

try:
    from aliyunsdkcore.acs_exception.exceptions import ClientException, ServerException
    from aliyunsdkcore.auth.credentials import AccessKeyCredential, StsTokenCredential
    from aliyunsdkcore.client import AcsClient
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

# A ClientToken is at most 64 ASCII characters (ECS "How to ensure idempotence").
CLIENT_TOKEN_LENGTH = 64
# How many fresh tokens a create may try when the resource an earlier token made is gone.
TOKEN_GENERATIONS = 8


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
        connect_timeout=dict(type="int", default=5),
        read_timeout=dict(type="int", default=30),
        api_retries=dict(type="int", default=6),
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


def is_retryable(code, http_status):
    """True for throttling, server-side 5xx and connection errors; False for everything else."""
    if code in RETRY_CODES or (code or "").startswith("Throttling"):
        return True
    return http_status is not None and 500 <= int(http_status) <= 599


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
        connect_timeout=5,
        read_timeout=30,
        api_retries=6,
        sleep=time.sleep,
    ):
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
        self._endpoints = {
            "ecs": ecs_endpoint or PRODUCTS["ecs"][2].format(region=region),
            "nas": nas_endpoint or PRODUCTS["nas"][2].format(region=region),
        }
        self._attempts = max(1, int(api_retries) + 1)
        self._sleep = sleep
        self.calls = []  # (action, attempts) of this run, for debugging output

    def _request(self, product, action, params):
        code, version, _pattern = PRODUCTS[product]
        request = CommonRequest(domain=self._endpoints[product], version=version, action_name=action, product=code)
        request.set_method("POST")
        request.set_accept_format("json")
        for key, value in flatten_params(params).items():
            request.add_query_param(key, value)
        return request

    def call(self, product, action, params=None, client_token_generation=None):
        """Call ``action``; return the reply as a dict. Raise AlicloudApiError on failure.

        ``client_token_generation`` (an int) marks a create call: it gets a ClientToken derived
        from the request, so every retry here and in later runs is the same request to the cloud.
        """
        params = dict(params or {})
        if client_token_generation is not None:
            params["ClientToken"] = client_token(action, params, client_token_generation)
        attempt = 0
        while True:
            attempt += 1
            try:
                body = self._client.do_action_with_exception(self._request(product, action, params))
                self.calls.append((action, attempt))
                return json.loads(body) if body else {}
            except ServerException as exc:
                error = AlicloudApiError(
                    action,
                    exc.get_error_code(),
                    exc.get_error_msg(),
                    exc.get_http_status(),
                    exc.get_request_id(),
                    attempt,
                )
            except ClientException as exc:
                error = AlicloudApiError(action, exc.get_error_code(), exc.get_error_msg(), None, None, attempt)
            if attempt >= self._attempts or not is_retryable(error.code, error.http_status):
                self.calls.append((action, attempt))
                raise error
            self._sleep(backoff_delay(attempt - 1))

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

        A token keeps returning what it made, even after that was deleted. When
        ``still_exists(id)`` says the returned resource is gone, the next generation of
        token is tried: a deterministic sequence, so a retry in a later run still converges.
        """
        for generation in range(TOKEN_GENERATIONS):
            reply = self.call(product, action, params, client_token_generation=generation)
            resource_id = _dig(reply, id_field)
            if isinstance(resource_id, list):
                if any(still_exists(i) for i in resource_id):
                    return resource_id, reply
            elif resource_id and still_exists(resource_id):
                return resource_id, reply
        raise AlicloudApiError(action, "ClientTokenExhausted", "every derived ClientToken names a deleted resource")


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


class AlicloudModule(AnsibleModule):
    """AnsibleModule with the shared connection options and ``api`` / ``fail_api``."""

    def __init__(self, argument_spec, **kwargs):
        spec = alicloud_argument_spec()
        spec.update(argument_spec)
        super().__init__(argument_spec=spec, **kwargs)
        if not HAS_SDK:
            self.fail_json(msg=missing_required_lib("aliyun-python-sdk-core"), exception=str(SDK_IMPORT_ERROR))
        self._api = None

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
                    connect_timeout=p["connect_timeout"],
                    read_timeout=p["read_timeout"],
                    api_retries=p["api_retries"],
                )
            except AlicloudApiError as exc:
                self.fail_api(exc)
        return self._api

    def run_state(self, present, absent, view, key):
        """Dispatch on ``state`` for a module that manages one resource, then exit with it.

        ``present(module)`` / ``absent(module)`` return ``(changed, resource)`` (``absent`` the
        resource as it was); ``view(resource)`` is what the module returns under ``key``.
        """
        try:
            if self.params["state"] == "present":
                changed, resource = present(self)
                before, after = ({} if changed else view(resource)), view(resource)
            else:
                changed, resource = absent(self)
                before, after, resource = view(resource), {}, None
        except AlicloudApiError as exc:
            self.fail_api(exc)
        result = {"changed": changed, key: view(resource)}
        if self._diff:
            result["diff"] = dict(before=before, after=after)
        self.exit_json(**result)

    def wait(self, fetch, done, what):
        """``wait_for`` within the module's ``wait_timeout``; a timeout fails the module naming ``what``."""
        try:
            return wait_for(fetch, done, self.params["wait_timeout"])
        except TimeoutError as exc:
            self.fail_json(msg="%s: %s" % (what, exc))
        return None  # not reached: fail_json exits

    def delete(self, product, action, params, gone="NotFound"):
        """Call a delete ``action`` unless in check mode. An error whose code contains ``gone``
        (the resource is already deleted) is not one: another run got there first."""
        if self.check_mode:
            return
        try:
            self.api.call(product, action, params)
        except AlicloudApiError as exc:
            if gone not in exc.code:
                raise

    def fail_api(self, exc, msg=None, **result):
        """fail_json with the cloud's error code, message and request id."""
        detail = exc.to_result()
        text = "%s failed: %s: %s" % (exc.action, exc.code, exc.message)
        if exc.request_id:
            text += " (RequestId %s)" % exc.request_id
        self.fail_json(msg="%s: %s" % (msg, text) if msg else text, error=detail, **result)


# ---------------------------------------------------------------------------------------------
# Shared views of ECS objects (modules and the inventory plugin return the same shape)

INSTANCE_GONE = ("Deleted", "Released")


def ips(node):
    return list((node or {}).get("IpAddress", []) or [])


def instance_view(inst):
    """A DescribeInstances item -> the snake_case dict modules and the inventory return."""
    vpc = inst.get("VpcAttributes") or {}
    return dict(
        instance_id=inst.get("InstanceId"),
        instance_name=inst.get("InstanceName"),
        host_name=inst.get("HostName"),
        status=inst.get("Status"),
        instance_type=inst.get("InstanceType"),
        instance_type_family=inst.get("InstanceTypeFamily"),
        zone_id=inst.get("ZoneId"),
        region_id=inst.get("RegionId"),
        image_id=inst.get("ImageId"),
        cpu=inst.get("Cpu"),
        memory=inst.get("Memory"),
        gpu_amount=inst.get("GPUAmount"),
        gpu_spec=inst.get("GPUSpec"),
        hpc_cluster_id=inst.get("HpcClusterId") or None,
        deployment_set_id=inst.get("DeploymentSetId") or None,
        vpc_id=vpc.get("VpcId"),
        vswitch_id=vpc.get("VSwitchId"),
        private_ip_addresses=ips(vpc.get("PrivateIpAddress")),
        rdma_ip_addresses=ips(inst.get("RdmaIpAddress")),
        public_ip_addresses=ips(inst.get("PublicIpAddress")),
        security_group_ids=list((inst.get("SecurityGroupIds") or {}).get("SecurityGroupId", []) or []),
        creation_time=inst.get("CreationTime"),
        tags=tags_from_api(inst.get("Tags")),
    )


def describe_instances(api, filters=None, tags=None):
    """Every instance matching the server-side filters and ALL ``tags`` (paginated)."""
    params = dict(filters or {})
    if tags:
        params["Tag"] = dict(tags)
    found = api.paginate("ecs", "DescribeInstances", params, ("Instances", "Instance"))
    wanted = dict(tags or {})
    return [i for i in found if all(tags_from_api(i.get("Tags")).get(k) == v for k, v in wanted.items())]
