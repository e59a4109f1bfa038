#!/bin/bash
# The dashboard in a real browser: headless chromium loads it from a running
# kwarn-server over the fixture database (tests/lib/server-fixture.sh) and
# the rendered DOM is checked: one chart point and one table row per commit,
# the new warning in its panel, and a warning message holding markup shows
# as text and runs nothing.  Screenshots go to build/artifacts/.
set -u
cd "$(dirname "$0")/.."
top=$PWD
tmp=$(mktemp -d)
SERVER_PID=
trap '[ -n "$SERVER_PID" ] && kill $SERVER_PID 2>/dev/null; rm -rf "$tmp"' EXIT
KWARN=${KWARN:-$top/bin/kwarn}
KWARN_SERVER=${KWARN_SERVER:-$top/bin/kwarn-server}
. tests/lib/server-fixture.sh
n=0 failed=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
	return 0
}
browser() { # ARGS... URL: one headless chromium run with a fresh profile
	local prof
	prof=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$prof" \
		--virtual-time-budget=10000 "$@" 2>>"$tmp/chromium.log"
}
dom() { browser --dump-dom "$BASE/$1" >"$tmp/dom"; }
count() { grep -o -- "$1" "$tmp/dom" | wc -l; }

xss_script='<script>alert(1)</script>'
xss_img='"><img src=x onerror=alert(1)>'

fixture_build "$tmp"
ok $? "fixture database built by kwarn ingest from gcc logs"
# markup in a stored warning message and in a commit subject
sqlite3 "$DB" "UPDATE diagnostics SET message = 'falls $xss_script and ''$xss_img'''
	WHERE function = 'afs_c';
	UPDATE commits SET subject = 'afs: $xss_script' WHERE position = 1"
ok $? "markup stored in a warning message and a commit subject"
server_start "$DB" "$top/web"
ok $? "server started with the dashboard ($BASE)"
commits=$(curl -s "$BASE/api/runs/$RUN/burndown" | jq length)

dom ""
grep -q 'data-ready="1"' "$tmp/dom"
ok $? "the dashboard's scripts ran to the end"
c=$(count '<circle [^>]*class="point')
[ "$c" = "$commits" ]
ok $? "one chart point per commit ($c of $commits)"
c=$(count '<tr class="commit-row')
[ "$c" = "$commits" ]
ok $? "one table row per commit ($c of $commits)"
c=$(count 'class="new-warning"')
[ "$c" = 1 ]
ok $? "the new warning stands out in its panel ($c)"
grep -qF 'falls &lt;script&gt;alert(1)&lt;/script&gt; and '"'"'"&gt;&lt;img src=x onerror=alert(1)&gt;'"'" "$tmp/dom"
ok $? "the message's markup shows as text"
grep -qF 'afs: &lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/dom"
ok $? "the subject's markup shows as text"
! grep -qi '<img' "$tmp/dom" && ! grep -qiF "$xss_script" "$tmp/dom"
ok $? "no <img> and no injected <script> element in the page"
# the panel is built from the API: the hash route with the commit's id
c=$(grep -o '<td class="num new">[0-9]*</td>' "$tmp/dom" | tr -dc '0-9\n' |
	paste -sd+ | bc)
api_new=$(curl -s "$BASE/api/runs/$RUN/burndown" | jq '[.[].new] | add')
[ "$c" = "$api_new" ]
ok $? "table's new column adds up to the API's ($c = $api_new)"

ident=$(curl -s "$BASE/api/commits/$C2/warnings?state=new" |
	jq -r '.warnings[0].identity')
dom "#/warning/$ident/$C2"
grep -q 'class="row hit"' "$tmp/dom" && grep -qF 'x *= 2;' "$tmp/dom" &&
	grep -qF 'in afs_c()' "$tmp/dom"
ok $? "warning page: the source line, highlighted"
grep -qF 'make fs/afs/fsclient.o' "$tmp/dom" &&
	grep -qF 'note: here' "$tmp/dom"
ok $? "warning page: its note and the reproducer"
grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/dom" &&
	! grep -qi '<img' "$tmp/dom"
ok $? "warning page: the markup is text there too"

dom "#/subsystems"
grep -qF 'AFS FILESYSTEM' "$tmp/dom" && grep -qF 'THE REST' "$tmp/dom"
ok $? "subsystem view lists MAINTAINERS entries"
dom "#/trees"
grep -qF 'kwtree' "$tmp/dom" && grep -q "#/run/$RUN" "$tmp/dom"
ok $? "trees view lists the tree and its run"
dom "#/commit/$C3?state=fixed"
c=$(count '<span class="badge fixed">')
[ "$c" = 3 ]
ok $? "commit view with state=fixed shows the 3 fixed ($c)"

# the boot page lists the modules a --full boot loaded, a failed one marked
boot_build=$(sqlite3 "$DB" "SELECT build_id FROM boots LIMIT 1")
sqlite3 "$DB" "INSERT INTO boot_modules(boot_id, name, status, message)
	SELECT id, 'firewire-core', 'ok', NULL FROM boots LIMIT 1;
	INSERT INTO boot_modules(boot_id, name, status, message)
	SELECT id, 'kafs', 'fail', 'Address family not supported' FROM boots LIMIT 1"
dom "#/boot/$boot_build"
grep -qF 'Modules: 1 loaded, 1 failed' "$tmp/dom" &&
	grep -qF '<tr class="new"><td>kafs</td><td>fail</td><td>Address family not supported</td>' "$tmp/dom" &&
	grep -qF '<td>firewire-core</td><td>ok</td>' "$tmp/dom"
ok $? "boot page: modules loaded and the failed one marked"

mkdir -p build/artifacts
rm -f build/artifacts/dashboard.png build/artifacts/dashboard-phone.png
browser --hide-scrollbars --window-size=1280,900 \
	--screenshot="$top/build/artifacts/dashboard.png" "$BASE/" >/dev/null
[ "$(head -c 8 build/artifacts/dashboard.png | od -An -tx1 | tr -d ' ')" = \
	89504e470d0a1a0a ]
ok $? "screenshot saved to build/artifacts/dashboard.png"
browser --hide-scrollbars --window-size=390,844 \
	--screenshot="$top/build/artifacts/dashboard-phone.png" "$BASE/" >/dev/null
[ -s build/artifacts/dashboard-phone.png ]
ok $? "phone-sized screenshot saved to build/artifacts/dashboard-phone.png"

server_stop
ok $? "server stopped cleanly"

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ $failed = 0 ]
