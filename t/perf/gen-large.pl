#!/usr/bin/perl
# gen-large.pl FILES COMMITS: prints a git fast-import stream for the large
# benchmark repository on stdout.  Deterministic: a fixed seed and fixed dates.
#   main:    COMMITS commits; the first adds FILES text files under src/NN/,
#            each later one rewrites a few lines of 5 files
#   tag v1.0 on the middle commit
#   feature: one commit off main's tip changing about 1,000 lines (20 files x 50)
# Every file has a line with the needle "FooBarNeedle" once in a while so
# search_code finds something.
use strict;
use warnings;
my ($nfiles, $ncommits) = @ARGV;
$nfiles ||= 5000;
$ncommits ||= 2000;
srand(20261130);
my @words = map { my $w = ''; $w .= ('a'..'z', 0..9)[int rand 36] for 1 .. 3 + int rand 8; $w } 1 .. 4000;
sub line { my $n = 4 + int rand 10; my $l = join ' ', map { $words[int rand @words] } 1 .. $n;
	$l .= ' FooBarNeedle' if rand() < 0.002; "$l\n" }
my @path = map { sprintf "src/%02d/file%05d.%s", $_ % 50, $_, (qw(c h txt md))[$_ % 4] } 0 .. $nfiles - 1;
my @content = map { [ map { line() } 1 .. 40 + int rand 80 ] } 0 .. $nfiles - 1;
my $t = 1700000000;
my $mark = 0;
sub data { my $s = shift; my $len = length $s; print "data $len\n$s\n" }
sub commit {
	my ($ref, $msg, $from, @files) = @_;
	$t += 60;
	$mark++;
	print "commit $ref\nmark :$mark\n";
	print "author A U Thor <author\@example.com> $t +0000\n";
	print "committer C O Mitter <committer\@example.com> $t +0000\n";
	data($msg);
	print "from :$from\n" if $from;
	for my $i (@files) {
		print "M 100644 inline $path[$i]\n";
		data(join '', @{ $content[$i] });
	}
	return $mark;
}
my $tip = commit('refs/heads/main', "initial import\n", 0, 0 .. $nfiles - 1);
my $tagged;
for my $c (2 .. $ncommits) {
	my @f = map { int rand $nfiles } 1 .. 5;
	for my $i (@f) {
		my $lines = $content[$i];
		$lines->[int rand @$lines] = line() for 1 .. 3;
		push @$lines, line() if rand() < 0.5;
	}
	my %seen;
	$tip = commit('refs/heads/main', "change $c: touch @f\n", $tip, grep { !$seen{$_}++ } @f);
	$tagged = $tip if $c == int($ncommits / 2);
}
$tagged ||= $tip;
print "tag v1.0\nfrom :$tagged\ntagger C O Mitter <committer\@example.com> $t +0000\n";
data("release 1.0\n");
# feature: 20 files, 50 lines each rewritten (about 1,000 changed lines)
my @f;
my %seen;
for my $k (0 .. 19) { my $i = (97 * $k + 13) % $nfiles; next if $seen{$i}++; push @f, $i }
for my $i (@f) {
	my $lines = $content[$i];
	for my $j (0 .. 49) { $lines->[$j % @$lines] = line() }
}
commit('refs/heads/feature', "feature: rework 20 files\n", $tip, @f);
print "reset refs/heads/main\nfrom :$tip\n\n";
