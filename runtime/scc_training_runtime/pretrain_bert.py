"""BERT pretraining benchmark for an mpirun-launched cluster (scc.training.bert_launch).

One process per rank, started by OpenMPI's mpirun. It trains transformers' BertForPreTraining
on the masked-LM (15% of tokens; 80% [MASK], 10% random, 10% kept) and next-sentence
objectives, with one of four data-parallel frameworks (--framework): torch (DDP over
torch.distributed, the default), acspeed (the same DDP with Alibaba's ACSpeed plug-in), horovod
(horovod.torch) or aiacc (perseus.torch.horovod, AIACC-Training).

This file is the command line and the order of the run; the parts are modules next to it:

    bert_data.py       the vocabulary, the next-sentence instances, masking, each rank's batch
    bert_model.py      the size table, the model, the parameter and FLOP counts, device peaks
    bert_train.py      the optimizer (AdamW, or LAMB from bert_lamb.py) and the training loop
    bert_results.py    the results dict from the measured numbers (build_results), results.json
    mpi_job_rank.py    (installed here by the scc.training.mpi_job role, as the two below) the rank's pid
                       record and its progress file, so that the launcher can stop it and report a failed run
    mpi_job_device.py  the rank's device, precision and threads; the refusals (exit status 2)
    mpi_job_framework.py  the framework adapter: torch DDP (torch, acspeed), or Horovod's API (horovod, aiacc)

Data needs no network: a WordPiece vocabulary is trained on the shipped corpus by rank 0 and
broadcast to every rank, so no shared file system is needed and every node uses one vocabulary.
A real corpus is prepared once onto CPFS (scc.training.bert_prep); with --prepared each rank reads only
its part of those shards, memory-mapped.

Rank 0 writes a results JSON (bert_results.build_results): world size, hosts and ranks per
host, loss per step, throughput after the warm-up steps, model FLOPs per step and, where the
peak of the device is known, the model FLOP utilisation. Every rank records its pid
($SCC_MPI_JOB_PID_DIR) and rewrites progress-rank<k>.json in --output-dir after every step (steps done,
its own loss, its status; "failed" with the error when it raises). Exit status: 0 done, 1 a rank failed,
2 bad arguments, 3 non-finite loss (the results JSON is still written, with status "non_finite_loss").
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import socket
import sys
from typing import Sequence

from . import bert_data, bert_model, bert_results, bert_train, mpi_job_device, mpi_job_framework, mpi_job_rank

SEQ_LEN_MIN = 16
SEQ_LEN_MAX = bert_model.MAX_POSITION_EMBEDDINGS

# The exit codes every mpi_job program uses (the tests read them from here).
EXIT_OK, EXIT_USAGE, EXIT_NON_FINITE = mpi_job_rank.EXIT_OK, mpi_job_rank.EXIT_USAGE, mpi_job_rank.EXIT_NON_FINITE


def build_parser() -> argparse.ArgumentParser:
    env = os.environ
    p = argparse.ArgumentParser(description="BERT pretraining benchmark (mpirun + DDP or Horovod)")
    p.add_argument(
        "--framework",
        choices=sorted(mpi_job_framework.FRAMEWORK_MODULES),
        default="torch",
        help="torch: torch.distributed + DistributedDataParallel; acspeed: the same with Alibaba's "
        "ACSpeed plug-in (import acspeed; CUDA only); horovod: horovod.torch; aiacc: "
        "perseus.torch.horovod (AIACC-Training)",
    )
    p.add_argument("--model-size", choices=sorted(bert_model.MODEL_SIZES), default="tiny")
    p.add_argument("--num-layers", type=int, help="override the size table")
    p.add_argument("--hidden-size", type=int, help="override the size table")
    p.add_argument("--num-heads", type=int, help="override the size table")
    p.add_argument("--intermediate-size", type=int, help="override the size table")
    p.add_argument(
        "--vocab-size",
        type=int,
        help="WordPiece vocabulary to train; the model's embedding is padded to it "
        "when the corpus yields fewer pieces (default: from the size table)",
    )
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument(
        "--batch-size",
        type=_batch_size,
        default=8,
        help="sequences per rank per step; auto: from the device's memory and the model (bert_model.auto_batch_size)",
    )
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup-steps", type=int, default=5, help="first steps left out of the throughput measurement")
    p.add_argument(
        "--lr-warmup-steps", type=int, default=None, help="linear learning-rate warm-up (default: 10%% of --steps)"
    )
    p.add_argument(
        "--learning-rate",
        type=float,
        default=None,
        help=f"peak learning rate (default: AdamW's from the size table; LAMB's {bert_train.LAMB_LEARNING_RATE})",
    )
    p.add_argument("--mlm-probability", type=float, default=0.15)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument(
        "--corpus",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.txt"),
        help="text file: one sentence per line, a blank line between documents",
    )
    p.add_argument("--vocab", default=None, help="use this vocab.txt instead of training one on the corpus")
    p.add_argument(
        "--prepared",
        default="",
        help="a directory scc.training.bert_prep prepared (manifest.json, vocab.txt, shards/): each rank reads its "
        "part of the shards, memory-mapped; replaces --corpus, --vocab and --data",
    )
    mpi_job_rank.add_job_arguments(p, env)
    p.add_argument(
        "--peak-tflops", type=float, default=None, help="peak TFLOP/s of one device, overriding the built-in table"
    )
    # The levers (bert_launch_* variables; the role picks their defaults per GPU generation in
    # plugins/module_utils/bert_levers.py). The defaults here are the plain, un-tuned run.
    levers = p.add_argument_group("levers")
    levers.add_argument(
        "--vocab-multiple",
        type=int,
        default=1,
        help="pad the model's vocabulary to a multiple of this (64: tensor-core tiles)",
    )
    levers.add_argument(
        "--mlm-head",
        choices=["full", "masked"],
        default="full",
        help="full: the decoder on every position; masked: on the predicted positions only",
    )
    levers.add_argument(
        "--max-predictions",
        type=int,
        default=0,
        help="predicted slots per sequence with --mlm-head masked (0: mean + 3 standard deviations)",
    )
    levers.add_argument("--attention", choices=["eager", "sdpa"], default="eager", help="transformers' attention")
    levers.add_argument("--grad-accum", type=int, default=1, help="micro-batches per optimizer step (DDP no_sync)")
    levers.add_argument(
        "--optimizer",
        choices=["auto", "adamw", "lamb"],
        default="adamw",
        help="adamw, or lamb (layer-wise trust ratio, for large global batches: bert_lamb.py); auto: lamb above "
        f"a global batch of {bert_train.LAMB_ABOVE_GLOBAL_BATCH} sequences",
    )
    levers.add_argument(
        "--fused-adamw", choices=["auto", "on", "off"], default="auto", help="fused AdamW kernel (auto: on GPUs)"
    )
    levers.add_argument("--ddp-bucket-mb", type=int, default=25, help="DDP gradient bucket size, MiB")
    levers.add_argument("--ddp-static-graph", action="store_true", help="DDP static_graph=True")
    levers.add_argument(
        "--ddp-grad-as-bucket-view", action="store_true", help="DDP gradient_as_bucket_view=True (no gradient copy)"
    )
    levers.add_argument(
        "--ddp-compression",
        choices=["none", "fp16", "bf16"],
        default="none",
        help="DDP communication hook: all-reduce the gradients at half width",
    )
    levers.add_argument("--compile", action="store_true", help="torch.compile the wrapped model")
    levers.add_argument(
        "--data",
        choices=["inline", "shards"],
        default="inline",
        help="inline: tokenise at start-up, index the batches in the loop; shards: pre-tokenised shards "
        "under --data-dir (built once), read by a DataLoader",
    )
    levers.add_argument("--data-dir", default="", help="where --data shards keeps its shards")
    levers.add_argument("--loader-workers", type=int, default=2, help="DataLoader worker processes (--data shards)")
    # Measurement and checkpoints.
    p.add_argument("--time-split", action="store_true", help="report the per-step time split (adds device syncs)")
    p.add_argument("--count-syncs", action="store_true", help="count the host syncs of the loop")
    p.add_argument("--checkpoint-dir", default="", help="where checkpoints go (and --resume reads them)")
    p.add_argument("--checkpoint-every", type=int, default=0, help="save a checkpoint every K steps (0: never)")
    p.add_argument(
        "--resume", action="store_true", help="continue from --checkpoint-dir's checkpoint when there is one"
    )
    return p


def _batch_size(value: str):
    return value if value == "auto" else int(value)


def check_args(args: argparse.Namespace) -> list[str]:
    """Every problem with the arguments, as messages naming the option."""
    errors = []
    if args.steps < 1:
        errors.append(f"--steps must be >= 1 (got {args.steps})")
    if args.batch_size != "auto" and args.batch_size < 1:
        errors.append(f"--batch-size must be >= 1 (got {args.batch_size})")
    if not SEQ_LEN_MIN <= args.seq_len <= SEQ_LEN_MAX:
        errors.append(f"--seq-len must be within [{SEQ_LEN_MIN}, {SEQ_LEN_MAX}] (got {args.seq_len})")
    if args.warmup_steps < 0 or (args.steps >= 1 and args.warmup_steps >= args.steps):
        errors.append(
            f"--warmup-steps must be >= 0 and < --steps, leaving a step to measure "
            f"(got {args.warmup_steps} with --steps {args.steps})"
        )
    if args.lr_warmup_steps is not None and args.lr_warmup_steps < 0:
        errors.append(f"--lr-warmup-steps must be >= 0 (got {args.lr_warmup_steps})")
    if args.learning_rate is not None and not args.learning_rate > 0:
        errors.append(f"--learning-rate must be > 0 (got {args.learning_rate})")
    if not 0.0 < args.mlm_probability < 1.0:
        errors.append(f"--mlm-probability must be within (0, 1) (got {args.mlm_probability})")
    if args.threads < 0:
        errors.append(f"--threads must be >= 0 (got {args.threads})")
    if not 0 < args.master_port < 65536:
        errors.append(f"--master-port must be within [1, 65535] (got {args.master_port})")
    if args.log_every < 1:
        errors.append(f"--log-every must be >= 1 (got {args.log_every})")
    if args.framework != "torch" and args.backend != "auto":
        errors.append(
            f"--backend applies to --framework torch only (got --backend "
            f"{args.backend} with --framework {args.framework})"
        )
    for name in ("vocab_multiple", "grad_accum", "ddp_bucket_mb"):
        if getattr(args, name) < 1:
            errors.append(f"--{name.replace('_', '-')} must be >= 1 (got {getattr(args, name)})")
    for name in ("max_predictions", "loader_workers", "checkpoint_every"):
        if getattr(args, name) < 0:
            errors.append(f"--{name.replace('_', '-')} must be >= 0 (got {getattr(args, name)})")
    if args.prepared and args.vocab:
        errors.append("--vocab does not combine with --prepared (the prepared directory has its vocab.txt)")
    if args.data == "shards" and not args.data_dir and not args.prepared:
        errors.append("--data shards needs --data-dir")
    if (args.checkpoint_every or args.resume) and not args.checkpoint_dir:
        errors.append("--checkpoint-every and --resume need --checkpoint-dir")
    if args.framework in mpi_job_framework.HOROVOD_API and (args.grad_accum > 1 or args.ddp_compression != "none"):
        errors.append(
            f"--grad-accum and --ddp-compression apply to DDP (--framework torch or acspeed), not {args.framework}"
        )
    if args.ddp_static_graph and args.grad_accum > 1:
        # torch 2.13 on gloo: the first backward under no_sync fails an internal assert of DDP's
        # reducer (expect_autograd_hooks_) with static_graph=True.
        errors.append("--ddp-static-graph does not combine with --grad-accum > 1 (DDP's no_sync)")
    for name in ("num_layers", "hidden_size", "num_heads", "intermediate_size", "vocab_size"):
        value = getattr(args, name)
        if value is not None and value < 1:
            errors.append(f"--{name.replace('_', '-')} must be >= 1 (got {value})")
    if not errors:
        try:
            bert_model.model_config(args.model_size, args)
        except ValueError as exc:
            errors.append(str(exc))
    return errors


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    errors = check_args(args)
    if errors:
        parser.error("; ".join(errors))  # exits with status 2
    return args


class StepHooks:
    """The training loop's hooks: the test-only fault injection before a step, the progress file after it."""

    def __init__(self, progress: mpi_job_rank.Progress, rank: int):
        self.progress, self.rank = progress, rank

    def before_step(self, step: int) -> None:
        mpi_job_rank.test_only_fail(self.rank, step)

    def after_step(self, step: int, loss: float) -> None:
        self.progress.update(step, loss)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    import transformers

    transformers.logging.set_verbosity_error()
    started_at = _dt.datetime.now(_dt.timezone.utc)

    def global_batch(framework, device) -> int:
        resolve_batch_size(args, device, framework.rank)
        return args.batch_size * args.grad_accum * framework.world_size

    # The rank (Horovod's after hvd.init(), else Open MPI's environment), its device, the rendezvous of
    # torch.distributed, the progress file: mpi_job's sequence, the same for every program.
    return mpi_job_framework.run_rank(
        "pretrain_bert",
        args,
        os.environ,
        "sequences",
        global_batch,
        lambda framework, device, progress: _train_and_report(
            args, framework, device, started_at, StepHooks(progress, framework.rank)
        ),
    )


def resolve_batch_size(args, device, rank: int) -> None:
    """--batch-size auto -> the per-rank batch for this rank's device and the model (bert_model.auto_batch_size), in
    place, before anything counts sequences (the progress file, the global batch)."""
    if args.batch_size != "auto":
        return
    import torch

    cfg = bert_model.model_config(args.model_size, args)
    memory = torch.cuda.get_device_properties(device.device).total_memory if device.use_cuda else None
    args.batch_size = bert_model.auto_batch_size(memory, cfg, args.seq_len, cfg["vocab_size"])
    mpi_job_device.log(rank, f"--batch-size auto: {args.batch_size} per rank")


def _train_and_report(args, framework, device, started_at, hooks: StepHooks) -> str:
    """Everything after the rendezvous: data, model, the loop, and rank 0's results; the outcome's status."""
    import tokenizers
    import torch
    import transformers

    rank, world = framework.rank, framework.world_size
    mpi_job_device.log(
        rank,
        f"world_size={world} framework={args.framework} backend={framework.backend} "
        f"device={device.kind} ({device.name}) precision={device.precision}",
    )
    records = framework.all_gather_object(
        {"rank": rank, "local_rank": framework.local_rank, "host": socket.gethostname(), "device": device.name}
    )

    # Data, model and optimizer.
    cfg = bert_model.model_config(args.model_size, args)
    checkpoint_vocab = os.path.join(args.checkpoint_dir, bert_train.CHECKPOINT_VOCAB)
    if args.resume and not args.vocab and not args.prepared and rank == 0 and os.path.isfile(checkpoint_vocab):
        args.vocab = checkpoint_vocab  # the resumed model's own vocabulary (rank 0 reads and broadcasts it)
    data = bert_data.load(args, cfg["vocab_size"], framework, rank)
    # The embedding is padded to the table's vocabulary when the corpus gives fewer WordPieces,
    # then to a multiple of --vocab-multiple.
    model_vocab = bert_model.padded_vocab(max(len(data.vocab_tokens), cfg["vocab_size"]), args.vocab_multiple)
    model = bert_model.build_model(cfg, model_vocab, args.seed, device.device, args.attention)
    params = sum(p.numel() for p in model.parameters())
    predictions = args.max_predictions or bert_data.max_predictions(args.seq_len, args.mlm_probability)
    module = bert_model.pretraining_module(model, args.mlm_head, predictions)
    ddp_options = {
        "bucket_cap_mb": args.ddp_bucket_mb,
        "gradient_as_bucket_view": args.ddp_grad_as_bucket_view,
        "static_graph": args.ddp_static_graph,
    }
    net = framework.wrap_model(module, device.device, device.use_cuda, ddp_options)
    global_batch = args.batch_size * args.grad_accum * world
    optimizer = bert_train.optimizer_choice(args.optimizer, global_batch)
    lr = cfg["learning_rate"]
    if optimizer == "lamb" and args.learning_rate is None:
        lr = bert_train.LAMB_LEARNING_RATE
    lr_warmup = args.lr_warmup_steps if args.lr_warmup_steps is not None else max(1, args.steps // 10)
    fused = args.fused_adamw == "on" or (args.fused_adamw == "auto" and device.use_cuda)
    opt = bert_train.build_optimizer(model, net, framework, device, lr, lr_warmup, args.steps, fused, optimizer)
    start = _resume(args, framework, model, opt, device)
    if args.compile:
        import torch

        net = torch.compile(net)
    mpi_job_device.log(
        rank,
        f"model={args.model_size} layers={cfg['num_layers']} hidden={cfg['hidden_size']} "
        f"heads={cfg['num_heads']} params={params} vocab={model_vocab} "
        f"instances={data.instances} seq_len={args.seq_len} "
        f"global_batch={global_batch} optimizer={optimizer} lr={lr} resumed_at={start[0]}",
    )

    outcome = bert_train.train(args, net, opt, framework, device, data, model_vocab, hooks, start=start, model=model)

    results = bert_results.build_results(
        args,
        rank_records=records,
        framework=framework,
        device=device,
        model={
            "config": cfg,
            "vocab": model_vocab,
            "tokenizer_vocab": len(data.vocab_tokens),
            "params": params,
            "predictions": predictions,
            "learning_rate": lr,
            "lr_warmup_steps": lr_warmup,
            "optimizer": optimizer,
        },
        outcome=outcome,
        started_at=started_at,
        finished_at=_dt.datetime.now(_dt.timezone.utc),
        data=bert_data.corpus_summary(args.corpus, data),
        versions={
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "tokenizers": tokenizers.__version__,
        },
    )
    if rank == 0:
        bert_results.write_outputs(args.output_dir, results, data.vocab_tokens)
        tput = results["throughput"]
        mpi_job_device.log(
            rank,
            f"status={outcome.status} loss {results['loss_first']} -> {results['loss_last']} "
            f"sequences/s={tput['sequences_per_s']} tokens/s={tput['tokens_per_s']} "
            f"mfu={results['flops']['mfu']}",
        )
    return outcome.status


def _resume(args, framework, model, opt, device) -> tuple[int, list]:
    """(steps done, their losses) from --checkpoint-dir's checkpoint with --resume, else (0, []).
    Every rank loads it, so the directory must be one all ranks read (CPFS): refused otherwise."""
    if not args.resume:
        return 0, []
    found = framework.all_gather_object(os.path.isfile(os.path.join(args.checkpoint_dir, bert_train.CHECKPOINT_FILE)))
    if not any(found):
        return 0, []
    if not all(found):
        raise mpi_job_device.UsageError(
            f"--resume: ranks {[r for r, f in enumerate(found) if not f]} do not see the checkpoint in "
            f"{args.checkpoint_dir}: put --checkpoint-dir on a file system every node mounts (CPFS)"
        )
    return bert_train.load_checkpoint(args.checkpoint_dir, model, opt, device)


if __name__ == "__main__":
    sys.exit(main())
