#!/usr/bin/env bash
# What verifying signatures costs, as ratios measured in one run:
#   install signed    `fledge plugins install` of a tag signed with an SSH
#                     key that an allowed-signers file lists (the SSHSIG
#                     check, the allowed-signers match, and the tag's and
#                     commit's objects read from the fetch);
#   install openpgp   the same tag signed with an OpenPGP key from an
#                     armored key file (go-crypto's check);
#   install unsigned  the same plugin at an unsigned annotated tag (the
#                     objects are read, there is nothing to verify);
#   run signed/unsigned  `fledge <command>` of each installed plugin: the
#                     run path reads plugins.toml and verifies nothing.
# Each install goes into a fresh FLEDGE_HOME; runs alternate so drift hits
# every variant alike. The machine's load is printed with the figures.
# Usage: bench/provenance.sh [runs]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
T=$(mktemp -d)
export GNUPGHOME="$T/gnupg"
trap 'gpgconf --homedir "$GNUPGHOME" --kill all 2>/dev/null || true; rm -rf "$T"' EXIT
go build -o "$T/fledge" ./cmd/fledge
# Before HOME moves: go keeps its caches under it.
inproc=$(go test -run '^$' -bench Verify -benchtime 200x ./provenance/)
export HOME="$T/home" NO_COLOR=1 GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$T/gitconfig" FLEDGE_CONFINE=off
mkdir -p "$HOME" "$GNUPGHOME" && chmod 700 "$GNUPGHOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.invalid\n' >"$GIT_CONFIG_GLOBAL"
ssh-keygen -q -t ed25519 -N '' -C bench -f "$T/key"
printf 'bench@example.invalid %s\n' "$(cat "$T/key.pub")" >"$T/allowed"
gpg --batch --pinentry-mode loopback --passphrase '' --quick-gen-key 'Bench <bench@example.invalid>' ed25519 sign 1y 2>/dev/null
gpg --batch --armor --export bench@example.invalid >"$T/bench.asc"
printf '[provenance]\nallowed_signers = ["%s", "%s"]\n' "$T/allowed" "$T/bench.asc" >"$T/config.toml"

p="$T/p"; mkdir -p "$p/bin"
printf '[plugin]\nname = "fledge-plugin-sig"\nversion = "0.1.0"\n[[commands]]\nname = "sig"\nbinary = "bin/run"\n' >"$p/plugin.toml"
printf '#!/bin/sh\nexit 0\n' >"$p/bin/run"; chmod +x "$p/bin/run"
git -C "$p" init -q -b main && git -C "$p" add -A && git -C "$p" commit -q -m init
git -C "$p" tag -a -m unsigned unsigned
git -C "$p" -c gpg.format=ssh -c user.signingkey="$T/key" tag -s -m signed signed
git -C "$p" -c gpg.format=openpgp -c user.signingkey=bench@example.invalid tag -s -m openpgp openpgp

now() { date +%s%N; }
install() { # install REF HOME
  rm -rf "$2"; mkdir -p "$2"; cp "$T/config.toml" "$2/config.toml"
  FLEDGE_HOME="$2" "$T/fledge" plugins install "file://$p@$1" --yes </dev/null >/dev/null 2>"$T/err" || { cat "$T/err"; exit 1; }
}
for ref in signed openpgp unsigned; do
  install "$ref" "$T/fh-$ref"
  FLEDGE_HOME="$T/fh-$ref" "$T/fledge" plugins list --json | grep -q "\"level\": \"$( [ $ref = unsigned ] && echo unsigned || echo signed-tag)\"" \
    || { echo "$ref: not recorded as expected"; exit 1; }
done
declare -A took=([signed]=0 [openpgp]=0 [unsigned]=0)
rs=0; ru=0
orders=("signed openpgp unsigned" "openpgp unsigned signed" "unsigned signed openpgp")
for i in $(seq "$runs"); do
  for ref in ${orders[$((i % 3))]}; do # each variant goes first as often
    t=$(now); install "$ref" "$T/fh-x"; took[$ref]=$((took[$ref] + $(now) - t))
  done
  for j in 1 2 3 4 5; do # alternate which goes first
    if (( (i + j) % 2 )); then
      t=$(now); FLEDGE_HOME="$T/fh-signed" "$T/fledge" sig 2>/dev/null; rs=$((rs + $(now) - t))
      t=$(now); FLEDGE_HOME="$T/fh-unsigned" "$T/fledge" sig 2>/dev/null; ru=$((ru + $(now) - t))
    else
      t=$(now); FLEDGE_HOME="$T/fh-unsigned" "$T/fledge" sig 2>/dev/null; ru=$((ru + $(now) - t))
      t=$(now); FLEDGE_HOME="$T/fh-signed" "$T/fledge" sig 2>/dev/null; rs=$((rs + $(now) - t))
    fi
  done
done
s=${took[signed]}; o=${took[openpgp]}; u=${took[unsigned]}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $runs installs each, $((runs * 5)) runs each"
awk -v s="$s" -v o="$o" -v u="$u" -v rs="$rs" -v ru="$ru" -v n="$runs" 'BEGIN {
  printf "install signed (ssh)      %.2f ms\ninstall signed (openpgp)  %.2f ms\ninstall unsigned          %.2f ms\n", s/n/1e6, o/n/1e6, u/n/1e6
  printf "ssh verification adds %+.2f ms to an install (signed/unsigned %.3fx); openpgp %+.2f ms (%.3fx)\n", (s-u)/n/1e6, s/u, (o-u)/n/1e6, o/u
  printf "fledge <command>: signed %.2f ms, unsigned %.2f ms per run (%.3fx): the run path verifies nothing\n", rs/n/5/1e6, ru/n/5/1e6, rs/ru
}'
echo "# the verification alone, in process (go test -bench Verify ./provenance/):"
echo "$inproc" | awk '/^Benchmark/ { printf "%-28s %8.1f µs per verification\n", $1, $3/1000 }'
