#!/usr/bin/env python3
"""Summarise a JFR recording made by the bench (BENCH_JFR=depotfs bench/run.sh):
hottest methods (top frame and inclusive), allocation by class and site, and native (jnr) time.

    bench/jfr-top.py bench/target/depotfs-*.jfr [--top 25]
"""
import collections
import json
import os
import subprocess
import sys

JAVA_HOME = os.environ.get("BENCH_JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")


def frames(ev):
    st = ev.get("values", {}).get("stackTrace") or {}
    out = []
    for f in st.get("frames", []) or []:
        m = f.get("method", {})
        t = m.get("type", {}).get("name", "?")
        out.append("%s.%s:%s" % (t.split(".")[-1] if t.count(".") > 3 else t, m.get("name", "?"), f.get("lineNumber", "")))
    return out


def load(path, events):
    r = subprocess.run([os.path.join(JAVA_HOME, "bin", "jfr"), "print", "--json", "--events", events, path],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["recording"]["events"]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    top = 25
    if "--top" in sys.argv:
        top = int(sys.argv[sys.argv.index("--top") + 1])
        args = [a for a in args if a != str(top)]
    for path in args:
        print("== %s" % path)
        ex = load(path, "jdk.ExecutionSample,jdk.NativeMethodSample")
        self_c, incl_c, threads = collections.Counter(), collections.Counter(), collections.Counter()
        for ev in ex:
            fs = frames(ev)
            if not fs:
                continue
            self_c[fs[0]] += 1
            for f in set(fs):
                incl_c[f] += 1
            th = ev.get("values", {}).get("sampledThread") or {}
            threads[(th.get("javaName") or th.get("osName") or "?") + (" [native]" if ev["type"] == "jdk.NativeMethodSample" else "")] += 1
        n = sum(self_c.values()) or 1
        print("%d samples (execution + native)" % n)
        print("-- top frames (self)")
        for f, c in self_c.most_common(top):
            print("%6.1f%%  %s" % (100.0 * c / n, f))
        print("-- inclusive")
        for f, c in incl_c.most_common(top):
            print("%6.1f%%  %s" % (100.0 * c / n, f))
        print("-- threads")
        for t, c in threads.most_common(12):
            print("%6.1f%%  %s" % (100.0 * c / n, t))
        al = load(path, "jdk.ObjectAllocationSample")
        by_cls, by_site = collections.Counter(), collections.Counter()
        for ev in al:
            v = ev.get("values", {})
            w = v.get("weight", 0)
            by_cls[(v.get("objectClass") or {}).get("name", "?")] += w
            fs = frames(ev)
            by_site[" < ".join(fs[:3])] += w
        tot = sum(by_cls.values()) or 1
        print("-- allocation (sampled weight %.1f MiB)" % (tot / 2**20))
        for c, w in by_cls.most_common(12):
            print("%6.1f%%  %s" % (100.0 * w / tot, c))
        for s, w in by_site.most_common(top):
            print("%6.1f%%  %s" % (100.0 * w / tot, s))


if __name__ == "__main__":
    main()
