# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
# The download is done by ansible.builtin.get_url, run by the action plugin plugins/action/download.py; this module
# is what the action runs at every poll: the size of the partial file, and once the size the server announces.

from __future__ import annotations

DOCUMENTATION = r"""
---
module: download
short_description: Download a file with get_url, showing its progress while it downloads
version_added: 0.2.0
description:
  - Runs M(ansible.builtin.get_url) with the same O(url), O(dest), O(checksum), O(mode), O(timeout), O(force),
    O(headers) and O(validate_certs); the result, the checksum check (a file whose checksum differs is refused
    and removed), idempotence and check mode are get_url's.
  - While a file not yet at O(dest) downloads (get_url runs in the background, writing into a directory of its own
    beside O(dest), C(.<name>.partial)), one line per poll shows the bytes received of the total (the
    C(Content-Length) of a C(HEAD) request, or the size of a C(file://) source), the rate and the time left, instead
    of a silent task. A download that ends within a second shows no line.
  - A file already at O(dest) (without O(force)) is handed to get_url as a plain task does, without lines (get_url
    checks its checksum and fetches it again if it differs).
  - O(dest) is the file's path, not a directory.
  - In check mode get_url runs as in a plain task (a C(HEAD) request, nothing written).
extends_documentation_fragment:
  - action_common_attributes
  - scc.training.progress_lines
options:
  url:
    description: The URL (C(http), C(https), C(ftp) or C(file)), as M(ansible.builtin.get_url) takes it.
    type: str
    required: true
  dest:
    description: The file's path.
    type: path
    required: true
  checksum:
    description: C(<algorithm>:<digest>) the file must have, as M(ansible.builtin.get_url) takes it.
    type: str
    default: ""
  mode:
    description: The file's permissions, as M(ansible.builtin.get_url) takes them.
    type: raw
  timeout:
    description: Seconds a request to the server may wait for an answer (get_url's), not the download's length.
    type: int
    default: 10
  force:
    description: Download even when O(dest) exists (get_url's).
    type: bool
    default: false
  headers:
    description: Headers of the request (get_url's).
    type: dict
  validate_certs:
    description: Whether an HTTPS server's certificate is validated (get_url's).
    type: bool
    default: true
  label:
    description: What the lines begin with (default the file's name).
    type: str
  timeout_s:
    description: Seconds the download may take; after them it is stopped and the task fails.
    type: int
    default: 3600
  total_bytes:
    description:
      - The file's size in bytes, when known (shown as the total); by default the server is asked once.
        V(0) leaves the total out.
    type: int
author: scc.training developers (@scc-training)
"""

EXAMPLES = r"""
- name: Download the wheel once, with its sha256 checked, a progress line every 10 s
  scc.training.download:
    url: https://mirror.example.com/wheels/torch-2.3.1-cp311-cp311-linux_x86_64.whl
    dest: /var/cache/scc/files/torch-2.3.1-cp311-cp311-linux_x86_64.whl
    checksum: sha256:0a7e9e5e4b1b0c1d7c9c5f0e7f2a3b9d6c8e1f4a2b3c4d5e6f708192a3b4c5d6
    mode: "0644"
    timeout: 60
"""

RETURN = r"""
dest:
  description: The file's path (get_url's result, all of which is returned as get_url returns it).
  returned: success
  type: str
checksum_dest:
  description: The sha1 of the file already at O(dest) before the download, when there was one (get_url's).
  returned: success
  type: str
polls:
  description: How many times the download was polled.
  returned: when the file was downloaded
  type: int
progress_lines:
  description: The last 50 lines shown (also when the stdout callback left them out); none when nothing was
    downloaded or the download ended within a second.
  returned: always
  type: list
  elements: str
partial_bytes:
  description: What this module returns at each poll - the size of the partial file, null before it exists.
  returned: when the module itself runs
  type: int
total_bytes:
  description: What this module returns at each poll - the file's size, from O(total_bytes) or the server;
    null when unknown.
  returned: when the module itself runs
  type: int
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import fetch_url

from ansible_collections.scc.training.plugins.module_utils.transfer_progress import (
    DOWNLOAD_ARGUMENT_SPEC,
    partial_dir,
)


def _partial_bytes(directory):
    """The size of the files get_url writes into its directory (one), or None before there is one."""
    try:
        entries = [e for e in os.scandir(directory) if e.is_file(follow_symlinks=False)]
    except OSError:
        return None
    return sum(e.stat(follow_symlinks=False).st_size for e in entries) if entries else None


def _total_bytes(module):
    """The size the source announces: a local file's size, or the Content-Length of a HEAD request; else None."""
    url = module.params["url"]
    if url.startswith("file://"):
        try:
            return os.stat(url[len("file://") :]).st_size
        except OSError:
            return None
    response, info = fetch_url(
        module, url, method="HEAD", headers=module.params["headers"], timeout=module.params["timeout"]
    )
    if response is not None:
        response.close()
    length = str(info.get("content-length") or "")
    return int(length) if info.get("status") == 200 and length.isdigit() else None


def main():
    module = AnsibleModule(argument_spec=DOWNLOAD_ARGUMENT_SPEC, supports_check_mode=True)
    total = module.params["total_bytes"]
    module.exit_json(
        changed=False,
        partial_bytes=_partial_bytes(partial_dir(module.params["dest"])),
        total_bytes=(total or None) if total is not None else _total_bytes(module),
    )


if __name__ == "__main__":
    main()
