#!/usr/bin/env bash
# stress.sh runs the test suite while busy loops hold every CPU: what a
# shared CI runner or a laptop building something else looks like. A test
# that races a wall-clock budget against work it does not control fails
# here; one that waits for events passes.
#
#   bash bench/stress.sh                      # go test ./..., 3 runs in a row
#   RUNS=5 LOAD=4 bash bench/stress.sh        # 5 runs, 4 busy loops per CPU
#   bash bench/stress.sh ./runner/ -run Wasm -count=5
#
# Arguments are passed to go test (./... when none names a package as ./dir
# or an import path); each run adds -count=1, so nothing comes from the
# test cache. It starts LOAD x nproc busy loops (default 2 x nproc), stops
# at the first failing run, prints each run's wall time and the load
# average, and kills its loops however it exits.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-3}
per_cpu=${LOAD:-2}
case $runs:$per_cpu in *[!0-9:]* | 0:* | *:0)
  echo "stress.sh: RUNS and LOAD must be whole numbers of at least 1 (got RUNS=$runs LOAD=$per_cpu)" >&2; exit 2 ;;
esac

args=("$@")
pkg=no
for a in "${args[@]}"; do
  case $a in . | ./* | ../* | github.com/*) pkg=yes ;; esac
done
[ "$pkg" = yes ] || args=(./... "${args[@]}")

loops=()
stop_loops() {
  # Only the loops this script started, by their pids.
  if [ ${#loops[@]} -gt 0 ]; then
    kill "${loops[@]}" 2>/dev/null || true
    wait "${loops[@]}" 2>/dev/null || true
    loops=()
  fi
}
trap stop_loops EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }

# Build first, unloaded and untimed: the runs measure the tests. (The
# later -run wins; in the runs, a -count among the arguments wins.)
go test "${args[@]}" -run '^$' >/dev/null

n=$(( per_cpu * $(nproc) ))
# Each loop also ends by itself once this script is gone, should it be
# killed without running its trap (SIGKILL).
for _ in $(seq "$n"); do
  ( while kill -0 $$ 2>/dev/null; do :; done ) &
  loops+=("$!")
done
echo "stress: $n busy loops on $(nproc) CPUs; go test ${args[*]}; $runs runs"

for i in $(seq "$runs"); do
  echo "== run $i/$runs: load average $(loadavg)"
  start=$(date +%s)
  status=0
  go test -count=1 "${args[@]}" || status=$?
  took=$(( $(date +%s) - start ))
  echo "== run $i/$runs: exit $status in ${took}s, load average $(loadavg)"
  if [ "$status" -ne 0 ]; then
    echo "stress: run $i failed"
    exit "$status"
  fi
done
echo "stress: $runs runs passed under $n busy loops"
