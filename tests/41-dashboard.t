#!/bin/bash
# The dashboard in a real browser: headless chromium loads it from a running
# kwarn-server over the fixture database (tests/lib/server-fixture.sh) and
# the rendered DOM is checked against the API: one chart point per commit
# per (compiler, option) series, one table cell per subsystem (file,
# option) and commit, the diff's lists, the warning page's source as the
# commit had it, and markup in every stored field shown as text.  The
# fixture has a gcc and a clang-16 run (FIXTURE_CLANG=1).  Screenshots of
# every view at 1280 and 390 pixels go to build/artifacts/ (the README's
# picture of the campaign is scripts/dashboard-screenshot's).
# What --dump-dom cannot show (keys pressed, the page's width at 390
# pixels, print media) is asked of chromium over its DevTools pipe (cdp
# below).  doc/dashboard.md says which check covers what.
set -u
cd "$(dirname "$0")/.."
top=$PWD
tmp=$(mktemp -d)
SERVER_PID=
# KEEP_TMP=1 keeps the database and the last DOM for a look afterwards
trap '[ -n "$SERVER_PID" ] && kill $SERVER_PID 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"' EXIT
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
# "series position" of each chart point in $tmp/dom with tabindex $1
points_tabindex() {
	grep -o '<circle [^>]*class="point[^>]*' "$tmp/dom" |
		sed -n 's/.*tabindex="'"$1"'" data-position="\([0-9]*\)" data-series="\([^"]*\)".*/\2 \1/p' |
		sort
}
# "series position" of each series' last point in $tmp/dom
points_last() {
	grep -o '<circle [^>]*class="point[^>]*' "$tmp/dom" |
		sed -n 's/.*data-position="\([0-9]*\)" data-series="\([^"]*\)".*/\2 \1/p' |
		awk '{ s = $0; sub(/ [0-9]+$/, "", s); last[s] = $NF }
			END { for (k in last) print k, last[k] }' | sort
}
# the diff view in $tmp/dom lists what the API's diff in file $1 lists
diff_lists_equal() {
	local kind a b bad=0
	for kind in new fixed not_built remaining; do
		a=$(perl -0ne 'print "$1\n" while /<section class="diff-list" id="diff-'$kind'">(.*?)<\/section>/gs' "$tmp/dom" |
			grep -o 'data-identity="[0-9a-f]*"' | cut -d'"' -f2 | paste -sd,)
		b=$(jq -r ".$kind | map(.identity) | join(\",\")" "$1")
		[ "$a" = "$b" ] || { bad=1; echo "# $kind: $a != $b"; }
	done
	return $bad
}
diff_title() { # the page title the diff in file $1 gives the diff view
	jq -r '.counts | "<title>kwarn diff: \(.new) new, \(.fixed) fixed, \(.remaining) remaining\(if .not_built > 0 then ", \(.not_built) not built" else "" end)</title>"' "$1"
}

# cdp W,H URL STEP...: URL in headless chromium driven over its DevTools
# pipe (fds 3 and 4, messages ending in NUL; core perl only), the page W
# x H CSS pixels; once the dashboard set data-ready, each STEP in turn:
# key:NAME presses a key as a user does (Input.dispatchKeyEvent),
# media:print lays the page out for print, scheme:dark (light) is the
# system's colour scheme the page sees, js:EXPR prints EXPR's value
# on a line (a promise's, once it settles).  Exits non-zero if anything fails.
cat >"$tmp/cdp.pl" <<'PERL'
use strict;
use warnings;
use JSON::PP;
use IO::Handle;
use POSIX qw(dup2 _exit);
use Time::HiRes qw(sleep time);

my ($size, $url, @steps) = @ARGV;
my ($w, $h) = split(/,/, $size);
$^F = 255;	# no close-on-exec: fds 3 and 4 must reach chromium
pipe(my $cmd_r, my $cmd_w) or die "pipe: $!";
pipe(my $res_r, my $res_w) or die "pipe: $!";
my $prof = "$ENV{CDP_TMP}/cdp-profile.$$";
my $pid = fork() // die "fork: $!";
if (!$pid) {
	dup2(fileno($cmd_r), 3) or _exit(127);
	dup2(fileno($res_w), 4) or _exit(127);
	open(STDOUT, '>', '/dev/null');
	open(STDERR, '>', '/dev/null');
	{ exec('chromium', '--headless', '--no-sandbox', '--disable-gpu',
	     '--no-first-run', '--disable-background-networking',
	     '--disable-component-update', '--disable-sync', '--hide-scrollbars',
	     "--user-data-dir=$prof", "--window-size=$size",
	     '--remote-debugging-pipe', 'about:blank') };
	_exit(127);
}
close($cmd_r);
close($res_w);
$cmd_w->autoflush(1);
my $json = JSON::PP->new->canonical->allow_nonref;
my ($id, $buf, $sid) = (0, '', undef);

sub call {
	my ($method, $params) = @_;
	my %m = (id => ++$id, method => $method, params => $params // {});
	$m{sessionId} = $sid if $sid;
	print $cmd_w $json->encode(\%m), "\0";
	my $deadline = time() + 60;
	while (time() < $deadline) {
		while ((my $i = index($buf, "\0")) >= 0) {
			my $msg = $json->decode(substr($buf, 0, $i));
			$buf = substr($buf, $i + 1);
			next unless defined $msg->{id} && $msg->{id} == $id;
			die "cdp: $method: $msg->{error}{message}\n" if $msg->{error};
			return $msg->{result};
		}
		sysread($res_r, my $chunk, 1 << 20) or die "cdp: chromium went away\n";
		$buf .= $chunk;
	}
	die "cdp: $method: no answer\n";
}

sub value {
	my $r = call('Runtime.evaluate', { expression => $_[0],
		returnByValue => JSON::PP::true, awaitPromise => JSON::PP::true });
	die "cdp: $_[0]: $r->{exceptionDetails}{text}\n" if $r->{exceptionDetails};
	return $r->{result}{value};
}

my %vk = (ArrowLeft => 37, ArrowRight => 39, Home => 36, End => 35);
my %emu;
eval {
	my $t = call('Target.getTargets');
	my ($page) = grep { $_->{type} eq 'page' } @{$t->{targetInfos}};
	$sid = call('Target.attachToTarget', { targetId => $page->{targetId},
		flatten => JSON::PP::true })->{sessionId};
	call('Emulation.setFocusEmulationEnabled', { enabled => JSON::PP::true });
	# a headless window is at least 500 pixels wide: the page is made W
	call('Emulation.setDeviceMetricsOverride', { width => $w + 0,
		height => $h + 0, deviceScaleFactor => 1, mobile => JSON::PP::false });
	call('Page.navigate', { url => $url });
	my $deadline = time() + 60;
	until ((value('document.body && document.body.dataset.ready') // '') eq '1') {
		die "cdp: $url never got ready\n" if time() > $deadline;
		sleep(0.05);
	}
	for (@steps) {
		my ($what, $arg) = split(/:/, $_, 2);
		if ($what eq 'key') {
			my %k = (key => $arg, code => $arg,
				 windowsVirtualKeyCode => $vk{$arg} // 0);
			call('Input.dispatchKeyEvent', { type => 'rawKeyDown', %k });
			call('Input.dispatchKeyEvent', { type => 'keyUp', %k });
		} elsif ($what eq 'media' || $what eq 'scheme') {
			# one call sets both: each step keeps what the other set
			$emu{$what} = $arg;
			call('Emulation.setEmulatedMedia', { media => $emu{media} // '',
				features => [ $emu{scheme} ? { name => 'prefers-color-scheme',
					value => $emu{scheme} } : () ] });
		} elsif ($what eq 'js') {
			my $v = value($arg);
			print ref($v) ? $json->encode($v) : $v // 'null', "\n";
		} else {
			die "cdp: unknown step '$_'\n";
		}
	}
};
my $err = $@;
close($cmd_w);
waitpid($pid, 0);
system('rm', '-rf', $prof);
die $err if $err;
PERL
cdp() { CDP_TMP=$tmp timeout 120 perl "$tmp/cdp.pl" "$1" "$BASE/$2" "${@:3}" 2>>"$tmp/chromium.log"; }

xss_script='<script>alert(1)</script>'
xss_img='"><img src=x onerror=alert(1)>'

export KWARN_CACHE=$tmp/cache
FIXTURE_CLANG=1 fixture_build "$tmp"
ok $? "fixture database built by kwarn ingest from gcc and clang-16 logs"
server_start "$DB" "$top/web"
ok $? "server started with the dashboard ($BASE)"
# markup in a stored warning message and in a commit subject
sqlite3 "$DB" "UPDATE diagnostics SET message = 'falls $xss_script and ''$xss_img'''
	WHERE function = 'afs_c';
	UPDATE commits SET subject = 'afs: $xss_script' WHERE position = 1"
ok $? "markup stored in a warning message and a commit subject"
commits=$(curl -s "$BASE/api/runs/$RUN/burndown" | jq length)
api() { curl -s "$BASE$1"; }

dom ""
grep -q 'data-ready="1"' "$tmp/dom"
ok $? "the dashboard's scripts ran to the end"
# the group's two burn-downs come in one request, the new panel's diff
# in the other (the page counts its own fetches)
nreq=$(sed -n 's/.*data-requests="\([0-9]*\)".*/\1/p' "$tmp/dom")
[ "$nreq" = 2 ]
ok $? "burn-down of a group of two runs: two requests ($nreq)"
# one series per (compiler, option) of the run's group, as the API counts
series=$( (api "/api/runs/$RUN/burndown" | jq -r '.[].by_option | keys[]' |
	sort -u | sed 's/^/gcc /'
	api "/api/runs/$CLANG_RUN/burndown" | jq -r '.[].by_option | keys[]' |
	sort -u | sed 's/^/clang-16 /') | sort)
got=$(grep -o '<circle [^>]*class="point[^>]*' "$tmp/dom" |
	sed -n 's/.*data-series="\([^"]*\)".*/\1/p' | sort | uniq -c |
	awk '{c = $1; $1 = ""; print substr($0, 2) " " c}')
want=$(printf '%s\n' "$series" | sed "s/\$/ $commits/")
[ "$got" = "$want" ] && [ "$(printf '%s\n' "$series" | wc -l)" = 3 ]
ok $? "one chart point per commit in each of the 3 (compiler, option) series"
bad=0
for r in $RUN $CLANG_RUN; do
	cc=gcc
	[ "$r" = "$CLANG_RUN" ] && cc=clang-16
	for o in $(api "/api/runs/$r/burndown" | jq -r '.[].by_option | keys[]' | sort -u); do
		a=$(grep -o '<circle [^>]*class="point[^>]*' "$tmp/dom" |
			grep -F "data-series=\"$cc $o\"" |
			sed 's/.*data-count="\([0-9]*\)".*/\1/' | paste -sd,)
		b=$(api "/api/runs/$r/burndown" | jq -r --arg o "$o" \
			'[.[].by_option[$o] // 0] | join(",")')
		[ "$a" = "$b" ] || { bad=1; echo "# $cc $o: $a != $b"; }
	done
done
ok $bad "every point's count is the API's"
c=$(count '<button type="button" class="c[0-9]" aria-pressed="true"')
[ "$c" = 3 ]
ok $? "a legend button per series, to toggle it ($c)"
grep -q 'class="boot-fail" data-position="2"' "$tmp/dom" &&
	grep -qF '✕ crash (clang-16)' "$tmp/dom"
ok $? "clang's crashed boot at commit #2 marked on the chart"
# a roving tabindex: one tab stop per series, its last point; the arrow
# keys do the rest (pressed below, on a chart of more than 200 commits)
a=$(points_tabindex 0)
[ -n "$a" ] && [ "$a" = "$(points_last)" ] &&
	[ "$(points_tabindex -1 | wc -l)" = $((3 * commits - 3)) ]
ok $? "one point per series in the tab order, its last ($(echo "$a" | paste -sd,))"
dom "#/run/$RUN?at=1"
tip=$(perl -0ne 'print $1 if /(<div class="tip[^"]*" role="status"[^>]*>[^<]*)/s' "$tmp/dom")
printf '%s\n' "$tip" | grep -q 'class="tip"' &&
	printf '%s\n' "$tip" | grep -qF "#1 ${C2:0:12} afs: &lt;script&gt;" &&
	printf '%s\n' "$tip" | grep -qF "clang-16 -Wmissing-prototypes: $(api \
		"/api/runs/$CLANG_RUN/burndown" | jq '.[1].by_option["-Wmissing-prototypes"]')" &&
	printf '%s\n' "$tip" | grep -qF "gcc -Wimplicit-fallthrough=: $(api \
		"/api/runs/$RUN/burndown" | jq '.[1].warnings')"
ok $? "keyboard focus on commit #1 opens its tip: subject and counts"
c=$(count '<tr class="commit-row')
[ "$c" = "$commits" ]
ok $? "one table row per commit ($c of $commits)"
# issue 33: what is new stands out, and the table's rows are real links
got=$(grep -o '<circle [^>]*class="point [^"]*has-new[^>]*' "$tmp/dom" |
	sed -n 's/.*data-position="\([0-9]*\)".*/\1/p' | sort -u | paste -sd,)
want=$(api "/api/runs/$RUN/burndown" | jq -r '[.[] | select(.new > 0) |
	.position] | sort | map(tostring) | join(",")')
[ -n "$want" ] && [ "$got" = "$want" ]
ok $? "the chart marks the points of the commits that add a warning ($got = $want)"
printf '%s\n' "$tip" | grep -qF "$(api "/api/runs/$RUN/burndown" |
	jq -r '.[1] | "+\(.new) new, −\(.fixed) fixed"')"
ok $? "the tip of commit #1 has its new and fixed counts"
a=$(grep -o '<tr class="commit-row[^>]*><td class="num">[0-9]*</td><td class="sha mono"><a href="[^"]*">' "$tmp/dom" |
	sed 's/.*<td class="num">\([0-9]*\)<.*href="\([^"]*\)".*/\1 \2/')
b=$(api "/api/runs/$RUN/burndown" | jq -r --argjson r "$RUN" '.[] |
	"\(.position) #/commit/\(.position)?run=\($r)"')
[ "$a" = "$b" ] && [ "$(echo "$a" | wc -l)" = "$commits" ]
ok $? "each commit row's sha is a link to its commit, by its position ($(echo "$a" | paste -sd,))"
grep -q '<tr class="commit-row[^"]* at"><td class="num">1</td>' "$tmp/dom" &&
	[ "$(count 'commit-row[^"]* at"')" = 1 ]
ok $? "?at=1 highlights that commit's row alone"
nb=$(api "/api/runs/$RUN/burndown" | jq '[.[] | select(.build)] | last | .not_built')
grep -q "<span class=\"not-built\"><b>$nb</b> not built</span>" "$tmp/dom"
ok $? "the summary counts the tip's not-built warnings ($nb)"
curl -s "$BASE/" | grep -q '<link rel="icon" href="data:,">'
ok $? "the page names its icon: no favicon.ico request to 404"
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
# zeros mean nothing: muted, never in the colour of new, fixed or not built
z=$(api "/api/runs/$RUN/burndown" | jq '[.[] | .new, .fixed, .not_built | select(. == 0)] | length')
f=$(api "/api/runs/$RUN/burndown" | jq '[.[] | select(.fixed > 0)] | length')
[ "$(count '<td class="num \(new\|fixed\|nb\)">0</td>')" = 0 ] && [ "$z" -gt 0 ] &&
	[ "$(count '<td class="num zero">0</td>')" = "$z" ] &&
	[ "$(count '<td class="num fixed">[1-9]')" = "$f" ]
ok $? "the commit table's $z zeros muted, its $f fixed counts coloured"

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

# ---- triage: the new warning of c2 triaged intended, by kwarn triage ----
cid2=$(api "/api/runs/$RUN/burndown" | jq '.[1].id')
cid3=$(api "/api/runs/$RUN/burndown" | jq '.[2].id')
tri=$(api "/api/commits/$cid2/warnings?state=new" | jq -r '.warnings[0].identity')
"$KWARN" triage --db "$DB" "$tri" --as intended --who "alice $xss_img" \
	--reason "doubling first is the point $xss_script" >/dev/null
ok $? "one warning triaged intended with kwarn triage"
a=$(perl -ne 'if (/^const TRIAGE = /../;/) { print "$1\n" while /\x27([a-z-]+)\x27/g }' web/app.js | paste -sd,)
b=$(api "/api/runs/$RUN/burndown" | jq -r '.[0].by_triage | keys_unsorted | join(",")')
[ -n "$a" ] && [ "$a" = "$b" ]
ok $? "the dashboard's triage states are the burn-down's by_triage, in order ($a)"
dom "#/commit/$cid2"
row=$(perl -0ne 'print $1 if /(<tr>(?:(?!<\/tr>).)*data-triage=.*?<\/tr>)/s' "$tmp/dom")
[ "$(count 'class="triage-badge ')" = 1 ] &&
	printf '%s' "$row" | grep -q '<span class="triage-badge intended" data-triage="intended" title="intended by alice &quot;&gt;&lt;img src=x onerror=alert(1)&gt; on [0-9-]*: doubling first is the point &lt;script&gt;' &&
	printf '%s' "$row" | grep -qF "#/warning/$tri/"
ok $? "commit list: the triaged warning's badge, and the decision in its title, on its row alone"
total=$(api "/api/commits/$cid2/warnings" | jq .total)
for t in intended open; do
	dom "#/commit/$cid2?triage=$t"
	a=$(count '<tr><td><span class="badge')
	b=$(api "/api/commits/$cid2/warnings?triage=$t" | jq .total)
	[ "$a" = "$b" ] && grep -q "<b>$t</b>" "$tmp/dom" &&
		grep -qF "1–$b of $b" "$tmp/dom" || { echo "# $t: $a rows, API $b"; false; }
	ok $? "commit list, triage=$t: the API's $b warnings, the filter marked"
done
[ "$(api "/api/commits/$cid2/warnings?triage=open" | jq .total)" = $((total - 1)) ]
ok $? "open is every warning but the triaged one ($((total - 1)) of $total)"
dom "#/run/$RUN"
bt=$(api "/api/runs/$RUN/burndown" | jq -c '.[-1].by_triage')
grep -qF "<span class=\"triage-open\"><a href=\"#/commit/2?run=$RUN&amp;triage=open\"><b>$(echo "$bt" | jq .open)</b> open</a></span>" "$tmp/dom" &&
	grep -qF "<span class=\"triage-decided\"><b>1</b> triaged: <a href=\"#/commit/2?run=$RUN&amp;triage=intended\">1 intended</a></span>" "$tmp/dom" &&
	[ "$(echo "$bt" | jq '.intended')" = 1 ]
ok $? "burn-down summary: open and triaged now, as by_triage counts them ($bt)"
grep -q '<div class="new-warning"><div><span class="badge new">new</span> <span class="triage-badge intended"' "$tmp/dom"
ok $? "the new-warnings panel: the new warning with its triage badge"
dom "#/warning/$tri/$cid2"
grep -qF '<p class="triage">triage: <span class="triage-badge intended"' "$tmp/dom" &&
	grep -qF '<b class="triage-who">alice "&gt;&lt;img src=x onerror=alert(1)&gt;</b>' "$tmp/dom" &&
	grep -qF '<span class="triage-reason">doubling first is the point &lt;script&gt;alert(1)&lt;/script&gt;</span>' "$tmp/dom" &&
	! grep -qi '<img' "$tmp/dom" && ! grep -qiF "$xss_script" "$tmp/dom"
ok $? "warning page: the triage whole, who and why as text"
! grep -q 'triage-form\|triage-token' "$tmp/dom"
ok $? "a read-only server: the warning page has no triage control"
dom "#/diff?run=$RUN&from=$C1&to=$C3"
a=$(grep -o '<li class="diff-item [a-z_]*" data-identity="[0-9a-f]*"><span class="triage-badge intended"' "$tmp/dom" |
	sed 's/.*data-identity="\([0-9a-f]*\)".*/\1/')
[ "$a" = "$tri" ] && [ "$(count 'class="triage-badge ')" = 1 ]
ok $? "diff view: the triaged warning's badge, on it alone"

# ---- kwarn classify's verdicts (issue 33), read from a copy of the tree
# where afs_c's two cases both store x (a missing break) ----
cp -r "$tmp/src" "$tmp/cls" &&
	sed -i '17s/x \*= 2;/x = 14;/; 19s/x--;/x = -1;/' "$tmp/cls/fs/afs/fsclient.c" &&
	"$KWARN" classify --db "$DB" --commit "$C3" --tree "$tmp/cls" >"$tmp/cls.out"
ok $? "kwarn classify of the tip's warnings ($(tail -1 "$tmp/cls.out"))"
mb=$(api "/api/warnings?run=$RUN&verdict=missing-break" | jq .total)
# the burn-down counts them at every point, as the lists filter them
a=$(api "/api/runs/$RUN/burndown" | jq -r '.[] | "\(.id) \(.missing_break)"')
b=$(echo "$a" | while read -r id _; do
	echo "$id $(api "/api/commits/$id/warnings?verdict=missing-break&limit=1" | jq .total)"
done)
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$(echo "$a" | tail -1 | cut -d' ' -f2)" = "$mb" ]
ok $? "the burn-down's missing_break at each point: the API's list's total ($(echo "$a" | cut -d' ' -f2 | paste -sd,))"
dom "#/run/$RUN"
[ "$mb" -ge 1 ] && grep -qF "<span class=\"missing-break some\"><a href=\"#/commit/2?run=$RUN&amp;verdict=missing-break\"><b>$mb</b> likely missing break</a></span>" "$tmp/dom"
ok $? "burn-down summary: the tip's likely missing breaks ($mb), linked to them"
# the verdict column: each row's, in the API's order
row_verdicts() {
	grep -o '<td class="verdict">\(<span class="classify-badge [a-z-]*" data-verdict="[a-z-]*"\)\?' "$tmp/dom" |
		sed 's/.*data-verdict="\([a-z-]*\)"/\1/; s/<td class="verdict">$/none/' | paste -sd,
}
api_verdicts() { # URL
	api "$1" | jq -r '[.warnings[] | .verdict // "none" |
		sub("likely missing break"; "missing-break") | sub("likely intended"; "intended")] | join(",")'
}
dom "#/commit/2?run=$RUN"
a=$(row_verdicts)
[ -n "$a" ] && [ "$a" = "$(api_verdicts "/api/commits/$C3/warnings?run=$RUN")" ] &&
	echo "$a" | grep -q missing-break && grep -q '<th>verdict</th>' "$tmp/dom"
ok $? "commit page: a verdict column, each row's the API's ($a)"
bad=0
for v in missing-break:"likely missing break" intended:"likely intended" none:"not classified"; do
	dom "#/commit/2?run=$RUN&verdict=${v%%:*}"
	a=$(row_verdicts)
	b=$(api_verdicts "/api/commits/$C3/warnings?run=$RUN&verdict=${v%%:*}")
	[ "$a" = "$b" ] && grep -qF "<b>${v#*:}</b>" "$tmp/dom" &&
		{ [ -z "$a" ] || [ "$(echo "$a" | tr , '\n' | grep -cvx "${v%%:*}")" = 0 ]; } ||
		{ bad=1; echo "# verdict=${v%%:*}: $a, API $b"; }
done
ok $bad "commit page: the verdict filter keeps the API's warnings of that verdict"
dom "#/warnings?run=$RUN&commit=$C3&file=fs/afs/fsclient.c&verdict=missing-break"
a=$(row_verdicts)
[ "$a" = "$(api_verdicts "/api/warnings?run=$RUN&commit=$C3&file=fs/afs/fsclient.c&verdict=missing-break")" ] &&
	[ "$a" = missing-break ] && grep -qF '<b>likely missing break</b>' "$tmp/dom" &&
	grep -qF "href=\"#/warnings?run=$RUN&amp;commit=$C3&amp;file=fs%2Fafs%2Ffsclient.c&amp;verdict=intended\"" "$tmp/dom"
ok $? "a file's list: filtered by verdict, the other verdicts a link away"
dom "#/subsystem/$RUN/AFS%20FILESYSTEM?commit=$C3&verdict=missing-break"
[ "$(row_verdicts)" = missing-break ] && grep -qF '<b>likely missing break</b>' "$tmp/dom"
ok $? "a subsystem's list: filtered by verdict"

dom "#/subsystems"
grep -qF 'AFS FILESYSTEM' "$tmp/dom" && grep -qF 'THE REST' "$tmp/dom"
ok $? "subsystem view lists MAINTAINERS entries"
for by in subsystem file option; do
	dom "#/over/$by?run=$CLANG_RUN"
	a=$(grep -o '<td class="num cell[^"]*" data-count="[0-9]*"' "$tmp/dom" |
		sed 's/.*data-count="//; s/"//' | paste -sd,)
	b=$(api "/api/runs/$CLANG_RUN/series?by=$by" | jq -r '[.rows[].counts[]] | join(",")')
	rows=$(api "/api/runs/$CLANG_RUN/series?by=$by" | jq '.rows | length')
	[ -n "$a" ] && [ "$a" = "$b" ] &&
		[ "$(count '<tr class="over-row"')" = "$rows" ] &&
		[ "$(count '<svg [^>]*class="spark"')" = "$rows" ]
	ok $? "over time by $by: $rows rows x $commits commits, a sparkline each, cells = API ($a)"
done
dom "#/over/subsystem?run=$RUN&at=0"
grep -qF "href=\"#/subsystem/$RUN/FIREWIRE%20SUBSYSTEM?commit=$(api \
	"/api/runs/$RUN/burndown" | jq '.[0].id')\"" "$tmp/dom" &&
	[ "$(count '<td class="num cell at')" = "$(api "/api/runs/$RUN/series" | jq '.rows | length')" ]
ok $? "commit #0 selected: its column marked, rows lead to the warnings there"
# issue 33: each count is a link to its row's warnings at its column's
# commit, and a row with none at the tip leads to where it last had some
dom "#/over/subsystem?run=$RUN"
api "/api/runs/$RUN/series?by=subsystem" >"$tmp/ser.json"
a=$(grep -o '<td class="num cell[^"]*" data-count="[0-9]*"><a href="[^"]*">[0-9]*</a>' "$tmp/dom" |
	sed 's/.*data-count="\([0-9]*\)"><a href="\([^"]*\)">\([0-9]*\)<.*/\1 \3 \2/')
b=$(jq -r --argjson r "$RUN" '.commits as $c | .rows[] | .name as $n |
	.counts | to_entries[] | select(.value > 0) |
	"\(.value) \(.value) #/subsystem/\($r)/\($n | @uri)?commit=\($c[.key].id)"' "$tmp/ser.json")
[ -n "$a" ] && [ "$a" = "$b" ] &&
	[ "$(count '<td class="num cell[^"]*" data-count="0">0</td>')" = \
	  "$(jq '[.rows[].counts[] | select(. == 0)] | length' "$tmp/ser.json")" ]
ok $? "over time: each count links to its row's warnings at its commit, a zero to none ($(echo "$a" | wc -l) links)"
read -r tip_count last_count lastid < <(jq -r '.commits as $c | .rows[] |
	select(.name == "FIREWIRE SUBSYSTEM") | .counts as $n |
	([range(0; $n | length)] | map(select($n[.] > 0)) | last) as $i |
	"\($n[-1]) \($n[$i]) \($c[$i].id)"' "$tmp/ser.json")
h=$(grep -o '<td class="name"><a href="[^"]*" class="cut" title="FIREWIRE SUBSYSTEM"' "$tmp/dom" |
	sed 's/.*href="\([^"]*\)".*/\1/')
[ "$tip_count" = 0 ] && [ "$h" = "#/subsystem/$RUN/FIREWIRE%20SUBSYSTEM?commit=$lastid" ]
ok $? "a subsystem fixed at the tip: its row leads to its last commit with warnings ($h)"
dom "$h"
[ "$(count '<tr><td><span class="badge')" = "$last_count" ]
ok $? "and that page lists its $last_count warnings there"
dom "#/subsystem/$RUN/FIREWIRE%20SUBSYSTEM?commit=$C1"
c=$(count '<span class="badge [a-z_]*">')
[ "$c" = "$(api "/api/runs/$RUN/series" | jq '.rows[] | select(.name == "FIREWIRE SUBSYSTEM") | .counts[0]')" ]
ok $? "the subsystem's row leads to its $c warnings at that commit"

# the diff view lists what the API's diff lists
dom "#/diff?run=$RUN&from=$C1&to=$C3"
api "/api/diff?run=$RUN&from=$C1&to=$C3" >"$tmp/diff.json"
diff_lists_equal "$tmp/diff.json"
ok $? "diff view: new, fixed, not built and remaining lists equal the API's"
grep -qF "$(diff_title "$tmp/diff.json")" "$tmp/dom"
ok $? "diff view: the counts in the page title"
c=$(perl -0ne 'print $1 if /<table id="diff-subsystems">(.*?)<\/table>/s' "$tmp/dom" | grep -o '<tr>' | wc -l)
[ "$c" = $(($(jq '.subsystems | length' "$tmp/diff.json") + 1)) ]
ok $? "diff view: one row per subsystem ($((c - 1)))"
# the top bar's bare #/diff: the newest run's base -> tip, the first and
# last built points, as the run page's "base -> tip diff" link has it
dom "#/diff"
newest=$(api /api/runs | jq '.[0].id')
read -r from to < <(api "/api/runs/$newest/burndown" |
	jq -r '[.[] | select(.warnings != null)] | "\(.[0].id) \(.[-1].id)"')
api "/api/diff?run=$newest&from=$from&to=$to" >"$tmp/diff0.json"
! grep -q 'class="error"' "$tmp/dom" && [ "$from" != "$to" ] &&
	diff_lists_equal "$tmp/diff0.json" &&
	grep -qF "$(diff_title "$tmp/diff0.json")" "$tmp/dom" &&
	grep -q "<h2>new ($(jq '.counts.new' "$tmp/diff0.json"))</h2>" "$tmp/dom"
ok $? "bare #/diff: run #$newest's base -> tip ($(jq -c .counts "$tmp/diff0.json"))"
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
# a serial log as SeaBIOS and a coloured console print it (issue 33): the
# API gives it as it was, the page without the terminal's escapes, and
# the boot leads to the commit it booted
perl -MCompress::Zlib -e 'my $l = "\e[2J\e[0mSeaBIOS (version 1.16.2)\r\n" .
	"\e[1;31mLinux version 6.1.0\e[0m\r\n\e]0;tty\aboot line\r\n";
	printf "%s %d\n", unpack("H*", compress($l)), length($l)' >"$tmp/esc.hex"
read -r hex size <"$tmp/esc.hex"
sqlite3 "$DB" "UPDATE boots SET log = X'$hex', log_size = $size WHERE build_id = $boot_build"
api "/api/builds/$boot_build/boot" | jq -j .log >"$tmp/esc.log"
dom "#/boot/$boot_build"
a=$(perl -0ne 'print $1 if /<pre class="source bootlog">(.*?)<\/pre>/s' "$tmp/dom")
grep -q $'\e\\[2J' "$tmp/esc.log" && [ -n "$a" ] &&
	[ "$a" = "$(perl -0pe 's/\e\[[0-?]*[ -\/]*[@-~]//g; s/\e\][^\a]*\a//g; s/\r\n/\n/g' "$tmp/esc.log")" ] &&
	! grep -q $'\e' "$tmp/dom"
ok $? "boot page: the log without its terminal escapes ($(echo "$a" | head -1))"
read -r c r < <(sqlite3 -separator ' ' "$DB" "SELECT c.position, c.run_id FROM builds b
	JOIN commits c ON c.id = b.commit_id WHERE b.id = $boot_build")
[ -n "$c" ] && grep -qF "the kernel of <a href=\"#/commit/$c?run=$r\">#$c " "$tmp/dom"
ok $? "boot page: linked to the commit it booted (#$c of run $r)"

# the warning page reads the source from the cached tree at its commit:
# the work tree moves on afterwards and the page still shows the old line
hex=$(printf %s "$tmp/src" | sha256sum | cut -c1-12)
git_dir=$KWARN_CACHE/trees/kwtree-$hex/git
mkdir -p "$git_dir"
gd() { git --git-dir="$git_dir" --work-tree="$tmp/src" -c user.name=t \
	-c user.email=t@t "$@"; }
# c3 on a parent holding c2's files, so that c3 has a patch to show
fixture_fw 1 >"$tmp/src/drivers/firewire/core-device.c"
fixture_hdr 0 >"$tmp/src/include/linux/kwhdr.h"
gd init -q && gd add -A && gd commit -q -m c2
fixture_fw 3 >"$tmp/src/drivers/firewire/core-device.c"
fixture_hdr 1 >"$tmp/src/include/linux/kwhdr.h"
gd add -A && gd commit -q -m 'firewire: mark the rest' -m 'The body <b>of</b> it.'
csha=$(gd rev-parse HEAD)
sed -i 's/^/EDITED /' "$tmp/src/fs/afs/fsclient.c"
sqlite3 "$DB" "UPDATE commits SET sha = '$csha' WHERE sha = '$C3' AND run_id = $RUN;
	UPDATE trees SET kind = 'dir', source = '$tmp/src' WHERE name = 'kwtree'"
ident=$(api "/api/commits/$csha/warnings?run=$RUN" |
	jq -r '.warnings[] | select(.function == "afs_c") | .identity')
dom "#/warning/$ident/$csha"
grep -qF 'the tree at this commit' "$tmp/dom" &&
	grep -q '<span class="row hit"><span class="ln">17</span>		x \*= 2;</span>' "$tmp/dom" &&
	! grep -qF 'EDITED' "$tmp/dom" &&
	[ "$(count '<span class="row')" -ge 7 ]
ok $? "warning page: the commit's source with context, not the edited tree"
dom "#/warning/$ident/$csha?context=1"
a=$(count '<span class="row')
b=$(api "/api/warnings/$ident/source?commit=$csha&context=1" | jq '.lines | length')
grep -qF '<option value="1" selected="">1</option>' "$tmp/dom" &&
	grep -q '<select id="context"' "$tmp/dom" && [ "$a" = "$b" ] && [ "$a" -lt 7 ]
ok $? "warning page: the context control shows ?context=1, and the page the API's $b lines"
dom "#/warning/$ident/$csha"
grep -q '<span class="row note"><span class="ln">18</span>	default:' "$tmp/dom"
ok $? "warning page: the note's line highlighted"
a=$(grep -o 'class="strip-cell [a-z_]*"' "$tmp/dom" | cut -d' ' -f2 | tr -d '"' | paste -sd,)
b=$(api "/api/warnings/$ident/states?run=$RUN" | jq -r '[.states[] | .state // "none"] | join(",")')
[ "$a" = "$b" ] && [ "$a" = "none,new,present" ]
ok $? "warning page: a state strip across the run's commits ($a)"
grep -q "<dt>introduced</dt><dd><a href=\"#/commit/1?run=$RUN\">#1 ${C2:0:12}" "$tmp/dom" &&
	grep -qF 'not fixed in this run' "$tmp/dom" &&
	grep -qF 'make fs/afs/fsclient.o' "$tmp/dom"
ok $? "warning page: introduced by c2 (linked), not fixed, the reproducer"
hdr=$(api "/api/commits/$C1/warnings?run=$RUN" |
	jq -r '.warnings[] | select(.function == "kw_inline") | .identity')
dom "#/warning/$hdr/$C1"
grep -qF 'included from drivers/firewire/core-device.c' "$tmp/dom" &&
	grep -q "<dt>fixed</dt><dd><a href=\"#/commit/2?run=$RUN\">#2 " "$tmp/dom"
ok $? "warning page: the include chain, and the fixing commit linked"

# the commit page, by the commit's position in its run (issue 33)
dom "#/commit/2?run=$RUN"
a=$(perl -0ne 'print $1 if /<table id="diffstat">(.*?)<\/table>/s' "$tmp/dom" |
	perl -ne 'print "$2\t$3\t$1\n" while /<td class="mono">([^<]*)<\/td><td class="num fixed">\+(\d+)<\/td><td class="num new">−(\d+)</g')
[ -n "$a" ] && [ "$a" = "$(gd show --numstat --format= "$csha")" ]
ok $? "commit page: the diffstat of git show --numstat ($(echo "$a" | wc -l) files)"
a=$(perl -0ne 'print $1 if /<pre class="source patch" id="patch">(.*?)<\/pre>/s' "$tmp/dom" |
	grep -o '<span class="row \(add\|del\)">[^<]*' | sed 's/.*">//')
[ -n "$a" ] && [ "$a" = "$(gd show --format= "$csha" | grep '^[-+][^-+]\|^[-+]$' |
	sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')" ]
ok $? "commit page: the diff's added and removed lines are git's ($(echo "$a" | wc -l))"
subj=$(sqlite3 "$DB" "SELECT subject FROM commits WHERE run_id = $RUN AND position = 2")
grep -qF "<h2 class=\"wrap\" id=\"commit-subject\">#2 $subj</h2>" "$tmp/dom" &&
	grep -qF "<dd id=\"commit-author\">$(gd log -1 --format='%an &lt;%ae&gt;' "$csha")</dd>" "$tmp/dom" &&
	grep -qF "<dd>$(TZ=UTC gd log -1 --date=format-local:'%Y-%m-%d %H:%M' --format=%ad "$csha") UTC</dd>" "$tmp/dom" &&
	grep -qF 'The body &lt;b&gt;of&lt;/b&gt; it.' "$tmp/dom" && ! grep -q '<b>of</b>' "$tmp/dom"
ok $? "commit page: subject, the author and date of the commit, its message as text"
grep -qF "<nav class=\"commit-nav\" aria-label=\"previous and next commit\"><a href=\"#/commit/1?run=$RUN\">← #1 " "$tmp/dom" &&
	grep -qF '<span class="muted">the last commit</span></nav>' "$tmp/dom"
ok $? "commit page: a link to the previous commit, none past the last"
dom "#/commit/1?run=$RUN"
grep -qF "<a href=\"#/commit/0?run=$RUN\">← #0 " "$tmp/dom" &&
	grep -qF "<a href=\"#/commit/2?run=$RUN\">#2 $subj →</a></nav>" "$tmp/dom" &&
	grep -qF "<p class=\"muted\" id=\"no-patch\">no patch of commit #1 ${C2:0:12} (run $RUN)" "$tmp/dom" &&
	grep -q "<dt>boot</dt><dd><a href=\"#/boot/[0-9]*\"><span class=\"verdict-pass\">pass" "$tmp/dom"
ok $? "commit #1: previous and next, its boot linked, and why it has no patch"
a=$(cdp 1280,900 "#/commit/$cid2" 'js:location.hash + " " + document.getElementById("commit-subject").textContent')
[ "$a" = "#/commit/1?run=$RUN #1 $(sqlite3 "$DB" "SELECT subject FROM commits WHERE id = $cid2")" ]
ok $? "an old address by the commit's id: the same page, at its position's address ($a)"

# hostile strings in every field: entry, file-less function, option, tree
long=$(head -c 3000 /dev/zero | tr '\0' f)
sqlite3 "$DB" "UPDATE identities SET function = '$xss_img$long'
		WHERE function = 'dev_x';
	UPDATE diagnostics SET function = '$xss_img$long' WHERE function = 'dev_x';
	UPDATE identities SET option = '-W$xss_script'
		WHERE option = '-Wmissing-prototypes';
	UPDATE trees SET maintainers = replace(maintainers, 'AFS FILESYSTEM',
		'AFS $xss_script FS'), name = name || '$xss_img';
	UPDATE runs SET kind = 'nightly', tree_id = (SELECT tree_id FROM runs
		WHERE id = $RUN), started_at = CASE id WHEN $RUN THEN 1764806400
		ELSE 1764720000 END"
# the report kwarn nightly would keep for the later night (its rule: the
# same code, another compiler, so every new warning is "compiler"), made
# of the API's own diff of the two nights; one cause is set to "code" to
# show the view prints the stored cause and guesses none
api "/api/diff?from_run=$CLANG_RUN&to_run=$RUN" | jq -c \
	--argjson run "$RUN" --argjson prev "$CLANG_RUN" \
	--arg pcc "$(api /api/runs | jq -r ".[] | select(.id == $CLANG_RUN) | .compiler")" \
	'{run: $run, previous_run: $prev, previous_compiler: $pcc,
	new: [.new | to_entries[] | .value + {cause: (if .key == 0 then "code"
		else "compiler" end)}]}' >"$tmp/report.json"
sqlite3 "$DB" "INSERT INTO nightly_reports(run_id, report)
	VALUES ($RUN, readfile('$tmp/report.json'))"
views="#/ #/over/subsystem?run=$RUN #/over/option?run=$CLANG_RUN #/diff?run=$RUN&from=$C1&to=$csha #/nightly #/trees #/warning/$ident/$csha"
bad=0
for v in $views; do
	dom "$v"
	grep -q 'data-ready="1"' "$tmp/dom" && ! grep -qi '<img' "$tmp/dom" &&
		! grep -qiF "$xss_script" "$tmp/dom" || { bad=1; echo "# $v"; }
done
ok $bad "markup in an entry, function, option and tree name stays text in every view"
dom "#/over/subsystem?run=$RUN"
grep -qF 'AFS &lt;script&gt;alert(1)&lt;/script&gt; FS' "$tmp/dom"
ok $? "the entry's markup shows as text"
dom "#/over/option?run=$CLANG_RUN"
grep -qF -- '-W&lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/dom"
ok $? "the option's markup shows as text"
dom "#/diff?run=$RUN&from=$C1&to=$csha"
grep -qF "title=\"net/core/dev.c:5 in &quot;&gt;&lt;img src=x onerror=alert(1)&gt;$long() [-Wimplicit-fallthrough=]\"" "$tmp/dom" &&
	grep -qF 'class="where mono cut"' "$tmp/dom"
ok $? "a 3000-character function is cut, the whole of it in the title"

# nightly: the two runs as two nights of one tree, the compiler changed
dom "#/nightly"
[ "$(count '<div class="night-run')" = 2 ] &&
	grep -q "<div class=\"night-run cc-change\" data-run=\"$RUN\">" "$tmp/dom" &&
	grep -qF "#/diff?from_run=$CLANG_RUN&amp;to_run=$RUN" "$tmp/dom" &&
	grep -qF '2025-12-03</th><th>2025-12-04' "$tmp/dom" &&
	grep -qF 'no report kept by kwarn nightly' "$tmp/dom"
ok $? "nightly view: trees x nights, the compiler change marked, linked to its diff"
nreq=$(sed -n 's/.*data-requests="\([0-9]*\)".*/\1/p' "$tmp/dom")
[ "$nreq" = 1 ]
ok $? "nightly view opened first: the runs read once, by the page ($nreq request of its own)"
a=$(grep -o 'data-identity="[0-9a-f]*" data-cause="[a-z ]*"' "$tmp/dom" |
	sed 's/data-identity="\(.*\)" data-cause="\(.*\)"/\1 \2/')
b=$(api /api/nightly | jq -r --argjson run "$RUN" \
	'.[] | select(.run == $run) | .report.new[] | "\(.identity) \(.cause)"')
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$(echo "$a" | grep -c ' code$')" = 1 ]
ok $? "nightly view: each new warning of the night with the cause kwarn nightly stored ($(echo "$a" | wc -l) warnings, /api/nightly's)"
a=$(grep -o "<li data-identity=\"[0-9a-f]*\" data-cause=\"[a-z ]*\"><span class=\"cause[^\"]*\">[^<]*</span> <span class=\"triage-badge intended\"" "$tmp/dom" |
	sed 's/.*data-identity="\([0-9a-f]*\)".*/\1/')
[ "$a" = "$tri" ] && [ "$(count 'class="triage-badge ')" = 1 ]
ok $? "nightly view: the triaged warning's badge, on it alone"
dom "#/diff?from_run=$CLANG_RUN&to_run=$RUN"
nnew=$(jq '.new | length' "$tmp/report.json")
grep -qF "<b class=\"cause\">1 code, $((nnew - 1)) compiler</b>" "$tmp/dom" &&
	[ "$(perl -0ne 'print $1 if /id="diff-new">(.*?)<\/section>/s' "$tmp/dom" |
		grep -o 'class="diff-item new"' | wc -l)" = "$(api "/api/diff?from_run=$CLANG_RUN&to_run=$RUN" | jq '.new | length')" ]
ok $? "a night's new warnings with their cause (the compiler)"

# an arm64 run of the group is its own series (compiler, arch, option)
oarch=$(sqlite3 "$DB" "SELECT quote(arch) FROM runs WHERE id = $CLANG_RUN")
sqlite3 "$DB" "UPDATE runs SET arch = 'arm64' WHERE id = $CLANG_RUN"
dom ""
a=$(grep -o '<circle [^>]*class="point[^>]*' "$tmp/dom" |
	sed -n 's/.*data-series="\([^"]*\)".*/\1/p' |
	sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' | sort -u | paste -sd,)
b=$(api "/api/runs/$RUN/burndown?group=1" | jq -r '.[] |
	(.compiler | split(" ")[0]) + (if .arch and .arch != "x86_64"
	then "/" + .arch else "" end) as $cc |
	[.burndown[].by_option | keys[]] | unique[] | $cc + " " + .' |
	sort | paste -sd,)
[ "$a" = "$b" ] && echo "$a" | grep -qF 'clang-16/arm64 ' || { echo "# want $b"; false; }
ok $? "an arm64 run of the group: its own series ($a)"
sqlite3 "$DB" "UPDATE runs SET arch = $oarch WHERE id = $CLANG_RUN"

# screenshots of every view, laptop and phone
mkdir -p build/artifacts
rm -f build/artifacts/dashboard*.png
bad=0
for v in burndown:/ over-subsystem:/#/over/subsystem?run=$RUN \
	over-file:/#/over/file?run=$RUN over-option:/#/over/option?run=$CLANG_RUN \
	warning:/#/warning/$ident/$csha diff:/#/diff?run=$RUN\&from=$C1\&to=$csha \
	nightly:/#/nightly commit:/#/commit/$C2?run=$RUN trees:/#/trees; do
	name=${v%%:*} url=${v#*:}
	for size in 1280,900 390,844; do
		f=build/artifacts/dashboard-$name-${size%,*}.png
		browser --hide-scrollbars --window-size=$size \
			--screenshot="$top/$f" "$BASE$url" >/dev/null
		[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
			{ bad=1; echo "# $f"; }
	done
done
ok $bad "screenshots of 9 views at 1280 and 390 pixels in build/artifacts/"

# at phone width the page itself never scrolls sideways (a wide table
# scrolls in its own box): measured by the page, with the hostile
# 3000-character function and markup stored above
bad=0
for v in burn-down:#/run/$RUN commit:#/commit/2?run=$RUN \
	warning:#/warning/$ident/$csha diff:#/diff?run=$RUN\&from=$C1\&to=$csha; do
	w=$(cdp 390,844 "${v#*:}" \
		'js:innerWidth + " " + document.documentElement.scrollWidth')
	set -- $w
	[ "${1:-}" = 390 ] && [ "${2:-999}" -le 390 ] || bad=1
	echo "# ${v%%:*} at 390 pixels: window $1, page ${2:-?} wide"
done
ok $bad "burn-down, commit, warning and diff pages no wider than a 390-pixel phone"

# a run that does not exist: said, and the picker stays on a run it lists
newest=$(api /api/runs | jq '.[0].id')
a=$(cdp 1280,900 "#/run/4242" 'js:document.getElementById("run").value + " | " +
	document.getElementById("no-run").textContent + " | " + document.title')
[ "$a" = "$newest | Run #4242 does not exist. | kwarn: no run #4242" ]
ok $? "#/run/4242: the page says there is no such run, the picker on run #$newest ($a)"

# the system's dark theme: light text on a dark page and cards, and the
# light theme as before; print stays black on white either way
lum='js:(() => {
	const l = (c) => { const [r, g, b] = c.match(/[0-9.]+/g).map(Number);
		return ((0.2126 * r + 0.7152 * g + 0.0722 * b) / 255).toFixed(2); };
	const cs = (s) => getComputedStyle(document.querySelector(s));
	return [l(cs("body").color), l(cs("body").backgroundColor),
		l(cs(".card").backgroundColor), l(cs("header").color),
		l(cs("header").backgroundColor), l(cs("td.sha a").color)].join(" ");
})()'
read -r dfg dbg dcard dhfg dhbg dlink < <(cdp 1280,900 "#/run/$RUN" scheme:dark "$lum")
read -r lfg lbg lcard lhfg lhbg llink < <(cdp 1280,900 "#/run/$RUN" scheme:light "$lum")
pd=$(cdp 720,1000 "#/run/$RUN" scheme:dark media:print \
	'js:getComputedStyle(document.body).color + " " + getComputedStyle(document.body).backgroundColor')
echo "# dark: text $dfg on $dbg, cards $dcard, bar $dhfg on $dhbg, links $dlink; light: text $lfg on $lbg, cards $lcard, bar $lhfg on $lhbg, links $llink; print in dark: $pd"
perl -e 'my ($dfg, $dbg, $dcard, $dhfg, $dhbg, $dl, $lfg, $lbg, $lcard, $lhfg, $lhbg, $ll) = @ARGV;
	exit !($dfg > 0.7 && $dbg < 0.15 && $dcard < 0.15 && $dhfg > 0.7 && $dhbg < 0.15 &&
		$dl > 0.45 && $lfg < 0.3 && $lbg > 0.9 && $lcard > 0.9 && $lhfg > 0.9 &&
		$lhbg < 0.3 && $ll < 0.45)' \
	"${dfg:-0}" "${dbg:-1}" "${dcard:-1}" "${dhfg:-0}" "${dhbg:-1}" "${dlink:-0}" \
	"${lfg:-1}" "${lbg:-0}" "${lcard:-0}" "${lhfg:-0}" "${lhbg:-1}" "${llink:-1}" &&
	[ "$pd" = "rgb(0, 0, 0) rgb(255, 255, 255)" ]
ok $? "the system's dark theme followed on screen, the light one kept, print black on white"

# print, laid out by the browser (print media emulated, a page's width
# of 720 pixels): no nav or run picker, black on white, the chart whole
# and no table cut.  The PDF below is chromium's own print of the page:
# checked to be a real PDF of one page or more, not what is on it.
a=$(cdp 720,1000 "#/run/$RUN" media:print 'js:(() => {
	const cs = (s) => getComputedStyle(document.querySelector(s));
	const ch = document.querySelector("svg.chart").getBoundingClientRect();
	return [cs("header nav").display, cs(".run-pick").display,
		cs("body").color, cs("body").backgroundColor,
		ch.height > ch.width / 3 && ch.right <= 720 ? "chart whole" : "chart cut",
		[...document.querySelectorAll(".scroll")].every((e) =>
			getComputedStyle(e).overflowX === "visible" &&
			e.scrollWidth <= e.clientWidth) ? "tables whole" : "tables cut",
		document.documentElement.scrollWidth].join(", ");
})()')
[ "$a" = "none, none, rgb(0, 0, 0), rgb(255, 255, 255), chart whole, tables whole, 720" ]
ok $? "print media: $a"
browser --no-pdf-header-footer --print-to-pdf="$tmp/burndown.pdf" "$BASE/#/run/$RUN" >/dev/null
[ "$(head -c 5 "$tmp/burndown.pdf")" = %PDF- ] &&
	[ "$(stat -c %s "$tmp/burndown.pdf")" -gt 20000 ] &&
	tail -c 16 "$tmp/burndown.pdf" | grep -q '%%EOF' &&
	grep -aq '/Type /Page\b' "$tmp/burndown.pdf"
ok $? "chromium prints the burn-down to a PDF ($(stat -c %s "$tmp/burndown.pdf") bytes)"

# a run of more than 200 commits (the same log ingested at each): still
# one tab stop per series, and the keys walk every point of it
big=205
for i in $(seq 0 $((big - 1))); do
	"$KWARN" ingest --db "$DB" --tree kwbig --commit "big$i" \
		--object-map "$tmp/c1.map" "$tmp/c1.log" >/dev/null || break
done
BIG=$(sqlite3 "$DB" "SELECT r.id FROM runs r JOIN trees t ON t.id = r.tree_id
	WHERE t.name = 'kwbig'")
dom "#/run/$BIG"
a=$(points_tabindex 0)
[ "$(count '<circle [^>]*class="point')" -ge $big ] && [ -n "$a" ] &&
	[ "$a" = "$(points_last)" ] && echo "$a" | grep -q " $((big - 1))\$"
ok $? "$big commits: one point per series in the tab order, its last ($a)"
where='js:(() => { const a = document.activeElement;
	return a.dataset.position + " " + document.querySelectorAll(
		"circle.point[tabindex=\"0\"]").length + " " + a.getAttribute("tabindex") +
		" | " + document.querySelector(".tip").textContent.replace(/\n/g, " | "); })()'
cdp 1280,900 "#/run/$BIG" 'js:document.querySelector("circle.point[tabindex=\"0\"]").focus()' \
	"$where" key:ArrowLeft "$where" key:Home "$where" key:ArrowLeft "$where" \
	key:ArrowRight "$where" key:End "$where" >"$tmp/keys"
sed 's/^/# /' "$tmp/keys"
# position, tab stops, the point's tabindex | its tip, from the API
label=$(sed -n 's/.*data-series="\([^"]*\)".*/\1/p' "$tmp/dom" | head -1)
api "/api/runs/$BIG/burndown" >"$tmp/big.json"
tip() {
	jq -r --arg l "$label" '.['$1'] | "\(.position) 1 0 | #\(.position) " +
		"\(.commit.sha[0:12]) \(.subject // "") | \($l): \(.warnings)"' "$tmp/big.json"
}
want=$(printf 'null\n'; for p in $((big - 1)) $((big - 2)) 0 0 1 $((big - 1)); do tip $p; done)
[ "$(cat "$tmp/keys")" = "$want" ] || { echo "# want:"; echo "$want" | sed 's/^/# /'; false; }
ok $? "keys on a $big-commit chart: Left, Home, Left (stays), Right, End move the focus, the tab stop and the tip"

# the same run's pages: the commit table 50 commits at a time (the one
# with ?at= first), the over-time tables 25 commits at a time around the
# selected one, each row's sparkline the whole run in 120 pixels
dom "#/run/$BIG"
a=$(grep -o '<tr class="commit-row[^>]*><td class="num">[0-9]*' "$tmp/dom" |
	sed 's/.*>//' | paste -sd,)
[ "$a" = "$(seq -s, 0 49)" ] && grep -qF '1–50 of 205 commits' "$tmp/dom" &&
	grep -qF "href=\"#/run/$BIG?rows=50\"" "$tmp/dom"
ok $? "$big commits: the table's first page, 50 rows, and a link to the next"
dom "#/run/$BIG?at=120"
a=$(grep -o '<tr class="commit-row[^>]*><td class="num">[0-9]*' "$tmp/dom" |
	sed 's/.*>//' | paste -sd,)
[ "$a" = "$(seq -s, 100 149)" ] && grep -qF '101–150 of 205 commits' "$tmp/dom"
ok $? "?at=120: the table's page is the one with commit #120 (${a%%,*}..${a##*,})"
api "/api/runs/$BIG/series?by=file" >"$tmp/big-series.json"
# over/file DOM's count cells, header positions and picker options
over_cells() {
	grep -o '<td class="num cell[^"]*" data-count="[0-9]*"' "$tmp/dom" |
		sed 's/.*data-count="//; s/"//' | paste -sd,
}
over_cols() {
	grep -o '<th class="num col[^"]*" title="[^"]*"><a [^>]*>[0-9]*' "$tmp/dom" |
		sed 's/.*>//' | paste -sd,
}
dom "#/over/file?run=$BIG"
rows=$(jq '.rows | length' "$tmp/big-series.json")
[ "$(over_cells)" = "$(jq -r '[.rows[].counts[180:205][]] | join(",")' "$tmp/big-series.json")" ] &&
	[ "$(over_cols)" = "$(seq -s, 180 204)" ] &&
	[ "$(perl -0ne 'print $1 if /<select aria-label="commit">(.*?)<\/select>/s' "$tmp/dom" |
		grep -o '<option ' | wc -l)" = 25 ] &&
	[ "$(count '<td class="num cell at')" = "$rows" ] &&
	grep -qF '181–205 of 205 commits' "$tmp/dom" &&
	grep -qF "href=\"#/over/file?run=$BIG&amp;at=204&amp;cols=155\"" "$tmp/dom"
ok $? "over time, $big commits: the last 25 columns, #204 selected, cells = API, a link to the 25 before"
dom "#/over/file?run=$BIG&at=3&cols=0"
[ "$(over_cells)" = "$(jq -r '[.rows[].counts[0:25][]] | join(",")' "$tmp/big-series.json")" ] &&
	[ "$(over_cols)" = "$(seq -s, 0 24)" ] &&
	[ "$(grep -o '<th class="num col[^"]*"' "$tmp/dom" | grep -n ' at"' | cut -d: -f1)" = 4 ] &&
	grep -qF '1–25 of 205 commits' "$tmp/dom"
ok $? "over time, cols=0 at=3: the first 25 columns, the fourth marked"
dom "#/over/file?run=$BIG&at=100"
[ "$(over_cols)" = "$(seq -s, 88 112)" ]
ok $? "over time, at=100 alone: the 25 columns around it ($(over_cols | cut -d, -f1)..)"
# every commit of the run has the same log, so a row is flat: one point
# for each pair of commits that share a pixel column, not one a commit
pts=$(grep -o '<polyline points="[^"]*"' "$tmp/dom" | head -1 | grep -o ',' | wc -l)
[ "$(count '<svg [^>]*class="spark"')" = "$rows" ] && [ "$pts" = $(((big + 1) / 2)) ] &&
	[ "$(count '<rect [^>]*class="shown"')" = "$rows" ]
ok $? "sparklines: one a row, the whole (flat) run in $pts points for $big commits, the table's commits shaded"
dom "#/over/file?run=$BIG&at=204&cols=0"
a=$(perl -0ne 'print $1 if /<select aria-label="commit">(.*?)<\/select>/s' "$tmp/dom" |
	grep -o '<option value="[0-9]*">#[0-9]*' | sed 's/.*#//' | paste -sd,)
[ "$a" = "204,$(seq -s, 0 24)" ] && [ "$(over_cols)" = "$(seq -s, 0 24)" ]
ok $? "columns paged away from the selected commit: the picker still offers it first"

# ---- the triage control: the same database served with tokens ----
server_stop
tok=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf 'carol %s\n' "$tok" >"$tmp/tokens"
chmod 600 "$tmp/tokens"
SERVER_ARGS="--triage-tokens $tmp/tokens" server_start "$DB" "$top/web"
ok $? "server started again, with a triage token"
tri2=$(api "/api/commits/$cid3/warnings?triage=open" | jq -r '.warnings[0].identity')
sha3=$(api "/api/runs/$RUN/burndown" | jq -r '.[2].commit.sha')
records() { # the triage records of tri2, one "state|who|origin|reason" a line
	sqlite3 "$DB" "SELECT state || '|' || who || '|' || origin || '|' || reason
		FROM triage WHERE fingerprint = '$tri2' ORDER BY id"
}
# JS: fill the control (state, reason, the token when asked), send it,
# and wait up to 10 s for $1 (an expression) to hold
submit_js() { # STATE REASON TOKEN UNTIL
	printf '%s' "(async () => {
		const \$ = (id) => document.getElementById(id);
		\$('triage-state').value = '$1';
		\$('triage-reason').value = '$2';
		if ('$3') \$('triage-token').value = '$3';
		document.querySelector('form.triage-form').requestSubmit();
		for (let i = 0; i < 200 && !($4); i++)
			await new Promise((ok) => setTimeout(ok, 50));
		return [$4 ? 'held' : 'timed out',
			(\$('triage-status') || {}).textContent || '',
			sessionStorage.getItem('kwarn-triage-token') === '$tok' ? 'kept' :
				sessionStorage.length + ' kept',
			\$('triage-token-label') && \$('triage-token-label').hidden ?
				'no token asked' : 'token asked'].join(' | ');
	})()"
}
badge_is() { printf '%s' "document.querySelector('p.triage [data-triage=\"$1\"]')"; }
cdp 1280,900 "#/warning/$tri2/$sha3?run=$RUN" \
	'js:[!!document.querySelector("form.triage-form"),
		!document.getElementById("triage-token-label").hidden,
		sessionStorage.length].join(" ")' \
	"js:$(submit_js intended 'a wrong token' "${tok%?}x" \
		"document.querySelector('#triage-status.error')")" \
	"js:$(submit_js false-positive 'typed once' "$tok" "$(badge_is false-positive)")" \
	"js:$(submit_js confirmed 'kept for the tab' '' "$(badge_is confirmed)")" \
	'js:location.href + " " + document.documentElement.outerHTML.includes("'"$tok"'")' \
	>"$tmp/triage-ui"
rc=$?
sed 's/^/# /' "$tmp/triage-ui"
[ $rc = 0 ] && [ "$(sed -n 1p "$tmp/triage-ui")" = "true true 0" ]
ok $? "a server with tokens: the warning page has the triage control, and asks for the token"
case $(sed -n 2p "$tmp/triage-ui") in
"held | not recorded: a triage needs a valid token"*" | 0 kept | token asked") r=0 ;;
*) r=1 ;;
esac
ok $r "a wrong token: refused, said on the page, nothing kept in the tab"
[ "$(sed -n 3p "$tmp/triage-ui")" = "held |  | kept | no token asked" ]
ok $? "the right token: the page shows the decision, the token kept in session storage"
[ "$(sed -n 4p "$tmp/triage-ui")" = "held |  | kept | no token asked" ]
ok $? "the next decision without typing the token again"
[ "$(sed -n 5p "$tmp/triage-ui")" = "$BASE/#/warning/$tri2/$sha3?run=$RUN false" ]
ok $? "the token is in no URL and nowhere in the page"
[ "$(records)" = "$(printf 'false-positive|carol|api|typed once\nconfirmed|carol|api|kept for the tab')" ]
ok $? "stored: the two decisions, under the token's name, and not the wrong token's ($(records | paste -sd';'))"

server_stop
ok $? "server stopped cleanly"

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ $failed = 0 ]
