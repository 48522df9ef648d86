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
use IO::Socket::INET;

@ARGV == 3 or die "usage: http-client.pl HOST PORT PATH\n";
my ($host, $port, $path) = @ARGV;
$| = 1;
$SIG{PIPE} = 'IGNORE';
my $sock;

sub connect_ {
	$sock = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Proto => 'tcp',
	    Timeout => 10);
	binmode $sock if $sock;
	return $sock;
}

# Reads exactly $n bytes (fewer at EOF).
sub read_n {
	my ($n) = @_;
	my $buf = '';
	while (length $buf < $n) {
		my $got = read($sock, my $part, $n - length $buf);
		last unless $got;
		$buf .= $part;
	}
	return $buf;
}

# One exchange on the open connection: (status, body, close) or () when the
# connection turned out to be dead before any answer.
sub exchange {
	my ($req) = @_;
	print {$sock} $req or return ();
	my $line = <$sock>;
	return () unless defined $line;
	my ($status) = $line =~ /^HTTP\/\d\.\d (\d{3})/ or return ('000', '', 1);
	my (%h, $body);
	while (defined(my $hl = <$sock>)) {
		$hl =~ s/\r?\n\z//;
		last if $hl eq '';
		my ($k, $v) = split /:\s*/, $hl, 2;
		$h{lc $k} = $v // '';
	}
	if (($h{'transfer-encoding'} // '') =~ /chunked/i) {
		$body = '';
		while (defined(my $size = <$sock>)) {
			my $n = hex(($size =~ /^([0-9a-fA-F]+)/)[0] // 0);
			if ($n == 0) {
				while (defined(my $t = <$sock>)) { last if $t =~ /^\r?\n\z/ }
				last;
			}
			$body .= read_n($n);
			<$sock>;
		}
	} elsif (defined $h{'content-length'}) {
		$body = read_n($h{'content-length'});
	} else {
		local $/;
		$body = <$sock> // '';
		$h{connection} = 'close';
	}
	return ($status, $body, lc($h{connection} // '') eq 'close');
}

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
	my @r;
	for my $try (1, 2) {
		$sock = undef if $try == 2;
		connect_() or last unless $sock;
		@r = exchange($req);
		last if @r;
	}
	if (!@r) {
		print "000 0\n";
		$sock = undef;
		next;
	}
	my ($status, $body, $close) = @r;
	$sock = undef if $close;
	print "$status ", length($body), "\n", $body;
}
