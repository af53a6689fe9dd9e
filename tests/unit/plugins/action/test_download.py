"""scc.training.download on a real get_url download from a loopback HTTP server started here (127.0.0.1), which
sends half its file, holds the rest until the action's first poll asked for the size (its HEAD request), then sends it
slowly (1.5 MB in about 3 s, with its Content-Length): polls fall while it downloads on however busy a machine.

Asserted: one line per poll with the bytes of the total, the rate and the time left, then the end; no
``FAILED - RETRYING``; the file lands with its sha256 checked by get_url, and get_url's refusal of another sha256
fails the task and leaves neither the file nor the partial directory; a file already there is only checked (no
download, no line); under a machine-readable stdout callback no line is printed. artifact_fetch's own tests
(tests/unit/roles/artifact_fetch/) run the role's downloads through this action."""

from __future__ import annotations

import hashlib
import http.server
import os
import re
import threading
import time

import pytest

from tests.lab_runner import changed, failed, local_play, results_by_host, run_playbook, stdout_lines

SIZE = 3_000_000
CHUNK = 100_000
# After the first poll, the second half in 15 chunks, one every 0.2 s: about 3 s.
PAUSE_S = 0.2
LINE = re.compile(
    r"^artifact_fetch: big\.bin, (?:no bytes received yet|\S+ \S?B of 3\.0 MB \(\d+%\)(?:, \S+ \S?B/s)?"
    r"(?:, about \S+ left)?), \d+s elapsed$"
)


class _SlowHandler(http.server.BaseHTTPRequestHandler):
    body = b""
    heads = []
    # Set by a HEAD request: the action's first poll (it asks for the size once).
    polled = threading.Event()

    def _headers(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()

    def do_HEAD(self):
        self.heads.append(self.path)
        self._headers()
        self.polled.set()

    def do_GET(self):
        self._headers()
        half = len(self.body) // 2
        self.wfile.write(self.body[:half])
        self.wfile.flush()
        self.polled.wait(timeout=60)
        for start in range(half, len(self.body), CHUNK):
            self.wfile.write(self.body[start : start + CHUNK])
            self.wfile.flush()
            time.sleep(PAUSE_S)

    def log_message(self, *_args):
        pass


@pytest.fixture(name="server", scope="module")
def _server():
    _SlowHandler.body = os.urandom(SIZE)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d/big.bin" % httpd.server_address[1], hashlib.sha256(_SlowHandler.body).hexdigest()
    httpd.shutdown()
    httpd.server_close()


def _run(tmp_path, url, sha256, envvars=None):
    _SlowHandler.polled.clear()
    dest = tmp_path / "cache" / "big.bin"
    dest.parent.mkdir(exist_ok=True)
    playbook, inventory = local_play(
        tmp_path,
        "A download as artifact_fetch makes it",
        [
            {
                "name": "Download",
                "scc.training.download": {
                    "url": url,
                    "dest": str(dest),
                    "checksum": "sha256:" + sha256,
                    "mode": "0644",
                    "label": "artifact_fetch: big.bin",
                    "poll_s": 1,
                    "timeout_s": 60,
                },
            }
        ],
    )
    return run_playbook(playbook, inventory, tmp_path, envvars=envvars), dest


def _result(run):
    return results_by_host(run.events, "runner_on_ok" if run.status == "successful" else "runner_on_failed")["node1"]


def test_a_slow_download_shows_bytes_rate_and_time_left_then_is_only_checked(server, tmp_path):
    url, sha256 = server
    _SlowHandler.heads.clear()
    run, dest = _run(tmp_path, url, sha256)
    assert run.status == "successful", failed(run.events)
    # The size was asked once (a HEAD request), not at every poll.
    assert _SlowHandler.heads == ["/big.bin"]
    lines = stdout_lines(run.events)
    assert not [line for line in lines if "FAILED - RETRYING" in line or "ASYNC POLL" in line], lines
    fetched = _result(run)
    shown = [line for line in lines if line.startswith("artifact_fetch: big.bin")]
    assert shown == fetched["progress_lines"] and len(shown) == fetched["polls"], shown
    assert re.match(r"^artifact_fetch: big\.bin: download ended, \d+s elapsed$", shown[-1]), shown
    during = shown[:-1]
    assert during and all(LINE.match(line.replace("big.bin: ", "big.bin, ", 1)) for line in during), during
    # Bytes grow; once two polls saw bytes, the rate and the time left are there.
    got = [float(m.group(1)) for m in (re.search(r"big\.bin: (\S+) \S?B of", line) for line in during) if m]
    assert got, during
    assert any("B/s, about " in line for line in during) or len(got) < 2, during
    # get_url's own result: the file, its checksum checked, a change.
    assert fetched["changed"] and fetched["dest"] == str(dest) and fetched["status_code"] == 200, fetched
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == sha256
    assert oct(dest.stat().st_mode & 0o777) == "0o644"
    assert not (dest.parent / ".big.bin.partial").exists()
    # Again: the file is there with its sha256, get_url only checks it (no download, no line, no change).
    again = _run(tmp_path, url, sha256)[0]
    assert again.status == "successful" and not changed(again.events), changed(again.events)
    assert _result(again)["progress_lines"] == []


def test_another_sha256_is_refused_by_get_url_and_nothing_is_left(server, tmp_path):
    url = server[0]
    pinned = hashlib.sha256(b"something else").hexdigest()
    run, dest = _run(tmp_path, url, pinned)
    assert run.status == "failed"
    refused = _result(run)
    assert "did not match %s" % pinned in refused["msg"], refused
    assert refused["progress_lines"], refused
    assert not dest.exists() and not (dest.parent / ".big.bin.partial").exists()


def test_a_machine_readable_callback_gets_no_progress_line(server, tmp_path):
    url, sha256 = server
    run = _run(tmp_path, url, sha256, envvars={"ANSIBLE_STDOUT_CALLBACK": "minimal"})[0]
    assert run.status == "successful", failed(run.events)
    fetched = _result(run)
    assert fetched["progress_lines"]
    lines = stdout_lines(run.events)
    assert not [line for line in lines if line.startswith("artifact_fetch: big.bin")], lines


def test_a_mirror_urls_credentials_are_used_but_never_shown(server, tmp_path):
    url, sha256 = server
    secret_url = url.replace("http://", "http://alice:S3cretT0ken@", 1)
    run, dest = _run(tmp_path, secret_url, sha256, envvars={"ANSIBLE_VERBOSITY": "3"})
    assert run.status == "successful", failed(run.events)
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == sha256
    fetched = _result(run)
    # get_url's result (url, the invocation's module_args) and every line of -vvv output: the host, no password.
    shown = repr(fetched) + "\n".join(stdout_lines(run.events))
    assert "S3cretT0ken" not in shown, shown
    assert "alice:****@127.0.0.1" in repr(fetched), fetched
