#!/usr/bin/perl
# kwarn census on a small synthetic tree: counts of every marker spelling
# (case folded), the level verdicts where they stand, the --upgrade list,
# the same census read from a git commit, and bad input (CRLF, an
# unterminated comment, a binary .c, a file too large) counted or skipped
# with a note, never a crash.
use strict;
use warnings;
use File::Temp qw(tempdir);
use FindBin;
use JSON::PP;

chdir "$FindBin::Bin/.." or die;
my $kwarn = $ENV{KWARN} // 'bin/kwarn';
my $dir = tempdir(CLEANUP => 1);
my $tree = "$dir/tree";
my ($n, $failed) = (0, 0);

sub ok {
	my ($cond, $what) = @_;
	$n++;
	$failed++ unless $cond;
	print(($cond ? "" : "not ") . "ok $n - $what\n");
}

sub put {
	my ($path, $text) = @_;
	my $full = "$tree/$path";
	(my $d = $full) =~ s{/[^/]*$}{};
	system('mkdir', '-p', $d);
	open(my $fh, '>', $full) or die "$full: $!";
	binmode $fh;
	print $fh $text;
	close $fh;
}

sub fn {
	my ($name, $marker) = @_;
	return "int $name(int x)\n{\n\tint r = 0;\n\tswitch (x) {\n\tcase 0:\n" .
	       "\t\tr = g(1);\n$marker\tcase 1:\n\t\tr++;\n\t\tbreak;\n\t}\n" .
	       "\treturn r;\n}\n";
}

put('drivers/a.c', "int g(int);\n" .
    fn('f1', "\t\t/* fall through */\n") .
    fn('f2', "\t\t/* Fall Through */\n") .
    fn('f3', "\t\t/*   FALL   THROUGH   */\n\n") .
    fn('f4', "\t\t/* fallthrough */\n") .
    fn('f5', "\t\t// FALLTHRU\n") .
    fn('f6', "\t\tfallthrough;\n") .
    fn('f7', "\t\t__attribute__((__fallthrough__));\n") .
    fn('f8', "\t\tFALLTHROUGH;\n") .
    fn('f9', "\t\t/* fall through to the next case */\n") .
    fn('f10', "\t\t/* fall through */\n\t\tr++;\n") .
    fn('f11', "") .
    "/* not a label: \"case 9:\" */ const char *s = \"case 8:\";\n");
put('lib/b.h', fn('h1', "\t\tfallthrough;\n") .
    fn('h2', "\t\t/* fall through - with a reason */\n"));
(my $crlf = fn('c1', "\t\t/* Fall-Through */\n")) =~ s/\n/\r\n/g;
put('crlf.c', $crlf);
put('bad/unterminated.c', fn('u1', "\t\t/* fall through */\n") .
    "/* this comment never ends\ncase 7:\n");
put('bad/binary.c', "\x7fELF\x00\x01\x02 case 1: /* fall through */");
put('notc.txt', "/* fall through */ case 1:\n");
put('weird-\xff.c', fn('w1', "\t\t/* fall\xe9through */\n"));
# a file over the 32 MiB limit
open(my $big, '>', "$tree/big.c") or die;
print $big ("/* x */\n" x (33 * 1024 * 128));
close $big;

my $out = `$kwarn census $tree --format json`;
ok($? == 0, 'kwarn census TREE --format json exits 0');
my $c = eval { decode_json($out) } // {};
my %rows = map { ("$_->{kind} $_->{spelling}" => $_) } @{$c->{markers} // []};
sub count { my $r = $rows{$_[0]}; return $r ? $r->{count} : 0 }
sub acc { my $r = $rows{$_[0]}; return $r ? $r->{accepted}{$_[1]} : -1 }

ok($c->{files} == 5, "5 C files read, 2 skipped ($c->{files})");
ok(count('comment /* fall through */') == 5,
   'fall through, case folded, blanks collapsed: 5 (' .
   count('comment /* fall through */') . ')');
ok(acc('comment /* fall through */', 3) == 3,
   'three pass at level 3: not the one before a statement, nor ' .
   'FALL   THROUGH with its extra blanks');
ok(acc('comment /* fall through */', 5) == 0, 'none passes at level 5');
ok(count('comment /* fallthrough */') == 1, '/* fallthrough */: 1');
ok(count('comment // fallthru') == 1 &&
   acc('comment // fallthru', 4) == 1, '// FALLTHRU: 1, passes at level 4');
ok(count('comment /* fall-through */') == 1 &&
   acc('comment /* fall-through */', 3) == 1,
   'CRLF file: /* Fall-Through */ counted, passes at level 3');
ok(count('comment /* fall through - ... */') == 1,
   'a trailing reason is cut from the spelling');
ok(count('comment /* fall through to the next case */') == 1 &&
   acc('comment /* fall through to the next case */', 3) == 0 &&
   acc('comment /* fall through to the next case */', 2) == 1,
   '"fall through to the next case": level 2 only');
ok(count('keyword fallthrough;') == 2 &&
   acc('keyword fallthrough;', 5) == 2, 'fallthrough;: 2, pass at level 5');
ok(count('attribute __attribute__((__fallthrough__));') == 1,
   'the attribute spelled out: 1');
ok(count('macro FALLTHROUGH;') == 1, 'another macro: FALLTHROUGH; 1');
ok($c->{labels} == 32, "32 case labels, none from strings or comments " .
   "($c->{labels})");
my %skip = map { ($_->{file} => $_->{reason}) } @{$c->{skipped} // []};
ok(($skip{'bad/binary.c'} // '') =~ /binary/, 'binary .c skipped as not C');
ok(($skip{'big.c'} // '') =~ /too large/, 'huge file skipped with a note');
{
	# a directory that cannot be read.  Root reads every directory, so
	# as root the census runs as nobody (setpriv), from a copy of kwarn
	# in a folder nobody may enter; the tree and its parents are open to
	# it, all but the locked directory.
	my $t2 = "$dir/tree2";
	system('mkdir', '-p', "$t2/locked", "$t2/open");
	open(my $fh, '>', "$t2/open/a.c") or die;
	print $fh fn('o1', "\t\tfallthrough;\n");
	close $fh;
	chmod 0, "$t2/locked";
	my @as = ();
	my $bin = $kwarn;
	if ($> == 0) {
		chmod 0755, $dir, $t2, "$t2/open";
		chmod 0644, "$t2/open/a.c";
		system('cp', $kwarn, "$dir/kwarn") == 0 or die "cp $kwarn";
		$bin = "$dir/kwarn";
		@as = qw(setpriv --reuid=nobody --regid=nogroup --clear-groups --);
	}
	my $locked = system(@as, 'test', '!', '-r', "$t2/locked") == 0;
	ok($locked, 'the locked directory cannot be read by whom the census ' .
	   'runs as (' . ($> == 0 ? 'nobody, through setpriv' : 'this user') .
	   ')');
	open(my $ch, '-|', @as, $bin, 'census', $t2, '--format', 'json')
		or die "census: $!";
	my $j = eval { local $/; decode_json(<$ch>) } // {};
	close $ch;
	my %sk = map { ($_->{file} => $_->{reason}) } @{$j->{skipped} // []};
	ok(($j->{files} // 0) == 1 && ($sk{'locked'} // '') =~ /unreadable/,
	   'an unreadable directory is skipped with a note, the rest read');
	chmod 0755, "$t2/locked";
}
my %notes = map { ($_->{file} => join(',', @{$_->{notes}})) }
	@{$c->{notes} // []};
ok(($notes{'bad/unterminated.c'} // '') =~ /unterminated comment/,
   'unterminated comment noted');
ok(($notes{'crlf.c'} // '') =~ /CRLF/, 'CRLF noted');
ok(grep({ /not UTF-8/ } values %notes), 'bytes that are not UTF-8 noted');

my @up = @{$c->{upgrade} // []};
ok(@up == 7, 'upgrade: 7 markers pass at =3 and fail at =5 (' .
   scalar(@up) . ')');
my $text = `$kwarn census $tree --upgrade`;
ok($text =~ m{^drivers/a\.c:8: /\* fall through \*/$}m &&
   $text =~ /^7 marker/m, 'text --upgrade lists file:line and the count');
$text = `$kwarn census $tree`;
ok(scalar($text =~ /^comment\s+5\s+3\s+0\s+0\s+\/\* fall through \*\/$/m),
   'text table row for /* fall through */');

# the same tree committed to git, read with libgit2
system("cd '$tree' && git init -q && git add -A -f && " .
       "git -c user.name=t -c user.email=t\@t commit -q -m t") == 0
	or die "git";
my $sha = `cd '$tree' && git rev-parse HEAD`;
chomp $sha;
my $gout = `$kwarn census --repo $tree --commit $sha --format json`;
my $g = eval { decode_json($gout) } // {};
ok(($g->{labels} // 0) == $c->{labels} &&
   JSON::PP->new->canonical->encode($g->{markers}) eq
   JSON::PP->new->canonical->encode($c->{markers}),
   'census of the git commit equals the census of the directory');
system("$kwarn ingest --db $dir/k.db --tree t --commit $sha --allow-empty " .
       "/dev/null >/dev/null 2>&1");
my $dout = `$kwarn census --db $dir/k.db --commit 1 --repo $tree --format json`;
my $d = eval { decode_json($dout) } // {};
ok(($d->{labels} // 0) == $c->{labels}, 'census --db FILE --commit ID');

# bad invocations: one clear line, non-zero
my $err = `$kwarn census /nonexistent/dir 2>&1`;
ok($? != 0 && $err =~ /nonexistent/ && ($err =~ tr/\n//) == 1,
   'a missing tree: one error line, non-zero exit');
$err = `$kwarn census --repo $tree --commit deadbeef 2>&1`;
ok($? != 0 && $err =~ /deadbeef/, 'an unknown commit: error, non-zero');
$err = `$kwarn census $tree --format xml 2>&1`;
ok($? != 0 && $err =~ /xml/, 'an unknown format: error, non-zero');

print "1..$n\n";
print $n - $failed, " passed, $failed failed\n";
exit($failed ? 1 : 0);
