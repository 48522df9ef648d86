#!/usr/bin/perl
# t/lib/fcgi-flood.pl: many FastCGI requests from one process, each with
# its own client address, as a front such as nginx passes REMOTE_ADDR.
#
#   fcgi-flood.pl SOCKET BODYFILE COUNT ADDRESS-FORMAT NAME=VALUE...
#
# Sends BODYFILE COUNT times on SOCKET (a unix socket, one connection a
# request, one request at a time) with the NAME=VALUE pairs and
# REMOTE_ADDR set to sprintf(ADDRESS-FORMAT, i >> 16 & 255, i >> 8 & 255,
# i & 255) for request i (1..COUNT): "10.%2\$d.%3\$d.9" puts each request
# in a /24 of its own, "192.0.2.%3\$d" puts them all in one.  Prints how
# many answers had each status ("401 4000"), then the seconds taken as
# "seconds S".  Exits 0 when every request was answered.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Socket;
use Time::HiRes qw(time);
use FastCGIRecords qw(fcgi_request fcgi_read_answer);

my ($sock, $bodyfile, $count, $format, @params) = @ARGV;
die "usage: fcgi-flood.pl SOCKET BODYFILE COUNT ADDRESS-FORMAT NAME=VALUE...\n"
	unless defined $format && $count =~ /^\d+$/;
open my $bf, '<', $bodyfile or die "fcgi-flood.pl: $bodyfile: $!\n";
my $body = do { local $/; <$bf> };
close $bf;
$SIG{PIPE} = 'IGNORE';
@params = grep { !/^(?:REMOTE_ADDR|CONTENT_LENGTH)=/ } @params;

my %status;
my $t0 = time;
for my $i (1 .. $count) {
	my $addr = sprintf($format, $i >> 16 & 255, $i >> 8 & 255, $i & 255);
	my $req = fcgi_request([@params, "REMOTE_ADDR=$addr"], $body, 1);
	socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "fcgi-flood.pl: socket: $!\n";
	connect($s, sockaddr_un($sock)) or die "fcgi-flood.pl: connect $sock: $!\n";
	syswrite($s, $req) == length $req or die "fcgi-flood.pl: write: $!\n";
	my ($out, $ended) = eval { fcgi_read_answer($s) };
	die "fcgi-flood.pl: request $i: $@" if $@;
	die "fcgi-flood.pl: request $i: no FCGI_END_REQUEST\n" unless $ended;
	close $s;
	my $st = $out =~ /^Status:\s*(\d{3})/mi ? $1 : 200;
	$status{$st}++;
}
printf "%s %d\n", $_, $status{$_} for sort keys %status;
printf "seconds %.1f\n", time - $t0;
exit 0;
