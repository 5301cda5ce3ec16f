#!/usr/bin/env python3
"""One reader against four readers of one file through an existing FUSE mount, cold (as bench/run.sh's seq1
and seq4: dd bs=1M, the four on the file's quarters), in pairs: GB/s, how busy the machine's CPUs were (all
of them, /proc/stat) and CPU seconds per GiB of the server (its PID) and of the whole machine. It shows
whether four readers are bound by the CPUs: then their throughput is the CPUs over the machine's cost per
GiB, whatever the server. As root (it drops the page cache before each read).

usage: bench/readers-cpu.py MOUNT/FILE SERVER_PID PAIRS"""
import os, subprocess, sys, time
path, pid, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
GiB = 1 << 30
size = os.path.getsize(path)
hz = os.sysconf("SC_CLK_TCK")
CPUS = os.cpu_count() or 1

def stat():
    f = open("/proc/stat").readline().split()[1:]
    v = list(map(int, f))
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)

def proc_cpu(p):
    f = open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / hz

def once(readers):
    subprocess.run(["sync"]); open("/proc/sys/vm/drop_caches", "w").write("3\n")
    mib = size // (1 << 20)
    b0, t0 = stat(); s0 = proc_cpu(pid); w0 = time.perf_counter()
    ps = [subprocess.Popen(["dd", "if=" + path, "of=/dev/null", "bs=1M", "skip=%d" % (i * mib // readers),
                            "count=%d" % (mib // readers)], stderr=subprocess.DEVNULL) for i in range(readers)]
    for p in ps:
        p.wait()
    dt = time.perf_counter() - w0
    b1, t1 = stat(); s1 = proc_cpu(pid)
    busy = 100.0 * CPUS * (b1 - b0) / (t1 - t0)
    return size / dt / 1e9, busy, (s1 - s0) / (size / GiB), ((b1 - b0) / hz) / (size / GiB)

for r in range(runs):
    for readers in (1, 4):
        gbs, busy, srv, tot = once(readers)
        print("readers %d: %.2f GB/s, CPUs busy %.0f%% of %d%%, server %.3f CPU s/GiB, whole machine %.3f CPU s/GiB"
              % (readers, gbs, busy, 100 * CPUS, srv, tot), flush=True)
