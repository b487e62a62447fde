#!/usr/bin/env bash
# Runner performance, as ratios against baselines measured in the same run
# (one `go test -bench` invocation of the runner package's benchmark pairs):
#   output      protocol output messages per second through the runner, vs
#               the same bytes through a raw pipe;
#   round trips request/response pairs through the runner, vs a raw JSON
#               line ping-pong with the same plugin binary;
#   start-up    a protocol run that does nothing, vs exec'ing the plugin
#               directly with an init line.
# For context (not a ratio target) it also prints the round trips of a host
# that does no protocol work with the same plugin (RoundTripFloor): the
# part of the gap to the raw ping-pong that is the plugin's own work.
# Usage: bench/runner.sh [benchtime]   (default 10x; e.g. 3s)
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${1:-10x}
out=$(go test -run '^$' -bench 'Benchmark(Output|RoundTrip|Startup)' -benchtime "$benchtime" -count 1 ./runner/)
printf '%s\n' "$out" | grep '^Benchmark'
printf '%s\n' "$out" | awk '
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
  ns[name] = $3
  for (i = 4; i < NF; i++) if ($(i+1) == "msgs/s" || $(i+1) == "trips/s") rate[name] = $i
}
END {
  printf "\n"
  if (ns["OutputRunner"] && ns["OutputRawPipe"])
    printf "output:      %.0f msgs/s through the runner, %.0f msgs/s raw: %.1fx slower (%.1f%% of a raw pipe)\n",
      rate["OutputRunner"], rate["OutputRawPipe"], ns["OutputRunner"]/ns["OutputRawPipe"], 100*ns["OutputRawPipe"]/ns["OutputRunner"]
  if (ns["RoundTripRunner"] && ns["RoundTripRaw"])
    printf "round trips: %.0f trips/s through the runner, %.0f trips/s raw: %.1fx slower (%.1f%% of raw ping-pong)\n",
      rate["RoundTripRunner"], rate["RoundTripRaw"], ns["RoundTripRunner"]/ns["RoundTripRaw"], 100*ns["RoundTripRaw"]/ns["RoundTripRunner"]
  if (ns["RoundTripFloor"] && ns["RoundTripRaw"])
    printf "             (a host doing no protocol work, same plugin: %.0f trips/s, %.1fx raw)\n",
      rate["RoundTripFloor"], ns["RoundTripFloor"]/ns["RoundTripRaw"]
  if (ns["StartupRunner"] && ns["StartupDirect"])
    printf "start-up:    %.2f ms through the runner, %.2f ms direct: %.2fx (%+.2f ms)\n",
      ns["StartupRunner"]/1e6, ns["StartupDirect"]/1e6, ns["StartupRunner"]/ns["StartupDirect"], (ns["StartupRunner"]-ns["StartupDirect"])/1e6
}'
