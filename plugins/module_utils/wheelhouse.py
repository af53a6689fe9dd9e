# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""A keyed wheelhouse on the controller, filled once: the engine of the ``scc.training.wheelhouse`` module.

The wheelhouse directory is named by a hash of everything that decides its contents (pins,
constraints, Python, platform tags, extra pip arguments, whether dependencies are resolved), so a
filled directory is complete by construction: when its ``manifest.json`` matches the key and lists
files that are all present at their sizes, nothing runs and nothing is downloaded.

Otherwise ``pip download --only-binary=:all:`` fills it; the manifest records each wheel this
resolution uses with its size and sha256, and the stats file what this fill fetched
(``bytes_downloaded``, ``files``, ``wheelhouse``, ``seconds``).

Extra pip arguments may hold an index's credentials (``--index-url=https://user:token@host/simple``):
the key and the command pip runs use them as given, but what this returns and the manifest (which is
copied to every host) carry them masked (module_utils/redact.py); a manifest written unmasked by an
earlier release is rewritten masked when found complete.

No Ansible imports: the module passes ``run(argv) -> (rc, output)``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fcntl
import hashlib
import json
import os
import tempfile
import time

from ansible_collections.scc.training.plugins.module_utils.redact import redact_args, redact_text

MANIFEST = "manifest.json"
REQUIREMENTS = "requirements.txt"
CONSTRAINTS = "constraints.txt"
KEY_VERSION = 2


def wheelhouse_key(requirements, constraints_text, python_version, implementation, platforms, pip_args, no_deps):
    """The hash that names a wheelhouse: same inputs, same directory, same files."""
    material = json.dumps(
        {
            "v": KEY_VERSION,
            "requirements": sorted(r.strip() for r in requirements),
            "constraints": constraints_text,
            "python_version": python_version,
            "implementation": implementation,
            "platforms": sorted(platforms),
            "pip_args": list(pip_args),
            "no_deps": bool(no_deps),
        },
        sort_keys=True,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def read_manifest(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def is_complete(directory, key):
    """True when directory holds a manifest for key and every file it lists, at its size."""
    manifest = read_manifest(os.path.join(directory, MANIFEST))
    if not manifest or manifest.get("key") != key or not manifest.get("wheels"):
        return False
    for entry in manifest["wheels"]:
        path = os.path.join(directory, entry["name"])
        if not os.path.isfile(path) or os.path.getsize(path) != entry["size"]:
            return False
    return True


def list_wheels(directory):
    return {
        name: os.path.getsize(os.path.join(directory, name))
        for name in os.listdir(directory)
        if name.endswith(".whl") and os.path.isfile(os.path.join(directory, name))
    }


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_text(path, text):
    """Write atomically: a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def write_json(path, data):
    write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def used_wheels(pip_output):
    """Wheel names pip reports as saved or already present ("Saved ./d/x.whl")."""
    names = set()
    for line in pip_output.splitlines():
        line = line.strip()
        for prefix in ("Saved ", "File was already downloaded "):
            if line.startswith(prefix) and line.endswith(".whl"):
                names.add(os.path.basename(line[len(prefix) :].strip()))
    return names


def pip_download_command(python, python_version, implementation, platforms, pip_args, no_deps, directory):
    """pip download of the wheelhouse's requirements.txt under its constraints.txt, binary only."""
    cmd = [python, "-m", "pip", "download", "--only-binary=:all:"]
    cmd += ["--python-version", python_version, "--implementation", implementation, "--dest", directory]
    cmd += ["--requirement", os.path.join(directory, REQUIREMENTS)]
    cmd += ["--constraint", os.path.join(directory, CONSTRAINTS), "--progress-bar", "off"]
    cmd += ["--no-deps"] if no_deps else []
    for platform in platforms:
        cmd += ["--platform", platform]
    return cmd + list(pip_args)


def fill(params, run, check_mode=False):
    """Fill (or find filled) the wheelhouse params describe; returns the module's result.

    params: path, requirements, constraints_file (or None), no_deps, python_version,
    implementation, platforms, pip_args, python, name_prefix, stats_file (or None).
    """
    constraints_text = ""
    if params.get("constraints_file"):
        with open(params["constraints_file"], encoding="utf-8") as handle:
            constraints_text = handle.read()
    key = wheelhouse_key(
        params["requirements"],
        constraints_text,
        params["python_version"],
        params["implementation"],
        params["platforms"],
        params["pip_args"],
        params["no_deps"],
    )
    name = (params["name_prefix"] + "-" if params.get("name_prefix") else "") + key[:12]
    root = os.path.abspath(os.path.expanduser(params["path"]))
    directory = os.path.join(root, name)
    result = {"changed": False, "wheelhouse": directory, "key": key, "bytes_downloaded": 0, "files": [], "wheels": []}
    if check_mode:
        if is_complete(directory, key):
            manifest = read_manifest(os.path.join(directory, MANIFEST))
            result.update(wheels=manifest["wheels"], changed=_unmasked(manifest))
        else:
            result["changed"] = True
        return result

    os.makedirs(root, exist_ok=True)
    # Two playbooks filling the same wheelhouse at once wait for each other, then the second
    # finds it complete.
    with open(os.path.join(root, "." + name + ".lock"), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_complete(directory, key):
            manifest = read_manifest(os.path.join(directory, MANIFEST))
            result["wheels"] = manifest["wheels"]
            if _unmasked(manifest):
                write_json(
                    os.path.join(directory, MANIFEST), dict(manifest, pip_args=redact_args(manifest["pip_args"]))
                )
                result["changed"] = True
            return result
        return _download(params, run, key, directory, constraints_text, result)


def _unmasked(manifest):
    """True when a manifest (written before pip_args were masked) holds a credential in its pip_args."""
    stored = manifest.get("pip_args") or []
    return stored != redact_args(stored)


def _download(params, run, key, directory, constraints_text, result):
    os.makedirs(directory, exist_ok=True)
    write_text(os.path.join(directory, REQUIREMENTS), "".join(r.strip() + "\n" for r in params["requirements"]))
    write_text(os.path.join(directory, CONSTRAINTS), constraints_text)
    before = list_wheels(directory)
    started = time.time()
    cmd = pip_download_command(
        params["python"],
        params["python_version"],
        params["implementation"],
        params["platforms"],
        params["pip_args"],
        params["no_deps"],
        directory,
    )
    rc, output = run(cmd)
    seconds = round(time.time() - started, 1)
    if rc != 0:
        result.update(
            failed=True, rc=rc, cmd=redact_args(cmd), msg="pip download failed", output=redact_text(output[-4000:])
        )
        return result

    after = list_wheels(directory)
    fetched = sorted(n for n in after if n not in before)
    # Only the wheels this resolution needs go into the manifest: pip names each one it used.
    used = sorted(n for n in used_wheels(output) if n in after) or sorted(after)
    wheels = [{"name": n, "size": after[n], "sha256": sha256_of(os.path.join(directory, n))} for n in used]
    bytes_downloaded = sum(after[n] for n in fetched)
    manifest = {
        "key": key,
        "python_version": params["python_version"],
        "implementation": params["implementation"],
        "platforms": params["platforms"],
        "requirements": params["requirements"],
        "pip_args": redact_args(params["pip_args"]),
        "no_deps": params["no_deps"],
        "wheels": wheels,
    }
    write_json(os.path.join(directory, MANIFEST), manifest)
    if params.get("stats_file"):
        stats = {
            "bytes_downloaded": bytes_downloaded,
            "files": fetched,
            "wheelhouse": directory,
            "seconds": seconds,
            "time": int(started),
        }
        stats_file = os.path.abspath(os.path.expanduser(params["stats_file"]))
        os.makedirs(os.path.dirname(stats_file), exist_ok=True)
        write_json(stats_file, stats)
    result.update(changed=True, bytes_downloaded=bytes_downloaded, files=fetched, wheels=wheels, seconds=seconds)
    return result
