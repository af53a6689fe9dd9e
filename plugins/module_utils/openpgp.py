# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""OpenPGP key files, read on the controller without gpg: the engine of the ``openpgp_fingerprints``
and ``openpgp_key_problems`` filters.

They let nvidia_repo check that the repository signing key it downloaded holds exactly the pinned
key (NVIDIA's 3bf863cc key has a published fingerprint, and no published sha256 of the file): a
file holding that key and another one is refused, as apt or rpm would trust both. RFC 9580: a v4 fingerprint is SHA-1 over 0x99,
the two-octet length and the public-key packet body; v5 (0x9A) and v6 (0x9B) use SHA-256 and a
four-octet length. Only primary keys (packet tag 6) are reported, not subkeys.

Pure Python, no Ansible imports: errors are ValueError.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import hashlib

PUBLIC_KEY_TAG = 6


def _crc24(data):
    """RFC 9580 section 6.1: the armor checksum."""
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _bit in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def dearmor(text):
    """The binary packets of every ASCII-armored public key block in ``text``."""
    blocks, body, inside, headers_done = [], [], False, False
    for line in str(text).splitlines():
        line = line.strip()
        if line == "-----BEGIN PGP PUBLIC KEY BLOCK-----":
            body, inside, headers_done = [], True, False
        elif line == "-----END PGP PUBLIC KEY BLOCK-----" and inside:
            blocks.append(_decode_block(body))
            inside = False
        elif inside and not headers_done:
            # Armor headers ("Comment: ...") end at the first blank line; some writers omit them.
            if line == "":
                headers_done = True
            elif ":" not in line:
                headers_done = True
                body.append(line)
        elif inside:
            body.append(line)
    if not blocks:
        raise ValueError(
            "no '-----BEGIN PGP PUBLIC KEY BLOCK-----' in the input (an ASCII-armored public key is expected)"
        )
    return blocks


def _decode_block(lines):
    checksum = None
    if lines and lines[-1].startswith("=") and len(lines[-1]) == 5:
        checksum = lines.pop()[1:]
    try:
        data = base64.b64decode("".join(lines), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("the armored key is not valid base64: %s" % exc) from None
    if checksum is not None:
        want = int.from_bytes(base64.b64decode(checksum), "big")
        if _crc24(data) != want:
            raise ValueError("the armor checksum does not match (a damaged key file)")
    return data


_TRUNCATED = "a packet runs past the end of the key (truncated file)"


def _within(data, end):
    """``end`` when the key holds that many bytes, else the truncated-file error (never an IndexError)."""
    if end > len(data):
        raise ValueError(_TRUNCATED)
    return end


def packets(data):
    """Yield (tag, body) of each OpenPGP packet (old and new packet formats)."""
    pos = 0
    while pos < len(data):
        head = data[pos]
        if not head & 0x80:
            raise ValueError("byte %d is not a packet header" % pos)
        if head & 0x40:  # new format
            tag = head & 0x3F
            first = data[_within(data, pos + 2) - 1]
            if first < 192:
                length, pos = first, pos + 2
            elif first < 224:
                length, pos = ((first - 192) << 8) + data[_within(data, pos + 3) - 1] + 192, pos + 3
            elif first == 255:
                length, pos = int.from_bytes(data[pos + 2 : _within(data, pos + 6)], "big"), pos + 6
            else:
                raise ValueError("partial body lengths are not allowed in keys")
        else:  # old format
            tag, kind = (head >> 2) & 0x0F, head & 0x03
            if kind == 3:
                raise ValueError("indeterminate packet lengths are not allowed in keys")
            size = (1, 2, 4)[kind]
            length, pos = int.from_bytes(data[pos + 1 : _within(data, pos + 1 + size)], "big"), pos + 1 + size
        yield tag, data[pos : _within(data, pos + length)]
        pos += length


def fingerprint(body):
    """The fingerprint of one public-key packet body, upper-case hex."""
    if not body:
        raise ValueError("a public-key packet is empty")
    version = body[0]
    if version == 4:
        digest = hashlib.sha1(b"\x99" + len(body).to_bytes(2, "big") + body)  # nosec: RFC 9580 v4 fingerprints are SHA-1
    elif version in (5, 6):
        digest = hashlib.sha256(bytes([0x9A if version == 5 else 0x9B]) + len(body).to_bytes(4, "big") + body)
    else:
        raise ValueError("public key version %d is not supported" % version)
    return digest.hexdigest().upper()


def openpgp_fingerprints(text):
    """Fingerprints of the primary keys in an ASCII-armored public key file."""
    found = []
    for data in dearmor(text):
        found.extend(fingerprint(body) for tag, body in packets(data) if tag == PUBLIC_KEY_TAG)
    return found


def _normal(fingerprint_text):
    return str(fingerprint_text).replace(" ", "").upper()


def key_problems(text, pinned):
    """[] when the key file ``text`` holds exactly the primary keys ``pinned`` (fingerprints, any case and
    spacing), else one sentence naming the keys missing and the keys nobody pinned."""
    pinned = [_normal(f) for f in ([pinned] if isinstance(pinned, str) else pinned or []) if _normal(f)]
    if not pinned:
        raise ValueError("no fingerprint is pinned: the key file cannot be checked")
    found = openpgp_fingerprints(text)
    missing = [f for f in pinned if f not in found]
    extra = [f for f in found if f not in pinned]
    problems = []
    if missing:
        problems.append("it lacks the pinned key(s) %s" % ", ".join(missing))
    if extra:
        problems.append("it holds key(s) nobody pinned: %s" % ", ".join(extra))
    return ["the key file holds %s; %s." % (", ".join(found), "; ".join(problems))] if problems else []
