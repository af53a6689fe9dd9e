"""input_checks' readers and the way a refusal shows a value: a boolean read as Ansible reads one, a Vault string
taken as text, numbers that are not numbers, a pattern's end, and the cut of a long value at SHOWN_MAX characters."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ansible_collections.scc.training.plugins.module_utils import input_checks


@pytest.mark.parametrize(
    "value,expected",
    [
        (True, True),
        (False, False),
        (1, True),
        (0, False),
        (1.0, True),
        (0.0, False),
        ("yes", True),
        (" FALSE ", False),
        ("t", True),
        ("off", False),
        ("0", False),
        (2, None),
        (-1, None),
        (0.5, None),
        ("maybe", None),
        ("", None),
        (None, None),
        (["yes"], None),
    ],
)
def test_boolean_reads_what_ansible_reads_and_nothing_else(value, expected):
    assert input_checks.boolean(value) is expected


class EncryptedString:
    """A STAND-IN named as ansible-core's Vault string (ansible.parsing.vault.EncryptedString): not a str."""


def test_a_vault_string_is_text_and_other_objects_are_not():
    assert input_checks.is_text("x") and input_checks.is_text(EncryptedString())
    # Decimal's name sorts before "EncryptedString", int's after: neither is text.
    assert not input_checks.is_text(Decimal("1")) and not input_checks.is_text(1) and not input_checks.is_text(None)


def test_number_is_none_for_what_is_no_number():
    assert input_checks.number("2.5") == 2 and input_checks.number("2.5", float) == 2.5
    assert input_checks.number([1]) is None and input_checks.number("x") is None and input_checks.number(True) is None


def test_an_escaped_dollar_at_a_patterns_end_is_a_dollar_sign():
    assert input_checks.matches(r"^a\$", "a$") and not input_checks.matches(r"^a\$", "a")
    assert input_checks.matches(r"^a$", "a") and not input_checks.matches(r"^a$", "a\n")


def test_a_value_json_cannot_hold_is_shown_as_its_repr():
    assert input_checks.show({1}) == '"{1}"'
    loop = []
    loop.append(loop)
    assert input_checks.show(loop) == '"[[...]]"'


def test_a_value_is_cut_beyond_shown_max_characters_and_not_at_it():
    at_most = "x" * (input_checks.SHOWN_MAX - 2)  # its JSON, quotes included, is exactly SHOWN_MAX long
    assert input_checks.show(at_most) == '"%s"' % at_most
    over = at_most + "y"
    assert input_checks.show(over) == '"%s... (%d characters)' % (over[: input_checks.SHOWN_MAX - 1], 201)
    # brief: a plain value of SHOWN_MAX characters as it is, one character more as show() cuts it.
    plain = "z" * input_checks.SHOWN_MAX
    assert input_checks.brief(plain) == plain
    assert input_checks.brief(plain + "z").endswith("... (203 characters)")
