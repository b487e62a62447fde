#!/bin/sh
# A fledge-v1 plugin in plain POSIX shell that sends every message type, in
# the order of the reference hello plugin, and reports what came back.
set -eu
exec 3>&1 # protocol messages go to fd 3, so $(...) cannot capture them
send() { printf '%s\n' "$1" >&3; }
ask() { printf '%s\n' "$1" >&3; IFS= read -r REPLY_LINE; printf '%s' "$REPLY_LINE"; }
value() { printf '%s' "$1" | sed -n 's/.*"value":"\([^"]*\)".*/\1/p'; }

IFS= read -r INIT
echo "hello: init received" >&2
send '{"type":"log","level":"info","message":"hello started"}'
send '{"type":"output","text":"Welcome to hello!\n"}'

NAME=$(value "$(ask '{"type":"prompt","id":"1","message":"What is your name?","default":"world","validate":"non_empty"}')")
send "{\"type\":\"output\",\"text\":\"Hello, $NAME!\\n\"}"

CONFIRM=$(ask '{"type":"confirm","id":"2","message":"Run the full demo?","default":true}')
case "$CONFIRM" in *'"value":false'*) send '{"type":"output","text":"bye\n"}'; exit 0 ;; esac

COLOR=$(value "$(ask '{"type":"select","id":"3","message":"Pick a color:","options":["red","green","blue"],"default":1}')")
send "{\"type\":\"log\",\"level\":\"info\",\"message\":\"picked $COLOR\"}"

TOPPINGS=$(ask '{"type":"multi_select","id":"4","message":"Toppings?","options":["cheese","pepperoni","olives"],"defaults":[0,1]}' | sed -n 's/.*"value":\(\[[^]]*\]\).*/\1/p')

for i in 1 2 3; do send "{\"type\":\"progress\",\"message\":\"Baking\",\"current\":$i,\"total\":3}"; done
send '{"type":"progress","done":true}'

send "{\"type\":\"store\",\"key\":\"last_user\",\"value\":\"$NAME\"}"
LOADED=$(value "$(ask '{"type":"load","id":"5","key":"last_user"}')")

EXEC=$(ask '{"type":"exec","id":"6","command":"echo protocol-ok","timeout":5}')
case "$EXEC" in *'"stdout":"protocol-ok\n"'*) EXECOK=yes ;; *) EXECOK="no:$EXEC" ;; esac

META=$(ask '{"type":"metadata","id":"7","keys":["git_tags","fledge_config"]}')
case "$META" in *'"git_tags"'*) METAOK=yes ;; *) METAOK="no:$META" ;; esac

send '{"type":"progress","message":"Finishing up"}'
send '{"type":"progress","done":true}'
send "{\"type\":\"output\",\"text\":\"name=$NAME color=$COLOR toppings=$(printf '%s' "$TOPPINGS" | sed 's/"/\\"/g') loaded=$LOADED exec=$EXECOK meta=$METAOK\\n\"}"
send '{"type":"log","level":"info","message":"hello finished"}'
