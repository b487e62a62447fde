#!/usr/bin/env bash
# What kernel confinement costs a plugin run, as ratios measured in one run:
#   confined     `fledge plain` with confinement on (confine.Start: one
#                thread of fledge restricted alone starts the plugin);
#   off          the same with FLEDGE_CONFINE=off;
#   direct       exec'ing the plugin's binary without fledge;
#   old-*        the same two with another fledge binary (FLEDGE_OLD), to
#                compare builds in one run (e.g. main before a change).
# The plugin is a one-line sh script (native, inherited stdio). Each round
# runs every variant once, in an order that rotates, so a busy machine's
# drift hits all alike; medians and means over the rounds are printed.
# Then `strace -f -c` counts the system calls of a confined and an
# unconfined run: the difference is what confinement adds.
# Usage: bench/confine.sh [rounds]   (default 300)
#        FLEDGE_OLD=/tmp/fledge-main bench/confine.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-300}
# Not under /tmp: the undeclared row grants /tmp read-write, and a /tmp
# holding the home directory is split into a rule per entry (as it would
# be for a user whose home is there), which is not the common case.
mkdir -p "${XDG_CACHE_HOME:-$HOME/.cache}"
T=$(mktemp -d -p "${XDG_CACHE_HOME:-$HOME/.cache}" fledge-bench-confine.XXXXXX); trap 'rm -rf "$T"' EXIT
go build -o "$T/fledge" ./cmd/fledge
export HOME="$T/home" FLEDGE_HOME="$T/fh" NO_COLOR=1 GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$T/p/bin"
printf '[plugin]\nname = "fledge-plugin-plain"\nversion = "0.1.0"\n[[commands]]\nname = "plain"\nbinary = "bin/run"\n' >"$T/p/plugin.toml"
printf '#!/bin/sh\nexit 0\n' >"$T/p/bin/run"; chmod +x "$T/p/bin/run"
git -C "$T/p" init -q -b main && git -C "$T/p" add -A && git -C "$T/p" -c user.name=b -c user.email=b@example.invalid commit -q -m init
"$T/fledge" plugins install "file://$T/p" --yes </dev/null >/dev/null 2>&1
bin="$FLEDGE_HOME/plugins/fledge-plugin-plain/bin/run"
"$T/fledge" plain 2>"$T/err" || { cat "$T/err"; exit 1; }
if grep -q unconfined "$T/err"; then echo "note: $(cat "$T/err")"; fi
old=${FLEDGE_OLD:-}

variants=(confined off direct)
[ -n "$old" ] && variants+=(old-confined old-off)
argv() { # the variant's command, through env so that every one is a plain exec
  case $1 in
    confined) cmd=(env "$T/fledge" plain) ;;
    off) cmd=(env FLEDGE_CONFINE=off "$T/fledge" plain) ;;
    direct) cmd=(env "$bin") ;;
    old-confined) cmd=(env "$old" plain) ;;
    old-off) cmd=(env FLEDGE_CONFINE=off "$old" plain) ;;
  esac
}
run() { argv "$1"; "${cmd[@]}" 2>/dev/null; }
for v in "${variants[@]}"; do run "$v"; done # warm the page cache
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs), $rounds rounds"
n=${#variants[@]}
# Wall time per run; with perf, also the CPU time (task-clock) of the run
# and all it starts, which a busy machine's waiting does not inflate.
perf=; command -v perf >/dev/null && perf stat -e task-clock true 2>/dev/null && perf=1
for ((r = 0; r < rounds; r++)); do
  for ((i = 0; i < n; i++)); do
    v=${variants[$(((i + r) % n))]}
    t=$EPOCHREALTIME; run "$v"; u=$EPOCHREALTIME
    echo "$v ${t/./} ${u/./}"
    if [ -n "$perf" ]; then
      argv "$v"; perf stat -x, -e task-clock -o "$T/perf" "${cmd[@]}" 2>/dev/null
      awk -F, -v v="$v" '$3 == "task-clock" { printf "cpu:%s 0 %d\n", v, $1 * 1000 }' "$T/perf"
    fi
  done
done >"$T/samples"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
{ d = ($3 - $2) / 1000; s[$1, ++c[$1]] = d; sum[$1] += d }
function median(v,   k, i, j, t, a) {
  k = c[v]; for (i = 1; i <= k; i++) a[i] = s[v, i]
  for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function pair(label, a, b) {
  if (!(a in c) || !(b in c)) return
  printf "%-46s median %.2fx (%+.2f ms)   mean %.2fx (%+.2f ms)\n", label, med[a] / med[b], med[a] - med[b], mean[a] / mean[b], mean[a] - mean[b]
}
END {
  for (v in c) { med[v] = median(v); mean[v] = sum[v] / c[v] }
  split("confined off direct old-confined old-off", order, " ")
  for (k = 0; k <= 1; k++) {
    pre = k ? "cpu:" : ""
    if (k && !(("cpu:" order[1]) in c)) break
    print k ? "CPU time (task-clock of the run and its children):" : "wall time:"
    for (i = 1; i <= 5; i++) if ((pre order[i]) in c) printf "  %-14s median %6.2f ms   mean %6.2f ms\n", order[i], med[pre order[i]], mean[pre order[i]]
    pair("  confinement (confined vs off):", pre "confined", pre "off")
    pair("  fledge (off vs direct):", pre "off", pre "direct")
    pair("  confined vs direct:", pre "confined", pre "direct")
    pair("  old confinement (old-confined vs old-off):", pre "old-confined", pre "old-off")
    pair("  this build vs old, confined:", pre "confined", pre "old-confined")
    pair("  this build vs old, off:", pre "off", pre "old-off")
  }
}' "$T/samples"

if command -v strace >/dev/null; then
  calls() { # strace -c's table as "name count"
    awk '$NF != "total" && $NF ~ /^[a-z_0-9]+$/ { print $NF, ($4 ~ /^[0-9]+$/ ? $4 : $3) }' "$1"
  }
  strace -f -c -o "$T/on" "$T/fledge" plain
  FLEDGE_CONFINE=off strace -f -c -o "$T/off" "$T/fledge" plain 2>/dev/null
  calls "$T/on" >"$T/on.n"; calls "$T/off" >"$T/off.n"
  tot() { awk '{ n += $2 } END { print n }' "$1"; }
  echo "system calls (strace -f -c): confined $(tot "$T/on.n"), off $(tot "$T/off.n")"
  echo "calls the confined run makes more often (name: confined off):"
  awk 'NR == FNR { off[$1] = $2; next } $2 > off[$1] { printf "  %s: %d %d\n", $1, $2, off[$1] }' "$T/off.n" "$T/on.n" | sort -t' ' -k2 -rn | head -25
  if [ -n "$old" ]; then
    strace -f -c -o "$T/old" "$old" plain
    calls "$T/old" >"$T/old.n"
    echo "system calls of old-confined: $(tot "$T/old.n") (execve $(awk '$1 == "execve" { print $2 }' "$T/old.n"))"
  fi
fi
