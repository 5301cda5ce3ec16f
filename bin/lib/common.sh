# Shared helpers for the bin/ launchers (source it; it defines functions only and changes no shell options).
#
#   purefuse_find_java MIN          print the path of a java whose feature version is >= MIN:
#                                   $JAVA_HOME/bin/java if it qualifies, else the newest /usr/lib/jvm/*/bin/java,
#                                   else java on the PATH; returns 1 (with a message on stderr) if there is none
#   purefuse_java_version JAVA      print the feature version of a java executable (e.g. 25), or 0
#   purefuse_ensure_built MODULE    build MODULE's jar (mvn package -DskipTests, with -am) on first use or when
#                                   a pom or main source is newer than it and than the launchers' last build of
#                                   it, and write its runtime classpath to MODULE/target/runtime.classpath; tries
#                                   offline (-o) first
#   purefuse_classpath MODULE       print MODULE's jar plus its runtime classpath, ready for java -cp; the jars of
#                                   this build as copies named by their content, which a later build cannot change
#                                   under a running server (_purefuse_stable_copy)
#   purefuse_check_classpath MODULE fail with one line if this user cannot read a part of it (built by another)
#   purefuse_check_nofile NAME      warn in one line when the limit of open files (ulimit -n) is below 512: the
#                                   JVM opens a file per jar of the class path (~250 for depotfs) before it serves
#                                   anything, and a server that hits the limit fails in the JDK's or a library's
#                                   words (a time-zone file, an HTTP client), not ours
#   purefuse_check_cwd NAME         fail with one line if the working directory is gone (removed, or below a root
#                                   of a mount that has moved on: ESTALE), which the JVM would report in nine lines
#                                   ("Error occurred during initialization of VM ... current working directory")
#   purefuse_jvm_flags JAVA         print the flags that keep a purefuse JVM quiet and working on that java:
#                                   --enable-native-access=ALL-UNNAMED (jnr-ffi's jffi calls System.load; JDK 24+
#                                   warns otherwise) and, from JDK 23 on, --sun-misc-unsafe-memory-access=allow
#                                   (jffi and Netty use sun.misc.Unsafe; JDK 24+ warns otherwise; 21/22 reject it)
#   purefuse_aot_flags MODULE JAVA [DEFAULT [OPTIONS]]
#                                   print the JVM flags for MODULE's ahead-of-time cache (JDK 25+: JEP 483
#                                   class loading and linking, JEP 515 method profiles), chosen by PUREFUSE_AOT
#                                   (when unset: DEFAULT, or 0 without one). OPTIONS: the user's JVM options the
#                                   launcher adds (e.g. $DEPOTFS_JAVA_OPTS); with those of JAVA_TOOL_OPTIONS and
#                                   JDK_JAVA_OPTIONS they choose the cache: MODULE.aot without any, else
#                                   MODULE-HASH.aot (the first 8 hex digits of their SHA-1), recorded with them.
#                                   The JVM refuses a cache recorded with other options that change its module
#                                   graph (-XX:StartFlightRecording adds jdk.jfr), with errors at every start.
#                                   Recording one removes other options' caches of earlier builds, and keeps
#                                   the newest three of this build's.
#                                     train  record it: -XX:AOTCacheOutput=MODULE/target/MODULE.aot, written
#                                            when this JVM exits (run a typical mount, read, unmount)
#                                     use    -XX:AOTCache=MODULE/target/MODULE.aot if it is fresh (newer than the
#                                            jar and the class path, recorded by this java), plus
#                                            -XX:+AOTCompileEagerly where this java has it (experimental in 25:
#                                            the methods the training compiled are compiled at start-up, from
#                                            its profiles, instead of when they turn hot)
#                                     auto   as use; when the cache is missing or stale, first record it with
#                                            the function purefuse_aot_train_MODULE (the launcher defines it: a
#                                            training run of its own; PUREFUSE_AOT_OUTPUT tells its train-mode
#                                            JVM where to write), once per build and JDK, under a lock; a failed
#                                            training is logged to MODULE/target/MODULE.aot.log and not retried
#                                            until the next build (or until that log is removed)
#                                     0      nothing
#                                   On a JDK older than 25 it prints nothing: the plain start.
#
# PUREFUSE_ROOT is the repository root (the folder above bin/). Set PUREFUSE_REBUILD=1 to force a build.

PUREFUSE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

purefuse_java_version() {
  local java="$1" home v
  home="$(dirname "$(dirname "$(readlink -f "$java")")")"
  if [[ -r "$home/release" ]]; then
    v="$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$home/release" | head -n1)"
    if [[ -n "$v" && "$v" != 1 ]]; then echo "$v"; return; fi
  fi
  v="$("$java" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\)[."].*/\1/p' | head -n1)" || true
  [[ "$v" == 1 ]] && v=8
  echo "${v:-0}"
}

purefuse_check_nofile() {
  local n
  n="$(ulimit -n)"
  if [[ "$n" =~ ^[0-9]+$ ]] && (( n < 512 )); then
    echo "$1: WARNING: the limit of open files is $n (ulimit -n); the JVM opens ~250 before it serves, a mount one more per open file: raise it (ulimit -n 4096)" >&2
  fi
  return 0
}

purefuse_check_cwd() {
  pwd -P > /dev/null 2>&1 && return 0
  echo "$1: the current directory is gone or cannot be reached (removed, or below a root that has moved on): cd elsewhere first" >&2
  return 1
}

purefuse_find_java() {
  local min="${1:-21}" best="" best_v=0 j v
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]] && (( $(purefuse_java_version "$JAVA_HOME/bin/java") >= min )); then
    echo "$JAVA_HOME/bin/java"; return 0
  fi
  for j in /usr/lib/jvm/*/bin/java; do
    [[ -x "$j" ]] || continue
    v="$(purefuse_java_version "$j")"
    if (( v >= min && v > best_v )); then best="$j"; best_v="$v"; fi
  done
  if [[ -z "$best" ]] && command -v java >/dev/null 2>&1; then
    j="$(command -v java)"
    if (( $(purefuse_java_version "$j") >= min )); then best="$j"; fi
  fi
  if [[ -z "$best" ]]; then
    echo "no JDK $min or newer found (looked at \$JAVA_HOME, /usr/lib/jvm/*, java on the PATH)" >&2
    return 1
  fi
  echo "$best"
}

purefuse_jvm_flags() {
  local v
  v="$(purefuse_java_version "$1")"
  if (( v >= 23 )); then
    echo "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
  else
    echo "--enable-native-access=ALL-UNNAMED"
  fi
}

_purefuse_jar() {
  ls "$PUREFUSE_ROOT/$1"/target/*.jar 2>/dev/null | grep -v -- '-sources\.jar\|-javadoc\.jar\|-tests\.jar' | head -n1 || true
}

# Sources newer than the jar, or than the last build by a launcher (target/.launcher-built): Maven leaves a jar
# untouched when its classes did not change (an edit of the site, or of a module the launcher does not use), so
# the jar alone would make every later launch build again.
_purefuse_needs_build() {
  local module="$1" jar stamp ref
  jar="$(_purefuse_jar "$module")"
  [[ -n "${PUREFUSE_REBUILD:-}" || -z "$jar" || ! -f "$PUREFUSE_ROOT/$module/target/runtime.classpath" ]] && return 0
  stamp="$PUREFUSE_ROOT/$module/target/.launcher-built"
  ref="$jar"
  [[ "$stamp" -nt "$jar" ]] && ref="$stamp"
  [[ -n "$(find "$PUREFUSE_ROOT"/pom.xml "$PUREFUSE_ROOT"/*/pom.xml "$PUREFUSE_ROOT"/*/src/main -newer "$ref" -print -quit 2>/dev/null)" ]]
}

purefuse_ensure_built() {
  local module="$1" java java_home
  _purefuse_needs_build "$module" || return 0
  local target="$PUREFUSE_ROOT/$module/target"
  [[ -d "$target" ]] || target="$PUREFUSE_ROOT/$module"
  if [[ ! -w "$target" ]]; then
    # a shared install owned by another user (root), whose sources changed since its build (a git pull)
    echo "$(basename "$0"): $module in $PUREFUSE_ROOT needs a build (sources newer than its jar) and $(id -un 2>/dev/null || id -u)" \
         "may not write there: ask its owner to run a command of it once (e.g. $PUREFUSE_ROOT/bin/${0##*/} --help)," \
         "or use a clone of your own" >&2
    return 1
  fi
  command -v mvn >/dev/null 2>&1 || { echo "Maven (mvn) is needed to build $module on first use" >&2; return 1; }
  java="$(purefuse_find_java 21)" || return 1
  java_home="$(dirname "$(dirname "$(readlink -f "$java")")")"
  echo "building $module (first use or sources changed) ..." >&2
  (
    cd "$PUREFUSE_ROOT" || exit 1
    mkdir -p "$PUREFUSE_ROOT/$module/target"
    if command -v flock >/dev/null 2>&1; then exec 9>"$PUREFUSE_ROOT/$module/target/.build.lock"; flock 9; fi
    _purefuse_needs_build "$module" || exit 0
    local goals=(package dependency:build-classpath -DskipTests -DincludeScope=runtime
                 -Dmdep.outputFile=target/runtime.classpath)
    # Maven runs on that JDK too; from JDK 23 on its own Guice/Guava would print sun.misc.Unsafe warnings.
    local maven_opts="${MAVEN_OPTS:-}"
    if (( $(purefuse_java_version "$java") >= 23 )); then
      maven_opts="--sun-misc-unsafe-memory-access=allow $maven_opts"
    fi
    # Plain text only, so that a captured output (a log file, a test) is clean: -B, --no-transfer-progress and
    # -Dstyle.color=never for Maven's messages, and jansi.noreset for the "ESC[0m" that Maven 3.8's console
    # library writes to stdout and stderr when it starts, even in batch mode.
    maven_opts="-Djansi.noreset=true $maven_opts"
    local quiet=(-B -q --no-transfer-progress -Dstyle.color=never)
    local started="$PUREFUSE_ROOT/$module/target/.launcher-build-started"
    touch "$started"   # what changes during the build is newer than the stamp, and builds again next time
    # Offline first (fast, no network); its errors are kept out of sight ("Cannot access central in offline
    # mode" when a dependency is missing): the online build that follows says what matters.
    local offline_log="$PUREFUSE_ROOT/$module/target/.launcher-offline-build.log"
    { JAVA_HOME="$java_home" MAVEN_OPTS="$maven_opts" mvn "${quiet[@]}" -o -pl "$module" -am "${goals[@]}" \
        >"$offline_log" 2>&1 \
      || JAVA_HOME="$java_home" MAVEN_OPTS="$maven_opts" mvn "${quiet[@]}" -pl "$module" -am "${goals[@]}" >&2; } \
      && mv -f "$started" "$PUREFUSE_ROOT/$module/target/.launcher-built"
  ) || { echo "build failed: cd $PUREFUSE_ROOT && mvn -B -pl $module -am package -DskipTests" >&2; return 1; }
}

purefuse_classpath() {
  local module="$1" entry all
  local -a out=()
  all="$(_purefuse_jar "$module"):$(cat "$PUREFUSE_ROOT/$module/target/runtime.classpath" 2>/dev/null)"
  local IFS=:
  for entry in $all; do
    if [[ "$entry" == *-SNAPSHOT.jar || "$entry" == "$PUREFUSE_ROOT"/* ]]; then
      entry="$(_purefuse_stable_copy "$entry")"
    fi
    out+=("$entry")
  done
  echo "${out[*]}"
}

# Prints where a jar of this build (the module's own, or a SNAPSHOT one in Maven's repository) has a copy named by
# its content, made if needed: the next build rewrites those files in place (mvn install, or a launcher that
# rebuilds first), and a server still running from them failed with NoClassDefFoundError at its next class to load,
# its mount gone. Released jars are never rewritten. Copies go to $PUREFUSE_JAR_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/purefuse/jars; those unused for 30 days are removed. Prints the jar itself if no
# copy can be made. Without HOME (a systemd service without User=, mount(8) at boot) the home is the user's entry in
# the password database, as for the JVM's user.home: a made-up one such as /nonexistent was created by root, and
# its copies' names differed from those the AOT cache was recorded with (errors at every start).
_purefuse_stable_copy() {
  local jar="$1" dir sum copy home="${HOME:-}"
  if [[ -z "$home" ]]; then
    home="$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6)" || home=""
  fi
  if [[ -z "${PUREFUSE_JAR_CACHE:-}${XDG_CACHE_HOME:-}" && ( -z "$home" || ! -d "$home" ) ]]; then
    echo "$jar"   # no home to keep copies in
    return 0
  fi
  dir="${PUREFUSE_JAR_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/purefuse/jars}"
  sum="$(sha256sum < "$jar" 2>/dev/null)" && sum="${sum:0:16}" || { echo "$jar"; return 0; }
  copy="$dir/$sum/${jar##*/}"
  if [[ ! -f "$copy" ]]; then
    if ! { mkdir -p "$dir/$sum" && cp -p "$jar" "$copy.$$" && mv -f "$copy.$$" "$copy"; } 2>/dev/null; then
      rm -f "$copy.$$" 2>/dev/null
      echo "$jar"
      return 0
    fi
    find "$dir" -mindepth 1 -maxdepth 1 -type d -atime +30 -exec rm -rf {} + 2>/dev/null
  fi
  touch -a "$copy" "$dir/$sum" 2>/dev/null
  echo "$copy"
}

# Fails with one line when this user cannot read a part of MODULE's class path: built by another user (root,
# whose ~/.m2 other users may not read), the JVM would stop with a NoClassDefFoundError instead.
purefuse_check_classpath() {
  local module="$1" entry
  local IFS=:
  for entry in $(purefuse_classpath "$module"); do
    if [[ -n "$entry" && ! -r "$entry" ]]; then
      echo "$(basename "$0"): cannot read $entry as $(id -un 2>/dev/null || id -u): $module was built by another user; build it as" \
           "this one (PUREFUSE_REBUILD=1 $0 ..., with Maven's repository in your home) or make that file readable" >&2
      return 1
    fi
  done
}

purefuse_aot_flags() {
  local module="$1" java="$2" mode="${PUREFUSE_AOT:-${3:-0}}" cache opts
  case "$mode" in
    train|use|auto) ;;
    0) return 0 ;;
    *) echo "$(basename "$0"): PUREFUSE_AOT=$mode: expected auto, use, train or 0; starting without the AOT cache" >&2
       return 0 ;;
  esac
  (( $(purefuse_java_version "$java") >= 25 )) || return 0
  local -a words
  read -r -a words <<< "${4:-} ${JAVA_TOOL_OPTIONS:-} ${JDK_JAVA_OPTIONS:-}"   # split on blanks, as the JVM does
  opts="${words[*]}"
  if [[ -n "$opts" ]]; then
    cache="$PUREFUSE_ROOT/$module/target/$module-$(printf '%s' "$opts" | sha1sum | cut -c1-8).aot"
  else
    cache="$PUREFUSE_ROOT/$module/target/$module.aot"
  fi
  if [[ "$mode" == train ]]; then
    # _purefuse_aot_train has it written aside (PUREFUSE_AOT_OUTPUT) and moves it in place once complete
    if [[ -z "${PUREFUSE_AOT_OUTPUT:-}" ]]; then
      _purefuse_aot_stamp "$module" "$java" "$cache" 2>/dev/null || true
    fi
    echo "-XX:AOTCacheOutput=${PUREFUSE_AOT_OUTPUT:-$cache}"
    return 0
  fi
  # A fresh cache is checked once (every jar of the class path: at every start); only a training checks again.
  # One recorded with another class path (another user's jar copies of a shared install, another HOME) is left to
  # its own: the JVM would refuse it with four errors at every start, and recording ours over it would take it away.
  local fresh=0
  _purefuse_aot_fresh "$module" "$java" "$cache" || fresh=$?
  (( fresh != 2 )) || return 0
  if (( fresh != 0 )); then
    [[ "$mode" == auto ]] || return 0
    _purefuse_aot_train "$module" "$java" "$cache"
    _purefuse_aot_fresh "$module" "$java" "$cache" || return 0
  fi
  echo "-XX:AOTCache=$cache $(sed -n 2p "$cache.java")"
}

# CACHE.java, the stamp of a recorded cache: the java it belongs to, then the flags to start it with:
# -XX:+AOTCompileEagerly where that java has it (probed here, once per recording, not at every start), then the
# class path it was recorded with (the JVM takes a cache only with that class path).
_purefuse_aot_stamp() {
  local module="$1" java="$2" cache="$3" eager=""
  if "$java" -XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly -version >/dev/null 2>&1; then
    eager="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly"
  fi
  printf '%s\n%s\n%s\n' "$(readlink -f "$java")" "$eager" "$(purefuse_classpath "$module")" > "$cache.java"
}

# A cache is fresh when it is not empty, was recorded by this java (CACHE.java's first line) with this class path
# (its third line; else 2: another's cache), and is newer than the module's jar, every jar of its class path and
# the JDK's modules file: the JVM rejects a cache when a jar it was recorded with changed since (even its time),
# or when its class path differs, with errors on standard output at every start.
_purefuse_aot_fresh() {
  local module="$1" java="$2" cache="$3" jar entry cp recorded
  jar="$(_purefuse_jar "$module")"
  [[ -s "$cache" && -n "$jar" && -f "$cache.java" ]] || return 1
  [[ -r "$cache" && "$(head -n1 "$cache.java" 2>/dev/null)" == "$(readlink -f "$java")" ]] || return 1
  cp="$(purefuse_classpath "$module")"
  recorded="$(sed -n 3p "$cache.java" 2>/dev/null)"
  [[ -z "$recorded" || "$recorded" == "$cp" ]] || return 2
  local IFS=:
  for entry in $cp "$PUREFUSE_ROOT/$module/target/runtime.classpath" \
               "$(dirname "$(dirname "$(readlink -f "$java")")")/lib/modules"; do
    [[ -z "$entry" || ! -e "$entry" || "$cache" -nt "$entry" ]] || return 1
  done
}

# Records MODULE's cache with purefuse_aot_train_MODULE (its output goes to CACHE.log), unless that failed since
# the last build or the launcher cannot write to target/. The training's JVM writes CACHE.new, moved to CACHE
# once the training is complete, so that no run that stopped midway leaves a cache that looks whole. Messages go
# to stderr: this runs inside $(...).
_purefuse_aot_train() {
  local module="$1" java="$2" cache="$3" log="$3.log" jar
  declare -F "purefuse_aot_train_$module" >/dev/null || return 0
  [[ -w "$(dirname "$cache")" ]] || return 0
  jar="$(_purefuse_jar "$module")"
  [[ -f "$log" && "$log" -nt "$jar" ]] && return 0   # failed for this build already: see the log
  (
    trap 'rm -f "$log.partial" "$cache.new" "$cache.new.config"' EXIT   # also when a signal ends the training
    if command -v flock >/dev/null 2>&1 && { exec 8>>"$cache.lock"; } 2>/dev/null; then
      if ! flock -n 8; then
        echo "$module: waiting for another launcher to finish recording the JDK's ahead-of-time cache ..." >&2
        flock 8
      fi
    fi
    local rc=0
    _purefuse_aot_fresh "$module" "$java" "$cache" || rc=$?
    (( rc == 1 )) || exit 0   # another launcher recorded it meanwhile (for this class path or another)
    [[ -f "$log" && "$log" -nt "$jar" ]] && exit 0
    rm -f "$cache" "$cache.java" "$cache.new" "$cache.new.config" "$cache.config"   # .config: the JVM's own
    # Other options' caches: those of an earlier build are stale for good, and of this build's the newest three
    # stay (options that name a new file each time, such as a JFR recording's, would add one per start)
    local old kept=0
    while IFS= read -r old; do
      if [[ ! "$old" -nt "$jar" ]] || (( ++kept > 3 )); then
        rm -f "$old" "$old.java" "$old.log"
      fi
    done < <(ls -t "$(dirname "$cache")/$module"-*.aot 2>/dev/null)
    for old in "$(dirname "$cache")/$module"-*.aot.lock; do   # and the locks of caches gone, unless held
      [[ -f "$old" && ! -e "${old%.lock}" ]] && command -v flock >/dev/null 2>&1 \
        && flock -n "$old" true 2>/dev/null && rm -f "$old"
    done
    echo "$module: recording the JDK's ahead-of-time cache, once per build and JDK (a training mount, ~20 s;" \
         "PUREFUSE_AOT=0 skips it) ..." >&2
    # The log becomes the mark of a failed training only once it failed: one stopped by Ctrl-C runs again
    if PUREFUSE_AOT_OUTPUT="$cache.new" "purefuse_aot_train_$module" >"$log.partial" 2>&1 && [[ -s "$cache.new" ]]; then
      _purefuse_aot_stamp "$module" "$java" "$cache" && mv -f "$cache.new" "$cache"
      chmod a+r "$cache" "$cache.java" 2>/dev/null || true   # a shared install: every user starts with it, whatever the umask
      rm -f "$log"
    else
      mv -f "$log.partial" "$log"
      echo "$module: the training run failed (its log: $log; remove that file to try again at the next" \
           "start); starting without the cache" >&2
    fi
  )
}
