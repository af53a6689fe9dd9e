"""Credentials for tests that prove no error text carries them, and a port nothing listens on."""

import socket

from ansible_collections.scc.training.plugins.module_utils._alicloud import secret_forms

# An STS token with the characters percent-encoding changes (+ / = &), as real tokens have.
STS_TOKEN = "CAIS+sts/token==&part2+" + "x" * 40
KEY_ID, KEY_SECRET = "LTAI5tSecretKeyId0001", "s3cret/Key+Secret=0001"


def secret_leaks(text):
    """The forms of the credentials found in ``text``: raw, percent-encoded once or twice."""
    return [form for secret in (KEY_ID, KEY_SECRET, STS_TOKEN) for form in secret_forms(secret) if form in text]


def closed_loopback_port():
    """A loopback port that was just closed: a connection to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
