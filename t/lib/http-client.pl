#!/usr/bin/perl
# http-client.pl: a keep-alive HTTP/1.1 client for test scripts that send
# hundreds of requests: one process, one connection (reopened when the
# server closes it), instead of a curl process per request.
#
# usage: http-client.pl HOST PORT PATH
# Reads requests on stdin: a line of TAB-separated fields
#   SOURCE  HEADER...
# where SOURCE is a file holding the body, or "=N" when the N bytes after
# the line are the body.  Each is POSTed to PATH with the given header lines
# (plus Host, Content-Length and Connection: keep-alive).  The answer goes to
# stdout: a line "STATUS LENGTH", then LENGTH bytes of body (chunked encoding
# undone); STATUS is 000 when no answer could be read.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use KeepAlive;

@ARGV == 3 or die "usage: http-client.pl HOST PORT PATH\n";
my ($host, $port, $path) = @ARGV;
$| = 1;
my $conn = KeepAlive->new($host, $port);

binmode STDIN;
binmode STDOUT;
while (my $line = <STDIN>) {
	chomp $line;
	my ($src, @headers) = split /\t/, $line;
	my $data = '';
	if ($src =~ /^=(\d+)$/) {
		my $n = $1;
		while (length $data < $n) {
			my $got = read(STDIN, my $part, $n - length $data);
			last unless $got;
			$data .= $part;
		}
	} elsif (open my $f, '<', $src) {
		binmode $f;
		local $/;
		$data = <$f> // '';
		close $f;
	}
	my $req = "POST $path HTTP/1.1\r\nHost: $host:$port\r\n";
	$req .= "$_\r\n" for @headers;
	$req .= "Content-Length: " . length($data) . "\r\nConnection: keep-alive\r\n\r\n$data";
	my @r = $conn->request($req, 'POST');
	if (!@r) {
		print "000 0\n";
		next;
	}
	my ($status, undef, $body) = @r;
	print "$status ", length($body), "\n", $body;
}
