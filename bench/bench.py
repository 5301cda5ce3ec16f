#!/usr/bin/env python3
"""purefuse end-to-end benchmark driver (run it through bench/run.sh, as root).

Measures, in ONE run so that ratios hold on a noisy machine, cold cache:
  * sequential read of a BENCH_SIZE_GB GiB object with `dd bs=1M`, one reader and 4 readers on
    disjoint ranges (aggregate GB/s, GB = 10^9 bytes);
  * random 4 KiB reads (fio psync, IOPS; a python pread loop if fio is missing); also with fio bound to
    CPU 0 (randpin) and with every CPU kept busy by spinning processes (randbusy), the two cases in which
    the scheduler leaves the reader on its CPU (it moves a woken reader to an idle CPU otherwise);
  * `find` and `ls -lR` over a tree of BENCH_TREE files in BENCH_TREE/100 directories;
for: tmpfs directly, rawfuse (the C reference server in bench/native, zero mode and -f over the
same file), the hello example of the channel (large.bin), depotfs on a tmpfs depot, and depotfs with
--passthrough; at the default read_ahead_kb (128) and raised (1024).  Each row carries the server's
CPU seconds (utime+stime of the server process tree from /proc/<pid>/stat, before/after), JVM bytes
allocated (depotfs --stats), and the kernel settings in force, read back from sysfs/fusectl.
Then a readahead x max_background sweep on depotfs (one reader, cold).

Everything mounted here is unmounted on exit (also on Ctrl-C); only processes started here are
killed, by pid.  Environment knobs are listed in bench/README.md.
"""
import datetime
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GiB = 1 << 30


def env_int(name, default):
    v = os.environ.get(name)
    return int(v) if v not in (None, "") else default


def env_list(name, default):
    v = os.environ.get(name)
    return [x.strip() for x in v.split(",") if x.strip()] if v else list(default)


SIZE_GB = env_int("BENCH_SIZE_GB", 4)            # object size read, GiB
TREE = env_int("BENCH_TREE", 100_000)            # files in the tree
TREE_DIRS = env_int("BENCH_TREE_DIRS", max(1, TREE // 100))
RUNS = env_int("BENCH_RUNS", 3)                  # medians of RUNS (the 1-reader first/warm table)
RUNS_OTHER = env_int("BENCH_RUNS_OTHER", 1)      # rounds that also run seq4, rand and the tree tests
# rand (O_DIRECT) and the tree tests do not depend on readahead: run them at the first read_ahead_kb only
ALL_RA = os.environ.get("BENCH_ALL_TESTS_EVERY_RA", "0") == "1"
RAND_SECONDS = env_int("BENCH_RAND_SECONDS", 3)  # fio runtime per random-read run
SWEEP_RUNS = env_int("BENCH_SWEEP_RUNS", 2)      # the sweep and the experiments: fewer runs, to stay < 25 min
VARIANT_RUNS = env_int("BENCH_VARIANT_RUNS", 2)
# BENCH_FIXTURE_DIR: the fixture (object, tree, depot) in this directory, on the disk it is on, instead of a
# private tmpfs; kept there for the next run. Every cold read then reads the disk under the server, and fills
# the lower file's page cache beside the FUSE file's: twice the prefault.
FIXTURE_DIR = os.environ.get("BENCH_FIXTURE_DIR", "")
PREFAULT_GB = float(os.environ.get("BENCH_PREFAULT_GB") or (2 if FIXTURE_DIR else 1) * SIZE_GB + 0.5)
RA_LIST = [int(x) for x in env_list("BENCH_RA", ["128", "1024"])]
MAX_BG = env_int("BENCH_MAX_BG", 64)             # main table: max_background for every FUSE server (MountOptions default)
CONG = env_int("BENCH_CONG", MAX_BG * 3 // 4)    # ... and congestion_threshold
RAW_THREADS = env_int("BENCH_RAW_THREADS", 2)
# server names; NAME@TRANSPORT (hello, mirror, depotfs) runs NAME with --transport TRANSPORT.  The default
# adds NAME@io-uring for every transport-capable server once its CLI has --transport (BENCH_TRANSPORTS).
# depotfs-verify: depotfs --verify-reads (chunk checksums checked on the read path; off by default for a
# local depot) beside plain depotfs, to see what the check costs (issue 14)
SERVERS = env_list("BENCH_SERVERS", ["tmpfs", "rawfuse-f", "jnr-fuse", "hello", "mirror", "depotfs", "depotfs-verify"])
TRANSPORTS = env_list("BENCH_TRANSPORTS", ["io-uring"])
# seq1first: 1 reader on a fresh mount (the first read after mount); seq1: the second read of that mount
# randpin: rand with fio bound to CPU 0; randbusy: rand while one spinning process per CPU runs;
# statpin: the stat storm with the bench's thread bound to CPU 0
TESTS = env_list("BENCH_TESTS", ["seq1first", "seq1", "seq4", "rand", "randpin", "randbusy", "find", "lsR", "stat",
                                 "statpin"])
RAND_TESTS = ("rand", "randpin", "randbusy")
SWEEP_RA = [int(x) for x in env_list("BENCH_SWEEP_RA", ["128", "512", "1024", "4096"])]
SWEEP_BG = [int(x) for x in env_list("BENCH_SWEEP_BG", ["12", "32", "64"])]
SWEEP_SERVERS = env_list("BENCH_SWEEP_SERVERS", ["depotfs", "rawfuse-f"])
# rawfuse -f is swept on a smaller grid (a reference for the kernel's side of the trade-off)
SWEEP_RAW_RA = [int(x) for x in env_list("BENCH_SWEEP_RAW_RA", ["128", "1024"])]
SWEEP_RAW_BG = [int(x) for x in env_list("BENCH_SWEEP_RAW_BG", ["12", "64"])]
# Read-path experiments: depotfs with extra JVM options, one reader, cold, beside depotfs and rawfuse -f.
# NAME=OPTS;NAME=OPTS  (empty: skip)
# e.g. BENCH_VARIANTS='no-splice=-Dpurefuse.spliceMinBytes=2147483647'; NAME@io-uring serves on io_uring,
# beside depotfs@io-uring in the same loop
VARIANTS = [v.split("=", 1) for v in os.environ.get("BENCH_VARIANTS", "").split(";") if "=" in v]
# the steady-state allocation pass: extra cold reads of a second mount (0 skips the pass)
ALLOC_EXTRA = env_int("BENCH_ALLOC_EXTRA", 2)
DO_SWEEP = os.environ.get("BENCH_SWEEP", "0") != "0"
# the JDK's ahead-of-time cache (bin/lib/common.sh PUREFUSE_AOT; JDK 25+): bin/depotfs records and uses it by
# default for local mounts, so depotfs gets a row without it, depotfs-noaot (PUREFUSE_AOT=0: first and warm reads,
# find); mirror gets mirror+aot, trained by one mount + cold read + unmount before the table
AOT_SERVERS = env_list("BENCH_AOT", ["depotfs", "mirror"])
PEERS_JAR = os.environ.get("BENCH_PEERS_JAR", os.path.join(ROOT, "bench", "peers", "target", "peers.jar"))
TREE_PT = os.environ.get("BENCH_TREE_PT", "0") == "1"  # tree tests on depotfs --passthrough too (same metadata path)
RESULTS = os.environ.get("BENCH_RESULTS", os.path.join(ROOT, "bench", "RESULTS.md"))
WRITE_RESULTS = os.environ.get("BENCH_WRITE", "1") != "0"
JFR = os.environ.get("BENCH_JFR", "")            # server name(s) to record with JFR, e.g. depotfs
JAVA_HOME = os.environ.get("BENCH_JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")
NOTE = os.environ.get("BENCH_NOTE", "")

LABEL = {
    "tmpfs": "the fixture's disk directly (no FUSE)" if FIXTURE_DIR else "tmpfs directly (no FUSE)",
    "rawfuse-zero": "rawfuse zero (C, no copy)",
    "rawfuse-f": "rawfuse -f (C, pread+writev)",
    "jnr-fuse": "jnr-fuse 0.5.8 on libfuse 2 (byte[] + Pointer.put)",
    "hello": "hello example (large.bin)",
    "mirror": "mirror example (of the fixture's dir on %s)" % ("disk" if FIXTURE_DIR else "tmpfs"),
    "depotfs": "depotfs (local depot on %s)" % ("disk" if FIXTURE_DIR else "tmpfs"),
    "depotfs-pt": "depotfs --passthrough",
    "depotfs-noaot": "depotfs, PUREFUSE_AOT=0 (no JDK AOT cache)",
    "depotfs-verify": "depotfs --verify-reads (chunk checksums checked)",
}


def log(*a):
    print("[bench %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def out(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
    except Exception as e:  # noqa: BLE001 - machine description must not abort the run
        return "n/a (%s)" % e


# ---------------------------------------------------------------------------------------------
# process bookkeeping: mounts and pids we created, cleaned up in reverse order on exit

class Ctx:
    def __init__(self, work):
        self.work = work
        self.mounts = []   # paths, in mount order
        self.pids = []     # Popen objects
        self.restore = []  # (sysfs path, old value) put back on exit
        self.bin = os.path.join(work, "bin")
        os.makedirs(self.bin, exist_ok=True)

    def _note(self):
        # run.sh's EXIT trap reads these files if python dies hard
        with open(os.path.join(self.work, "mounts"), "w") as f:
            f.write("\n".join(self.mounts) + "\n")
        with open(os.path.join(self.work, "pids"), "w") as f:
            f.write("\n".join(str(p.pid) for p in self.pids if p.poll() is None) + "\n")

    def add_mount(self, path):
        self.mounts.append(path)
        self._note()

    def add_proc(self, p):
        self.pids.append(p)
        self._note()

    def umount(self, path, proc=None):
        if path in self.mounts:
            if is_mounted(path):
                r = subprocess.run(["umount", path], capture_output=True, text=True)
                if r.returncode != 0 and is_mounted(path):
                    log("umount %s failed (%s); lazy unmount" % (path, r.stderr.strip()))
                    subprocess.run(["umount", "-l", path])
            self.mounts.remove(path)
        if proc is not None:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                log("server pid %d did not exit after unmount; SIGTERM" % proc.pid)
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self._note()

    def cleanup(self):
        for m in reversed(list(self.mounts)):
            try:
                self.umount(m)
            except Exception as e:  # noqa: BLE001
                log("cleanup umount %s: %s" % (m, e))
        for p in self.pids:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
        for path, old in reversed(self.restore):
            try:
                write_sys(path, "0" if old == "N" else old)
            except OSError as e:
                log("could not restore %s to %s: %s" % (path, old, e))
        self.restore = []
        self._note()


def is_mounted(path):
    path = os.path.realpath(path)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            if line.split()[4] == path:
                return True
    return False


def dev_of(path):
    st = os.stat(path)
    return os.major(st.st_dev), os.minor(st.st_dev)


def wait_mounted(path, proc, timeout=90):
    parent = os.stat(os.path.dirname(os.path.realpath(path))).st_dev
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("server exited with %s before %s was mounted" % (proc.returncode, path))
        if is_mounted(path):
            try:
                if os.stat(path).st_dev != parent:
                    return
            except OSError:
                pass
        time.sleep(0.05)
    raise RuntimeError("timeout waiting for mount at %s" % path)


def proc_tree_cpu(pid):
    """utime+stime (s) of pid and all its descendants (a launcher script may fork java)."""
    hz = os.sysconf("SC_CLK_TCK")
    children = {}
    stats = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        rest = s[s.rindex(")") + 2:].split()
        ppid = int(rest[1])
        stats[int(d)] = (int(rest[11]) + int(rest[12])) / hz
        children.setdefault(ppid, []).append(int(d))
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += stats.get(p, 0.0)
        todo.extend(children.get(p, []))
    return total


def jvm_counters(pid):
    """HotSpot's perf counters of a running JVM, read from its hsperfdata file (no attach): JIT compile
    time sun.ci.totalTime and class loading time sun.cls.time, in seconds; {} if it is not a JVM"""
    import struct
    want = {b"java.ci.totalTime": "jit_s", b"sun.ci.totalCompiles": "jit_compiles", b"sun.cls.time": "classload_s",
            b"sun.os.hrt.frequency": "hz"}
    try:
        with open("/tmp/hsperfdata_root/%d" % pid, "rb") as f:
            buf = f.read()
    except OSError:
        return {}
    if len(buf) < 32 or buf[:4] not in (b"\xca\xfe\xc0\xc0", b"\xc0\xc0\xfe\xca"):
        return {}
    bo = ">" if buf[4] == 0 else "<"
    entry_off, n = struct.unpack_from(bo + "ii", buf, 24)
    raw, off = {}, entry_off
    for _ in range(n):
        length, name_off, vec_len, dtype, _fl, _un, _var, data_off = struct.unpack_from(bo + "iiibbbbi", buf, off)
        name = buf[off + name_off:buf.index(b"\0", off + name_off)]
        if name in want and vec_len == 0 and dtype == ord("J"):
            raw[want[name]] = struct.unpack_from(bo + "q", buf, off + data_off)[0]
        off += length
    hz = raw.pop("hz", 0)
    return {k: (v if k == "jit_compiles" else v / hz) for k, v in raw.items()} if hz else {}


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def read_sys(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def write_sys(path, value):
    with open(path, "w") as f:
        f.write("%s\n" % value)


# ---------------------------------------------------------------------------------------------
# servers

class Server:
    name = "?"
    fuse = True
    transport = None          # NAME@TRANSPORT rows: the transport asked for
    only_tests = None         # a tuple: run only these tests on this server (the AOT rows)
    extra_env = {}            # environment for the server process (PUREFUSE_AOT for the AOT rows)
    fills_page_cache = True   # False: reads fill no fresh page-cache pages (tmpfs, passthrough): no prefault
    has_tree = False
    stats_file = None

    def __init__(self, ctx, fixture):
        self.ctx, self.fx = ctx, fixture
        self.proc = None
        self.mnt = None

    def available(self):
        return True

    def start(self, ra_kb, bg, cong):
        raise NotImplementedError

    def data_path(self):
        raise NotImplementedError

    def tree_path(self):
        return None

    def stop(self):
        if self.mnt:
            self.ctx.umount(self.mnt, self.proc)
        self.proc, self.mnt = None, None
        # the --stats file is written when the server exits: keep what it said about this mount
        self.last_stats = parse_stats(self.stats_file) if self.stats_file else {}

    def cpu(self):
        return proc_tree_cpu(self.proc.pid) if self.proc else None

    last_stats = {}

    def alloc(self):
        """bytes allocated by the JVM so far, if the server can tell while running (none can yet)"""
        return None

    def max_pages(self):
        v = find_key(self.last_stats, ("maxPages", "max_pages"))
        return str(v) if v is not None else None

    def _mountpoint(self, tag):
        d = tempfile.mkdtemp(prefix="%s." % tag, dir=os.path.join(self.ctx.work, "mnt"))
        return d

    def _spawn(self, cmd, env=None):
        log("start: %s" % " ".join(cmd))
        logf = open(os.path.join(self.ctx.work, "logs", "%s.%d.log" % (self.name, int(time.time() * 1000))), "w")
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=env, start_new_session=True)
        self.ctx.add_proc(p)
        return p

    def _after_mount(self, ra_kb, bg, cong, set_ra=True, set_bg=True):
        """Apply the settings through sysfs/fusectl where the server has no option for them."""
        mj, mn = dev_of(self.mnt)
        bdi = "/sys/class/bdi/%d:%d/read_ahead_kb" % (mj, mn)
        if set_ra and ra_kb is not None:
            write_sys(bdi, ra_kb)
        conn = "/sys/fs/fuse/connections/%d" % mn
        if set_bg and bg is not None and os.path.isdir(conn):
            # raise max_background first: the kernel does not check the pair, but keep cong <= bg
            write_sys(conn + "/max_background", bg)
            write_sys(conn + "/congestion_threshold", cong)

    def _await_readahead(self, ra_kb, timeout=10):
        """Waits until the mount's bdi shows the read_ahead_kb the server applies itself (else logs it)."""
        mj, mn = dev_of(self.mnt)
        bdi = "/sys/class/bdi/%d:%d/read_ahead_kb" % (mj, mn)
        t0 = time.time()
        while str(read_sys(bdi)) != str(ra_kb):
            if time.time() - t0 > timeout:
                log("WARNING: %s: read_ahead_kb is %s %d s after the mount, asked %s" % (
                    self.name, read_sys(bdi), timeout, ra_kb))
                return
            time.sleep(0.05)

    def settings(self):
        if not self.fuse:
            return {"ra_kb": None, "max_pages": None, "max_bg": None, "cong": None}
        mj, mn = dev_of(self.mnt)
        conn = "/sys/fs/fuse/connections/%d" % mn
        return {
            "ra_kb": read_sys("/sys/class/bdi/%d:%d/read_ahead_kb" % (mj, mn)),
            "max_pages": self.max_pages(),
            "max_bg": read_sys(conn + "/max_background"),
            "cong": read_sys(conn + "/congestion_threshold"),
        }


class Tmpfs(Server):
    name = "tmpfs"
    fuse = False
    fills_page_cache = bool(FIXTURE_DIR)
    has_tree = True

    def start(self, ra_kb, bg, cong):
        pass

    def stop(self):
        pass

    def cpu(self):
        return None

    def data_path(self):
        return self.fx.data

    def tree_path(self):
        return self.fx.tree


class RawFuse(Server):
    def __init__(self, ctx, fixture, zero):
        super().__init__(ctx, fixture)
        self.zero = zero
        self.name = "rawfuse-zero" if zero else "rawfuse-f"

    def start(self, ra_kb, bg, cong):
        self.mnt = self._mountpoint(self.name)
        cmd = [os.path.join(self.ctx.bin, "rawfuse"), "-F", "-t", str(RAW_THREADS), "-b", str(bg), "-p", "256"]
        cmd += ["-s", "%dG" % SIZE_GB] if self.zero else ["-f", self.fx.data]
        self.proc = self._spawn(cmd + [self.mnt])
        self.ctx.add_mount(self.mnt)
        wait_mounted(self.mnt, self.proc)
        self._after_mount(ra_kb, bg, cong)

    def data_path(self):
        return os.path.join(self.mnt, "zero.bin" if self.zero else os.path.basename(self.fx.data))

    def max_pages(self):
        limit = read_sys("/proc/sys/fs/fuse/max_pages_limit")
        return str(min(256, int(limit))) if limit else "256"


def java_env(name, extra=None):
    env = dict(os.environ)
    env.update(extra or {})
    env.setdefault("JAVA_HOME", JAVA_HOME)
    if JFR and name in JFR.split(","):
        jfr = os.path.join(ROOT, "bench", "target", "%s-%d.jfr" % (name, int(time.time())))
        os.makedirs(os.path.dirname(jfr), exist_ok=True)
        opt = "-XX:StartFlightRecording=filename=%s,settings=profile,dumponexit=true" % jfr
        env["JAVA_TOOL_OPTIONS"] = (env.get("JAVA_TOOL_OPTIONS", "") + " " + opt).strip()
        log("JFR for %s -> %s" % (name, jfr))
    return env


_HELP = {}
HELP_TIMEOUT = env_int("BENCH_HELP_TIMEOUT", 900)   # a launcher's --help, a build of its module included


def has_option(cmd, option):
    """True if `CMD --help` mentions OPTION (e.g. --transport: rows per transport appear once it exists)."""
    key = (tuple(cmd), option)
    if key not in _HELP:
        # the launchers build their module first when a source is newer than its jar (an edit anywhere under
        # */src/main, bench/ included: minutes, javadoc too): give that time, and on a timeout stop the whole
        # process group (not only the launcher, which would leave its Maven running) and say why the rows go
        try:
            p = subprocess.Popen(cmd + ["--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 env=java_env("help"), start_new_session=True)
        except OSError as e:
            log("WARNING: %s --help: %s" % (" ".join(cmd), e))
            _HELP[key] = False
            return False
        try:
            text, _ = p.communicate(timeout=HELP_TIMEOUT)
            _HELP[key] = option in text
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            log("WARNING: %s --help did not answer within %d s (a launcher build? see BENCH_HELP_TIMEOUT): "
                "the rows that need %s are skipped" % (" ".join(cmd), HELP_TIMEOUT, option))
            _HELP[key] = False
    return _HELP[key]


def transport_property():
    """True if the channel reads -Dpurefuse.transport (the bench hook of issue 11, before the CLIs had a flag)"""
    src = os.path.join(ROOT, "fuse-kernel-channel", "src", "main")
    r = subprocess.run(["grep", "-rqs", "purefuse.transport", src])
    return r.returncode == 0


def transport_args(server, cmd):
    """(extra CLI args, extra env) that select server.transport: --transport if the CLI has it, else the
    channel's -Dpurefuse.transport property through JAVA_TOOL_OPTIONS"""
    if not server.transport:
        return [], {}
    if server.transport == "io-uring":
        enable_uring(CTX)   # again before every mount: another process on this machine may have reset it
    if has_option(cmd, "--transport"):
        return ["--transport", server.transport], {}
    opt = "-Dpurefuse.transport=" + server.transport
    return [], {"JAVA_TOOL_OPTIONS": (os.environ.get("JAVA_TOOL_OPTIONS", "") + " " + opt).strip()}


def pin_dev(servers):
    """plain hello/mirror/depotfs rows serve on /dev/fuse explicitly where the transport can be chosen:
    the default (AUTO) picks io_uring whenever the fuse module's enable_uring is set"""
    for s in servers:
        if hasattr(s, "transport") and s.transport is None and isinstance(s, (Hello, Depotfs)) and (
                transport_property() or has_option(s._cmd() if isinstance(s, Hello) else
                                                   [os.path.join(ROOT, "bin", "depotfs"), "mount"], "--transport")):
            s.transport = "dev"


def split_transport(name):
    base, _, transport = name.partition("@")
    return base, transport or None


class Hello(Server):
    name = "hello"

    def __init__(self, ctx, fixture, transport=None):
        super().__init__(ctx, fixture)
        self.transport = transport
        if transport:
            self.name = "hello@" + transport

    def _cmd(self):
        return [os.path.join(ROOT, "bin", "fuse-example"), "hello"]

    def available(self):
        return os.access(os.path.join(ROOT, "bin", "fuse-example"), os.X_OK) and (
            not self.transport or has_option(self._cmd(), "--transport") or transport_property())

    def start(self, ra_kb, bg, cong):
        self.mnt = self._mountpoint(self.name)
        args, env = transport_args(self, self._cmd())
        cmd = self._cmd() + ["--readahead-kb", str(ra_kb)] + args
        self.proc = self._spawn(cmd + [self.mnt], env=java_env(self.name, dict(self.extra_env, **env)))
        self.ctx.add_mount(self.mnt)
        wait_mounted(self.mnt, self.proc)
        # readahead through the example's option (read back below); background limits through fusectl
        self._after_mount(ra_kb, bg, cong, set_ra=False)

    def data_path(self):
        return os.path.join(self.mnt, "large.bin")


class Mirror(Hello):
    """the mirror example over the fixture's source dir on tmpfs (the object and the tree)"""
    name = "mirror"
    has_tree = True

    def __init__(self, ctx, fixture, transport=None):
        super().__init__(ctx, fixture, transport)
        self.name = "mirror@" + transport if transport else "mirror"

    def _cmd(self):
        return [os.path.join(ROOT, "bin", "fuse-example"), "mirror"]

    def start(self, ra_kb, bg, cong):
        self.mnt = self._mountpoint(self.name)
        args, env = transport_args(self, self._cmd())
        self.proc = self._spawn(self._cmd() + args + [self.fx.src, self.mnt],
                                env=java_env(self.name, dict(self.extra_env, **env)))
        self.ctx.add_mount(self.mnt)
        wait_mounted(self.mnt, self.proc)
        self._after_mount(ra_kb, bg, cong)   # no readahead option: the bdi and fusectl, as for rawfuse

    def data_path(self):
        return os.path.join(self.mnt, os.path.basename(self.fx.data))

    def tree_path(self):
        return os.path.join(self.mnt, "tree")

    def max_pages(self):
        return None


class JnrFuse(Server):
    """jnr-fuse 0.5.8 over libfuse 2 (bench/peers JnrFuseFileServer): the Java option users have today"""
    name = "jnr-fuse"

    def available(self):
        if not os.path.exists(PEERS_JAR):
            log("jnr-fuse: %s missing (bench/run.sh builds it)" % PEERS_JAR)
            return False
        if not any(os.path.exists(os.path.join(d, "libfuse.so.2")) for d in (
                "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")):
            log("jnr-fuse: libfuse.so.2 missing (apt-get install libfuse2)")
            return False
        return True

    def start(self, ra_kb, bg, cong):
        self.mnt = self._mountpoint(self.name)
        java = os.path.join(JAVA_HOME, "bin", "java")
        self.proc = self._spawn([java, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                                 "-cp", PEERS_JAR, "io.github.purefuse.bench.peers.JnrFuseFileServer",
                                 self.fx.data, self.mnt, "-o", "ro"], env=java_env(self.name))
        self.ctx.add_mount(self.mnt)
        wait_mounted(self.mnt, self.proc)
        self._after_mount(ra_kb, bg, cong)

    def data_path(self):
        return os.path.join(self.mnt, os.path.basename(self.fx.data))

    def max_pages(self):
        return "32 (libfuse 2)"


class Depotfs(Server):
    has_tree = True

    def __init__(self, ctx, fixture, passthrough, variant=None, java_opts="", transport=None, mount_args=()):
        super().__init__(ctx, fixture)
        self.pt = passthrough
        self.mount_args = list(mount_args)
        self.fills_page_cache = not passthrough
        self.name = variant or ("depotfs-pt" if passthrough else "depotfs") + ("@" + transport if transport else "")
        self.java_opts = java_opts
        self.transport = transport

    def available(self):
        exe = os.path.join(ROOT, "bin", "depotfs")
        return os.access(exe, os.X_OK) and self.fx.depot is not None and (
            not self.transport or has_option([exe, "mount"], "--transport") or transport_property())

    def start(self, ra_kb, bg, cong):
        self.mnt = self._mountpoint(self.name)
        self.stats_file = os.path.join(self.ctx.work, "%s.stats" % os.path.basename(self.mnt))
        cmd = [os.path.join(ROOT, "bin", "depotfs"), "mount", "--depot", self.fx.depot, self.mnt,
               "--readahead-kb", str(ra_kb), "--max-background", str(bg),
               "--congestion-threshold", str(cong), "--stats", self.stats_file]
        if self.pt:
            cmd.append("--passthrough")
        cmd += self.mount_args
        args, tenv = transport_args(self, [os.path.join(ROOT, "bin", "depotfs"), "mount"])
        cmd += args
        env = java_env(self.name, dict(self.extra_env, **tenv))
        if self.java_opts:
            env["DEPOTFS_JAVA_OPTS"] = (env.get("DEPOTFS_JAVA_OPTS", "") + " " + self.java_opts).strip()
        self.proc = self._spawn(cmd, env=env)
        self.ctx.add_mount(self.mnt)
        wait_mounted(self.mnt, self.proc)
        # depotfs applies readahead and background limits itself, once INIT is answered (a moment after the
        # mount appears; later on io_uring, whose queues register first): wait for them, then read them back
        self._await_readahead(ra_kb)

    def _root(self):
        return os.path.join(self.mnt, self.fx.depot_root) if self.fx.depot_root else self.mnt

    def data_path(self):
        return os.path.join(self._root(), self.fx.depot_data)

    def tree_path(self):
        return os.path.join(self._root(), self.fx.depot_tree)


def parse_stats(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        d = {}
        for line in text.splitlines():
            m = re.match(r"\s*([A-Za-z_.]+)\s*[=:]\s*(\S+)", line)
            if m:
                d[m.group(1)] = m.group(2)
        return d


def find_key(obj, keys):
    if isinstance(obj, dict):
        for k in keys:
            if k in obj:
                return obj[k]
        for v in obj.values():
            r = find_key(v, keys)
            if r is not None:
                return r
    return None


# ---------------------------------------------------------------------------------------------
# fixture: the object and the tree on a private tmpfs, and the depot

class Fixture:
    def __init__(self, ctx):
        self.ctx = ctx
        # self.root: made once per run on a private tmpfs; with BENCH_FIXTURE_DIR, made once in that directory
        # and kept (a file named after the sizes says it is complete; the import is redone when the depot is missing)
        if FIXTURE_DIR:
            self.root = os.path.abspath(FIXTURE_DIR)
            self.stamp = os.path.join(self.root, "complete-%dg-%d-%d" % (SIZE_GB, TREE, TREE_DIRS))
            os.makedirs(self.root, exist_ok=True)
            if not os.path.exists(self.stamp):   # remove only what the bench writes there: the dir may hold more
                for name in os.listdir(self.root):
                    p = os.path.join(self.root, name)
                    if name in ("src", "depot") and os.path.isdir(p):
                        shutil.rmtree(p)
                    elif name == "depot-complete" or name.startswith("complete-"):
                        os.remove(p)
            self.fstype = out(["stat", "-f", "-c", "%T", self.root]).strip()
            if self.fstype == "tmpfs":
                log("WARNING: BENCH_FIXTURE_DIR %s is on tmpfs" % self.root)
        else:
            self.root = os.path.join(ctx.work, "tmpfs")
            self.stamp = None
            self.fstype = "tmpfs"
            os.makedirs(self.root, exist_ok=True)
            size_gb = 2 * SIZE_GB + 2 + (TREE // 20000)
            run(["mount", "-t", "tmpfs", "-o", "size=%dG,mode=755" % size_gb, "purefuse-bench", self.root])
            ctx.add_mount(self.root)
        self.src = os.path.join(self.root, "src")
        self.data = os.path.join(self.src, "object-%dg.bin" % SIZE_GB)
        self.tree = os.path.join(self.src, "tree")
        self.depot = None
        self.depot_root = ""
        self.depot_data = os.path.basename(self.data)
        self.depot_tree = "tree"
        self.reused = self.stamp is not None and os.path.exists(self.stamp)
        os.makedirs(self.src, exist_ok=True)

    def make(self):
        if self.reused:
            log("fixture kept from an earlier run in %s (%s)" % (self.root, self.fstype))
            self.tree_files = sorted(os.path.relpath(os.path.join(d, f), self.tree)
                                     for d, _, fs in os.walk(self.tree) for f in fs)
            self.tree_entries = count_entries(self.tree)
            return
        log("writing %d GiB object (pseudo-random) and a tree of %d files in %d dirs" % (SIZE_GB, TREE, TREE_DIRS))
        chunk = os.urandom(64 << 20)
        with open(self.data, "wb") as f:
            for i in range(SIZE_GB * 16):
                # vary every chunk so that no two MiB are equal (content-addressed stores dedupe)
                f.write(i.to_bytes(8, "little") + chunk[8:])
        per_dir = TREE // TREE_DIRS
        n = 0
        self.tree_files = []   # relative paths of every file: the stat storm's list
        for d in range(TREE_DIRS):
            dp = os.path.join(self.tree, "d%04d" % d)
            os.makedirs(dp)
            for i in range(per_dir if d < TREE_DIRS - 1 else TREE - n):
                rel = os.path.join("d%04d" % d, "file-%06d.txt" % n)
                with open(os.path.join(self.tree, rel), "w") as f:
                    f.write("entry %d of directory %d\n" % (n, d))
                self.tree_files.append(rel)
                n += 1
        self.tree_entries = count_entries(self.tree)
        if self.stamp:
            run(["sync"])
            open(self.stamp, "w").close()

    def import_depot(self):
        exe = os.path.join(ROOT, "bin", "depotfs")
        if not os.access(exe, os.X_OK):
            log("bin/depotfs not found: depotfs rows skipped")
            return
        self.depot = os.path.join(self.root, "depot")
        self.depot_root = os.environ.get("BENCH_DEPOT_ROOT", os.path.basename(self.src))
        done = os.path.join(self.root, "depot-complete")
        if self.reused and os.path.exists(done):
            log("depot kept from an earlier run")
            return
        if os.path.exists(self.depot):
            shutil.rmtree(self.depot)
        t0 = time.time()
        cmd = os.environ.get("BENCH_DEPOT_IMPORT", "{exe} import -q --depot {depot} {src}")
        cmd = cmd.format(exe=exe, depot=self.depot, src=self.src)
        log("import: %s" % cmd)
        r = subprocess.run(cmd, shell=True, env=java_env("import"), capture_output=True, text=True)
        if r.returncode != 0:
            log("depotfs import failed (rc=%d): %s %s" % (r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
            self.depot = None
            return
        self.import_seconds = time.time() - t0
        log("imported in %.1f s" % self.import_seconds)
        if self.stamp:
            run(["sync"])
            open(done, "w").close()


def count_entries(path):
    n = 0
    for _, dirs, files in os.walk(path):
        n += len(dirs) + len(files)
    return n + 1  # find prints the starting point too


# ---------------------------------------------------------------------------------------------
# measurements (all cold: drop_caches, then prefault so the page-cache fill does not pay host faults)

def prefault(gb):
    if gb > 0:
        run([os.path.join(CTX.bin, "prefault"), "%g" % gb])


def cold(gb):
    drop_caches()
    prefault(gb)


def dd(path, skip_mib, count_mib):
    return subprocess.Popen(["dd", "if=" + path, "of=/dev/null", "bs=1M", "skip=%d" % skip_mib,
                             "count=%d" % count_mib], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def dd_bytes(p):
    _, err = p.communicate()
    if p.returncode != 0:
        raise RuntimeError("dd failed: %s" % err.strip())
    m = re.search(r"^(\d+) bytes", err, re.M)
    return int(m.group(1)) if m else 0


def t_seq(path, readers, prefault_gb=None):
    total_mib = SIZE_GB * 1024
    cold(PREFAULT_GB if prefault_gb is None else prefault_gb)
    t0 = time.perf_counter()
    ps = [dd(path, i * total_mib // readers, total_mib // readers) for i in range(readers)]
    got, errors = 0, []
    for p in ps:  # wait for every dd, also when one fails, so that nothing keeps the mount busy
        try:
            got += dd_bytes(p)
        except RuntimeError as e:
            errors.append(str(e))
    dt = time.perf_counter() - t0
    if errors:
        raise RuntimeError("; ".join(errors))
    if got != SIZE_GB * GiB:
        raise RuntimeError("read %d bytes of %s, expected %d" % (got, path, SIZE_GB * GiB))
    return {"value": got / dt / 1e9, "seconds": dt, "bytes": got}


def t_rand(path, variant="rand"):
    # O_DIRECT: every 4 KiB read reaches the server (no readahead, no page cache): the per-request cost.
    # randpin binds fio to CPU 0; randbusy keeps every CPU busy with a spinning process (started here and
    # ended here, by pid) while fio runs. In both the scheduler leaves a woken reader where it was; on an
    # otherwise idle machine it moves the reader to an idle CPU when the CPU it woke on is busy.
    drop_caches()
    if shutil.which("fio"):
        cmd = ["fio"] + (["--cpus_allowed=0"] if variant == "randpin" else []) + [
            "--name=rand4k", "--filename=" + path, "--readonly", "--rw=randread", "--bs=4k", "--ioengine=psync",
            "--direct=1", "--size=%dG" % SIZE_GB, "--runtime=%d" % RAND_SECONDS, "--time_based", "--norandommap",
            "--randrepeat=0", "--invalidate=0", "--output-format=json"]
        spinners = []
        try:
            if variant == "randbusy":
                spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                            for _ in range(os.cpu_count() or 1)]
            r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        finally:
            for sp in spinners:
                sp.kill()
                sp.wait()
        j = json.loads(r.stdout[r.stdout.index("{"):])
        rd = j["jobs"][0]["read"]
        return {"value": rd["iops"], "bytes": rd["io_bytes"], "seconds": rd["runtime"] / 1000.0, "tool": "fio"}
    if variant != "rand":
        raise RuntimeError("%s needs fio" % variant)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        rnd = random.Random()
        pages = SIZE_GB * GiB // 4096
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < RAND_SECONDS:
            for _ in range(256):
                os.pread(fd, 4096, rnd.randrange(pages) * 4096)
            n += 256
        dt = time.perf_counter() - t0
    finally:
        os.close(fd)
    return {"value": n / dt, "bytes": n * 4096, "seconds": dt, "tool": "python pread"}


def t_stat(path, pin=False):
    """metadata storm: stat(2) of every file of the tree, cold, one thread, in creation order; statpin
    binds this (the bench's own) thread to CPU 0 for the storm, as randpin binds fio"""
    files = CTX.fx.tree_files
    drop_caches()
    allowed = os.sched_getaffinity(0)
    if pin:
        os.sched_setaffinity(0, {0})
    try:
        t0 = time.perf_counter()
        for rel in files:
            os.stat(os.path.join(path, rel))
        dt = time.perf_counter() - t0
    finally:
        if pin:
            os.sched_setaffinity(0, allowed)
    return {"value": dt, "seconds": dt, "stats": len(files), "per_s": len(files) / dt}


def t_tree(path, cmd, expect_lines=None):
    drop_caches()   # metadata fills no page cache worth a prefault
    t0 = time.perf_counter()
    r = subprocess.run(cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    dt = time.perf_counter() - t0
    lines = r.stdout.count(b"\n")
    if expect_lines is not None and lines != expect_lines:
        raise RuntimeError("%s printed %d lines, expected %d" % (" ".join(cmd), lines, expect_lines))
    return {"value": dt, "seconds": dt, "lines": lines}


TREE_TESTS = ("find", "lsR", "stat", "statpin")


def measure(server, test):
    """One cold measurement with the server's CPU and allocation deltas."""
    path = server.tree_path() if test in TREE_TESTS else server.data_path()
    if path is None:
        return None
    try:
        return _measure(server, test, path)
    except (RuntimeError, subprocess.CalledProcessError, OSError, ValueError) as e:
        log("FAILED %s %s: %s" % (server.name, test, e))
        return {"value": None, "error": str(e)[:300]}


def _measure(server, test, path):
    cpu0, alloc0 = server.cpu(), server.alloc()
    jvm0 = jvm_counters(server.proc.pid) if server.proc else {}
    pf = None if server.fills_page_cache else 0
    if test in ("seq1", "seq1first"):
        r = t_seq(path, 1, pf)
    elif test == "seq4":
        r = t_seq(path, 4, pf)
    elif test in RAND_TESTS:
        r = t_rand(path, test)
    elif test in ("stat", "statpin"):
        r = t_stat(path, test == "statpin")
    elif test == "find":
        r = t_tree(path, ["find"], CTX.fx.tree_entries)
    else:
        r = t_tree(path, ["ls", "-lR"])
    cpu1, alloc1 = server.cpu(), server.alloc()
    jvm1 = jvm_counters(server.proc.pid) if server.proc else {}
    for k in jvm0:
        if k in jvm1:
            r[k] = jvm1[k] - jvm0[k]   # JIT compile / class loading seconds spent during this test
    r["cpu"] = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    r["alloc"] = None if alloc0 is None or alloc1 is None else alloc1 - alloc0
    return r


# ---------------------------------------------------------------------------------------------
# reporting

def med(rs, key="value"):
    vs = [r[key] for r in rs if r and r.get(key) is not None]
    return statistics.median(vs) if vs else None


def failed(rs):
    """'FAIL' if any run of the cell failed (the error is in the raw runs), else ''"""
    return " (FAIL %d/%d)" % (sum(1 for r in rs if r and r.get("error")), len(rs)) if any(
        r and r.get("error") for r in rs) else ""


def fmt(v, kind):
    if v is None:
        return "n/a"
    if kind == "gbs":
        return "%.2f" % v
    if kind == "iops":
        return "{:,.0f}".format(v)
    if kind == "s":
        return "%.2f" % v
    if kind == "cpu":
        return "%.2f" % v
    if kind == "bytes":
        if v < 10_000:
            return "%.0f B" % v
        if v < 10_000_000:
            return "%.0f KiB" % (v / 1024)
        return "%.1f MiB" % (v / (1 << 20))
    return str(v)


def per_gib(rs, key):
    vals = [r[key] / (r["bytes"] / GiB) for r in rs if r and r.get(key) is not None and r.get("bytes")]
    return statistics.median(vals) if vals else None


def machine():
    mem = "n/a"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = "%.1f GiB" % (int(line.split()[1]) / (1 << 20))
    model = "n/a"
    for line in out(["lscpu"]).splitlines():
        if line.startswith("Model name"):
            model = line.split(":", 1)[1].strip()
    jdk = subprocess.run([os.path.join(JAVA_HOME, "bin", "java"), "-version"], capture_output=True, text=True).stderr
    jdk = jdk.strip().splitlines()[1] if jdk.strip() else "n/a"
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": out(["nproc"]),
        "cpu": model,
        "memory": mem,
        "kernel": out(["uname", "-r"]),
        "jdk": jdk,
        "fio": out(["fio", "--version"]) if shutil.which("fio") else "missing (python pread loop)",
        "commit": out(["git", "-C", ROOT, "log", "-1", "--format=%h %s"]) + dirty_note(),
    }


def dirty_note():
    """' (uncommitted changes: FILES)' when the tree measured is not the commit named (RESULTS.md itself aside)"""
    st = out(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
    if st.startswith("n/a"):
        return ""
    files = [f for f in (line.split(None, 1)[-1] for line in st.splitlines() if line.strip())
             if not f.endswith("RESULTS.md")]
    return " (uncommitted changes: %s)" % ", ".join(files[:8] + (["..."] if len(files) > 8 else [])) if files else ""


def java_version():
    try:
        with open(os.path.join(JAVA_HOME, "release")) as f:
            m = re.search(r'JAVA_VERSION="(\d+)', f.read())
            return int(m.group(1)) if m else 0
    except OSError:
        return 0


def bench_env(environ=None):
    """the BENCH_* settings of this run as a shell prefix, so that a section of RESULTS.md says how it was made
    (BENCH_WORK is the run's temp dir and BENCH_NOTE is printed on its own)"""
    import shlex
    return " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted((environ or os.environ).items())
                    if k.startswith("BENCH_") and k not in ("BENCH_WORK", "BENCH_NOTE"))


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main_table(results, servers):
    """results[(server, ra)][test] = list of runs"""
    hdr = ("| server | transport served (--stats) | read_ahead_kb | max_pages | max_bg / cong | 1 reader first GB/s | 1 reader warm GB/s "
           "| 4 readers GB/s | rand 4 KiB O_DIRECT IOPS | rand IOPS, fio on CPU 0 | rand IOPS, CPUs busy | find s | ls -lR s | stat storm s "
           "| stat storm s, on CPU 0 "
           "| CPU s/GiB (1 rd) | JVM alloc/GiB (1 rd) | CPU s/GiB (4 rd) | CPU s (find) | alloc (find) |")
    lines = [hdr, "|" + "|".join(["---"] * (hdr.count("|") - 1)) + "|"]
    for ra in RA_LIST:
        for s in servers:
            key = (s.name, ra)
            if key not in results:
                continue
            t = results[key]
            st = t.get("_settings", {})

            def c(test, kind):
                return fmt(med(t.get(test, [])), kind) + failed(t.get(test, []))
            served = find_key(st.get("stats", {}), ("transport",))
            ring = find_key(st.get("stats", {}), ("ringRequests",))
            lines.append("| %s |" % " | ".join([
                label(s.name), "%s%s" % (served or "n/a", " (%s ring requests)" % ring if ring else ""),
                str(st.get("ra_kb") or ("(%d)" % ra if s.fuse else "n/a")),
                str(st.get("max_pages") or "n/a"),
                "%s / %s" % (st.get("max_bg"), st.get("cong")) if st.get("max_bg") else "n/a",
                c("seq1first", "gbs"), c("seq1", "gbs"), c("seq4", "gbs"), c("rand", "iops"),
                c("randpin", "iops"), c("randbusy", "iops"), c("find", "s"), c("lsR", "s"), c("stat", "s"), c("statpin", "s"),
                fmt(per_gib(t.get("seq1", []) + t.get("seq1first", []), "cpu"), "cpu"),
                fmt(alloc_per_gib(t.get("_alloc_seq1")), "bytes") + (
                    " (steady %s)" % fmt(t["_alloc_marginal"], "bytes") if t.get("_alloc_marginal") is not None else ""),
                fmt(per_gib(t.get("seq4", []), "cpu"), "cpu"),
                fmt(med(t.get("find", []), "cpu"), "cpu"), fmt((t.get("_alloc_find") or {}).get("alloc"), "bytes")]))
    return "\n".join(lines)


def first_table(results, servers):
    """first read after mount vs the second (warm) one, with what the JVM spent meanwhile"""
    lines = ["| server | read_ahead_kb | first GB/s | warm GB/s | first / warm | JIT s during first | JIT s during warm "
             "| compiles during first | class loading s during first |", "|---|---|---|---|---|---|---|---|---|"]
    for ra in RA_LIST:
        for s in servers:
            t = results.get((s.name, ra), {})
            if not t.get("seq1first"):
                continue
            f, w = med(t.get("seq1first", [])), med(t.get("seq1", []))
            lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                label(s.name), ra, fmt(f, "gbs"), fmt(w, "gbs"), "%.2f" % ratio(f, w) if ratio(f, w) else "n/a",
                fmt(med(t["seq1first"], "jit_s"), "s"), fmt(med(t.get("seq1", []), "jit_s"), "s"),
                fmt(med(t["seq1first"], "jit_compiles"), "iops"), fmt(med(t["seq1first"], "classload_s"), "s")))
    return "\n".join(lines) + "\n"


def label(name):
    base, transport = split_transport(name)
    return LABEL.get(base, base) + (" [%s]" % transport if transport else "")


def issue_table(results, servers):
    """the request-path issue's table: 1 reader, cold, first read after mount and warm, with ratios to
    the C server (rawfuse -f) and to jnr-fuse measured in the same run"""
    def m(server, ra, test):
        return med(results.get((server, ra), {}).get(test, []))
    cols = [(ra, t) for ra in RA_LIST for t in ("seq1first", "seq1")]
    lines = ["| server | " + " | ".join("ra %d %s" % (ra, "first" if t == "seq1first" else "warm") for ra, t in cols)
             + " |", "|---|" + "---|" * len(cols)]
    for s in servers:
        if not s.fuse:
            continue
        cells = []
        for ra, t in cols:
            v = m(s.name, ra, t)
            rc, rj = ratio(v, m("rawfuse-f", ra, t)), ratio(v, m("jnr-fuse", ra, t))
            extra = [("%.2fx C" % rc) if rc and s.name != "rawfuse-f" else "",
                     ("%.2fx jnr" % rj) if rj and s.name not in ("jnr-fuse",) else ""]
            extra = ", ".join(e for e in extra if e)
            cells.append(fmt(v, "gbs") + (" (%s)" % extra if extra else ""))
        lines.append("| %s | %s |" % (label(s.name), " | ".join(cells)))
    return "\n".join(lines) + "\n"


def alloc_per_gib(a):
    """bytesAllocated per GiB read by the application (dd), from a mount that served one cold
    sequential read (with passthrough the server's bytesRead is 0: the kernel served the data)"""
    if not a or a.get("alloc") is None:
        return None
    got = (a.get("run") or {}).get("bytes") or a.get("bytesRead")
    return a["alloc"] / (got / GiB) if got else None


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def targets(results):
    lines = ["| target | measured | met? |", "|---|---|---|"]

    def m(server, ra, test, key="value"):
        return med(results.get((server, ra), {}).get(test, []), key)

    def row(name, val, goal, le=False, unit="x"):
        if val is None:
            return   # a server or test not in this run: no row
        ok = val <= goal if le else val >= goal
        lines.append("| %s | %s | %s |" % (name, ("%.2f %s" % (val, unit)).strip(), "yes" if ok else "**no**"))

    def cpu(server, ra):
        t = results.get((server, ra), {})
        return per_gib(t.get("seq1", []) + t.get("seq1first", []), "cpu")

    ours = ["depotfs", "mirror"] + sorted({k[0] for k in results if "@" in k[0] and not k[0].startswith("hello")})
    for srv in ours:
        for ra in RA_LIST:
            for test, what in (("seq1first", "first"), ("seq1", "warm")):
                row("%s 1 reader %s >= 0.9 x rawfuse -f (ra %d)" % (srv, what, ra),
                    ratio(m(srv, ra, test), m("rawfuse-f", ra, test)), 0.9)
                row("%s 1 reader %s >= 1.5 x jnr-fuse (ra %d)" % (srv, what, ra),
                    ratio(m(srv, ra, test), m("jnr-fuse", ra, test)), 1.5)
            row("%s 4 readers >= 1.3 x 1 reader (ra %d)" % (srv, ra), ratio(m(srv, ra, "seq4"), m(srv, ra, "seq1")), 1.3)
            row("%s CPU s/GiB <= 1.2 x rawfuse -f (ra %d)" % (srv, ra), ratio(cpu(srv, ra), cpu("rawfuse-f", ra)), 1.2, le=True)
        row("%s random 4 KiB O_DIRECT IOPS >= 0.9 x rawfuse -f" % srv,
            ratio(m(srv, RA_LIST[0], "rand"), m("rawfuse-f", RA_LIST[0], "rand")), 0.9)
        row("%s find over %d entries, cold <= 1.3 s" % (srv, TREE), m(srv, RA_LIST[0], "find"), 1.3, le=True, unit="s")
    for ra in RA_LIST:
        a = alloc_per_gib(results.get(("depotfs", ra), {}).get("_alloc_seq1"))
        row("depotfs JVM alloc <= 64 KiB per GiB served (ra %d; fresh mount, one cold read)" % ra,
            None if a is None else a / 1024, 64, le=True, unit="KiB/GiB")
        for srv in [k[0] for k in results if k[1] == ra and k[0].startswith("depotfs")]:
            m_ = results.get((srv, ra), {}).get("_alloc_marginal")
            if m_ is not None:
                row("%s JVM alloc, steady state <= 64 KiB per GiB (ra %d; extra reads of a warm mount)" % (srv, ra),
                    m_ / 1024, 64, le=True, unit="KiB/GiB")
    # io_uring transport vs /dev/fuse, same server, same run (issue 11)
    for base in ("hello", "mirror", "depotfs"):
        u = base + "@io-uring"
        if not any(k[0] == u for k in results):
            continue
        ra0 = RA_LIST[0]
        row("%s io_uring vs /dev/fuse: random 4 KiB IOPS >= 1.3 x" % base, ratio(m(u, ra0, "rand"), m(base, ra0, "rand")), 1.3)
        # the same ratio where the reader stays on its CPU (not the issue's condition: a view of the scheduler's part)
        for v, what in (("randpin", "fio bound to CPU 0"), ("randbusy", "every CPU busy")):
            if m(u, ra0, v) is not None:
                row("%s io_uring vs /dev/fuse: random 4 KiB IOPS, %s (extra view) >= 1.3 x" % (base, what),
                    ratio(m(u, ra0, v), m(base, ra0, v)), 1.3)
        row("%s io_uring vs /dev/fuse: stat storm >= 1.3 x (time ratio inverted)" % base,
            ratio(m(base, ra0, "stat"), m(u, ra0, "stat")), 1.3)
        if m(u, ra0, "statpin") is not None:
            row("%s io_uring vs /dev/fuse: stat storm, bound to CPU 0 (extra view) >= 1.3 x (time ratio inverted)" % base,
                ratio(m(base, ra0, "statpin"), m(u, ra0, "statpin")), 1.3)
        for ra in RA_LIST:
            row("%s io_uring vs /dev/fuse: 1 reader >= 1.0 x (ra %d)" % (base, ra), ratio(m(u, ra, "seq1"), m(base, ra, "seq1")), 1.0)
            row("%s io_uring vs /dev/fuse: CPU s/GiB < 1.0 x (ra %d)" % (base, ra), ratio(cpu(u, ra), cpu(base, ra)), 1.0, le=True)
        if base == "depotfs":
            row("depotfs on io_uring 1 reader >= 1.1 x rawfuse -f (ra %d)" % ra0,
                ratio(m(u, ra0, "seq1"), m("rawfuse-f", ra0, "seq1")), 1.1)
    # read-path chunk checks (issue 14): on by default only if they cost <= 15 %
    if any(k[0] == "depotfs-verify" for k in results):
        for ra in RA_LIST:
            for test, what in (("seq1first", "first read, every chunk checked"), ("seq1", "warm, chunks checked before")):
                row("depotfs --verify-reads 1 reader %s >= 0.85 x depotfs (ra %d)" % (what, ra),
                    ratio(m("depotfs-verify", ra, test), m("depotfs", ra, test)), 0.85)
        row("depotfs --verify-reads random 4 KiB O_DIRECT IOPS >= 0.85 x depotfs",
            ratio(m("depotfs-verify", RA_LIST[0], "rand"), m("depotfs", RA_LIST[0], "rand")), 0.85)
    for ra in RA_LIST:
        st = results.get(("depotfs-pt", ra), {}).get("_settings", {}).get("stats", {})
        if st:
            lines.append("| depotfs-pt ra %d: passthrough active | %s (%s passthrough opens) | |" % (
                ra, find_key(st, ("passthroughActive",)), find_key(st, ("passthroughOpens",))))
    return "\n".join(lines)


VARIANT_LABELS = []


def variants_table(variants):
    lines = ["depotfs with JVM options (DEPOTFS_JAVA_OPTS), one reader, cold, median of %d, in one loop with "
             "rawfuse -f; max_background %d / congestion_threshold %d. GB/s [server CPU s/GiB; JVM alloc per GiB "
             "over the mount (%d cold reads + mount/unmount)]:\n" % (VARIANT_RUNS, MAX_BG, CONG, VARIANT_RUNS),
             "| server | " + " | ".join("read_ahead_kb %d" % ra for ra in RA_LIST) + " |",
             "|---|" + "---|" * len(RA_LIST)]
    opts = dict(VARIANTS)
    for name in VARIANT_LABELS:
        cells = []
        for ra in RA_LIST:
            rs = variants.get((name, ra), [])
            a = rs[0].get("mount_alloc_per_gib") if rs else None
            cells.append("%s%s [%s%s]" % (fmt(med(rs), "gbs"), failed(rs), fmt(per_gib(rs, "cpu"), "cpu"),
                                          "; %s/GiB" % fmt(a, "bytes") if a is not None else ""))
        label_ = label(name)
        if name.startswith("depotfs+"):
            variant = name[len("depotfs+"):]
            label_ = "depotfs `%s`%s" % (opts.get(variant, ""), " [%s]" % split_transport(variant)[1]
                                         if split_transport(variant)[1] else "")
        lines.append("| %s | %s |" % (label_, " | ".join(cells)))
    return "\n".join(lines) + "\n"


def sweep_table(sweep):
    lines = []
    for name in SWEEP_SERVERS:
        if not any(k[0] == name for k in sweep):
            continue
        lines.append("%s, one reader, cold, GB/s (median of %d) [server CPU s/GiB; JVM alloc per GiB over the mount]:\n"
                     % (LABEL.get(name, name), SWEEP_RUNS))
        lines.append("| read_ahead_kb \\ max_background (cong = 3/4) | " + " | ".join(str(b) for b in SWEEP_BG) + " |")
        lines.append("|---|" + "---|" * len(SWEEP_BG))
        for ra in SWEEP_RA:
            if not any((name, ra, bg) in sweep for bg in SWEEP_BG):
                continue
            cells = []
            for bg in SWEEP_BG:
                rs = sweep.get((name, ra, bg))
                if not rs:
                    cells.append("n/a")
                    continue
                a = rs[0].get("mount_alloc_per_gib")
                cells.append("%s [%s%s]" % (fmt(med(rs), "gbs"), fmt(per_gib(rs, "cpu"), "cpu"),
                                            "; %s/GiB" % fmt(a, "bytes") if a is not None else ""))
            lines.append("| %d | %s |" % (ra, " | ".join(cells)))
        lines.append("")
    return "\n".join(lines)


def raw_runs(results):
    lines = []
    for (name, ra), t in sorted(results.items()):
        for test, rs in t.items():
            if test.startswith("_"):
                continue
            lines.append("%s ra=%d %s: %s" % (name, ra, test, ", ".join(
                ("ERROR " + r["error"]) if r.get("error") else
                ("%.3f" % r["value"] if r["value"] < 1000 else "%.0f" % r["value"]) for r in rs if r)))
    return "\n".join(lines)


def write_results(section):
    head = ("# purefuse benchmark results\n\n"
            "Produced by `bench/run.sh` (see bench/README.md). Newest run first; earlier runs are kept below so\n"
            "progress is visible. GB/s = 10^9 bytes/s. All reads cold (drop_caches + prefault before each run).\n\n"
            "<!-- runs below, newest first -->\n")
    old = ""
    if os.path.exists(RESULTS):
        with open(RESULTS) as f:
            text = f.read()
        marker = "<!-- runs below, newest first -->\n"
        old = text.split(marker, 1)[1] if marker in text else text
    with open(RESULTS, "w") as f:
        f.write(head + "\n" + section.rstrip() + "\n\n" + old.lstrip())


# ---------------------------------------------------------------------------------------------

CTX = None


# the C reference server and the prefault helper, shipped in bench/native (BENCH_RAWFUSE_DIR: another copy)
NATIVE_DIR = os.environ.get("BENCH_RAWFUSE_DIR") or os.path.join(ROOT, "bench", "native")


def build_natives(ctx):
    """compiles rawfuse and prefault into ctx.bin, as their sources say"""
    run(["gcc", "-O2", "-Wall", "-pthread", "-o", os.path.join(ctx.bin, "rawfuse"), os.path.join(NATIVE_DIR, "rawfuse.c")])
    run(["gcc", "-O2", "-o", os.path.join(ctx.bin, "prefault"), os.path.join(NATIVE_DIR, "prefault.c")])
    return NATIVE_DIR


URING_PARAM = "/sys/module/fuse/parameters/enable_uring"


def enable_uring(ctx):
    """FUSE over io_uring needs the fuse module's enable_uring (root); set it for the run, restore it after."""
    old = read_sys(URING_PARAM)
    if old is None:
        log("no %s: io_uring rows will fail" % URING_PARAM)
        return
    if old not in ("Y", "1"):
        write_sys(URING_PARAM, "1")
        if any(p == URING_PARAM for p, _ in ctx.restore):
            log("enable_uring was reset to %s by someone else during the run; set to 1 again" % old)
            return
        ctx.restore.append((URING_PARAM, old))
        with open(os.path.join(ctx.work, "restore"), "a") as f:
            f.write("%s %s\n" % (URING_PARAM, old))
        log("enable_uring %s -> 1 for this run (restored at exit)" % old)


def ensure_fusectl(ctx):
    d = "/sys/fs/fuse/connections"
    if not is_mounted(d):
        run(["mount", "-t", "fusectl", "none", d])
        ctx.add_mount(d)


def main():
    global CTX
    if os.geteuid() != 0:
        raise SystemExit("bench must run as root (mount, drop_caches, sysfs)")
    work = os.environ.get("BENCH_WORK") or tempfile.mkdtemp(prefix="purefuse-bench.")
    for sub in ("mnt", "logs"):
        os.makedirs(os.path.join(work, sub), exist_ok=True)
    ctx = CTX = Ctx(work)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt("signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    t_start = time.time()
    load0 = loadavg()
    try:
        src = build_natives(ctx)
        ensure_fusectl(ctx)
        fx = Fixture(ctx)
        ctx.fx = fx
        fx.make()
        if VARIANTS or any(s.startswith("depotfs") for s in SERVERS + (SWEEP_SERVERS if DO_SWEEP else [])):
            fx.import_depot()
        all_servers = {"tmpfs": Tmpfs(ctx, fx), "rawfuse-zero": RawFuse(ctx, fx, True),
                       "rawfuse-f": RawFuse(ctx, fx, False), "jnr-fuse": JnrFuse(ctx, fx), "hello": Hello(ctx, fx),
                       "mirror": Mirror(ctx, fx), "depotfs": Depotfs(ctx, fx, False),
                       "depotfs-pt": Depotfs(ctx, fx, True),
                       "depotfs-verify": Depotfs(ctx, fx, False, variant="depotfs-verify", mount_args=["--verify-reads"])}
        all_servers["depotfs-verify"].has_tree = False   # the same metadata path as depotfs: reads only
        names = list(SERVERS)
        if "BENCH_SERVERS" not in os.environ:   # rows per transport, once the CLIs have --transport
            names += ["%s@%s" % (n, t) for t in TRANSPORTS for n in ("hello", "mirror", "depotfs") if n in SERVERS]
        for n in names:
            base, transport = split_transport(n)
            if n not in all_servers and transport:
                all_servers[n] = {"hello": Hello, "mirror": Mirror}[base](ctx, fx, transport) if base != "depotfs" \
                    else Depotfs(ctx, fx, False, transport=transport)
        servers = []
        for n in names:
            s = all_servers[n]
            if s.available():
                servers.append(s)
            else:
                log("%s not available (not built yet, or no --transport yet): skipped" % n)
        if any(split_transport(s.name)[1] == "io-uring" for s in servers):
            enable_uring(ctx)
        pin_dev(servers)
        for base in AOT_SERVERS:
            if base not in [s.name for s in servers] or java_version() < 25 or not {"seq1first", "seq1"} & set(TESTS):
                continue
            if base == "depotfs":
                # bin/depotfs records its cache at its first local mount and starts with it: the row beside it
                # starts without (the rows above record it, if the build has none yet, before their first mount)
                a = Depotfs(ctx, fx, False, variant="depotfs-noaot")
                a.only_tests = ("seq1first", "seq1", "find")
                a.extra_env = {"PUREFUSE_AOT": "0"}
                pin_dev([a])
                servers.append(a)
                continue
            a = Mirror(ctx, fx)
            a.name = base + "+aot"
            a.only_tests = ("seq1first", "seq1")
            pin_dev([a])
            a.extra_env = {"PUREFUSE_AOT": "train"}
            log("training the AOT cache of %s: mount, one cold read, unmount" % base)
            a.start(RA_LIST[0], MAX_BG, CONG)
            r = measure(a, "seq1")
            a.stop()
            log("AOT training run of %s: %s" % (base, r))
            a.extra_env = {"PUREFUSE_AOT": "use"}
            servers.append(a)
        results = {}
        for ra in RA_LIST:
            if ra != RA_LIST[0] and not ALL_RA and all(t in RAND_TESTS or t in TREE_TESTS for t in TESTS):
                log("=== read_ahead_kb %d: skipped (random reads and the tree tests run at %d only)" % (ra, RA_LIST[0]))
                continue
            log("=== read_ahead_kb %d: mounting %s" % (ra, ", ".join(s.name for s in servers)))
            ra_servers = [s for s in servers if not (s.only_tests and ra != RA_LIST[0])]   # +aot: first ra only
            for s in ra_servers:
                s.start(ra, MAX_BG, CONG)
                results[(s.name, ra)] = {"_settings": s.settings()}
                log("%s settings %s" % (s.name, results[(s.name, ra)]["_settings"]))
            for rep in range(RUNS):
                for s in ra_servers:
                    if s.fuse and "seq1first" in TESTS:
                        # a fresh mount per round, round 1 included: seq1first is the first read of a mount made
                        # just before it (the mounts of the settings read-back above waited through the tests
                        # of every server before them, minutes for the last rows)
                        s.stop()
                        s.start(ra, MAX_BG, CONG)
                    for test in TESTS:
                        if test in TREE_TESTS and (not s.has_tree or s.name == "depotfs-pt" and not TREE_PT):
                            continue
                        if test == "seq1first" and not s.fuse or s.only_tests and test not in s.only_tests:
                            continue
                        if test not in ("seq1first", "seq1") and rep >= RUNS_OTHER:
                            continue
                        if (test in RAND_TESTS or test in TREE_TESTS) and ra != RA_LIST[0] and not ALL_RA:
                            continue
                        r = measure(s, test)
                        results[(s.name, ra)].setdefault(test, []).append(r)
                        log("ra %d run %d %-12s %-5s %s" % (ra, rep + 1, s.name, test, {
                            k: (round(v, 3) if isinstance(v, float) else v) for k, v in (r or {}).items()}))
            for s in ra_servers:
                s.stop()
                st = results[(s.name, ra)]["_settings"]
                st["max_pages"] = st.get("max_pages") or s.max_pages()
                if s.last_stats:
                    st["stats"] = s.last_stats
            # JVM allocation: depotfs --stats counts bytesAllocated from mount-ready to unmount, so each
            # figure comes from a mount of its own that serves exactly one cold test
            for s in servers:
                if not s.stats_file or s.only_tests:
                    continue
                for test in [t for t in ("seq1", "find") if t in TESTS]:
                    if test == "find" and (not s.has_tree or s.name == "depotfs-pt" and not TREE_PT):
                        continue
                    s.start(ra, MAX_BG, CONG)
                    r = measure(s, test)
                    s.stop()
                    a = find_key(s.last_stats, ("bytesAllocated",))
                    got = find_key(s.last_stats, ("bytesRead",))
                    results[(s.name, ra)]["_alloc_" + test] = {"alloc": a, "bytesRead": got, "run": r}
                    log("alloc pass %s ra %d %s: bytesAllocated %s bytesRead %s (%s)" % (
                        s.name, ra, test, a, got, r.get("value")))
                    if test != "seq1" or a is None or not got:
                        continue
                    # steady state: a second mount serves 1 + ALLOC_EXTRA cold reads; what the extra reads
                    # allocated (the difference of the two mounts) is the per-GiB cost without start-up, JIT
                    # warm-up and unmount, all of which the first figure includes
                    s.start(ra, MAX_BG, CONG)
                    for _ in range(1 + ALLOC_EXTRA):
                        measure(s, test)
                    s.stop()
                    a2 = find_key(s.last_stats, ("bytesAllocated",))
                    got2 = find_key(s.last_stats, ("bytesRead",))
                    if a2 is not None and got2 and got2 > got:
                        marginal = (a2 - a) / ((got2 - got) / GiB)
                        results[(s.name, ra)]["_alloc_marginal"] = marginal
                        log("alloc pass %s ra %d: %d reads allocated %s, steady state %.1f KiB/GiB" % (
                            s.name, ra, 1 + ALLOC_EXTRA, a2, marginal / 1024))
        variants = {}
        if VARIANTS and all_servers["depotfs"].available():
            # a variant on another transport runs beside depotfs on that transport too, so that its row
            # has its own baseline in the same loop (e.g. BENCH_VARIANTS='no-move@io-uring=-D...')
            baselines = []
            for t in sorted({split_transport(n)[1] for n, _ in VARIANTS} - {None, "dev"}):
                b = all_servers.get("depotfs@" + t) or Depotfs(ctx, fx, False, transport=t)
                baselines.append(b)
            vs = [all_servers["rawfuse-f"], all_servers["depotfs"]] + baselines + [
                Depotfs(ctx, fx, False, "depotfs+" + n, o, split_transport(n)[1] or "dev") for n, o in VARIANTS]
            for ra in RA_LIST:
                for v in vs:
                    v.start(ra, MAX_BG, CONG)
                for rep_ in range(VARIANT_RUNS):
                    for v in vs:
                        r = measure(v, "seq1")
                        variants.setdefault((v.name, ra), []).append(r)
                        log("variant ra %d run %d %s: %s GB/s, cpu %s" % (ra, rep_ + 1, v.name, r.get("value"), r.get("cpu")))
                for v in vs:
                    v.stop()
                    if v.last_stats:
                        a = find_key(v.last_stats, ("bytesAllocated",))
                        got = find_key(v.last_stats, ("bytesRead",))
                        if a is not None and got:
                            variants[(v.name, ra)][0]["mount_alloc_per_gib"] = a / (got / GiB)
                            variants[(v.name, ra)][0]["mount_alloc"] = a
                            variants[(v.name, ra)][0]["mount_read"] = got
            VARIANT_LABELS[:] = [v.name for v in vs]
        sweep = {}
        if DO_SWEEP:
            for name in SWEEP_SERVERS:
                s = all_servers[name]
                if not s.available():
                    continue
                raw = name.startswith("rawfuse")
                for bg in (SWEEP_RAW_BG if raw else SWEEP_BG):
                    for ra in (SWEEP_RAW_RA if raw else SWEEP_RA):
                        s.start(ra, bg, bg * 3 // 4)
                        st = s.settings()
                        if str(st.get("ra_kb")) != str(ra) or str(st.get("max_bg")) != str(bg):
                            log("WARNING: %s asked ra %d bg %d, kernel has %s" % (name, ra, bg, st))
                        rs = [measure(s, "seq1") for _ in range(SWEEP_RUNS)]
                        s.stop()
                        a = find_key(s.last_stats, ("bytesAllocated",))
                        got = find_key(s.last_stats, ("bytesRead",))
                        if a is not None and got:
                            rs[0]["mount_alloc_per_gib"] = a / (got / GiB)
                        sweep[(name, ra, bg)] = rs
                        log("sweep %s ra %d bg %d: %s" % (name, ra, bg, [r["value"] for r in rs]))
        mach = machine()
        elapsed = time.time() - t_start
        section = ["## Run %s\n" % mach["date"]]
        if NOTE:
            section.append(NOTE + "\n")
        section.append("Machine: nproc %s, %s, %s RAM, kernel %s, %s, fio: %s. Commit: %s.  " % (
            mach["nproc"], mach["cpu"], mach["memory"], mach["kernel"], mach["jdk"], mach["fio"], mach["commit"]))
        section.append("Load average at start %s, at end %s; run took %.0f s. Object %d GiB, tree %d files in %d dirs "
                       "(%s entries seen by find); 1 reader first/warm: medians of %d; 4 readers, random reads and "
                       "tree tests: medians of %d (BENCH_RUNS_OTHER); random reads %d s each; rawfuse -t %d; "
                       "main table at max_background %d / congestion_threshold %d. Fixture %s.\n" % (
                           load0, loadavg(), elapsed, SIZE_GB, TREE, TREE_DIRS, getattr(fx, "tree_entries", "?"),
                           RUNS, min(RUNS, RUNS_OTHER), RAND_SECONDS, RAW_THREADS, MAX_BG, CONG,
                           "in %s (%s, on %s; every cold read reads the disk)" % (
                               fx.root, fx.fstype, out(["findmnt", "-n", "-o", "SOURCE", "-T", fx.root]).strip())
                           if FIXTURE_DIR else "on a private tmpfs"))
        section.append("Command: `%s`.\n" % " ".join(x for x in (bench_env(), "bench/run.sh") if x))
        pinned = [s.name for s in servers if getattr(s, "transport", None) == "dev"]
        if pinned:
            section.append("Rows without a transport in their name (%s) pin the /dev/fuse transport "
                           "(`-Dpurefuse.transport=dev` or `--transport dev`); enable_uring was %s.\n" % (
                               ", ".join(pinned), read_sys(URING_PARAM)))
        if getattr(fx, "import_seconds", None):
            section.append("depotfs import of the object and the tree: %.1f s.\n" % fx.import_seconds)
        section.append("### 1 reader, cold `dd bs=1M` (GB/s, median of %d; ratios to rawfuse -f and jnr-fuse of this run)\n\n"
                       % RUNS + issue_table(results, servers))
        section.append("### All rows\n\n" + main_table(results, servers) + "\n")
        section.append("### First read after mount: JIT warm-up and the AOT cache\n\ndepotfs starts with the JDK 25 "
                       "AOT cache its launcher records (bin/depotfs, `PUREFUSE_AOT=auto`); `depotfs-noaot` is the same "
                       "without it (`PUREFUSE_AOT=0`). `+aot` rows: the same server "
                       "started by its launcher with `PUREFUSE_AOT=use` (JDK 25 AOT cache recorded by one training "
                       "mount with `PUREFUSE_AOT=train`). JIT and class-loading seconds come from the JVM's "
                       "hsperfdata counters (`java.ci.totalTime`, `sun.cls.time`) before and after each read.\n\n"
                       + first_table(results, servers))
        section.append("### Targets\n\n" + targets(results) + "\n")
        if variants:
            section.append("### Read-path experiments\n\n" + variants_table(variants))
        if sweep:
            section.append("### Read-path sweep\n\n" + sweep_table(sweep))
        jmh = os.path.join(work, "jmh.md")
        if os.path.exists(jmh):
            with open(jmh) as f:
                section.append("### JMH (`bench/jmh.sh`, -prof gc; ns/op, bytes allocated per op)\n\n" + f.read())
        section.append("<details><summary>raw runs</summary>\n\n```\n" + raw_runs(results) + "\n" + "\n".join(
            "sweep %s ra=%d bg=%d: %s" % (k[0], k[1], k[2], ", ".join(
                "%.3f" % r["value"] if r.get("value") is not None else "ERROR" for r in v))
            for k, v in sorted(sweep.items())) + "\n" + "\n".join(
            "variant %s ra=%d: %s" % (k[0], k[1], ", ".join(
                "%.3f" % r["value"] if r.get("value") is not None else "ERROR" for r in v))
            for k, v in sorted(variants.items())) + "\n```\n</details>\n")
        text = "\n".join(section)
        print(text)
        if WRITE_RESULTS:
            write_results(text)
            log("written to %s" % RESULTS)
        with open(os.path.join(work, "results.json"), "w") as f:
            json.dump({"%s@%d" % k: v for k, v in results.items()}, f, indent=1, default=str)
        log("rawfuse sources: %s; work dir %s; total %.0f s" % (src, work, elapsed))
    finally:
        ctx.cleanup()
        with open("/proc/self/mountinfo") as f:
            still = [line.split()[4] for line in f if line.split()[4].startswith(work)]
        if still:
            log("WARNING: still mounted: %s" % still)
        elif os.environ.get("BENCH_KEEP_WORK") != "1":
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:   # it takes no arguments: --help must not start a run that writes GiBs
        print(__doc__.strip() + "\n\nUsage: %s (settings in the environment: bench/README.md)" % "bench/run.sh")
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    main()
