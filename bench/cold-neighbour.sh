#!/usr/bin/env bash
# A cold READ must not hold up its neighbours: one process streams a file whose pages are not in the page
# cache from a slow disk, another reads cached bytes of the same mount at random on the same CPU. Measures the
# second one's IOPS and latency alone and beside the first, per server (rawfuse -f, depotfs on /dev/fuse and on
# io_uring), with the servers' disk reads throttled by a blkio cgroup (a slow device on any machine).
#   bench/cold-neighbour.sh          as root, on an otherwise idle machine (~3 min); table on stdout and
#                                    prepended to bench/RESULTS.md
# Knobs: BENCH_COLD_DIR (a directory on a disk filesystem, not tmpfs; default /var/tmp/purefuse-cold, kept
# between runs), BENCH_COLD_IOPS and BENCH_COLD_MBPS (the servers' disk read limits, default 200 requests/s and
# 50 MB/s: one limit alone lets large readahead requests or many small ones through), BENCH_RUNS (default 3),
# BENCH_COLD_SERVERS (default "rawfuse-f depotfs depotfs@io-uring"), BENCH_RESULTS (default bench/RESULTS.md),
# BENCH_COLD_RA (read_ahead_kb of every server's mount, default 1024: depotfs's default; rawfuse gets it through
# the mount's bdi, as in bench/run.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=setup.sh
source "$ROOT/bench/setup.sh"
bench_need_root bench/cold-neighbour.sh
bench_apt fio || true
for t in fio gcc python3 findmnt taskset; do
  command -v "$t" >/dev/null || { echo "bench/cold-neighbour.sh: $t is required" >&2; exit 2; }
done
bench_work purefuse-cold

DIR=${BENCH_COLD_DIR:-/var/tmp/purefuse-cold}
LIMIT=${BENCH_COLD_IOPS:-200}
MBPS=${BENCH_COLD_MBPS:-50}
RUNS=${BENCH_RUNS:-3}
SERVERS=${BENCH_COLD_SERVERS:-rawfuse-f depotfs depotfs@io-uring}
RA=${BENCH_COLD_RA:-1024}
RESULTS=${BENCH_RESULTS:-$ROOT/bench/RESULTS.md}
mkdir -p "$DIR"
fstype=$(findmnt -no FSTYPE -T "$DIR" | head -1)
case "$fstype" in tmpfs|ramfs) echo "bench/cold-neighbour.sh: $DIR is on $fstype; set BENCH_COLD_DIR to a disk" >&2; exit 2;; esac

# The whole disk under DIR (blk-throttle takes whole disks, not partitions).
dev=$(findmnt -no MAJ:MIN -T "$DIR" | head -1 | tr -d ' ')
[ -e "/sys/dev/block/$dev/partition" ] && dev=$(cat "/sys/dev/block/$dev/../dev")

# The data: a 2 GiB file of random bytes, and a depot holding it (kept for the next run).
if [ ! -f "$DIR/src/data.bin" ]; then
  mkdir -p "$DIR/src"
  head -c 2G /dev/urandom > "$DIR/src/data.bin.tmp" && mv "$DIR/src/data.bin.tmp" "$DIR/src/data.bin"
fi
[ -d "$DIR/depot" ] || "$ROOT/bin/depotfs" import -q --depot "$DIR/depot" "$DIR/src" >/dev/null
obj=$(ls -S "$DIR"/depot/objects/*/* | head -1)
mkdir -p "$BENCH_WORK/bin" "$BENCH_WORK/mnt"
src=${BENCH_RAWFUSE_DIR:-$ROOT/bench/native}
gcc -O2 -Wall -pthread -o "$BENCH_WORK/bin/rawfuse" "$src/rawfuse.c"

# The throttle: a cgroup whose tasks read at most LIMIT requests/s from the disk (v1 blkio, or v2 io.max).
if [ -d /sys/fs/cgroup/blkio ]; then
  CG=/sys/fs/cgroup/blkio/purefuse-cold; mkdir -p "$CG"
  echo "$dev $LIMIT" > "$CG/blkio.throttle.read_iops_device"
  echo "$dev $((MBPS * 1000000))" > "$CG/blkio.throttle.read_bps_device"
  throttle="cgroup v1 blkio.throttle.read_iops_device $dev $LIMIT, read_bps_device $((MBPS * 1000000))"
  CG_ROOT=/sys/fs/cgroup/blkio
elif grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  echo +io > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
  CG=/sys/fs/cgroup/purefuse-cold; mkdir -p "$CG"
  echo "$dev riops=$LIMIT rbps=$((MBPS * 1000000))" > "$CG/io.max"
  throttle="cgroup v2 io.max $dev riops=$LIMIT rbps=$((MBPS * 1000000))"
  CG_ROOT=/sys/fs/cgroup
else
  echo "bench/cold-neighbour.sh: no blkio (v1) or io (v2) cgroup controller" >&2; exit 2
fi
cleanup_cgroup() { for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG_ROOT/cgroup.procs" 2>/dev/null || true; done; rmdir "$CG" 2>/dev/null || true; }
trap 'cleanup_cgroup; _bench_cleanup' EXIT

uring_old=$(cat /sys/module/fuse/parameters/enable_uring 2>/dev/null || echo "")
if [[ " $SERVERS " == *"@io-uring"* ]] && [ -n "$uring_old" ]; then
  echo "/sys/module/fuse/parameters/enable_uring $uring_old" >> "$BENCH_WORK/restore"
  echo Y > /sys/module/fuse/parameters/enable_uring
fi

fio_b() {  # random 4 KiB O_DIRECT reads of the first 64 MiB (cached), bound to CPU 0, 4 s; prints json
  taskset -c 0 fio --name=b --filename="$1" --readonly --rw=randread --bs=4k --direct=1 --ioengine=psync \
    --offset=0 --size=64M --runtime=4 --time_based --norandommap --randrepeat=0 --invalidate=0 --output-format=json 2>/dev/null
}
fio_fmt() { python3 -c 'import json,sys; d=sys.stdin.read(); j=json.loads(d[d.index("{"):])["jobs"][0]["read"]; p=j["clat_ns"]["percentile"]; print("%d %.0f %.0f" % (j["iops"], p["50.000000"]/1000, p["99.000000"]/1000))'; }

one_run() {  # SERVER -> "iops_alone p50 p99 iops_beside p50 p99 A_MBps"
  local s=$1 mnt="$BENCH_WORK/mnt" pid f file
  case $s in
    rawfuse-f) "$BENCH_WORK/bin/rawfuse" -F -t 2 -b 64 -p 256 -f "$obj" "$mnt" & pid=$!; file=$(basename "$obj");;
    depotfs*) local tr=dev; [ "$s" = depotfs@io-uring ] && tr=io-uring
       "$ROOT/bin/depotfs" mount --depot "$DIR/depot" "$mnt" --transport "$tr" --readahead-kb "$RA" \
         >"$BENCH_WORK/$s.log" 2>&1 & pid=$!; file=src/data.bin;;
  esac
  echo "$pid" >> "$BENCH_WORK/pids"
  for _ in $(seq 600); do mountpoint -q "$mnt" && break; sleep 0.05; done
  mountpoint -q "$mnt" || { echo "bench/cold-neighbour.sh: $s did not mount" >&2; kill "$pid"; return 1; }
  # the same read_ahead_kb for every server (depotfs sets its own after INIT; rawfuse keeps the kernel's 128 unless
  # told): wait until the mount's bdi shows it
  local bdi; bdi="/sys/class/bdi/$(mountpoint -d "$mnt")/read_ahead_kb"
  [ "$s" = rawfuse-f ] && echo "$RA" > "$bdi"
  for _ in $(seq 100); do [ "$(cat "$bdi")" = "$RA" ] && break; sleep 0.05; done
  [ "$(cat "$bdi")" = "$RA" ] || echo "bench/cold-neighbour.sh: $s: read_ahead_kb is $(cat "$bdi"), not $RA" >&2
  for p in $pid $(pgrep -P "$pid" || true); do echo "$p" > "$CG/cgroup.procs"; done
  f="$mnt/$file"
  sync; echo 3 > /proc/sys/vm/drop_caches
  dd if="$obj" of=/dev/null bs=1M count=64 2>/dev/null   # B's bytes in the page cache (read outside the cgroup)
  local alone beside a
  alone=$(fio_b "$f" | fio_fmt)
  taskset -c 0 dd if="$f" of=/dev/null bs=1M skip=256 2> "$BENCH_WORK/a.txt" & a=$!
  sleep 0.5
  beside=$(fio_b "$f" | fio_fmt)
  kill -INT "$a" 2>/dev/null; wait "$a" 2>/dev/null || true
  local mbps; mbps=$(python3 -c 'import re,sys; m=re.findall(r"(\d+) bytes.*copied, ([0-9.]+) s", open(sys.argv[1]).read()); print("%.0f" % (int(m[-1][0])/float(m[-1][1])/1e6) if m else "n/a")' "$BENCH_WORK/a.txt")
  umount "$mnt" 2>/dev/null || umount -l "$mnt"; wait "$pid" 2>/dev/null || true
  echo "$alone $beside $mbps"
}

declare -A ROWS
for r in $(seq "$RUNS"); do
  for s in $SERVERS; do
    echo "bench/cold-neighbour.sh: run $r, $s" >&2
    ROWS[$s]+="$(one_run "$s");"
  done
done

section=$(SERVERS="$SERVERS" RA="$RA" THROTTLE="$throttle" FSTYPE="$fstype" DIR="$DIR" RUNS="$RUNS" python3 - "$(for s in $SERVERS; do echo "$s=${ROWS[$s]}"; done)" <<'EOF'
import os, statistics, subprocess, sys, datetime
rows = dict(line.split("=", 1) for line in sys.argv[1].splitlines() if "=" in line)
names = {"rawfuse-f": "rawfuse -f (C, pread+writev, 2 threads)", "depotfs": "depotfs /dev/fuse",
         "depotfs@io-uring": "depotfs io_uring"}
def med(vals):
    vals = [float(v) for v in vals if v not in ("n/a", "")]
    return statistics.median(vals) if vals else float("nan")
out = lambda c: subprocess.run(c, capture_output=True, text=True, shell=True).stdout.strip()
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
lines = ["## Cold-neighbour run %s" % now, "",
         "`bench/cold-neighbour.sh`: process A streams a cold 2 GiB file (`dd bs=1M`, its pages dropped), process B reads"
         " 4 KiB at random from the first 64 MiB of the same file, cached, with O_DIRECT (fio psync), both bound to CPU 0;"
         " B alone for 4 s, then beside A. The servers' disk reads are throttled (%s), a slow device. read_ahead_kb %s"
         " on every mount. Medians of %s."
         % (os.environ["THROTTLE"], os.environ["RA"], os.environ["RUNS"]), "",
         "Machine: nproc %s, %s, kernel %s; data on %s (%s). Commit: %s." % (
             out("nproc"), out("lscpu | sed -n 's/^Model name: *//p'"), out("uname -r"), os.environ["DIR"],
             os.environ["FSTYPE"], out("git log -1 --format='%h %s'")), "",
         "| server | B alone IOPS | B alone p99 us | B beside A IOPS | B beside A p50 us | B beside A p99 us | A MB/s | raw (IOPS alone/beside) |",
         "|---|---|---|---|---|---|---|---|"]
for s in os.environ["SERVERS"].split():
    runs = [r.split() for r in rows.get(s, "").split(";") if r.strip()]
    if not runs:
        continue
    col = lambda i: med([r[i] for r in runs if len(r) > i])
    raw = ", ".join("%s/%s" % (r[0], r[3]) for r in runs)
    lines.append("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s |" % (names.get(s, s), col(0), col(2), col(3), col(4), col(5), col(6), raw))
print("\n".join(lines))
EOF
)
echo "$section"
python3 - "$RESULTS" "$section" <<'EOF'
import os, sys
path, section = sys.argv[1], sys.argv[2]
marker = "<!-- runs below, newest first -->\n"
text = open(path).read() if os.path.exists(path) else marker
head, old = text.split(marker, 1) if marker in text else (text, "")
open(path, "w").write(head + marker + "\n" + section.rstrip() + "\n\n" + old.lstrip())
EOF
