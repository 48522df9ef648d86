#!/usr/bin/perl
# layers.pl SRC_DIR: checks the include graph of fcgi/ and src/ against the
# layers, highest first: fronts, core, gate, tools, service, store, base.
# A file may include its own layer or a lower one, never a higher one, and the
# modules (a .c with its .h and -int.h) form no cycle.  Prints each breach and
# exits 1; prints "ok: N files, M includes" and exits 0 when there is none.
use strict;
use warnings;
use File::Basename qw(dirname basename);

my $src = shift or die "usage: layers.pl SRC_DIR\n";
chdir $src or die "layers.pl: cannot enter $src: $!\n";

my @rank = qw(base store service tools gate core fronts);
my %rank = map { $rank[$_] => $_ } 0 .. $#rank;

# The layer of a file, by its path: the first pattern that matches wins.
my @layer_of = (
	[ qr{^fcgi/},						'fronts' ],
	[ qr{^src/cli/},					'fronts' ],
	[ qr{^src/(core|core_idle|core_fair|core_hub|core-int|admit|fair)\.[ch]$}, 'core' ],
	# the sdlc module servers (forgemcp mcp jira|wiki) and the agent: fronts of their own
	[ qr{^src/sdlc/},					'fronts' ],
	# the hub API sits where the MCP layer does; its texts are shared by all
	[ qr{^src/hub/texts\.[ch]$},				'base' ],
	[ qr{^src/hub/},					'gate' ],
	# tool.h is what every tool implements and the gate (tool.c) calls
	[ qr{^src/tool\.h$},					'tools' ],
	[ qr{^src/(mcp|mcp_methods|mcp-int|tool|toolset|rpc|http|core_io|refusal|protocol)\.[ch]$}, 'gate' ],
	[ qr{^src/schema(_\w+|-int)?\.[ch]$},			'gate' ],
	[ qr{^src/tools/},					'tools' ],
	[ qr{^src/service/},					'service' ],
	[ qr{^src/auth\.[ch]$},					'service' ],
	[ qr{^src/store/},					'store' ],
	[ qr{^src/(err|json|log|buf|conf|gz|budget|hold)\.[ch]$}, 'base' ],
);

sub layer {
	my ($f) = @_;
	for (@layer_of) {
		return $_->[1] if $f =~ $_->[0];
	}
	return undef;
}

# "a/b/../c.h" -> "a/c.h"
sub tidy {
	my @out;
	for (split m{/}, shift) {
		next if $_ eq '.' || $_ eq '';
		if ($_ eq '..') { pop @out } else { push @out, $_ }
	}
	return join '/', @out;
}

# An #include "x" is looked up beside the file, then in src/ and fcgi/
# (the -I paths of Makefile.am); a system header found nowhere is skipped.
sub resolve {
	my ($from, $inc) = @_;
	for my $dir (dirname($from), 'src', 'fcgi') {
		my $p = tidy("$dir/$inc");
		return $p if -f $p;
	}
	return undef;
}

sub module {
	my $m = shift;
	$m =~ s/\.[ch]$//;
	$m =~ s/-int$//;
	return $m;
}

my (@files, @bad, %edge);
my $includes = 0;
open my $ls, '-|', 'find', 'src', 'fcgi', '-name', '*.[ch]' or die "find: $!\n";
chomp(@files = sort <$ls>);
close $ls;

for my $f (@files) {
	my $lf = layer($f);
	unless (defined $lf) {
		push @bad, "$f: in no layer (add it to t/lib/layers.pl)";
		next;
	}
	open my $fh, '<', $f or die "$f: $!\n";
	while (<$fh>) {
		next unless /^\s*#\s*include\s+"([^"]+)"/;
		my $to = resolve($f, $1) // next;
		$includes++;
		my $lt = layer($to) // next;
		push @bad, "$f ($lf) includes $to ($lt), a higher layer"
			if $rank{$lt} > $rank{$lf};
		my ($a, $b) = (module($f), module($to));
		$edge{$a}{$b} = 1 if $a ne $b;
	}
	close $fh;
}

# Depth-first search for a cycle among modules.
my (%state, @path);
sub visit {
	my $m = shift;
	$state{$m} = 1;
	push @path, $m;
	for my $n (sort keys %{ $edge{$m} || {} }) {
		if (($state{$n} // 0) == 1) {
			my @c = @path;
			shift @c while $c[0] ne $n;
			push @bad, 'include cycle: ' . join(' -> ', @c, $n);
		} elsif (!$state{$n}) {
			visit($n);
		}
	}
	pop @path;
	$state{$m} = 2;
}
visit($_) for grep { !$state{$_} } sort keys %edge;

if (@bad) {
	print "$_\n" for @bad;
	exit 1;
}
printf "ok: %d files, %d includes\n", scalar @files, $includes;
exit 0;
