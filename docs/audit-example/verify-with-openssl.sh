#!/bin/sh
# Verify an agents-protocol-audit/1 artifact with openssl, sha256sum and python3's json module only.
# Usage: verify-with-openssl.sh artifact.json public_key.txt   (public_key.txt: agents.json audit.public_key)
set -eu
public_key=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The audit endpoint answers the artifact inside the API's envelope ({"ok": true, "data": ...}),
# the inspector's download without it: either is taken.
artifact=$work/artifact.json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump(d['data'] if d.get('ok') is True else d, open(sys.argv[2], 'w'))" "$1" "$artifact"

field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]], end='')" "$artifact" "$1"; }

# 1. Every event hashes to its event_hash (sha256 of its RFC 8785 canonical JSON, without event_hash),
#    and links to the previous one. For these events (text, integers, objects) Python's sorted compact
#    JSON is the RFC 8785 form; the full algorithm is in the rfc8785 package.
python3 - "$artifact" <<'PY'
import hashlib, json, sys
events = json.load(open(sys.argv[1]))["events"]
previous = ""
for position, event in enumerate(events, start=1):
    body = {k: v for k, v in event.items() if k != "event_hash"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert event["seq"] == position, f"event {position}: seq {event['seq']} (missing or reordered)"
    assert hashlib.sha256(canonical).hexdigest() == event["event_hash"], f"event {position}: edited"
    assert event["prev_hash"] == previous, f"event {position}: chain broken"
    previous = event["event_hash"]
assert events[0]["capability"] == "session.create" and events[-1]["capability"] == "session.end", "truncated"
PY

# 2. The root hash is the sha256 of the event hashes, concatenated in order.
python3 -c "import json,sys; print(''.join(e['event_hash'] for e in json.load(open(sys.argv[1]))['events']), end='')" \
  "$artifact" > "$work/hashes"
computed=$(sha256sum "$work/hashes" | cut -d' ' -f1)
[ "$computed" = "$(field root_hash)" ] || { echo "root_hash does not match the events"; exit 1; }

# 3. The signature is Ed25519 over the root hash as ASCII text.
field root_hash > "$work/root_hash"
field signature | base64 -d > "$work/signature"
{ echo "-----BEGIN PUBLIC KEY-----"; tr -d '\n' < "$public_key"; echo; echo "-----END PUBLIC KEY-----"; } > "$work/key.pem"
openssl pkeyutl -verify -pubin -inkey "$work/key.pem" -rawin -in "$work/root_hash" -sigfile "$work/signature"
