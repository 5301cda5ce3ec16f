#!/usr/bin/env bash
# S3 bench: depotfs-s3, s3fs-fuse, rclone mount and the raw SDK limit on one Ceph radosgw (or Adobe S3Mock:
# BENCH_S3_SERVER=s3mock), at loopback and at a netem RTT (network namespaces + veth created here). As root;
# prepends its table to bench/RESULTS.md.
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
need="rclone s3fs nsenter tc"
[ "${BENCH_S3_SERVER:-radosgw}" = radosgw ] && need="ceph-mon ceph-osd radosgw radosgw-admin $need"
for t in $need; do
  command -v "$t" >/dev/null || { echo "bench/s3.sh: $t is required" >&2; exit 2; }
done
bench_build

bench_work purefuse-s3bench
python3 "$ROOT/bench/s3bench.py" "$@"
