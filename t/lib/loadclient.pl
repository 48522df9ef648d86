#!/usr/bin/perl
# loadclient.pl: a small HTTP client for the fault tests (t80xx).
#
# Sends JSON-RPC POSTs to one URL over CONNS keep-alive connections (one
# process each) until a stop file appears or COUNT requests per connection
# were sent, and writes one tab-separated line per answer:
#
#   conn seq start end status retry_after content_type kind code detail
#
#   start, end  seconds since the epoch (float) around the request
#   kind        result | iserror | rpcerror | nonjson | empty | transport
#   code        the JSON-RPC error code for rpcerror, else "-"
#   detail      "issue:<number>" for a create_issue, "comment:<id>" for an
#               add_issue_comment that succeeded, the message of an
#               error, or "-"
#
# The bodies come from a file of JSON-RPC bodies, one per line, sent in
# turn; "@SEQ@" in a body is replaced by "<conn>-<seq>" so that each write
# can be told apart.  A body whose params carry the 2026-07-28 _meta gets the
# MCP-Protocol-Version, Mcp-Method and Mcp-Name headers that era requires.
#
# usage: loadclient.pl --url URL --token T --bodies FILE --out PREFIX
#            [--conns N] [--count N] [--stop FILE] [--timeout S] [--pause S]
# Output goes to PREFIX.<conn>.  Exit 0 unless the arguments are bad.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use Getopt::Long;
use HTTP::Tiny;
use JSON::PP;
use Time::HiRes qw(time sleep);

my ($url, $token, $bodies, $out);
my ($conns, $count, $stop, $timeout, $pause) = (1, 0, '', 10, 0);
GetOptions('url=s' => \$url, 'token=s' => \$token, 'bodies=s' => \$bodies,
    'out=s' => \$out, 'conns=i' => \$conns, 'count=i' => \$count, 'stop=s' => \$stop,
    'timeout=f' => \$timeout, 'pause=f' => \$pause) or exit 2;
defined $url && defined $bodies && defined $out or die "loadclient: --url, --bodies and --out are required\n";

open my $bf, '<', $bodies or die "loadclient: $bodies: $!\n";
my @body = grep { /\S/ } map { chomp; $_ } <$bf>;
close $bf;
@body or die "loadclient: no bodies in $bodies\n";

my $json = JSON::PP->new->utf8->allow_nonref;

# The era's extra headers and the tool of each body.
my (@extra, @tool);
for my $b (@body) {
	my $doc = eval { $json->decode($b) };
	my %x;
	my $p = ref $doc eq 'HASH' ? $doc->{params} : undef;
	push @tool, ref $p eq 'HASH' && defined $p->{name} ? $p->{name} : '-';
	if (ref $p eq 'HASH' && ref $p->{_meta} eq 'HASH') {
		$x{'MCP-Protocol-Version'} = $p->{_meta}{'io.modelcontextprotocol/protocolVersion'};
		$x{'Mcp-Method'} = $doc->{method};
		$x{'Mcp-Name'} = $p->{name} if defined $p->{name};
	}
	push @extra, \%x;
}

sub clean {
	my $s = shift // '-';
	$s =~ s/[\t\r\n]+/ /g;
	return length $s ? substr($s, 0, 200) : '-';
}

# What the answer says: kind, code, detail.
sub classify {
	my ($tool, $content) = @_;
	return ('empty', '-', '-') if !defined $content || $content eq '';
	my $doc = eval { $json->decode($content) };
	return ('nonjson', '-', clean($content)) unless ref $doc eq 'HASH';
	if (exists $doc->{error}) {
		my $e = $doc->{error};
		return ('rpcerror', ref $e eq 'HASH' ? ($e->{code} // '-') : '-',
		    clean(ref $e eq 'HASH' ? $e->{message} : undef));
	}
	my $r = $doc->{result};
	return ('nonjson', '-', 'no result') unless ref $r eq 'HASH';
	my $text = ref $r->{content} eq 'ARRAY' && ref $r->{content}[0] eq 'HASH' ?
	    $r->{content}[0]{text} : undef;
	return ('iserror', '-', clean($text)) if $r->{isError};
	my $detail = '-';
	if (defined $text && $text =~ /^\{/) {
		my $t = eval { $json->decode($text) };
		if (ref $t eq 'HASH') {
			$detail = "comment:$t->{id}" if $tool eq 'add_issue_comment' && defined $t->{id};
			$detail = "issue:$t->{number}" if $tool eq 'create_issue' && defined $t->{number};
		}
	}
	return ('result', '-', $detail);
}

sub client {
	my $c = shift;
	my $http = HTTP::Tiny->new(keep_alive => 1, timeout => $timeout);
	my %h = ('Content-Type' => 'application/json',
	    'Accept' => 'application/json, text/event-stream');
	$h{Authorization} = "Bearer $token" if defined $token && $token ne '';
	open my $o, '>', "$out.$c" or die "loadclient: $out.$c: $!\n";
	$o->autoflush(1);
	for (my $seq = 1; ; $seq++) {
		last if $count && $seq > $count;
		last if $stop ne '' && -e $stop;
		my $i = ($seq - 1 + $c) % @body;
		my $b = $body[$i];
		$b =~ s/\@SEQ\@/$c-$seq/g;
		my $t0 = time;
		my $r = $http->request('POST', $url,
		    { headers => { %h, %{ $extra[$i] } }, content => $b });
		my $t1 = time;
		my ($kind, $code, $detail);
		if ($r->{status} == 599) {
			($kind, $code, $detail) = ('transport', '-', clean($r->{content}));
		} else {
			($kind, $code, $detail) = classify($tool[$i], $r->{content});
		}
		printf $o "%d\t%d\t%.4f\t%.4f\t%d\t%s\t%s\t%s\t%s\t%s\n", $c, $seq, $t0, $t1,
		    $r->{status}, $r->{headers}{'retry-after'} // '-',
		    clean($r->{headers}{'content-type'}), $kind, $code, $detail;
		sleep $pause if $pause > 0;
	}
	close $o;
}

my @kids;
for my $c (1 .. $conns) {
	my $pid = fork;
	die "loadclient: fork: $!\n" unless defined $pid;
	if ($pid == 0) {
		client($c);
		exit 0;
	}
	push @kids, $pid;
}
waitpid $_, 0 for @kids;
exit 0;
