#!/usr/bin/perl
# t/lib/fcgi-client.pl: one FastCGI request on a unix socket (or on TCP
# when SOCKET is HOST:PORT), for tests that need the record level a web
# server hides.
#
#   fcgi-client.pl [--late-eof] [--delay SECONDS] SOCKET BODYFILE NAME=VALUE...
#
# Sends FCGI_BEGIN_REQUEST, the NAME=VALUE pairs (CONTENT_LENGTH is added)
# and BODYFILE as stdin, and prints the answer's stdout stream.  Without
# --late-eof the empty stdin record that ends the body goes out with the
# rest, as nginx sends it.  With --late-eof it is sent only after the whole
# answer (FCGI_END_REQUEST) has been read and 50 ms have passed, as Apache's
# mod_proxy_fcgi may send it; the script then fails if that write fails
# (the server closed the connection before reading stdin to its end).
# With --delay nothing is sent for SECONDS after the connection is made:
# a worker has taken the connection and waits for its first record.  With
# --keep FILE the request asks to keep the connection (FCGI_KEEP_CONN); after
# the answer the script waits until FILE exists, then sends the request
# again on the same connection and prints that answer too ("gone" on
# standard error and exit 3 when the server closed the connection instead).
# Exits 0 when the answer ended with FCGI_END_REQUEST and every write went
# through.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Socket;
use Time::HiRes qw(sleep);
use FastCGIRecords qw(fcgi_record fcgi_request fcgi_read_answer);

my ($late, $delay, $keep) = (0, 0, undef);
while (@ARGV && $ARGV[0] =~ /^--/) {
	my $opt = shift @ARGV;
	if ($opt eq '--late-eof') { $late = 1 }
	elsif ($opt eq '--delay') { $delay = shift @ARGV }
	elsif ($opt eq '--keep') { $keep = shift @ARGV }
	else { die "fcgi-client.pl: unknown option $opt\n" }
}
my ($sock, $bodyfile, @params) = @ARGV;
die "usage: fcgi-client.pl [--late-eof] [--delay SECONDS] [--keep FILE] SOCKET BODYFILE NAME=VALUE...\n"
	unless defined $bodyfile;
open my $bf, '<', $bodyfile or die "fcgi-client.pl: $bodyfile: $!\n";
my $body = do { local $/; <$bf> };
close $bf;
$SIG{PIPE} = 'IGNORE';
$| = 1;

my $req = fcgi_request(\@params, $body, !$late, defined $keep);
my $s;
if (my ($host, $port) = $sock =~ /^([\d.]+):(\d+)$/) {
	socket($s, PF_INET, SOCK_STREAM, 0) or die "fcgi-client.pl: socket: $!\n";
	connect($s, sockaddr_in($port, inet_aton($host))) or die "fcgi-client.pl: connect $sock: $!\n";
} else {
	socket($s, PF_UNIX, SOCK_STREAM, 0) or die "fcgi-client.pl: socket: $!\n";
	connect($s, sockaddr_un($sock)) or die "fcgi-client.pl: connect $sock: $!\n";
}
sleep $delay if $delay > 0;
syswrite($s, $req) == length $req or die "fcgi-client.pl: write: $!\n";
my ($out, $ended) = eval { fcgi_read_answer($s) };
die "fcgi-client.pl: $@" if $@;
print $out;
die "fcgi-client.pl: the connection ended without FCGI_END_REQUEST\n" unless $ended;
if ($late) {
	sleep 0.05;
	my $eof = fcgi_record(5, '');
	my $w = syswrite($s, $eof);
	die "fcgi-client.pl: the end of stdin could not be sent after the answer: $!\n"
		unless defined $w && $w == length $eof;
}
if (defined $keep) {
	sleep 0.05 until -e $keep;
	my $w = syswrite($s, $req);
	($out, $ended) = defined $w && $w == length $req ? eval { fcgi_read_answer($s) } : ('', 0);
	($out, $ended) = ('', 0) if $@;
	unless ($ended || length $out) {
		print STDERR "gone\n";
		exit 3;
	}
	print $out;
	die "fcgi-client.pl: the connection ended without FCGI_END_REQUEST\n" unless $ended;
}
close $s;
exit 0;
