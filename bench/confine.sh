#!/usr/bin/env bash
# What kernel confinement costs a plugin run, as ratios measured in one run:
#   confined     `fledge plain` with confinement on (the trampoline: fledge
#                re-executes itself, applies Landlock, execs the plugin);
#   off          the same with FLEDGE_CONFINE=off;
#   direct       exec'ing the plugin's binary without fledge.
# The plugin is a one-line sh script (native, inherited stdio); the runs
# alternate so drift hits all three alike. Then `strace -f -c` counts the
# system calls of a confined and an unconfined run; the difference is the
# trampoline's.
# Usage: bench/confine.sh [runs]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
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

now() { date +%s%N; }
c=0; o=0; d=0
for _ in $(seq "$runs"); do
  t=$(now); "$T/fledge" plain; c=$((c + $(now) - t))
  t=$(now); FLEDGE_CONFINE=off "$T/fledge" plain 2>/dev/null; o=$((o + $(now) - t))
  t=$(now); "$bin"; d=$((d + $(now) - t))
done
awk -v c="$c" -v o="$o" -v d="$d" -v n="$runs" 'BEGIN {
  printf "confined  %.2f ms per run\noff       %.2f ms per run\ndirect    %.2f ms per run\n", c/n/1e6, o/n/1e6, d/n/1e6
  printf "confinement adds %.2f ms (confined/off %.2fx); fledge adds %.2f ms to exec (off/direct %.2fx)\n", (c-o)/n/1e6, c/o, (o-d)/n/1e6, o/d
}'
if command -v strace >/dev/null; then
  strace -f -c -o "$T/on" "$T/fledge" plain
  FLEDGE_CONFINE=off strace -f -c -o "$T/off" "$T/fledge" plain 2>/dev/null
  tot() { awk '$NF == "total" {print $(NF-2)}' "$1"; }
  echo "system calls (strace -f -c): confined $(tot "$T/on"), off $(tot "$T/off")"
  echo "calls the confined run makes more often (name: confined off):"
  awk 'NR==FNR { if ($NF != "total" && $NF ~ /^[a-z_0-9]+$/) off[$NF] = ($4 ~ /^[0-9]+$/ ? $4 : $3); next }
       $NF != "total" && $NF ~ /^[a-z_0-9]+$/ { n = ($4 ~ /^[0-9]+$/ ? $4 : $3); if (n > off[$NF]) printf "  %s: %d %d\n", $NF, n, off[$NF] }' "$T/off" "$T/on" | sort -t: -k2 -rn | head -25
fi
