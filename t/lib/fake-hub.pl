#!/usr/bin/perl
# fake-hub.pl: an HTTP server on 127.0.0.1 that answers every request to the
# sdlc hub API with 200 and one JSON document whose members all have the
# wrong shapes (objects where lists go, strings where numbers go, lists
# where text goes), for t6590: a module server must answer each tool and
# never crash on such a hub.
#
# Usage: fake-hub.pl --port-file FILE --log FILE
#
# Each request appends "METHOD PATH" to the log.  SIGTERM stops it.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use FakeServer;

my ($port_file, $log) = FakeServer::args('fake-hub.pl');

my $doc = '{"project":{"label":"AURORA","name":[1],"wiki_root":{},"wiki_synced":"x",'
	. '"board_id":{}},"projects":{"a":1},"issues":"x","truncated":"yes","total":"many",'
	. '"issue":{"key":1,"summary":{},"labels":{},"fields":"f","links":3,"comments":null,'
	. '"comment_count":{},"commands":"c","notes":[1,2],"attachments":{"a":1},'
	. '"changes":"c","change_count":"7","created":[],"due":{}},'
	. '"events":{"e":1},"since":5,"until":[],"sprints":1,"board":{"id":"x"},'
	. '"sprint":"s","closed_more":"z","batch":{"commands":"no","id":[]},"batches":2,'
	. '"settings":{},"sync_runs":"s","handed_again":{},"pages":{},"tree":"t",'
	. '"page":{"code":{},"attachments":"a","text":7,"children":{}},'
	. '"attachment":{"state":"ready","size":"big","id":{},"name":[]},'
	. '"results":{},"candidates":"c","queued":"q","online":"maybe","id":"1","commands":"2"}';

my $srv = FakeServer::listen('fake-hub.pl', $port_file);
$SIG{TERM} = sub { exit 0 };

while (my $c = $srv->accept) {
	my ($line, $len) = (scalar <$c>, 0);
	next unless defined $line;
	while (my $h = <$c>) {
		last if $h =~ /^\r?\n$/;
		$len = $1 if $h =~ /^Content-Length:\s*(\d+)/i;
	}
	read $c, my $body, $len if $len > 0;
	my ($method, $path) = split / /, $line;
	FakeServer::logged($log, $method, $path);
	print $c "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
		. length($doc) . "\r\nConnection: close\r\n\r\n$doc";
	close $c;
}
