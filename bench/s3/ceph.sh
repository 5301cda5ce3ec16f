#!/usr/bin/env bash
# A one-node Ceph cluster for the S3 bench, as Ceph's vstart.sh sets one up: one monitor, one memstore OSD
# (data in RAM), one radosgw (beast) and an S3 user; Debian's ceph 16.2 (ceph-mon, ceph-osd, radosgw).
#   bench/s3/ceph.sh start DIR PORT [MEMSTORE_GIB [BIND]]   prints "ACCESS_KEY SECRET" when S3 answers
#   bench/s3/ceph.sh stop DIR                        stops the daemons started in DIR (by pid), removes DIR
# Everything lives in DIR (config, mon store, logs, pids). The monitor listens on 127.0.0.1:PORT+1,
# radosgw on BIND:PORT (default 127.0.0.1; 0.0.0.0 only inside a network namespace of the bench's own,
# which bench/s3bench.py uses to put the server behind a veth with netem).
set -euo pipefail
cmd=${1:?start|stop}; dir=${2:?DIR}

stop() {
  [ -f "$dir/pids" ] || return 0
  tac "$dir/pids" | while read -r p; do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=0; while read -r p; do kill -0 "$p" 2>/dev/null && alive=1; done < "$dir/pids"
    [ $alive = 0 ] && break; sleep 0.2
  done
  while read -r p; do kill -9 "$p" 2>/dev/null || true; done < "$dir/pids"
  rm -rf "$dir"
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
port=${3:?PORT}; mem_gib=${4:-3}; bind=${5:-127.0.0.1}
mkdir -p "$dir"/{run,log,crash,mon,osd0}
fsid=$(cat /proc/sys/kernel/random/uuid)
conf="$dir/ceph.conf"
cat > "$conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$((port + 1))
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
ms mon client mode = crc
ms mon service mode = crc
ms mon cluster mode = crc
ms client mode = crc
ms service mode = crc
ms cluster mode = crc
ms bind ipv6 = false
# a bench server: no CRC of data between the daemons (crc of headers stays), no per-request logging
ms crc data = false
debug ms = 0
debug rgw = 0
debug osd = 0
debug monc = 0
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = $((mem_gib << 30))
run dir = $dir/run
crash dir = $dir/crash
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
mon data = $dir/mon
osd data = $dir/osd\$id
mon data avail warn = 1
mon data avail crit = 0
[client.rgw]
rgw frontends = beast endpoint=$bind:$port
rgw thread pool size = 64
rgw enable ops log = false
rgw enable usage log = false
CONF
trap 'stop' ERR
ceph-mon -c "$conf" --mkfs -i a --fsid "$fsid" >"$dir/log/mkfs.out" 2>&1
ceph-mon -c "$conf" -i a -f >"$dir/log/mon.out" 2>&1 & echo $! >> "$dir/pids"
uuid=$(cat /proc/sys/kernel/random/uuid)
id=$(timeout 60 ceph -c "$conf" osd new "$uuid")
ceph-osd -c "$conf" -i "$id" --mkfs --osd-uuid "$uuid" >>"$dir/log/mkfs.out" 2>&1
ceph-osd -c "$conf" -i "$id" -f >"$dir/log/osd.out" 2>&1 & echo $! >> "$dir/pids"
radosgw -c "$conf" -n client.rgw -f >"$dir/log/rgw.out" 2>&1 & echo $! >> "$dir/pids"
for _ in $(seq 120); do
  curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/" && break; sleep 0.5
done
curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/" || { echo "radosgw did not answer on $port (logs in $dir/log)" >&2; exit 1; }
key=benchaccesskey; secret=benchsecretkey0123456789
radosgw-admin -c "$conf" user create --uid=bench --display-name=bench --access-key=$key --secret=$secret >/dev/null
echo "$key $secret"
