#!/bin/bash
# kwarn-server under more connections than it takes, pipelined bursts and
# NUL bytes in the request head, on loopback only, every load bounded in
# count and time: past --max-connections a connection is answered 503 and
# closed at once, the server goes on answering and stops on SIGTERM; a
# pipelined burst is answered whole and in order, a bad head after it in
# JSON; any NUL in a head is a JSON 400; the gate holds every head to its
# limits, relayed, kept alive or after a POST's body.
set -u
cd "$(dirname "$0")/.."
top=$PWD
tmp=$(mktemp -d)
SERVER_PID=
trap '[ -n "$SERVER_PID" ] && kill -9 $SERVER_PID 2>/dev/null; rm -rf "$tmp"' EXIT
KWARN=${KWARN:-$top/bin/kwarn}
KWARN_SERVER=${KWARN_SERVER:-$top/bin/kwarn-server}
load=tests/lib/http-load.py
. tests/lib/tap.sh
. tests/lib/server-fixture.sh

fixture_build "$tmp/fx" >"$tmp/fixture.log" 2>&1
ok $? "the fixture database builds"

"$KWARN_SERVER" --db "$DB" --max-connections 0 -n >"$tmp/out" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] &&
	grep -q 'bad --max-connections' "$tmp/out"
ok $? "--max-connections 0: one line, exit 2 (rc $rc)"
"$KWARN_SERVER" --db "$DB" --max-connections 64 -n >/dev/null 2>&1
ok $? "--max-connections 64 -n: OK"

SERVER_ARGS="--max-connections 64" server_start "$DB"
ok $? "the server starts with --max-connections 64"

status() { # URL: the status of one GET, given a second at most
	curl -s -m 1 -o "$tmp/body" -w '%{http_code}' "$BASE$1"
}

# 200 idle connections, held for 4 s: 64 wait for their heads, the rest
# are refused at once
python3 "$load" "$PORT" hold 200 4 >"$tmp/hold" &
hold=$!
s=
for _ in $(seq 40); do
	s=$(status /api/health)
	[ "$s" = 503 ] && break
	sleep 0.1
done
[ "$s" = 503 ] && jq -e '.status == 503 and (.error | test("too many"))' \
	"$tmp/body" >/dev/null
ok $? "past the limit a request is answered 503 in JSON within 1 s ($s)"
wait $hold
read -r held closed <"$tmp/hold"
[ "${held:-0}" = 200 ] && [ "${closed:-0}" -ge 136 ]
ok $? "of 200 idle connections the server closed the 136 past its limit at once ($closed)"
s=$(status /api/health)
[ "$s" = 200 ]
ok $? "once they are gone a request is answered within 1 s ($s)"

# a flood of busy clients, five times the limit, for 3 s
timeout 20 wrk -t2 -c320 -d3s "$BASE/api/health" >"$tmp/wrk" 2>&1
reqs=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$tmp/wrk")
refused=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$tmp/wrk")
[ "${reqs:-0}" -gt 1000 ] && [ "${refused:-0}" -gt 0 ]
ok $? "wrk -c320 against a limit of 64: answered throughout ($reqs requests, $refused refused)"
s=$(status /api/runs)
[ "$s" = 200 ]
ok $? "after the flood a request is answered within 1 s ($s)"

# pipelining: 2,000 requests in one write, alternating two routes
python3 "$load" "$PORT" pipeline 2000 >"$tmp/pipe"
[ "$(cat "$tmp/pipe")" = "2000 inorder 200 200" ]
ok $? "2,000 pipelined requests in one write: all answered, in order ($(cat "$tmp/pipe"))"
python3 "$load" "$PORT" pipeline 2000 "b'GET /api/health HTTP/1.1\r\n\r\n'" >"$tmp/pipe"
[ "$(cat "$tmp/pipe")" = "2001 inorder 200 400" ]
ok $? "2,000 pipelined, then a head without Host: 2,000 answers, then the 400 ($(cat "$tmp/pipe"))"

# the gate owns every head's limits, relayed and kept alive too: its own
# JSON answer (no Date: libmicrohttpd dates its answers), never MHD's
big="b'GET /api/health HTTP/1.1\\r\\nHost: localhost\\r\\nX-Big: ' + b'a' * 40000 + b'\\r\\n\\r\\n'"
json431='{"error":"request head too large (at most 100 header lines and 32768 bytes)","status":431}'
long="b'GET /api/' + b'a' * 3000 + b' HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n'"
json414='{"error":"request target too long (at most 2048 bytes)","status":414}'
python3 "$load" "$PORT" pipeline 2000 "$big" who >"$tmp/pipe"
grep -qxF "2001 inorder 200 431 gate $json431" "$tmp/pipe"
ok $? "2,000 pipelined (relayed), then a head of 40 KB: 2,000 answers, then the gate's JSON 431 ($(cut -c1-40 "$tmp/pipe"))"
python3 "$load" "$PORT" talk "b'GET /api/health HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n'" \
	"$long" >"$tmp/talk"
grep -qxF "200 414 gate $json414" "$tmp/talk"
ok $? "kept alive, then a 3,000-byte target: the gate's JSON 414 ($(cut -c1-40 "$tmp/talk"))"

# NUL bytes anywhere in a head
for r in 'GET\x00 /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n' \
	'GET /api/health HTTP/1.1\r\nHost: localhost\x00evil.example\r\n\r\n' \
	'\x00GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n' \
	'GET /api/he\x00alth HTTP/1.1\r\nHost: localhost\r\n\r\n' \
	'GET /api/health HTTP/1.1\r\nHo\x00st: localhost\r\n\r\n' \
	'GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/runs HTTP/1.1\r\nHost: local\x00host\r\n\r\n'; do
	python3 "$load" "$PORT" send "b'$r'" >"$tmp/nul"
	case $r in
	*'\r\n\r\nGET'*) want='200 400' ;;
	*) want=400 ;;
	esac
	grep -qx "$want {\"error\":\"a NUL byte in the request head\",\"status\":400}" "$tmp/nul"
	ok $? "a NUL in '$r': $want, the 400 in JSON"
done

kill -TERM "$SERVER_PID"
for i in $(seq 50); do
	kill -0 "$SERVER_PID" 2>/dev/null || break
	sleep 0.1
done
! kill -0 "$SERVER_PID" 2>/dev/null
ok $? "after all that SIGTERM ends the server within 5 s"
wait "$SERVER_PID"
SERVER_PID=

# a POST's body is counted with its head (a server that takes triage):
# what follows the body is the gate's to check, in the same write or
# kept alive; and a head that libmicrohttpd read before the gate saw it
# (sent with the body, after MHD's 100 Continue) is held to the same
# rule by http.c, in JSON
printf 'alice %s\n' 0123456789abcdef0123456789abcdef >"$tmp/tokens"
chmod 600 "$tmp/tokens"
SERVER_ARGS="--triage-tokens $tmp/tokens" server_start "$DB"
ok $? "a server that takes triage starts"
w=$(sqlite3 "$DB" "SELECT fingerprint FROM identities LIMIT 1")
body='{"state":"intended","reason":"gate"}'
post="b'POST /api/warnings/$w/triage HTTP/1.1\\r\\nHost: localhost\\r\\nContent-Type: application/json\\r\\nAuthorization: Bearer 0123456789abcdef0123456789abcdef\\r\\nContent-Length: ${#body}\\r\\n"
te="b'GET /api/health HTTP/1.1\\r\\nHost: localhost\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n'"
te400='{"error":"a GET or HEAD takes no body (Transfer-Encoding refused)","status":400}'
python3 "$load" "$PORT" talk "$post\\r\\n$body' + $te" >"$tmp/talk"
grep -qxF "201 400 gate $te400" "$tmp/talk"
ok $? "a POST, its body and a GET with Transfer-Encoding in one write: 201, then the gate's JSON 400 ($(cut -c1-40 "$tmp/talk"))"
python3 "$load" "$PORT" talk "$post\\r\\n$body'" "$te" >"$tmp/talk"
grep -qxF "201 400 gate $te400" "$tmp/talk"
ok $? "a POST answered, then kept alive a GET with Transfer-Encoding: the gate's JSON 400 ($(cut -c1-40 "$tmp/talk"))"
python3 "$load" "$PORT" talk "$post\\r\\n$body' + b'GET /api/health HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\nGET /x HTTP/2.0\\r\\nHost: localhost\\r\\n\\r\\n'" >"$tmp/talk"
grep -qx '201 200 505 gate {"error":"HTTP version not supported (HTTP/1.0 and HTTP/1.1 are)","status":505}' "$tmp/talk"
ok $? "a POST and its body, a GET, then HTTP/2.0 in one write: 201 200, then the gate's JSON 505, not MHD's HTML ($(cut -c1-40 "$tmp/talk"))"
# in a relayed burst, a POST's body is passed on unread, the head after
# it checked
python3 "$load" "$PORT" pipeline 2000 "$post\\r\\n$body' + b'GET /api/health HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\nGET /x HTTP/2.0\\r\\nHost: localhost\\r\\n\\r\\n'" who >"$tmp/pipe"
grep -qx '2003 inorder 200 505 gate {"error":"HTTP version not supported (HTTP/1.0 and HTTP/1.1 are)","status":505}' "$tmp/pipe"
ok $? "2,000 pipelined (relayed), a POST and its body, a GET, then HTTP/2.0: 2,002 answers, then the gate's JSON 505 ($(cut -c1-40 "$tmp/pipe"))"
after_100() { # TAIL STATUS JSON: TAIL after the body, once MHD said 100
	python3 "$load" "$PORT" talk "${post}Expect: 100-continue\\r\\n\\r\\n'" \
		"b'$body' + $1" >"$tmp/talk"
	grep -qxF "100 201 $2 mhd $3" "$tmp/talk"
	ok $? "after MHD's 100 Continue, the body and a head the gate cannot see: 201, then $2 in JSON from http.c ($(cut -c1-40 "$tmp/talk"))"
}
after_100 "$te" 400 "$te400"
after_100 "$long" 414 "$json414"
after_100 "$big" 431 "$json431"
python3 "$load" "$PORT" send "${post/Content-Length: ${#body}/Content-Length: ${#body} }\\r\\n$body'" >"$tmp/send"
grep -qx '400 {"error":"bad Content-Length: want its digits alone","status":400}' "$tmp/send"
ok $? "a Content-Length with a space after it: one JSON 400, not MHD's two status lines and HTML ($(cat "$tmp/send"))"
python3 "$load" "$PORT" send "${post}Content-Length: 99\\r\\n\\r\\n$body'" >"$tmp/send"
grep -qx '400 {"error":"more than one Content-Length","status":400}' "$tmp/send"
ok $? "two Content-Lengths (MHD reads the first): JSON 400 ($(cat "$tmp/send"))"
server_stop
ok $? "it stops on SIGTERM"
done_tap
