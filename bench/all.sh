#!/usr/bin/env bash
# Every fledge performance figure next to its baseline, measured in the same
# run, and the ratio:
#   split        fledge as releases build it (fastrun, with the command line in
#                fledge-core beside it) vs fledge as one binary (go install):
#                --version, fledge <command>, plugins info (fledge-core)
#   start-up     fledge --version vs a trivial Go program, and vs fledge built
#                without the agent commands (MCP SDK, JSON Schema); plugins list
#                --json with 1, 100 and 1,000 plugins vs fledge --version
#   mcp          a tools/call round trip to a running fledge mcp vs fledge
#                plugins run of the same command
#   install      install of a file:// plugin repo (20 commits) vs
#                git clone --depth 1 of it; a warm reinstall (--force); repos
#                of 300 and 3,000 files vs git clone --depth 1, run alternately
#   command      fledge <command> vs exec'ing the plugin directly; fledge
#                <command> inside a clean 5,000-file git project (the init
#                message carries its git state) vs outside any repo, and vs
#                git status --porcelain there (what the Rust fledge runs)
#   git state    project/gitstate's Open+State (what a run asks in a git
#                project) at 500 and 5,000 files vs git status --porcelain
#   stream       a plugin streaming 100k and 1M messages through fledge vs
#                the same bytes straight to a pipe, and fledge's peak RSS
#   runner       (bench/runner.sh, in process) output msgs/s vs a raw pipe,
#                request round trips vs a raw line echo, and vs the same
#                plugin answered by a host that does no protocol work
#   store        a plugin store's load/store at 10, 100, 256 keys vs the raw
#                file read / temp write + fsync + rename
#   update       update of 50 up-to-date plugins vs update of one, over
#                file:// and over loopback HTTP with 25 ms per request
#   run path     the git processes one fledge <command> starts in a 5,000-file
#                project and outside any repository; fledge --version's page
#                faults vs a trivial Go program's; and, before (BENCH_BASE, by
#                default 0be3364, built from git archive) against this tree,
#                run alternately: --version, fledge <command> in and out of
#                a repository, streaming 1M messages, list --json at 1,000
#                plugins, fledge mcp's first initialize response at 100
#   wasm         fledge <command> for a pluginsdk plugin in the wasm sandbox
#                (cache warm) vs the same code built native, and a Rust-built
#                module's; the first run (compile) vs the warm one; output
#                throughput of the sandbox vs the native runner (bench/wasm.sh:
#                the start-up figures in one set of rounds, and against a revision)
# Usage: bench/all.sh [benchtime]   (default 1s; e.g. 3s, or 5x for a quick look)
# Figures vary with the machine and its load: compare ratios, not times.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${1:-1s}
base_rev=${BENCH_BASE:-0be3364}
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
git archive "$base_rev" | tar -x -C "$base"

echo "# go test -tags bench -bench ./bench/ (benchtime $benchtime; before: $base_rev)" >&2
# Everything but the Compare benchmarks (bench/compare.sh's).
e2e=$(go test -tags bench -run '^$' -bench '^Benchmark([^C]|C[^o]|Co[^m]|Com[^p])' -benchtime "$benchtime" -count 1 -timeout 60m ./bench/ -args -base="$base")
echo "# go test -bench Store ./kvstore/" >&2
store=$(go test -run '^$' -bench '^BenchmarkStore' -benchtime "$benchtime" -count 1 ./kvstore/)
echo "# go test -bench ./project/gitstate/" >&2
gitstate=$(go test -run '^$' -bench . -benchtime "$benchtime" -count 1 ./project/gitstate/)
echo "# bench/runner.sh" >&2
runner=$(bench/runner.sh "$benchtime")

printf '%s\n%s\n%s\n%s\n' "$e2e" "$store" "$gitstate" "$runner" | grep '^Benchmark' >&2
echo >&2

printf '%s\n%s\n%s\n%s\n' "$e2e" "$store" "$gitstate" "$runner" | awk '
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
  ns[name] = $3
  for (i = 4; i < NF; i++) if ($(i+1) ~ /^[a-zA-Z\/-]+$/ && $i ~ /^[0-9.e+]+$/) m[name, $(i+1)] = $i
}
function ms(x) { return sprintf("%.2f ms", x / 1e6) }
function row(figure, a, b, ratio) { printf "| %-40s | %16s | %-36s | %-22s |\n", figure, a, b, ratio }
function timed(figure, f, base, basename) {
  if (!(f in ns) || !(base in ns)) return
  row(figure, ms(ns[f]), ms(ns[base]) " " basename, sprintf("%.2fx (%+.2f ms)", ns[f] / ns[base], (ns[f] - ns[base]) / 1e6))
}
function paired(figure, f, unit, baseunit, basename) {
  if (!((f, unit) in m) || !((f, baseunit) in m)) return
  row(figure, sprintf("%.2f ms", m[f, unit]), sprintf("%.2f ms", m[f, baseunit]) " " basename,
      sprintf("%.2fx (%+.2f ms)", m[f, unit] / m[f, baseunit], m[f, unit] - m[f, baseunit]))
}
function rate(figure, f, base, unit, basename) {
  if (!((f, unit) in m) || !((base, unit) in m)) return
  row(figure, sprintf("%.0f %s", m[f, unit], unit), sprintf("%.0f %s", m[base, unit], unit) " " basename,
      sprintf("%.1f%% of baseline", 100 * m[f, unit] / m[base, unit]))
}
END {
  row("figure", "fledge", "baseline", "ratio")
  print "|------------------------------------------|------------------|--------------------------------------|------------------------|"
  timed("start-up: --version", "StartupVersion", "StartupTrivial", "(trivial Go)")
  if (("StartupMCPLinked", "ms-linked") in m && ("StartupMCPLinked", "ms-without") in m)
    row("start-up: --version, MCP code linked", sprintf("%.2f ms", m["StartupMCPLinked", "ms-linked"]),
        sprintf("%.2f ms (built without it)", m["StartupMCPLinked", "ms-without"]),
        sprintf("%.2fx (%+.2f ms)", m["StartupMCPLinked", "ms-linked"] / m["StartupMCPLinked", "ms-without"],
                m["StartupMCPLinked", "ms-linked"] - m["StartupMCPLinked", "ms-without"]))
  if (("StartupFaults", "faults-version") in m)
    row("start-up: --version page faults", sprintf("%.0f", m["StartupFaults", "faults-version"]),
        sprintf("%.0f (trivial Go)", m["StartupFaults", "faults-trivial"]),
        sprintf("%.2fx", m["StartupFaults", "faults-version"] / m["StartupFaults", "faults-trivial"]))
  if (("StartupFaults", "faults-base") in m)
    row("start-up: --version page faults, before", sprintf("%.0f", m["StartupFaults", "faults-version"]),
        sprintf("%.0f (before)", m["StartupFaults", "faults-base"]),
        sprintf("%.2fx", m["StartupFaults", "faults-version"] / m["StartupFaults", "faults-base"]))
  split("version command info", single, " ")
  split("--version|fledge <command>|plugins info (fledge-core)", singlename, "|")
  for (k = 1; k <= 3; k++)
    if (("StartupSingle", "ms-split-" single[k]) in m && ("StartupSingle", "ms-single-" single[k]) in m)
      row("split build: " singlename[k], sprintf("%.2f ms", m["StartupSingle", "ms-split-" single[k]]),
          sprintf("%.2f ms (one binary)", m["StartupSingle", "ms-single-" single[k]]),
          sprintf("%.2fx (%+.2f ms)", m["StartupSingle", "ms-split-" single[k]] / m["StartupSingle", "ms-single-" single[k]],
                  m["StartupSingle", "ms-split-" single[k]] - m["StartupSingle", "ms-single-" single[k]]))
  if (("GitProcesses", "procs-in-repo") in m) {
    row("git processes per run, in a repo", sprintf("%d", m["GitProcesses", "procs-in-repo"]),
        (("GitProcesses", "base-procs-in-repo") in m) ? sprintf("%d (before)", m["GitProcesses", "base-procs-in-repo"]) : "", "")
    row("git processes per run, outside", sprintf("%d", m["GitProcesses", "procs-outside"]),
        (("GitProcesses", "base-procs-outside") in m) ? sprintf("%d (before)", m["GitProcesses", "base-procs-outside"]) : "", "")
  }
  split("version command command-in-repo stream-1M list-1000 mcp-100", before, " ")
  for (k = 1; k <= 6; k++) {
    f = "Before/" before[k]
    if ((f, "ms-head") in m && (f, "ms-base") in m)
      row("before/after: " before[k], sprintf("%.2f ms", m[f, "ms-head"]), sprintf("%.2f ms (before)", m[f, "ms-base"]),
          sprintf("%.2fx (%+.2f ms)", m[f, "ms-head"] / m[f, "ms-base"], m[f, "ms-head"] - m[f, "ms-base"]))
  }
  paired("mcp start-up (first initialize), 100 plugins", "MCPStartup/plugins=100", "ms-initialize", "ms-version", "(--version, one binary)")
  timed("mcp tools/call round trip", "MCPCall", "PluginsRun", "(fledge plugins run)")
  timed("list --json, 1 plugin", "ListJSON/plugins=1", "StartupVersion", "(--version)")
  timed("list --json, 100 plugins", "ListJSON/plugins=100", "StartupVersion", "(--version)")
  timed("list --json, 1,000 plugins", "ListJSON/plugins=1000", "StartupVersion", "(--version)")
  timed("install file:// (20 commits)", "InstallFledge", "InstallGitClone", "(git clone --depth 1)")
  timed("reinstall --force", "InstallReinstall", "InstallGitClone", "(git clone --depth 1)")
  paired("install file://, 300 files", "InstallTree/files=300", "ms-fledge", "ms-git", "(git clone --depth 1)")
  paired("install file://, 3,000 files", "InstallTree/files=3000", "ms-fledge", "ms-git", "(git clone --depth 1)")
  timed("fledge <command> (one output, exit)", "CommandFledge/plugins=1", "CommandDirect", "(exec plugin)")
  timed("fledge <command>, 100 plugins installed", "CommandFledge/plugins=100", "CommandDirect", "(exec plugin)")
  timed("fledge <command> in a 5,000-file repo", "CommandFledgeInRepo/files=5000", "CommandFledge/plugins=1", "(outside a repo)")
  timed("fledge <command> in a 5,000-file repo", "CommandFledgeInRepo/files=5000", "GitStatusPorcelain/files=5000", "(git status --porcelain)")
  timed("git state, 500 files (in process)", "State/files=500", "GitStatus/files=500", "(git status --porcelain)")
  timed("git state, 5,000 files (in process)", "State/files=5000", "GitStatus/files=5000", "(git status --porcelain)")
  rate("stream 100k msgs, fledge <command>", "StreamFledge/msgs=100000", "StreamDirect/msgs=100000", "msgs/s", "(direct)")
  rate("stream 1M msgs, fledge <command>", "StreamFledge/msgs=1000000", "StreamDirect/msgs=1000000", "msgs/s", "(direct)")
  if (("StreamFledge/msgs=100000", "peak-KiB") in m && ("StreamFledge/msgs=1000000", "peak-KiB") in m)
    row("peak RSS streaming 1M vs 100k msgs", sprintf("%.1f MiB", m["StreamFledge/msgs=1000000", "peak-KiB"] / 1024),
        sprintf("%.1f MiB (100k)", m["StreamFledge/msgs=100000", "peak-KiB"] / 1024),
        sprintf("%.2fx", m["StreamFledge/msgs=1000000", "peak-KiB"] / m["StreamFledge/msgs=100000", "peak-KiB"]))
  rate("runner output (in process)", "OutputRunner", "OutputRawPipe", "msgs/s", "(raw pipe)")
  if ("RoundTripRunner" in ns && "RoundTripRaw" in ns)
    row("runner round trips (in process)", sprintf("%.0f trips/s", m["RoundTripRunner", "trips/s"]),
        sprintf("%.0f trips/s (raw)", m["RoundTripRaw", "trips/s"]), sprintf("%.2fx the raw time", ns["RoundTripRunner"] / ns["RoundTripRaw"]))
  if ("RoundTripRunner" in ns && "RoundTripFloor" in ns)
    row("runner round trips vs no-op host", sprintf("%.0f trips/s", m["RoundTripRunner", "trips/s"]),
        sprintf("%.0f trips/s (no-op host)", m["RoundTripFloor", "trips/s"]), sprintf("%.2fx the no-op time", ns["RoundTripRunner"] / ns["RoundTripFloor"]))
  timed("runner start-up (in process)", "StartupRunner", "StartupDirect", "(exec plugin)")
  timed("fledge <wasm command>, Go, cache warm", "WasmCommand/wasm", "WasmCommand/native", "(same code native)")
  timed("fledge <wasm command>, Rust, cache warm", "WasmCommand/wasm-rust", "WasmCommand/native", "(Go plugin native)")
  timed("fledge <wasm command>, first run (compile)", "WasmCommandCold", "WasmCommand/wasm", "(cache warm)")
  rate("wasm host output, 1M msgs", "WasmHostStream", "StreamFledge/msgs=1000000", "msgs/s", "(native runner)")
  rate("pluginsdk output in wasm, 100k msgs", "WasmStream/wasm", "WasmStream/native", "msgs/s", "(same code native)")
  split("10 100 256", sizes, " ")
  for (k = 1; k <= 3; k++) {
    s = sizes[k]
    timed("store load, " s " keys", "StoreLoad/keys=" s, "StoreLoadRaw/keys=" s, "(read file)")
    timed("store store, " s " keys", "StoreStore/keys=" s, "StoreStoreRaw/keys=" s, "(write+fsync+rename)")
  }
  timed("update 50 plugins, file://", "UpdateAll", "UpdateOne", "(update one)")
  timed("update 50 plugins, HTTP +25 ms/request", "UpdateAllRemote", "UpdateOneRemote", "(update one)")
}'
