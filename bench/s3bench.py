#!/usr/bin/env python3
"""S3 bench driver (run it through bench/s3.sh, as root): depotfs-s3, s3fs-fuse and rclone mount reading
the same object bytes from the same S3 server, beside the raw limit (parallel ranged GETs with the AWS
SDK v2 into memory, bench/peers S3RangedGet), at loopback and behind a veth with netem RTT.

Topology, all created here and removed on exit (also on Ctrl-C or a failure):
  * network namespace SRV: the S3 server (Ceph radosgw + one memstore OSD + one monitor, bench/s3/ceph.sh),
    listening on the namespace's own addresses only;
  * network namespace CLI, joined to SRV by a veth pair with `tc netem` on both ends (delay RTT/2 each,
    rate BENCH_S3_RATE): the clients of the "RTT" rows run there (`nsenter --net`, so their FUSE mounts
    stay visible to the reader in the host's mount namespace);
  * the "loopback" rows run their clients inside SRV against 127.0.0.1.
Addresses exist only inside those two namespaces (a /30 of BENCH_S3_NET); nothing leaves the machine.

Rows, each cold (drop_caches + prefault before every sequential read; medians of BENCH_S3_RUNS):
  raw SDK       S3RangedGet OBJ: PART_MIB parts, PARALLEL in flight, into reused buffers
  s3fs          s3fs BUCKET MNT -o url=...,use_path_request_style,ro ; dd bs=1M of the object
  rclone        rclone mount remote:BUCKET MNT --read-only --vfs-cache-mode off ; dd bs=1M
  depotfs-s3    depotfs mount --depot s3://BUCKET/PREFIX --endpoint URL (when its CLI has s3://)
  depotfs-s3+cache  the same with --cache DIR --cache-size 2xOBJ --passthrough (DIR emptied at each RTT):
                the first read fills the cache (row "depotfs-s3+cache (first read)"), the later runs read
                the object from DIR by FUSE passthrough (row "depotfs-s3+cache"), still cold (drop_caches)
and `find` over the BENCH_S3_TREE-entry tree at the RTT (s3fs and rclone list the plain objects; depotfs
reads its manifests).
"""
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
USER_ENV = dict(os.environ)   # the settings as given, for the report's command line (not the two derived below)
os.environ.setdefault("BENCH_TREE", os.environ.get("BENCH_S3_TREE", "100000"))
os.environ.setdefault("BENCH_SIZE_GB", os.environ.get("BENCH_S3_SIZE_GB", "1"))
import bench  # noqa: E402

RUNS = bench.env_int("BENCH_S3_RUNS", 3)
RTT_MS = [int(x) for x in bench.env_list("BENCH_S3_RTT", ["0", "10"])]   # 0 = loopback (inside SRV)
RATE = os.environ.get("BENCH_S3_RATE", "10gbit")
NET = os.environ.get("BENCH_S3_NET", "10.231.77")                         # /30: .1 server, .2 client
PORT = bench.env_int("BENCH_S3_PORT", 7480)
PART_MIB = bench.env_int("BENCH_S3_PART_MIB", 8)
PARALLEL = bench.env_int("BENCH_S3_PARALLEL", 8)
# runs of S3RangedGet in one JVM before the measured one: without, every raw run is a fresh JVM whose SDK, Netty
# and JIT are cold, while the FUSE clients serve run 2 and 3 from a warm mount (so they came out "above the limit")
RAW_WARMUP = bench.env_int("BENCH_S3_RAW_WARMUP", 1)
ROWS = bench.env_list("BENCH_S3_ROWS", ["raw", "depotfs-s3", "depotfs-s3+cache", "s3fs", "rclone"])
# A/B rows of depotfs-s3 in the same run: "NAME=MOUNT ARGS|JVM OPTIONS;..." -> rows depotfs-s3~NAME
VARIANTS = [v.split("=", 1) for v in os.environ.get("BENCH_S3_VARIANTS", "").split(";") if "=" in v]
TESTS = bench.env_list("BENCH_S3_TESTS", ["seq", "find", "import", "rss"])
IMPORT_SRC = os.environ.get("BENCH_S3_IMPORT_SRC", "/usr/share/doc")   # the "import" test: depotfs import vs aws s3 sync
RSS_READERS = bench.env_int("BENCH_S3_RSS_READERS", 8)                  # the "rss" test: readers of as many objects
RSS_MIB = bench.env_int("BENCH_S3_RSS_OBJECT_MIB", 128)
PREFETCH_MIB = 256   # depotfs mount --s3-prefetch-mib default: the cap the rss test holds RSS against
TIMEOUT = bench.env_int("BENCH_S3_TIMEOUT", 120)     # per read or find: slower than this is reported as "> N s"
MEM_GIB = bench.env_int("BENCH_S3_MEMSTORE_GIB", 6)
SERVER = os.environ.get("BENCH_S3_SERVER", "radosgw")                  # radosgw | s3mock
S3MOCK_VERSION = os.environ.get("BENCH_S3MOCK_VERSION", "5.2.0")
BUCKET = "bench"
DEPOT_BUCKET = "bench-depot"
KEY_OBJ = "object-%dg.bin" % bench.SIZE_GB
HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "pfb%d" % (os.getpid() % 100000)
SRV, CLI = TAG + "s", TAG + "c"
JAVA = os.path.join(bench.JAVA_HOME, "bin", "java")


def log(*a):
    bench.log(*a)


def ns_cmd(ns, cmd):
    """run cmd in network namespace ns only (same mount namespace: FUSE mounts stay visible)"""
    return ["nsenter", "--net=/run/netns/" + ns, "--"] + cmd


class Net:
    def __init__(self, ctx):
        self.ctx = ctx
        self.created = []
        self.proxy = None
        self.proxy_port = None
        self.how = "loopback"

    def up(self):
        for ns in (SRV, CLI):
            bench.run(["ip", "netns", "add", ns])
            self.created.append(ns)
            self._note()
            bench.run(["ip", "-n", ns, "link", "set", "lo", "up"])
        vs, vc = TAG + "S", TAG + "C"
        bench.run(["ip", "link", "add", vs, "netns", SRV, "type", "veth", "peer", "name", vc, "netns", CLI])
        bench.run(["ip", "-n", SRV, "addr", "add", NET + ".1/30", "dev", vs])
        bench.run(["ip", "-n", CLI, "addr", "add", NET + ".2/30", "dev", vc])
        for ns, dev in ((SRV, vs), (CLI, vc)):
            bench.run(["ip", "-n", ns, "link", "set", dev, "up"])
        self.devs = {SRV: vs, CLI: vc}

    def netem(self, rtt_ms):
        """RTT and a bandwidth cap between CLI and SRV: `tc netem delay RTT/2 rate R` on both veth ends where
        the kernel has netem; else (CONFIG_NET_SCH_NETEM unset, as on this VM) `tc tbf rate R` on both ends
        and the delay from bench/peers DelayProxy in SRV (RTT/2 each way), which the RTT rows then use"""
        self.proxy_port = None
        ok = True
        for ns, dev in self.devs.items():
            subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root"],
                           stderr=subprocess.DEVNULL)
            r = subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "netem",
                                "delay", "%.1fms" % (rtt_ms / 2.0), "rate", RATE, "limit", "200000"],
                               capture_output=True, text=True)
            ok = ok and r.returncode == 0
        if ok:
            self.how = "`tc netem delay %.1fms rate %s` on both veth ends" % (rtt_ms / 2.0, RATE)
        else:
            for ns, dev in self.devs.items():
                subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root"],
                               stderr=subprocess.DEVNULL)
                bench.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", RATE,
                           "burst", "8mb", "latency", "100ms"])
            self.proxy_port = PORT + 10
            if self.proxy is not None and self.proxy.poll() is None:
                self.proxy.terminate()
                self.proxy.wait()
            self.proxy = subprocess.Popen(ns_cmd(SRV, [JAVA, "-cp", bench.PEERS_JAR,
                                                       "io.github.purefuse.bench.peers.DelayProxy", NET + ".1",
                                                       str(self.proxy_port), "127.0.0.1", str(PORT),
                                                       "%d" % (rtt_ms // 2)]),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True)
            self.ctx.add_proc(self.proxy)
            for _ in range(100):
                r = subprocess.run(ns_cmd(CLI, ["curl", "-s", "-o", "/dev/null", "-m", "2", "-w",
                                                "%{time_starttransfer}", "http://%s.1:%d/" % (NET, self.proxy_port)]),
                                   capture_output=True, text=True)
                if r.returncode == 0:
                    break
                time.sleep(0.2)
            self.how = ("no netem in this kernel (CONFIG_NET_SCH_NETEM unset): `tc tbf rate %s` on both veth ends, "
                        "RTT from bench/peers DelayProxy (+%d ms each way) in the server's namespace" % (
                            RATE, rtt_ms // 2))
        r = subprocess.run(ns_cmd(CLI, ["curl", "-s", "-m", "10", "-o", "/dev/null", "-w", "%{time_starttransfer}",
                                        endpoint(rtt_ms, self)]), capture_output=True, text=True)
        log("RTT %d ms: %s; a GET / from the client namespace: first byte after %s s" % (rtt_ms, self.how, r.stdout))

    def _note(self):
        with open(os.path.join(self.ctx.work, "netns"), "w") as f:
            f.write("\n".join(self.created) + "\n")

    def down(self):
        for ns in reversed(self.created):
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
        self.created = []
        self._note()


class Ceph:
    def __init__(self, ctx):
        self.dir = os.path.join(ctx.work, "ceph")
        self.up_ = False

    def start(self):
        t0 = time.time()
        r = subprocess.run(ns_cmd(SRV, [os.path.join(HERE, "s3", "ceph.sh"), "start", self.dir, str(PORT),
                                        str(MEM_GIB), "0.0.0.0"]), capture_output=True, text=True)
        self.up_ = True
        if r.returncode != 0:
            raise RuntimeError("ceph did not start: %s %s" % (r.stdout[-1000:], r.stderr[-2000:]))
        self.key, self.secret = r.stdout.split()[-2:]
        log("ceph radosgw up in %.0f s" % (time.time() - t0))

    def stop(self):
        if self.up_:
            subprocess.run([os.path.join(HERE, "s3", "ceph.sh"), "stop", self.dir])
            self.up_ = False

    provider = "Ceph"   # rclone's name for it

    def describe(self):
        return "Ceph radosgw 16.2 (Debian; one monitor, one memstore OSD, beast frontend)"


class S3Mock:
    """Adobe S3Mock's standalone jar from Maven Central (classifier `exec`: Spring Boot and Tomcat in one jar,
    nothing else to resolve), its store on a tmpfs of its own, in SRV on PORT. It checks no signatures: any
    key works. The lighter candidate of issue 12 beside radosgw (RESULTS.md has both)."""
    provider = "Other"

    def __init__(self, ctx):
        self.ctx = ctx
        self.dir = os.path.join(ctx.work, "s3mock")
        self.key, self.secret = "bench", "bench-secret"
        self.proc = None

    def jar(self):
        name = "s3mock-%s-exec.jar" % S3MOCK_VERSION
        path = os.path.join(os.path.expanduser("~/.m2/repository"), "com", "adobe", "testing", "s3mock",
                            S3MOCK_VERSION, name)
        if not os.path.exists(path):
            bench.run(["mvn", "-B", "-ntp", "-q", "dependency:get", "-Dtransitive=false",
                       "-Dartifact=com.adobe.testing:s3mock:%s:jar:exec" % S3MOCK_VERSION])
        return path

    def start(self):
        t0 = time.time()
        store = os.path.join(self.dir, "store")
        os.makedirs(store, exist_ok=True)
        size_gb = 3 * bench.SIZE_GB + 4 + bench.TREE // 10000
        bench.run(["mount", "-t", "tmpfs", "-o", "size=%dG,mode=755" % size_gb, "purefuse-s3mock", store])
        self.ctx.add_mount(store)
        log_file = open(os.path.join(self.ctx.work, "logs", "s3mock.log"), "w")
        self.proc = subprocess.Popen(ns_cmd(SRV, [JAVA, "-jar", self.jar(), "--http.port=%d" % PORT,
                                                  "--server.port=%d" % (PORT + 1),
                                                  "--com.adobe.testing.s3mock.store.root=" + store,
                                                  "--com.adobe.testing.s3mock.max-payload-size=1GB"]),
                                     stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
        self.ctx.add_proc(self.proc)
        for _ in range(300):
            if self.proc.poll() is not None:
                raise RuntimeError("s3mock ended with %s (logs/s3mock.log)" % self.proc.returncode)
            r = subprocess.run(ns_cmd(SRV, ["curl", "-s", "-o", "/dev/null", "-m", "2", "http://127.0.0.1:%d/" % PORT]))
            if r.returncode == 0:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError("s3mock did not answer in 60 s (logs/s3mock.log)")
        log("s3mock %s up in %.0f s" % (S3MOCK_VERSION, time.time() - t0))

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def describe(self):
        return "Adobe S3Mock %s (Maven Central `s3mock-%s-exec.jar`, on %s; store on a tmpfs)" % (
            S3MOCK_VERSION, S3MOCK_VERSION, bench.JAVA_HOME)


NETWORK = None   # the Net of this run (its proxy port, when the RTT comes from DelayProxy)


def endpoint(rtt, net=None):
    net = net or NETWORK
    if rtt == 0:
        return "http://127.0.0.1:%d" % PORT
    return "http://%s.1:%d" % (NET, net.proxy_port if net and net.proxy_port else PORT)


def client_ns(rtt):
    return SRV if rtt == 0 else CLI


def plain_env():
    """the environment without a custom CA bundle for AWS clients (plain http to our own server; rclone
    refuses to start with AWS_CA_BUNDLE set)"""
    env = dict(os.environ)
    env.pop("AWS_CA_BUNDLE", None)
    return env


def rclone_env(ceph, rtt):
    env = plain_env()
    env.update({"RCLONE_CONFIG_BENCH_TYPE": "s3", "RCLONE_CONFIG_BENCH_PROVIDER": ceph.provider,
                "RCLONE_CONFIG_BENCH_ENDPOINT": endpoint(rtt), "RCLONE_CONFIG_BENCH_ACCESS_KEY_ID": ceph.key,
                "RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY": ceph.secret, "RCLONE_CONFIG_BENCH_FORCE_PATH_STYLE": "true",
                "RCLONE_CONFIG_BENCH_REGION": "us-east-1"})
    return env


def aws_env(ceph):
    env = plain_env()
    env.update({"AWS_ACCESS_KEY_ID": ceph.key, "AWS_SECRET_ACCESS_KEY": ceph.secret, "AWS_REGION": "us-east-1"})
    env.setdefault("JAVA_HOME", bench.JAVA_HOME)
    return env


def upload(ceph, fx):
    """the object and the tree as plain objects (s3fs, rclone) with rclone; the depot with depotfs import"""
    env = rclone_env(ceph, 0)
    t0 = time.time()
    bench.run(ns_cmd(SRV, ["rclone", "mkdir", "bench:" + BUCKET]), env=env)
    bench.run(ns_cmd(SRV, ["rclone", "copyto", "--s3-upload-concurrency", "8", "--s3-chunk-size", "64M",
                           fx.data, "bench:%s/%s" % (BUCKET, KEY_OBJ)]), env=env)
    log("uploaded %s in %.0f s" % (KEY_OBJ, time.time() - t0))
    if "find" in TESTS and bench.TREE:
        t0 = time.time()
        bench.run(ns_cmd(SRV, ["rclone", "copy", "--transfers", "32", "--checkers", "32", fx.tree,
                               "bench:%s/tree" % BUCKET]), env=env)
        log("uploaded the tree (%d files) in %.0f s" % (bench.TREE, time.time() - t0))


class Row:
    fuse = True

    def __init__(self, ctx, fx, ceph):
        self.ctx, self.fx, self.ceph = ctx, fx, ceph
        self.proc = self.mnt = None

    def available(self):
        return True

    def stop(self):
        if self.mnt:
            self.ctx.umount(self.mnt, self.proc)
        self.proc = self.mnt = None

    def _spawn(self, cmd, env):
        log("start: %s" % " ".join(cmd))
        logf = open(os.path.join(self.ctx.work, "logs", "%s.%d.log" % (self.name, int(time.time() * 1000))), "w")
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                             start_new_session=True)
        self.ctx.add_proc(p)
        return p

    def _mount(self, cmd, env):
        self.mnt = tempfile.mkdtemp(prefix=self.name + ".", dir=os.path.join(self.ctx.work, "mnt"))
        self.proc = self._spawn(cmd + [self.mnt] if "{mnt}" not in " ".join(cmd) else
                                [c.replace("{mnt}", self.mnt) for c in cmd], env)
        self.ctx.add_mount(self.mnt)
        bench.wait_mounted(self.mnt, self.proc, timeout=120)

    def cpu(self):
        return bench.proc_tree_cpu(self.proc.pid) if self.proc else None


class Raw(Row):
    name = "raw"
    fuse = False

    def start(self, rtt):
        self.rtt = rtt

    def stop(self):
        pass

    def seq(self):
        bench.cold(0)
        r = subprocess.run(ns_cmd(client_ns(self.rtt), [JAVA, "-cp", bench.PEERS_JAR,
                                                        "io.github.purefuse.bench.peers.S3RangedGet",
                                                        endpoint(self.rtt), BUCKET, KEY_OBJ, str(PART_MIB),
                                                        str(PARALLEL), str(1 + RAW_WARMUP)]),
                           env=aws_env(self.ceph), capture_output=True, text=True, timeout=TIMEOUT * 3)
        if r.returncode != 0:
            raise RuntimeError("S3RangedGet: %s" % r.stderr[-1500:])
        line = [x for x in r.stdout.splitlines() if x.startswith("{")][-1]   # the last run: after the warm-up
        j = json.loads(line)
        return {"value": j["gbs"], "seconds": j["seconds"], "bytes": j["bytes"]}


class S3fs(Row):
    name = "s3fs"

    def start(self, rtt):
        pw = os.path.join(self.ctx.work, "s3fs.passwd")
        with open(pw, "w") as f:
            f.write("%s:%s\n" % (self.ceph.key, self.ceph.secret))
        os.chmod(pw, 0o600)
        self._mount(ns_cmd(client_ns(rtt), ["s3fs", BUCKET, "{mnt}", "-f", "-o",
                                            "url=%s,use_path_request_style,passwd_file=%s,ro,endpoint=us-east-1"
                                            % (endpoint(rtt), pw)]), plain_env())

    def data(self):
        return os.path.join(self.mnt, KEY_OBJ)

    def tree(self):
        return os.path.join(self.mnt, "tree")


class Rclone(Row):
    name = "rclone"

    def start(self, rtt):
        self._mount(ns_cmd(client_ns(rtt), ["rclone", "mount", "bench:" + BUCKET, "{mnt}", "--read-only",
                                            "--vfs-cache-mode", "off"]), rclone_env(self.ceph, rtt))

    def data(self):
        return os.path.join(self.mnt, KEY_OBJ)

    def tree(self):
        return os.path.join(self.mnt, "tree")


class DepotfsS3(Row):
    """depotfs on the S3 depot (branch s3): import once, then mount --depot s3://BUCKET/PREFIX --endpoint"""
    name = "depotfs-s3"
    imported = False

    def available(self):
        exe = os.path.join(bench.ROOT, "bin", "depotfs")
        if not os.access(exe, os.X_OK) or not bench.has_option([exe, "mount"], "--endpoint"):
            log("depotfs-s3: bin/depotfs mount has no --endpoint yet (branch s3 not merged): row skipped")
            return False
        return True

    def _depot(self):
        return "s3://%s/depot" % DEPOT_BUCKET

    def _env(self):
        env = aws_env(self.ceph)
        if getattr(self, "jvm", ""):
            env["DEPOTFS_JAVA_OPTS"] = (env.get("DEPOTFS_JAVA_OPTS", "") + " " + self.jvm).strip()
        return env

    def start(self, rtt):
        exe = os.path.join(bench.ROOT, "bin", "depotfs")
        if not DepotfsS3.imported:
            bench.run(ns_cmd(SRV, ["rclone", "mkdir", "bench:" + DEPOT_BUCKET]), env=rclone_env(self.ceph, 0))
            t0 = time.time()
            bench.run(ns_cmd(SRV, [exe, "import", "-q", "--depot", self._depot(), "--endpoint", endpoint(0),
                                   self.fx.src]), env=self._env())
            if getattr(self.fx, "multi", None):
                bench.run(ns_cmd(SRV, [exe, "import", "-q", "--depot", self._depot(), "--endpoint", endpoint(0),
                                       self.fx.multi]), env=self._env())
            log("depotfs import to S3 in %.0f s" % (time.time() - t0))
            DepotfsS3.imported = True
        self._mount(ns_cmd(client_ns(rtt), [exe, "mount", "--depot", self._depot(), "--endpoint", endpoint(rtt)]
                           + getattr(self, "extra", []) + shlex.split(os.environ.get("BENCH_S3_MOUNT_ARGS", ""))
                           + ["{mnt}"]), self._env())

    def _root(self):
        return os.path.join(self.mnt, os.path.basename(self.fx.src))

    def data(self):
        return os.path.join(self._root(), os.path.basename(self.fx.data))

    def tree(self):
        return os.path.join(self._root(), "tree")


def import_test(ceph):
    """depotfs import of IMPORT_SRC into an S3 depot vs `aws s3 sync` of the same tree to the same server
    (both at loopback, in the server's namespace, into empty prefixes): seconds each"""
    exe = os.path.join(bench.ROOT, "bin", "depotfs")
    env = aws_env(ceph)
    url = endpoint(0)
    out = {}
    for bucket in ("bench-import", "bench-sync"):
        bench.run(ns_cmd(SRV, ["rclone", "mkdir", "bench:" + bucket]), env=rclone_env(ceph, 0))
    bench.drop_caches()
    t0 = time.perf_counter()
    r = subprocess.run(ns_cmd(SRV, [exe, "import", "-q", "--depot", "s3://bench-import/doc", "--endpoint", url,
                                    IMPORT_SRC]), env=env, capture_output=True, text=True, timeout=TIMEOUT * 10)
    out["depotfs import"] = {"value": time.perf_counter() - t0, "exit": r.returncode,
                             "note": (r.stdout + r.stderr).strip().splitlines()[-1:] if r.returncode else []}
    bench.drop_caches()
    t0 = time.perf_counter()
    r = subprocess.run(ns_cmd(SRV, ["aws", "s3", "sync", IMPORT_SRC, "s3://bench-sync/doc", "--endpoint-url", url,
                                    "--only-show-errors"]), env=env, capture_output=True, text=True,
                       timeout=TIMEOUT * 10)
    out["aws s3 sync"] = {"value": time.perf_counter() - t0, "exit": r.returncode,
                          "note": r.stderr.strip().splitlines()[-1:] if r.returncode else []}
    for k, v in out.items():
        log("import test: %s %.1f s (exit %d) %s" % (k, v["value"], v["exit"], v["note"]))
    return out


def make_rss_objects(fx):
    """RSS_READERS objects of RSS_MIB MiB each, all different, beside the fixture's source"""
    d = os.path.join(fx.root, "multi")
    os.makedirs(d, exist_ok=True)
    chunk = os.urandom(1 << 20)
    for i in range(RSS_READERS):
        with open(os.path.join(d, "object-%d.bin" % i), "wb") as f:
            for m in range(RSS_MIB):
                f.write((i * 100000 + m).to_bytes(8, "little") + chunk[8:])
    return d


def rss_test(row, multi):
    """RSS_READERS cold `dd`s of as many different objects at once through depotfs-s3: the server's peak
    RSS (its process tree, sampled every 50 ms) against the prefetch cap + 256 MiB"""
    pid = row.proc.pid
    root = os.path.join(row.mnt, os.path.basename(multi))
    bench.cold(0)
    ps = [subprocess.Popen(["dd", "if=" + os.path.join(root, "object-%d.bin" % i), "of=/dev/null", "bs=1M"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for i in range(RSS_READERS)]
    peak = 0
    t0 = time.perf_counter()

    def rss_kib():
        """VmRSS of the server's process tree (nsenter and the launcher exec, but be safe), KiB"""
        kids, rss = {}, {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/status" % d) as f:
                    st = dict(line.split(":", 1) for line in f if ":" in line)
            except OSError:
                continue
            kids.setdefault(int(st.get("PPid", "0").strip()), []).append(int(d))
            rss[int(d)] = int(st.get("VmRSS", "0 kB").split()[0])
        total, todo = 0, [pid]
        while todo:
            q = todo.pop()
            total += rss.get(q, 0)
            todo += kids.get(q, [])
        return total
    while any(p.poll() is None for p in ps):
        peak = max(peak, rss_kib())
        time.sleep(0.05)
    dt = time.perf_counter() - t0
    bad = [p.stderr.read().decode()[-200:] for p in ps if p.returncode != 0]
    if bad:
        raise RuntimeError("dd failed: %s" % bad[0])
    return {"value": peak / 1024.0, "seconds": dt, "gbs": RSS_READERS * RSS_MIB * (1 << 20) / dt / 1e9}
class DepotfsS3Cache(DepotfsS3):
    """depotfs-s3 with --cache: run 1 fills the cache, the later runs are served from it"""
    name = "depotfs-s3+cache"

    def available(self):
        exe = os.path.join(bench.ROOT, "bin", "depotfs")
        if not super().available() or not bench.has_option([exe, "mount"], "--cache"):
            log("depotfs-s3+cache: bin/depotfs mount has no --cache: row skipped")
            return False
        return True

    def start(self, rtt):
        self.cache = os.path.join(self.ctx.work, "depotfs-cache")
        shutil.rmtree(self.cache, ignore_errors=True)
        os.makedirs(self.cache)
        self.extra = ["--cache", self.cache, "--cache-size", "%dG" % (2 * bench.SIZE_GB + 1), "--passthrough"]
        super().start(rtt)

    def run_name(self, i):
        return self.name + " (first read)" if i == 0 else self.name

    def before_run(self, i):
        """from run 2 on: wait until the first read's fill is verified and in DIR/objects"""
        if i == 0:
            return
        want = bench.SIZE_GB * bench.GiB
        deadline = time.time() + 120
        while time.time() < deadline:
            for d, _, files in os.walk(os.path.join(self.cache, "objects")):
                if any(os.path.getsize(os.path.join(d, f)) == want for f in files):
                    return
            time.sleep(0.5)
        raise RuntimeError("the object did not appear in the cache within 120 s")


def timed(fn):
    try:
        return fn()
    except subprocess.TimeoutExpired:
        return {"value": None, "error": "timeout > %d s" % TIMEOUT}
    except (RuntimeError, subprocess.CalledProcessError, OSError, ValueError) as e:
        return {"value": None, "error": str(e)[:300]}


def seq_fuse(row):
    path = row.data()
    bench.cold(bench.PREFAULT_GB)
    cpu0 = row.cpu()
    t0 = time.perf_counter()
    r = subprocess.run(["dd", "if=" + path, "of=/dev/null", "bs=1M"], capture_output=True, text=True,
                       timeout=TIMEOUT)
    dt = time.perf_counter() - t0
    got = int(r.stderr.split(" bytes", 1)[0].strip().splitlines()[-1]) if " bytes" in r.stderr else 0
    if r.returncode != 0 or got != bench.SIZE_GB * bench.GiB:
        raise RuntimeError("dd read %d bytes: %s" % (got, r.stderr.strip()[-300:]))
    cpu1 = row.cpu()
    # the kernel settings this client read with, read back while its mount is up (depotfs sets read_ahead_kb and
    # max_background itself; s3fs and rclone leave the kernel's defaults): the table shows them per row
    mj, mn = bench.dev_of(row.mnt)
    ra = bench.read_sys("/sys/class/bdi/%d:%d/read_ahead_kb" % (mj, mn))
    bg = bench.read_sys("/sys/fs/fuse/connections/%d/max_background" % mn)
    return {"value": got / dt / 1e9, "seconds": dt, "bytes": got, "cpu": None if cpu0 is None else cpu1 - cpu0,
            "ra_kb": ra, "max_bg": bg}


def find_fuse(row):
    bench.drop_caches()
    t0 = time.perf_counter()
    r = subprocess.run(["find", row.tree()], capture_output=True, timeout=TIMEOUT)
    dt = time.perf_counter() - t0
    lines = r.stdout.count(b"\n")
    if lines != row.fx.tree_entries:
        raise RuntimeError("find printed %d lines, expected %d" % (lines, row.fx.tree_entries))
    return {"value": dt, "seconds": dt, "lines": lines}


def med(rs):
    vs = [r["value"] for r in rs if r and r.get("value") is not None]
    return statistics.median(vs) if vs else None


def cell(rs, kind):
    v = med(rs)
    errs = [r["error"] for r in rs if r and r.get("error")]
    if v is None:
        return ("n/a (%s)" % errs[0][:60]) if errs else "n/a"
    return ("%.2f" % v) + (" (FAIL %d/%d)" % (len(errs), len(rs)) if errs else "")


def main():
    if os.geteuid() != 0:
        raise SystemExit("s3bench must run as root")
    work = os.environ["BENCH_WORK"]
    for sub in ("mnt", "logs"):
        os.makedirs(os.path.join(work, sub), exist_ok=True)
    ctx = bench.CTX = bench.Ctx(work)
    global NETWORK
    if SERVER not in ("radosgw", "s3mock"):
        raise SystemExit("BENCH_S3_SERVER must be radosgw or s3mock, not %r" % SERVER)
    net, ceph = Net(ctx), (Ceph(ctx) if SERVER == "radosgw" else S3Mock(ctx))
    NETWORK = net

    def on_signal(signum, _frame):
        raise KeyboardInterrupt("signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    t_start, load0 = time.time(), bench.loadavg()
    results = {}
    try:
        bench.build_natives(ctx)
        bench.ensure_fusectl(ctx)   # max_background read back per row
        fx = bench.Fixture(ctx)
        ctx.fx = fx
        fx.make()
        net.up()
        ceph.start()
        if "rss" in TESTS:
            fx.multi = make_rss_objects(fx)
        upload(ceph, fx)
        if "import" in TESTS:
            results[("import",)] = import_test(ceph)
        rows = {"raw": Raw, "depotfs-s3": DepotfsS3, "depotfs-s3+cache": DepotfsS3Cache, "s3fs": S3fs, "rclone": Rclone}
        active = [rows[n](ctx, fx, ceph) for n in ROWS]
        for vname, spec in VARIANTS:
            args, _, jvm = spec.partition("|")
            v = DepotfsS3(ctx, fx, ceph)
            v.name, v.extra, v.jvm = "depotfs-s3~" + vname, shlex.split(args), jvm.strip()
            active.append(v)
            ROWS.append(v.name)
        active = [r for r in active if r.available()]
        for rtt in RTT_MS:
            if rtt:
                net.netem(rtt)
            for row in active:
                try:
                    row.start(rtt)
                except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
                    log("%s failed to start at rtt %d: %s" % (row.name, rtt, e))
                    results[(row.name, rtt, "seq")] = [{"value": None, "error": "start: %s" % str(e)[:200]}]
                    row.stop()
                    continue
                try:
                    if "seq" in TESTS:
                        for i in range(RUNS + (1 if hasattr(row, "run_name") else 0)):
                            def run():
                                if hasattr(row, "before_run"):
                                    row.before_run(i)
                                return row.seq() if isinstance(row, Raw) else seq_fuse(row)
                            r = timed(run)
                            name = row.run_name(i) if hasattr(row, "run_name") else row.name
                            results.setdefault((name, rtt, "seq"), []).append(r)
                            log("rtt %d %s seq run %d: %s" % (rtt, name, i + 1, r))
                    if "rss" in TESTS and rtt == 0 and type(row) is DepotfsS3 and row.name == "depotfs-s3":
                        r = timed(lambda: rss_test(row, fx.multi))
                        results[(row.name, rtt, "rss")] = [r]
                        log("rtt %d %s rss: %s" % (rtt, row.name, r))
                    if "find" in TESTS and rtt == max(RTT_MS) and row.fuse and bench.TREE:
                        r = timed(lambda: find_fuse(row))
                        results.setdefault((row.name, rtt, "find"), []).append(r)
                        log("rtt %d %s find: %s" % (rtt, row.name, r))
                finally:
                    row.stop()
        mach = bench.machine()
        lines = ["## S3 run %s (`bench/s3.sh`)\n" % mach["date"]]
        if os.environ.get("BENCH_NOTE"):
            lines.append(os.environ["BENCH_NOTE"] + "\n")
        lines.append("Machine: nproc %s, %s, kernel %s, %s. Commit: %s. Load average at start %s, at end %s; "
                     "run took %.0f s. Server: %s in a network namespace of its own; clients at loopback (inside "
                     "that namespace) and in a second namespace joined by a veth pair: %s. Object %d GiB; tree "
                     "%d files. Cold reads (drop_caches + prefault), median of %d; raw SDK = %d MiB ranged GETs, %d "
                     "in flight (bench/peers S3RangedGet, %d warm-up run(s) in the same JVM before the measured one). "
                     "GB/s = 10^9 B/s; a cell slower than %d s is a timeout.\n" % (
                         mach["nproc"], mach["cpu"], mach["kernel"], mach["jdk"], mach["commit"], load0,
                         bench.loadavg(), time.time() - t_start, ceph.describe(), net.how, bench.SIZE_GB, bench.TREE, RUNS, PART_MIB,
                         PARALLEL, RAW_WARMUP, TIMEOUT))
        lines.append("Command: `%s`.\n" % " ".join(x for x in (bench.bench_env(USER_ENV), "bench/s3.sh") if x))
        hdr = ["client"] + ["seq 1 GiB GB/s @ %s" % ("loopback" if r == 0 else "%d ms RTT" % r) for r in RTT_MS]
        hdr += ["x raw @ %s" % ("loopback" if r == 0 else "%d ms" % r) for r in RTT_MS]
        hdr += ["find %d entries s @ %d ms" % (bench.TREE, max(RTT_MS)), "read_ahead_kb / max_background"]
        lines += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
        labels = {"raw": "raw limit: AWS SDK v2 parallel ranged GETs into memory (no FUSE)",
                  "depotfs-s3": "depotfs-s3", "s3fs": "s3fs-fuse 1.90 (Debian)", "rclone": "rclone mount 1.60 (Debian)"}
        names = []
        for n in ROWS:
            names += [n + " (first read)", n] if n == "depotfs-s3+cache" else [n]
        for n in names:
            if not any(k[0] == n for k in results):
                continue
            cells = [cell(results.get((n, r, "seq"), []), "gbs") for r in RTT_MS]
            for r in RTT_MS:
                a, b = med(results.get((n, r, "seq"), [])), med(results.get(("raw", r, "seq"), []))
                cells.append("%.2fx" % (a / b) if a and b else "n/a")
            cells.append(cell(results.get((n, max(RTT_MS), "find"), []), "s") if n != "raw" else "")
            kset = sorted({"%s / %s" % (r.get("ra_kb"), r.get("max_bg")) for rtt in RTT_MS
                           for r in results.get((n, rtt, "seq"), []) if r and r.get("ra_kb")})
            cells.append(", ".join(kset) if kset else ("(no FUSE)" if n == "raw" else "n/a"))
            lines.append("| %s | %s |" % (labels.get(n, n), " | ".join(cells)))
        rss = (results.get(("depotfs-s3", 0, "rss")) or [None])[0]
        if rss:
            lines.append("\nMemory: %d readers streaming %d different %d MiB objects at once through depotfs-s3 "
                         "(loopback): peak RSS %s MiB (target: the prefetch cap %d MiB + 256 = %d MiB)%s." % (
                             RSS_READERS, RSS_READERS, RSS_MIB,
                             "%.0f" % rss["value"] if rss.get("value") else "n/a (%s)" % rss.get("error"),
                             PREFETCH_MIB, PREFETCH_MIB + 256,
                             ", %.2f GB/s together" % rss["gbs"] if rss.get("gbs") else ""))
        imp = results.get(("import",))
        if imp:
            a, b = imp.get("depotfs import", {}), imp.get("aws s3 sync", {})
            lines.append("\nImport of `%s` (%s) to the same server at loopback: depotfs import %.1f s (exit %s), "
                         "aws s3 sync %.1f s (exit %s): %s." % (
                             IMPORT_SRC, "%d files" % sum(len(f) for _, _, f in os.walk(IMPORT_SRC)),
                             a.get("value", 0), a.get("exit"), b.get("value", 0), b.get("exit"),
                             "%.2fx the time of aws s3 sync" % (a["value"] / b["value"])
                             if a.get("value") and b.get("value") else "n/a"))
        lines.append("\n<details><summary>raw runs</summary>\n\n```\n" + "\n".join(
            "%s rtt=%d %s: %s" % (k[0], k[1], k[2], ", ".join(
                ("%.3f" % r["value"]) + (" (cpu %.2f s/GiB)" % (r["cpu"] / (r["bytes"] / bench.GiB)) if r.get("cpu") else "")
                if r.get("value") is not None else "ERROR " + r.get("error", "") for r in v))
            for k, v in sorted(results.items()) if len(k) == 3) + "\n```\n</details>\n")
        text = "\n".join(lines)
        print(text)
        if os.environ.get("BENCH_WRITE", "1") != "0":
            bench.write_results(text)
            log("written to %s" % bench.RESULTS)
    finally:
        ctx.cleanup()   # also stops the DelayProxy (a pid of ctx)
        ceph.stop()
        net.down()
        with open("/proc/self/mountinfo") as f:
            still = [line.split()[4] for line in f if line.split()[4].startswith(work)]
        if still:
            log("WARNING: still mounted: %s" % still)


if __name__ == "__main__":
    if len(sys.argv) > 1:   # it takes no arguments: --help must not start a run that writes GiBs
        print(__doc__.strip() + "\n\nUsage: %s (settings in the environment: bench/README.md)" % "bench/s3.sh")
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    main()
