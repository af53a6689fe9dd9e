"""STAND-INs for what an eRDMA node (ebmgn8v) has and the lab hosts lack: they measure nothing.

The lab hosts have no ERI, no erdma kernel module, no GPU and no NCCL (lab/README.md). The ebmgn8v leg of
tests/integration/test_site_e2e.py gives the roles these, each saying STAND-IN in its text:

``installer``: a STAND-IN of Alibaba's eRDMA installer, ``erdma_installer-0.0.0.tar.gz`` (the layout rdma_stack
unpacks and runs: ``erdma_installer/install.sh --batch``; version 0.0.0: no real release). Its install.sh puts in
/usr/local (ahead of /usr on root's PATH):

- ``eadm`` (the installer's tool, which rdma_stack looks for) and ``modinfo``, which answers
  ``modinfo -F version erdma`` with the stand-in's version: together rdma_stack's "is the eRDMA stack installed";
- ``modprobe``: ``modprobe erdma compat_mode=<Y|N>`` and ``modprobe -r erdma`` (rdma_stack's eRDMA driver mode)
  answer 0 and are logged to /var/log/erdma-standin-modprobe.log; anything else goes to the real modprobe;
- ``ibv_devinfo``: prints the published ``ibv_devinfo`` of an H20 node's erdma_0
  (tests/fixtures/rdma/ibv_devinfo_erdma_h20_stepmesh.txt, stepfun-ai/StepMesh PR 32) and, since that excerpt ends at
  erdma_1's node_guid, a copy of it as erdma_1 on the next node GUID (as rdma_sysfs_tree.build_erdma_tree does).

``launcher``: into a directory of the lab's shared storage, which every host sees:

- ``mpirun``: Open MPI's mpirun, run for real, with ``rank`` put in front of each rank's program (the first argument
  ending in ``/bin/python``);
- ``rank``: writes its own environment (``/proc/$$/environ``; the process then ``exec``s the rank's program, keeping
  its pid and environment: this is the rank's own environment, as mpirun's ``-x`` gave it) to
  ``environ/<host>-rank<N>``, and on rank 0 prints the NCCL INFO lines NCCL prints on an RDMA fabric
  (``NET/IB : Using [0]<dev>:<port>/RoCE ...`` from the rank's own NCCL_IB_HCA, and one ``Channel 00/0 ... via
  NET/IB/0``). With the gloo backend on CPUs NCCL never runs: these lines are STAND-INs, which bert_launch's check
  that NCCL used NET/IB reads as it reads NCCL's own.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = ROOT / "tests" / "fixtures" / "rdma" / "ibv_devinfo_erdma_h20_stepmesh.txt"
INSTALLER = "erdma_installer-0.0.0.tar.gz"
MODPROBE_LOG = "/var/log/erdma-standin-modprobe.log"


def ibv_devinfo_text() -> str:
    """The published erdma_0 block, then the STAND-IN copy of it as erdma_1 (node GUID ...:3775 -> ...:3776)."""
    block = "\n".join(line for line in CAPTURE.read_text().splitlines() if not line.startswith("#")).strip("\n")
    copy = block.replace("erdma_0", "erdma_1").replace("fe2f:3775", "fe2f:3776")
    return block + "\n\n" + copy + "\n"


_INSTALL_SH = """#!/bin/sh
# STAND-IN for Alibaba's eRDMA installer (tests/standins/erdma_node_standin.py): installs stand-in tools, no driver.
set -e
[ "$1" = --batch ] || { echo "install.sh: the stand-in runs with --batch only" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /usr/local/share/erdma-standin
install -m 0644 "$here/ibv_devinfo.txt" /usr/local/share/erdma-standin/ibv_devinfo.txt
install -m 0755 "$here/eadm" "$here/ibv_devinfo" /usr/local/bin/
install -m 0755 "$here/modprobe" "$here/modinfo" /usr/local/sbin/
echo "eRDMA stand-in installed"
"""

_EADM = """#!/bin/sh
# STAND-IN for the eRDMA installer's eadm (tests/standins/erdma_node_standin.py).
echo "eadm STAND-IN 0.0.0"
"""

_IBV_DEVINFO = """#!/bin/sh
# STAND-IN for ibv_devinfo on an eRDMA node (tests/standins/erdma_node_standin.py): prints the published capture.
cat /usr/local/share/erdma-standin/ibv_devinfo.txt
"""

_MODPROBE = """#!/bin/sh
# STAND-IN for kmod's modprobe of the erdma driver (tests/standins/erdma_node_standin.py): the lab has no erdma module.
case "$*" in
  "erdma compat_mode="[YN]|"-r erdma") echo "$*" >> {log}; exit 0 ;;
esac
for real in /usr/sbin/modprobe /sbin/modprobe; do [ -x "$real" ] && exec "$real" "$@"; done
exit 1
"""

_MODINFO = """#!/bin/sh
# STAND-IN for kmod's modinfo of the erdma driver (tests/standins/erdma_node_standin.py).
[ "$*" = "-F version erdma" ] && { echo "0.0.0-standin"; exit 0; }
for real in /usr/sbin/modinfo /sbin/modinfo; do [ -x "$real" ] && exec "$real" "$@"; done
exit 1
"""


def installer(directory: Path) -> tuple[str, str]:
    """The STAND-IN installer archive in ``directory`` (an offline mirror): (its name, its sha256)."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "install.sh": (_INSTALL_SH, 0o755),
        "eadm": (_EADM, 0o755),
        "ibv_devinfo": (_IBV_DEVINFO, 0o755),
        "ibv_devinfo.txt": (ibv_devinfo_text(), 0o644),
        "modprobe": (_MODPROBE.format(log=MODPROBE_LOG), 0o755),
        "modinfo": (_MODINFO, 0o755),
    }
    buffer = io.BytesIO()
    # The same bytes every time (gzip's and the members' mtime 0): one sha256 for one content.
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped, tarfile.open(fileobj=zipped, mode="w") as tar:
        for name, (text, mode) in files.items():
            data = text.encode()
            info = tarfile.TarInfo("erdma_installer/" + name)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    (directory / INSTALLER).write_bytes(buffer.getvalue())
    return INSTALLER, hashlib.sha256(buffer.getvalue()).hexdigest()


_MPIRUN = """#!/usr/bin/python3
# STAND-IN wrapper of Open MPI's mpirun (tests/standins/erdma_node_standin.py): runs {mpirun} for real with {where}/rank
# in front of each rank's program (the first argument ending in /bin/python).
import os
import re
import sys

args = sys.argv[1:]
at = next(i for i, arg in enumerate(args) if re.search(r"/bin/python[0-9.]*$", arg))
os.execv("{mpirun}", ["{mpirun}"] + args[:at] + ["{where}/rank"] + args[at:])
"""

_RANK = """#!/bin/sh
# STAND-IN in front of a rank's program (tests/standins/erdma_node_standin.py): records this process's own environment,
# prints on rank 0 the NCCL INFO lines of an RDMA fabric (NCCL does not run with gloo on CPUs), then becomes the rank.
mkdir -p {where}/environ
cat /proc/$$/environ > {where}/environ/$(uname -n)-rank$OMPI_COMM_WORLD_RANK
if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then
  using=""
  i=0
  for port in $(echo "${{NCCL_IB_HCA#=}}" | tr , ' '); do using="$using [$i]$port/RoCE"; i=$((i + 1)); done
  echo "$(uname -n):$$:$$ [0] NCCL INFO NET/IB : Using$using ; OOB $NCCL_SOCKET_IFNAME:STAND-IN"
  echo "$(uname -n):$$:$$ [0] NCCL INFO Using network IB"
  echo "$(uname -n):$$:$$ [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0"
fi
exec "$@"
"""


def launcher(directory: Path, where: str, mpirun: str = "/usr/bin/mpirun") -> str:
    """``mpirun`` and ``rank`` into ``directory``, the controller's view of the shared ``where`` the hosts see; the
    path of the stand-in mpirun on the hosts."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in (("mpirun", _MPIRUN), ("rank", _RANK)):
        path = directory / name
        path.write_text(text.format(where=where, mpirun=mpirun))
        path.chmod(0o755)
    return where + "/mpirun"


def environ(path: Path) -> dict:
    """A rank's environment as ``rank`` recorded it (NUL-separated NAME=value)."""
    return dict(item.split("=", 1) for item in path.read_bytes().decode().split("\0") if "=" in item)
