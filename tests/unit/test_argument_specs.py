"""Every role's public interface agrees with itself.

For each role under roles/ (parametrized, so a failure names the role):
- meta/argument_specs.yml exists and has the entry points `main` and `validate`, with the
  same options (DEVELOPING.md: one YAML anchor shared by both);
- every option (suboptions too) has a description and a type, and its name starts with
  `<role>_` (top level only; suboptions are keys of a dict option);
- every key of defaults/main.yml is an option, and is `<role>_` prefixed;
- every option with a default in the spec has that value in defaults/main.yml (compared
  after coercing both to the option's type), and every defaults/main.yml value passes the
  role's own spec (type, elements, choices), as ansible's role argument validation would;
- a Jinja default of a str/path option is the same text in both files; on an option of another
  type (bool, int, float, list, dict) the spec holds a literal instead, because the docs schema
  (antsibull-docs lint-collection-docs, the collection's docs site) cannot read a template as a
  bool or an int: that literal is what the template gives with nothing set but the role's own
  defaults (no default in the spec when that is null), and the option's description names every
  variable the template reads (the README and docs say what it follows);
- every entry point has a short_description, a description, an author and a version_added;
- README.md exists and mentions every option.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import jinja2.nodes
import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import DEFAULT_TYPE_VALIDATORS
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

try:  # ansible-core 2.19+: only strings marked trusted are templated
    from ansible.template import trust_as_template
except ImportError:  # pragma: no cover - ansible-core < 2.19 templates every string

    def trust_as_template(value):
        return value


ROOT = Path(__file__).resolve().parents[2]
ROLES_DIR = ROOT / "roles"
ENTRY_POINTS = ("main", "validate")
# Keys ansible accepts for an option in a role argument spec (ansible-core 2.19,
# ansible/modules/validate_argument_spec.py + module argument_spec keys).
OPTION_KEYS = {
    "type",
    "elements",
    "default",
    "choices",
    "required",
    "description",
    "options",
    "aliases",
    "no_log",
    "apply_defaults",
    "required_if",
    "required_together",
    "required_one_of",
    "required_by",
    "mutually_exclusive",
    "version_added",
    "deprecated_aliases",
    "removed_in_version",
    "removed_at_date",
    "fallback",
}


def _roles() -> list[str]:
    if not ROLES_DIR.is_dir():
        return []
    return sorted(p.name for p in ROLES_DIR.iterdir() if p.is_dir() and not p.name.startswith("."))


ROLES = _roles()


def _load(path: Path):
    with path.open(encoding="utf-8") as f:
        return yaml.safe_load(f)


def _specs(role: str) -> dict:
    path = ROLES_DIR / role / "meta" / "argument_specs.yml"
    if not path.is_file():
        alt = path.with_suffix(".yaml")
        path = alt if alt.is_file() else path
    assert path.is_file(), f"{role}: roles/{role}/meta/argument_specs.yml is missing"
    data = _load(path)
    assert isinstance(data, dict) and isinstance(data.get("argument_specs"), dict), (
        f"{role}: {path.relative_to(ROOT)} has no top-level 'argument_specs' mapping"
    )
    return data["argument_specs"]


def _options(role: str, entry_point: str = "main") -> dict:
    specs = _specs(role)
    assert entry_point in specs, f"{role}: argument_specs has no entry point {entry_point!r}"
    options = specs[entry_point].get("options") or {}
    assert isinstance(options, dict), f"{role}: argument_specs.{entry_point}.options is not a mapping"
    return options


def _defaults(role: str) -> dict:
    path = ROLES_DIR / role / "defaults" / "main.yml"
    if not path.is_file():
        return {}
    data = _load(path)
    assert data is None or isinstance(data, dict), f"{role}: defaults/main.yml is not a mapping"
    return data or {}


def _is_template(value) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


# Option types whose documented default must be a literal: the docs schema (antsibull-docs) coerces a
# default to the option's type, and "{{ scc_cpu_only | default(false) }}" is no bool.
LITERAL_DEFAULT_TYPES = {"bool", "int", "float", "list", "dict"}
ENTRY_POINT_KEYS = ("short_description", "description", "author", "version_added")


def _trusted(value):
    if isinstance(value, str):
        return trust_as_template(value)
    if isinstance(value, dict):
        return {k: _trusted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_trusted(v) for v in value]
    return value


def _unset_value(role: str, value):
    """value (a template of defaults/main.yml) as the role sees it with nothing set: no inventory, no
    facts, only the role's own defaults (which may be templates themselves)."""
    templar = Templar(loader=DataLoader(), variables=_trusted(_defaults(role)))
    return templar.template(_trusted(value))


def _template_variables(value: str) -> set[str]:
    """The variables a Jinja template reads (its names; jinja2.meta would need Ansible's filters)."""
    tree = jinja2.Environment().parse(value)
    stored = {n.name for n in tree.find_all(jinja2.nodes.Name) if n.ctx != "load"}
    return {n.name for n in tree.find_all(jinja2.nodes.Name) if n.ctx == "load"} - stored


def _mentions(text, name: str) -> bool:
    text = " ".join(text) if isinstance(text, list) else str(text or "")
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def _templated_literal_problems(role: str, name: str, spec: dict, have: str) -> list[str]:
    """A bool/int/... option whose defaults/main.yml value is a template: the spec documents the literal
    it gives when nothing is set, and its description names what it follows."""
    problems = []
    want = spec.get("default")
    if _is_template(want):
        return [
            f"{name}: spec default {want!r} is a template on a {spec.get('type')} option, which the docs schema"
            " cannot read: write the value it takes with nothing set, and name its variables in the description"
        ]
    try:
        unset = _unset_value(role, have)
        want_c, unset_c = _coerce(want, spec), _coerce(unset, spec)
    except Exception as exc:  # any failure to render or coerce is reported, naming the option
        return [f"{name}: defaults/main.yml {have!r} cannot be rendered with the role's defaults alone: {exc}"]
    if want_c != unset_c:
        shown = "no default" if want is None else f"default {want!r}"
        problems.append(f"{name}: spec {shown}, but defaults/main.yml {have!r} gives {unset!r} with nothing set")
    missing = sorted(v for v in _template_variables(have) if not _mentions(spec.get("description"), v))
    if missing:
        problems.append(f"{name}: its default follows {missing} ({have!r}); the description must name them")
    return problems


def _coerce(value, spec: dict):
    """Value as ansible's role argument validation would see it (type and list elements)."""
    typ = spec.get("type", "str")
    if value is None or not isinstance(typ, str) or typ not in DEFAULT_TYPE_VALIDATORS:
        return value
    value = DEFAULT_TYPE_VALIDATORS[typ](value)
    elements = spec.get("elements")
    if typ == "list" and isinstance(elements, str) and elements in DEFAULT_TYPE_VALIDATORS:
        value = [DEFAULT_TYPE_VALIDATORS[elements](v) for v in value]
    return value


def _walk_options(options: dict, prefix: str = ""):
    for name, spec in options.items():
        yield f"{prefix}{name}", spec
        if isinstance(spec, dict) and isinstance(spec.get("options"), dict):
            yield from _walk_options(spec["options"], prefix=f"{prefix}{name}.")


def test_roles_exist():
    assert ROLES, "no roles under roles/"


@pytest.mark.parametrize("role", ROLES)
def test_entry_points_main_and_validate_have_identical_options(role):
    specs = _specs(role)
    missing = [ep for ep in ENTRY_POINTS if ep not in specs]
    assert not missing, f"{role}: argument_specs lacks entry point(s) {missing}"
    main, validate = _options(role, "main"), _options(role, "validate")
    assert main, f"{role}: argument_specs.main has no options"
    only_main = sorted(set(main) - set(validate))
    only_validate = sorted(set(validate) - set(main))
    assert not only_main and not only_validate, (
        f"{role}: options only in main: {only_main}; only in validate: {only_validate}"
    )
    differ = sorted(k for k in main if main[k] != validate[k])
    assert not differ, f"{role}: options that differ between main and validate: {differ}"


@pytest.mark.parametrize("role", ROLES)
def test_every_option_has_description_and_type(role):
    problems = []
    for name, spec in _walk_options(_options(role)):
        if not isinstance(spec, dict):
            problems.append(f"{name}: spec is not a mapping")
            continue
        desc = spec.get("description")
        if not desc or (isinstance(desc, list) and not all(isinstance(d, str) and d.strip() for d in desc)):
            problems.append(f"{name}: no description")
        if "type" not in spec:
            problems.append(f"{name}: no type")
        elif spec["type"] not in DEFAULT_TYPE_VALIDATORS:
            problems.append(f"{name}: unknown type {spec['type']!r}")
        if spec.get("type") == "list" and "elements" not in spec:
            problems.append(f"{name}: type list without elements")
        unknown = sorted(set(spec) - OPTION_KEYS)
        if unknown:
            problems.append(f"{name}: unknown keys {unknown}")
        if "default" in spec and spec.get("required"):
            problems.append(f"{name}: both required and a default")
    assert not problems, f"{role}: meta/argument_specs.yml:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("role", ROLES)
def test_every_entry_point_is_documented(role):
    """What the docs schema and antsibull-changelog read from an entry point (version_added of `main`
    lists a new role in the changelog of that release)."""
    problems = []
    for name, entry_point in _specs(role).items():
        missing = [k for k in ENTRY_POINT_KEYS if not (entry_point or {}).get(k)]
        if missing:
            problems.append(f"{name}: no {', '.join(missing)}")
    assert not problems, f"{role}: meta/argument_specs.yml entry points:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("role", ROLES)
def test_public_variables_are_prefixed_with_role_name(role):
    prefix = f"{role}_"
    bad_options = sorted(k for k in _options(role) if not k.startswith(prefix))
    bad_defaults = sorted(k for k in _defaults(role) if not k.startswith(prefix))
    assert not bad_options and not bad_defaults, (
        f"{role}: public variables must start with {prefix!r}: "
        f"argument_specs options {bad_options}, defaults/main.yml keys {bad_defaults}"
    )


@pytest.mark.parametrize("role", ROLES)
def test_every_default_is_an_option(role):
    options = _options(role)
    missing = sorted(set(_defaults(role)) - set(options))
    assert not missing, f"{role}: defaults/main.yml keys not in argument_specs options: {missing}"


@pytest.mark.parametrize("role", ROLES)
def test_spec_defaults_match_defaults_file(role):
    options, defaults = _options(role), _defaults(role)
    problems = []
    for name, spec in options.items():
        if not isinstance(spec, dict):
            continue
        if _is_template(defaults.get(name)) and spec.get("type") in LITERAL_DEFAULT_TYPES:
            problems += _templated_literal_problems(role, name, spec, defaults[name])
            continue
        if name in defaults and "default" not in spec and not spec.get("required"):
            problems.append(f"{name}: in defaults/main.yml ({defaults[name]!r}) but the spec lists no default")
            continue
        if "default" not in spec:
            continue
        if name not in defaults:
            problems.append(f"{name}: spec default {spec['default']!r} but not in defaults/main.yml")
            continue
        want, have = spec["default"], defaults[name]
        if _is_template(want) or _is_template(have):
            # A Jinja default cannot be coerced; it must be the same text.
            if want != have:
                problems.append(f"{name}: spec default {want!r} != defaults/main.yml {have!r}")
            continue
        try:
            want_c, have_c = _coerce(want, spec), _coerce(have, spec)
        except (TypeError, ValueError) as exc:
            problems.append(f"{name}: cannot coerce to {spec.get('type')}: {exc}")
            continue
        if want_c != have_c:
            problems.append(f"{name}: spec default {want!r} != defaults/main.yml {have!r}")
    assert not problems, f"{role}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("role", ROLES)
def test_defaults_pass_the_role_spec(role):
    """Run ansible's own argument validation over defaults/main.yml (Jinja values left out)."""
    options = _options(role)
    params = {k: v for k, v in _defaults(role).items() if k in options and not _is_template(v)}
    # Options whose only value is a template would trip `required`, and so would a required option
    # without a default (the caller passes it, e.g. artifact_fetch_register); judge only what we pass.
    spec = {}
    for name, opt in options.items():
        if not isinstance(opt, dict) or (name not in params and "default" in opt and _is_template(opt["default"])):
            continue
        if name not in params and opt.get("required"):
            continue
        spec[name] = {k: v for k, v in opt.items() if k not in ("description", "version_added")}
    result = ArgumentSpecValidator(spec).validate(params)
    messages = [e.msg if hasattr(e, "msg") else str(e) for e in result.errors]
    assert not messages, f"{role}: defaults/main.yml fails its own argument spec:\n  " + "\n  ".join(messages)


@pytest.mark.parametrize("role", ROLES)
def test_readme_mentions_every_option(role):
    readme = ROLES_DIR / role / "README.md"
    assert readme.is_file(), f"{role}: roles/{role}/README.md is missing"
    text = readme.read_text(encoding="utf-8")
    missing = sorted(k for k in _options(role) if not re.search(rf"(?<![\w]){re.escape(k)}(?![\w])", text))
    assert not missing, f"{role}: README.md does not mention options {missing}"
