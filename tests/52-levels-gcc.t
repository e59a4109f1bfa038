#!/usr/bin/perl
# GCC 12 itself against kwarn's reading of its fall-through rules: comment
# variants in many placements, compiled at -Wimplicit-fallthrough=1..5;
# every label's verdict must agree with `kwarn census --levels`.
# KWARN_LEVELS_FULL=1 (make eval) runs the full cross product.
use strict;
use warnings;
use File::Temp qw(tempdir);
use JSON::PP;
use FindBin;

chdir "$FindBin::Bin/.." or die;

my $kwarn = $ENV{KWARN} // 'bin/kwarn';
my $full = $ENV{KWARN_LEVELS_FULL} // 0;
my $gcc = $ENV{KWARN_GCC} // 'gcc';
my $dir = tempdir(CLEANUP => 1);
my ($n, $failed) = (0, 0);

sub ok {
	my ($cond, $what) = @_;
	$n++;
	$failed++ unless $cond;
	print(($cond ? "" : "not ") . "ok $n - $what\n");
}

my @texts = (
	'fall through', 'fallthrough', 'falls through', 'fall-through',
	'FALLTHRU', 'FALLTHROUGH', 'Fall through', 'Fall Through',
	'fall Through', 'FALL THROUGH', 'FALL-THROUGH', 'FALLS THROUGH',
	'Falls through', 'falls Through', 'Falls Through', 'fall thru',
	'Fall thru', 'FALL THRU', 'fallthru', 'Fallthrough', 'FallThrough',
	'FallThru', 'fall through.', 'fall through!', '...fall through...',
	' !. fall through .! ', 'fall through - reason', 'fall through -- x',
	'fall through -', 'fall through - a * b', 'fall through *-',
	'fall through to next', 'Fall through to next case',
	'else fall through', 'Else, fall through', 'else, fallthrough',
	'ELSE FALLTHRU', 'ELSE, FALL THROUGH', 'else Fall through',
	'Else fall through', 'ELSE fall through', 'elsefall through',
	'intentional fall through', 'Intentionally fall through',
	'INTENTIONAL FALLTHROUGH', 'INTENTIONALLY FALL THROUGH',
	'intentionally fallthrough', 'intentional fallthru',
	'Intentional Fall through', 'intentionally Fall through',
	'INTENTIONALLY fall through', 'intentionallyfall through',
	'-fallthrough', '@fallthrough@', 'lint -fallthrough',
	'lint -fallthrough  ', 'lint -fallthrough x', '@fallthrough',
	'-fallthrough ', '-FALLTHROUGH', ' FALLTHROUGH ', "\tFALLTHRU\t",
	'FALLTHROUGH.', 'fall   through', "fall\tthrough", 'fall - through',
	'fallsthrough', 'FALLTHR', 'FALLTHROUGHX', 'no break', '', ' ',
	'nothing at all', 'we fall through here', 'FALL THRU!',
	'fallthrough;', 'Fall-Through', 'fall-Through', 'FALLS-THROUGH',
	'fallthough', 'FALLTHOUGH', 'fall though', 'break',
	'FALLTHROUGH - with reason', 'fall through - reason - more',
	'falls thru', 'falls-thru', 'fall--through', 'fall -through',
	'fallfall through', 'fal through', 'f a l l through', 'FALL tHRU',
	"fall\nthrough", "fall through\n", "\nfall through",
	'fall through  ', '  fall through', "\xe2\x80\x94 fall through",
	"fall through \xff", 'fall through *', 'FALLTHROUGH*', '*fall through',
	"fall through\t", "fall\xc2\xa0through", 'fall through/', 'FALL-THRU',
	'Else, Fall Through', 'INTENTIONALLY FALLTHRU', 'Intentionally, fall through',
	'fall through.- reason', 'fall through!-x', '-fallthrough-', '@fallthrough@ ',
	'lint-fallthrough', 'LINT -fallthrough', "fall through\r",
);

# What stands between "r = g(1);" and the label; X is the marker.
my @places = (
	[ 'direct', "\t\tX\n\tcase 1:\n" ],
	[ 'same-line', "\t\tr++; X\n\tcase 1:\n" ],
	[ 'blank-line', "\t\tX\n\n\tcase 1:\n" ],
	[ 'comment-after', "\t\tX\n\t\t/* other */\n\tcase 1:\n" ],
	[ 'comment-before', "\t\t/* other */\n\t\tX\n\tcase 1:\n" ],
	[ 'statement-after', "\t\tX\n\t\tr++;\n\tcase 1:\n" ],
	[ 'preproc-after', "\t\tX\n#if 1\n#endif\n\tcase 1:\n" ],
	[ 'preproc-comment', "#if 1 X\n#endif\n\tcase 1:\n" ],
	[ 'before-brace', "\t\tif (r) {\n\t\t\tr = 2;\n\t\t\tX\n\t\t}\n\tcase 1:\n" ],
	[ 'after-brace', "\t\tif (r) {\n\t\t\tr = 2;\n\t\t}\n\t\tX\n\tcase 1:\n" ],
	[ 'label-line', "\t\tr++;\n\tX case 1:\n" ],
	[ 'to-default', "\t\tX\n\tdefault:\n" ],
	[ 'blank-comment-blank', "\t\tX\n\n\t\t// other\n\n\tcase 1:\n" ],
	[ 'semicolon-after', "\t\tX\n\t\t;\n\tcase 1:\n" ],
	[ 'end-of-block', "\t\t{\n\t\t\tr++;\n\t\t\tX\n\t\t}\n\tcase 1:\n" ],
	[ 'nested-blocks', "\t\t{\n\t\t\tr++;\n\t\t\t{ X }\n\t\t}\n\tcase 1:\n" ],
	[ 'block-then-comment', "\t\t{\n\t\t\tX\n\t\t}\n\t\t/* c */\n\tcase 1:\n" ],
);

my @stmt_markers = (
	'fallthrough;', '__attribute__((__fallthrough__));',
	'FALLTHROUGH_MACRO;', 'fallthrough; ;',
);

my (@funcs, @expect);	# expect: [label line, description]
my $line = 3;		# after the two header lines below
my $src = "int g(int);\n#define fallthrough __attribute__((__fallthrough__))\n" .
	  "#define FALLTHROUGH_MACRO do { } while (0)\n";

sub add_func {
	my ($place, $marker, $what, $crlf) = @_;
	my $body = $place;
	$body =~ s/X/$marker/;
	my $f = sprintf("int f%d(int x)\n{\n\tint r = 0;\n\tswitch (x) {\n" .
			"\tcase 0:\n\t\tr = g(1);\n%s\t\tr += g(2);\n" .
			"\t\tbreak;\n\t}\n\treturn r;\n}\n", scalar(@funcs), $body);
	$f =~ s/\n/\r\n/g if $crlf;
	push @funcs, $f;
	push @expect, [ 0, $what ];
}
# The same switch inside a macro: GCC keeps the flag of a comment in a
# macro body, and reports the lines of the definition.
sub add_macro_func {
	my ($place, $marker, $what, $crlf) = @_;
	my $body = $place;
	$body =~ s/X/$marker/;
	my $id = scalar(@funcs);
	my $m = "\tswitch (x) {\n\tcase 0:\n\t\tr = g(1);\n$body" .
		"\t\tr += g(2);\n\t\tbreak;\n\t}\n";
	$m =~ s/\n(?=.)/ \\\n/gs;
	my $f = sprintf("int f%d(int x);\n#define SW%d(x, r) %s" .
			"int f%d(int x)\n{\n\tint r = 0;\n\tSW%d(x, r);\n" .
			"\treturn r;\n}\n", $id, $id, $m, $id, $id);
	$f =~ s/\n/\r\n/g if $crlf;
	push @funcs, $f;
	push @expect, [ 0, "$what in a macro" ];
}

my $i = 0;
for my $t (@texts) {
	for my $style ('block', 'line') {
		next if $style eq 'line' && $t =~ /\n/;
		my $m = $style eq 'block' ? "/*$t*/" : "//$t";
		for my $p (@places) {
			# a line comment would swallow the label
			next if $style eq 'line' && $p->[0] eq 'label-line';
			my $k = $i++;
			# the subset: every text placed directly, and a
			# sample of the other placements
			next unless $full || $p->[0] eq 'direct' ||
				$k % 7 == 0;
			for my $crlf ($full || $k % 5 == 0 ? (0, 1) : (0)) {
				my $what = sprintf("%s %s %s%s", $style,
					encode_json([$t]), $p->[0],
					$crlf ? ' crlf' : '');
				add_func($p->[1], $m, $what, $crlf);
			}
		}
	}
}
my $j = 0;
for my $t (@texts) {
	next if $t =~ /[\r\n]/;	# a line break would end the macro
	for my $p (@places) {
		next if $p->[0] =~ /^(preproc|label-line|blank)/;
		my $k = $j++;
		next unless $full || $p->[0] eq 'direct' || $k % 9 == 0;
		for my $crlf ($full ? (0, 1) : (0)) {
			add_macro_func($p->[1], "/*$t*/",
				       sprintf("block %s %s%s", encode_json([$t]),
					       $p->[0], $crlf ? ' crlf' : ''),
				       $crlf);
		}
	}
}
for my $sm (@stmt_markers) {
	add_macro_func($places[0][1], $sm, "$sm direct", 0);
}

# line comments continued with a backslash, spaces before the splice
add_func("\t\t// fall \\\n through\n\tcase 1:\n", '', 'spliced // comment', 0);
add_func("\t\t/* fall \\\nthrough */\n\tcase 1:\n", '', 'spliced /* */', 0);
add_func("\t\t// fall through \\  \n\t\tr++;\n\tcase 1:\n", '',
	 'splice w/ blanks', 0);
add_func("\t\t// fallthrough \\\n\tcase 1:\n\tcase 2:\n", '',
	 'label swallowed by a splice', 0);
# only for statements: a comment there would make the label the body
push @places, [ 'else-branch',
		"\t\tif (r)\n\t\t\tbreak;\n\t\telse\n\t\t\tX\n\tcase 1:\n" ],
	      [ 'end-of-inner-switch',
		"\t\tswitch (r) {\n\t\tcase 7:\n\t\t\tr++;\n\t\t\tX\n\t\t}\n\tcase 1:\n" ];
for my $sm (@stmt_markers) {
	for my $p (@places) {
		next if $p->[0] =~ /^(preproc-comment|label-line|same-line)$/;
		add_func($p->[1], $sm, "$sm $p->[0]", 0);
	}
}

$src .= join('', @funcs);
open(my $fh, '>', "$dir/t.c") or die;
binmode $fh;
print $fh $src;
close $fh;

# the label of function N: its line with "case 1:" (or 2) or "default:", the last
{
	my ($fn, $ln) = (-1, 0);
	# GCC, like kwarn, takes a lone CR for a line break
	for my $l (split /\r\n|\r|\n/, $src) {
		$ln++;
		$fn = $1 if $l =~ /^int f(\d+)\(int x\)/;
		$expect[$fn][0] = $ln
			if $fn >= 0 && $l =~ /(case [12]|default):/;
	}
}

my $json = `$kwarn census --levels $dir/t.c`;
ok($? == 0 && length $json, 'kwarn census --levels runs');
my $doc = eval { decode_json($json) } // { labels => [] };
my %ours;
$ours{$_->{line}} = { map { $_ => 1 } @{$_->{levels}} } for @{$doc->{labels}};

my %warned;	# level -> { note line -> 1 }
for my $lv (1 .. 5) {
	my $out = `$gcc -std=gnu11 -c -o /dev/null -Wimplicit-fallthrough=$lv $dir/t.c 2>&1`;
	for (split /\n/, $out) {
		$warned{$lv}{$1} = 1 if /t\.c:(\d+):\d+: note: here/;
	}
	ok(scalar(keys %{$warned{$lv}}) > 0, "gcc warns at level $lv");
}

my ($agree, $disagree) = (0, 0);
my @bad;
for my $e (@expect) {
	my ($l, $what) = @$e;
	my @d;
	for my $lv (1 .. 5) {
		my $gcc_ok = !$warned{$lv}{$l};
		my $our_ok = $ours{$l} && $ours{$l}{$lv} ? 1 : 0;
		push @d, "=$lv gcc " . ($gcc_ok ? 'accepts' : 'warns') .
			" kwarn " . ($our_ok ? 'accepts' : 'warns')
			if $gcc_ok != $our_ok;
	}
	if (@d) {
		$disagree++;
		push @bad, "line $l $what: " . join('; ', @d);
	} else {
		$agree++;
	}
}
print "# $_\n" for @bad[0 .. ($#bad < 30 ? $#bad : 29)];
ok(scalar(@expect) >= 200, scalar(@expect) . " variants generated");
ok($disagree == 0, "kwarn agrees with gcc on $agree of " .
   scalar(@expect) . " variants x 5 levels");
my $acc3 = grep { $ours{$_->[0]} && $ours{$_->[0]}{3} } @expect;
ok($acc3 > 20 && $acc3 < @expect, "both verdicts occur at level 3 ($acc3)");
print "1..$n\n";
print $n - $failed, " passed, $failed failed\n";
exit($failed ? 1 : 0);
