#!/usr/bin/env bash
# This tree against another revision on the message paths, the two run
# alternately in one process, with ratios (this tree / the other):
#   stream       fledge <command>, the runner's goplugin writing 1M
#                pre-encoded 64-byte output messages (the host's decoding)
#   sdk-stream   the same through the pluginsdk plugin built native from
#                each tree (the SDK's encoding and the host's decoding)
#   wasm-stream  the pluginsdk plugin in the wasm sandbox, 100k messages
#   mcp          a tools/call to a running fledge mcp whose plugin prints
#                100k messages (goplugin, and the pluginsdk plugin)
# Each figure is the median wall-clock time and the median CPU time (fledge
# and its plugin, user + system) of the runs.
# Usage: bench/compare.sh REV [runs]   (default 5 runs of each side)
# e.g.   bench/compare.sh HEAD~1 9
# Figures vary with the machine and its load: compare ratios, not times.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: bench/compare.sh REV [runs]}
runs=${2:-5}
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
git archive "$rev" | tar -x -C "$base"
echo "# $(git rev-parse --short "$rev") (base) against this tree (head), $runs runs each" >&2
out=$(go test -tags bench -run '^$' -bench '^BenchmarkCompare' -benchtime "${runs}x" -count 1 -timeout 60m ./bench/ -args -base="$base")
printf '%s\n' "$out" | grep '^Benchmark' >&2
echo >&2
printf '%s\n' "$out" | awk '
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkCompare/, "", name); sub(/^\//, "", name)
  if (name ~ /^MCP\//) { sub(/^MCP\//, "", name); name = "mcp " name } else name = "fledge <command> " name
  names[++n] = name
  for (i = 4; i < NF; i++) if ($(i+1) ~ /^(cpu-)?ms-(base|head)$/) m[name, $(i+1)] = $i
}
END {
  printf "| %-32s | %10s | %10s | %-7s | %12s | %12s | %-7s |\n", "figure", "wall base", "wall head", "ratio", "CPU base", "CPU head", "ratio"
  print "|----------------------------------|------------|------------|---------|--------------|--------------|---------|"
  for (k = 1; k <= n; k++) {
    f = names[k]
    printf "| %-32s | %7.0f ms | %7.0f ms | %6.2fx | %9.0f ms | %9.0f ms | %6.2fx |\n", f,
      m[f, "ms-base"], m[f, "ms-head"], m[f, "ms-head"] / m[f, "ms-base"],
      m[f, "cpu-ms-base"], m[f, "cpu-ms-head"], m[f, "cpu-ms-head"] / m[f, "cpu-ms-base"]
  }
}'
