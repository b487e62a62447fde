#!/usr/bin/env python3
"""A fledge-v1 plugin in Python, after the protocol's minimal example: it
remembers the last deploy target in its store."""
import json
import sys


def send(msg):
    print(json.dumps(msg), flush=True)


def recv():
    line = sys.stdin.readline()
    if not line:
        sys.exit(3)
    return json.loads(line)


init = recv()
send({"type": "load", "id": "last", "key": "last_target"})
last = recv().get("value") or "staging"
send({"type": "prompt", "id": "1", "message": "Deploy target:", "default": last})
resp = recv()
if resp["type"] == "cancel":
    send({"type": "output", "text": "cancelled: %s\n" % resp.get("reason")})
    sys.exit(1)
target = resp["value"]
send({"type": "confirm", "id": "2", "message": "Deploy to %s?" % target, "default": True})
if not recv()["value"]:
    send({"type": "output", "text": "Cancelled.\n"})
    sys.exit(0)
send({"type": "progress", "message": "Deploying", "current": 0, "total": 3})
send({"type": "progress", "message": "Deploying", "current": 3, "total": 3})
send({"type": "progress", "done": True})
send({"type": "store", "key": "last_target", "value": target})
send({"type": "output", "text": "Deployed to %s (args %s)\n" % (target, json.dumps(init["args"]))})
