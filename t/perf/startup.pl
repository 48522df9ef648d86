#!/usr/bin/perl
# t/perf/startup.pl: how long a FastCGI server takes from exec to its first
# answer.  Used by t/perf/bench.sh.
#
#   startup.pl SOCKET BODYFILE NAME=VALUE... -- COMMAND [ARG...]
#
# Takes the time, starts COMMAND, connects to the unix SOCKET as soon as it
# accepts connections (trying every 0.2 ms), sends one FastCGI request with
# the NAME=VALUE pairs as parameters and BODYFILE as its body, and reads the
# answer to its end.  Prints "LISTEN_MS ANSWER_MS" (both from the exec) and
# writes the answer's stdout stream to SOCKET.out.  The client is a process
# already running, so its own start-up is not counted.  COMMAND is left
# running; its pid is written to SOCKET.pid.
use strict;
use warnings;
use Socket;
use Time::HiRes qw(time sleep);

my ($sock, $bodyfile, @rest) = @ARGV;
my @params;
push @params, shift @rest while @rest && $rest[0] ne '--';
shift @rest;
die "usage: startup.pl SOCKET BODYFILE NAME=VALUE... -- COMMAND [ARG...]\n"
	unless defined $bodyfile && @rest;
open my $bf, '<', $bodyfile or die "startup.pl: $bodyfile: $!\n";
my $body = do { local $/; <$bf> };
close $bf;

sub rec { my ($type, $data) = @_;
	pack('CCnnCC', 1, $type, 1, length $data, 0, 0) . $data }
sub len { my $n = shift; $n < 128 ? pack('C', $n) : pack('N', $n | 0x80000000) }
my $pairs = join '', map { my ($n, $v) = split /=/, $_, 2; len(length $n) . len(length $v) . $n . $v }
	@params, 'CONTENT_LENGTH=' . length $body;
my $req = rec(1, pack('nCx5', 1, 0)) . rec(4, $pairs) . rec(4, '') .
	($body eq '' ? '' : rec(5, $body)) . rec(5, '');

unlink $sock;
my $t0 = time;
my $pid = fork // die "startup.pl: fork: $!\n";
if ($pid == 0) {
	open STDIN, '<', '/dev/null';
	# not the caller's stdout: a $(...) around this script would wait for it
	open STDOUT, '>&', \*STDERR;
	exec @rest or die "startup.pl: exec $rest[0]: $!\n";
}
my $s;
until ($s) {
	die "startup.pl: no socket after 10 s\n" if time - $t0 > 10;
	socket(my $c, PF_UNIX, SOCK_STREAM, 0) or die "startup.pl: socket: $!\n";
	if (connect($c, sockaddr_un($sock))) { $s = $c } else { sleep 0.0002 }
}
my $t_listen = time;
syswrite($s, $req) == length $req or die "startup.pl: short write\n";
my ($buf, $out, $ended) = ('', '', 0);
while (!$ended) {
	my $n = sysread($s, $buf, 65536, length $buf);
	die "startup.pl: read: $!\n" unless defined $n;
	last if $n == 0;
	while (length $buf >= 8) {
		my ($v, $type, $id, $clen, $plen) = unpack('CCnnC', $buf);
		last if length $buf < 8 + $clen + $plen;
		$out .= substr($buf, 8, $clen) if $type == 6;
		$ended = 1 if $type == 3;
		substr($buf, 0, 8 + $clen + $plen) = '';
	}
}
my $t_answer = time;
close $s;
open my $o, '>', "$sock.out" or die;
print $o $out;
close $o;
open my $p, '>', "$sock.pid" or die;
print $p "$pid\n";
close $p;
printf "%.1f %.1f\n", ($t_listen - $t0) * 1000, ($t_answer - $t0) * 1000;
