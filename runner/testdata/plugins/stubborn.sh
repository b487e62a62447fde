#!/bin/sh
# A fledge-v1 plugin that ignores the protocol's cancel. It records its pid
# in $FLEDGE_PLUGIN_DIR/pid and every signal it gets in
# $FLEDGE_PLUGIN_DIR/signals; on the first SIGINT also the line waiting on
# its stdin (the cancel fledge sent before the signal). It shows a progress
# bar, then says "ready". Its first argument picks what ends it: "int"
# exits 7 on SIGINT, "term" exits 8 on SIGTERM, anything else only SIGKILL
# — or the end of the test that started it: it loops only while the
# process named in $FLEDGE_PLUGIN_DIR/lifeline lives (its parent when
# there is none), so a killed test leaves no orphan looping here.
IFS= read -r init
mode=$1
d=$FLEDGE_PLUGIN_DIR
echo $$ > "$d/pid"
seen=
on_int() {
  if [ -z "$seen" ]; then seen=1; IFS= read -r line; else line=; fi
  printf 'INT %s\n' "$line" >> "$d/signals"
  [ "$mode" = int ] && exit 7
}
trap on_int INT
trap 'echo TERM >> "$d/signals"; [ "$mode" = term ] && exit 8' TERM
printf '%s\n' '{"type":"progress","message":"Working","current":1,"total":4}'
printf '%s\n' '{"type":"output","text":"ready\n"}'
life=$(cat "$d/lifeline" 2>/dev/null) || life=$PPID
# /proc where there is one: a confined plugin may not signal outside itself.
alive() { if [ -d /proc/self ]; then [ -d "/proc/$1" ]; else kill -0 "$1" 2>/dev/null; fi; }
while alive "$life"; do sleep 1; done
