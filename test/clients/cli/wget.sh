#!/usr/bin/env bash
# wget in the client matrix: --user/--password answers the challenge with the scheme wget prefers;
# --auth-no-challenge sends Basic unasked.
# Usage: wget.sh BASE PATH BODY SCHEME MODE USER PASSWORD; prints {"get":N,"post":N} or {"error":"..."}.
set -uo pipefail
base=$1 path=$2 body=$3 scheme=$4 mode=$5 user=$6 password=$7
case "$scheme/$mode" in
  basic/preemptive) auth=(--auth-no-challenge) ;;
  any/challenge) auth=() ;;
  *) echo "{\"error\":\"unsupported cell $scheme/$mode\"}"; exit 0 ;;
esac
# wget prints every response's status line with -S; the last one is the answer to the request.
status() {
  wget -S -O /dev/null --tries=1 "${auth[@]}" --user="$user" --password="$password" "$@" 2>&1 |
    sed -n 's/^ *HTTP\/[0-9.]* \([0-9]\{3\}\).*/\1/p' | tail -n 1
}
get=$(status "$base$path")
post=$(status --header='content-type: application/json' --post-data="$body" "$base/api/books")
echo "{\"get\":${get:-0},\"post\":${post:-0}}"
