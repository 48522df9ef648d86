# FakeServer.pm: what the fake HTTP servers of the tests share: the
# arguments --port-file FILE --log FILE, a listener on 127.0.0.1 whose port
# is written to FILE (through a rename, so a reader never sees half of it),
# and the log's "METHOD PATH" lines.
#
# Licensed under the ISC license, see LICENSE.
package FakeServer;
use strict;
use warnings;
use IO::Socket::INET;

# args(NAME): (port_file, log) from @ARGV, or dies with NAME's usage.
sub args {
	my ($name) = @_;
	my ($port_file, $log);
	while (@ARGV) {
		my $a = shift @ARGV;
		if ($a eq '--port-file') { $port_file = shift @ARGV }
		elsif ($a eq '--log') { $log = shift @ARGV }
		else { die "$name: unknown argument $a\n" }
	}
	die "usage: $name --port-file FILE --log FILE\n" unless defined $port_file && defined $log;
	return ($port_file, $log);
}

# listen(NAME, PORT_FILE[, BACKLOG]): the listening socket (a backlog of 16
# connections unless BACKLOG says), its port written to PORT_FILE.
sub listen {
	my ($name, $port_file, $backlog) = @_;
	my $server = IO::Socket::INET->new(Listen => $backlog // 16, LocalAddr => '127.0.0.1', LocalPort => 0,
	    ReuseAddr => 1, Proto => 'tcp') or die "$name: cannot listen: $!\n";
	open my $pf, '>', "$port_file.tmp" or die "$name: $port_file: $!\n";
	print $pf $server->sockport, "\n";
	close $pf;
	rename "$port_file.tmp", $port_file or die "$name: $port_file: $!\n";
	return $server;
}

# logged(LOG, METHOD, PATH): appends "METHOD PATH" (never a header or a query).
sub logged {
	my ($log, $method, $path) = @_;
	$path =~ s/\?.*//s;
	open my $lf, '>>', $log or die "fake server: $log: $!\n";
	print $lf "$method $path\n";
	close $lf;
}

1;
