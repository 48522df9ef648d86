#!/usr/bin/perl
# mcp-client.pl: the keep-alive HTTP/1.1 client behind mcp_post (see
# mcp_client_start in lib-mcp.sh): one process and one connection for all of
# a script's requests, instead of a curl process each.  It writes what curl
# wrote for mcp_post, so the assertions read the same files.
#
# usage: mcp-client.pl HOST PORT
# Reads requests on stdin, one a line of TAB-separated fields
#   METHOD  PATH  BODY-FILE  OUT  LOG  HEADER...
# BODY-FILE is sent as the body ("" for none; a POST, PUT or PATCH always
# gets a Content-Length).  A header "Name:" with no value is left out, as
# curl does.  The answer goes to OUT.status (the code), OUT.headers.raw (the
# status line and header lines as received), OUT.headers (the same without
# CR) and OUT.body (chunked encoding undone, nothing decompressed), and is
# appended to LOG as "### METHOD -> STATUS", the headers and the body.  Then
# the code is printed on stdout, 000 when no answer could be read.  A
# connection the server closes is opened again for the next request.
#
# A line "TEXT  ok|error  BODY-FILE  OUT-FILE" asks for what result_text_
# (lib-mcp.sh) gets from jq -r, without a jq process: when BODY-FILE holds
# one JSON object whose result.content[0].text is a string, it checks that
# result.isError is not true (ok) or that it is true and there is no
# top-level "error" (error), writes the text and a newline to OUT-FILE and
# prints "ok" or "fail"; for anything else (not JSON, another shape, a
# \u escape of a surrogate, which jq replaces) it prints "jq", and the
# caller runs jq as before.
#
# A line "SORTED  BODY-FILE  OUT-FILE" writes the JSON document in BODY-FILE
# to OUT-FILE with its object members sorted by name, one a line (indented,
# as this module's JSON encoder lays it out), and prints "ok"; "jq" when
# BODY-FILE is not one JSON document (or has a \u escape of a surrogate).
#
# A line "VALUE  BODY-FILE  .KEY.KEY..." prints "ok", a TAB and what jq -r
# prints for that path when BODY-FILE is one JSON document and the value is
# null, true, false, an integer of at most 15 digits or a string without a
# control character (a missing member is null, as for jq; so is a member of
# null); "jq" for anything else.  "JVALUE" instead of "VALUE" prints the
# value as jq -c does, when that is null, true, false, an integer of at most
# 15 digits written without a fraction or an exponent, or a string of
# printable ASCII without " or \; "jq" for anything else.
#
# A line "RPCERROR  BODY-FILE  CODE  ID" asks what test_rpc_error
# (lib-mcp.sh) asks of jq: that BODY-FILE is one JSON object with
# "jsonrpc": "2.0", an error object whose code is the integer CODE and whose
# message is a non-empty string, no member "result", and (unless ID is
# empty) an id written as ID (null, true, false, an integer or a plain
# ASCII string, as jq's tojson writes it).  It prints "ok" when all of that
# holds and "jq" for anything else (the caller asks jq, which says what
# failed).
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use KeepAlive;
use B ();

@ARGV == 2 or die "usage: mcp-client.pl HOST PORT\n";
my ($host, $port) = @ARGV;
$| = 1;
my $conn = KeepAlive->new($host, $port);

# Cpanel::JSON::XS when installed, else the core JSON::PP: the same data.
my $json = eval { require Cpanel::JSON::XS; Cpanel::JSON::XS->new->utf8 } //
	do { require JSON::PP; JSON::PP->new->utf8 };

# the SORTED request's encoder
my $sorted_json = eval { require Cpanel::JSON::XS; Cpanel::JSON::XS->new } //
	do { require JSON::PP; JSON::PP->new };
$sorted_json->utf8->canonical->pretty->allow_nonref;

# result_text(MODE, BODY-FILE, OUT-FILE): the TEXT request; returns the
# word to print.
sub result_text {
	my ($mode, $src, $dst) = @_;
	open my $f, '<', $src or return 'jq';
	binmode $f;
	local $/;
	my $data = <$f> // '';
	close $f;
	return 'jq' if $data =~ /\\u[dD][89abcdefABCDEF]/;
	my $doc = eval { $json->decode($data) };
	return 'jq' unless ref $doc eq 'HASH' && ref $doc->{result} eq 'HASH';
	my $r = $doc->{result};
	return 'jq' unless ref $r->{content} eq 'ARRAY' && ref $r->{content}[0] eq 'HASH';
	my $text = $r->{content}[0]{text};
	# a JSON string only: jq prints other values as JSON
	return 'jq' unless defined $text && !ref $text &&
		(B::svref_2object(\$text)->FLAGS & (B::SVp_IOK | B::SVp_NOK)) == 0;
	# jq's "== true": the JSON literal true only, not 1 or "true"
	my $e = $r->{isError};
	my $is_error = ref $e && ref $e ne 'HASH' && ref $e ne 'ARRAY' && $e ? 1 : 0;
	my $good = $mode eq 'ok' ? !$is_error : ($is_error && !exists $doc->{error});
	unless ($good) {
		write_file($dst, '>');
		return 'fail';
	}
	utf8::encode($text);
	write_file($dst, '>', $text, "\n");
	return 'ok';
}

# read_json(FILE): the JSON document in FILE, or undef (and the caller
# answers "jq").
sub read_json {
	my ($src) = @_;
	open my $f, '<', $src or return undef;
	binmode $f;
	local $/;
	my $data = <$f> // '';
	close $f;
	return undef if $data =~ /\\u[dD][89abcdefABCDEF]/;
	my $doc = eval { [$json->decode($data)] };
	return $doc;
}

# sorted(BODY-FILE, OUT-FILE): the SORTED request.
sub sorted {
	my ($src, $dst) = @_;
	my $doc = read_json($src) or return 'jq';
	my $text = eval { $sorted_json->encode($doc->[0]) };
	return 'jq' unless defined $text;
	write_file($dst, '>', $text);
	return 'ok';
}

# value(BODY-FILE, PATH, JSON): the VALUE request (JVALUE when JSON).
sub value {
	my ($src, $path, $as_json) = @_;
	my $doc = read_json($src) or return 'jq';
	my $v = $doc->[0];
	for my $k (split /\./, substr($path, 1)) {
		last unless defined $v;
		return 'jq' unless ref $v eq 'HASH';
		$v = $v->{$k};
	}
	return "ok\tnull" unless defined $v;
	if (ref $v) {
		return 'jq' if ref $v eq 'HASH' || ref $v eq 'ARRAY';
		return "ok\t" . ($v ? 'true' : 'false');
	}
	my $flags = B::svref_2object(\$v)->FLAGS;
	if ($flags & (B::SVp_IOK | B::SVp_NOK)) {
		return 'jq' unless $v =~ /^-?(0|[1-9][0-9]{0,14})$/;
		return 'jq' if $as_json && ($flags & B::SVp_NOK || $v eq '-0');
		return "ok\t$v";
	}
	if ($as_json) {
		return 'jq' unless $v =~ /^[ !#-\[\]-~]*$/;
		return "ok\t\"$v\"";
	}
	return 'jq' if $v =~ /[\x00-\x1f\x7f]/;
	utf8::encode($v);
	return "ok\t$v";
}

# scalar_json(VALUE): VALUE as jq -c writes it when it is null, a
# boolean, an integer of at most 15 digits (no fraction, no exponent in
# the source) or a string of printable ASCII without " or \; else undef.
sub scalar_json {
	my ($v) = @_;
	return 'null' unless defined $v;
	if (ref $v) {
		return undef if ref $v eq 'HASH' || ref $v eq 'ARRAY';
		return $v ? 'true' : 'false';
	}
	my $flags = B::svref_2object(\$v)->FLAGS;
	if ($flags & (B::SVp_IOK | B::SVp_NOK)) {
		return undef if $flags & B::SVp_NOK || $v !~ /^-?(0|[1-9][0-9]{0,14})$/ || $v eq '-0';
		return $v;
	}
	return undef unless $v =~ /^[ !#-\[\]-~]*$/;
	return "\"$v\"";
}

# rpc_error(BODY-FILE, CODE, ID): the RPCERROR request.
sub rpc_error {
	my ($src, $code, $id) = @_;
	my $doc = read_json($src) or return 'jq';
	my $d = $doc->[0];
	return 'jq' unless ref $d eq 'HASH' && ref $d->{error} eq 'HASH';
	my $e = $d->{error};
	return 'jq' unless (scalar_json($d->{jsonrpc}) // '') eq '"2.0"';
	return 'jq' unless (scalar_json($e->{code}) // '') eq $code;
	my $m = $e->{message};
	return 'jq' unless defined $m && !ref $m &&
		!(B::svref_2object(\$m)->FLAGS & (B::SVp_IOK | B::SVp_NOK)) && length $m;
	return 'jq' if exists $d->{result};
	return 'jq' if $id ne '' && (scalar_json($d->{id}) // '') ne $id;
	return 'ok';
}

sub write_file {
	my ($name, $mode, @data) = @_;
	open my $f, $mode, $name or die "mcp-client.pl: $name: $!\n";
	binmode $f;
	print {$f} @data;
	close $f or die "mcp-client.pl: $name: $!\n";
}

binmode STDIN;
binmode STDOUT;
while (my $line = <STDIN>) {
	chomp $line;
	if ($line =~ /^TEXT\t(ok|error)\t([^\t]*)\t([^\t]*)$/) {
		print result_text($1, $2, $3), "\n";
		next;
	}
	if ($line =~ /^SORTED\t([^\t]*)\t([^\t]*)$/) {
		print sorted($1, $2), "\n";
		next;
	}
	if ($line =~ /^RPCERROR\t([^\t]*)\t(-?(?:0|[1-9][0-9]{0,14}))\t([^\t]*)$/) {
		print rpc_error($1, $2, $3), "\n";
		next;
	}
	if ($line =~ /^(J?)VALUE\t([^\t]*)\t((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/) {
		print value($2, $3, $1 eq 'J'), "\n";
		next;
	}
	my ($method, $path, $src, $out, $log, @headers) = split /\t/, $line;
	my $data = '';
	if ($src ne '') {
		open my $f, '<', $src or die "mcp-client.pl: $src: $!\n";
		binmode $f;
		local $/;
		$data = <$f> // '';
		close $f;
	}
	my $req = "$method $path HTTP/1.1\r\nHost: $host:$port\r\nUser-Agent: forgemcp-tests\r\n";
	for (@headers) {
		$req .= "$_\r\n" unless /^[^:]+:\s*$/;
	}
	$req .= "Content-Length: " . length($data) . "\r\n"
		if $src ne '' || $method =~ /^(POST|PUT|PATCH)$/;
	$req .= "\r\n$data";
	my @r = $conn->request($req, $method);
	unlink "$out.status", "$out.headers", "$out.headers.raw", "$out.body";
	if (!@r) {
		write_file("$out.status", '>', '000');
		print "000\n";
		next;
	}
	my ($status, $raw, $body) = @r;
	(my $headers = $raw) =~ s/\r//g;
	write_file("$out.status", '>', $status);
	write_file("$out.headers.raw", '>', $raw);
	write_file("$out.headers", '>', $headers);
	write_file("$out.body", '>', $body);
	write_file($log, '>>', "### $method -> $status\n", $headers, $body, "\n");
	print "$status\n";
}
