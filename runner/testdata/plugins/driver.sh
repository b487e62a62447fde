#!/bin/sh
# A scripted fledge-v1 plugin: it sends the lines of script.txt (beside it
# in its plugin directory) in order. A line starting with "?" is a request:
# it is sent without the "?" and the next line read from fledge is appended
# to responses.log. init is saved to init.json.
IFS= read -r init || exit 9
printf '%s\n' "$init" > "$FLEDGE_PLUGIN_DIR/init.json"
while IFS= read -r line <&3; do
  case "$line" in
    '?'*) printf '%s\n' "${line#?}"
          IFS= read -r resp || exit 9
          printf '%s\n' "$resp" >> "$FLEDGE_PLUGIN_DIR/responses.log" ;;
    'exit '*) exit "${line#exit }" ;;
    *) printf '%s\n' "$line" ;;
  esac
done 3< "$FLEDGE_PLUGIN_DIR/script.txt"
