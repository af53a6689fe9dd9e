"""Offline emulator of the Alibaba Cloud ECS and NAS RPC APIs (see lab/README.md, "Cloud emulator")."""

from .faults import KINDS as FAULT_KINDS
from .faults import RandomFaults
from .server import CloudEmulator
from .store import Timings

__all__ = ["FAULT_KINDS", "CloudEmulator", "RandomFaults", "Timings"]
