#!/usr/bin/perl
# fake-confluence.pl: a Confluence-style REST server on 127.0.0.1 for the
# wiki agent's Confluence backend (t6620), answering from fixture files.
#
# Usage: fake-confluence.pl --dir DIR --port-file FILE --log FILE [--auth USER:TOKEN]
#
# DIR/pages/ID.json        the answer to GET /rest/api/content/ID (sent as it is)
# DIR/pages/ID.status      an HTTP status to answer instead (e.g. 500)
# DIR/pages/ID.hang        answer nothing for 60 seconds instead
# DIR/children/ID          the ids of ID's child pages, one a line, in order
# DIR/attachments/ID       ID's attachments, one a line: name TAB size TAB media type
# DIR/files/ID/NAME        the file GET /download/attachments/ID/NAME answers (else 404)
#
# Listings (GET /rest/api/content/ID/child/page and .../child/attachment)
# honour start and limit, with at most 2 results an answer (as a real
# server caps limit), and _links.next while more are left.  With --auth,
# every request needs "Authorization: Basic base64(USER:TOKEN)", else 401.
# Each request appends "METHOD PATH?QUERY" to the log (never a header).
# Each connection is served by a child; SIGTERM stops the server and its children.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use FakeServer;
use MIME::Base64 ();
use POSIX ();

my ($dir, $port_file, $log, $auth);
while (@ARGV) {
	my $a = shift @ARGV;
	if ($a eq '--dir') { $dir = shift @ARGV }
	elsif ($a eq '--port-file') { $port_file = shift @ARGV }
	elsif ($a eq '--log') { $log = shift @ARGV }
	elsif ($a eq '--auth') { $auth = shift @ARGV }
	else { die "fake-confluence.pl: unknown argument $a\n" }
}
die "usage: fake-confluence.pl --dir DIR --port-file FILE --log FILE [--auth USER:TOKEN]\n"
    unless defined $dir && defined $port_file && defined $log;

my $server = FakeServer::listen('fake-confluence.pl', $port_file);

my %children;
$SIG{PIPE} = 'IGNORE';
$SIG{CHLD} = sub { while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) { delete $children{$pid} } };
my $parent = $$;
$SIG{TERM} = $SIG{INT} = sub {
	if ($$ == $parent) { kill 'TERM', keys %children }
	POSIX::_exit(0);
};

sub answer {
	my ($c, $status, $type, $body) = @_;
	print $c "HTTP/1.1 $status\r\nContent-Type: $type\r\nContent-Length: ", length($body),
	    "\r\nConnection: close\r\n\r\n", $body;
}

sub slurp {
	my ($f) = @_;
	open my $fh, '<:raw', $f or return undef;
	local $/;
	my $s = <$fh>;
	close $fh;
	return $s;
}

# json_str S: S (bytes of UTF-8) as a JSON string
sub json_str {
	my ($s) = @_;
	$s =~ s/(["\\])/\\$1/g;
	$s =~ s/([\x00-\x1f])/sprintf("\\u%04x", ord $1)/ge;
	return "\"$s\"";
}

# listing C PATH ID KIND QUERY: a page of child pages or attachments
sub listing {
	my ($c, $path, $id, $kind, $query) = @_;
	my %q = map { my ($k, $v) = split /=/, $_, 2; ($k, $v // '') } split /&/, $query // '';
	my $start = ($q{start} // '0') =~ /^\d+$/ ? $q{start} : 0;
	my $limit = ($q{limit} // '25') =~ /^\d+$/ ? $q{limit} : 25;
	$limit = 2 if $limit > 2;
	my $text = slurp("$dir/" . ($kind eq 'page' ? 'children' : 'attachments') . "/$id") // '';
	my @all = grep { length } split /\n/, $text;
	my @items;
	for my $line (@all[$start .. ($start + $limit - 1 < $#all ? $start + $limit - 1 : $#all)]) {
		next unless defined $line;
		if ($kind eq 'page') {
			push @items, "{\"id\":" . json_str($line) . ",\"type\":\"page\",\"title\":\"p$line\"}";
		} else {
			my ($name, $size, $mime) = split /\t/, $line;
			push @items, "{\"id\":\"att$start\",\"type\":\"attachment\",\"title\":" . json_str($name)
			    . ",\"extensions\":{\"mediaType\":" . json_str($mime // 'application/octet-stream')
			    . ",\"fileSize\":" . (0 + ($size // 0)) . "},\"_links\":{\"download\":"
			    . json_str("/download/attachments/$id/$name") . "}}";
		}
	}
	my $next = $start + @items < @all
	    ? ",\"next\":" . json_str("$path?limit=$limit&start=" . ($start + @items)) : '';
	answer($c, '200 OK', 'application/json', "{\"results\":[" . join(',', @items)
	    . "],\"start\":$start,\"limit\":$limit,\"size\":" . scalar(@items)
	    . ",\"_links\":{\"base\":\"http://confluence.test\"$next}}");
}

sub serve {
	my ($c) = @_;
	my $line = <$c>;
	return unless defined $line;
	my ($method, $target) = $line =~ m{^(\S+) (\S+)};
	my $authz = '';
	while (defined(my $h = <$c>)) {
		last if $h =~ /^\r?\n$/;
		$authz = $1 if $h =~ /^Authorization:\s*(.*?)\r?\n$/i;
	}
	if (open my $lf, '>>', $log) { print $lf "$method $target\n"; close $lf }
	my ($path, $query) = split /\?/, $target, 2;
	if (defined $auth && $authz ne 'Basic ' . MIME::Base64::encode_base64($auth, '')) {
		answer($c, '401 Unauthorized', 'application/json', "{\"message\":\"not logged in\"}");
		return;
	}
	if ($method ne 'GET') {
		answer($c, '405 Method Not Allowed', 'text/plain', "GET only\n");
	} elsif ($path =~ m{^/rest/api/content/(\d+)/child/(page|attachment)$}) {
		listing($c, $path, $1, $2, $query);
	} elsif ($path =~ m{^/rest/api/content/(\d+)$}) {
		my $id = $1;
		if (-e "$dir/pages/$id.hang") {
			sleep 60;
		} elsif (-e "$dir/pages/$id.status") {
			my $st = slurp("$dir/pages/$id.status");
			chomp $st;
			answer($c, "$st Error", 'application/json', "{\"statusCode\":$st}");
		} elsif (defined(my $body = slurp("$dir/pages/$id.json"))) {
			answer($c, '200 OK', 'application/json', $body);
		} else {
			answer($c, '404 Not Found', 'application/json', "{\"statusCode\":404}");
		}
	} elsif ($path =~ m{^/download/attachments/(\d+)/([^/]+)$}) {
		my ($id, $name) = ($1, $2);
		$name =~ s/%([0-9A-Fa-f]{2})/chr(hex($1))/ge;
		my $body = $name =~ m{^\.} ? undef : slurp("$dir/files/$id/$name");
		if (defined $body) {
			answer($c, '200 OK', 'application/octet-stream', $body);
		} else {
			answer($c, '404 Not Found', 'application/json', "{\"statusCode\":404}");
		}
	} else {
		answer($c, '404 Not Found', 'text/plain', "no such path\n");
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
