"""Role README variable tables, generated from each role's meta/argument_specs.yml.

In every roles/<role>/README.md, the lines between the BEGIN and END ARGUMENT SPECS markers are
replaced with a table of the `main` entry point's options (name, type, default, choices,
description; Ansible's doc markup C(), O(), V()... rendered as Markdown) and a list of the other
entry points. The argument specs are the one place types, defaults and choices are written;
the README shows them.

    python tools/role_readme.py            rewrite every README whose section is stale
    python tools/role_readme.py --check    rewrite nothing; exit 1 naming each stale README
    python tools/role_readme.py ROLE...    only these roles (names or paths of role directories)

`make docs` runs the first form, `make lint` the second.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "<!-- BEGIN ARGUMENT SPECS: generated from meta/argument_specs.yml by tools/role_readme.py (make docs) -->"
END = "<!-- END ARGUMENT SPECS -->"
_BEGIN_PREFIX = "<!-- BEGIN ARGUMENT SPECS"

# Ansible's documentation markup (https://docs.ansible.com/ansible/latest/dev_guide/ansible_markup.html).
# As in ansible-doc, a macro's argument runs to the first ")" (L() has two, comma-separated).
_MARKUP = re.compile(
    r"\bL\((?P<link_text>[^),]+),\s*(?P<link_url>[^)]+)\)"
    r"|\b(?P<macro>RV|[CIBMUVOEP])\((?P<arg>[^)]*)\)"
    r"|\bHORIZONTALLINE\b"
)
_CODE_MACROS = {"C", "M", "O", "V", "E", "P", "RV"}


def _escape_text(text: str) -> str:
    """Plain text for a Markdown table cell: nothing in it may read as markup, HTML or a cell border."""
    for char in ("\\", "`", "*", "|", "<", "["):
        text = text.replace(char, "\\" + char)
    return text


def code(text: str) -> str:
    """An inline code span that survives a Markdown table cell (its `|` escaped, as GFM requires)."""
    text = str(text).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markup(text: str) -> str:
    """Ansible doc markup to Markdown: C()/O()/V()/E()/P()/M()/RV() as code, I() italic, B() bold,
    U() and L() links; the text around them escaped."""
    out, pos = [], 0
    for match in _MARKUP.finditer(text):
        macro, arg = match.group("macro"), match.group("arg")
        out.append(_escape_text(text[pos : match.start()]))
        pos = match.end()
        if match.group("link_text") is not None:
            out.append(f"[{_escape_text(match.group('link_text').strip())}]({match.group('link_url').strip()})")
        elif macro is None:  # HORIZONTALLINE: no rule inside a table cell
            out.append(" ")
        elif macro in _CODE_MACROS:
            out.append(code(arg))
        elif macro == "I":
            out.append(f"*{_escape_text(arg)}*")
        elif macro == "B":
            out.append(f"**{_escape_text(arg)}**")
        else:  # U(url)
            out.append(f"<{arg}>")
    out.append(_escape_text(text[pos:]))
    return "".join(out)


def description(spec: dict) -> str:
    """An option's or entry point's description (a string or a list of paragraphs) as one cell."""
    value = spec.get("description", "")
    paragraphs = value if isinstance(value, list) else [value]
    return " ".join(render_markup(" ".join(str(p).split())) for p in paragraphs if p)


def sentence(text: str) -> str:
    """text ending as a sentence does (short descriptions are often written without the stop)."""
    return text if not text or text[-1] in ".!?:" else text + "."


def type_name(spec: dict) -> str:
    typ = spec.get("type", "str")
    return f"list of {spec['elements']}" if typ == "list" and spec.get("elements") else str(typ)


def default_cell(spec: dict) -> str:
    if spec.get("required"):
        return "required"
    if "default" not in spec or spec["default"] is None:
        return ""
    value = spec["default"]
    if isinstance(value, str):
        return code(value) if value else code('""')
    # true/false, numbers, lists and dicts as YAML would write them in flow style (JSON is that).
    return code(json.dumps(value, ensure_ascii=False))


def option_rows(options: dict, prefix: str = "") -> list[str]:
    rows = []
    for name, spec in options.items():
        spec = spec or {}
        choices = ", ".join(code(c if isinstance(c, str) else json.dumps(c)) for c in spec.get("choices") or [])
        cells = [code(prefix + name), type_name(spec), default_cell(spec), choices, description(spec)]
        rows.append("| " + " | ".join(cells) + " |")
        if isinstance(spec.get("options"), dict):
            rows += option_rows(spec["options"], prefix=f"{prefix}{name}.")
    return rows


def options_table(options: dict) -> list[str]:
    if not options:
        return ["No options."]
    return [
        "| Variable | Type | Default | Choices | Description |",
        "|---|---|---|---|---|",
        *option_rows(options),
    ]


def summary(entry_point: dict) -> str:
    return description({"description": entry_point.get("short_description", "")})


def render_section(specs: dict) -> list[str]:
    """The generated lines (markers excluded) for one role's argument_specs mapping."""
    main = specs.get("main") or {}
    main_options = main.get("options") or {}
    lines = [
        f"Entry point `main` (ansible checks these when the role runs): {sentence(summary(main))}",
        "",
        *options_table(main_options),
    ]
    others = [name for name in sorted(specs) if name != "main"]
    if others:
        lines += ["", "Other entry points (`tasks_from`):", ""]
    for name in others:
        spec = specs[name] or {}
        options = spec.get("options") or {}
        if options == main_options:
            lines.append(f"- `{name}`: {sentence(summary(spec))} The same options as `main`.")
        else:
            lines += [f"- `{name}`: {sentence(summary(spec))}", "", *["  " + row for row in options_table(options)], ""]
    while lines[-1] == "":
        lines.pop()
    return lines


class MarkersMissing(ValueError):
    """A README without the BEGIN/END ARGUMENT SPECS markers, or with them out of order."""


def replace_section(text: str, section: list[str]) -> str:
    """text with the lines between its markers replaced by section (the BEGIN line made canonical)."""
    lines = text.split("\n")
    begin = [i for i, line in enumerate(lines) if line.strip().startswith(_BEGIN_PREFIX)]
    end = [i for i, line in enumerate(lines) if line.strip() == END]
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        raise MarkersMissing(f"needs exactly one {_BEGIN_PREFIX} ... --> line, then one {END} line")
    return "\n".join([*lines[: begin[0]], BEGIN, *section, *lines[end[0] :]])


def load_specs(role_dir: Path) -> dict:
    path = role_dir / "meta" / "argument_specs.yml"
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return data.get("argument_specs") or {}


def role_dirs(names: list[str], roles_dir: Path) -> list[Path]:
    if not names:
        return sorted(p for p in roles_dir.iterdir() if (p / "meta" / "argument_specs.yml").is_file())
    return [Path(n) if "/" in n else roles_dir / n for n in names]


def main(argv: list[str] | None = None, roles_dir: Path = ROOT / "roles") -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 if a README is stale")
    parser.add_argument("roles", nargs="*", help="role names or directories (default: every role)")
    args = parser.parse_args(argv)
    problems = []
    for role_dir in role_dirs(args.roles, roles_dir):
        readme = role_dir / "README.md"
        text = readme.read_text(encoding="utf-8")
        try:
            wanted = replace_section(text, render_section(load_specs(role_dir)))
        except MarkersMissing as exc:
            problems.append(f"{role_dir.name}: {readme}: {exc}")
            continue
        if wanted == text:
            continue
        if args.check:
            problems.append(f"{role_dir.name}: {readme}'s variable table is stale: run `make docs`")
        else:
            readme.write_text(wanted, encoding="utf-8")
            print(f"rewrote {readme}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
