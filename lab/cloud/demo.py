"""`python -m lab.cloud.demo`: the cloud path of the demo, on an up lab (`make demo-cloud`).

The emulator (a stand-in for Alibaba Cloud; its instances are backed by the lab's hosts) runs in
this process; then, as a user runs them: provision.yml, the scc.training.ecs inventory plugin,
site.yml on the hosts the plugin found, teardown.yml. The inventory directory it writes
(LAB_DIR/cloud/inventory) holds the plugin config and the lab's group vars (how to reach lab
hosts, the lab-only role values). The emulator stops when this exits: its cloud goes with it.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
from pathlib import Path

import yaml

from ..cluster import GROUP, Lab
from .server import CloudEmulator
from .store import Timings

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
NAME = "demo"


def write_files(lab: Lab, endpoint: str, directory: Path, name: str = NAME) -> tuple[dict, Path, Path]:
    """The provisioning vars (as a dict and as DIR/cloud.yml) and the inventory directory
    DIR/inventory: the scc.training.ecs plugin config and, for its scc_cluster group, the group
    vars of the lab's own inventory (the lab's key, pinned host keys, the lab-only role values)."""
    tags = {"managed-by": "scc.training", "scc-cluster": name}
    settings = dict(
        yaml.safe_load((ROOT / "inventories/cloud/cloud.example.yml").read_text()),
        scc_cloud_name=name,
        scc_cloud_ecs_endpoint=endpoint,
        scc_cloud_nas_endpoint=endpoint,
        scc_cloud_vpc_endpoint=endpoint,
        # The lab's hosts stand in for the nodes: they have RoCE stand-ins, not eRDMA, so the demo provisions the
        # family they imitate (sccgn6: HPC cluster, a BIOS image), not the example's ebmgn8v (UEFI images, ERIs:
        # tests/integration/test_cloud_modules.py provisions that one on the emulator alone).
        scc_cloud_instance_type="ecs.sccgn6.24xlarge",
        scc_cloud_image_id="m-scc-centos75",
        scc_cloud_tags=tags,
        # provision.yml writes the consoles' host keys here (the emulator's own keys, not the lab hosts'):
        scc_cloud_known_hosts_file=str(directory / "known_hosts"),
    )
    plugin = dict(
        yaml.safe_load((ROOT / "inventories/cloud/example.ecs.yml").read_text()),
        region=settings["scc_cloud_region"],
        ecs_endpoint=endpoint,
        tags=tags,
    )
    # The lab's hosts are reached with the lab's pinned keys (its group vars below), not the consoles' file.
    plugin.pop("known_hosts_file", None)
    inventory = directory / "inventory"
    (inventory / "group_vars").mkdir(parents=True, exist_ok=True)
    vars_file = directory / "cloud.yml"
    vars_file.write_text(yaml.safe_dump(settings))
    (inventory / "nodes.ecs.yml").write_text(yaml.safe_dump(plugin))
    lab_vars = yaml.safe_load(lab.inventory.read_text())[GROUP]["vars"]
    # The cluster-wide jumbo-frames switch provision.yml read: the nodes read the same (rdma_stack's eRDMA MTU).
    if "scc_jumbo_frames" in settings:
        lab_vars["scc_jumbo_frames"] = settings["scc_jumbo_frames"]
    (inventory / "group_vars" / f"{GROUP}.yml").write_text(yaml.safe_dump(lab_vars))
    return settings, vars_file, inventory


def step(env: dict, *args: str) -> None:
    print("==", " ".join(Path(args[0]).name if i == 0 else a for i, a in enumerate(args)), flush=True)
    subprocess.run(args, cwd=ROOT, env=env, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.cloud.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--lab-dir", type=Path, required=True, help="the up lab whose hosts back the instances")
    args = parser.parse_args(argv)
    lab = Lab(args.lab_dir)
    addresses = [h.address for h in lab.load()]
    if not addresses or not lab.inventory.is_file():
        print(f"lab.cloud.demo: error: no lab is up in {lab.dir} (make lab-up)", file=sys.stderr)
        return 2
    # A key pair of this run only: the emulator checks every request's signature.
    key_id, secret = "LTAI" + secrets.token_hex(8), secrets.token_hex(15)
    env = dict(
        os.environ,
        ALIBABA_CLOUD_ACCESS_KEY_ID=key_id,
        ALIBABA_CLOUD_ACCESS_KEY_SECRET=secret,
        NO_PROXY="127.0.0.1",
        no_proxy="127.0.0.1",
        PATH=f"{BIN}:{os.environ.get('PATH', '')}",
    )
    env.setdefault("ANSIBLE_CONFIG", str(ROOT / "ansible.cfg"))
    timings = Timings(vpc=0.1, instance_pending=1, instance_starting=1, file_system=2, mount_target=0.5)
    with CloudEmulator(
        port=0, access_key_id=key_id, access_key_secret=secret, timings=timings, host_addresses=addresses
    ) as emu:
        print(f"cloud emulator (stand-in for Alibaba Cloud) on http://{emu.endpoint}, instances backed by {lab.dir}")
        vars_file, inventory = write_files(lab, emu.endpoint, lab.dir / "cloud")[1:]
        playbooks = ROOT / "playbooks"
        try:
            step(
                env,
                str(BIN / "ansible-playbook"),
                "-i",
                "localhost,",
                str(playbooks / "provision.yml"),
                "-e",
                f"@{vars_file}",
            )
            step(env, str(BIN / "ansible-inventory"), "-i", str(inventory), "--graph")
            step(env, str(BIN / "ansible-playbook"), "-i", str(inventory), str(playbooks / "site.yml"))
            step(
                env,
                str(BIN / "ansible-playbook"),
                "-i",
                "localhost,",
                str(playbooks / "teardown.yml"),
                "-e",
                f"@{vars_file}",
            )
        except subprocess.CalledProcessError as exc:
            print(f"lab.cloud.demo: error: {Path(exc.cmd[0]).name} failed (rc {exc.returncode})", file=sys.stderr)
            return 1
    # bert_launch_results_dir's default: $SCC_TRAINING_RESULTS_DIR, else results/ (relative to ROOT, the cwd).
    results = ROOT / (os.environ.get("SCC_TRAINING_RESULTS_DIR") or "results")
    print(f"Results: {results}/  (the lab stays up: 'make lab-down' stops it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
