"""BERT corpus preparation (bert_prep) on lab nodes: peak memory against corpus size, and 2 nodes against 1
(make bench-data).

The bench generates two corpora of 8 files each (tests/integration/test_imagenet_prep.py's write_corpus, from
bert_corpus.py's synthetic world): documents of 1 to 4 walks of 6 to 24 sentences (about 37 sentences, 2 KiB, on
average), 1x with --documents per file and 4x with four times as many (each file 4x as long). The bert_prep role
(playbooks/prepare_bert.yml's play) prepares, each run from nothing into its own directory on the lab's shared mount,
with one vocabulary the bench trains first: 1x on node1, 4x on node1, 4x on node1 and node2.

- peak RSS ratio: the preparer's peak resident memory (its getrusage maxrss) on the 4x corpus over the 1x one (goal <=
  1.2: memory does not grow with the corpus);
- speed-up: the 4x corpus's preparation seconds on 1 node over those on 2 (the slowest node's, as bert_prep.py
  measures them: reading, tokenising, building, writing and reading back), goal >= 1.6;
- padding: the share of the 4x corpus's row tokens that are [PAD] (its manifest's padding_fraction), goal <= 5%.

The lab hosts share this machine's CPUs: the speed-up is bounded by the cores the controller has free.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "roles" / "bert_prep" / "files"))

import bert_prep

from tests.integration.test_imagenet_prep import PREP_TASK, install_bert_site, write_corpus
from tests.lab_runner import ok_results, run_on_first_nodes, temp_lab

ADDRESSES = ("127.0.43.21", "127.0.43.22")
MANIFEST_TASK = "Write the manifest (every shard's sha256 and counts)"
PLAY = """
- name: Prepare
  hosts: scc_cluster
  gather_facts: false
  roles:
    - scc.training.bert_prep
"""


def prepare(lab, work: Path, corpus: str, nodes: int, tag: str) -> dict:
    playbook = work / "play.yml"
    playbook.write_text(PLAY)
    extravars = {
        "bert_prep_corpus": corpus,
        "bert_prep_vocab": "/mnt/cpfs/bench-vocab/vocab.txt",
        "bert_prep_data_dir": "/mnt/cpfs/bench-%s" % tag,
        "bert_prep_python": "/usr/bin/python3",
        "bert_prep_python_path": ["/mnt/cpfs/bert-site"],
        "bert_prep_results_dir": str(work / ("results-" + tag)),
    }
    run = run_on_first_nodes(lab, playbook, work, nodes, tag, extravars)
    shards = [json.loads(r["stdout"]) for r in ok_results(run.events, PREP_TASK).values()]
    manifest = json.loads(next(iter(ok_results(run.events, MANIFEST_TASK).values()))["stdout"])
    return {
        "run": tag,
        "nodes": nodes,
        "tokens": manifest["tokens"],
        "instances": manifest["instances"],
        "seconds": max(s["seconds"] for s in shards),
        "peak_rss_kib": max(s["peak_rss_kib"] for s in shards),
        "padding_fraction": manifest["padding_fraction"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    # 300 documents of ~2 KiB per file: 1x about 5 MiB (seconds on a node), 4x about 21 MiB.
    parser.add_argument("--documents", type=int, default=300, help="documents per file of the 1x corpus")
    args = parser.parse_args()
    with temp_lab("bert-data-bench-", ADDRESSES) as (work, lab):
        install_bert_site(lab.shared / "bert-site")
        write_corpus(lab.shared / "corpus-1x", args.files, args.documents, walks=(1, 4))
        write_corpus(lab.shared / "corpus-4x", args.files, 4 * args.documents, walks=(1, 4))
        bert_prep.ensure_vocab(str(lab.shared / "corpus-1x"), str(lab.shared / "bench-vocab"), "", 30522, 100 << 20)
        rows = [
            prepare(lab, work, "/mnt/cpfs/corpus-1x", 1, "1x-1node"),
            prepare(lab, work, "/mnt/cpfs/corpus-4x", 1, "4x-1node"),
            prepare(lab, work, "/mnt/cpfs/corpus-4x", 2, "4x-2nodes"),
        ]
    for row in rows:
        print(json.dumps(row))
    rss = rows[1]["peak_rss_kib"] / rows[0]["peak_rss_kib"]
    speedup = rows[1]["seconds"] / rows[2]["seconds"]
    padding = 100 * rows[2]["padding_fraction"]
    print("bench-data: peak RSS ratio 4x/1x: %.2f; nodes 2/1 speed-up: %.2f; padding: %.1f%%" % (rss, speedup, padding))
    return 0


if __name__ == "__main__":
    sys.exit(main())
