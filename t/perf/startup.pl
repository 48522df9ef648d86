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
use FindBin;
use lib "$FindBin::Bin/../lib";
use Socket;
use Time::HiRes qw(time sleep);
use FastCGIRecords qw(fcgi_request fcgi_read_answer);

my ($sock, $bodyfile, @rest) = @ARGV;
my @params;
push @params, shift @rest while @rest && $rest[0] ne '--';
shift @rest;
die "usage: startup.pl SOCKET BODYFILE NAME=VALUE... -- COMMAND [ARG...]\n"
	unless defined $bodyfile && @rest;
open my $bf, '<', $bodyfile or die "startup.pl: $bodyfile: $!\n";
my $body = do { local $/; <$bf> };
close $bf;

my $req = fcgi_request(\@params, $body, 1);

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
my ($out) = eval { fcgi_read_answer($s) };
die "startup.pl: $@" if $@;
my $t_answer = time;
close $s;
open my $o, '>', "$sock.out" or die;
print $o $out;
close $o;
open my $p, '>', "$sock.pid" or die;
print $p "$pid\n";
close $p;
printf "%.1f %.1f\n", ($t_listen - $t0) * 1000, ($t_answer - $t0) * 1000;
