#!/usr/bin/perl
# mcp-client.pl: the keep-alive HTTP/1.1 client behind mcp_post (see
# mcp_client_start in lib-mcp.sh): one process and one connection for all of
# a script's requests, instead of a curl process each.  It writes what curl
# wrote for mcp_post, so the assertions read the same files.
#
# usage: mcp-client.pl HOST PORT
# Reads requests on stdin, one a line of TAB-separated fields
#   METHOD  PATH  BODY-FILE  OUT  LOG  HEADER...
# BODY-FILE is sent as the body ("" for none; a POST, PUT or PATCH always
# gets a Content-Length).  A header "Name:" with no value is left out, as
# curl does.  The answer goes to OUT.status (the code), OUT.headers.raw (the
# status line and header lines as received), OUT.headers (the same without
# CR) and OUT.body (chunked encoding undone, nothing decompressed), and is
# appended to LOG as "### METHOD -> STATUS", the headers and the body.  Then
# the code is printed on stdout, 000 when no answer could be read.  A
# connection the server closes is opened again for the next request.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use KeepAlive;

@ARGV == 2 or die "usage: mcp-client.pl HOST PORT\n";
my ($host, $port) = @ARGV;
$| = 1;
my $conn = KeepAlive->new($host, $port);

sub write_file {
	my ($name, $mode, @data) = @_;
	open my $f, $mode, $name or die "mcp-client.pl: $name: $!\n";
	binmode $f;
	print {$f} @data;
	close $f or die "mcp-client.pl: $name: $!\n";
}

binmode STDIN;
binmode STDOUT;
while (my $line = <STDIN>) {
	chomp $line;
	my ($method, $path, $src, $out, $log, @headers) = split /\t/, $line;
	my $data = '';
	if ($src ne '') {
		open my $f, '<', $src or die "mcp-client.pl: $src: $!\n";
		binmode $f;
		local $/;
		$data = <$f> // '';
		close $f;
	}
	my $req = "$method $path HTTP/1.1\r\nHost: $host:$port\r\nUser-Agent: forgemcp-tests\r\n";
	for (@headers) {
		$req .= "$_\r\n" unless /^[^:]+:\s*$/;
	}
	$req .= "Content-Length: " . length($data) . "\r\n"
		if $src ne '' || $method =~ /^(POST|PUT|PATCH)$/;
	$req .= "\r\n$data";
	my @r = $conn->request($req, $method);
	unlink "$out.status", "$out.headers", "$out.headers.raw", "$out.body";
	if (!@r) {
		write_file("$out.status", '>', '000');
		print "000\n";
		next;
	}
	my ($status, $raw, $body) = @r;
	(my $headers = $raw) =~ s/\r//g;
	write_file("$out.status", '>', $status);
	write_file("$out.headers.raw", '>', $raw);
	write_file("$out.headers", '>', $headers);
	write_file("$out.body", '>', $body);
	write_file($log, '>>', "### $method -> $status\n", $headers, $body, "\n");
	print "$status\n";
}
