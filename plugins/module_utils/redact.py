# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Credentials in URLs, masked before a URL reaches a result, a message or a file.

A private package index or mirror often carries its credentials in the URL
(``--index-url=https://alice:S3cretT0ken@pypi.corp/simple``). What is shown or written keeps the
scheme, host, port and path, so the user still sees which index was used, and masks the userinfo
the way pip masks it in its own output: ``pip._internal.utils.misc.redact_netloc`` (pip 26.3, used
by ``redact_auth_from_url``) turns ``user:pass@host`` into ``user:****@host`` and a lone token
``token@host`` into ``****@host``. Unlike pip, the URL is not re-assembled through
``urllib.parse`` (which normalizes it), and URLs are found anywhere in a text (pip's own output,
a command line, a message), so a ``--index-url=URL`` item, a separate ``URL`` item after
``--index-url`` and a URL in a sentence are all masked.

What decides behaviour (the wheelhouse key, the command pip runs) keeps the raw value.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

MASK = "****"
# scheme://userinfo@ : the userinfo ends at the last "@" before the host's end ("/", "?", "#"), as
# urllib.parse.urlsplit and pip's split_auth_from_netloc (netloc.rsplit("@", 1)) read it.
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s'\"<>]*)@")


def _masked(match):
    userinfo = match.group("userinfo")
    if ":" in userinfo:
        return "%s%s:%s@" % (match.group("scheme"), userinfo.split(":", 1)[0], MASK)
    return "%s%s@" % (match.group("scheme"), MASK)


def redact_text(text):
    """``text`` with the userinfo of every URL in it masked (pip's ``user:****@``, ``****@``)."""
    if not isinstance(text, str) or "@" not in text:
        return text
    return _USERINFO.sub(_masked, text)


def redact_args(args):
    """A command line or pip argument list with every URL's userinfo masked, item by item."""
    return [redact_text(arg) for arg in args or []]


def redact_data(value):
    """A result (dicts, lists, strings) with every URL's userinfo masked in each string, keys included."""
    if isinstance(value, dict):
        return {redact_text(key): redact_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(item) for item in value]
    return redact_text(value)


def url_secrets(args):
    """The secret of each URL in ``args``: its password, or the whole userinfo of a lone token.

    For ``AnsibleModule.no_log_values``: Ansible then masks these strings wherever they appear in the
    module's result, its ``invocation`` (shown at -vvv and kept in a registered variable) included.
    """
    secrets = set()
    for arg in args or []:
        for match in _USERINFO.finditer(str(arg)):
            userinfo = match.group("userinfo")
            secret = userinfo.split(":", 1)[1] if ":" in userinfo else userinfo
            if secret and secret != MASK:
                secrets.add(secret)
    return secrets
