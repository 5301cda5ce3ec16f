#!/usr/bin/env bash
# JMH benchmarks of the codec and the kit, with allocation per operation (-prof gc).
#   bench/jmh.sh [REGEXP] [extra JMH args]     default REGEXP: io.github.purefuse.bench (all)
# Writes a Markdown table to $BENCH_JMH_MD (default bench/target/jmh.md) and the raw JSON beside it.
# Uses bench/target/benchmarks.jar if the bench pom builds one; else runs from the reactor classpath.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
JAVA_HOME=${BENCH_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
FILTER=${1:-${BENCH_JMH_FILTER:-io.github.purefuse.bench}}
shift || true
OUT=${BENCH_JMH_MD:-$ROOT/bench/target/jmh.md}
JSON=${OUT%.md}.json
mkdir -p "$(dirname "$OUT")"

if [ "${BENCH_BUILD:-1}" != 0 ]; then
  # -Dmaven.compiler.proc=full: javac 23+ runs annotation processors (JMH's generator) only when asked
  mvn -B -q -o compile dependency:build-classpath -pl bench -am -Dmaven.compiler.proc=full \
      -Dmdep.outputFile=target/cp.txt >&2 \
    || mvn -B -q compile dependency:build-classpath -pl bench -am -Dmaven.compiler.proc=full \
      -Dmdep.outputFile=target/cp.txt >&2
fi
if [ -f bench/target/benchmarks.jar ] && [ bench/target/benchmarks.jar -nt bench/target/classes ]; then
  CP=bench/target/benchmarks.jar
else
  CP=bench/target/classes:$(cat bench/target/cp.txt)
fi
# -jvmArgsPrepend, not -jvmArgsAppend: JMH's command line replaces a benchmark's @Fork(jvmArgsAppend = ...) (e.g.
# InodeTableBench's -Xms1g -Xmx1g) instead of adding to it; no benchmark sets jvmArgsPrepend
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$CP" \
  org.openjdk.jmh.Main "$FILTER" -prof gc -rf json -rff "$JSON" \
  -jvmArgsPrepend "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow" "$@" >&2

python3 - "$JSON" "$OUT" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
out = ["| benchmark | params | score | unit | ± (99.9%) | alloc B/op |", "|---|---|---|---|---|---|"]
for r in rows:
    pm = r["primaryMetric"]
    sec = r.get("secondaryMetrics", {})
    alloc = sec.get("gc.alloc.rate.norm", {}).get("score")
    params = ",".join("%s=%s" % kv for kv in (r.get("params") or {}).items())
    err = pm.get("scoreError")
    out.append("| %s | %s | %.1f | %s | %s | %s |" % (
        r["benchmark"].replace("io.github.purefuse.bench.", ""), params or "", pm["score"], pm["scoreUnit"],
        "%.1f" % err if isinstance(err, (int, float)) and err == err else "", "%.0f" % alloc if alloc is not None else "n/a"))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
