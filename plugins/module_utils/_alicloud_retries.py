# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Retry policy of the Alibaba Cloud client (compare amazon.aws retries.py): which errors are transient,
which deletes wait for a dependency to go, and the backoff between attempts.

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations

import random

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
    # ReleaseEipAddress: an EIP still Unassociating (UnassociateEipAddress returns before it is Available) answers
    # IncorrectEipStatus, "the current status of the EIP does not support this operation" (VPC API reference,
    # ReleaseEipAddress error codes; UNCONFIRMED that it is the code for this state: the emulator's).
    "ReleaseEipAddress": ("IncorrectEipStatus",),
}
# How long a delete keeps retrying a dependency error by default (a released instance frees its
# security group and vSwitch within minutes).
DEPENDENCY_TIMEOUT = 600


def may_have_applied(http_status):
    """True when a failed call may still have taken effect: no reply at all (a connection dropped or
    timed out) or a server-side 5xx; False for a 4xx (throttling included), refused before acting."""
    return http_status is None or int(http_status) >= 500


def is_retryable(code, http_status):
    """True for throttling, server-side 5xx and connection errors; False for everything else."""
    if code in RETRY_CODES or (code or "").startswith("Throttling"):
        return True
    return http_status is not None and 500 <= int(http_status) <= 599


def is_dependency_error(action, code):
    """True when ``code`` says ``action`` (a delete) was refused because something still depends on
    the resource (``DEPENDENCY_RETRY_CODES``)."""
    return any(
        code == known or (code or "").startswith(known + ".") for known in DEPENDENCY_RETRY_CODES.get(action, ())
    )


def backoff_delay(attempt, base=0.5, cap=20.0, rand=random.random):
    """Full-jitter exponential backoff: uniform in [0, min(cap, base * 2**attempt)]."""
    return rand() * min(cap, base * (2**attempt))
