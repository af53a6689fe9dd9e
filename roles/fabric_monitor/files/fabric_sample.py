# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Sample fabric byte counters on this node until a stop file appears (fabric_monitor, node side).

One JSON line per sample: {"t": <unix time>, "ib": {"<dev>:<port>": [xmit_bytes, rcv_bytes]},
"net": {"<if>": [tx_bytes, rx_bytes]}}. IB counters come from
/sys/class/infiniband/<dev>/ports/<port>/counters/port_{xmit,rcv}_data, which count 4-byte words
(multiplied by 4 here); interface counters from /sys/class/net/<if>/statistics/{tx,rx}_bytes.
Python 3 standard library only: it runs with the node's system python.
"""

import argparse
import glob
import json
import os
import sys
import time


def _read_int(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def sample(interfaces):
    ib = {}
    for port_dir in sorted(glob.glob("/sys/class/infiniband/*/ports/*")):
        dev, port = port_dir.split("/")[4], port_dir.split("/")[6]
        xmit = _read_int(os.path.join(port_dir, "counters", "port_xmit_data"))
        rcv = _read_int(os.path.join(port_dir, "counters", "port_rcv_data"))
        if xmit is not None and rcv is not None:
            ib["%s:%s" % (dev, port)] = [xmit * 4, rcv * 4]
    net = {}
    names = interfaces or sorted(os.listdir("/sys/class/net"))
    for name in names:
        stats = os.path.join("/sys/class/net", name, "statistics")
        tx, rx = _read_int(os.path.join(stats, "tx_bytes")), _read_int(os.path.join(stats, "rx_bytes"))
        if tx is not None and rx is not None:
            net[name] = [tx, rx]
    return {"t": time.time(), "ib": ib, "net": net}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--max-duration", type=float, default=3600.0)
    parser.add_argument("--stop-file", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--interfaces", default="", help="comma-separated; empty = all")
    args = parser.parse_args(argv)
    interfaces = [i for i in args.interfaces.split(",") if i]
    deadline = time.time() + args.max_duration
    with open(args.out, "w") as out:
        while True:
            out.write(json.dumps(sample(interfaces)) + "\n")
            out.flush()
            if os.path.exists(args.stop_file) or time.time() >= deadline:
                return 0
            time.sleep(args.interval)


if __name__ == "__main__":
    sys.exit(main())
