"""What every test shares: the cloud emulator's contract check (lab/cloud/contract.py).

Every request a cloud emulator receives, and every reply it sends, is held against Alibaba's published API
models while the test runs; a finding fails the test whose requests caused it (here, at its teardown). A test
that sends a non-conforming request on purpose asks for ``contract_findings`` and asserts them itself.
"""

import sys

import pytest


def _take() -> list[str]:
    # Imported by the emulator: a run that starts none (the torch tests) never loads it.
    contract = sys.modules.get("lab.cloud.contract")
    return contract.take() if contract is not None else []


@pytest.fixture
def contract_findings():
    """The contract findings of this test so far (call it), taken: the test asserts them itself."""
    taken: list[str] = []

    def findings() -> list[str]:
        taken.extend(_take())
        return list(taken)

    yield findings
    _take()


@pytest.fixture(autouse=True)
def _cloud_contract(request):
    yield
    if "contract_findings" in request.fixturenames:
        return
    found = _take()
    assert not found, "requests or replies that break the API models:\n" + "\n".join(sorted(set(found)))
