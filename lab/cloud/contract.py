"""The contract check: every request the emulator receives and every reply it sends, held against Alibaba's
own published API models (the Tea SDK packages, test dependencies pinned in requirements-dev.txt):

- ``alibabacloud-ecs20140526`` (ECS 2014-05-26), ``alibabacloud-vpc20160428`` (VPC 2016-04-28),
  ``alibabacloud-nas20170626`` (NAS 2017-06-26), ``alibabacloud-cs20151215`` (CS/ACK 2015-12-15, ROA).

What a model says, read from the installed package at test time (parsed once per class, cached):

- the actions: ``client.py``'s ``<action>_with_options`` methods (``action = '...'``, ``method``, ``pathname``);
- a request's wire keys: the ``from_map`` keys of ``<Action>Request`` (nested models for ``X.N.Y`` / ``X.Y``);
  JSON-string parameters: the keys ``client.py`` turns into a string with
  ``array_to_string_with_specified_style(..., 'json')`` (the ``<Action>ShrinkRequest`` form);
- required parameters: the ``# This parameter is required.`` comment above the attribute in ``__init__``;
- enum values: the bullet list after ``Valid values:`` in that comment, where every top-level bullet names one
  value (``- normal: ...``); a comment whose bullets are prose gives no enum (nothing is guessed);
- deprecated parameters: ``**[Deprecated]**`` (or a comment that starts "Deprecated") above the attribute;
- a reply's fields: the ``from_map`` keys of ``<Action>ResponseBody`` and its nested models.

A finding is a string naming the service version, action and what broke the rule. The emulator records each
(``CloudEmulator.contract_findings``) and in the module-wide ``FINDINGS``, which tests/conftest.py asserts empty
after every test (a test that means to send a non-conforming request takes them with the
``contract_findings`` fixture and asserts them itself).

Deliberate deviations of the emulator's replies (fields the official response model lacks) are listed in
``REPLY_DEVIATIONS`` below, each with its reason; nothing else is exempt.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
import threading
from dataclasses import dataclass, field

PACKAGES = {
    "2014-05-26": "alibabacloud_ecs20140526",
    "2016-04-28": "alibabacloud_vpc20160428",
    "2017-06-26": "alibabacloud_nas20170626",
    "2015-12-15": "alibabacloud_cs20151215",
}

# What aliyunsdkcore adds to every RPC request itself (rpc_signature_composer.py, request.py): not API parameters.
RPC_COMMON = frozenset(
    {
        "Action",
        "Version",
        "Format",
        "AccessKeyId",
        "Signature",
        "SignatureMethod",
        "SignatureNonce",
        "SignatureType",
        "SignatureVersion",
        "Timestamp",
        "SecurityToken",
        "RegionId",  # request.py adds the client's region to every RPC request that has none
    }
)

# Actions the API reference marks deprecated though the model does not: none kept. (The ECS 2014-05-26 VPC
# actions -- CreateVpc, CreateVSwitch, DescribeVpcs, DescribeVSwitches, DeleteVpc, DeleteVSwitch -- are
# the VPC API's since 2016-04-28; the modules call the VPC API, and the emulator's ECS copies of them answer
# only for the emulator's own unit tests of the old form: DEPRECATED_ACTIONS flags any request that uses them.)
# Source: ECS API reference "List of operations by function" lists no VPC operations; the VPC API
# reference (alibabacloud.com/help/en/vpc/developer-reference/api-vpc-2016-04-28-createvpc) is the current one.
DEPRECATED_ACTIONS = {
    ("2014-05-26", name): "use the VPC API (2016-04-28) " + name
    for name in ("CreateVpc", "DescribeVpcs", "DeleteVpc", "CreateVSwitch", "DescribeVSwitches", "DeleteVSwitch")
}

# Fields the emulator's replies carry that the official response model lacks, on purpose: (version, action,
# dotted path of the field) -> reason. Empty: every reply field is the model's.
REPLY_DEVIATIONS: dict[tuple[str, str, str], str] = {}

FINDINGS: list[str] = []
_LOCK = threading.Lock()


def record(findings: list[str], sink: list[str] | None = None) -> None:
    """Append ``findings`` to FINDINGS (and ``sink``)."""
    if not findings:
        return
    with _LOCK:
        FINDINGS.extend(findings)
        if sink is not None:
            sink.extend(findings)


def take() -> list[str]:
    """The findings recorded so far, FINDINGS emptied."""
    with _LOCK:
        out = list(FINDINGS)
        FINDINGS.clear()
    return out


# ---- the models ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    key: str
    kind: str  # "scalar", "list", "object", "map"
    nested: str | None  # the nested model's class name
    required: bool
    deprecated: bool
    enum: tuple[str, ...] | None
    nocase: bool = False  # the comment says the value is not case-sensitive


@dataclass
class Model:
    name: str
    fields: dict[str, Field] = field(default_factory=dict)


@dataclass(frozen=True)
class Action:
    name: str
    version: str
    method: str
    pathname: str  # RPC: "/"; ROA: the path with {name} for each path parameter
    style: str  # "RPC" or "ROA"
    request: str | None  # the request model's class name (the non-shrink one)
    json_keys: frozenset  # wire keys sent as JSON strings (the model's 'json' style)


_INIT_ARG = re.compile(r"^\s+(\w+): ([^=]+?) = None,?\s*$")
_SELF_SET = re.compile(r"^\s+self\.(\w+) = (\w+)\s*$")
_FROM_MAP_KEY = re.compile(r"^\s+if m\.get\('([^']+)'\) is not None:")
_SELF_ATTR = re.compile(r"self\.(\w+)")
_NESTED = re.compile(r"main_models\.(\w+)\(\)")
_BULLET = re.compile(r"^(?:[-*]|\d+\.)\s+(.*)$")
_VALUE = re.compile(r"^`?([A-Za-z0-9_.\-/]+)`?(?:\s*\(default\))?\s*(?::|$)")


def _enum(comment: list[str]) -> tuple[str, ...] | None:
    """The values of a ``Valid values:`` bullet list, or None where there is none or a bullet is prose."""
    start = next(
        (i for i, line in enumerate(comment) if re.search(r"valid values\s*:?\s*$", line, re.IGNORECASE)), None
    )
    if start is None:
        return None
    values = []
    for line in comment[start + 1 :]:
        if not line.strip():
            continue
        if line != line.lstrip():  # an indented continuation or sub-bullet
            continue
        bullet = _BULLET.match(line)
        if bullet is None:
            if line.startswith(">"):
                continue
            break
        value = _VALUE.match(bullet.group(1))
        if value is None:
            return None
        values.append(value.group(1).rstrip("."))
    return tuple(values) if len(values) >= 2 else None


@functools.lru_cache(maxsize=None)
def model(package: str, name: str) -> Model | None:
    """The model class ``name`` of ``package``, parsed (None: the package has no such class)."""
    models = importlib.import_module(package + ".models")
    cls = getattr(models, name, None)
    if cls is None:
        return None
    source = inspect.getsource(cls).splitlines()
    types: dict[str, str] = {}
    comments: dict[str, list[str]] = {}
    pending: list[str] = []
    section = None
    keyed: dict[str, tuple[str, str | None]] = {}  # wire key -> (attribute, nested class)
    current_key = None
    for line in source:
        stripped = line.strip()
        if stripped.startswith("def __init__"):
            section = "init"
            continue
        if stripped.startswith("def validate") or stripped.startswith("def to_map"):
            section = None
            continue
        if stripped.startswith("def from_map"):
            section = "from_map"
            continue
        if section == "init":
            arg = _INIT_ARG.match(line)
            if arg:
                types[arg.group(1)] = arg.group(2).strip()
                continue
            if stripped.startswith("#"):
                pending.append(stripped[2:])
                continue
            setter = _SELF_SET.match(line)
            if setter:
                comments[setter.group(1)] = pending
                pending = []
        elif section == "from_map":
            key = _FROM_MAP_KEY.match(line)
            if key:
                current_key = key.group(1)
                keyed[current_key] = ("", None)
                continue
            if current_key is not None:
                attr, nested = keyed[current_key]
                found = _SELF_ATTR.search(line)
                if found and not attr:
                    attr = found.group(1)
                found = _NESTED.search(line)
                if found:
                    nested = found.group(1)
                keyed[current_key] = (attr, nested)
    out = Model(name)
    for key, (attr, nested) in keyed.items():
        annotation = types.get(attr, "")
        comment = comments.get(attr, [])
        text = " ".join(comment)
        if annotation.startswith("List["):
            kind = "list"
        elif annotation.startswith("Dict[") or annotation == "dict":
            kind = "map"
        elif nested is not None:
            kind = "object"
        else:
            kind = "scalar"
        out.fields[key] = Field(
            key=key,
            kind=kind,
            nested=nested,
            required="This parameter is required." in text,
            deprecated="[Deprecated]" in text
            or bool(
                re.match(r"\W*deprecated\b", text, re.IGNORECASE)
                or re.search(r"this parameter is deprecated", text, re.I)
            ),
            enum=_enum(comment) if kind == "scalar" else None,
            nocase=bool(re.search(r"case-insensitive|not case-sensitive", text, re.IGNORECASE)),
        )
    return out


_WITH_OPTIONS = re.compile(r"^    def (\w+?)_?with_options\(\n(.*?)(?=^    (?:async )?def )", re.MULTILINE | re.DOTALL)


@functools.lru_cache(maxsize=None)
def actions(version: str) -> dict[str, Action]:
    """The actions of an API version, from its client.py."""
    package = PACKAGES[version]
    client = importlib.import_module(package + ".client")
    source = inspect.getsource(client)
    out = {}
    for match in _WITH_OPTIONS.finditer(source):
        body = match.group(2)
        name = re.search(r"action = '(\w+)'", body)
        if name is None:
            continue
        request = re.search(r"(?:tmp_req|request): main_models\.(\w+Request)\b", body)
        pathname = re.search(r"pathname = f?'([^']*)'", body)
        path = re.sub(r"\{[^}]*?\((\w+)\)\}", r"{\1}", pathname.group(1)) if pathname else "/"
        out[name.group(1)] = Action(
            name=name.group(1),
            version=version,
            method=re.search(r"method = '(\w+)'", body).group(1),
            pathname=path,
            style=re.search(r"style = '(\w+)'", body).group(1),
            request=request.group(1) if request else None,
            json_keys=frozenset(re.findall(r"array_to_string_with_specified_style\([^,]+, '([^']+)', 'json'\)", body)),
        )
    return out


def warm(served: dict[str, list[str]] | None = None) -> None:
    """Every API version's actions loaded (once per process; a few seconds), and the request and reply models
    of the ``served`` actions (version -> names) parsed, so that no timed request pays for it."""
    for version in PACKAGES:
        actions(version)
    roa_routes("2015-12-15")
    for version, names in (served or {}).items():
        package = PACKAGES[version]
        for name in names:
            act = actions(version).get(name)
            todo = [act.request] if act is not None and act.request else []
            todo.append(name + "ResponseBody")
            while todo:
                m = model(package, todo.pop())
                if m is not None:
                    todo.extend(f.nested for f in m.fields.values() if f.nested)


@functools.lru_cache(maxsize=None)
def roa_routes(version: str) -> list[tuple[str, re.Pattern, Action]]:
    routes = []
    for act in actions(version).values():
        if act.style != "ROA":
            continue
        pattern = re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(act.pathname))
        routes.append((act.method, re.compile("^" + pattern + "$"), act))
    # the most literal route first: /clusters/{id}/nodes before /clusters/{id}
    routes.sort(key=lambda r: -len(r[2].pathname.replace("{", "").split("/")))
    return routes


# ---- the checks ---------------------------------------------------------------------------------------------
def _in_enum(value: str, f: Field) -> bool:
    if value in f.enum:
        return True
    lowered = {v.lower() for v in f.enum}
    # the SDK sends Python's True as "True" (research/aliyun_facts.md); the booleans are not case-sensitive
    return value.lower() in lowered and (f.nocase or value.lower() in ("true", "false"))


def _check_value(where: str, f: Field, value, json_keys=frozenset()) -> list[str]:
    out = []
    if f.deprecated:
        out.append(f"{where}: parameter {f.key} is deprecated in the model")
    if f.enum and f.kind == "scalar" and value is not None and not isinstance(value, (dict, list)):
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        if not _in_enum(text, f):
            out.append(f"{where}: {f.key}={text!r} is not one of the model's values {list(f.enum)}")
    if f.key in json_keys and isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            out.append(f"{where}: {f.key} must be a JSON string (the model's 'json' style), got {value!r}")
    return out


def _walk_flat(package: str, where: str, m: Model, keys: dict[str, str], json_keys=frozenset()) -> list[str]:
    """Check flattened RPC keys (``X``, ``X.N``, ``X.N.Y``, ``X.Y``) against model ``m``."""
    out = []
    groups: dict[str, dict[str, str]] = {}
    for key, value in keys.items():
        if key in m.fields:  # also a model key that has a dot in it
            f = m.fields[key]
            if f.kind in ("scalar",) or (key in json_keys):
                out.extend(_check_value(where, f, value, json_keys))
                continue
            out.append(f"{where}: {key} is a {f.kind} in the model, sent as one value")
            continue
        head, _sep, rest = key.partition(".")
        f = m.fields.get(head)
        if f is None or not rest:
            out.append(f"{where}: unknown parameter {key!r} (not in {m.name})")
            continue
        groups.setdefault(head, {})[rest] = value
    for head, rests in groups.items():
        f = m.fields[head]
        if f.deprecated:
            out.append(f"{where}: parameter {head} is deprecated in the model")
        if f.kind == "map":
            continue
        if f.kind == "object":
            nested = model(package, f.nested)
            out.extend(_walk_flat(package, f"{where} {head}", nested, rests))
            continue
        by_index: dict[str, dict[str, str]] = {}
        for rest, value in rests.items():
            index, _sep, sub = rest.partition(".")
            if not index.isdigit() or int(index) < 1:
                out.append(f"{where}: {head}.{rest}: {head} is a list, its keys are {head}.N (N from 1)")
                continue
            if f.nested is None:
                if sub:
                    out.append(f"{where}: {head}.{rest}: {head} is a list of values, not of objects")
                continue
            if not sub:
                out.append(f"{where}: {head}.{index}: {head} is a list of objects ({head}.N.<key>)")
                continue
            by_index.setdefault(index, {})[sub] = value
        if f.nested is not None:
            nested = model(package, f.nested)
            for index, subs in sorted(by_index.items()):
                out.extend(_walk_flat(package, f"{where} {head}.{index}", nested, subs))
    for f in m.fields.values():
        if f.required and f.key not in keys and f.key not in groups and f.key not in RPC_COMMON:
            out.append(f"{where}: required parameter {f.key} missing")
    return out


def _walk_json(package: str, where: str, m: Model, data: dict, required: bool = True) -> list[str]:
    """Check a JSON object (a ROA body, a nested request object) against model ``m``."""
    out = []
    for key, value in data.items():
        f = m.fields.get(key)
        if f is None:
            out.append(f"{where}: unknown parameter {key!r} (not in {m.name})")
            continue
        out.extend(_check_value(where, f, value))
        if f.nested is None or value is None:
            continue
        nested = model(package, f.nested)
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if isinstance(item, dict):
                out.extend(_walk_json(package, f"{where} {key}[{i}]", nested, item))
    if required:
        for f in m.fields.values():
            if f.required and f.key not in data:
                out.append(f"{where}: required parameter {f.key} missing")
    return out


def check_rpc(params: dict[str, str]) -> list[str]:
    """Findings of one RPC request (its parameters as received)."""
    version, name = params.get("Version", ""), params.get("Action", "")
    if version not in PACKAGES:
        return [f"{version} {name}: no API model for version {version!r}"]
    where = f"{version} {name}"
    act = actions(version).get(name)
    if act is None or act.style != "RPC":
        return [f"{where}: no such action in the model"]
    out = []
    if (version, name) in DEPRECATED_ACTIONS:
        out.append(f"{where}: deprecated action: {DEPRECATED_ACTIONS[(version, name)]}")
    package = PACKAGES[version]
    keys = {k: v for k, v in params.items() if k not in RPC_COMMON or k == "RegionId"}
    m = model(package, act.request) if act.request else Model(name)
    if "RegionId" not in m.fields:
        keys.pop("RegionId", None)
    out.extend(_walk_flat(package, where, m, keys, act.json_keys))
    return out


def check_roa(version: str, method: str, path: str, query: dict[str, str], body: dict | None) -> list[str]:
    """Findings of one ROA request: the route, its query and JSON body."""
    if version not in PACKAGES:
        return [f"{version} {method} {path}: no API model for version {version!r}"]
    act = next((a for m, pattern, a in roa_routes(version) if m == method and pattern.match(path)), None)
    if act is None:
        return [f"{version} {method} {path}: no such action in the model"]
    where = f"{version} {act.name}"
    package = PACKAGES[version]
    m = model(package, act.request) if act.request else Model(act.name)
    out = []
    sent = {**{k: v for k, v in query.items() if k != "RegionId"}, **(body or {})}
    out.extend(_walk_json(package, where, m, sent))
    return out


def check_reply(version: str, action: str, reply) -> list[str]:
    """Findings of one successful reply: every field is one of the response model's."""
    package = PACKAGES.get(version)
    if package is None:
        return []
    m = model(package, action + "ResponseBody")
    if m is None:
        return []  # a reply without a body model (CS answers some actions with a bare list or nothing)
    return _reply(package, version, action, "", m, reply)


def _reply(package: str, version: str, action: str, path: str, m: Model, data) -> list[str]:
    out = []
    if isinstance(data, list):
        for item in data:
            out.extend(_reply(package, version, action, path, m, item))
        return out
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        dotted = f"{path}.{key}" if path else key
        f = m.fields.get(key)
        if f is None:
            if (version, action, dotted) not in REPLY_DEVIATIONS:
                out.append(f"{version} {action} reply: field {dotted} is not in {m.name}")
            continue
        if f.nested is not None and f.kind != "map":
            out.extend(_reply(package, version, action, dotted, model(package, f.nested), value))
        elif f.enum and isinstance(value, str) and value and not _in_enum(value, f):
            out.append(f"{version} {action} reply: {dotted}={value!r} is not one of the model's values {list(f.enum)}")
    return out
