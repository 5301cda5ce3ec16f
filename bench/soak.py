#!/usr/bin/env python3
"""Soak test of depotfs (not CI): hours-long trouble compressed into minutes.

8 worker processes (by default) list, stat and read random entries of a mounted depot and check every
answer against the source tree (names, sizes, and the bytes of every read, compared with the source
file); some of them run under a signal storm (SIGALRM every 0.3 ms, so that requests are interrupted);
a loop writes 2 to /proc/sys/vm/drop_caches (dentries and inodes only, not the page cache) so that the
kernel forgets inodes and sends FORGETs. With --s3 the depot is on an S3 server the script starts
(S3Proxy on loopback, from the local Maven repository) and depotfs mounts s3://soak/depot.

Baseline and end: the same warm-up load runs first (duration/10, 10..60 s, so that JIT compilation,
class loading and the transport's buffers are done), then the baseline is taken exactly as the final
figure is: drop_caches three times (the kernel FORGETs every node), wait, one full GC in the server
(jcmd GC.run), then the node table and open handles (from --stats) and VmRSS. After the load, the node
table, open handles and RSS must be back within 10 % of that baseline.

So that a failure explains itself, the server runs with -XX:NativeMemoryTracking=summary (--no-nmt: not),
and both snapshots carry RSS by kind of mapping (the Java heap, malloc arenas, other anonymous memory,
file mappings), the heap's committed and used size after the GC, and NMT's committed KiB per category;
"memoryGrowthKb" is the difference, end minus baseline.

Usage (as root):  bench/soak.py [--duration SECONDS] [--workers N] [--stormed N] [--files N] [--s3]
Prints one JSON object with the figures; exits 1 if a criterion fails (wrong bytes, unexpected errors, a
hung worker -- then the server's threads are saved and the work dir kept --, node table / handles / RSS
not back within 10 %).
"""
import argparse
import errno
import hashlib
import json
import multiprocessing as mp
import os
import queue
import random
import re
import shutil
import signal
import socket
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


def proc_status(pid):
    """VmRSS and its parts (RssAnon: heap, malloc, stacks; RssFile: mapped jars and libraries), in KiB, and threads."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem", "Threads"):
                out[key] = int(value.split()[0])
    return out


def rss_kb(pid):
    return proc_status(pid).get("VmRSS", -1)


def jcmd(pid, *command):
    tool = os.path.join(os.path.dirname(os.readlink("/proc/%d/exe" % pid)), "jcmd")  # the server's own JDK
    r = subprocess.run([tool, str(pid)] + list(command), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ""


HEAP_LINE = re.compile(r"total (?:reserved \d+K, committed )?(\d+)K, used (\d+)K\s*\[(0x[0-9a-f]+)(?:, 0x[0-9a-f]+)*, (0x[0-9a-f]+)\)")


def heap_info(pid):
    """The Java heap from GC.heap_info: its address range (None if not found), committed and used KiB (G1 prints
    one line for the heap, Serial and Parallel one per generation: summed, the range spanning them)."""
    lines = HEAP_LINE.findall(jcmd(pid, "GC.heap_info"))
    if not lines:
        return {"range": None}
    return {"range": (min(int(x[2], 16) for x in lines), max(int(x[3], 16) for x in lines)),
            "committedKb": sum(int(x[0]) for x in lines), "usedKb": sum(int(x[1]) for x in lines)}


ARENA = 64 << 20   # glibc's HEAP_MAX_SIZE on 64-bit: each malloc arena beyond the main one is one such aligned mapping


def smaps_rss(pid, heap):
    """Resident KiB by kind of mapping: the Java heap, malloc (the brk heap and glibc's other arenas: 64 MiB
    aligned anonymous blocks; native libraries such as the AWS CRT and jffi allocate there, outside NMT),
    other anonymous memory (what NMT tracks besides the heap: GC structures, metaspace, code cache, thread
    stacks, direct buffers), and file mappings (jars, libraries, the CDS archive)."""
    maps = []
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and not head[0].endswith(":"):
                a, b = head[0].split("-")
                maps.append({"start": int(a, 16), "end": int(b, 16), "perms": head[1],
                             "name": " ".join(head[5:]), "rss": 0})
            elif head[0] == "Rss:":
                maps[-1]["rss"] = int(head[1])
    out = {"javaHeap": 0, "malloc": 0, "otherAnon": 0, "files": 0}
    arena_end = 0
    for m in maps:
        if m["start"] % ARENA == 0 and not m["name"] and m["perms"] == "rw-p":
            # An arena's block: rw-p from the aligned start, then ---p up to start + 64 MiB.
            nxt = [x for x in maps if x["start"] == m["end"]]
            if m["end"] - m["start"] == ARENA or (nxt and not nxt[0]["name"] and nxt[0]["perms"] == "---p"
                                                  and nxt[0]["end"] - m["start"] == ARENA):
                arena_end = m["start"] + ARENA
        if heap and heap[0] <= m["start"] < heap[1]:
            out["javaHeap"] += m["rss"]
        elif m["name"] == "[heap]" or m["start"] < arena_end:
            out["malloc"] += m["rss"]
        elif m["name"].startswith("/") and "(deleted)" not in m["name"]:
            out["files"] += m["rss"]
        else:
            out["otherAnon"] += m["rss"]
    return out


NMT_CATEGORY = re.compile(r"^-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB")


def nmt_committed(pid):
    """Committed KiB per Native Memory Tracking category ({} if the server runs without NMT)."""
    out = {}
    for line in jcmd(pid, "VM.native_memory", "summary", "scale=KB").splitlines():
        m = NMT_CATEGORY.match(line)
        if m:
            out[m.group(1)] = int(m.group(3))
        elif line.startswith("Total:"):
            m = re.search(r"committed=(\d+)KB", line)
            if m:
                out["Total"] = int(m.group(1))
    return out


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
    # RSS as the server holds it before anything forces a collection, beside the figure after one (a trial
    # found an idle local mount keeping 0.75-1.5 GB for 25 MB live, which the forced GC alone hid).
    rss_before_gc = proc_status(pid).get("VmRSS", -1)
    # The same full GC before the baseline and the final figure: RSS then measures what the server holds,
    # not how far the heap grew between two collections.
    jcmd(pid, "GC.run")
    time.sleep(2)
    s = read_stats(stats_file)
    status = proc_status(pid)
    heap = heap_info(pid)
    return {"nodes": s["nodes"], "openFiles": s["openFiles"], "openDirectories": s["openDirectories"],
            "rssKb": status.get("VmRSS", -1), "rssBeforeGcKb": rss_before_gc,
            "memory": {"rssAnonKb": status.get("RssAnon"), "rssFileKb": status.get("RssFile"),
                       "threads": status.get("Threads"), "rssByMappingKb": smaps_rss(pid, heap["range"]),
                       "javaHeapCommittedKb": heap.get("committedKb"), "javaHeapUsedKb": heap.get("usedKb"),
                       "nmtCommittedKb": nmt_committed(pid)}}


def memory_growth(before, after):
    """What grew between the baseline and the end: RSS, its anonymous and file-backed parts, NMT categories."""
    out = {"rss": after["rssKb"] - before["rssKb"]}
    b, a = before["memory"], after["memory"]
    for k in ("rssAnonKb", "rssFileKb"):
        if a.get(k) is not None and b.get(k) is not None:
            out[k[:-2]] = a[k] - b[k]
    out["rssByMapping"] = {k: a["rssByMappingKb"][k] - b["rssByMappingKb"][k] for k in a["rssByMappingKb"]}
    nb, na = b["nmtCommittedKb"], a["nmtCommittedKb"]
    out["nmt"] = {k: na.get(k, 0) - nb.get(k, 0) for k in sorted(set(na) | set(nb)) if na.get(k, 0) != nb.get(k, 0)}
    return out


GRACE = 120


def wchan(pid):
    try:
        with open("/proc/%d/wchan" % pid) as f:
            return f.read()
    except OSError:
        return None


def kernel_stack(pid):
    try:
        with open("/proc/%d/stack" % pid) as f:
            return f.read().splitlines()[:12]
    except OSError:
        return None


def run_phase(mnt, src, listing, sizes, seconds, workers, stormed, on_hang=None):
    deadline = time.time() + seconds
    q = mp.Queue()
    procs = [mp.Process(target=worker, args=(i, mnt, src, listing, sizes, deadline, i < stormed, q))
             for i in range(workers)]
    dropper = mp.Process(target=drop_caches_loop, args=(deadline, 2.0))
    for p in procs:
        p.start()
    dropper.start()
    # Every worker reports once its deadline passed and its last operation returned; one that has not
    # reported GRACE seconds after the deadline is hung (stuck in a system call on the mount) or died.
    results, deadline_grace = [], deadline + GRACE
    while len(results) < len(procs) and time.time() < deadline_grace:
        try:
            results.append(q.get(timeout=1))
        except queue.Empty:
            if all(not p.is_alive() for p in procs) and q.empty():
                break
    reported = {r[0] for r in results}
    hung = []
    for i, p in enumerate(procs):
        if i not in reported:
            hung.append({"worker": i, "pid": p.pid, "alive": p.is_alive(), "exitcode": p.exitcode,
                         "wchan": wchan(p.pid), "stack": kernel_stack(p.pid)})
    if hung and on_hang is not None:
        on_hang(hung)
    for p in procs:
        p.join(1 if hung else 60)
        if p.is_alive():
            p.kill()
    dropper.join(60)
    return results, hung


S3_IDENTITY, S3_CREDENTIAL, S3_BUCKET = "depotfs-soak-key", "depotfs-soak-secret", "soak"


class S3Proxy:
    """A real S3 server for --s3: S3Proxy (org.gaul:s3proxy, depotfs's test dependency, from the local Maven
    repository) with its filesystem backend and signed (v2 or v4) requests, on a free loopback port; the
    same server the S3 kernel tests start (depotfs/src/test/.../S3ProxyServer.java)."""

    def __init__(self, work, java):
        self.dir = os.path.join(work, "s3proxy")
        data = os.path.join(self.dir, "data")
        os.makedirs(os.path.join(data, S3_BUCKET))   # the filesystem backend's buckets are directories
        cp_file = os.path.join(self.dir, "classpath")
        subprocess.run(["mvn", "-B", "-q", "-o", "-f", os.path.join(ROOT, "depotfs", "pom.xml"),
                        "dependency:build-classpath", "-Dmdep.includeScope=test", "-Dmdep.outputFile=" + cp_file],
                       check=True, stdout=subprocess.DEVNULL)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        props = os.path.join(self.dir, "s3proxy.properties")
        with open(props, "w") as f:
            f.write("\n".join(["s3proxy.endpoint=http://127.0.0.1:%d" % self.port,
                               "s3proxy.authorization=aws-v2-or-v4", "s3proxy.identity=" + S3_IDENTITY,
                               "s3proxy.credential=" + S3_CREDENTIAL, "jclouds.provider=filesystem",
                               "jclouds.filesystem.basedir=" + data, ""]))
        self.log = open(os.path.join(self.dir, "s3proxy.log"), "w")
        self.process = subprocess.Popen([java, "-Xmx512m", "-cp", open(cp_file).read().strip(),
                                         "org.gaul.s3proxy.Main", "--properties", props],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("S3Proxy exited with %d: see %s" % (self.process.returncode, self.log.name))
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("S3Proxy did not listen within 60 s")

    def depot_args(self):
        return ["--depot", "s3://%s/depot" % S3_BUCKET, "--endpoint", "http://127.0.0.1:%d" % self.port]

    @staticmethod
    def environment(env):
        env.update(AWS_ACCESS_KEY_ID=S3_IDENTITY, AWS_SECRET_ACCESS_KEY=S3_CREDENTIAL, AWS_REGION="us-east-1")
        return env

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self.log.close()


def find_java():
    """A JDK 21+ as bin/depotfs picks it (bin/lib/common.sh)."""
    out = subprocess.run(["bash", "-c", "source %s/bin/lib/common.sh && purefuse_find_java 21" % ROOT],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=int, default=int(os.environ.get("SOAK_DURATION", 600)),
                    help="seconds of load after the warm-up (default 600, or $SOAK_DURATION)")
    ap.add_argument("--warmup", type=int, default=None, help="seconds of warm-up load (default duration/10, 10..60)")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--stormed", type=int, default=2, help="workers under a SIGALRM storm (default 2)")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    ap.add_argument("--idle", type=int, default=0,
                    help="after the load, also record RSS over this many idle seconds, before the forced GC "
                         "(what a user sees without jcmd)")
    ap.add_argument("--s3", action="store_true",
                    help="serve the depot from S3: an S3Proxy started by the script on loopback "
                         "(depotfs mount --depot s3://soak/depot --endpoint http://127.0.0.1:PORT)")
    ap.add_argument("--no-nmt", dest="nmt", action="store_false",
                    help="run the server without -XX:NativeMemoryTracking=summary (no per-category breakdown)")
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
    s3 = None
    keep = [False]   # set when something is worth looking at afterwards (a hang)
    report = {"command": " ".join([sys.argv[0]] + sys.argv[1:]), "duration": args.duration, "warmup": warmup,
              "workers": args.workers, "stormed": args.stormed, "files": args.files,
              "loadavgBefore": open("/proc/loadavg").read().split()[:3]}
    try:
        _, total = build_tree(src, args.files, 14)
        listing, sizes = snapshot(src)
        report["bytes"] = total
        report["directories"] = len(listing)
        env = dict(os.environ)
        depot_args = ["--depot", depot]
        if args.s3:
            s3 = S3Proxy(work, find_java())
            depot_args = s3.depot_args()
            S3Proxy.environment(env)
        report["depot"] = " ".join(depot_args[1:])
        t = time.time()
        subprocess.run([DEPOTFS, "import", src] + depot_args + ["--root", "soak", "-q"], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        report["importSeconds"] = round(time.time() - t, 1)
        err = open(os.path.join(work, "server.err"), "w")
        if args.nmt:
            env["DEPOTFS_JAVA_OPTS"] = (env.get("DEPOTFS_JAVA_OPTS", "") + " -XX:NativeMemoryTracking=summary").strip()
        report["javaOpts"] = env.get("DEPOTFS_JAVA_OPTS", "")
        server = subprocess.Popen(["env", "--default-signal=TERM,INT,HUP", DEPOTFS, "mount"] + depot_args + [mnt,
                                   "--root", "soak", "--stats", stats_file, "--stats-interval", "1"],
                                  stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        ready = server.stdout.readline()
        if not ready.startswith("depotfs: mounted"):
            raise RuntimeError("mount failed: " + ready + open(os.path.join(work, "server.err")).read())

        def on_hang(phase):
            def dump(hung):
                path = os.path.join(work, "threads-%s.txt" % phase)
                with open(path, "w") as f:
                    f.write(jcmd(server.pid, "Thread.print"))
                keep[0] = True
                print("soak: %d worker(s) hung in the %s; server threads in %s" % (len(hung), phase, path),
                      file=sys.stderr)
            return dump

        results, hung = run_phase(mnt, src, listing, sizes, warmup, args.workers, args.stormed, on_hang("warm-up"))
        if hung:
            report["hungWorkers"] = hung
            report["failedIn"] = "warm-up"
            print(json.dumps(report, indent=2))
            return 1
        report["baseline"] = settle(stats_file, server.pid, 3)
        t0 = time.time()
        results, hung = run_phase(mnt, src, listing, sizes, args.duration, args.workers, args.stormed, on_hang("load"))
        report["seconds"] = round(time.time() - t0, 1)
        peak = read_stats(stats_file)
        report["rssPeakKb"] = proc_status(server.pid).get("VmHWM")
        if args.idle:
            # What a user sees without jcmd: RSS right after the load and after IDLE seconds of nothing.
            report["idle"] = {"seconds": args.idle, "rssAtStartKb": rss_kb(server.pid)}
            time.sleep(args.idle)
            report["idle"]["rssAtEndKb"] = rss_kb(server.pid)
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
        report["memoryGrowthKb"] = memory_growth(report["baseline"], report["after"])

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
        if s3 is not None:
            s3.close()
        if not args.keep and not keep[0]:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept " + work, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
