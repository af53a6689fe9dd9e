# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""The one Alibaba Cloud client factory of scc.training (ECS 2014-05-26 and NAS 2017-06-26 RPC,
CS 2015-12-15 ROA): the connection options and ``AlicloudModule``, the base of every module.

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
name, tags or id, a list of ids in calls of as many as the API takes; ``find_one`` refuses to guess
between several), and ``AlicloudModule``, whose
``for_state`` + ``run_state`` run a state module and ``run_info`` an info module.

The layers, along amazon.aws's lines (botocore.py / retries.py / errors.py / waiters.py / tagging.py),
each a private module_utils file; this one re-exports their public names, so a module imports from here:

* ``_alicloud_client``: ``AlicloudApi``, endpoints, signing through the SDK, ClientToken, RPC parameters;
* ``_alicloud_retries``: transient and dependency errors, backoff;
* ``_alicloud_errors``: ``AlicloudApiError``, credential masking, ROA error bodies;
* ``_alicloud_waiters``: ``wait_for``;
* ``_alicloud_tagging``: tags to and from the API;
* ``_alicloud_resources``: ``ResourceKind``, the kinds, ``find_all`` / ``find_one``;
* ``_alicloud_cs``: the CS (ACK) routes and listings.
"""

from __future__ import annotations

import os

from ansible.module_utils.basic import AnsibleModule, env_fallback, missing_required_lib

from ansible_collections.scc.training.plugins.module_utils._alicloud_client import (
    CLIENT_TOKEN_LENGTH,
    HAS_SDK,
    LISTING_TIMEOUT,
    PRODUCTS,
    SDK_IMPORT_ERROR,
    TOKEN_GENERATIONS,
    AlicloudApi,
    client_token,
    endpoint_protocol,
    flatten_params,
    is_loopback,
    roa_query,
)
from ansible_collections.scc.training.plugins.module_utils._alicloud_cs import (
    CS_CLUSTER_GONE,
    CS_ROUTES,
    cs_call,
    cs_cluster,
    cs_cluster_nodes,
    cs_clusters,
    cs_path,
)
from ansible_collections.scc.training.plugins.module_utils._alicloud_errors import (
    MASK,
    AlicloudApiError,
    mask_secrets,
    roa_error,
    secret_forms,
)
from ansible_collections.scc.training.plugins.module_utils._alicloud_resources import (
    CPFS,
    EIP,
    EXPORT,
    HPC_CLUSTER,
    INSTANCE,
    INSTANCE_GONE,
    MOUNT_TARGET,
    NAT_GATEWAY,
    PROTOCOL_SERVICE,
    SECURITY_GROUP,
    SNAT_ENTRY,
    VPC,
    VSWITCH,
    AmbiguousMatch,
    ResourceKind,
    batches,
    find_all,
    find_one,
    rule_from_api,
    rule_key,
    with_ingress_rules,
)
from ansible_collections.scc.training.plugins.module_utils._alicloud_retries import (
    DEPENDENCY_RETRY_CODES,
    DEPENDENCY_TIMEOUT,
    RETRY_CODES,
    backoff_delay,
    is_dependency_error,
    is_retryable,
    may_have_applied,
)
from ansible_collections.scc.training.plugins.module_utils._alicloud_tagging import tags_from_api, tags_to_api
from ansible_collections.scc.training.plugins.module_utils._alicloud_waiters import WaitHistory, wait_for, write_waits

# The names a module or test imports from here (re-exported from the layers above).
__all__ = [
    "CLIENT_TOKEN_LENGTH",
    "CPFS",
    "CS_CLUSTER_GONE",
    "CS_ROUTES",
    "DEPENDENCY_RETRY_CODES",
    "DEPENDENCY_TIMEOUT",
    "EIP",
    "EXPORT",
    "HAS_SDK",
    "HPC_CLUSTER",
    "INSTANCE",
    "INSTANCE_GONE",
    "LISTING_TIMEOUT",
    "MASK",
    "MOUNT_TARGET",
    "NAT_GATEWAY",
    "PRODUCTS",
    "PROTOCOL_SERVICE",
    "RETRY_CODES",
    "SDK_IMPORT_ERROR",
    "SECURITY_GROUP",
    "SNAT_ENTRY",
    "TOKEN_GENERATIONS",
    "VPC",
    "VSWITCH",
    "AlicloudApi",
    "AlicloudApiError",
    "AlicloudModule",
    "AmbiguousMatch",
    "ResourceKind",
    "alicloud_argument_spec",
    "backoff_delay",
    "batches",
    "client_token",
    "cs_call",
    "cs_cluster",
    "cs_cluster_nodes",
    "cs_clusters",
    "cs_path",
    "endpoint_protocol",
    "find_all",
    "find_one",
    "flatten_params",
    "is_dependency_error",
    "is_loopback",
    "is_retryable",
    "mask_secrets",
    "may_have_applied",
    "roa_error",
    "roa_query",
    "rule_from_api",
    "rule_key",
    "secret_forms",
    "tags_from_api",
    "tags_to_api",
    "wait_for",
    "with_ingress_rules",
]  # fmt: skip


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
        vpc_endpoint=dict(type="str", fallback=(env_fallback, ["ALIBABA_CLOUD_VPC_ENDPOINT"])),
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
        # The waits of this run, each with the states the API reported (the result's ``waits``).
        self.waits = []
        # One warning when progress_file cannot be written, not one per poll.
        self._progress_warned = False
        errors = validate(self.params) if validate else []
        if errors:
            self.fail_json(msg="; ".join(errors))

    @classmethod
    def for_state(cls, argument_spec, wait_timeout=None, validate=None):
        """A module that creates and deletes: ``argument_spec`` plus ``state`` (doc fragment
        scc.training.alicloud.state) and, given the default ``wait_timeout``, ``wait``, ``wait_timeout`` and
        ``progress_file`` (scc.training.alicloud.wait)."""
        spec = dict(argument_spec, state=dict(type="str", default="present", choices=["present", "absent"]))
        if wait_timeout is not None:
            spec.update(
                wait=dict(type="bool", default=True),
                wait_timeout=dict(type="int", default=wait_timeout),
                progress_file=dict(type="path"),
            )
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
                    vpc_endpoint=p.get("vpc_endpoint"),
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

    def run_info(self, kind, key, scope=None, where=None, tags=None, resource_id=None, view=None, ids=None):
        """Exit with every ``kind`` that ``find_all`` matches under ``key``, each as ``view`` (default
        ``kind.view``) shows it: how every info module's ``main()`` ends."""
        view = view or kind.view
        try:
            found = [view(item) for item in find_all(self.api, kind, scope, where, tags, resource_id, ids)]
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

    def create_unless_found(self, kind, found, params, scope=None, ready=None, failed=()):
        """``present`` of a one-resource module: ``found`` as it is, else created from ``params``
        (``create``), or in check mode predicted by them. Returns ``(changed, before, after)``."""
        if found:
            return False, found, found
        if self.check_mode:
            return True, None, params
        return True, None, self.create(kind, params, scope, ready, failed)

    def delete_if_found(self, kind, found, scope=None, wait_gone=False):
        """``absent`` of a one-resource module: ``found``, if any, deleted (``remove``).
        Returns ``(changed, before, after)``."""
        if found:
            self.remove(kind, found, scope, wait_gone)
        return bool(found), found, None

    def create(self, kind, params, scope=None, ready=None, failed=()):
        """Create one ``kind`` with a request-derived ClientToken and return it as listed in ``scope``:
        with ``ready`` (a Status) and the module's ``wait`` (true where it has none), once it has it. A Status in
        ``failed`` (states it cannot reach ``ready`` from) ends the wait at once and fails the module."""

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
            what = "%s %s" % (kind.what, resource_id)
            found = self.wait(
                lambda: fetch(resource_id),
                lambda found: found and (found.get("Status") == ready or found.get("Status") in failed),
                what,
            )
            if found.get("Status") != ready:
                self.fail_json(
                    msg="%s is %s, not %s" % (what, found.get("Status"), ready), **{kind.id_field: resource_id}
                )
            return found
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
        for field in kind.delete_with:
            params[field] = resource[field]
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
            return wait_for(fetch, done, self.params["wait_timeout"], on_poll=self.wait_history(what))
        except TimeoutError as exc:
            self.fail_json(msg="%s: %s" % (what, exc))
        return None  # not reached: fail_json exits

    def wait_history(self, what):
        """A new entry of the result's ``waits`` for the wait on ``what``: its ``wait_for`` ``on_poll``. With
        ``progress_file`` (set by the collection's action, plugins/plugin_utils/cloud_wait.py), every poll also
        rewrites that file with the waits so far, for the action to show while the module still runs."""
        history = WaitHistory(what)
        self.waits.append(history)
        path = self.params.get("progress_file")
        if not path:
            return history.record

        def record(value, seconds, ready=False):
            history.record(value, seconds, ready)
            try:
                write_waits(path, [w.view() for w in self.waits])
            except OSError as exc:
                # The lines are for a person watching; the wait itself goes on without them.
                if not self._progress_warned:
                    self._progress_warned = True
                    self.warn("progress_file %s: %s (no progress lines while waiting)" % (path, exc))

        return record

    def _with_waits(self, result):
        # AnsibleModule's own checks may fail the module before __init__ set self.waits.
        if getattr(self, "waits", None):
            result.setdefault("waits", [w.view() for w in self.waits])
            # The result has them now: the progress file has served (its reader takes a missing one for no news).
            path = self.params.get("progress_file")
            if path:
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
        return result

    def exit_json(self, **kwargs):
        """The result, with the states each wait of this run went through (a module cannot print while it waits)."""
        super().exit_json(**self._with_waits(kwargs))

    def fail_json(self, *args, **kwargs):
        """A failure, with the states of the waits (a timeout says where the resource stayed)."""
        super().fail_json(*args, **self._with_waits(kwargs))

    def fail_api(self, exc, msg=None, **result):
        """fail_json with the cloud's error code, message and request id."""
        detail = exc.to_result()
        text = "%s failed: %s: %s" % (exc.action, exc.code, exc.message)
        if exc.request_id:
            text += " (RequestId %s)" % exc.request_id
        self.fail_json(msg="%s: %s" % (msg, text) if msg else text, error=detail, **result)
