#!/usr/bin/env python3
"""How a mounted FUSE server is fed a sequential read: the READs the kernel sends, how many are in flight,
how long each takes, on which CPU the reader sent it and which server thread (on which CPU) answered it.

    bench/readtrace.py MOUNTPOINT/FILE [MIB]      # as root, the mount already up (any server, any transport)

One cold `dd bs=1M count=MIB` (default 1024) of FILE after `drop_caches`, under
`perf record -a -e fuse:fuse_request_send -e fuse:fuse_request_end`, only this mount's connection counted
(the minor of its device). "in flight" counts every request of the connection between its send and its end
event; the end event fires in the thread that delivered the reply (the /dev/fuse writer or the ring thread).
Needs perf (linux-perf) and a kernel with the fuse tracepoints (6.16+).
"""
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile

EVENT = re.compile(r"^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+fuse:(fuse_request_send|fuse_request_end):"
                   r"\s+connection (\d+) req (\d+)(.*)$")


def trace(path, mib, work):
    conn = os.minor(os.stat(path).st_dev)
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    data = os.path.join(work, "perf.data")
    dd = subprocess.run(["perf", "record", "-q", "-o", data, "-a", "-e", "fuse:fuse_request_send",
                         "-e", "fuse:fuse_request_end", "--", "dd", "if=" + path, "of=/dev/null", "bs=1M",
                         "count=%d" % mib], capture_output=True, text=True, check=True)
    script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,cpu,time,event,trace"],
                            capture_output=True, text=True, check=True).stdout
    return conn, dd.stderr.strip().splitlines()[-1], script


def report(conn, script):
    sent, lat, sizes = {}, [], collections.Counter()
    senders, servers = collections.Counter(), collections.Counter()
    inflight, peak, area, idle, first, last = 0, 0, 0.0, 0.0, None, None
    for line in script.splitlines():
        m = EVENT.match(line)
        if not m or int(m.group(6)) != conn:
            continue
        comm, cpu, t, ev, req, rest = m.group(1), int(m.group(3)), float(m.group(4)), m.group(5), int(m.group(7)), m.group(8)
        if last is not None:
            area += inflight * (t - last)
            if inflight == 0:
                idle += t - last
        first = t if first is None else first
        last = t
        if ev == "fuse_request_send":
            inflight += 1
            peak = max(peak, inflight)
            if "FUSE_READ" in rest:
                sent[req] = t
                senders["%s on CPU %d" % (comm, cpu)] += 1
        else:
            inflight = max(0, inflight - 1)
            if req in sent:
                lat.append((t - sent.pop(req)) * 1e6)
                servers["%s on CPU %d" % (re.sub(r"\d+$", "N", comm) if comm.startswith("ForkJoin") else comm, cpu)] += 1
                size = re.search(r"len (\d+)", rest)
                if size:
                    sizes[int(size.group(1)) - 16] += 1
    if not lat:
        print("no READ of connection %d was traced" % conn)
        return
    lat.sort()
    span = last - first
    print("READs: %d; reply bytes (most common): %s" % (len(lat), ", ".join(
        "%d KiB × %d" % (s // 1024, n) for s, n in sizes.most_common(3))))
    print("requests in flight: max %d, mean %.2f; none in flight %.0f%% of %.2f s" % (peak, area / span, 100 * idle / span, span))
    print("READ latency (send to end), us: p10 %.0f, median %.0f, p90 %.0f, mean %.0f" % (
        lat[len(lat) // 10], lat[len(lat) // 2], lat[len(lat) * 9 // 10], statistics.mean(lat)))
    print("sent by: " + ", ".join("%s: %d" % kv for kv in senders.most_common(4)))
    print("answered by: " + ", ".join("%s: %d" % kv for kv in servers.most_common(6)))


def main():
    if len(sys.argv) < 2 or os.geteuid() != 0:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    path, mib = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    with tempfile.TemporaryDirectory(prefix="readtrace.") as work:
        conn, dd, script = trace(path, mib, work)
    print("connection %d: %s" % (conn, dd))
    report(conn, script)


if __name__ == "__main__":
    main()
