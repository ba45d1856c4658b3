#!/usr/bin/env bash
# curl in the client matrix: -u alone sends Basic unasked; --digest and --anyauth answer the challenge.
# Usage: curl.sh BASE PATH BODY SCHEME MODE USER PASSWORD; prints {"get":N,"post":N} or {"error":"..."}.
set -uo pipefail
base=$1 path=$2 body=$3 scheme=$4 mode=$5 user=$6 password=$7
case "$scheme/$mode" in
  basic/preemptive) auth=(--basic) ;;
  digest/challenge) auth=(--digest) ;;
  any/challenge) auth=(--anyauth) ;;
  *) echo "{\"error\":\"unsupported cell $scheme/$mode\"}"; exit 0 ;;
esac
status() { curl -s -o /dev/null -w '%{http_code}' "${auth[@]}" -u "$user:$password" "$@"; }
get=$(status "$base$path")
post=$(status -H 'content-type: application/json' -d "$body" "$base/api/books")
echo "{\"get\":$((10#$get)),\"post\":$((10#$post))}"
