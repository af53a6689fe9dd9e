"""CloudEmulator: the HTTP server, the signature check, ClientToken, DryRun and faults.

One port serves ECS (Version 2014-05-26) and NAS (Version 2017-06-26), told apart by the
Version parameter, as the SDK sends it, and the CS (ACK) ROA API (2015-12-15), told apart by its
"Authorization: acs ..." header (lab/cloud/cs.py). It listens on loopback only.
"""

from __future__ import annotations

import calendar
import copy
import hmac
import http.server
import json
import os
import socket
import threading
import time
import traceback
import urllib.parse

from . import contract, cs, ecs, nas, vpc
from .errors import INTERNAL_ERROR, ApiError, access_key_not_found, invalid, signature_mismatch
from .faults import ERRORS, PERMANENT, Faults, RandomFaults
from .store import Store, Timings, public
from .wire import (
    Params,
    cs_error_body,
    error_body,
    parse_params,
    request_id,
    roa_authorization,
    roa_sign,
    roa_string_to_sign,
    signature_ok,
    string_to_sign,
)

SERVICES = {ecs.VERSION: ecs, nas.VERSION: nas, vpc.VERSION: vpc}
REGIONS = ("cn-hangzhou", "cn-shanghai", "cn-beijing", "cn-zhangjiakou", "cn-shenzhen", "cn-huhehaote")
# Parameters that differ between two sends of the same request (signing, retries).
_VOLATILE = {
    "Signature",
    "SignatureNonce",
    "Timestamp",
    "SignatureMethod",
    "SignatureType",
    "SignatureVersion",
    "AccessKeyId",
    "Format",
    "ClientToken",
}
_TIMESTAMP_SKEW = 15 * 60
LISTEN = "127.0.0.1"


class _Drop(Exception):
    """Close the connection without a reply."""


class Ctx:
    """What a handler needs besides the parameters: region, DryRun and the action name."""

    def __init__(self, action: str, region: str, dry_run: bool, service):
        self.action = action
        self.region = region
        self.dry_run = dry_run
        self.service = service

    def dry_run_check(self) -> None:
        """Called by a handler after every check and before any change."""
        if self.dry_run:
            reply = self.service.dry_run_reply(self.action)
            if isinstance(reply, ApiError):
                raise reply
            raise _DryRunReply(reply)


class _DryRunReply(Exception):
    def __init__(self, body: dict):
        super().__init__("dry run")
        self.body = body


def _check_sent(value: str, fmt: str, field: str) -> None:
    """A request's time (ROA's Date header, RPC's Timestamp): parsed by ``fmt``, within _TIMESTAMP_SKEW of now."""
    try:
        sent = calendar.timegm(time.strptime(value, fmt))
    except ValueError:
        raise invalid(field) from None
    if abs(time.time() - sent) > _TIMESTAMP_SKEW:
        raise ApiError(400, "InvalidTimeStamp.Expired", "Specified time stamp or date value is expired.")


def loopback_only(address: str) -> str:
    # The project's network rule: servers listen on loopback only; this one on 127.0.0.1.
    if address != LISTEN:
        raise ValueError(f"cloud emulator listens on loopback {LISTEN} only, not {address}")
    return address


class CloudEmulator:
    """An offline ECS/NAS API endpoint for tests and the demo.

    with CloudEmulator(port=0) as emu:
        client = AcsClient(emu.access_key_id, emu.access_key_secret, "cn-shanghai")
        request.set_endpoint(emu.endpoint)
    """

    def __init__(
        self,
        port: int = 0,
        address: str = LISTEN,
        access_key_id: str | None = None,
        access_key_secret: str | None = None,
        timings: Timings | None = None,
        faults: RandomFaults | None = None,
        host_addresses: list[str] | None = None,
        regions: tuple[str, ...] = REGIONS,
        seed: int = 0,
        security_token: str | None = None,
    ):
        self.address = loopback_only(address)
        self.port = port
        key_id = access_key_id or os.environ.get("ALIBABA_CLOUD_ACCESS_KEY_ID")
        secret = access_key_secret or os.environ.get("ALIBABA_CLOUD_ACCESS_KEY_SECRET")
        if not key_id or not secret:
            raise ValueError(
                "credentials: pass access_key_id/access_key_secret or set "
                "ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET"
            )
        self.access_key_id, self.access_key_secret = key_id, secret
        # Set: the credentials are STS ones and every request must carry this SecurityToken.
        self.security_token = security_token
        self.regions = tuple(regions)
        self.store = Store(timings or Timings(), seed=seed, host_addresses=host_addresses)
        self.faults = Faults(faults)
        self.internal_errors: list[str] = []  # tracebacks of emulator bugs (each answered 500)
        self.calls: list[dict] = []  # one entry per request: action, params (no signature), status, code
        # What the contract check (lab/cloud/contract.py) found in the requests and replies, also recorded in
        # contract.FINDINGS for tests/conftest.py.
        self.contract_findings: list[str] = []
        self._tokens: dict[tuple, tuple[dict, dict]] = {}  # (version, action, token) -> (params, reply)
        self._nonces: dict[str, float] = {}
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ------------------------------------------------------------------------
    def start(self) -> CloudEmulator:
        # the API models parsed before the first request, not during a timed test
        contract.warm({**{v: list(m.ACTIONS) for v, m in SERVICES.items()}, cs.VERSION: [r[2] for r in cs.ROUTES]})
        emulator = self

        class Handler(_Handler):
            emu = emulator

        self._server = http.server.ThreadingHTTPServer((self.address, self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="cloud-emulator", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> CloudEmulator:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def endpoint(self) -> str:
        """`host:port` for request.set_endpoint() / client.add_endpoint()."""
        return f"{self.address}:{self.port}"

    # ---- inspection for tests -------------------------------------------------------------
    def _list(self, table: dict, render) -> list[dict]:
        with self.store.lock:
            return [copy.deepcopy(render(self.store, r)) for r in table.values()]

    def vpcs(self) -> list[dict]:
        return self._list(self.store.vpcs, ecs._vpc_out)

    def vswitches(self) -> list[dict]:
        return self._list(self.store.vswitches, ecs._vswitch_out)

    def security_groups(self) -> list[dict]:
        """Each with its rules under "Permissions" as DescribeSecurityGroupAttribute shows them."""

        def render(store, sg):
            return {**ecs._sg_out(store, sg), "Permissions": {"Permission": [dict(r) for r in sg["_rules"]]}}

        return self._list(self.store.security_groups, render)

    def hpc_clusters(self) -> list[dict]:
        return self._list(self.store.hpc_clusters, lambda store, h: public(h))

    def instances(self) -> list[dict]:
        return self._list(self.store.instances, ecs.instance_out)

    def eips(self) -> list[dict]:
        """EIPs as DescribeEipAddresses shows them (their addresses loopback: lab/cloud/vpc.py)."""
        return self._list(self.store.eips, vpc._eip_out)

    def nat_gateways(self) -> list[dict]:
        """NAT gateways as DescribeNatGateways shows them (those whose Deleting ended are gone)."""
        with self.store.lock:
            vpc._ngws(self.store)
        return self._list(self.store.nat_gateways, vpc._ngw_out)

    def snat_entries(self) -> list[dict]:
        """SNAT entries as DescribeSnatTableEntries shows them."""
        with self.store.lock:
            vpc._snats(self.store)
        return self._list(self.store.snat_entries, vpc._snat_out)

    def file_systems(self) -> list[dict]:
        return self._list(self.store.file_systems, nas._fs_out)

    def mount_targets(self) -> list[dict]:
        return self._list(self.store.mount_targets, nas._mt_out)

    def protocol_services(self) -> list[dict]:
        return self._list(self.store.protocol_services, nas._ps_out)

    def clusters(self) -> list[dict]:
        """ACK clusters as DescribeClusterDetail shows them, each with its nodes under "nodes"."""
        return self._list(
            self.store.clusters,
            lambda store, c: {
                **cs.cluster_out(store, c),
                "nodes": [cs.node_out(store, c, n) for n in c["_nodes"].values()],
            },
        )

    def exports(self) -> list[dict]:
        return self._list(self.store.exports, lambda store, e: {**public(e), "Status": store.status(e)})

    def set_stock(self, instance_type: str, count: int | None) -> None:
        """At most `count` instances of that type may exist (None: no limit): NoStock beyond."""
        with self.store.lock:
            if count is None:
                self.store.stock.pop(instance_type, None)
            else:
                self.store.stock[instance_type] = count

    def backing(self) -> dict[str, str | None]:
        """Lab host address -> the instance it backs (None while free)."""
        with self.store.lock:
            return dict(self.store.backing)

    @property
    def faults_injected(self) -> int:
        return sum(self.faults.injected.values())

    def inject(self, kind: str, action: str | None = None, times: int = 1, delay: float = 0.0) -> None:
        """Give the next `times` requests (of `action`, or any) the fault `kind`."""
        self.faults.add(kind, action, times, delay)

    def set_random_faults(self, random_faults: RandomFaults | None) -> None:
        with self.faults.lock:
            self.faults.random = random_faults

    # ---- one request ----------------------------------------------------------------------
    def handle(self, method: str, params: dict[str, str]) -> tuple[int, dict, str | None]:
        """Returns (status, body, fault kind applied after the action: 'drop_after' or None)."""
        req_id = request_id()
        version = params.get("Version", "")
        service = SERVICES.get(version, ecs)
        region = params.get("RegionId", "")
        host_id = service.host_id(region if region in self.regions else "")
        action = params.get("Action", "")
        entry = {
            "action": action,
            "version": version,
            "params": {
                k: ("********" if k == "Password" else v)
                for k, v in params.items()
                if k not in ("Signature", "SignatureNonce")
            },
            "fault": None,
            "status": None,
            "code": None,
        }
        self.calls.append(entry)
        self._contract(contract.check_rpc, params)
        after = None
        try:
            self._authenticate(method, params)
            handler = service.ACTIONS.get(action) if version in SERVICES else None
            if handler is None:
                raise ApiError(
                    404, "InvalidAction.NotFound", "Specified api is not found, please check your url and method."
                )
            if region not in self.regions:
                raise ApiError(404, "InvalidRegionId.NotFound", "The specified RegionId does not exist.")
            after = self._inject_fault(action, entry)
            body = self._apply(service, handler, action, region, Params(params))
            status = 200
        except ApiError as err:
            status, body = err.status, error_body(err, req_id, host_id, service.PRODUCT)
        except _Drop:
            raise
        except Exception:  # pylint: disable=broad-exception-caught
            # An emulator bug: answer like the real service does, keep the traceback for tests.
            self.internal_errors.append(traceback.format_exc())
            err = ApiError(*INTERNAL_ERROR)
            status, body = err.status, error_body(err, req_id, host_id, service.PRODUCT)
        entry.update(status=status, code=body.get("Code") if status != 200 else None)
        if status == 200:
            body = {"RequestId": req_id, **body}
            self._contract(contract.check_reply, version, action, body)
        return status, body, after

    def _contract(self, check, *args) -> None:
        try:
            findings = check(*args)
        except Exception:  # pylint: disable=broad-exception-caught
            findings = ["contract check failed: " + traceback.format_exc()]
        contract.record(findings, self.contract_findings)

    def _inject_fault(self, action: str, entry: dict) -> str | None:
        """The next scripted or random fault of ``action``, recorded in ``entry``: an error reply raised, a dropped
        request raised, a delay slept; -> "drop_after" when the reply is to be dropped after the call took effect."""
        fault = self.faults.next(action)
        if fault is None:
            return None
        entry["fault"] = fault.kind
        if fault.kind in ERRORS or fault.kind in PERMANENT:
            raise ApiError(*{**ERRORS, **PERMANENT}[fault.kind])
        if fault.kind == "drop_before":
            raise _Drop()
        if fault.kind == "slow":
            time.sleep(fault.delay)
        return fault.kind if fault.kind == "drop_after" else None

    # ---- one ROA (CS) request --------------------------------------------------------------
    def handle_roa(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> tuple[int, dict, str | None]:
        """A CS API request: the ROA signature checked as aliyunsdkcore signs it, then the route."""
        req_id = request_id()
        lower = {k.lower(): v for k, v in headers.items()}
        region = query.get("RegionId") or lower.get("x-acs-region-id", "")
        matched = cs.route(method, path)
        action = matched[0] if matched else f"{method} {path}"
        entry = {"action": action, "version": lower.get("x-acs-version", ""), "params": dict(query),
                 "path": path, "fault": None, "status": None, "code": None}  # fmt: skip
        self.calls.append(entry)
        self._contract(_roa_contract, lower.get("x-acs-version", ""), method, path, query, body)
        after = None
        gateway = True  # errors of the API gateway (auth, routing) have the POP body; the CS service's its own
        try:
            self._authenticate_roa(method, path, query, lower)
            if matched is None or lower.get("x-acs-version") != cs.VERSION:
                raise ApiError(
                    404, "InvalidAction.NotFound", "Specified api is not found, please check your url and method."
                )
            if region not in self.regions:
                raise ApiError(404, "InvalidRegionId.NotFound", "The specified RegionId does not exist.")
            after = self._inject_fault(action, entry)
            gateway = False
            try:
                payload = json.loads(body) if body else {}
            except ValueError:
                raise cs.bad("body", "it is not JSON.") from None
            if not isinstance(payload, dict):
                raise cs.bad("body", "it must be a JSON object.")
            ctx = Ctx(action, region, False, cs)
            with self.store.lock:
                reply = matched[1](self.store, ctx, matched[2], query, payload)
            status = reply.pop("_status", 200)
            if "request_id" in reply:
                reply["request_id"] = req_id
            body_out = reply
            if status < 300:
                self._contract(contract.check_reply, cs.VERSION, action, body_out)
        except ApiError as err:
            status = err.status
            if gateway:
                body_out = error_body(err, req_id, cs.host_id(region if region in self.regions else ""), cs.PRODUCT)
            else:
                body_out = cs_error_body(err, req_id)
        except _Drop:
            raise
        except Exception:  # pylint: disable=broad-exception-caught
            self.internal_errors.append(traceback.format_exc())
            err = ApiError(*INTERNAL_ERROR)
            status, body_out = err.status, cs_error_body(err, req_id)
        entry.update(status=status, code=(body_out.get("code") or body_out.get("Code")) if status >= 300 else None)
        return status, body_out, after

    def _authenticate_roa(self, method: str, path: str, query: dict[str, str], lower: dict[str, str]) -> None:
        key_id, signature = roa_authorization(lower)
        if key_id != self.access_key_id:
            raise access_key_not_found()
        expected = roa_sign(method, path, query, lower, self.access_key_secret)
        if not hmac.compare_digest(expected, signature):
            raise signature_mismatch(roa_string_to_sign(method, path, query, lower))
        self._check_security_token(lower.get("x-acs-security-token"))
        _check_sent(lower.get("date", ""), "%a, %d %b %Y %H:%M:%S GMT", "Date")

    def _authenticate(self, method: str, params: dict[str, str]) -> None:
        if params.get("AccessKeyId") != self.access_key_id:
            raise access_key_not_found()
        if not signature_ok(method, params, self.access_key_secret):
            raise signature_mismatch(string_to_sign(method, params))
        self._check_security_token(params.get("SecurityToken"))
        # Both bodies as published: github.com/jeessy2/ddns-go/issues/1291 (400, Expired) and
        # github.com/jeessy2/ddns-go/issues/1548 (400, SignatureNonceUsed).
        _check_sent(params.get("Timestamp", ""), "%Y-%m-%dT%H:%M:%SZ", "Timestamp")
        nonce = params.get("SignatureNonce", "")
        with self.store.lock:
            cutoff = time.time() - 2 * _TIMESTAMP_SKEW
            self._nonces = {n: t for n, t in self._nonces.items() if t > cutoff}
            if nonce in self._nonces:
                raise ApiError(400, "SignatureNonceUsed", "Specified signature nonce was used already.")
            self._nonces[nonce] = time.time()

    def _check_security_token(self, sent: str | None) -> None:
        if self.security_token is not None and sent is None:
            # github.com/denverdino/aliyungo/issues/204: "Status Code: 400 Code:
            # MissingSecurityToken Message: SecurityToken is mandatory for this action."
            raise ApiError(400, "MissingSecurityToken", "SecurityToken is mandatory for this action.")
        if sent is not None and sent != self.security_token:
            # What ECS answers an expired token (github.com/kubevela/terraform-controller/issues/52);
            # the emulator gives it to any token it did not issue.
            raise invalid("SecurityToken.Expired")

    def _apply(self, service, handler, action: str, region: str, p: Params) -> dict:
        ctx = Ctx(action, region, p.bool("DryRun"), service)
        token = p.get("ClientToken") if action in service.CLIENT_TOKEN else None
        if token is not None and len(token) > 64:
            raise invalid("ClientToken", "It must be at most 64 ASCII characters.")
        fingerprint = {k: v for k, v in p.raw.items() if k not in _VOLATILE}
        with self.store.lock:
            if token is not None and not ctx.dry_run:
                seen = self._tokens.get((service.VERSION, action, token))
                if seen is not None:
                    if seen[0] != fingerprint:
                        raise ApiError(403, "IdempotentParameterMismatch", "The specified clientToken is used.")
                    return copy.deepcopy(seen[1])
            try:
                reply = handler(self.store, p, ctx)
            except _DryRunReply as dry:
                return dry.body
            if token is not None:
                self._tokens[(service.VERSION, action, token)] = (fingerprint, copy.deepcopy(reply))
            return reply


def _roa_contract(version: str, method: str, path: str, query: dict[str, str], body: bytes) -> list[str]:
    try:
        payload = json.loads(body) if body else {}
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        return [f"{version} {method} {path}: the body is not a JSON object"]
    return contract.check_roa(version, method, path, query, payload)


class _Handler(http.server.BaseHTTPRequestHandler):
    emu: CloudEmulator
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet: tests read emu.calls instead
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes: without this, Nagle + delayed ACK add 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _serve(self) -> None:
        raw_path, _sep, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            if (self.headers.get("Authorization") or "").startswith("acs "):
                status, reply, after = self.emu.handle_roa(
                    self.command,
                    urllib.parse.unquote(raw_path),
                    dict(urllib.parse.parse_qsl(query, keep_blank_values=True)),
                    dict(self.headers.items()),
                    body,
                )
            else:
                params = parse_params(query, body, self.headers.get("Content-Type", ""))
                status, reply, after = self.emu.handle(self.command, params)
        except _Drop:
            after, status, reply = "drop_before", 0, {}
        if after in ("drop_before", "drop_after"):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_POST = _serve
    do_GET = _serve
    do_DELETE = _serve  # the CS (ROA) API: DeleteCluster
    do_PUT = _serve  # and its PUT actions (answered InvalidAction.NotFound: not emulated)


__all__ = ["CloudEmulator", "RandomFaults", "Timings", "public"]
