#!/usr/bin/env python3
"""STAND-IN for nccl-tests' all_reduce_perf and for Open MPI's mpirun, for hosts without GPUs (the
lab, unit tests): it measures nothing. Installed (copied or linked) under the name
``all_reduce_perf`` it prints a table in the layout of nccl-tests >= 2.13 (header of
NVIDIA/nccl-tests src/common.cu since commit 51af557, "Resync with NCCL 2.13", 2022-08-19: size
count type redop root, then time algbw busbw #wrong out-of-place and in-place; the
``Out of bounds values`` and ``Avg bus bandwidth`` summary), with our own values: its busbw
curve rises to a peak injected per node. Under the name ``mpirun`` it reads ``--hostfile``,
``-np`` and ``-x NAME=value``, and runs the program once, locally, with
``SCC_STANDIN_HOSTS`` (the hostfile's hosts) and ``SCC_STANDIN_RANKS`` set: no remote launch.

The injected faults: ``$SCC_STANDIN_BUSBW`` (default: ``busbw.json`` beside this file) is
``{"busbw": {"<address>": peak_busbw_gbps, ...}, "alone": {...}, "wrong": {"<address>": n}}``: a
group run under the stand-in mpirun peaks at the lowest ``busbw`` of its hosts (a ring runs at the
pace of its slowest link); a run alone is the node ``$SCC_STANDIN_NODE`` and peaks at its ``alone``
value (NVLink), else its ``busbw``; ``wrong`` adds n wrong values to a node's runs.
"""

import argparse
import json
import os
import sys

HEADER = (
    "#                                                              out-of-place                       in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "
)


def _size(text):
    units = {"K": 1024, "M": 1024**2, "G": 1024**3}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def table(peak_busbw, ranks, min_bytes, max_bytes, factor, wrong=0):
    """The output of all_reduce_perf for ``ranks`` GPUs whose large-message busbw is ``peak_busbw``."""
    bus_factor = 2.0 * (ranks - 1) / ranks
    peak_algbw = peak_busbw / bus_factor
    lines = [
        "# nccl-tests STAND-IN (scc.training tests/standins): values are injected, nothing was measured",
        "# nThread 1 nGpus %d minBytes %d maxBytes %d step: %d(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1 graph: 0" % (ranks, min_bytes, max_bytes, factor),
        "#",
        HEADER,
    ]
    size, busbws = min_bytes, []
    while size <= max_bytes:
        time_us = 25.0 + size / (peak_algbw * 1e3)
        algbw = size / time_us / 1e3
        busbw = algbw * bus_factor
        busbws.append(busbw)
        half = "%8.1f %7.2f %7.2f %6d" % (time_us, algbw, busbw, wrong)
        lines.append("%12d %13d %9s %7s %7d %s %s" % (size, size // 4, "float", "sum", -1, half, half))
        size *= factor
    lines.append("# Out of bounds values : %d %s" % (wrong, "OK" if not wrong else "FAILED"))
    lines.append("# Avg bus bandwidth    : %.3f " % (sum(busbws) / len(busbws)))
    lines.append("#")
    return "\n".join(lines) + "\n"


def _injected():
    path = os.environ.get("SCC_STANDIN_BUSBW") or os.path.join(
        os.path.dirname(os.path.realpath(__file__)), "busbw.json"
    )
    with open(path) as handle:
        return json.load(handle)


def all_reduce_perf(argv):
    parser = argparse.ArgumentParser(prog="all_reduce_perf (stand-in)")
    parser.add_argument("-b", "--minbytes", default="32M")
    parser.add_argument("-e", "--maxbytes", default="32M")
    parser.add_argument("-f", "--stepfactor", type=int, default=2)
    parser.add_argument("-g", "--ngpus", type=int, default=1)
    args = parser.parse_known_args(argv)[0]
    injected = _injected()
    hosts = [h for h in os.environ.get("SCC_STANDIN_HOSTS", "").split(",") if h]
    peaks = injected["busbw"]
    if not hosts:
        hosts, peaks = [os.environ["SCC_STANDIN_NODE"]], dict(peaks, **injected.get("alone", {}))
    ranks = int(os.environ.get("SCC_STANDIN_RANKS") or args.ngpus)
    peak = min(float(peaks[h]) for h in hosts)
    wrong = sum(int(injected.get("wrong", {}).get(h, 0)) for h in hosts)
    sys.stdout.write(table(peak, ranks, _size(args.minbytes), _size(args.maxbytes), args.stepfactor, wrong))
    return 0


def mpirun(argv):
    """Runs the program once, here, with the hostfile's hosts and the rank count in its environment."""
    env = dict(os.environ)
    hosts, ranks, index = [], None, 0
    with_value = {"--hostfile", "-np", "-x", "--bind-to", "--map-by", "--host"}
    while index < len(argv) and argv[index].startswith("-"):
        option = argv[index]
        if option == "--mca":
            index += 3
            continue
        if option in with_value:
            value = argv[index + 1]
            if option == "--hostfile":
                with open(value) as handle:
                    hosts = [line.split()[0] for line in handle if line.split() and not line.startswith("#")]
            elif option == "-np":
                ranks = value
            elif option == "-x":
                name, text = value.split("=", 1)
                env[name] = text
            index += 2
            continue
        index += 1
    env["SCC_STANDIN_HOSTS"] = ",".join(hosts)
    env["SCC_STANDIN_RANKS"] = str(ranks or len(hosts))
    program = argv[index:]
    os.execvpe(program[0], program, env)


if __name__ == "__main__":
    name = os.path.basename(sys.argv[0])
    sys.exit(mpirun(sys.argv[1:]) if name.startswith("mpirun") else all_reduce_perf(sys.argv[1:]))
