#!/usr/bin/env bash
# HTTPie (Debian's package) in the client matrix: -A basic sends Basic unasked; -A digest answers the
# challenge (through requests' HTTPDigestAuth).
# Usage: httpie.sh BASE PATH BODY SCHEME MODE USER PASSWORD; prints {"get":N,"post":N} or {"error":"..."}.
set -uo pipefail
base=$1 path=$2 body=$3 scheme=$4 mode=$5 user=$6 password=$7
case "$scheme/$mode" in
  basic/preemptive | digest/challenge) ;;
  *) echo "{\"error\":\"unsupported cell $scheme/$mode\"}"; exit 0 ;;
esac
# --print=h shows the final response's head; its status line comes first.
status() {
  http --ignore-stdin --print=h -A "$scheme" -a "$user:$password" "$@" 2>&1 |
    sed -n '1s/^HTTP\/[0-9.]* \([0-9]\{3\}\).*/\1/p'
}
get=$(status GET "$base$path")
post=$(status --raw "$body" POST "$base/api/books" 'content-type:application/json')
echo "{\"get\":${get:-0},\"post\":${post:-0}}"
