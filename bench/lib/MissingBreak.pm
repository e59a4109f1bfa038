# The known missing-break fixes of bench/data/missing-break/, found again
# in a pristine linux-source-6.1 tree: each hunk that adds one "break;"
# is matched by its context (the code moved since the fix, so by
# similarity, not by line).  Shared by eval-classifier and
# capture-missing-breaks.
package MissingBreak;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(break_hunks locate next_code gcc_would_warn find_sites
		    draw fallthrough_groups group_lines);

sub tokens { my %t = map { $_ => 1 } ($_[0] // '') =~ /\w+/g; return \%t }

# Jaccard similarity of the words of two lines.
sub sim {
	my ($a, $b) = map { tokens($_) } @_;
	my $inter = grep { $b->{$_} } keys %$a;
	my $union = keys(%$a) + keys(%$b) - $inter;
	return $union ? $inter / $union : 0;
}

# The breaks a patch adds, one record each: file, context before, after.
# A hunk that adds one "break;" gives its context lines (the other added
# lines left out, as before); a hunk that adds several gives, for each,
# the hunk's lines as they read after the fix (context and added lines)
# before and after that break.
sub break_hunks {
	my ($patch) = @_;
	open(my $fh, '<', $patch) or die "$patch: $!";
	my ($file, @hunks, $cur, %moved);
	while (<$fh>) {
		chomp;
		# "Moved in 6.1: OLD NEW": where the code lives now
		if (/^Moved in 6\.1: (\S+) (\S+)/) { $moved{$1} = $2; next }
		if (/^\+\+\+ b\/(\S+)/) { $file = $moved{$1} // $1; next }
		if (/^@@/) { $cur = { file => $file, pre => [], post => [],
				      new => [], at => [] };
			     push @hunks, $cur; next }
		next unless $cur;
		if (/^\+\s*break;\s*$/) {
			$cur->{added}++;
			push @{$cur->{at}}, scalar @{$cur->{new}};
			push @{$cur->{new}}, $_;
			next;
		}
		if (/^\+(.*)$/) { push @{$cur->{new}}, $1; next }
		if (/^ (.*)$/ || /^$/) {
			push @{$cur->{added} ? $cur->{post} : $cur->{pre}},
				$1 // '';
			push @{$cur->{new}}, $1 // '';
		}
	}
	my @out;
	for my $h (@hunks) {
		my $n = $h->{added} // 0;
		if ($n == 1) { push @out, $h; next }
		for my $i (@{$h->{at}}) {
			my @new = @{$h->{new}};
			push @out, { file => $h->{file}, added => 1,
				     pre => [@new[0 .. $i - 1]],
				     post => [@new[$i + 1 .. $#new]] };
		}
	}
	return @out;
}

# The 0-based index in @$lines of the "break;" that hunk H added, and
# its score, or (-1, 0).  Blank context lines are skipped on both sides.
sub locate {
	my ($lines, $h) = @_;
	my @pre = grep { /\S/ } @{$h->{pre}};
	my @post = grep { /\S/ } @{$h->{post}};
	my ($best, $score) = (-1, 0);
	for my $i (2 .. $#$lines - 1) {
		next unless $lines->[$i] =~ /^\s*break;\s*$/;
		my ($p, $n) = ($i - 1, $i + 1);
		$p-- while $p > 0 && $lines->[$p] !~ /\S/;
		my $p2 = $p - 1;
		$p2-- while $p2 > 0 && $lines->[$p2] !~ /\S/;
		$n++ while $n < $#$lines && $lines->[$n] !~ /\S/;
		my $s = sim($lines->[$p], $pre[-1]) +
			sim($lines->[$p2], $pre[-2]) +
			sim($lines->[$n], $post[0]);
		($best, $score) = ($i, $s) if $s > $score;
	}
	return $score >= 1.0 ? ($best, $score) : (-1, $score);
}

sub find_c {
	my ($files, $dir) = @_;
	opendir(my $dh, $dir) or return;
	for my $e (sort readdir $dh) {
		next if $e =~ /^\./;
		my $p = "$dir/$e";
		if (-d $p && !-l $p) { find_c($files, $p) }
		elsif ($e =~ /\.c$/) { push @$files, $p }
	}
	closedir $dh;
}

# The line after I that holds code, skipping blanks and comment lines.
sub next_code {
	my ($l, $i) = @_;
	my $in = 0;
	for my $k ($i + 1 .. $#$l) {
		my $t = $l->[$k];
		if ($in) { $in = 0 if $t =~ m{\*/}; next }
		next if $t =~ m{^\s*$} || $t =~ m{^\s*//} ||
			$t =~ m{^\s*/\*.*\*/\s*$};
		if ($t =~ m{^\s*/\*}) { $in = 1; next }
		return $k;
	}
	return -1;
}

# Would gcc warn if line I were deleted?  Not when the statement before
# already leaves (return x; break;), not when the next label's body is
# only break; or return; (gcc does not warn on those), and not after a
# preprocessor line (an #ifdef branch may end elsewhere).
sub gcc_would_warn {
	my ($l, $i, $k) = @_;
	my $p = $i - 1;
	$p-- while $p > 0 && $l->[$p] =~ /^\s*$/;
	return 0 if $l->[$p] =~ /^\s*(return\b.*|break|continue|goto\s+\w+|fallthrough|BUG\(\)|unreachable\(\))\s*;\s*(\/\*.*\*\/)?\s*$/;
	return 0 if $l->[$p] =~ /^\s*#/ || $l->[$p] =~ /^\s*(case\b.*|default\s*):\s*$/;
	return 0 if $l->[$p] =~ /\\\s*$/;	# inside a macro
	my $label = $l->[$k];
	my $after = $label =~ /:\s*(\S.*)$/ ? $1 : undef;
	unless (defined $after && $after !~ m{^/[*/]}) {
		my $n = next_code($l, $k);
		return 0 if $n < 0;
		$after = $l->[$n];
	}
	return 0 if $after =~ /^\s*(break|return)\s*;/;
	return 1;
}

# Every site right before a case label under DIRS of SRC, by kind: a
# "break" line or a "marker" (fallthrough;) line, as [file, line].
sub find_sites {
	my ($src, @dirs) = @_;
	my (@files, %sites);
	find_c(\@files, "$src/$_") for @dirs;
	for my $f (@files) {
		open(my $fh, '<', $f) or next;
		my @l = <$fh>;
		close $fh;
		for my $i (0 .. $#l) {
			my $kind = $l[$i] =~ /^\s*break;\s*$/ ? 'break' :
				   $l[$i] =~ /^\s*fallthrough;\s*$/ ? 'marker' :
				   next;
			my $k = next_code(\@l, $i);
			next if $k < 0 || $l[$k] !~ /^\s*(case\b|default\s*:)/;
			next unless gcc_would_warn(\@l, $i, $k);
			(my $rel = $f) =~ s{^\Q$src\E/}{};
			push @{$sites{$kind}}, [$rel, $i + 1];
		}
	}
	return %sites;
}

# A deterministic sample of N sites drawn with SEED.
sub draw {
	my ($list, $seed, $n) = @_;
	srand($seed);
	my @a = @$list;
	for (my $i = $#a; $i > 0; $i--) {
		my $j = int(rand($i + 1));
		@a[$i, $j] = @a[$j, $i];
	}
	return @a[0 .. ($n < @a ? $n : @a) - 1];
}

# gcc's lines for each implicit fall-through in LOG (an array ref of
# lines): the function's header, the warning (in a header when a macro
# expands there), its notes up to "note: here".  Array refs of lines.
sub fallthrough_groups {
	my ($log) = @_;
	my (@groups, @group, $fn);
	for (@$log) {
		if (/: In function /) { $fn = $_; next }
		if (/warning: this statement may fall through/) {
			@group = ($fn // (), $_);
			next;
		}
		next unless @group && /: note: /;
		push @group, $_;
		next unless /note: here/;
		push @groups, [@group];
		@group = ();
	}
	return @groups;
}

# From one group of gcc's lines: the file that holds "note: here", the
# last line of it named before (where the falling case ends), the note's
# line.  The path is the part after SRC/ when given.
sub group_lines {
	my ($group) = @_;
	my ($here_line) = grep { /note: here/ } @$group;
	my ($file, $here) = $here_line =~ /^(\S+?):(\d+):\d+: note: here/
		or return;
	my $warn = 0;
	for (@$group) {
		$warn = $1 if /^\Q$file\E:(\d+):\d+: (warning|note): (?!here)/;
	}
	return ($file, $warn, $here);
}

1;
