#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)

from __future__ import annotations

DOCUMENTATION = r"""
module: ecs_host_keys
short_description: Write ECS instances' SSH host keys, read from their consoles, to a known_hosts file
version_added: 0.3.0
description:
  - For each instance, reads the host keys cloud-init printed to its console (C(GetInstanceConsoleOutput), the
    C(-----BEGIN SSH HOST KEY KEYS-----) block of cloud-init's C(keys_to_console) module) and writes them to O(path),
    under the instance's first private address, the address of its EIP where it has one (the bastion of
    C(playbooks/provision.yml); since 0.4.0) and its ID, before anything connects to it.
  - The keys then come through the account's own API, not over the network the first SSH connection would cross.
    What this trusts, the account's API credentials and the image's cloud-init, is in C(docs/cloud.md).
  - O(path) belongs to the instances given; a line of an instance not in O(instance_ids) is removed. An instance
    already in the file keeps the keys it has there (its console is not read again; trust is kept, not renewed).
  - Waits until every instance's console shows a complete block (empty until boot finishes), at most O(wait_timeout)
    seconds; then fails naming the instances whose console shows none.
  - A key whose fingerprint the console's own fingerprint block contradicts, or a block without any key, fails.
extends_documentation_fragment: [scc.training.alicloud, scc.training.alicloud.api]
options:
  instance_ids:
    description: The instances, in the order their lines are written. Empty leaves an empty file.
    type: list
    elements: str
    required: true
  path:
    description:
      - The known_hosts file (created mode 0600, its directory 0700 when missing), exclusive to these instances.
      - Use it with C(StrictHostKeyChecking=yes) (the O(scc.training.ecs#inventory:known_hosts_file) option of the
        inventory plugin sets both).
    type: path
    required: true
  wait_timeout:
    description: Seconds to wait for the consoles to show the host keys.
    type: int
    default: 900
attributes:
  check_mode:
    support: full
    description: Reads the consoles (read-only calls) and reports whether the file would change; writes nothing.
  diff_mode:
    support: none
    description: Returns no diff; RV(hosts) lists the fingerprints of every instance's keys.
  action_group:
    support: full
    membership: [scc.training.alicloud]
    description: Use C(group/scc.training.alicloud) in C(module_defaults) to set the connection options.
notes:
  - "An image whose cloud-init does not print the keys (C(ssh: {emit_keys_to_console: false}), or no cloud-init)
    makes this module time out; the keys are then to be checked another way."
author: scc.training developers (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Host keys of the nodes, from their consoles, before the first connection
  scc.training.ecs_host_keys:
    instance_ids: "{{ nodes.instances | map(attribute='instance_id') | list }}"
    path: ~/.ssh/scc-bert.known_hosts
"""

RETURN = r"""
path:
  description: The known_hosts file.
  returned: always
  type: str
hosts:
  description: Each instance, the names its lines carry and the SHA256 fingerprints of its keys.
  returned: always
  type: list
  elements: dict
  sample: [{instance_id: i-uf6f5bzd8y1v1tj1t6vq, names: [192.168.0.10, i-uf6f5bzd8y1v1tj1t6vq],
            fingerprints: ["SHA256:2sQYtxMqy7jlCEnkJ8JMq6qa9BCsw21ngRv63lMYcBc"], from_console: true}]
"""

import os
import tempfile

from ansible_collections.scc.training.plugins.module_utils._alicloud import (
    INSTANCE,
    AlicloudApiError,
    AlicloudModule,
    find_all,
    wait_for,
)
from ansible_collections.scc.training.plugins.module_utils.host_keys import (
    ConsoleKeysError,
    console_text,
    fingerprint,
    known_hosts_text,
    parse_console_host_keys,
    parse_known_hosts,
)


def console_keys(api, instance_id):
    """The keys cloud-init printed on ``instance_id``'s console, or None when it printed none yet."""
    reply = api.call("ecs", "GetInstanceConsoleOutput", {"InstanceId": instance_id})
    return parse_console_host_keys(console_text(reply.get("ConsoleOutput")))


def write_file(path, text):
    """``text`` to ``path`` atomically, mode 0600 (its directory made 0700 when missing)."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".known_hosts.")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main():
    module = AlicloudModule(
        dict(
            instance_ids=dict(type="list", elements="str", required=True),
            path=dict(type="path", required=True),
            wait_timeout=dict(type="int", default=900),
        ),
        validate=lambda p: ["wait_timeout must be >= 0"] if p["wait_timeout"] < 0 else [],
    )
    p = module.params
    path = p["path"]
    ids = list(dict.fromkeys(p["instance_ids"]))
    try:
        found = {i["InstanceId"]: INSTANCE.view(i) for i in find_all(module.api, INSTANCE, ids=ids)} if ids else {}
    except AlicloudApiError as exc:
        module.fail_api(exc)
    missing = [i for i in ids if i not in found]
    if missing:
        module.fail_json(msg="instance_ids: no such instance: %s" % ", ".join(missing))
    before = ""
    if os.path.exists(path):
        with open(path) as handle:
            before = handle.read()
    known = parse_known_hosts(before)
    keys = {i: known[i] for i in ids if known.get(i)}
    pending = [i for i in ids if i not in keys]
    problems = {}

    def poll():
        for instance_id in list(pending):
            try:
                got = console_keys(module.api, instance_id)
            except AlicloudApiError as exc:
                module.fail_api(exc, msg="instance %s" % instance_id)
            except ConsoleKeysError as exc:
                problems[instance_id] = str(exc)
                got = None
            if got is not None:
                keys[instance_id] = set(got)
                pending.remove(instance_id)
        return "host keys on %d of %d consoles" % (len(ids) - len(pending), len(ids))

    if pending:
        history = module.wait_history("host keys on the consoles of %d instances" % len(pending))
        try:
            wait_for(poll, lambda _v: not pending or problems, p["wait_timeout"], on_poll=history)
        except TimeoutError:
            module.fail_json(
                msg="no SSH host keys on the console of %s after %ss: cloud-init has not printed them yet (the"
                " console stays empty until boot finishes) or the image's cloud-init prints none (ssh:"
                " emit_keys_to_console: false); %s not written, and nothing connects to a host whose key is not"
                " known" % (", ".join(pending), p["wait_timeout"], path),
                pending=list(pending),
            )
    if problems:
        module.fail_json(
            msg="; ".join("instance %s: %s" % item for item in sorted(problems.items())) + "; %s not written" % path
        )
    hosts = []
    for instance_id in ids:
        private = found[instance_id]["private_ip_addresses"]
        names = [private[0]] if private else []
        # The bastion's EIP (ecs_eip): ssh reaches it at that address, and checks its key under it.
        eip = found[instance_id]["eip_address"]
        names += [eip] if eip else []
        hosts.append({"instance_id": instance_id, "names": names + [instance_id], "keys": keys[instance_id]})
    text = known_hosts_text(hosts)
    changed = text != before or not os.path.exists(path)
    if changed and not module.check_mode:
        write_file(path, text)
    module.exit_json(
        changed=changed,
        path=path,
        hosts=[
            {
                "instance_id": h["instance_id"],
                "names": h["names"],
                "fingerprints": sorted(fingerprint(blob) for _t, blob in h["keys"]),
                "from_console": h["instance_id"] not in known,
            }
            for h in hosts
        ],
    )


if __name__ == "__main__":
    main()
