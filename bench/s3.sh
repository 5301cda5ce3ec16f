#!/usr/bin/env bash
# S3 bench: depotfs-s3, s3fs-fuse, rclone mount and the raw SDK limit on one Ceph radosgw, at loopback and
# at a netem RTT (network namespaces + veth created here). As root; prepends its table to bench/RESULTS.md.
#   bench/s3.sh                                      1 GiB object, 100,000-entry tree, loopback and 10 ms
#   BENCH_S3_TREE=0 BENCH_S3_RUNS=1 bench/s3.sh      quick check (no tree)
# Knobs in bench/README.md. Everything it creates (mounts, namespaces, veths, Ceph daemons) is removed on exit.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=setup.sh
source "$ROOT/bench/setup.sh"
bench_need_root bench/s3.sh
bench_apt iproute2 ceph-mon ceph-osd radosgw ceph-common s3fs rclone libfuse2 || true
for t in ceph-mon ceph-osd radosgw radosgw-admin rclone s3fs nsenter tc; do
  command -v "$t" >/dev/null || { echo "bench/s3.sh: $t is required" >&2; exit 2; }
done
bench_build

BENCH_WORK=$(mktemp -d /tmp/purefuse-s3bench.XXXXXX)
export BENCH_WORK
cleanup() {
  set +e   # best effort: every step runs even if one fails
  if [ -f "$BENCH_WORK/mounts" ]; then
    tac "$BENCH_WORK/mounts" | while read -r m; do
      [ -n "$m" ] && mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
  fi
  if [ -f "$BENCH_WORK/pids" ]; then
    while read -r p; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done < "$BENCH_WORK/pids"
  fi
  [ -d "$BENCH_WORK/ceph" ] && "$ROOT/bench/s3/ceph.sh" stop "$BENCH_WORK/ceph"
  if [ -f "$BENCH_WORK/netns" ]; then
    while read -r ns; do [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null || true; done < "$BENCH_WORK/netns"
  fi
  if ! grep -q " $BENCH_WORK" /proc/self/mountinfo; then rm -rf "$BENCH_WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
python3 "$ROOT/bench/s3bench.py" "$@"
