"""artifact_fetch on localhost (connection local, a file:// source, temporary directories): a download is held to
its pinned sha256 (the get_url checksum), and a copy on the host is trusted by its own sha256, never its size: a
same-size file altered on the host is copied again and re-hashed before the role ends."""

from __future__ import annotations

import hashlib

import pytest
import yaml

from tests.lab_runner import changed, failed, localhost_inventory, run_playbook

CONTENT = b"OFED installer stand-in: the bytes a root-run installer would be\n"


@pytest.fixture(scope="module")
def fetch(tmp_path_factory):
    """run(sha256) -> the run of artifact_fetch for the one file, pinned to sha256; and the paths it uses."""
    work = tmp_path_factory.mktemp("artifact_fetch_rehash")
    source = work / "mirror" / "installer.sh"
    source.parent.mkdir()
    source.write_bytes(CONTENT)
    inventory = localhost_inventory(work)

    def run(sha256):
        play = [
            {
                "name": "Fetch",
                "hosts": "localhost",
                "gather_facts": False,
                "roles": [
                    {
                        "role": "scc.training.artifact_fetch",
                        "vars": {
                            "artifact_fetch_files": [{"name": "installer.sh", "url": str(source), "sha256": sha256}],
                            "artifact_fetch_cache_dir": str(work / "cache"),
                            "artifact_fetch_dest": str(work / "dest"),
                            "artifact_fetch_register": "fetched",
                        },
                    }
                ],
            }
        ]
        (work / "play.yml").write_text(yaml.safe_dump(play))
        return run_playbook(work / "play.yml", inventory, work)

    return run, work / "dest" / "installer.sh"


def _copied(events):
    return [task for _host, task in changed(events) if task.startswith("Copy the checked artifacts")]


def test_a_download_of_another_sha256_is_refused(fetch):
    run, dest = fetch
    pinned = hashlib.sha256(b"something else").hexdigest()
    outcome = run(pinned)
    items = [
        item.get("msg", "")
        for event in outcome.events
        if event["event"] == "runner_on_failed"
        for item in event["event_data"]["res"].get("results", [])
    ]
    assert outcome.rc != 0 and any("did not match %s" % pinned in msg for msg in items), items
    assert not dest.exists()


def test_a_same_size_copy_altered_on_the_host_is_copied_again(fetch):
    run, dest = fetch
    sha256 = hashlib.sha256(CONTENT).hexdigest()
    first = run(sha256)
    assert first.rc == 0, failed(first.events)
    assert dest.read_bytes() == CONTENT and _copied(first.events)
    again = run(sha256)
    assert again.rc == 0 and not _copied(again.events), changed(again.events)
    # The same size, other bytes: a size check would keep it.
    dest.write_bytes(CONTENT.replace(b"OFED", b"EVIL"))
    repaired = run(sha256)
    assert repaired.rc == 0, failed(repaired.events)
    assert _copied(repaired.events) and dest.read_bytes() == CONTENT
