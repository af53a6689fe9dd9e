# Copyright: scc.training developers
# Apache-2.0
"""Fill the controller's wheelhouse for one (python, platform, pins) key, once.

Run on the controller by the python_env role with the Python that runs Ansible
(``ansible_playbook_python``). The wheelhouse directory is keyed by a hash of everything
that decides its contents (requirements, constraints, Python version, platform tags and
extra pip arguments), so a filled directory is complete by construction: when its
``manifest.json`` matches the key and lists files that are all present with their sizes,
nothing runs and nothing is downloaded.

Otherwise it runs ``pip download --only-binary=:all:`` into the directory, records which
files this run fetched (the files that were not there before) in ``manifest.json`` and in
``<cache-dir>/download-stats.json`` (keys ``bytes_downloaded`` and ``files``), and prints
one JSON object on stdout: ``changed``, ``wheelhouse``, ``bytes_downloaded``, ``files``,
``wheels``.
"""

import argparse
import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

MANIFEST = "manifest.json"
STATS = "download-stats.json"
REQUIREMENTS = "requirements.txt"
CONSTRAINTS = "constraints.txt"
KEY_VERSION = 1


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", required=True)
    parser.add_argument(
        "--requirement", action="append", default=[], required=True, help="a pinned requirement, name==version (repeat)"
    )
    parser.add_argument("--constraints", required=True, help="constraints (lock) file")
    parser.add_argument("--python-version", required=True, help="e.g. 3.11")
    parser.add_argument("--implementation", default="cp")
    parser.add_argument(
        "--platform",
        action="append",
        default=[],
        required=True,
        help="a wheel platform tag (repeat), e.g. manylinux_2_28_x86_64",
    )
    parser.add_argument("--tag", default="", help="a readable prefix for the directory name")
    parser.add_argument(
        "--pip-arg", action="append", default=[], help="an extra pip download argument (repeat), e.g. --index-url=URL"
    )
    parser.add_argument("--python", default=sys.executable, help="the Python whose pip downloads")
    parser.add_argument("--check", action="store_true", help="only report whether a download is needed")
    return parser.parse_args(argv)


def wheelhouse_key(requirements, constraints_text, python_version, implementation, platforms, pip_args):
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


def write_json(path, data):
    """Write JSON atomically (a reader never sees half a file)."""
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
        handle.write("\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def write_text(path, text):
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def used_wheels(pip_output):
    """Wheel names pip reports as saved or already present ("Saved ./d/x.whl")."""
    names = set()
    for line in pip_output.splitlines():
        line = line.strip()
        for prefix in ("Saved ", "File was already downloaded "):
            if line.startswith(prefix) and line.endswith(".whl"):
                names.add(os.path.basename(line[len(prefix) :].strip()))
    return names


def pip_download_command(args, directory):
    cmd = [
        args.python,
        "-m",
        "pip",
        "download",
        "--only-binary=:all:",
        "--python-version",
        args.python_version,
        "--implementation",
        args.implementation,
        "--dest",
        directory,
        "--requirement",
        os.path.join(directory, REQUIREMENTS),
        "--constraint",
        os.path.join(directory, CONSTRAINTS),
        "--progress-bar",
        "off",
    ]
    for platform in args.platform:
        cmd += ["--platform", platform]
    cmd += list(args.pip_arg)
    return cmd


def main(argv=None):
    args = parse_args(argv)
    with open(args.constraints, encoding="utf-8") as handle:
        constraints_text = handle.read()
    key = wheelhouse_key(
        args.requirement, constraints_text, args.python_version, args.implementation, args.platform, args.pip_arg
    )
    name = (args.tag + "-" if args.tag else "") + key[:12]
    cache_dir = os.path.abspath(os.path.expanduser(args.cache_dir))
    directory = os.path.join(cache_dir, name)
    result = {"changed": False, "wheelhouse": directory, "key": key, "bytes_downloaded": 0, "files": []}

    os.makedirs(cache_dir, exist_ok=True)
    # Two playbooks filling the same wheelhouse at once wait for each other, then the second
    # finds it complete.
    with open(os.path.join(cache_dir, "." + name + ".lock"), "w", encoding="utf-8") as lock:
        if not args.check:
            fcntl.flock(lock, fcntl.LOCK_EX)
        return fill(args, key, cache_dir, directory, constraints_text, result)


def fill(args, key, cache_dir, directory, constraints_text, result):
    if is_complete(directory, key):
        result["wheels"] = [w["name"] for w in read_manifest(os.path.join(directory, MANIFEST))["wheels"]]
        print(json.dumps(result))
        return 0
    if args.check:
        result.update(changed=True, wheels=[])
        print(json.dumps(result))
        return 0

    os.makedirs(directory, exist_ok=True)
    write_text(os.path.join(directory, REQUIREMENTS), "".join(r.strip() + "\n" for r in args.requirement))
    write_text(os.path.join(directory, CONSTRAINTS), constraints_text)
    before = list_wheels(directory)
    started = time.time()
    cmd = pip_download_command(args, directory)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    seconds = round(time.time() - started, 1)
    if proc.returncode != 0:
        result.update(failed=True, rc=proc.returncode, cmd=cmd, msg="pip download failed", output=proc.stdout[-4000:])
        print(json.dumps(result))
        return 1

    after = list_wheels(directory)
    fetched = sorted(n for n in after if n not in before)
    # Only the wheels this resolution needs go into the manifest: pip names each one it used.
    used = sorted(n for n in used_wheels(proc.stdout) if n in after) or sorted(after)
    wheels = [{"name": n, "size": after[n], "sha256": sha256_of(os.path.join(directory, n))} for n in used]
    bytes_downloaded = sum(after[n] for n in fetched)
    write_json(
        os.path.join(directory, MANIFEST),
        {
            "key": key,
            "python_version": args.python_version,
            "implementation": args.implementation,
            "platforms": args.platform,
            "requirements": args.requirement,
            "pip_args": args.pip_arg,
            "wheels": wheels,
        },
    )
    stats = {
        "bytes_downloaded": bytes_downloaded,
        "files": fetched,
        "wheelhouse": directory,
        "seconds": seconds,
        "time": int(started),
    }
    write_json(os.path.join(cache_dir, STATS), stats)
    result.update(
        changed=True,
        bytes_downloaded=bytes_downloaded,
        files=fetched,
        wheels=[w["name"] for w in wheels],
        seconds=seconds,
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
