#!/usr/bin/perl
# fake-http.pl: an HTTP server on 127.0.0.1 that answers the way an MCP
# endpoint should not, for the tests of `forgemcp call` (t0330).
#
# Usage: fake-http.pl --port-file FILE --log FILE
#
# The request path chooses the answer:
#   /redirect   302 to http://other.example/mcp
#   /hang       nothing, for 60 seconds (the client's timeout must end it)
#   /garbage    200 with an HTML body
#   /sse        200 text/event-stream: a comment, then the JSON-RPC answer
#               (tools/list: one tool "echo" with a string argument "say";
#               tools/call: a text block "echo: <the body's say>")
# Each request appends "METHOD PATH" to the log (never a header).  Each
# connection is served by a child; SIGTERM stops the server and its children.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use FakeServer;
use POSIX ();

my ($port_file, $log) = FakeServer::args('fake-http.pl');
my $server = FakeServer::listen('fake-http.pl', $port_file);

my %children;
$SIG{PIPE} = 'IGNORE';
$SIG{CHLD} = sub { while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) { delete $children{$pid} } };
my $parent = $$;
$SIG{TERM} = $SIG{INT} = sub {
	if ($$ == $parent) { kill 'TERM', keys %children }
	POSIX::_exit(0);
};

sub answer {
	my ($c, $status, $headers, $body) = @_;
	print $c "HTTP/1.1 $status\r\n", (map { "$_\r\n" } @$headers),
	    "Content-Length: ", length($body), "\r\nConnection: close\r\n\r\n", $body;
}

sub serve {
	my ($c) = @_;
	my $line = <$c>;
	return unless defined $line;
	my ($method, $path) = $line =~ m{^(\S+) (\S+)};
	my $len = 0;
	while (defined(my $h = <$c>)) {
		last if $h =~ /^\r?\n$/;
		$len = $1 if $h =~ /^Content-Length:\s*(\d+)/i;
	}
	my $body = '';
	read($c, $body, $len) if $len > 0;
	FakeServer::logged($log, $method, $path);
	if ($path eq '/redirect') {
		answer($c, '302 Found', ['Location: http://other.example/mcp'], '');
	} elsif ($path eq '/hang') {
		sleep 60;
	} elsif ($path eq '/garbage') {
		answer($c, '200 OK', ['Content-Type: text/html'], "<html>not json</html>\n");
	} elsif ($path eq '/sse') {
		my $result;
		if ($body =~ /"method":"tools\/call"/) {
			my ($say) = $body =~ /"say":"([^"\\]*)"/;
			$result = '{"content":[{"type":"text","text":"echo: ' . ($say // '') . '"}]}';
		} else {
			$result = '{"tools":[{"name":"echo","inputSchema":{"type":"object",'
			    . '"properties":{"say":{"type":"string"}}}}]}';
		}
		answer($c, '200 OK', ['Content-Type: text/event-stream'],
		    ": a comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\n"
		    . "data: \"result\":$result}\n\n");
	} else {
		answer($c, '404 Not Found', ['Content-Type: text/plain'], "no such path\n");
	}
}

while (1) {
	my $c = $server->accept or next;
	my $pid = fork;
	if (!defined $pid) { close $c; next }
	if ($pid == 0) {
		$SIG{TERM} = 'DEFAULT';
		close $server;
		serve($c);
		close $c;
		POSIX::_exit(0);
	}
	$children{$pid} = 1;
	close $c;
}
