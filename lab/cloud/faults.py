"""Fault injection, chosen per test: scripted faults and a seeded random mode.

Kinds:
  throttling       400 Throttling, nothing applied
  throttling_user  400 Throttling.User, nothing applied
  unavailable      503 ServiceUnavailable, nothing applied
  internal         500 InternalError, nothing applied
  forbidden        403 Forbidden.RAM, nothing applied: a PERMANENT error (never retried), so the call's
                   task fails; to stop a playbook at a chosen step. Not among RandomFaults' default kinds.
  slow             the reply comes `delay` seconds late (the action is applied as usual)
  drop_before      the connection is closed without a reply, nothing applied
  drop_after       the action is applied, then the connection is closed without a reply
"""

from __future__ import annotations

import collections
import dataclasses
import random
import threading

from . import errors

ERRORS = {
    "throttling": errors.THROTTLING,
    "throttling_user": errors.THROTTLING_USER,
    "unavailable": errors.SERVICE_UNAVAILABLE,
    "internal": errors.INTERNAL_ERROR,
}
PERMANENT = {"forbidden": errors.FORBIDDEN_RAM}
# What a client recovers from by retrying: RandomFaults draws from these by default.
TRANSIENT = (*ERRORS, "slow", "drop_before", "drop_after")
KINDS = (*TRANSIENT, *PERMANENT)


@dataclasses.dataclass
class Fault:
    kind: str
    delay: float = 0.0  # for "slow"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; known: {', '.join(KINDS)}")


@dataclasses.dataclass
class _Rule:
    fault: Fault
    action: str | None
    times: int


class RandomFaults:
    """Each matching request gets a fault with probability `rate`, the kind drawn from `kinds`.

    Seeded, so a failing run can be replayed. `actions` limits it to some actions (None: all).
    """

    def __init__(self, seed: int, rate: float, kinds: tuple[str, ...] = TRANSIENT, actions=None, delay: float = 0.05):
        for kind in kinds:
            Fault(kind)
        self.rng = random.Random(seed)
        self.rate = rate
        self.kinds = tuple(kinds)
        self.actions = set(actions) if actions else None
        self.delay = delay

    def draw(self, action: str) -> Fault | None:
        if self.actions is not None and action not in self.actions:
            return None
        if self.rng.random() >= self.rate:
            return None
        return Fault(self.rng.choice(self.kinds), self.delay)


class Faults:
    """Scripted rules first (in the order added), then the random mode if set."""

    def __init__(self, random_faults: RandomFaults | None = None):
        self.lock = threading.Lock()
        self.rules: list[_Rule] = []
        self.random = random_faults
        self.injected: collections.Counter = collections.Counter()
        self.log: list[tuple[str, str]] = []  # (action, kind) per injected fault

    def add(self, kind: str, action: str | None = None, times: int = 1, delay: float = 0.0) -> None:
        with self.lock:
            self.rules.append(_Rule(Fault(kind, delay), action, times))

    def clear(self) -> None:
        with self.lock:
            self.rules.clear()
            self.random = None

    def next(self, action: str) -> Fault | None:
        with self.lock:
            fault = None
            for rule in self.rules:
                if rule.times > 0 and rule.action in (None, action):
                    rule.times -= 1
                    fault = rule.fault
                    break
            self.rules = [r for r in self.rules if r.times > 0]
            if fault is None and self.random is not None:
                fault = self.random.draw(action)
            if fault is not None:
                self.injected[fault.kind] += 1
                self.log.append((action, fault.kind))
            return fault
