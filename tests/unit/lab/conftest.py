"""What the emulator tests share: no proxy, an emulator per test, an SDK client for it."""

import pytest

from lab.cloud import Timings
from lab.cloud.testing import PROXY_VARIABLES, client, emulator


@pytest.fixture(autouse=True)
def without_proxies(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def emu(request):
    """An emulator with the test module's EMULATOR_TIMINGS (default: Timings())."""
    with emulator(timings=getattr(request.module, "EMULATOR_TIMINGS", Timings())) as emu:
        yield emu


@pytest.fixture
def acs(emu):
    return client(emu, auto_retry=False)
