#!/usr/bin/perl
# token-leaks.pl: looks for bearer tokens in log and response files, for
# t9990-token-leaks.t.
#
# Usage: token-leaks.pl [--prefix P] [--window N] TOKENS_DIR PATH...
#
# TOKENS_DIR holds one file per test script with the tokens it made, one a
# line.  A token starting with the public prefix P (default "fmcp_") loses
# it; every N (default 7) consecutive characters of what remains is then
# searched for in every file under the PATHs.  Each line that holds one is
# reported as "FILE:LINE: N characters of token K made by SCRIPT"; the
# token and the matching characters are never printed.  Exits 1 when
# something was found, 0 when not, 2 on a usage error.  The number of
# tokens and files searched is printed on stderr.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use File::Find ();

my ($prefix, $window) = ('fmcp_', 7);
while (@ARGV && $ARGV[0] =~ /^--/) {
	my $a = shift @ARGV;
	if ($a eq '--prefix') { $prefix = shift @ARGV }
	elsif ($a eq '--window') { $window = shift @ARGV }
	else { print STDERR "token-leaks.pl: unknown option $a\n"; exit 2 }
}
if (@ARGV < 2 || !defined $window || $window !~ /^[1-9][0-9]*$/) {
	print STDERR "usage: token-leaks.pl [--prefix P] [--window N] TOKENS_DIR PATH...\n";
	exit 2;
}
my ($tokens_dir, @paths) = @ARGV;

# window text -> "token K made by SCRIPT"
my %owner;
my $ntokens = 0;
opendir(my $d, $tokens_dir) or die "token-leaks.pl: cannot read $tokens_dir: $!\n";
for my $script (sort grep { !/^\./ } readdir $d) {
	open my $f, '<', "$tokens_dir/$script" or next;
	my $k = 0;
	while (my $tok = <$f>) {
		chomp $tok;
		next if $tok eq '';
		$k++;
		$ntokens++;
		my $secret = $tok;
		$secret = substr($secret, length $prefix) if $prefix ne '' && index($secret, $prefix) == 0;
		my $w = length($secret) < $window ? length($secret) : $window;
		next if $w == 0;
		for my $i (0 .. length($secret) - $w) {
			$owner{substr($secret, $i, $w)} //= "token $k made by $script";
		}
	}
	close $f;
}
closedir $d;

my @files;
for my $p (@paths) {
	if (-d $p) {
		File::Find::find({ no_chdir => 1, wanted => sub { push @files, $_ if -f $_ } }, $p);
	} elsif (-f $p) {
		push @files, $p;
	}
}
@files = sort @files;
printf STDERR "token-leaks.pl: %d tokens, %d windows, %d files\n",
    $ntokens, scalar(keys %owner), scalar(@files);
exit 0 unless %owner;

# One alternation of literals: perl compiles it into a trie.
my $alt = join '|', map { quotemeta } sort keys %owner;
my $re = qr/($alt)/;

my $hits = 0;
for my $file (@files) {
	open my $f, '<:raw', $file or next;
	while (my $line = <$f>) {
		next unless $line =~ $re;
		$hits++;
		printf "%s:%d: %d characters of %s\n", $file, $., length $1, $owner{$1}
		    if $hits <= 100;
	}
	close $f;
}
printf "... and %d more lines\n", $hits - 100 if $hits > 100;
exit($hits ? 1 : 0);
