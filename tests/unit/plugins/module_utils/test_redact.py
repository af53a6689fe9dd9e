"""plugins/module_utils/redact.py: an index's or mirror's credentials masked the way pip masks them in its output
(pip._internal.utils.misc.redact_netloc), the host and path kept."""

from __future__ import annotations

import pytest

from ansible_collections.scc.training.plugins.module_utils.redact import redact_args, redact_text, url_secrets

SECRET = "S3cretT0ken"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        # user:password -> user:****, as pip's redact_netloc does
        ("https://alice:S3cretT0ken@pypi.corp/simple", "https://alice:****@pypi.corp/simple"),
        # a lone token -> ****
        ("https://S3cretT0ken@pypi.corp:8443/simple/", "https://****@pypi.corp:8443/simple/"),
        # the last "@" before the host ends the userinfo (urlsplit's and pip's rsplit("@", 1))
        ("https://alice:S3c@ret@pypi.corp/simple", "https://alice:****@pypi.corp/simple"),
        ("git+https://alice:S3cretT0ken@git.corp/x.git", "git+https://alice:****@git.corp/x.git"),
        # already masked: unchanged (masking twice is masking once)
        ("https://alice:****@pypi.corp/simple", "https://alice:****@pypi.corp/simple"),
    ],
)
def test_credentials_are_masked_and_the_host_and_path_kept(raw, shown):
    assert redact_text(raw) == shown
    assert redact_text("--index-url=" + raw) == "--index-url=" + shown


@pytest.mark.parametrize(
    "clean",
    [
        "https://pypi.org/simple",
        "https://download.pytorch.org/whl/cu126?x=a@b",  # an "@" after the host is not userinfo
        "--find-links=/opt/wheelhouse",
        "torch==2.13.0",
        "mail alice@corp.example about it",
        "",
    ],
)
def test_text_without_credentials_is_unchanged(clean):
    assert redact_text(clean) == clean


def test_every_url_of_a_text_is_masked():
    output = (
        "Looking in indexes: https://alice:S3cretT0ken@pypi.corp/simple, https://tok@mirror.corp/pypi\n"
        "ERROR: Could not fetch 'https://alice:S3cretT0ken@pypi.corp/simple/torch/'\n"
    )
    shown = redact_text(output)
    assert SECRET not in shown and "tok@" not in shown
    assert shown.count("https://alice:****@pypi.corp/simple") == 2 and "https://****@mirror.corp/pypi" in shown


def test_arguments_as_one_item_or_two_are_masked():
    args = ["--index-url", "https://alice:S3cretT0ken@pypi.corp/simple", "--extra-index-url=https://x:y@b.corp/s", "-q"]
    assert redact_args(args) == [
        "--index-url",
        "https://alice:****@pypi.corp/simple",
        "--extra-index-url=https://x:****@b.corp/s",
        "-q",
    ]
    assert redact_args(None) == []


def test_url_secrets_names_each_password_or_token_and_nothing_empty():
    args = ["--index-url", "https://alice:S3cretT0ken@pypi.corp/simple", "--extra-index-url=https://tok@b.corp/s"]
    assert url_secrets(args) == {SECRET, "tok"}
    # no secret, an empty password, an already masked one: nothing for Ansible to mask everywhere
    assert url_secrets(["https://pypi.org/simple", "https://alice:@a.corp/", "https://u:****@b.corp/"]) == set()


def test_a_password_with_a_colon_or_any_leading_character_is_a_secret_whole():
    # userinfo user:password splits at its first ":" (urlsplit's password keeps the rest); "$", "&", "!" sort before
    # the mask's "*" and are as secret as any other password.
    args = ["https://alice:pa:ss@a.corp/", "https://bob:$3cret@b.corp/", "https://&tok@c.corp/", "https://c:!x@d.corp/"]
    assert url_secrets(args) == {"pa:ss", "$3cret", "&tok", "!x"}
    assert redact_args(args) == [
        "https://alice:****@a.corp/",
        "https://bob:****@b.corp/",
        "https://****@c.corp/",
        "https://c:****@d.corp/",
    ]
