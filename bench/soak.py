#!/usr/bin/env python3
"""Soak test of depotfs (not CI): hours-long trouble compressed into minutes.

8 worker processes (by default) list, stat and read random entries of a mounted depot and check every
answer against the source tree (names, sizes, and the bytes of every read, compared with the source
file); some of them run under a signal storm (SIGALRM every 0.3 ms, so that requests are interrupted);
a loop writes 2 to /proc/sys/vm/drop_caches (dentries and inodes only, not the page cache) so that the
kernel forgets inodes and sends FORGETs. Afterwards the mount's node table, open handles and RSS must be
back within 10 % of the baseline taken after the warm-up.

Usage (as root):  bench/soak.py [--duration SECONDS] [--workers N] [--stormed N] [--files N]
Prints one JSON object with the figures; exits 1 if a criterion fails (wrong bytes, unexpected errors,
node table / handles / RSS not back within 10 %).
"""
import argparse
import errno
import hashlib
import json
import multiprocessing as mp
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPOTFS = os.path.join(ROOT, "bin", "depotfs")



def build_tree(src, files, seed):
    rnd = random.Random(seed)
    dirs = [""]
    for i in range(max(1, files // 40)):
        parent = rnd.choice(dirs)
        d = os.path.join(parent, "d%03d" % i)
        os.makedirs(os.path.join(src, d), exist_ok=True)
        dirs.append(d)
    total = 0
    for i in range(files):
        # Mostly small files, some up to 4 MiB: many nodes, and reads that span several READs.
        size = rnd.choice([0, 1, 100, 4096, 5000, 65536, 200_000]) if rnd.random() < 0.9 else rnd.randrange(1 << 22)
        path = os.path.join(src, rnd.choice(dirs), "f%05d.bin" % i)
        with open(path, "wb") as f:
            f.write(rnd.randbytes(size))
        total += size
    return dirs, total


def snapshot(src):
    """Expected answers: names of every directory, size of every file."""
    listing, sizes = {}, {}
    for dirpath, dirnames, filenames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        rel = "" if rel == "." else rel
        listing[rel] = sorted(dirnames + filenames)
        for n in filenames:
            sizes[os.path.join(rel, n)] = os.path.getsize(os.path.join(dirpath, n))
    return listing, sizes


def worker(idx, mnt, src, listing, sizes, deadline, stormed, out):
    rnd = random.Random(1000 + idx)
    if stormed:
        signal.signal(signal.SIGALRM, lambda s, f: None)
        signal.setitimer(signal.ITIMER_REAL, 0.0003, 0.0003)
    dirs = list(listing)
    files = list(sizes)
    counts = {"list": 0, "stat": 0, "read": 0, "bytes": 0, "wrong": 0, "errors": 0}
    errors = []
    while time.time() < deadline:
        op = rnd.random()
        try:
            if op < 0.2:
                d = rnd.choice(dirs)
                got = sorted(os.listdir(os.path.join(mnt, d)))
                counts["list"] += 1
                if got != listing[d]:
                    counts["wrong"] += 1
                    errors.append("listing of %r differs" % d)
            elif op < 0.4:
                f = rnd.choice(files)
                st = os.stat(os.path.join(mnt, f))
                counts["stat"] += 1
                if st.st_size != sizes[f]:
                    counts["wrong"] += 1
                    errors.append("size of %r is %d, not %d" % (f, st.st_size, sizes[f]))
            else:
                f = rnd.choice(files)
                size = sizes[f]
                if rnd.random() < 0.5 or size == 0:
                    off, n = 0, size
                else:
                    off = rnd.randrange(size)
                    n = rnd.randrange(1, min(size - off, 1 << 20) + 1)
                flags = os.O_RDONLY | (os.O_DIRECT if rnd.random() < 0.1 and off % 4096 == 0 else 0)
                fd = os.open(os.path.join(mnt, f), flags)
                try:
                    if flags & os.O_DIRECT:
                        import mmap
                        buf = mmap.mmap(-1, max(4096, (n + 4095) // 4096 * 4096))
                        got = os.preadv(fd, [buf], off)
                        data = bytes(buf[:min(got, n)])
                    else:
                        chunks, pos = [], off
                        while pos < off + n:
                            c = os.pread(fd, off + n - pos, pos)
                            if not c:
                                break
                            chunks.append(c)
                            pos += len(c)
                        data = b"".join(chunks)
                finally:
                    os.close(fd)
                with open(os.path.join(src, f), "rb") as s:
                    s.seek(off)
                    want = s.read(n)
                counts["read"] += 1
                counts["bytes"] += len(data)
                if data != want:
                    counts["wrong"] += 1
                    errors.append("bytes of %r at %d+%d differ (got %d bytes)" % (f, off, n, len(data)))
        except OSError as e:
            counts["errors"] += 1
            if len(errors) < 20:
                errors.append("%s: %s" % (errno.errorcode.get(e.errno, e.errno), e))
    if stormed:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    out.put((idx, stormed, counts, errors[:20]))


def drop_caches_loop(deadline, every):
    n = 0
    while time.time() < deadline:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("2\n")
        n += 1
        time.sleep(every)
    return n


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def read_stats(path):
    for _ in range(50):
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            time.sleep(0.2)
    raise RuntimeError("no statistics in " + path)


def settle(stats_file, pid, seconds):
    """Forget what the kernel holds, wait for the FORGETs and two statistics rewrites, and measure."""
    for _ in range(3):
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("2\n")
        time.sleep(1)
    time.sleep(seconds)
    # The same full GC before the baseline and the final figure: RSS then measures what the server holds,
    # not how far the heap grew between two collections.
    jcmd = os.path.join(os.path.dirname(os.readlink("/proc/%d/exe" % pid)), "jcmd")  # the server's own JDK
    subprocess.run([jcmd, str(pid), "GC.run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2)
    s = read_stats(stats_file)
    return {"nodes": s["nodes"], "openFiles": s["openFiles"], "openDirectories": s["openDirectories"],
            "rssKb": rss_kb(pid)}


def run_phase(mnt, src, listing, sizes, seconds, workers, stormed):
    deadline = time.time() + seconds
    q = mp.Queue()
    procs = [mp.Process(target=worker, args=(i, mnt, src, listing, sizes, deadline, i < stormed, q))
             for i in range(workers)]
    dropper = mp.Process(target=drop_caches_loop, args=(deadline, 2.0))
    for p in procs:
        p.start()
    dropper.start()
    results = [q.get(timeout=seconds + 600) for _ in procs]
    for p in procs:
        p.join(60)
    dropper.join(60)
    hung = [p.pid for p in procs if p.is_alive()]
    for p in procs:
        if p.is_alive():
            p.kill()
    return results, hung


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=int, default=int(os.environ.get("SOAK_DURATION", 600)),
                    help="seconds of load after the warm-up (default 600, or $SOAK_DURATION)")
    ap.add_argument("--warmup", type=int, default=None, help="seconds of warm-up load (default duration/10, 10..60)")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--stormed", type=int, default=2, help="workers under a SIGALRM storm (default 2)")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench/soak.py: run as root (drop_caches)")
    warmup = args.warmup if args.warmup is not None else max(10, min(60, args.duration // 10))

    work = tempfile.mkdtemp(prefix="depotfs-soak-")
    src, depot, mnt = (os.path.join(work, x) for x in ("src", "depot", "mnt"))
    stats_file = os.path.join(work, "stats.json")
    os.makedirs(src)
    os.makedirs(mnt)
    server = None
    report = {"command": " ".join([sys.argv[0]] + sys.argv[1:]), "duration": args.duration, "warmup": warmup,
              "workers": args.workers, "stormed": args.stormed, "files": args.files,
              "loadavgBefore": open("/proc/loadavg").read().split()[:3]}
    try:
        _, total = build_tree(src, args.files, 14)
        listing, sizes = snapshot(src)
        report["bytes"] = total
        report["directories"] = len(listing)
        subprocess.run([DEPOTFS, "import", src, "--depot", depot, "--root", "soak", "-q"], check=True,
                       stdout=subprocess.DEVNULL)
        err = open(os.path.join(work, "server.err"), "w")
        server = subprocess.Popen(["env", "--default-signal=TERM,INT,HUP", DEPOTFS, "mount", "--depot", depot, mnt,
                                   "--root", "soak", "--stats", stats_file, "--stats-interval", "1"],
                                  stdout=subprocess.PIPE, stderr=err, text=True)
        ready = server.stdout.readline()
        if not ready.startswith("depotfs: mounted"):
            raise RuntimeError("mount failed: " + ready + open(os.path.join(work, "server.err")).read())

        results, hung = run_phase(mnt, src, listing, sizes, warmup, args.workers, args.stormed)
        report["baseline"] = settle(stats_file, server.pid, 3)
        t0 = time.time()
        results, hung = run_phase(mnt, src, listing, sizes, args.duration, args.workers, args.stormed)
        report["seconds"] = round(time.time() - t0, 1)
        peak = read_stats(stats_file)
        report["after"] = settle(stats_file, server.pid, 3)
        totals = {k: 0 for k in ("list", "stat", "read", "bytes", "wrong", "errors")}
        stormed_errors = 0
        samples = []
        for idx, stormed, counts, errors in results:
            for k in totals:
                totals[k] += counts[k]
            if stormed:
                stormed_errors += counts["errors"]
            samples += ["worker %d%s: %s" % (idx, " (stormed)" if stormed else "", e) for e in errors[:5]]
        report["ops"] = totals
        report["errorsInStormedWorkers"] = stormed_errors
        report["errorSamples"] = samples[:20]
        report["hungWorkers"] = hung
        report["serverReadErrors"] = peak.get("readErrors")
        report["requests"] = peak.get("totalRequests")
        report["forgets"] = peak.get("requests", {}).get("FUSE_FORGET", 0) + peak.get("requests", {}).get("FUSE_BATCH_FORGET", 0)
        report["loadavgAfter"] = open("/proc/loadavg").read().split()[:3]

        def within(a, b):
            return b <= a * 1.1 + 1 if a >= 0 and b >= 0 else False

        checks = {
            "noWrongBytes": totals["wrong"] == 0,
            "noUnexpectedErrors": totals["errors"] == 0,
            "noHungReader": not hung,
            "nodesBack": within(report["baseline"]["nodes"], report["after"]["nodes"]),
            "openHandlesBack": report["after"]["openFiles"] <= report["baseline"]["openFiles"]
                               and report["after"]["openDirectories"] <= report["baseline"]["openDirectories"],
            "rssBack": report["after"]["rssKb"] <= report["baseline"]["rssKb"] * 1.1,
            "mountAlive": server.poll() is None and os.path.ismount(mnt),
        }
        report["checks"] = checks
        server.send_signal(signal.SIGTERM)
        report["serverExit"] = server.wait(120)
        server = None
        print(json.dumps(report, indent=2))
        return 0 if all(checks.values()) and report["serverExit"] == 0 else 1
    finally:
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
        if os.path.ismount(mnt):
            subprocess.run(["umount", "-l", mnt])
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept " + work, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
