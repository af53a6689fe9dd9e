"""The rule every refusal of a bad input keeps (issue 36.5): its message names the variable given and no other
variable of the collection, except those a case lists as related (a rule across two variables names both).

A variable is a name that the collection's specs, roles or playbooks declare (variable_names.declared_names), less
the roles' and the inventory groups' names ("scc_cloud: ..." starts a role's message; scc_cluster is a group).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ansible_collections.scc.training.plugins.module_utils import variable_names

ROOT = Path(__file__).resolve().parents[1]
GROUPS = frozenset(("scc_cluster", "scc_data_prep"))
_WORD = re.compile(r"[a-z][a-z0-9_]*")


@lru_cache(maxsize=1)
def variables() -> frozenset:
    roles = variable_names.role_names(str(ROOT))
    return variable_names.declared_names(str(ROOT), roles) - set(roles) - GROUPS


def named(message: str) -> set:
    """The collection's variables that ``message`` names (whole words)."""
    known = variables()
    return {word for word in _WORD.findall(message or "") if word in known}


def assert_names_only(message: str, variable: str, related=()) -> None:
    """``message`` names ``variable`` and no variable outside ``related``."""
    assert message, f"no refusal for {variable}"
    found = named(message) | ({variable} if variable in _WORD.findall(message) else set())
    assert variable in found, f"the refusal does not name {variable}: {message}"
    unrelated = found - {variable} - set(related)
    assert not unrelated, f"the refusal of {variable} also names {sorted(unrelated)}: {message}"
