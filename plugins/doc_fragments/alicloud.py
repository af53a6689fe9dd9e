# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Shared documentation of the Alibaba Cloud connection options, the state options and attributes."""

from __future__ import annotations


class ModuleDocFragment:
    # The credentials and endpoints of every module (plugins/module_utils/_alicloud.py).
    DOCUMENTATION = r"""
options:
  access_key:
    description:
      - AccessKey ID.
      - Falls back to E(ALIBABA_CLOUD_ACCESS_KEY_ID), then E(ALICLOUD_ACCESS_KEY).
    type: str
    aliases: [access_key_id]
  secret_key:
    description:
      - AccessKey secret. Never logged.
      - Falls back to E(ALIBABA_CLOUD_ACCESS_KEY_SECRET), then E(ALICLOUD_SECRET_KEY).
    type: str
    aliases: [access_key_secret]
  security_token:
    description:
      - STS security token, for temporary credentials. Never logged.
      - Falls back to E(ALIBABA_CLOUD_SECURITY_TOKEN), then E(ALICLOUD_SECURITY_TOKEN).
    type: str
  region:
    description:
      - Region ID, for example V(cn-shanghai).
      - Falls back to E(ALIBABA_CLOUD_REGION_ID), then E(ALICLOUD_REGION).
    type: str
    aliases: [region_id]
  ecs_endpoint:
    description:
      - ECS API endpoint, C(host[:port]) or a URL with C(http://) or C(https://).
      - Defaults to C(ecs.<region>.aliyuncs.com). Set it for a private endpoint or an emulator.
      - Every request goes over HTTPS, except to a loopback host (C(127.0.0.0/8), C(::1), C(localhost),
        the emulator), which is plain HTTP unless the URL says C(https://). C(http://) to any other
        host is refused.
      - Falls back to E(ALIBABA_CLOUD_ECS_ENDPOINT).
    type: str
  nas_endpoint:
    description:
      - NAS API endpoint, as O(ecs_endpoint). Defaults to C(nas.<region>.aliyuncs.com).
      - Falls back to E(ALIBABA_CLOUD_NAS_ENDPOINT).
    type: str
  cs_endpoint:
    description:
      - Container Service for Kubernetes (ACK, CS API 2015-12-15, ROA) endpoint, as O(ecs_endpoint).
        Defaults to C(cs.<region>.aliyuncs.com). Only the C(cs_*) modules call it.
      - Falls back to E(ALIBABA_CLOUD_CS_ENDPOINT).
    type: str
  vpc_endpoint:
    description:
      - VPC API (2016-04-28) endpoint, as O(ecs_endpoint). Defaults to C(vpc.<region>.aliyuncs.com). The VPC and
        vSwitch calls go to it (C(CreateVpc), C(DescribeVSwitches), ...).
      - Falls back to E(ALIBABA_CLOUD_VPC_ENDPOINT).
    type: str
  listing_timeout:
    description:
      - Seconds a create waits for what it made to appear in the C(Describe*) listing, which may lag
        the create (eventual consistency). Meanwhile it keeps its one C(ClientToken), so a retry can
        never make a second resource.
      - Only a resource that is still not listed after this long is taken for one deleted since the
        token made it (a token keeps naming what it made); then a new token is used. A re-create with
        the very same options after a delete waits this long once.
      - Falls back to E(SCC_ALICLOUD_LISTING_TIMEOUT).
    type: int
    default: 60
  dependency_timeout:
    description:
      - Seconds a delete keeps retrying, with backoff, while the cloud refuses it because something
        still depends on the resource (C(DependencyViolation), as for a security group or VSwitch whose
        instances are still being released, a file system whose mount targets are). Other errors fail at once.
      - Falls back to E(SCC_ALICLOUD_DEPENDENCY_TIMEOUT).
    type: int
    default: 600
notes:
  - The SDK's own retry is switched off; the retry described under O(api_retries) applies to
    every ECS and NAS action.
  - Error texts never carry the credentials (raw or percent-encoded, as in a connection error's signed URL).
"""

    # How API calls are made: shared by the modules and the inventory plugin.
    API = r"""
options:
  connect_timeout:
    description: Seconds to wait for a connection to the API endpoint.
    type: int
    default: 5
  read_timeout:
    description: Seconds to wait for an API reply.
    type: int
    default: 30
  api_retries:
    description:
      - How many times one API call is retried on throttling, server errors (HTTP 5xx) and
        connection errors, with jittered exponential backoff. Other errors fail at once.
      - Create calls carry a C(ClientToken) derived from the request, so a retry, in this run
        or a later one, never creates a second resource.
    type: int
    default: 6
requirements:
  - aliyun-python-sdk-core
"""

    # A module that creates and deletes one kind of resource (AlicloudModule.for_state).
    STATE = r"""
options:
  state:
    description:
      - Whether the resource exists. V(absent) deletes it; deleting what is already gone is no change.
    type: str
    choices: [present, absent]
    default: present
attributes:
  check_mode:
    support: full
    description: Predicts the change and makes no write call.
  diff_mode:
    support: full
    description: Shows the resource before and after.
  action_group:
    support: full
    membership: [scc.training.alicloud]
    description: Use C(group/scc.training.alicloud) in C(module_defaults) to set the connection options once.
"""

    # Its wait options; each module sets the default of wait_timeout (how long its resource takes).
    WAIT = r"""
options:
  wait:
    description:
      - Wait until a created resource is ready and, where the cloud deletes in the background,
        until a deleted one is gone. The module's description says what ready means.
    type: bool
    default: true
  wait_timeout:
    description: Seconds to wait; the task fails after that.
    type: int
  progress_file:
    description:
      - A file on the host the module runs on that it rewrites at every poll of its waits with the waits so far
        (a JSON object whose C(waits) is a list, each entry as in the result's C(waits) below), for a watcher to
        read while it waits.
      - Set by the collection's action plugin of C(ecs_instance), C(nas_cpfs), C(nas_cpfs_mount_target),
        C(nas_cpfs_protocol_service), C(cs_cluster) and C(cs_cluster_nodes); the module removes it as it exits.
        Unset (the default), no file is written.
    type: path
notes:
  - >-
    Run as a task, C(ecs_instance), C(nas_cpfs), C(nas_cpfs_mount_target), C(nas_cpfs_protocol_service), C(cs_cluster)
    and C(cs_cluster_nodes) show one line per poll while they wait (the module runs in the background, the controller
    reads O(progress_file)), e.g. C(nas_cpfs: CPFS file system cpfs-1: Pending, 2m10s elapsed), then
    C(... Pending -> Running, ready after 24m05s); polled after 1, 2, 4... seconds, then every C(poll)
    seconds (the task keyword, default 15). A run that
    waits for nothing (converged, check mode, O(wait=false)) shows none, nor do machine-readable stdout callbacks
    (C(json), C(minimal), C(ansible -o)) or C(no_log) tasks. A task with its own C(async) runs the module as a plain
    async task.
  - A module cannot print while it waits, so its result (also a failed one, after O(wait_timeout)) has C(waits),
    one entry per wait of the run - C(what) it waited for, C(polls), C(seconds), and C(states), the states the API
    reported on the way, each with C(after_s), the seconds into the wait it was first read (e.g. C(Pending) at 0,
    C(Starting) at 31.5, C(Running) at 58.2; a list of instances as C(Running 2, Starting 1)); a state is listed
    once, where it changed; C(ready), whether the last poll read what it waited for.
"""

    # A module that only reads.
    INFO_ATTRIBUTES = r"""
attributes:
  action_group:
    support: full
    membership: [scc.training.alicloud]
    description: Use C(group/scc.training.alicloud) in C(module_defaults) to set the connection options once.
  check_mode:
    support: full
    description: Read-only; runs the same in check mode.
  diff_mode:
    support: N/A
    description: Reads only.
"""

    # The credentials and endpoint of the inventory plugin (same names, with env entries).
    PLUGINS = r"""
options:
  access_key:
    description: AccessKey ID.
    type: str
    env:
      - name: ALIBABA_CLOUD_ACCESS_KEY_ID
      - name: ALICLOUD_ACCESS_KEY
  secret_key:
    description: AccessKey secret. Prefer the environment variables to writing it in a file.
    type: str
    env:
      - name: ALIBABA_CLOUD_ACCESS_KEY_SECRET
      - name: ALICLOUD_SECRET_KEY
  security_token:
    description: STS security token, for temporary credentials.
    type: str
    env:
      - name: ALIBABA_CLOUD_SECURITY_TOKEN
      - name: ALICLOUD_SECURITY_TOKEN
  region:
    description: Region ID, for example V(cn-shanghai).
    type: str
    required: true
    env:
      - name: ALIBABA_CLOUD_REGION_ID
      - name: ALICLOUD_REGION
  ecs_endpoint:
    description:
      - ECS API endpoint, C(host[:port]) or a URL. Defaults to C(ecs.<region>.aliyuncs.com).
      - HTTPS, except plain HTTP to a loopback host (the emulator); C(http://) to any other host is refused.
    type: str
    env:
      - name: ALIBABA_CLOUD_ECS_ENDPOINT
"""
