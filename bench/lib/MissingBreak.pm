# The known missing-break fixes of bench/data/missing-break/, found again
# in a pristine linux-source-6.1 tree: each hunk that adds one "break;"
# is matched by its context (the code moved since the fix, so by
# similarity, not by line).  Shared by eval-classifier and
# capture-missing-breaks.
package MissingBreak;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(break_hunks locate);

sub tokens { my %t = map { $_ => 1 } ($_[0] // '') =~ /\w+/g; return \%t }

# Jaccard similarity of the words of two lines.
sub sim {
	my ($a, $b) = map { tokens($_) } @_;
	my $inter = grep { $b->{$_} } keys %$a;
	my $union = keys(%$a) + keys(%$b) - $inter;
	return $union ? $inter / $union : 0;
}

# The hunks of a patch that add one "break;": file, context before, after.
sub break_hunks {
	my ($patch) = @_;
	open(my $fh, '<', $patch) or die "$patch: $!";
	my ($file, @hunks, $cur, %moved);
	while (<$fh>) {
		chomp;
		# "Moved in 6.1: OLD NEW": where the code lives now
		if (/^Moved in 6\.1: (\S+) (\S+)/) { $moved{$1} = $2; next }
		if (/^\+\+\+ b\/(\S+)/) { $file = $moved{$1} // $1; next }
		if (/^@@/) { $cur = { file => $file, pre => [], post => [] };
			     push @hunks, $cur; next }
		next unless $cur;
		if (/^\+\s*break;\s*$/) { $cur->{added}++; next }
		if (/^ (.*)$/ || /^$/) {
			push @{$cur->{added} ? $cur->{post} : $cur->{pre}},
				$1 // '';
		}
	}
	return grep { ($_->{added} // 0) == 1 } @hunks;
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

1;
