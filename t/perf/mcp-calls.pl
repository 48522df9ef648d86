#!/usr/bin/perl
# mcp-calls.pl CALLS -- COMMAND ARGS...: one MCP stdio session of COMMAND,
# its calls sent one at a time, each timed from the request written to its
# answer read.  CALLS has a call a line, "tool<TAB>arguments JSON".  Prints
# a JSON line per call on stdout: {tool, args, ms, error, codes (the page
# codes that open the lines of the answer's text, in order), chars}.
use strict;
use warnings;
use IPC::Open2;
use JSON::PP;
use Time::HiRes qw(time);

my ($calls, $dashes, @cmd) = @ARGV;
die "usage: mcp-calls.pl CALLS -- COMMAND ARGS...\n" unless defined $dashes && $dashes eq '--' && @cmd;
my $json = JSON::PP->new->utf8->canonical;
open my $in, '<', $calls or die "mcp-calls.pl: $calls: $!";
my $pid = open2(my $from, my $to, @cmd);
$to->autoflush(1);

# ask ID METHOD PARAMS: the answer of one request
sub ask {
	my ($id, $method, $params) = @_;
	print $to $json->encode({ jsonrpc => '2.0', id => $id, method => $method, params => $params }), "\n";
	my $line = <$from>;
	die "mcp-calls.pl: the session ended before answering $id\n" unless defined $line;
	my $a = $json->decode($line);
	die "mcp-calls.pl: answer $a->{id} to request $id\n" unless ($a->{id} // -1) == $id;
	return $a;
}
ask(0, 'initialize', { protocolVersion => '2025-06-18', capabilities => {},
	clientInfo => { name => 'bench', version => '1' } });
my $id = 0;
while (my $l = <$in>) {
	chomp $l;
	my ($tool, $args) = split /\t/, $l, 2;
	my $params = { name => $tool, arguments => $json->decode($args) };
	$id++;
	my $t0 = time;
	my $a = ask($id, 'tools/call', $params);
	my $ms = (time - $t0) * 1000;
	my $text = $a->{result}{content}[0]{text} // '';
	my @codes = $text =~ /^([A-Z][A-Z0-9_]*-[0-9]+) \x{b7} /mg;
	print $json->encode({ tool => $tool, args => $params->{arguments}, ms => 0 + sprintf('%.3f', $ms),
		error => ($a->{result}{isError} ? JSON::PP::true : JSON::PP::false),
		codes => \@codes, chars => length $text }), "\n";
}
close $to;
waitpid $pid, 0;
exit($? >> 8);
