#!/usr/bin/perl
# raw-http.pl: sends a raw HTTP request file to 127.0.0.1:PORT, the way a
# hostile client would (lying Content-Length, dribbled or stalled bodies,
# malformed header lines), and splits the first response into files.
#
# usage: raw-http.pl [--chunk N --delay MS] [--stall-after N] [--timeout S]
#                    [--first] PORT REQUEST_FILE OUT_PREFIX
#   --chunk N --delay MS  send N bytes at a time, sleeping MS milliseconds between
#   --stall-after N       send only the first N bytes, then keep the connection
#                         open without sending anything more
#   --timeout S           give up reading after S seconds (default 20)
#   --first               stop reading once the first response is complete
#                         (.end is then "answered")
# Writes OUT_PREFIX.status (the first status code, or "none"), .headers (CR
# stripped), .body (the first response's body, chunked encoding undone),
# .rest (bytes after the first response), .raw, .time (seconds, 1 decimal)
# and .end ("closed" when the server closed the connection, "timeout").
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;
use Time::HiRes qw(time sleep);

my ($chunk, $delay, $stall, $timeout, $first) = (0, 0, -1, 20, 0);
while (@ARGV && $ARGV[0] =~ /^--/) {
	my $o = shift @ARGV;
	if ($o eq '--chunk') { $chunk = shift @ARGV }
	elsif ($o eq '--delay') { $delay = shift @ARGV }
	elsif ($o eq '--stall-after') { $stall = shift @ARGV }
	elsif ($o eq '--timeout') { $timeout = shift @ARGV }
	elsif ($o eq '--first') { $first = 1 }
	else { die "raw-http.pl: unknown option $o\n" }
}
@ARGV == 3 or die "usage: raw-http.pl [options] PORT REQUEST_FILE OUT_PREFIX\n";
my ($port, $file, $out) = @ARGV;

open my $f, '<', $file or die "raw-http.pl: $file: $!\n";
binmode $f;
my $req = do { local $/; <$f> };
close $f;
$req = substr($req, 0, $stall) if $stall >= 0 && $stall < length $req;

my $t0 = time;
my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Proto => 'tcp')
    or die "raw-http.pl: connect: $!\n";
binmode $s;
$SIG{PIPE} = 'IGNORE';
my $sel = IO::Select->new($s);
my $raw = '';
my $closed = 0;
my $answered = 0;

# Whether $raw holds a whole first response (by Content-Length or chunks).
sub complete {
	return 0 unless $raw =~ /\A(HTTP\/\d\.\d \d{3}[^\n]*\n(?:[^\n]*\n)*?)\r?\n/s;
	my ($h, $rest) = ($1, substr($raw, length $&));
	return $rest =~ /(?:\A|\n)0\r?\n\r?\n/ ? 1 : 0 if $h =~ /^Transfer-Encoding:\s*chunked/mi;
	return length($rest) >= $1 ? 1 : 0 if $h =~ /^Content-Length:\s*(\d+)/mi;
	return 0;
}

# Sends while collecting anything the server answers early (a 413 or 400
# can arrive before the whole body was sent).
sub drain {
	while ($sel->can_read(0)) {
		my $n = sysread($s, my $buf, 65536);
		if (!$n) { $closed = 1; return }
		$raw .= $buf;
	}
}
my $step = $chunk > 0 ? $chunk : length $req;
for (my $off = 0; $off < length $req && !$closed; $off += $step) {
	my $part = substr($req, $off, $step);
	my $w = syswrite($s, $part);
	last unless defined $w;
	drain();
	sleep($delay / 1000) if $delay > 0 && $off + $step < length $req;
}
while (!$closed) {
	if ($first && complete()) { $answered = 1; last }
	my $left = $timeout - (time - $t0);
	last if $left <= 0;
	last unless $sel->can_read($left);
	my $n = sysread($s, my $buf, 65536);
	if (!$n) { $closed = 1; last }
	$raw .= $buf;
}
my $elapsed = time - $t0;
close $s;

my ($status, $headers, $body, $rest) = ('none', '', '', '');
if ($raw =~ /\A(HTTP\/\d\.\d (\d{3})[^\n]*\n(?:[^\n]*\n)*?)\r?\n/s) {
	$status = $2;
	$headers = $1;
	$rest = substr($raw, length $&);
	if ($headers =~ /^Transfer-Encoding:\s*chunked/mi) {
		while ($rest =~ s/\A([0-9a-fA-F]+)[^\n]*\r?\n//) {
			my $n = hex $1;
			if ($n == 0) { $rest =~ s/\A(?:[^\n]*\r?\n)*?\r?\n//; last }
			$body .= substr($rest, 0, $n);
			$rest = substr($rest, $n);
			$rest =~ s/\A\r?\n//;
		}
	} elsif ($headers =~ /^Content-Length:\s*(\d+)/mi) {
		$body = substr($rest, 0, $1);
		$rest = length $rest > $1 ? substr($rest, $1) : '';
	} else {
		($body, $rest) = ($rest, '');
	}
	$headers =~ s/\r//g;
}
sub put {
	my ($name, $data) = @_;
	open my $o, '>', "$out.$name" or die "raw-http.pl: $out.$name: $!\n";
	binmode $o;
	print $o $data;
	close $o;
}
put('status', $status);
put('headers', $headers);
put('body', $body);
put('rest', $rest);
put('raw', $raw);
put('time', sprintf("%.1f\n", $elapsed));
put('end', $answered ? "answered\n" : $closed ? "closed\n" : "timeout\n");
exit 0;
