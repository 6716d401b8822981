#!/usr/bin/env bash
# Runs the full Spotkit benchmark suite exactly as RESULTS.md was produced:
#   1. JMH: ping-pong, 1,000-actor ring, fan-in (1/2/4 producers) for raw / spotkit / spotkit-mailbox / pekko /
#      pekko-tuned; relocation chunk throughput (RelocationChunkBenchmark: relocation vs raw mesh loopback, payloads
#      of 64 KiB / 1 MiB / 16 MiB); the Redis Location Store (LocationStoreBenchmark: authority read, CAS write,
#      creation vs raw Lettuce EVALSHA; needs redis-server on the PATH, each fork starts its own); the relocation
#      pause (RelocationPauseBenchmark: JoinSpot round trip of one actor across two MeshNodes vs on one, SampleTime,
#      plus a GAP line per fork; ~6 minutes); the room (aggregate) pause (RoomRelocationPauseBenchmark: 10 / 1,000 /
#      10,000 members, annotation defaults, ~15 minutes; RESULTS.md "Room (aggregate) moves" has the shorter commands
#      used there and benchmarks/pauses.py merges its PAUSE/RAW lines);
#   2. the blocking-handler probe (HdrHistogram);
#   3. ratios.py: median of the 3 forks per variant, ratios Spotkit/Pekko and Spotkit/raw; for the relocation
#      benchmark MiB/s of payload and relocation/raw; for the pause benchmark p50/p99 and crossNode/sameNode.
# Needs a JDK 21+ (JAVA_HOME first, then the newest under /usr/lib/jvm) and, to build, Maven.
# Usage: benchmarks/run.sh [extra JMH args, e.g. a benchmark regex]      (takes ~17 minutes on 2 cores, plus ~4 for
#        RelocationChunkBenchmark; the default regex runs everything)
#   A regex (e.g. RelocationChunkBenchmark) limits step 1 but still overwrites results.txt/json and reruns steps 2-3;
#   to run the relocation benchmark alone into its own files use the command in RESULTS.md, "Relocation chunk
#   throughput".
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

JAVA_HOME="$("$root/bin/find-jdk")"; export JAVA_HOME
echo "JDK: $JAVA_HOME ($("$JAVA_HOME/bin/java" -version 2>&1 | head -1))"
jar="$here/target/benchmarks.jar"
if [[ ! -f "$jar" || "${REBUILD:-0}" == 1 ]]; then
  "$root/bin/mvn" -q -B -pl benchmarks -am package -DskipTests
fi

mapfile -t flags < <("$root/bin/jvm-flags" "$JAVA_HOME")
"$JAVA_HOME/bin/java" -jar "$jar" -f 3 -wi 2 -w 1s -i 4 -r 2s -rf json -rff "$here/results.json" "$@" \
  2>&1 | tee "$here/results.txt"
"$JAVA_HOME/bin/java" "${flags[@]}" -cp "$jar" dev.spotkit.bench.BlockingHandlerProbe 2>&1 | tee "$here/blocking.txt"
if command -v python3 >/dev/null; then
  python3 "$here/ratios.py" "$here/results.json" | tee "$here/ratios.md"
fi
