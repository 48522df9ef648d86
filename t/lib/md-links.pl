#!/usr/bin/perl
# md-links.pl: checks the relative links of Markdown files, for t0510-docs.t.
#
# Usage: md-links.pl FILE.md...
#
# Every link [text](target) outside code blocks whose target is not a URL
# must name an existing file, relative to the file that holds it; a
# #fragment must be a heading of the Markdown file it points into, spelled
# as GitHub makes a heading's anchor (lower case, punctuation dropped, blanks
# turned into hyphens).  Each broken link is printed as "FILE:LINE: target:
# reason"; the exit status is 1 when there was one, 0 when not.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use File::Basename qw(dirname);

# anchors FILE: the set of anchors of FILE's headings.
my %anchors;
sub anchors {
	my ($file) = @_;
	return $anchors{$file} if $anchors{$file};
	my (%seen, %set);
	open my $f, '<', $file or return {};
	my $fence = 0;
	while (<$f>) {
		if (/^\s*```/) { $fence = !$fence; next }
		next if $fence || !/^#{1,6}\s+(.*?)\s*#*\s*$/;
		my $a = lc $1;
		$a =~ s/[^a-z0-9 _-]//g;
		$a =~ tr/ /-/;
		my $n = $seen{$a}++;
		$set{$n ? "$a-$n" : $a} = 1;
	}
	return $anchors{$file} = \%set;
}

my $bad = 0;
for my $file (@ARGV) {
	open my $f, '<', $file or die "md-links.pl: cannot read $file: $!\n";
	my $fence = 0;
	while (my $line = <$f>) {
		my $ln = $.;
		if ($line =~ /^\s*```/) { $fence = !$fence; next }
		next if $fence;
		$line =~ s/`[^`]*`//g;
		while ($line =~ /\]\(([^)\s]+)\)/g) {
			my $target = $1;
			next if $target =~ /^[a-z][a-z0-9+.-]*:/i;
			my ($path, $frag) = split /#/, $target, 2;
			my $dest = $path eq '' ? $file : dirname($file) . "/$path";
			my $why;
			if (!-e $dest) {
				$why = 'no such file';
			} elsif (defined $frag && $dest =~ /\.md$/ && !anchors($dest)->{$frag}) {
				$why = "no heading with the anchor #$frag";
			}
			next unless $why;
			print "$file:$ln: $target: $why\n";
			$bad = 1;
		}
	}
}
exit $bad;
