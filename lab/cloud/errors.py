"""API errors as the real services return them: (HTTP status, Code, Message).

Where a body was published, the wording is copied from it (source beside the entry); the
others follow the ECS/NAS error-code pages named in /work/shared/research/aliyun_facts.md.
"""

from __future__ import annotations


class ApiError(Exception):
    """An error reply: the server answers `status` with the standard error body."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


# github.com/aylei/aliyun-exporter/issues/36 (aliyunsdkcore: "HTTP Status: 404
# Error:InvalidAccessKeyId.NotFound Specified access key is not found.")
def access_key_not_found() -> ApiError:
    return ApiError(404, "InvalidAccessKeyId.NotFound", "Specified access key is not found.")


# github.com/dromara/SMS4J/issues/34: the full body, with the server's string to sign after
# "is:"; aliyunsdkcore compares that part with its own and then reports InvalidAccessKeySecret.
def signature_mismatch(string_to_sign: str) -> ApiError:
    return ApiError(
        400,
        "SignatureDoesNotMatch",
        "Specified signature is not matched with our calculation. server string to sign is:" + string_to_sign,
    )


# AlibabaCloudDocs/ecs "intl.en-US/API Reference/Instances/RunInstances.md", error codes: "403
# OperationDenied.NoStock The requested resource is sold out in the specified zone; try other types of
# resources or other regions and zones." ("Sales of this resource are temporarily suspended ..." is the
# message of plain OperationDenied there, not of NoStock.)
def no_stock() -> ApiError:
    return ApiError(
        403,
        "OperationDenied.NoStock",
        "The requested resource is sold out in the specified zone; try other types of resources or other regions and zones.",
    )


def missing(name: str) -> ApiError:
    return ApiError(
        400,
        "MissingParameter",
        f'The input parameter "{name}" that is mandatory for processing this request is not supplied.',
    )


def invalid(name: str, why: str = "") -> ApiError:
    return ApiError(
        400, "InvalidParameter", f'The specified parameter "{name}" is not valid.' + (" " + why if why else "")
    )


def not_found(code: str, message: str) -> ApiError:
    return ApiError(404, code, message)


def dependency(code: str, message: str) -> ApiError:
    return ApiError(403, code, message)


# Transient errors (facts file, "Common and transient error codes"). Throttling.User's code and
# message as published in github.com/turbot/steampipe-plugin-alicloud/issues/483 (its status,
# 400 here like Throttling, was not shown there).
THROTTLING = (400, "Throttling", "Request was denied due to request throttling.")
THROTTLING_USER = (400, "Throttling.User", "Request was denied due to user flow control.")
SERVICE_UNAVAILABLE = (503, "ServiceUnavailable", "The request has failed due to a temporary failure of the server.")
INTERNAL_ERROR = (
    500,
    "InternalError",
    "The request processing has failed due to some unknown error, exception or failure.",
)
# A permanent error: the RAM user may not call the action (ECS and NAS error centers, 403 Forbidden.RAM).
FORBIDDEN_RAM = (
    403,
    "Forbidden.RAM",
    "User not authorized to operate on the specified resource, or this API doesn't support RAM.",
)
