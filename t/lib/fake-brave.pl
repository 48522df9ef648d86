#!/usr/bin/perl
# fake-brave.pl: a stand-in for the Brave Search API on 127.0.0.1, for the web_search tests.
#
# Usage: fake-brave.pl --token TOKEN --log FILE --port-file FILE
#
# Answers GET <any path>?q=...&count=... in Brave's format,
#   {"type":"search","web":{"type":"search","results":[{"title","url","description"}...]}}
# with `count` results (at most 20) made from the query, when the request
# carries "X-Subscription-Token: TOKEN"; otherwise 401 with Brave's error shape.
# Markers in the query change the answer:
#   status:NNN   answer with HTTP NNN and an error body
#   sleep:N      wait N seconds before answering
#   garbage      a 200 whose body is not JSON
#   noweb        a 200 without a "web" member (no results)
#   huge         a 200 body larger than 1 MiB
# Each request appends one line to the log file:
#   GET <target as sent><TAB>token=ok|missing|wrong<TAB>count=<raw count><TAB>q=<decoded q>
# (the token itself is never written).  The port it listens on is written
# to the port file (t/lib/FakeServer.pm).  Each connection is served
# by a child process so keep-alive clients do not block each other; SIGTERM
# stops the server and its children.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use FakeServer;
use POSIX ();

my ($token, $log, $port_file) = ('', '/dev/null', undef);
while (@ARGV) {
	my $a = shift @ARGV;
	if ($a eq '--token') { $token = shift @ARGV }
	elsif ($a eq '--log') { $log = shift @ARGV }
	elsif ($a eq '--port-file') { $port_file = shift @ARGV }
	else { die "fake-brave.pl: unknown argument $a\n" }
}

die "usage: fake-brave.pl --token TOKEN --log FILE --port-file FILE\n" unless defined $port_file;
my $server = FakeServer::listen('fake-brave.pl', $port_file, 32);

my %children;
$SIG{PIPE} = 'IGNORE';
my $parent = $$;
$SIG{CHLD} = sub {
	while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
		delete $children{$pid};
	}
};
$SIG{TERM} = $SIG{INT} = sub {
	if ($$ == $parent) {
		kill 'TERM', keys %children;
	}
	POSIX::_exit(0);
};

sub json_str {
	my ($s) = @_;
	$s =~ s/(["\\])/\\$1/g;
	$s =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord $1)/ge;
	return "\"$s\"";
}

sub url_decode {
	my ($s) = @_;
	$s =~ tr/+/ /;
	$s =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
	return $s;
}

sub log_line {
	my ($line) = @_;
	open my $lf, '>>', $log or return;
	syswrite $lf, "$line\n";
	close $lf;
}

sub respond {
	my ($c, $status, $body, $close) = @_;
	my %text = (200 => 'OK', 400 => 'Bad Request', 401 => 'Unauthorized',
	    403 => 'Forbidden', 404 => 'Not Found', 422 => 'Unprocessable Entity',
	    429 => 'Too Many Requests', 500 => 'Internal Server Error',
	    502 => 'Bad Gateway', 503 => 'Service Unavailable');
	my $reason = $text{$status} // 'Status';
	my $head = "HTTP/1.1 $status $reason\r\nContent-Type: application/json\r\n" .
	    "Content-Length: " . length($body) . "\r\n" .
	    ($close ? "Connection: close\r\n" : "Connection: keep-alive\r\n") . "\r\n";
	print {$c} $head, $body;
}

sub error_body {
	my ($status, $code) = @_;
	return '{"type":"ErrorResponse","error":{"id":"fake","status":' . $status .
	    ',"code":' . json_str($code) . ',"detail":"fake error"}}';
}

# Serves the requests of one connection until the client closes it.
sub serve {
	my ($c) = @_;
	binmode $c;
	$c->autoflush(1);
	while (1) {
		alarm 60;
		my $line = <$c>;
		return unless defined $line;
		$line =~ s/\r?\n\z//;
		my %h;
		while (defined(my $hl = <$c>)) {
			$hl =~ s/\r?\n\z//;
			last if $hl eq '';
			my ($k, $v) = split /:\s*/, $hl, 2;
			$h{lc $k} = $v // '';
		}
		alarm 0;
		my ($method, $target) = split / /, $line;
		$target //= '';
		if (($h{'content-length'} // 0) > 0) {
			read $c, my $ignored, $h{'content-length'};
		}
		my $close = lc($h{connection} // '') eq 'close';
		my ($path, $qs) = split /\?/, $target, 2;
		my %p;
		for my $pair (split /&/, $qs // '') {
			my ($k, $v) = split /=/, $pair, 2;
			$p{url_decode($k)} = url_decode($v // '');
		}
		my $q = $p{q} // '';
		my $count = $p{count} // '';
		my $tok = !exists $h{'x-subscription-token'} ? 'missing' :
		    $h{'x-subscription-token'} eq $token ? 'ok' : 'wrong';
		(my $qlog = $q) =~ s/([\x00-\x1f\\])/sprintf('\\x%02x', ord $1)/ge;
		log_line("$method $target\ttoken=$tok\tcount=$count\tq=$qlog");

		if ($method ne 'GET') {
			respond($c, 400, error_body(400, 'METHOD'), 1);
			return;
		}
		if ($tok ne 'ok') {
			respond($c, 401, error_body(401, 'SUBSCRIPTION_TOKEN_INVALID'), $close);
		} elsif ($q =~ /sleep:(\d+)/) {
			sleep $1;
			respond($c, 200, '{"type":"search","web":{"type":"search","results":[]}}', $close);
		} elsif ($q =~ /status:(\d{3})/) {
			respond($c, $1 + 0, error_body($1 + 0, 'FAKE'), $close);
		} elsif ($q =~ /garbage/) {
			respond($c, 200, '<html>not json</html>', $close);
		} elsif ($q =~ /noweb/) {
			respond($c, 200, '{"type":"search","query":{"original":' . json_str($q) . '}}',
			    $close);
		} elsif ($q =~ /huge/) {
			respond($c, 200, '{"type":"search","pad":"' . ('x' x (1100 * 1024)) . '"}',
			    $close);
		} else {
			my $n = $count =~ /^\d+$/ ? $count : 10;
			$n = 20 if $n > 20;
			my @r;
			for my $i (1 .. $n) {
				push @r, '{"title":' . json_str("Result $i for $q") .
				    ',"url":' . json_str("https://example.com/$i") .
				    ',"description":' . json_str("Snippet $i about <strong>$q</strong>") .
				    ',"age":"1 day ago","language":"en"}';
			}
			respond($c, 200, '{"type":"search","query":{"original":' . json_str($q) .
			    '},"web":{"type":"search","results":[' . join(',', @r) . ']}}', $close);
		}
		return if $close;
	}
}

while (1) {
	my $c = $server->accept;
	next unless defined $c;	# interrupted by SIGCHLD
	my $pid = fork;
	if (!defined $pid) {
		close $c;
		next;
	}
	if ($pid == 0) {
		$SIG{TERM} = $SIG{INT} = sub { POSIX::_exit(0) };
		$SIG{ALRM} = sub { POSIX::_exit(0) };
		close $server;
		serve($c);
		close $c;
		POSIX::_exit(0);
	}
	$children{$pid} = 1;
	close $c;
}
