# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Errors and redaction of the Alibaba Cloud client (compare amazon.aws errors.py): the one error type
``AlicloudApiError``, the credential masking every error text goes through, and the reading of the CS
(ROA) API's lower-case error bodies.

Note that this module util is **PRIVATE** to the collection. It can change without notice.
Do not use it from other collections.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote, quote_plus


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
