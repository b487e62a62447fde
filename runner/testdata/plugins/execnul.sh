#!/bin/sh
# A fledge-v1 plugin that asks fledge to run a command printing 10 MiB of
# NUL bytes on stdout and on stderr, and saves the response line to
# response.json (read with head: the shell's read takes a byte per call).
IFS= read -r init || exit 9
printf '%s\n' '{"type":"exec","id":"nul","command":"head -c 10485760 /dev/zero; head -c 10485760 /dev/zero >&2"}'
head -n 1 > "$FLEDGE_PLUGIN_DIR/response.json"
