# KeepAlive.pm: the one keep-alive HTTP/1.1 connection of mcp-client.pl and
# http-client.pl: opened on demand, reopened when the server closed it, the
# answer read with chunked encoding undone (nothing decompressed).
#
# Licensed under the ISC license, see LICENSE.
package KeepAlive;
use strict;
use warnings;
use IO::Socket::INET;

$SIG{PIPE} = 'IGNORE';

sub new {
	my ($class, $host, $port) = @_;
	return bless { host => $host, port => $port, sock => undef }, $class;
}

sub connect_ {
	my ($self) = @_;
	my $s = IO::Socket::INET->new(PeerAddr => $self->{host}, PeerPort => $self->{port},
	    Proto => 'tcp', Timeout => 10);
	binmode $s if $s;
	return $self->{sock} = $s;
}

# Reads exactly $n bytes (fewer at EOF).
sub read_n {
	my ($sock, $n) = @_;
	my $buf = '';
	while (length $buf < $n) {
		my $got = read($sock, my $part, $n - length $buf);
		last unless $got;
		$buf .= $part;
	}
	return $buf;
}

# One exchange on the open connection: (status, raw headers, body, close),
# or () when the connection turned out to be dead before any answer.
sub exchange {
	my ($sock, $req, $method) = @_;
	print {$sock} $req or return ();
	my $line = <$sock>;
	return () unless defined $line;
	my ($status) = $line =~ /^HTTP\/\d\.\d (\d{3})/ or return ('000', $line, '', 1);
	my $raw = $line;
	my (%h, $body);
	while (defined(my $hl = <$sock>)) {
		$raw .= $hl;
		$hl =~ s/\r?\n\z//;
		last if $hl eq '';
		my ($k, $v) = split /:\s*/, $hl, 2;
		$h{lc $k} = $v // '';
	}
	if ($method eq 'HEAD' || $status =~ /^(1|204|304)/) {
		$body = '';
	} elsif (($h{'transfer-encoding'} // '') =~ /chunked/i) {
		$body = '';
		while (defined(my $size = <$sock>)) {
			my $n = hex(($size =~ /^([0-9a-fA-F]+)/)[0] // 0);
			if ($n == 0) {
				while (defined(my $t = <$sock>)) { last if $t =~ /^\r?\n\z/ }
				last;
			}
			$body .= read_n($sock, $n);
			<$sock>;
		}
	} elsif (defined $h{'content-length'}) {
		$body = read_n($sock, $h{'content-length'});
	} else {
		local $/;
		$body = <$sock> // '';
		$h{connection} = 'close';
	}
	return ($status, $raw, $body, lc($h{connection} // '') eq 'close');
}

# Sends the whole request $req (method $method) and reads its answer, on a
# fresh connection when the kept one turns out dead: (status, raw headers,
# body), or () when no answer could be had.
sub request {
	my ($self, $req, $method) = @_;
	my @r;
	for my $try (1, 2) {
		$self->{sock} = undef if $try == 2;
		$self->{sock} // $self->connect_() or last;
		@r = exchange($self->{sock}, $req, $method);
		last if @r;
	}
	if (!@r) {
		$self->{sock} = undef;
		return ();
	}
	$self->{sock} = undef if pop @r;
	return @r;
}

1;
