#!/usr/bin/env python3
"""Where a READ's time goes: perf (kernel + JIT code, via the JVM's perf map) on each server while it
serves one cold `dd bs=1M` of the bench object, then a per-READ CPU breakdown (bench/perf-breakdown.py).
Run it through bench/profile.sh (as root).  Reuses bench.py's fixture and servers, so the servers run
exactly as in bench/run.sh.

Per server: mount, one untraced cold read (JIT warm-up; PROFILE_WARMUP=0 skips it), then the traced cold
read: `perf record -e cpu-clock -g -p SERVER` for the server's threads, `perf stat -e fuse:fuse_request_send`
filtered on this connection and opcode READ for the number of READs, the reader's (dd's) own CPU from
wait4(); unmount (the JVM writes /tmp/perf-PID.map at exit), `perf script`, breakdown.
"""
import os
import signal
import subprocess
import sys
import time

os.environ.setdefault("BENCH_TREE", "100")          # the profile needs the object, not the tree
os.environ.setdefault("BENCH_TREE_DIRS", "1")
os.environ.setdefault("BENCH_SIZE_GB", "2")             # enough READs (16,384 at 128 KiB) for stable shares
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

SERVERS = bench.env_list("PROFILE_SERVERS", ["rawfuse-f", "jnr-fuse", "mirror", "depotfs"])
RA = bench.env_int("PROFILE_RA", 128)
FREQ = bench.env_int("PROFILE_FREQ", 1999)
WARMUP = os.environ.get("PROFILE_WARMUP", "1") != "0"
TOP = bench.env_int("PROFILE_TOP", 12)
JVM_PERF = "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer"
HERE = os.path.dirname(os.path.abspath(__file__))


def make(ctx, fx, name):
    base, transport = bench.split_transport(name)
    if base == "rawfuse-f":
        return bench.RawFuse(ctx, fx, False)
    if base == "jnr-fuse":
        return bench.JnrFuse(ctx, fx)
    if base == "mirror":
        return bench.Mirror(ctx, fx, transport)
    if base == "hello":
        return bench.Hello(ctx, fx, transport)
    if base == "depotfs":
        return bench.Depotfs(ctx, fx, False, transport=transport)
    raise SystemExit("unknown server %s" % name)


def java_pid(proc):
    """the JVM's pid: bin/depotfs and bin/fuse-example exec java, so it is the spawned pid itself"""
    return proc.pid


def profile_one(ctx, s, work):
    s.start(RA, bench.MAX_BG, bench.CONG)
    try:
        path = s.data_path()
        if WARMUP:
            bench.t_seq(path, 1)
        _, minor = bench.dev_of(s.mnt)
        pid = java_pid(s.proc)
        data = os.path.join(work, "%s.perf.data" % s.name.replace("@", "-"))
        cnt = os.path.join(work, "%s.reads.txt" % s.name.replace("@", "-"))
        bench.cold(bench.PREFAULT_GB)
        stat = subprocess.Popen(["perf", "stat", "-a", "-x,", "-o", cnt, "-e", "fuse:fuse_request_send",
                                 "--filter", "opcode == 15 && connection == %d" % minor],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        rec = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(FREQ), "-g", "-p", str(pid),
                                "-o", data], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
        ctx.add_proc(stat)
        ctx.add_proc(rec)
        time.sleep(1.0)   # perf attaches
        cpu0 = bench.proc_tree_cpu(s.proc.pid)
        t0 = time.perf_counter()
        dd = subprocess.Popen(["dd", "if=" + path, "of=/dev/null", "bs=1M"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        _, status, ru = os.wait4(dd.pid, 0)
        dd.returncode = os.waitstatus_to_exitcode(status)
        dt = time.perf_counter() - t0
        cpu1 = bench.proc_tree_cpu(s.proc.pid)
        err = dd.stderr.read()
        got = int(err.split(" bytes", 1)[0].strip().splitlines()[-1]) if " bytes" in err else 0
        for p in (rec, stat):
            p.send_signal(signal.SIGINT)
        for p in (rec, stat):
            p.wait(timeout=60)
    finally:
        s.stop()   # the JVM writes its perf map at exit
    reads = 0
    with open(cnt) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) > 2 and "fuse_request_send" in line and parts[0].strip().isdigit():
                reads = int(parts[0])
    time.sleep(0.5)
    script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,period,ip,sym,dso"],
                            capture_output=True, text=True)
    bd = subprocess.run([sys.executable, os.path.join(HERE, "perf-breakdown.py"), "--reads", str(reads),
                         "--bytes", str(got), "--label", bench.label(s.name), "--top", str(TOP)],
                        input=script.stdout, capture_output=True, text=True, check=True)
    head = ("**%s**: %.2f GB/s, %d READs (%.0f KiB each), server CPU %.2f s (%.2f s/GiB); the reader (dd): "
            "%.2f s system, %.2f s user (%.1f µs system per READ)\n" % (
                bench.label(s.name), got / dt / 1e9, reads, got / max(reads, 1) / 1024, cpu1 - cpu0,
                (cpu1 - cpu0) / (got / bench.GiB), ru.ru_stime, ru.ru_utime, ru.ru_stime * 1e6 / max(reads, 1)))
    try:
        os.unlink(data)
    except OSError:
        pass
    return head + "\n" + bd.stdout


def main():
    if os.geteuid() != 0:
        raise SystemExit("profile must run as root")
    os.environ["JAVA_TOOL_OPTIONS"] = (os.environ.get("JAVA_TOOL_OPTIONS", "") + " " + JVM_PERF).strip()
    work = os.environ["BENCH_WORK"]
    for sub in ("mnt", "logs"):
        os.makedirs(os.path.join(work, sub), exist_ok=True)
    ctx = bench.CTX = bench.Ctx(work)
    load0 = bench.loadavg()
    out = []
    try:
        bench.build_natives(ctx)
        bench.ensure_fusectl(ctx)
        fx = bench.Fixture(ctx)
        ctx.fx = fx
        fx.make()
        if any(n.startswith("depotfs") for n in SERVERS):
            fx.import_depot()
        servers = [make(ctx, fx, n) for n in SERVERS]
        bench.pin_dev(servers)
        if any("@io-uring" in n for n in SERVERS):
            bench.enable_uring(ctx)
        for s in servers:
            if not s.available():
                bench.log("%s not available: skipped" % s.name)
                continue
            bench.log("profiling %s" % s.name)
            try:
                out.append(profile_one(ctx, s, work))
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                logs = sorted(os.listdir(os.path.join(work, "logs")))
                tail = ""
                for name in logs[::-1]:
                    if name.startswith(s.name + "."):
                        with open(os.path.join(work, "logs", name), errors="replace") as f:
                            tail = " | ".join(line.strip() for line in f.readlines()[-3:])
                        break
                bench.log("%s failed: %s; server log: %s" % (s.name, e, tail))
                out.append("**%s**: not profiled: %s (server log: %s)\n" % (bench.label(s.name), e, tail[:400]))
        mach = bench.machine()
        text = ("## Profile %s: where a READ's time goes (`bench/profile.sh`)\n\n" % mach["date"] +
                ((os.environ.get("BENCH_NOTE") + "\n\n") if os.environ.get("BENCH_NOTE") else "") +
                "Machine: nproc %s, %s, kernel %s, %s. Commit: %s. Load average at start %s, at end %s. "
                "One cold `dd bs=1M` of the %d GiB object per server at read_ahead_kb %d (after %s), "
                "`perf record -e cpu-clock -F %d -g` of the server's threads; the JVMs ran with `%s`. "
                "CPU time only (waiting is not in it); µs per READ = bucket CPU / READ requests counted "
                "by the `fuse:fuse_request_send` tracepoint of this connection.\n\n" % (
                    mach["nproc"], mach["cpu"], mach["kernel"], mach["jdk"], mach["commit"], load0,
                    bench.loadavg(), bench.SIZE_GB, RA, "one untraced warm-up read" if WARMUP else "no warm-up",
                    FREQ, JVM_PERF) + "\n".join(out))
        print(text)
        if os.environ.get("PROFILE_WRITE", "1") != "0":
            bench.write_results(text)
            bench.log("written to %s" % bench.RESULTS)
    finally:
        ctx.cleanup()


if __name__ == "__main__":
    main()
