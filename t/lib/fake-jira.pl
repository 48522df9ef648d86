#!/usr/bin/perl
# fake-jira.pl: a Jira Server/Data Center REST server (API 2 and Agile 1.0)
# on 127.0.0.1 for the tests of the Jira agent backend.  Its projects,
# boards, sprints and issues live in memory, so a write changes what the
# next read answers; connections are served one at a time.
#
# Usage: fake-jira.pl --state FILE.json --port-file FILE --log FILE [--auth USER:TOKEN]
#
# FILE.json holds the starting state: statuses (names; an id is the 1-based
# index), fields, linkTypes, projects, boards (with columns), sprints and
# issues (in Rank order, each with its comments, attachments, links and
# changelog).  An attachment has either bytes_base64 or generated_size, N
# bytes of byte i = i % 251 made while they are sent.  A link
# {"type":"Blocks","outward":"AUR-2"} says its issue blocks AUR-2.
#
# Served: /rest/api/2/ field, status, issueLinkType, issue (create, read,
# edit), issue/K/transitions, issueLink, issue/K/attachments, attachment/ID,
# search (JQL: labels = X, key in (...) of existing keys and updated >=
# "YYYY-MM-DD HH:MM" read as UTC, joined by AND, then ORDER BY Rank);
# /rest/agile/1.0/ board/ID, board/ID/configuration, board/ID/sprint, sprint
# (create, update), sprint/ID/issue, issue/rank; /secure/attachment/ID/NAME.
# Lists hold at most 50 a page; a search's issue holds at most 50 comments and 100
# histories (with their totals), the rest read with issue/KEY/comment (paged)
# and issue/KEY?expand=changelog.  An edit or transition appends one changelog history, an
# item for each field it changed; a new attachment or a move between sprints
# only sets the issue's updated time.  With --auth, /rest/ and /secure/ need
# "Authorization: Basic base64(USER:TOKEN)" or "Bearer TOKEN", else 401; a
# change's author is USER (else "anonymous").  A body over 10 MiB gets 413.
#
# Test control (neither logged nor authenticated):
#   POST /_fake/fail {"path":P,"mode":M,"count":N,"retry_after":S}: the next
#     N requests whose path starts with P fail with M: 429 (Retry-After S),
#     500 (HTML), garbage (truncated JSON), cut (the status line and part of
#     the headers, then close), redirect (302 to 127.0.0.2:1), oversize
#     (/secure/attachment/ only: twice the recorded size), hang (30 s, then close)
#   POST /_fake/reset-fail   forgets pending failures
#   GET /_fake/state         the state in FILE.json's shape (attachments with
#                            their size, links with their id)
#   GET /_fake/requests      {"count":N}, the /rest/ and /secure/ requests so far
# Each other request appends "METHOD PATH -> STATUS" to the log (never the
# query, a header or a body; "cut" or "hang" stands for the status of those
# failures).  SIGTERM stops the server.
#
# Licensed under the ISC license, see LICENSE.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use FakeServer;
use JSON::PP ();
use MIME::Base64 ();
use POSIX ();
use Time::Local ();

my ($state_file, $port_file, $log, $auth);
while (@ARGV) {
	my $a = shift @ARGV;
	if ($a eq '--state') { $state_file = shift @ARGV }
	elsif ($a eq '--port-file') { $port_file = shift @ARGV }
	elsif ($a eq '--log') { $log = shift @ARGV }
	elsif ($a eq '--auth') { $auth = shift @ARGV }
	else { die "fake-jira.pl: unknown argument $a\n" }
}
die "usage: fake-jira.pl --state FILE.json --port-file FILE --log FILE [--auth USER:TOKEN]\n"
    unless defined $state_file && defined $port_file && defined $log;

my $J = JSON::PP->new->utf8->canonical;
my $JTYPE = 'application/json;charset=UTF-8';
my $MAX_BODY = 10 * 1024 * 1024;
my $USER = defined $auth ? (split /:/, $auth, 2)[0] : 'anonymous';
my $S = do {
	open my $fh, '<:raw', $state_file or die "fake-jira.pl: $state_file: $!\n";
	local $/;
	$J->decode(scalar <$fh>);
};
$S->{$_} ||= [] for qw(statuses fields linkTypes projects boards sprints issues);
my ($SP, $SPRINT);
for (@{$S->{fields}}) {
	$SP = $_->{id} if lc $_->{name} eq 'story points';
	$SPRINT = $_->{id} if lc $_->{name} eq 'sprint';
}
my $BLOCK = join '', map { chr($_ % 251) } 0 .. 251 * 256 - 1;
my (@fails, $requests);

my $server = FakeServer::listen('fake-jira.pl', $port_file);
my $BASE = 'http://127.0.0.1:' . $server->sockport;

$SIG{PIPE} = 'IGNORE';
$SIG{TERM} = $SIG{INT} = sub { POSIX::_exit(0) };

my %REASON = (200 => 'OK', 201 => 'Created', 204 => 'No Content', 302 => 'Found',
    400 => 'Bad Request', 401 => 'Unauthorized', 403 => 'Forbidden', 404 => 'Not Found',
    413 => 'Payload Too Large', 429 => 'Too Many Requests', 500 => 'Internal Server Error');
my $NO_ISSUE = 'Issue does not exist or you do not have permission to see it.';

sub now { POSIX::strftime('%Y-%m-%dT%H:%M:%S.000+0000', gmtime) }
sub now_agile { POSIX::strftime('%Y-%m-%dT%H:%M:%S.000+00:00', gmtime) }
sub maxnum { my $m = 0; for (@_) { $m = $_ if defined $_ && /^\d+$/ && $_ > $m } return $m }

sub same {
	my ($x, $y) = @_;
	return !defined $x && !defined $y if !defined $x || !defined $y;
	return join("\0", @$x) eq join("\0", @$y) if ref $x eq 'ARRAY' && ref $y eq 'ARRAY';
	return "$x" eq "$y";
}

# url_decode(S, PLUS): S with its %XX (and, unless PLUS is 0, its +) decoded, as UTF-8
sub url_decode {
	my ($s, $plus) = @_;
	$s =~ tr/+/ / unless defined $plus && !$plus;
	$s =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
	utf8::decode($s);
	return $s;
}

sub url_escape {
	my ($s) = @_;
	utf8::encode($s);
	$s =~ s/([^A-Za-z0-9\-._~])/sprintf('%%%02X', ord $1)/ge;
	return $s;
}

# --- state look-ups and the shapes Jira answers -------------------------

sub issue_by {
	my ($k) = @_;
	return undef unless defined $k && !ref $k;
	for (@{$S->{issues}}) { return $_ if $_->{key} eq uc $k || $_->{id} eq $k }
	return undef;
}

sub sprint_by {
	my ($id) = @_;
	return undef unless defined $id && $id =~ /^\d+$/;
	for (@{$S->{sprints}}) { return $_ if $_->{id} == $id }
	return undef;
}

sub board_by { my ($id) = @_; for (@{$S->{boards}}) { return $_ if $_->{id} == $id } return undef }
sub project_by { my ($k) = @_; for (@{$S->{projects}}) { return $_ if $_->{key} eq ($k // '') } return undef }
sub user_json { my ($n) = @_; return defined $n ? { name => $n, key => $n, displayName => $n } : undef }
sub status_json { my ($n) = @_; return { id => status_id($n) // '0', name => $n } }

sub status_id {
	my ($n) = @_;
	for my $i (0 .. $#{$S->{statuses}}) { return ($i + 1) . '' if $S->{statuses}[$i] eq $n }
	return undef;
}

sub link_type {
	my ($by, $v) = @_;
	my $t = $S->{linkTypes};
	for my $i (0 .. $#$t) {
		my $id = ($i + 1) . '';
		next unless defined $v && !ref $v && ($by eq 'id' ? $id eq $v : $t->[$i]{name} eq $v);
		return { id => $id, map {; $_ => $t->[$i]{$_} } qw(name inward outward) };
	}
	return undef;
}

sub attachment_json {
	my ($a) = @_;
	return { self => "$BASE/rest/api/2/attachment/$a->{id}", id => "$a->{id}",
	    filename => $a->{filename}, size => 0 + $a->{size}, mimeType => $a->{mimeType},
	    created => $a->{created}, author => user_json($a->{author}),
	    content => "$BASE/secure/attachment/$a->{id}/" . url_escape($a->{filename}) };
}

sub sprint_json {
	my ($s) = @_;
	my %o = (id => 0 + $s->{id}, self => "$BASE/rest/agile/1.0/sprint/$s->{id}",
	    state => $s->{state}, name => $s->{name}, originBoardId => 0 + $s->{boardId});
	for (qw(startDate endDate completeDate goal)) { $o{$_} = $s->{$_} if defined $s->{$_} }
	return \%o;
}

# The Sprint field as Jira Server sends it: the string form of its object.
sub sprint_string {
	my ($s) = @_;
	my $v = sub { $s->{$_[0]} // '<null>' };
	return sprintf('com.atlassian.greenhopper.service.sprint.Sprint@%x[id=%d,rapidViewId=%d,'
	    . 'state=%s,name=%s,startDate=%s,endDate=%s,completeDate=%s,sequence=%d,goal=%s]',
	    0x1a2b3c + $s->{id}, $s->{id}, $s->{boardId}, uc $s->{state}, $s->{name},
	    $v->('startDate'), $v->('endDate'), $v->('completeDate'), $s->{id}, $v->('goal'));
}

sub brief {
	my ($i) = @_;
	return { id => "$i->{id}", key => $i->{key}, self => "$BASE/rest/api/2/issue/$i->{id}",
	    fields => { summary => $i->{summary}, status => status_json($i->{status}),
	    issuetype => { name => $i->{type} } } };
}

# issue_json(ISSUE, CHANGELOG, CAPPED): as a search answers (CAPPED: at most 50
# comments and 100 histories, with their totals, as Jira's search caps them).
sub issue_json {
	my ($i, $changelog, $capped) = @_;
	my (@links, @comments);
	for my $j (@{$S->{issues}}) {
		for my $l (@{$j->{links}}) {
			my $t = link_type(name => $l->{type}) or next;
			if ($j == $i) {
				my $o = issue_by($l->{outward}) or next;
				push @links, { id => "$l->{id}", type => $t, outwardIssue => brief($o) };
			} elsif ($l->{outward} eq $i->{key}) {
				push @links, { id => "$l->{id}", type => $t, inwardIssue => brief($j) };
			}
		}
	}
	for my $c (@{$i->{comments}}) {
		push @comments, { id => "$c->{id}", author => user_json($c->{author}),
		    updateAuthor => user_json($c->{author}), body => $c->{body},
		    created => $c->{created}, updated => $c->{updated} // $c->{created} };
	}
	my ($pk) = $i->{key} =~ /^(.*)-\d+$/;
	my $p = project_by($pk);
	my %f = (summary => $i->{summary}, description => $i->{description},
	    issuetype => { name => $i->{type} }, status => status_json($i->{status}),
	    project => { key => $pk, name => $p ? $p->{name} : $pk },
	    priority => defined $i->{priority} ? { name => $i->{priority} } : undef,
	    assignee => user_json($i->{assignee}), reporter => user_json($i->{reporter}),
	    duedate => $i->{due}, created => $i->{created}, updated => $i->{updated},
	    labels => [@{$i->{labels}}], issuelinks => \@links,
	    comment => { comments => [$capped && @comments > 50 ? @comments[0 .. 49] : @comments],
	    maxResults => $capped && @comments > 50 ? 50 : scalar @comments,
	    total => scalar @comments, startAt => 0 },
	    attachment => [map { attachment_json($_) } @{$i->{attachments}}]);
	$f{$SP} = defined $i->{story_points} ? 0 + $i->{story_points} : undef if defined $SP;
	if (defined $SPRINT) {
		my $s = sprint_by($i->{sprint});
		$f{$SPRINT} = $s ? [sprint_string($s)] : undef;
	}
	my %o = (id => "$i->{id}", key => $i->{key}, self => "$BASE/rest/api/2/issue/$i->{id}",
	    fields => \%f);
	if ($changelog) {
		my @h = map { +{ id => "$_->{id}", author => user_json($_->{author}),
		    created => $_->{created}, items => $_->{items} } } @{$i->{changelog}};
		my $n = scalar @h;
		@h = @h[0 .. 99] if $capped && @h > 100;
		$o{changelog} = { startAt => 0, maxResults => scalar @h, total => $n,
		    histories => \@h };
	}
	return \%o;
}

# The state with its numbers as numbers and its ids as strings again.
sub state_json {
	for (@{$S->{boards}}) { $_->{id} = 0 + $_->{id} }
	for (@{$S->{sprints}}) { $_->{id} = 0 + $_->{id}; $_->{boardId} = 0 + $_->{boardId} }
	for my $i (@{$S->{issues}}) {
		$i->{id} = "$i->{id}";
		$i->{$_} = defined $i->{$_} ? 0 + $i->{$_} : undef for qw(sprint story_points);
		for (@{$i->{attachments}}) {
			$_->{size} = 0 + $_->{size};
			$_->{generated_size} = 0 + $_->{generated_size} if defined $_->{generated_size};
		}
		$_->{id} = "$_->{id}" for map { @{$i->{$_}} } qw(attachments comments changelog links);
	}
	return $S;
}

# Issues as this server keeps them: every list present, a link on its
# outward side with an id, an attachment with its size.
{
	my $link_id = 20000;
	for my $i (@{$S->{issues}}) { $i->{$_} ||= [] for qw(labels comments attachments links changelog) }
	for my $i (@{$S->{issues}}) {
		for my $l (@{$i->{links}}) {
			next unless defined $l->{inward} && !defined $l->{outward};
			my $o = issue_by($l->{inward}) or next;
			push @{$o->{links}}, { type => $l->{type}, outward => $i->{key} };
			$l->{drop} = 1;
		}
	}
	for my $i (@{$S->{issues}}) {
		$i->{links} = [grep { !$_->{drop} } @{$i->{links}}];
		$_->{id} //= ++$link_id . '' for @{$i->{links}};
		for my $a (@{$i->{attachments}}) {
			$a->{size} = defined $a->{generated_size} ? $a->{generated_size}
			    : length MIME::Base64::decode_base64($a->{bytes_base64} // '');
			$a->{mimeType} //= 'application/octet-stream';
		}
	}
}

# --- answering ------------------------------------------------------------

sub send_raw {
	my ($r, $st, $type, $body, @h) = @_;
	$r->{status} = $st;
	my $head = "HTTP/1.1 $st $REASON{$st}\r\n";
	$head .= "Content-Type: $type\r\n" if defined $type;
	$head .= 'Content-Length: ' . length($body) . "\r\n" unless $st == 204;
	$head .= "$_\r\n" for @h;
	print { $r->{c} } $head, "Connection: close\r\n\r\n", $st == 204 ? '' : $body;
	return;
}

sub send_json { my ($r, $st, $d) = @_; send_raw($r, $st, $JTYPE, defined $d ? $J->encode($d) : '') }
sub jerr { my ($r, $st, @m) = @_; send_json($r, $st, { errorMessages => [@m], errors => {} }) }
sub ferr { my ($r, $f, $m) = @_; send_json($r, 400, { errorMessages => [], errors => { $f => $m } }) }
sub body_json { my ($r) = @_; my $b = eval { $J->decode($r->{body}) }; return ref $b eq 'HASH' ? $b : undef }
sub bad_body { my ($r) = @_; jerr($r, 400, 'Could not read the JSON body') }

# page(QUERY, N): startAt, maxResults (at most 50) and the indexes of that page of N
sub page {
	my ($q, $n) = @_;
	my $start = ($q->{startAt} // '') =~ /^\d+$/ ? 0 + $q->{startAt} : 0;
	my $max = ($q->{maxResults} // '') =~ /^\d+$/ ? 0 + $q->{maxResults} : 50;
	$max = 50 if $max > 50;
	my $end = $start + $max > $n ? $n : $start + $max;
	return ($start, $max, $start < $end ? ($start .. $end - 1) : ());
}

# download(R, ATTACHMENT, TIMES): the attachment's bytes, TIMES over
sub download {
	my ($r, $a, $times) = @_;
	my $size = $a->{size} * $times;
	my $c = $r->{c};
	$r->{status} = 200;
	print $c "HTTP/1.1 200 OK\r\nContent-Type: $a->{mimeType}\r\nContent-Length: $size\r\n",
	    "Connection: close\r\n\r\n" or return;
	if (defined $a->{generated_size}) {
		for (my $left = $size; $left > 0; $left -= length $BLOCK) {
			print $c ($left < length $BLOCK ? substr($BLOCK, 0, $left) : $BLOCK) or return;
		}
	} else {
		print $c MIME::Base64::decode_base64($a->{bytes_base64} // '') x $times;
	}
}

# --- API 2 ------------------------------------------------------------------

# The fields an edit sets: [field id, state key, changelog field, fieldtype,
# the state value of a JSON value, (from, fromString) of a state value].
my $as_is = sub { $_[0] };
my $name_of = sub { ref $_[0] eq 'HASH' ? $_[0]{name} : undef };
my $text = sub { (undef, $_[0]) };
my $both = sub { ($_[0], $_[0]) };
my @EDIT = (['summary', 'summary', 'summary', 'jira', $as_is, $text],
    ['description', 'description', 'description', 'jira', $as_is, $text],
    ['assignee', 'assignee', 'assignee', 'jira', $name_of, $both],
    ['priority', 'priority', 'priority', 'jira', $name_of, $both],
    ['duedate', 'due', 'duedate', 'jira', $as_is, $both],
    ['labels', 'labels', 'labels', 'jira', sub { ref $_[0] eq 'ARRAY' ? [@{$_[0]}] : [] },
	sub { (undef, join ' ', @{$_[0] || []}) }]);
push @EDIT, [$SP, 'story_points', 'Story Points', 'custom', $as_is, $text] if defined $SP;
push @EDIT, [$SPRINT, 'sprint', 'Sprint', 'custom', sub { ref $_[0] eq 'ARRAY' ? $_[0][0] : $_[0] },
    sub { my $s = sprint_by($_[0]); $s ? ("$s->{id}", $s->{name}) : (undef, undef) }] if defined $SPRINT;
my %EDIT = map { $_->[0] => $_ } @EDIT;

# field_error(ID, VALUE): why field ID cannot be set to VALUE, or undef
sub field_error {
	my ($id, $raw) = @_;
	my $e = $EDIT{$id}
	    or return "Field '$id' cannot be set. It is not on the appropriate screen, or unknown.";
	my $v = $e->[4]->($raw);
	return 'You must specify a summary of the issue.'
	    if $id eq 'summary' && !(defined $v && !ref $v && $v =~ /\S/);
	return "Could not find a valid 'name' in the value of $id"
	    if $id =~ /^(?:assignee|priority)$/ && defined $raw && !(defined $v && !ref $v);
	return "Error parsing date string: $v" if $id eq 'duedate' && defined $v && $v !~ /^\d{4}-\d\d-\d\d$/;
	return 'The labels must be a list of words.'
	    if $id eq 'labels' && (ref $raw ne 'ARRAY' || grep { !defined || ref || !/^\S+$/ } @$v);
	return 'Operation value must be a number'
	    if $e->[1] eq 'story_points' && defined $v && (ref $v || $v !~ /^-?\d+(?:\.\d+)?$/);
	return "Sprint with id '$v' does not exist" if $e->[1] eq 'sprint' && defined $v && !sprint_by($v);
	return undef;
}

# check_fields(R, FIELDS, SKIP...): true, or false when it answered 400
sub check_fields {
	my ($r, $f, @skip) = @_;
	my %skip = map { $_ => 1 } @skip;
	for my $id (sort keys %$f) {
		next if $skip{$id};
		my $err = field_error($id, $f->{$id});
		if (defined $err) { ferr($r, $id, $err); return 0 }
	}
	return 1;
}

# set_fields(ISSUE, FIELDS): the changelog items of what changed.
sub set_fields {
	my ($i, $f) = @_;
	my @items;
	for my $e (@EDIT) {
		next unless exists $f->{$e->[0]};
		my $new = $e->[4]->($f->{$e->[0]});
		$new = 0 + $new if defined $new && $e->[1] =~ /^(?:story_points|sprint)$/;
		my $old = $i->{$e->[1]};
		next if same($old, $new);
		my ($from, $fromS) = $e->[5]->($old);
		$i->{$e->[1]} = $new;
		my ($to, $toS) = $e->[5]->($new);
		push @items, { field => $e->[2], fieldtype => $e->[3], from => $from, to => $to,
		    fromString => defined $fromS ? "$fromS" : undef,
		    toString => defined $toS ? "$toS" : undef };
	}
	return @items;
}

sub history {
	my ($i, @items) = @_;
	return unless @items;
	my $id = maxnum(map { map { $_->{id} } @{$_->{changelog}} } @{$S->{issues}}) + 1;
	push @{$i->{changelog}}, { id => "$id", author => $USER, created => now(), items => \@items };
	$i->{updated} = now();
}

sub create_issue {
	my ($r) = @_;
	my $b = body_json($r) or return bad_body($r);
	my $f = ref $b->{fields} eq 'HASH' ? $b->{fields} : {};
	my $p = ref $f->{project} eq 'HASH' ? project_by($f->{project}{key}) : undef;
	return ferr($r, 'project', 'project is required') unless $p;
	return ferr($r, 'summary', 'You must specify a summary of the issue.')
	    unless defined $f->{summary} && !ref $f->{summary} && $f->{summary} =~ /\S/;
	my $type = ref $f->{issuetype} eq 'HASH' ? $f->{issuetype}{name} : undef;
	return ferr($r, 'issuetype', 'issue type is required') unless defined $type && $type =~ /\S/;
	check_fields($r, $f, qw(project issuetype)) or return;
	my $id = (maxnum(map { $_->{id} } @{$S->{issues}}) || 10000) + 1;
	my $n = maxnum(map { $_->{key} =~ /^\Q$p->{key}\E-(\d+)$/ ? $1 : 0 } @{$S->{issues}}) + 1;
	my $i = { id => "$id", key => "$p->{key}-$n", type => $type, status => $S->{statuses}[0],
	    reporter => $USER, created => now(), updated => now(),
	    (map {; $_ => undef } qw(summary description priority assignee due story_points sprint)),
	    (map {; $_ => [] } qw(labels comments attachments links changelog)) };
	set_fields($i, $f);
	push @{$S->{issues}}, $i;
	send_json($r, 201, { id => "$id", key => $i->{key}, self => "$BASE/rest/api/2/issue/$id" });
}

sub edit_issue {
	my ($r, $i) = @_;
	my $b = body_json($r) or return bad_body($r);
	return jerr($r, 400, 'The "update" operations are not supported by this server')
	    if ref $b->{update} eq 'HASH' && %{$b->{update}};
	my $f = ref $b->{fields} eq 'HASH' ? $b->{fields} : {};
	check_fields($r, $f) or return;
	history($i, set_fields($i, $f));
	send_raw($r, 204);
}

sub transitions {
	my ($i) = @_;
	return map { +{ id => status_id($_), name => "\x{2192} $_", to => status_json($_) } }
	    grep { $_ ne $i->{status} } @{$S->{statuses}};
}

sub transition {
	my ($r, $i) = @_;
	my $b = body_json($r) or return bad_body($r);
	my $id = ref $b->{transition} eq 'HASH' ? $b->{transition}{id} // '' : '';
	my ($t) = grep { $_->{id} eq $id } transitions($i);
	return jerr($r, 400, "Transition id '$id' is not valid for this issue.") unless $t;
	my $old = $i->{status};
	$i->{status} = $t->{to}{name};
	history($i, { field => 'status', fieldtype => 'jira', from => status_id($old), fromString => $old,
	    to => $t->{to}{id}, toString => $t->{to}{name} });
	send_raw($r, 204);
}

sub issue_link {
	my ($r) = @_;
	my $b = body_json($r) or return bad_body($r);
	my $t = ref $b->{type} eq 'HASH' ? $b->{type} : {};
	my $type = defined $t->{name} ? link_type(name => $t->{name}) : link_type(id => $t->{id});
	return jerr($r, 404, "No issue link type with name '" . ($t->{name} // $t->{id} // '') . "' found.")
	    unless $type;
	my ($in, $out) = map { ref $b->{$_} eq 'HASH' ? issue_by($b->{$_}{key} // $b->{$_}{id}) : undef }
	    qw(inwardIssue outwardIssue);
	return jerr($r, 404, 'Issue Does Not Exist') unless $in && $out;
	unless (grep { $_->{type} eq $type->{name} && $_->{outward} eq $in->{key} } @{$out->{links}}) {
		my $id = maxnum(map { map { $_->{id} } @{$_->{links}} } @{$S->{issues}}) + 1;
		push @{$out->{links}}, { id => "$id", type => $type->{name}, outward => $in->{key} };
	}
	send_raw($r, 201, $JTYPE, '');
}

sub upload {
	my ($r, $i) = @_;
	return send_raw($r, 403, 'text/plain;charset=UTF-8', 'XSRF check failed')
	    unless lc($r->{h}{'x-atlassian-token'} // '') eq 'no-check';
	my ($bd) = ($r->{h}{'content-type'} // '') =~ m{^multipart/form-data;.*\bboundary="?([^";]+)"?}i;
	return jerr($r, 400, 'The request is not multipart/form-data') unless defined $bd;
	my @new;
	for my $part (split /\r\n--\Q$bd\E/, "\r\n$r->{body}") {
		last if $part =~ /^--/;
		$part =~ s/^\r\n//;
		my ($head, $content) = split /\r\n\r\n/, $part, 2;
		next unless defined $content && $head =~ /^Content-Disposition:\s*form-data(.*)$/mi;
		my $cd = $1;
		next unless $cd =~ /;\s*name\s*=\s*"?file"?\s*(?:;|$)/mi;
		my $name;
		if ($cd =~ /;\s*filename\*\s*=\s*UTF-8''([^;\s]+)/i) {
			$name = url_decode($1, 0);
		} elsif ($cd =~ /;\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s"]+))/i) {
			($name = $1 // $2) =~ s/\\(.)/$1/g;
			utf8::decode($name);
		}
		$name = 'file' unless defined $name && length $name;
		my ($type) = $head =~ /^Content-Type:\s*([^\r\n]+?)\s*$/mi;
		my $id = maxnum(map { map { $_->{id} } @{$_->{attachments}} } @{$S->{issues}}) + 1;
		my $a = { id => "$id", filename => $name, mimeType => $type // 'application/octet-stream',
		    author => $USER, created => now(), size => length $content,
		    bytes_base64 => MIME::Base64::encode_base64($content, '') };
		push @{$i->{attachments}}, $a;
		push @new, attachment_json($a);
	}
	return jerr($r, 400, 'No file was sent in a part named "file".') unless @new;
	$i->{updated} = now();
	send_json($r, 200, \@new);
}

sub attachment_by {
	my ($id) = @_;
	for my $i (@{$S->{issues}}) { for (@{$i->{attachments}}) { return $_ if $_->{id} eq $id } }
	return undef;
}

sub epoch {
	my ($t) = @_;
	my ($y, $mo, $d, $h, $mi, $s, $sg, $oh, $om) = $t =~
	    /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:([+-])(\d\d):?(\d\d))?/ or return 0;
	my $e = Time::Local::timegm($s, $mi, $h, $d, $mo - 1, $y);
	$e -= ($sg eq '-' ? -1 : 1) * ($oh * 3600 + $om * 60) if defined $sg;
	return $e;
}

# jql(TEXT): the issues TEXT selects, in order, or the text of its error.
sub jql {
	my ($q) = @_;
	my @is = @{$S->{issues}};
	my $word = qr/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s"'(),]+)/;
	my $when = qr/["'](\d{4})[-\/](\d\d)[-\/](\d\d)(?:\s+(\d\d):(\d\d))?["']/;
	$q =~ s/^\s+//;
	while (length $q && $q !~ /^ORDER\s+BY\b/i) {
		if ($q =~ s/^labels\s*=\s*$word\s*//i) {
			(my $l = $1 // $2 // $3) =~ s/\\(.)/$1/g;
			@is = grep { grep { $_ eq $l } @{$_->{labels}} } @is;
		} elsif ($q =~ s/^key\s+in\s*\(([^)]*)\)\s*//i) {
			my %want;
			for (split /,/, $1) {
				my ($k) = /^\s*["']?([^"'\s]+)["']?\s*$/
				    or return 'Error in the JQL Query: bad key list';
				my $i = issue_by($k)
				    or return "An issue with key '$k' does not exist for field 'key'.";
				$want{$i} = 1;
			}
			@is = grep { $want{$_} } @is;
		} elsif ($q =~ s/^updated\s*>=\s*$when\s*//i) {
			my $since = Time::Local::timegm(0, $5 // 0, $4 // 0, $3, $2 - 1, $1);
			@is = grep { epoch($_->{updated}) >= $since } @is;
		} else {
			return "Error in the JQL Query: unsupported clause at '" . substr($q, 0, 40) . "'";
		}
		last unless $q =~ s/^AND\s+//i;
	}
	@is = reverse @is if $q =~ s/^ORDER\s+BY\s+Rank(?:\s+(ASC|DESC))?\s*//i && uc($1 // '') eq 'DESC';
	return "Error in the JQL Query: unexpected '" . substr($q, 0, 40) . "'" if length $q;
	return \@is;
}

sub search {
	my ($r, $q) = @_;
	my $is = jql($q->{jql} // '');
	return jerr($r, 400, $is) unless ref $is;
	my ($start, $max, @n) = page($q, scalar @$is);
	my $cl = ($q->{expand} // '') =~ /\bchangelog\b/;
	send_json($r, 200, { expand => 'names,schema', startAt => $start, maxResults => $max,
	    total => scalar @$is, issues => [map { issue_json($is->[$_], $cl, 1) } @n] });
}

# --- Agile 1.0 ----------------------------------------------------------------

sub board_json {
	my ($bd) = @_;
	my $p = project_by($bd->{projectKey});
	return { id => 0 + $bd->{id}, self => "$BASE/rest/agile/1.0/board/$bd->{id}",
	    name => $bd->{name}, type => $bd->{type},
	    location => { projectKey => $bd->{projectKey}, name => $p ? $p->{name} : $bd->{projectKey} } };
}

sub board_config {
	my ($bd) = @_;
	my @cols = map { +{ name => $_->{name}, statuses => [map { +{ id => $_ } }
	    grep { defined } map { status_id($_) } @{$_->{statuses} || []}] } } @{$bd->{columns} || []};
	my %o = (id => 0 + $bd->{id}, name => $bd->{name}, columnConfig => { columns => \@cols });
	$o{estimation} = { type => 'field', field => { fieldId => $SP, displayName => 'Story Points' } }
	    if defined $SP;
	return \%o;
}

sub board_sprints {
	my ($r, $bd, $q) = @_;
	return jerr($r, 400, 'The board does not support sprints') unless ($bd->{type} // '') eq 'scrum';
	my %want = map { lc $_ => 1 } split /,/, $q->{state} // '';
	my @all = grep { $_->{boardId} == $bd->{id} && (!%want || $want{$_->{state}}) }
	    sort { $a->{id} <=> $b->{id} } @{$S->{sprints}};
	my ($start, $max, @n) = page($q, scalar @all);
	send_json($r, 200, { startAt => $start, maxResults => $max,
	    isLast => !@n || $n[-1] == $#all ? JSON::PP::true : JSON::PP::false,
	    values => [map { sprint_json($all[$_]) } @n] });
}

sub create_sprint {
	my ($r) = @_;
	my $b = body_json($r) or return bad_body($r);
	return ferr($r, 'name', 'The sprint name is required.')
	    unless defined $b->{name} && !ref $b->{name} && $b->{name} =~ /\S/;
	my $bd = ($b->{originBoardId} // '') =~ /^\d+$/ ? board_by($b->{originBoardId}) : undef;
	return jerr($r, 400, 'Board does not exist or you do not have permission to see it.') unless $bd;
	my $s = { id => maxnum(map { $_->{id} } @{$S->{sprints}}) + 1, boardId => 0 + $bd->{id},
	    state => 'future', map {; $_ => $b->{$_} } qw(name goal startDate endDate) };
	push @{$S->{sprints}}, $s;
	send_json($r, 201, sprint_json($s));
}

sub update_sprint {
	my ($r, $s) = @_;
	my $b = body_json($r) or return bad_body($r);
	my $to = defined $b->{state} ? lc $b->{state} : $s->{state};
	return jerr($r, 400, "A sprint cannot go from '$s->{state}' to '$to'.")
	    unless $to eq $s->{state} || "$s->{state}>$to" =~ /^(?:future>active|active>closed)$/;
	return jerr($r, 400, 'A closed sprint cannot be changed.')
	    if $s->{state} eq 'closed' && grep { $_ ne 'state' } keys %$b;
	return jerr($r, 400, 'The sprint name cannot be empty.')
	    if exists $b->{name} && !(defined $b->{name} && $b->{name} =~ /\S/);
	for (qw(name goal startDate endDate)) { $s->{$_} = $b->{$_} if exists $b->{$_} }
	if ($to ne $s->{state}) {
		$s->{state} = $to;
		if ($to eq 'closed') {
			$s->{completeDate} = now_agile();
			for (grep { defined $_->{sprint} && $_->{sprint} == $s->{id} } @{$S->{issues}}) {
				next if $_->{status} eq $S->{statuses}[-1];
				$_->{sprint} = undef;
				$_->{updated} = now();
			}
		}
	}
	send_json($r, 200, sprint_json($s));
}

sub sprint_issues {
	my ($r, $s) = @_;
	my $b = body_json($r) or return bad_body($r);
	return jerr($r, 400, 'Issues cannot be moved to a closed sprint.') if $s->{state} eq 'closed';
	my @is = map { issue_by($_) } @{ref $b->{issues} eq 'ARRAY' ? $b->{issues} : []};
	return jerr($r, 400, $NO_ISSUE) if grep { !$_ } @is;
	for (grep { !defined $_->{sprint} || $_->{sprint} != $s->{id} } @is) {
		$_->{sprint} = 0 + $s->{id};
		$_->{updated} = now();
	}
	send_raw($r, 204);
}

sub rank {
	my ($r) = @_;
	my $b = body_json($r) or return bad_body($r);
	my $before = defined $b->{rankBeforeIssue};
	my $anchor = issue_by($before ? $b->{rankBeforeIssue} : $b->{rankAfterIssue});
	my @mv = map { issue_by($_) } @{ref $b->{issues} eq 'ARRAY' ? $b->{issues} : []};
	return jerr($r, 400, $NO_ISSUE) if !$anchor || !@mv || grep { !$_ } @mv;
	my %mv = map { $_ => 1 } @mv;
	return jerr($r, 400, 'An issue cannot be ranked relative to itself.') if $mv{$anchor};
	my @rest = grep { !$mv{$_} } @{$S->{issues}};
	my ($at) = grep { $rest[$_] == $anchor } 0 .. $#rest;
	splice @rest, $before ? $at : $at + 1, 0, @mv;
	$S->{issues} = \@rest;
	send_raw($r, 204);
}

# --- the dispatch ---------------------------------------------------------

sub fields_json {
	my @sys = map { +{ id => $_->[0], name => $_->[1], custom => JSON::PP::false,
	    schema => { type => $_->[2], system => $_->[0] } } }
	    ['summary', 'Summary', 'string'], ['description', 'Description', 'string'],
	    ['duedate', 'Due Date', 'date'], ['labels', 'Labels', 'array'];
	my @custom = map { my $sprint = defined $SPRINT && $_->{id} eq $SPRINT;
	    +{ id => $_->{id}, name => $_->{name}, custom => JSON::PP::true,
	    schema => { type => $sprint ? 'array' : 'number',
	    custom => $sprint ? 'com.pyxis.greenhopper.jira:gh-sprint'
	    : 'com.atlassian.jira.plugin.system.customfieldtypes:float' } } } @{$S->{fields}};
	return [@sys, @custom];
}

sub route {
	my ($r, $m, $p, $q) = @_;
	my $x;
	if ($m eq 'GET' && $p eq '/rest/api/2/field') {
		send_json($r, 200, fields_json());
	} elsif ($m eq 'GET' && $p eq '/rest/api/2/status') {
		send_json($r, 200, [map { status_json($_) } @{$S->{statuses}}]);
	} elsif ($m eq 'GET' && $p eq '/rest/api/2/issueLinkType') {
		send_json($r, 200,
		    { issueLinkTypes => [map { link_type(name => $_->{name}) } @{$S->{linkTypes}}] });
	} elsif ($m eq 'POST' && $p eq '/rest/api/2/issue') {
		create_issue($r);
	} elsif ($p =~ m{^/rest/api/2/issue/([^/]+)(/transitions|/attachments)?$} && !($x = issue_by($1))) {
		jerr($r, 404, 'Issue Does Not Exist');
	} elsif ($m eq 'GET' && $p =~ m{^/rest/api/2/issue/([^/]+)/comment$} && ($x = issue_by($1))) {
		my $all = issue_json($x)->{fields}{comment}{comments};
		my ($start, $max, @n) = page($q, scalar @$all);
		send_json($r, 200, { startAt => $start, maxResults => $max, total => scalar @$all,
		    comments => [@$all[@n]] });
	} elsif ($m eq 'GET' && $p =~ m{^/rest/api/2/issue/[^/]+$}) {
		send_json($r, 200, issue_json($x, ($q->{expand} // '') =~ /\bchangelog\b/));
	} elsif ($m eq 'PUT' && $p =~ m{^/rest/api/2/issue/[^/]+$}) {
		edit_issue($r, $x);
	} elsif ($m eq 'GET' && $p =~ m{^/rest/api/2/issue/[^/]+/transitions$}) {
		send_json($r, 200, { expand => 'transitions', transitions => [transitions($x)] });
	} elsif ($m eq 'POST' && $p =~ m{^/rest/api/2/issue/[^/]+/transitions$}) {
		transition($r, $x);
	} elsif ($m eq 'POST' && $p =~ m{^/rest/api/2/issue/[^/]+/attachments$}) {
		upload($r, $x);
	} elsif ($m eq 'POST' && $p eq '/rest/api/2/issueLink') {
		issue_link($r);
	} elsif ($m eq 'GET' && $p =~ m{^/(?:rest/api/2|secure)/attachment/([^/]+)}
	    && !($x = attachment_by($1))) {
		jerr($r, 404, "The attachment with id '$1' does not exist");
	} elsif ($m eq 'GET' && $p =~ m{^/rest/api/2/attachment/[^/]+$}) {
		send_json($r, 200, attachment_json($x));
	} elsif ($m eq 'GET' && $p =~ m{^/secure/attachment/[^/]+(?:/.*)?$}) {
		download($r, $x, 1);
	} elsif ($m eq 'GET' && $p eq '/rest/api/2/search') {
		search($r, $q);
	} elsif ($p =~ m{^/rest/agile/1\.0/board/(\d+)(/configuration|/sprint)?$} && !($x = board_by($1))) {
		jerr($r, 404, 'Board does not exist or you do not have permission to see it.');
	} elsif ($m eq 'GET' && $p =~ m{^/rest/agile/1\.0/board/\d+$}) {
		send_json($r, 200, board_json($x));
	} elsif ($m eq 'GET' && $p =~ m{^/rest/agile/1\.0/board/\d+/configuration$}) {
		send_json($r, 200, board_config($x));
	} elsif ($m eq 'GET' && $p =~ m{^/rest/agile/1\.0/board/\d+/sprint$}) {
		board_sprints($r, $x, $q);
	} elsif ($m eq 'POST' && $p eq '/rest/agile/1.0/sprint') {
		create_sprint($r);
	} elsif ($p =~ m{^/rest/agile/1\.0/sprint/([^/]+)(/issue)?$} && !($x = sprint_by($1))) {
		jerr($r, 404, 'Sprint does not exist or you do not have permission to see it.');
	} elsif ($m eq 'POST' && $p =~ m{^/rest/agile/1\.0/sprint/\d+$}) {
		update_sprint($r, $x);
	} elsif ($m eq 'POST' && $p =~ m{^/rest/agile/1\.0/sprint/\d+/issue$}) {
		sprint_issues($r, $x);
	} elsif ($m eq 'PUT' && $p eq '/rest/agile/1.0/issue/rank') {
		rank($r);
	} else {
		jerr($r, 404, 'Not found');
	}
}

sub control {
	my ($r, $m, $p) = @_;
	if ($m eq 'POST' && $p eq '/_fake/fail') {
		my $b = body_json($r);
		return jerr($r, 400, 'a path and a mode (429, 500, garbage, cut, redirect, oversize, hang)')
		    unless $b && defined $b->{path}
		    && ($b->{mode} // '') =~ /^(?:429|500|garbage|cut|redirect|oversize|hang)$/;
		push @fails, { path => $b->{path}, mode => $b->{mode}, count => $b->{count} // 1,
		    retry_after => $b->{retry_after} // 1 };
		send_json($r, 200, { ok => JSON::PP::true });
	} elsif ($m eq 'POST' && $p eq '/_fake/reset-fail') {
		@fails = ();
		send_json($r, 200, { ok => JSON::PP::true });
	} elsif ($m eq 'GET' && $p eq '/_fake/state') {
		send_json($r, 200, state_json());
	} elsif ($m eq 'GET' && $p eq '/_fake/requests') {
		send_json($r, 200, { count => 0 + ($requests // 0) });
	} else {
		jerr($r, 404, 'Not found');
	}
}

# fail(R, PATH): answers as a pending failure of PATH says, if there is one.
sub fail {
	my ($r, $p) = @_;
	my $att = $p =~ m{^/secure/attachment/(\d+)} ? attachment_by($1) : undef;
	my ($f) = grep { $_->{count} > 0 && index($p, $_->{path}) == 0 && ($_->{mode} ne 'oversize' || $att) }
	    @fails;
	return 0 unless $f;
	$f->{count}--;
	@fails = grep { $_->{count} > 0 } @fails;
	my ($m, $c) = ($f->{mode}, $r->{c});
	if ($m eq '429') {
		send_raw($r, 429, $JTYPE, '{"errorMessages":["Rate limit exceeded"],"errors":{}}',
		    "Retry-After: $f->{retry_after}");
	} elsif ($m eq '500') {
		send_raw($r, 500, 'text/html;charset=UTF-8',
		    "<html><body><h1>Internal Server Error</h1></body></html>\n");
	} elsif ($m eq 'garbage') {
		send_raw($r, 200, 'application/json', '{"issues": [tr');
	} elsif ($m eq 'redirect') {
		send_raw($r, 302, 'text/plain', '', 'Location: http://127.0.0.2:1/elsewhere');
	} elsif ($m eq 'oversize') {
		download($r, $att, 2);
	} elsif ($m eq 'cut') {
		print $c "HTTP/1.1 200 OK\r\nContent-Type: $JTYPE\r\nContent-Length: 512\r\n";
		$r->{status} = 'cut';
	} else {
		$r->{status} = 'hang';
	}
	return 1;
}

sub authorized {
	my ($r) = @_;
	return 1 unless defined $auth;
	my $h = $r->{h}{authorization} // '';
	return MIME::Base64::decode_base64($1) eq $auth if $h =~ /^Basic\s+(\S+)$/i;
	return $1 eq (split /:/, $auth, 2)[1] if $h =~ /^Bearer\s+(\S+)$/i;
	return 0;
}

# read_request(C): the request (method, target, headers, body), or undef
# when the client went away first.  A body over $MAX_BODY is left unread.
sub read_request {
	my ($c) = @_;
	my $line = <$c>;
	return undef unless defined $line && $line =~ m{^(\S+) (\S+) HTTP/\d\.\d\r?\n\z};
	my $r = { c => $c, method => $1, target => $2, h => {}, body => '' };
	while (1) {
		my $h = <$c>;
		return undef unless defined $h;
		last if $h =~ /^\r?\n\z/;
		$r->{h}{lc $1} = $2 if $h =~ /^([^:\s]+):\s*(.*?)\s*\z/s;
	}
	my $len = $r->{h}{'content-length'} // 0;
	$len = 0 unless $len =~ /^\d+$/;
	my $chunked = ($r->{h}{'transfer-encoding'} // '') =~ /chunked/i;
	if ($len > $MAX_BODY) { $r->{too_big} = 1; return $r }
	print $c "HTTP/1.1 100 Continue\r\n\r\n"
	    if ($r->{h}{expect} // '') =~ /100-continue/i && ($len || $chunked);
	while ($chunked) {
		my $size = <$c>;
		return undef unless defined $size && $size =~ /^([0-9A-Fa-f]+)/;
		my $n = hex $1;
		if ($n == 0) { while (defined(my $t = <$c>)) { last if $t =~ /^\r?\n\z/ } last }
		if (length($r->{body}) + $n > $MAX_BODY) { $r->{too_big} = 1; return $r }
		read($c, my $chunk, $n) == $n or return undef;
		$r->{body} .= $chunk;
		defined(<$c>) or return undef;
	}
	while (!$chunked && length $r->{body} < $len) {
		read($c, $r->{body}, $len - length $r->{body}, length $r->{body}) or return undef;
	}
	return $r;
}

sub serve {
	my ($c) = @_;
	binmode $c;
	$c->autoflush(1);
	local $SIG{ALRM} = sub { die "timeout\n" };
	alarm 30;
	my $r = read_request($c);
	alarm 0;
	return unless $r;
	my ($path, $query) = split /\?/, $r->{target}, 2;
	my $m = $r->{method};
	return control($r, $m, $path) if $path =~ m{^/_fake/};
	my %q;
	for (split /&/, $query // '') {
		my ($k, $v) = split /=/, $_, 2;
		$q{url_decode($k)} = url_decode($v // '');
	}
	$requests++ if $path =~ m{^/(?:rest|secure)/};
	if (fail($r, $path)) {
		# answered as the pending failure says
	} elsif ($path =~ m{^/(?:rest|secure)/} && !authorized($r)) {
		jerr($r, 401, 'You are not authenticated');
	} elsif ($r->{too_big}) {
		jerr($r, 413, "The request is larger than $MAX_BODY bytes");
	} else {
		route($r, $m, $path, \%q);
	}
	$r->{status} //= 'none';
	if (open my $lf, '>>', $log) {
		print $lf "$m $path -> $r->{status}\n";
		close $lf;
	}
	if ($r->{status} eq 'hang') {
		sleep 30;
	} elsif ($r->{too_big}) {
		# read what the client still sends, so that it sees the answer
		shutdown $c, 1;
		alarm 10;
		1 while read $c, my $junk, 65536;
		alarm 0;
	}
}

while (1) {
	my $c = $server->accept or next;
	eval { serve($c); 1 } or do { alarm 0; warn "fake-jira.pl: $@" unless $@ eq "timeout\n" };
	close $c;
}
