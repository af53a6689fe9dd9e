# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""SSH host keys from an instance's console, as cloud-init prints them, and the known_hosts file made of them.

What cloud-init prints (canonical/cloud-init, ``cloudinit/config/cc_keys_to_console.py``, module "Keys to Console",
PER_INSTANCE, on unless ``ssh: {emit_keys_to_console: false}``; by default every type but ``ssh-dss``): it runs
``tools/write-ssh-key-fingerprints``, which writes, through ``logger --stderr -t ec2`` (so a console line may carry an
``ec2: `` prefix, and a kernel timestamp or ``cloud-init[pid]:`` before it)::

    #############################################################
    -----BEGIN SSH HOST KEY FINGERPRINTS-----
    256 SHA256:<base64> root@host (ED25519)          <- ssh-keygen -l of each /etc/ssh/ssh_host_*key.pub
    -----END SSH HOST KEY FINGERPRINTS-----
    #############################################################
    -----BEGIN SSH HOST KEY KEYS-----
    ssh-ed25519 AAAAC3Nz... root@host                <- each /etc/ssh/ssh_host_*key.pub as it is
    -----END SSH HOST KEY KEYS-----

and cloud-init copies it to the console (``util.multi_log(..., console=True)``), where a serial line ends in
``\\r\\n``. The ECS API returns the console as base64 (``GetInstanceConsoleOutput`` ``ConsoleOutput``,
alibabacloud_ecs20140526 7.11.8 ``GetInstanceConsoleOutputResponseBody``: "The Base64-encoded system command line
output of the instance").

Pure functions, no I/O: the module ``ecs_host_keys`` calls the API and writes the file.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import struct

BEGIN_KEYS = "-----BEGIN SSH HOST KEY KEYS-----"
END_KEYS = "-----END SSH HOST KEY KEYS-----"
BEGIN_FINGERPRINTS = "-----BEGIN SSH HOST KEY FINGERPRINTS-----"
END_FINGERPRINTS = "-----END SSH HOST KEY FINGERPRINTS-----"

# The key types OpenSSH accepts for a host (ssh-dss left out: cloud-init does not print it by default and OpenSSH
# has disabled it since 7.0).
KEY_TYPES = (
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "ssh-rsa",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
# ssh-keygen -l's last word, "(ED25519)", for each key type.
_FINGERPRINT_TYPE = {
    "ssh-ed25519": "ED25519",
    "ecdsa-sha2-nistp256": "ECDSA",
    "ecdsa-sha2-nistp384": "ECDSA",
    "ecdsa-sha2-nistp521": "ECDSA",
    "ssh-rsa": "RSA",
    "sk-ssh-ed25519@openssh.com": "ED25519-SK",
    "sk-ecdsa-sha2-nistp256@openssh.com": "ECDSA-SK",
}
_KEY = re.compile(
    r"(?:^|[\s:])(%s)\s+([A-Za-z0-9+/]+={0,2})(?=\s|$)" % "|".join(re.escape(t) for t in KEY_TYPES),
)
_FINGERPRINT = re.compile(r"\b\d+\s+(SHA256:[A-Za-z0-9+/]+={0,2})\s.*\(([A-Z0-9-]+)\)\s*$")
# ANSI escapes (colours, cursor moves) a console may carry.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]")


class ConsoleKeysError(ValueError):
    """The console shows the block, but what it holds is not a sound set of host keys."""


def console_text(console_output_b64):
    """``ConsoleOutput`` (base64) -> text; None or empty (nothing printed yet) -> ``""``."""
    if not console_output_b64:
        return ""
    try:
        raw = base64.b64decode("".join(console_output_b64.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ConsoleKeysError("ConsoleOutput is not base64: %s" % exc) from None
    return raw.decode("utf-8", errors="replace")


def _lines(text):
    return [_ANSI.sub("", line) for line in re.split(r"\r\n|\r|\n", text)]


def _last_block(lines, begin, end):
    """The lines between the last ``begin`` that an ``end`` follows and that ``end``; None when there is none."""
    block, inside = None, None
    for line in lines:
        if begin in line:
            inside = []
        elif end in line and inside is not None:
            block, inside = inside, None
        elif inside is not None:
            inside.append(line)
    return block


def key_blob_type(blob_b64):
    """The key type a public key blob names itself (its first SSH string), or None when it is not one."""
    try:
        blob = base64.b64decode(blob_b64, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(blob) < 4:
        return None
    (length,) = struct.unpack(">I", blob[:4])
    if length > len(blob) - 4 or length > 64:
        return None
    return blob[4 : 4 + length].decode("ascii", errors="replace")


def fingerprint(blob_b64):
    """OpenSSH's SHA256 fingerprint of a public key blob: ``SHA256:`` and unpadded base64 of its digest."""
    digest = hashlib.sha256(base64.b64decode(blob_b64)).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def parse_console_host_keys(text):
    """The host keys of cloud-init's last complete ``SSH HOST KEY KEYS`` block in a console's ``text``.

    Returns a sorted list of ``(key type, base64 blob)``, or None when no complete block was printed yet (boot not
    finished, or the image's cloud-init prints none). Lines in the block that hold no key (console noise, kernel
    messages between them) are skipped; prefixes before a key (``ec2: ``, timestamps) are ignored.
    Raises ConsoleKeysError when the block is complete but holds no key, a key whose blob names another type, or a
    key whose fingerprint the fingerprint block contradicts (one of its type printed, not this one).
    """
    lines = _lines(text)
    block = _last_block(lines, BEGIN_KEYS, END_KEYS)
    if block is None:
        return None
    keys = set()
    for line in block:
        for key_type, blob in _KEY.findall(line):
            if key_blob_type(blob) != key_type:
                raise ConsoleKeysError("a %s key on the console does not decode as one: %r" % (key_type, line.strip()))
            keys.add((key_type, blob))
    if not keys:
        raise ConsoleKeysError("cloud-init's host key block on the console holds no key")
    printed = {}
    for line in _last_block(lines, BEGIN_FINGERPRINTS, END_FINGERPRINTS) or []:
        match = _FINGERPRINT.search(line)
        if match:
            printed.setdefault(match.group(2), set()).add(match.group(1))
    for key_type, blob in keys:
        listed = printed.get(_FINGERPRINT_TYPE[key_type])
        if listed and fingerprint(blob) not in listed:
            raise ConsoleKeysError(
                "the %s key on the console (%s) is not the one its fingerprint block lists (%s)"
                % (key_type, fingerprint(blob), ", ".join(sorted(listed)))
            )
    return sorted(keys)


def known_hosts_line(names, key_type, blob):
    """One known_hosts line: the host's names (comma-separated, in order, no duplicates), its key."""
    unique = []
    for name in names:
        if name and name not in unique:
            unique.append(name)
    if not unique:
        raise ValueError("a known_hosts line needs a host name")
    return "%s %s %s" % (",".join(unique), key_type, blob)


def parse_known_hosts(text):
    """known_hosts lines (plain names, no hashed or marker lines) -> ``{name: {(type, blob), ...}}``."""
    found = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[0].startswith(("#", "@", "|")):
            continue
        for name in fields[0].split(","):
            found.setdefault(name, set()).add((fields[1], fields[2]))
    return found


def known_hosts_text(hosts):
    """The whole file for ``hosts``, a list of ``{"names": [...], "keys": [(type, blob), ...]}``: one line per key,
    in the hosts' order, the keys sorted; the same hosts give the same bytes."""
    lines = [known_hosts_line(h["names"], t, b) for h in hosts for t, b in sorted(h["keys"])]
    return "".join(line + "\n" for line in lines)
