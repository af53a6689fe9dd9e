"""The RPC and ROA wire formats: parameters, the HMAC-SHA1 signatures, ids and the error bodies.

The signature is the one aliyunsdkcore's auth/composer/rpc_signature_composer.py computes:
every URL and body parameter except Signature, sorted, RFC 3986-encoded twice, prefixed with
"METHOD&%2F&", HMAC-SHA1 keyed with secret + "&", base64.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import urllib.parse
import uuid

from .errors import ApiError, invalid, missing


def _pct(value: str) -> str:
    return urllib.parse.quote(str(value), safe="-_.~")


def string_to_sign(method: str, params: dict[str, str]) -> str:
    canon = "&".join(_pct(k) + "=" + _pct(v) for k, v in sorted(params.items()) if k != "Signature")
    return method + "&" + _pct("/") + "&" + _pct(canon)


def sign(method: str, params: dict[str, str], secret: str) -> str:
    digest = hmac.new((secret + "&").encode(), string_to_sign(method, params).encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


def signature_ok(method: str, params: dict[str, str], secret: str) -> bool:
    return hmac.compare_digest(sign(method, params, secret), params.get("Signature", ""))


# ---- ROA (the CS API, 2015-12-15) ---------------------------------------------------------------
# The string to sign as aliyunsdkcore 2.16.1 auth/composer/roa_signature_composer.py builds it
# (compose_string_to_sign): the method, then the Accept, Content-MD5, Content-Type and Date header
# values (empty when absent), one per line; then every x-acs-* header, name lower-cased, sorted, as
# "name:value\n"; then the path and the query sorted by name, values NOT percent-encoded
# ("k=v" joined by "&", a bare "k" for a value-less one). HMAC-SHA1 keyed with the secret alone
# (no "&"), base64, sent as "Authorization: acs <AccessKeyId>:<signature>".
def roa_string_to_sign(method: str, path: str, query: dict[str, str], headers: dict[str, str]) -> str:
    lower = {k.lower(): v for k, v in headers.items()}
    lines = [method] + [lower.get(name, "") for name in ("accept", "content-md5", "content-type", "date")]
    acs = "".join(f"{k}:{lower[k]}\n" for k in sorted(lower) if k.startswith("x-acs-"))
    pairs = [k if v is None else f"{k}={v}" for k, v in sorted(query.items())]
    return "\n".join(lines) + "\n" + acs + path + ("?" + "&".join(pairs) if pairs else "")


def roa_sign(method: str, path: str, query: dict[str, str], headers: dict[str, str], secret: str) -> str:
    text = roa_string_to_sign(method, path, query, headers)
    return base64.b64encode(hmac.new(secret.encode(), text.encode(), hashlib.sha1).digest()).decode()


def roa_authorization(headers: dict[str, str]) -> tuple[str, str]:
    """``(AccessKeyId, signature)`` of an ``Authorization: acs <id>:<signature>`` header; blanks if malformed."""
    value = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
    scheme, _sep, rest = value.partition(" ")
    key_id, _sep, signature = rest.rpartition(":")
    return (key_id, signature) if scheme == "acs" and key_id else ("", "")


def cs_error_body(err: ApiError, req_id: str) -> dict:
    """A CS (ACK) service error: lower-case keys, as the CS SDKs read them (the Tea SDKs print
    ``code: <status>, <message> request id: <id>``; ``Data: {"code", "message", "requestId"}``).
    UNCONFIRMED: no Alibaba page found here shows a raw CS error body; the keys follow the CS
    OpenAPI error model as the SDKs parse it (aliyunsdkcore does not: it reports SDK.UnknownServerError
    with the body, which plugins/module_utils/_alicloud.py roa_error reads)."""
    return {"requestId": req_id, "code": err.code, "message": err.message, "status": err.status}


def parse_params(query: str, body: bytes, content_type: str) -> dict[str, str]:
    """URL and form-body parameters in one dict (blank values kept: SignatureType= is signed)."""
    params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
    if body and content_type.startswith("application/x-www-form-urlencoded"):
        params.update(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))
    return params


def request_id() -> str:
    return str(uuid.uuid4()).upper()


def error_body(err: ApiError, req_id: str, host_id: str, product: str) -> dict:
    # Key order and the Recommend link as in the real body (github.com/dromara/SMS4J/issues/34).
    return {
        "RequestId": req_id,
        "Message": err.message,
        "HostId": host_id,
        "Code": err.code,
        "Recommend": f"https://api.aliyun.com/troubleshoot?q={err.code}&product={product}&requestId={req_id}",
    }


class Params:
    """Typed access to one request's parameters; bad values raise the API's errors."""

    def __init__(self, raw: dict[str, str]):
        self.raw = raw

    def get(self, name: str, default: str | None = None) -> str | None:
        value = self.raw.get(name)
        return default if value in (None, "") else value

    def req(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise missing(name)
        return value

    def int(self, name: str, default: int, lo: int, hi: int) -> int:
        value = self.get(name)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            raise invalid(name) from None
        if not lo <= number <= hi:
            raise invalid(name, f"It must be between {lo} and {hi}.")
        return number

    def bool(self, name: str) -> bool:
        # aliyunsdkcore sends Python True as "True"; the API accepts any case.
        value = self.get(name)
        if value is None:
            return False
        if value.lower() not in ("true", "false"):
            raise invalid(name)
        return value.lower() == "true"

    def choice(self, name: str, choices: tuple[str, ...], default: str | None = None) -> str | None:
        value = self.get(name, default)
        if value is not None and value not in choices:
            raise invalid(name, "Valid values: " + ", ".join(choices) + ".")
        return value

    def cidr(self, name: str, default: str | None = None) -> ipaddress.IPv4Network | None:
        value = self.get(name, default)
        if value is None:
            return None
        try:
            return ipaddress.IPv4Network(value)
        except ValueError:
            raise ApiError(400, "InvalidCidrBlock.Malformed", "Specified CIDR block is not valid.") from None

    def numbered(self, prefix: str) -> list[str]:
        """`InstanceId.1=a&InstanceId.2=b` -> [a, b], in N order."""
        found = {}
        for key, value in self.raw.items():
            head, dot, index = key.rpartition(".")
            if dot and head == prefix and index.isdigit():
                found[int(index)] = value
        return [found[i] for i in sorted(found)]

    def numbered_dicts(self, prefix: str) -> list[dict[str, str]]:
        """`Tag.1.Key=k&Tag.1.Value=v` -> [{"Key": k, "Value": v}], in N order."""
        found: dict[int, dict[str, str]] = {}
        for key, value in self.raw.items():
            parts = key.split(".")
            if len(parts) == 3 and parts[0] == prefix and parts[1].isdigit():
                found.setdefault(int(parts[1]), {})[parts[2]] = value
        return [found[i] for i in sorted(found)]

    def json_list(self, name: str) -> list[str] | None:
        value = self.get(name)
        if value is None:
            return None
        try:
            items = json.loads(value)
        except ValueError:
            raise invalid(name, "It must be a JSON array.") from None
        if not isinstance(items, list):
            raise invalid(name, "It must be a JSON array.")
        return [str(i) for i in items]

    def tags(self) -> list[dict[str, str]]:
        tags = self.numbered_dicts("Tag")
        if len(tags) > 20:
            raise invalid("Tag", "At most 20 tags.")
        for tag in tags:
            if not tag.get("Key"):
                raise ApiError(400, "InvalidTagKey.Malformed", "The specified Tag.n.Key is not valid.")
        return tags
