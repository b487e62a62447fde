#!/usr/bin/env bash
# What installing from an OCI registry costs, as ratios measured in one run
# against a registry on loopback (distribution's, in the benchmark
# process):
#   registry     fledge plugins install oci://… of the hello example (its
#                binary built, no build hook) into an empty FLEDGE_HOME
#   git          the same tree from a file:// git repository
#   (the four hello rows run in turn, as do the two mirror rows)
#   oras pull    the oras CLI (v1.3.6, from the Go module proxy) pulling the
#                same artifact, then tar -xzf: the files, nothing checked
#   oras-go      oras-go's copy to memory and an untar, in process: a floor
#   mirror 50    fledge plugins mirror of 50 installed plugins vs oras push
#                of the same 50 trees (one oras process each)
# Then what oras-go adds to the binary and to fledge --version, against
# main's build (or the revision given).
# Usage: bench/oci.sh [benchtime] [base-rev]   (default 10x, main)
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${1:-10x}
base=${2:-main}
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)" >&2
out=$(go test -tags bench -run '^$' -bench '^BenchmarkOCI' -benchtime "$benchtime" -count 1 -timeout 30m ./bench/) || { echo "$out" >&2; exit 1; }
echo "$out" | grep '^Benchmark' >&2
echo "$out" | awk '
/^Benchmark/ { for (i = 4; i < NF; i++) if ($(i+1) ~ /^ms\//) { k = $(i+1); sub(/^ms\//, "", k); ms[k] = $i } }
function r(label, a, b) { if ((a in ms) && (b in ms)) printf "%-46s %9.2f ms vs %9.2f ms  %.2fx\n", label, ms[a], ms[b], ms[a]/ms[b] }
END {
  r("install hello: registry vs file:// git", "registry", "git")
  r("install hello: registry vs oras pull + tar", "registry", "oras-pull")
  r("install hello: registry vs oras-go in process", "registry", "oras-go")
  r("mirror 50 vs oras push x50", "mirror", "oras-push")
}'

T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/base" && git archive "$base" | tar -x -C "$T/base"
flags=(-trimpath "-ldflags=-s -w")
CGO_ENABLED=0 go build "${flags[@]}" -o "$T/fledge" ./cmd/fledge
(cd "$T/base" && CGO_ENABLED=0 go build "${flags[@]}" -o "$T/fledge-base" ./cmd/fledge)
size() { stat -c %s "$1"; }
echo "binary: $(size "$T/fledge") bytes vs $(size "$T/fledge-base") bytes at $base ($(( ($(size "$T/fledge") - $(size "$T/fledge-base")) / 1024 )) KiB more)"
if go version -m "$T/fledge" | grep -q distribution/distribution; then echo "distribution is linked into fledge: it must stay test-only"; exit 1; fi
now() { date +%s%N; }
a=0; c=0; runs=300
for _ in $(seq $runs); do
  t=$(now); "$T/fledge" --version >/dev/null; a=$((a + $(now) - t))
  t=$(now); "$T/fledge-base" --version >/dev/null; c=$((c + $(now) - t))
done
awk -v a="$a" -v c="$c" -v n="$runs" -v base="$base" 'BEGIN { printf "fledge --version: %.3f ms vs %.3f ms at %s (%.2fx, %+.3f ms)\n", a/n/1e6, c/n/1e6, base, a/c, (a-c)/n/1e6 }'
