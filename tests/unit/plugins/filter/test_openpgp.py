"""module_utils/openpgp.py's openpgp_fingerprints and the openpgp_key_problems filter against gpg itself: keys that gpg generates here (RSA and Ed25519, with
subkeys), gpg's own fingerprints as the expected values; several keys in one file; damaged,
truncated and non-armored input refused with a message."""

import os
import shutil
import subprocess

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.module_utils.openpgp import openpgp_fingerprints
from ansible_collections.scc.training.plugins.plugin_utils.role_plans import openpgp_key_problems


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    if shutil.which("gpg") is None:
        # A test dependency (bindep.txt [test] gnupg): without it these tests fail, never skip unseen.
        pytest.fail("gpg is not on PATH: it is these tests' oracle (bindep.txt [test]: `make test-deps` installs it)")
    home = tmp_path_factory.mktemp("gnupg")
    os.chmod(home, 0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}

    def gpg(*args):
        return subprocess.run(
            ["gpg", "--batch", "--passphrase", "", *args], env=env, check=True, capture_output=True, text=True
        ).stdout

    made = {}
    for uid, algo in (("rsa key <rsa@example.invalid>", "rsa2048"), ("ed key <ed@example.invalid>", "ed25519")):
        gpg("--quick-gen-key", uid, algo, "sign", "never")
        # A subkey too: its fingerprint must not be reported.
        primary = next(
            line.split(":")[9]
            for line in gpg("--with-colons", "--list-keys", uid).splitlines()
            if line.startswith("fpr:")
        )
        gpg("--quick-add-key", primary, "rsa2048" if algo == "rsa2048" else "cv25519", "encr", "never")
        fprs = [
            line.split(":")[9]
            for line in gpg("--with-colons", "--list-keys", uid).splitlines()
            if line.startswith("fpr:")
        ]
        made[algo] = {"primary": primary, "subkeys": fprs[1:], "armored": gpg("--armor", "--export", uid)}
    made["both"] = gpg("--armor", "--export")
    return made


@pytest.mark.parametrize("algo", ["rsa2048", "ed25519"])
def test_primary_fingerprint_matches_gpg_and_subkeys_are_left_out(keys, algo):
    key = keys[algo]
    assert key["subkeys"], "the fixture should have made a subkey"
    assert openpgp_fingerprints(key["armored"]) == [key["primary"]]


def test_every_primary_key_of_a_file_in_order(keys):
    assert sorted(openpgp_fingerprints(keys["both"])) == sorted(
        [keys["rsa2048"]["primary"], keys["ed25519"]["primary"]]
    )


def test_armor_headers_and_surrounding_text_are_ignored(keys):
    text = keys["rsa2048"]["armored"].replace(
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nComment: a comment\n\n", 1
    )
    assert openpgp_fingerprints("some prose before the key\n" + text + "\nand after") == [keys["rsa2048"]["primary"]]


def test_a_damaged_key_fails_the_armor_checksum(keys):
    lines = keys["rsa2048"]["armored"].splitlines()
    body = next(i for i, line in enumerate(lines) if len(line) == 64)
    lines[body] = lines[body][:10] + ("A" if lines[body][10] != "A" else "B") + lines[body][11:]
    with pytest.raises(ValueError, match="checksum does not match"):
        openpgp_fingerprints("\n".join(lines))


def test_a_truncated_key_is_refused(keys):
    lines = [line for line in keys["rsa2048"]["armored"].splitlines() if not line.startswith("=")]
    end = lines.index("-----END PGP PUBLIC KEY BLOCK-----")
    # Drop body lines in the middle (keeping valid base64): a packet now runs past the end.
    truncated = lines[:3] + lines[end - 1 :]
    with pytest.raises(ValueError, match=r"truncated|not a packet header|not supported"):
        openpgp_fingerprints("\n".join(truncated))


def test_a_key_cut_at_any_byte_is_refused_with_a_message_never_an_index_error(keys):
    """Cut inside a packet's header too (the new format's length bytes): the truncated-file message, not a crash."""
    from ansible_collections.scc.training.plugins.module_utils import openpgp

    (data,) = openpgp.dearmor(keys["ed25519"]["armored"])
    for end in range(1, len(data)):
        try:
            [openpgp.fingerprint(body) for tag, body in openpgp.packets(data[:end]) if tag == openpgp.PUBLIC_KEY_TAG]
        except ValueError:
            pass
    for cut in (b"\xc6", b"\xc6\xc0", b"\xc6\xff\x00", b"\x99\x00"):
        with pytest.raises(ValueError, match="truncated file"):
            list(openpgp.packets(cut))
    with pytest.raises(ValueError, match="a public-key packet is empty"):
        openpgp.fingerprint(b"")


@pytest.mark.parametrize("text", ["", "not a key", "-----BEGIN PGP SIGNATURE-----\nabc\n-----END PGP SIGNATURE-----"])
def test_input_without_a_public_key_block_is_refused(text):
    with pytest.raises(ValueError, match="no '-----BEGIN PGP PUBLIC KEY BLOCK-----'"):
        openpgp_fingerprints(text)


def test_a_file_holding_exactly_the_pinned_key_passes_whatever_the_spelling(keys):
    primary = keys["rsa2048"]["primary"]
    spelled = " ".join(primary[i : i + 4] for i in range(0, 40, 4)).lower()
    assert openpgp_key_problems(keys["rsa2048"]["armored"], spelled) == []
    assert openpgp_key_problems(keys["both"], [keys["ed25519"]["primary"], primary]) == []


def test_an_extra_key_in_the_file_is_refused_naming_it(keys):
    rsa, ed = keys["rsa2048"]["primary"], keys["ed25519"]["primary"]
    (problem,) = openpgp_key_problems(keys["both"], rsa)
    assert "nobody pinned: " + ed in problem and "lacks" not in problem


def test_a_file_without_the_pinned_key_is_refused_naming_both(keys):
    rsa, ed = keys["rsa2048"]["primary"], keys["ed25519"]["primary"]
    (problem,) = openpgp_key_problems(keys["ed25519"]["armored"], rsa)
    assert "lacks the pinned key(s) " + rsa in problem and "nobody pinned: " + ed in problem


@pytest.mark.parametrize("pinned", ["", [], None, [" "]])
def test_nothing_pinned_is_refused(keys, pinned):
    with pytest.raises(AnsibleFilterError, match="openpgp_key_problems: no fingerprint is pinned"):
        openpgp_key_problems(keys["rsa2048"]["armored"], pinned)
