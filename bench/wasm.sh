#!/usr/bin/env bash
# The start-up of a wasm plugin against its baselines, all measured in the
# same rounds (BenchmarkWasmStart), with ratios:
#   wasm         fledge <command> for the pluginsdk plugin in the wasm sandbox,
#                cache warm, vs the same code built native
#   rust         a Rust-built module, cache warm, vs the Go plugin native
#   first run    the same with the compilation cache emptied (the compile) vs
#                the warm run
#   with REV     the same figures for REV's fledge and its sdkbench build
#                (its own FLEDGE_HOME), and this tree's against them
# Each figure is the median wall-clock time, and the median CPU time of fledge
# and its plugin (user + system), of the runs.
# Usage: bench/wasm.sh [REV [runs]]   (default: no base revision, 15 runs)
# e.g.   bench/wasm.sh 33d0dbb 21
# Figures vary with the machine and its load: compare ratios, not times.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-}
runs=${2:-15}
args=()
if [ -n "$rev" ]; then
  base=$(mktemp -d)
  trap 'rm -rf "$base"' EXIT
  git archive "$rev" | tar -x -C "$base"
  args=(-args -base="$base")
  echo "# $(git rev-parse --short "$rev") (base) and this tree, $runs rounds" >&2
fi
if ! out=$(go test -tags bench -run '^$' -bench '^BenchmarkWasmStart$' -benchtime "${runs}x" -count 1 -timeout 60m ./bench/ "${args[@]}"); then
  printf '%s\n' "$out" >&2
  exit 1
fi
printf '%s\n' "$out" | grep '^Benchmark' >&2
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs" >&2
echo >&2
printf '%s\n' "$out" | awk '
/^Benchmark/ { for (i = 4; i < NF; i++) if ($(i+1) ~ /^(cpu-)?ms-/) m[$(i+1)] = $i }
function row(figure, f, base, basename) {
  if (!(("ms-" f) in m) || !(("ms-" base) in m)) return
  printf "| %-34s | %9.1f ms | %9.1f ms %-14s | %6.2fx | %6.2fx |\n", figure, m["ms-" f], m["ms-" base], basename,
    m["ms-" f] / m["ms-" base], m["cpu-ms-" f] / m["cpu-ms-" base]
}
END {
  printf "| %-34s | %12s | %-27s | %-7s | %-7s |\n", "figure", "wall", "baseline", "ratio", "CPU"
  print "|------------------------------------|--------------|-----------------------------|---------|---------|"
  row("Go wasm, cache warm", "wasm", "native", "(native)")
  row("Rust wasm, cache warm", "rust", "native", "(Go native)")
  row("first run (compile)", "cold", "wasm", "(warm)")
  row("base: Go wasm, cache warm", "wasm-base", "native", "(native)")
  row("base: first run (compile)", "cold-base", "wasm-base", "(base warm)")
  row("Go wasm warm, this tree", "wasm", "wasm-base", "(base)")
  row("first run, this tree", "cold", "cold-base", "(base)")
}'
