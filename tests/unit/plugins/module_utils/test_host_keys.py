"""host_keys.py: cloud-init's host key block read from a console, as the bytes reach GetInstanceConsoleOutput.

The console below is what cloud-init's tools/write-ssh-key-fingerprints prints (through ``logger --stderr -t ec2``,
each line ``ec2: ...``) for real keys made here by ssh-keygen, its fingerprint lines ssh-keygen -l's own, on a
serial console (``\\r\\n``), among kernel and systemd lines.
"""

import base64
import subprocess

import pytest

from ansible_collections.scc.training.plugins.module_utils import host_keys as hk


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """{type: (pub line, ssh-keygen -l line)} for an ed25519, an ecdsa and an rsa host key."""
    tmp = tmp_path_factory.mktemp("hostkeys")
    out = {}
    for kind, key_type in (("ed25519", "ssh-ed25519"), ("ecdsa", "ecdsa-sha2-nistp256"), ("rsa", "ssh-rsa")):
        path = tmp / ("ssh_host_%s_key" % kind)
        subprocess.run(
            ["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "root@iZuf6Z", "-f", str(path)],
            check=True,
            **({"input": b""}),
        )
        pub = path.with_suffix(".pub").read_text().strip()
        listing = subprocess.run(["ssh-keygen", "-l", "-f", str(path) + ".pub"], check=True, capture_output=True)
        out[key_type] = (pub, listing.stdout.decode().strip())
    return out


def console(keys, prefix="ec2: ", newline="\r\n", before="", after="", fingerprints=True, keys_block=True):
    fp = [keys[t][1] for t in sorted(keys)] if fingerprints else []
    body = [keys[t][0] for t in sorted(keys)]
    lines = [
        "[    0.000000] Linux version 5.10.134-16.al8.x86_64",
        "[  OK  ] Started Initial cloud-init job (metadata service crawler).",
        before,
        "",
        "#############################################################",
        "-----BEGIN SSH HOST KEY FINGERPRINTS-----",
        *fp,
        "-----END SSH HOST KEY FINGERPRINTS-----",
        "#############################################################",
    ]
    lines = [prefix + line if "---" in line or line in fp or line.startswith("#") else line for line in lines]
    if keys_block:
        lines += [prefix + "-----BEGIN SSH HOST KEY KEYS-----", *(prefix + k for k in body)]
        lines += [prefix + "-----END SSH HOST KEY KEYS-----"]
    lines += [after, "Cloud-init v. 23.2.2 finished at Sat, 05 Dec 2026 19:40:01 +0000. Up 31.07 seconds", ""]
    return newline.join(lines)


def expected(keys):
    return sorted(tuple(keys[t][0].split()[:2]) for t in keys)


@pytest.mark.parametrize("prefix", ["ec2: ", "", "[   31.012345] cloud-init[1042]: ec2: "])
@pytest.mark.parametrize("newline", ["\r\n", "\n"])
def test_the_keys_cloud_init_prints_are_read(keys, prefix, newline):
    text = console(keys, prefix=prefix, newline=newline)
    encoded = base64.b64encode(text.encode()).decode()
    assert hk.parse_console_host_keys(hk.console_text(encoded)) == expected(keys)


def test_noise_inside_the_block_and_colours_are_skipped(keys):
    text = console(keys).replace(
        "ec2: -----BEGIN SSH HOST KEY KEYS-----\r\n",
        "ec2: -----BEGIN SSH HOST KEY KEYS-----\r\n[   32.1] eth0: link up\r\n\x1b[0;32m",
    )
    assert hk.parse_console_host_keys(text) == expected(keys)


def test_nothing_printed_yet_is_none(keys):
    assert hk.console_text("") == "" and hk.console_text(None) == ""
    assert hk.parse_console_host_keys("") is None
    assert hk.parse_console_host_keys(console(keys, keys_block=False)) is None
    # the block begun but not ended: the console was read mid-print
    half = console(keys).split("ec2: -----END SSH HOST KEY KEYS-----", maxsplit=1)[0]
    assert hk.parse_console_host_keys(half) is None


def test_the_last_complete_block_counts(keys):
    other = {"ssh-ed25519": keys["ssh-ed25519"]}
    text = console(keys) + console(other, fingerprints=False)
    assert hk.parse_console_host_keys(text) == expected(other)


def test_a_key_contradicting_its_fingerprint_is_refused(keys):
    good = console(keys)
    ed_fp = keys["ssh-ed25519"][1].split()[1]
    bad = good.replace(ed_fp, "SHA256:" + "A" * 43)
    with pytest.raises(hk.ConsoleKeysError, match=r"ssh-ed25519 key on the console .* is not the one"):
        hk.parse_console_host_keys(bad)
    assert hk.fingerprint(keys["ssh-ed25519"][0].split()[1]) == ed_fp  # ours agrees with ssh-keygen -l


def test_a_blob_of_another_type_and_an_empty_block_are_refused(keys):
    ed = keys["ssh-ed25519"][0].split()[1]
    text = "-----BEGIN SSH HOST KEY KEYS-----\r\nssh-rsa %s root@x\r\n-----END SSH HOST KEY KEYS-----\r\n" % ed
    with pytest.raises(hk.ConsoleKeysError, match="does not decode"):
        hk.parse_console_host_keys(text)
    with pytest.raises(hk.ConsoleKeysError, match="holds no key"):
        hk.parse_console_host_keys("-----BEGIN SSH HOST KEY KEYS-----\r\n-----END SSH HOST KEY KEYS-----\r\n")
    with pytest.raises(hk.ConsoleKeysError, match="not base64"):
        hk.console_text("@@@")


def test_known_hosts_round_trip(keys):
    pairs = expected(keys)
    text = hk.known_hosts_text(
        [{"names": ["192.168.0.5", "i-abc", "192.168.0.5"], "keys": pairs}, {"names": ["192.168.0.6"], "keys": []}]
    )
    assert text.splitlines()[0].startswith("192.168.0.5,i-abc ") and text.count("\n") == 3
    assert hk.parse_known_hosts(text + "# comment\n@cert-authority * x y\n") == {
        "192.168.0.5": set(pairs),
        "i-abc": set(pairs),
    }
    with pytest.raises(ValueError):
        hk.known_hosts_line([], "ssh-ed25519", "AAAA")


def _blob(declared, body):
    """A blob whose first SSH string declares ``declared`` bytes and carries ``body``, base64-encoded."""
    return base64.b64encode(declared.to_bytes(4, "big") + body).decode("ascii")


@pytest.mark.parametrize(
    ("blob", "named"),
    [
        (_blob(7, b"ssh-rsa"), "ssh-rsa"),  # the string fills the blob exactly
        (_blob(7, b"ssh-rsa\x00\x00\x00\x01"), "ssh-rsa"),  # more fields follow
        (_blob(0, b""), ""),  # four bytes: an empty string, still a blob
        (_blob(64, b"k" * 64), "k" * 64),  # the longest name read
        (_blob(8, b"ssh-rsa"), None),  # the length runs one byte past the end
        (_blob(65, b"k" * 65), None),  # a name longer than any key type
        (base64.b64encode(b"\x00\x00\x07").decode(), None),  # shorter than the length field
        (_blob(7, b"ssh-rsa")[:8] + "*" + _blob(7, b"ssh-rsa")[8:], None),  # not base64: refused, not skipped
        ("AAAAB3Nza\u00e9", None),  # not ASCII (base64 raises ValueError, not binascii.Error)
    ],
)
def test_key_blob_type_reads_the_first_string_within_its_bounds(blob, named):
    assert hk.key_blob_type(blob) == named


def test_a_blob_of_a_type_sorting_after_its_label_is_refused(keys):
    rsa = keys["ssh-rsa"][0].split()[1]
    text = "-----BEGIN SSH HOST KEY KEYS-----\r\nssh-ed25519 %s root@x\r\n-----END SSH HOST KEY KEYS-----\r\n" % rsa
    with pytest.raises(hk.ConsoleKeysError, match="ssh-ed25519 key on the console does not decode"):
        hk.parse_console_host_keys(text)


def test_known_hosts_lines_with_a_comment_after_the_key_and_short_lines(keys):
    blob = keys["ssh-ed25519"][0].split()[1]
    text = "node1\n# a comment\nnode1 ssh-ed25519\nnode2 ssh-ed25519 %s root@node2 added by hand\n" % blob
    assert hk.parse_known_hosts(text) == {"node2": {("ssh-ed25519", blob)}}
