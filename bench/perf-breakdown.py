#!/usr/bin/env python3
"""Per-READ CPU breakdown of a FUSE server from `perf script` output (bench/profile.sh calls it).

    perf-breakdown.py --reads N --bytes B [--label NAME] [--json OUT] < perf-script.txt

Input: `perf script -F comm,pid,tid,period,ip,sym,dso` of a `perf record -e cpu-clock -g` of the
server process (JIT frames resolved through /tmp/perf-PID.map).  Every sample is put into ONE bucket
by its call chain (kernel part first: the syscall it sits under; then the Java frames, leaf first,
against the name rules below); the period of cpu-clock samples is in nanoseconds, so a bucket's sum
is CPU time.  Prints CPU microseconds per READ request and per GiB for each bucket.

Inlining blurs the Java side: a method the JIT inlined is charged to the compiled method around it,
so the Java buckets are "where the compiled code that contains X ran", not exact per method.
"""
import argparse
import json
import re
import sys
from collections import defaultdict

# kernel rules: (bucket, any of these symbols in the chain); first match wins, in this order
KERNEL = [
    ("reply to /dev/fuse (writev or splice): kernel copy into page cache", ("fuse_dev_write", "fuse_dev_do_write",
                                                                   "fuse_dev_splice_write"), True),
    ("reply to /dev/fuse (writev or splice): rest (end request, wake reader)", ("fuse_dev_write", "fuse_dev_do_write",
                                                                      "fuse_dev_splice_write"), False),
    ("request read(2) from /dev/fuse (kernel)", ("fuse_dev_read", "fuse_dev_do_read"), None),
    ("io_uring (kernel: submit/complete)", ("io_uring_enter", "__do_sys_io_uring_enter", "io_uring_cmd",
                                            "fuse_uring_cmd"), None),
    ("store read: pread(2) of the backing file (kernel copy)", ("__x64_sys_pread64", "__x64_sys_preadv",
                                                                "__x64_sys_preadv2", "shmem_file_read_iter",
                                                                "filemap_read"), None),
    ("splice(2) file -> pipe (kernel)", ("__x64_sys_splice", "do_splice"), None),
    ("hand-off: futex wait/wake (kernel)", ("__x64_sys_futex", "futex_wake", "futex_wait"), None),
    ("scheduler / context switch (kernel)", ("schedule", "__schedule", "finish_task_switch"), None),
    ("page faults (kernel)", ("exc_page_fault", "asm_exc_page_fault"), None),
    ("other syscalls (kernel)", ("do_syscall_64", "entry_SYSCALL_64_after_hwframe"), None),
]
COPY = re.compile(r"copy_(user|page|to|from|mc)|rep_mov|memcpy|memmove|fuse_copy_(do|page|pages|args|fill)")

# thread rules by comm (the JVM's own threads), before frame rules
COMM = [
    ("JVM: JIT compiler threads", re.compile(r"^C[12] CompilerThre")),
    ("JVM: GC threads", re.compile(r"^(GC Thread|G1 |GC Conc|VM Thread|VM Periodic)")),
]
# Java frame rules, leaf first; first frame that matches one decides
JAVA = [
    ("decode request (codec)", re.compile(r"codec\.(RequestDecoder|Wire|Le)|abi\.Le|RequestDecoder")),
    ("encode reply (codec)", re.compile(r"ReplyEncoder|DirentPage")),
    ("buffer pool / lease (Netty, kit.buffer)", re.compile(r"io\.netty|kit\.buffer|PagePool|BufferLease")),
    ("store read (filesystem Java code)", re.compile(r"purefuse\.depotfs|purefuse\.examples|bench\.peers|"
                                                     r"FileChannelImpl|sun\.nio\.ch\.IOUtil|FileDispatcher")),
    ("dispatch / hand-off (Java: dispatcher, virtual threads, queues)",
     re.compile(r"dispatch\.|ReplySink|InterruptTable|VirtualThread|Continuation|ForkJoin|LockSupport|"
                r"java\.util\.concurrent|jdk\.internal\.vm")),
    ("transport loop (Java: reader, replies, native glue)", re.compile(r"channel\.internal\.(loop|linux|transport|uring)|"
                                                                       r"jnr\.|jffi|com\.kenai|ru\.serce")),
    ("libfuse (C)", re.compile(r"libfuse")),
]


def frames_of(block):
    out = []
    for line in block[1:]:
        m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def classify(comm, frames):
    syms = [s for s, _ in frames]
    kernel = [s for s, d in frames if d.startswith("[kernel") or d == "[unknown]" and s.startswith("__")]
    for bucket, rx in COMM:
        if rx.search(comm):
            return bucket
    if frames and frames[0][1].startswith("[kernel"):
        ks = set(kernel)
        for bucket, names, copy in KERNEL:
            if any(n in ks for n in names):
                if copy is None:
                    return bucket
                leaf_copy = bool(COPY.search(syms[0])) or any(COPY.search(s) for s in syms[:3])
                if leaf_copy == copy:
                    return bucket
                continue
        return "kernel: other (irq, timers, ...)"
    for sym, dso in frames:
        if dso.startswith("[kernel"):
            continue
        sym = sym.replace("/", ".")   # perf maps spell classes either way (Lio/github/...; or io.github....)
        for bucket, rx in JAVA:
            if rx.search(sym) or rx.search(dso):
                return bucket
    if frames:
        sym, dso = frames[0]
        if "libjvm" in dso:
            return "JVM runtime (libjvm, other)"
        if sym == "Interpreter" or "Interpreter" in sym:
            return "interpreted Java"
        if "libc" in dso:
            return "libc (other)"
    return "other user code"


def parse(stream):
    block = []
    for line in stream:
        if line.strip() == "":
            if block:
                yield block
            block = []
        else:
            block.append(line.rstrip("\n"))
    if block:
        yield block


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reads", type=int, required=True, help="READ requests served during the recording")
    ap.add_argument("--bytes", type=int, required=True, help="bytes read by the application")
    ap.add_argument("--label", default="server")
    ap.add_argument("--json")
    ap.add_argument("--top", type=int, default=0, help="also print the N hottest leaf symbols")
    a = ap.parse_args()
    buckets = defaultdict(int)
    leaves = defaultdict(int)
    total = 0
    for block in parse(sys.stdin):
        m = re.match(r"\s*(.+?)\s+(\d+)/(\d+)\s+(\d+)\s", block[0])
        if not m:
            continue
        comm, period = m.group(1), int(m.group(4))
        fr = frames_of(block)
        b = classify(comm, fr)
        buckets[b] += period
        if fr:
            leaves["%s [%s]" % (fr[0][0], b.split(":")[0][:30])] += period
        total += period
    gib = a.bytes / (1 << 30) if a.bytes else 0
    rows = sorted(buckets.items(), key=lambda kv: -kv[1])
    print("%s: %.2f s CPU over %d READs (%.0f KiB each on average), %.2f GiB" % (
        a.label, total / 1e9, a.reads, a.bytes / max(a.reads, 1) / 1024, gib))
    print("| where (CPU of the server's threads) | µs per READ | ms per GiB | share |")
    print("|---|---|---|---|")
    for b, ns in rows:
        print("| %s | %.1f | %.0f | %.0f%% |" % (b, ns / 1e3 / max(a.reads, 1), ns / 1e6 / gib if gib else 0,
                                             100.0 * ns / total if total else 0))
    print("| **total** | **%.1f** | **%.0f** | 100%% |" % (total / 1e3 / max(a.reads, 1), total / 1e6 / gib if gib else 0))
    if a.top:
        print("\nhottest leaf symbols:")
        for s, ns in sorted(leaves.items(), key=lambda kv: -kv[1])[:a.top]:
            print("  %5.1f%%  %s" % (100.0 * ns / total, s))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"label": a.label, "reads": a.reads, "bytes": a.bytes, "total_ns": total,
                       "buckets_ns": dict(buckets)}, f, indent=1)


if __name__ == "__main__":
    main()
