# t/lib/FastCGIRecords.pm: the FastCGI records a web server sends and the
# reading of an answer, for the scripts that talk FastCGI to forgemcp
# themselves (t/lib/fcgi-client.pl, t/perf/startup.pl).
package FastCGIRecords;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(fcgi_record fcgi_request fcgi_read_answer);

# One record of TYPE with DATA, request id 1.
sub fcgi_record {
	my ($type, $data) = @_;
	pack('CCnnCC', 1, $type, 1, length $data, 0, 0) . $data;
}

sub fcgi_len { my $n = shift; $n < 128 ? pack('C', $n) : pack('N', $n | 0x80000000) }

# FCGI_BEGIN_REQUEST (responder; FCGI_KEEP_CONN when KEEP), the NAME=VALUE
# pairs plus CONTENT_LENGTH, and BODY as stdin; the empty record that ends
# stdin only if WITH_EOF.
sub fcgi_request {
	my ($params, $body, $with_eof, $keep) = @_;
	my $pairs = join '', map {
		my ($n, $v) = split /=/, $_, 2;
		fcgi_len(length $n) . fcgi_len(length $v) . $n . $v
	} @$params, 'CONTENT_LENGTH=' . length $body;
	fcgi_record(1, pack('nCx5', 1, $keep ? 1 : 0)) . fcgi_record(4, $pairs) . fcgi_record(4, '') .
		($body eq '' ? '' : fcgi_record(5, $body)) .
		($with_eof ? fcgi_record(5, '') : '');
}

# Reads from SOCK until FCGI_END_REQUEST or the end of the connection.
# Returns the stdout stream and whether FCGI_END_REQUEST came; dies on a
# read error.
sub fcgi_read_answer {
	my ($sock) = @_;
	my ($buf, $out, $ended) = ('', '', 0);
	while (!$ended) {
		my $n = sysread($sock, $buf, 65536, length $buf);
		die "read: $!\n" unless defined $n;
		last if $n == 0;
		while (length $buf >= 8) {
			my ($v, $type, $id, $clen, $plen) = unpack('CCnnC', $buf);
			last if length $buf < 8 + $clen + $plen;
			$out .= substr($buf, 8, $clen) if $type == 6;
			$ended = 1 if $type == 3;
			substr($buf, 0, 8 + $clen + $plen) = '';
		}
	}
	return ($out, $ended);
}

1;
