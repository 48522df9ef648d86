#!/usr/bin/perl
# gen-wiki.pl PAGES OUTDIR SOURCES...: prints a git fast-import stream for
# the wiki of the bench (t/perf/bench-wiki.sh) on stdout, and writes into
# OUTDIR what the bench asks of it.  Deterministic: a fixed seed.
#   the wiki     2,128 pages (more, under home/s1, when PAGES asks) of
#                Russian and English Markdown with front matter (code,
#                title), home.md (DOC-1) the root and the tree from the
#                folders, five levels deep
#                and a chain of seven below; one page in 97 of 30,000 to
#                46,000 characters
#   vocabulary   the words and sentences of SOURCES (the repository's own
#                documents) and some 20,000 made-up Russian and English
#                words, drawn with a Zipf-like skew
#   relevance    20 queries, each with a planted best page (its title and
#                text are about the query's words) while some 25 other
#                pages, long ones among them, mention the words in passing
#   OUTDIR/relevance.tsv  query TAB code of its best page
#   OUTDIR/search.txt     the queries of the search latency case
#   OUTDIR/pages.tsv      code TAB offset of the page latency case
use strict;
use warnings;
use utf8;
use Encode qw(encode_utf8);
my ($npages, $out, @sources) = @ARGV;
$npages = 2000 if !$npages || $npages < 2000;
srand(20261202);

# --- words -------------------------------------------------------------------
my (%seen, @ru, @en, @lines);
for my $f (@sources) {
	open my $fh, '<:encoding(UTF-8)', $f or die "gen-wiki.pl: $f: $!";
	while (my $l = <$fh>) {
		chomp $l;
		# prose lines only: no tables, code or markup-heavy lines
		push @lines, $l if length $l > 60 && $l !~ /[|`{}<>\\\$]/ && $l =~ /^\p{L}/;
		while ($l =~ /(\p{L}{3,})/g) {
			my $w = lc $1;
			next if $seen{$w}++;
			push @{ $w =~ /\p{Cyrillic}/ ? \@ru : \@en }, $w;
		}
	}
}
my @rc = split //, 'бвгдзклмнпрстфхчшщж';
my @rv = split //, 'аеиоуыяюэ';
my @rend = qw(ание ость ный ная ное ить ать ов ами ения ский ство ка ки ей ом);
my @ec = split //, 'bcdfghklmnprstvwz';
my @ev = split //, 'aeiou';
my @eend = qw(ing tion er ly ment ness able ed s al ive ize);
sub pick { $_[int rand @_] }
sub made {
	my ($c, $v, $e) = @_;
	my $w = '';
	$w .= pick(@$c) . pick(@$v) for 1 .. 1 + int rand 3;
	$w . pick(@$e);
}
for (1 .. 12000) { my $w = made(\@rc, \@rv, \@rend); push @ru, $w unless $seen{$w}++ }
for (1 .. 8000) { my $w = made(\@ec, \@ev, \@eend); push @en, $w unless $seen{$w}++ }
# Zipf-like: a few words often, most of them rarely
sub word { my $v = shift; $v->[int(exp(rand() * log(@$v + 1))) - 1] }
sub sentence {
	my ($v, $o) = @_;
	my @w = map { rand() < 0.08 ? word($o) : word($v) } 1 .. 6 + int rand 10;
	ucfirst(join ' ', @w) . '.';
}
sub paragraph {
	my ($v, $o) = @_;
	return pick(@lines) if @lines && rand() < 0.3;
	join ' ', map { sentence($v, $o) } 1 .. 2 + int rand 5;
}
sub title { my $v = shift; ucfirst join ' ', map { word($v) } 1 .. 2 + int rand 4 }

# --- the tree ------------------------------------------------------------------
# [path without .md, depth]; fan-out 8, 8, 8, 3 then a chain of 7
my @pages = (['home', 0]);
my @level = ('home');
for my $fan (8, 8, 8, 3) {
	my @next;
	for my $p (@level) {
		for my $i (1 .. $fan) {
			my $name = $p eq 'home' ? "home/s$i" : "$p/" . ($p =~ s{.*/}{}r) . "-$i";
			push @next, $name;
		}
	}
	push @pages, map { [$_, scalar(() = m{/}g)] } @next;
	@level = @next;
}
my $chain = $level[0];
for my $i (1 .. 7) { $chain .= "/d$i"; push @pages, [$chain, scalar(() = $chain =~ m{/}g)] }
my $i = 0;
while (@pages < $npages) { $i++; push @pages, ["home/s1/extra-$i", 2] }
my $n = @pages;

my @page;	# {code, title, paras}
for my $k (0 .. $n - 1) {
	my ($v, $o) = rand() < 0.5 ? (\@ru, \@en) : (\@en, \@ru);
	my $chars = $k % 97 == 5 ? 30000 + int rand 16000 : 300 + int rand 4000;
	my @paras = ('# ' . (my $t = title($v)));
	my $len = 0;
	while ($len < $chars) {
		my $p = rand() < 0.1 ? '## ' . title($v) : paragraph($v, $o);
		push @paras, $p;
		$len += length($p) + 2;
	}
	push @page, { code => 'DOC-' . ($k + 1), title => $t, paras => \@paras, long => $chars >= 30000 };
}

# --- relevance: 20 queries, their best pages and passing mentions -----------------
my @topics = (
	['репликация журнала', 'Репликация журнала транзакций', 'Репликация журнала'],
	['резервное копирование', 'Резервное копирование баз', 'резервное копирование'],
	['квоты хранилища', 'Квоты хранилища проектов', 'КВОТЫ хранилища'],
	['ротация ключей', 'Ротация ключей подписи', 'ротация ключей'],
	['миграция схемы', 'Миграция схемы без простоя', 'Миграция схемы'],
	['очередь сборок', 'Очередь сборок и приоритеты', 'очередь сборок'],
	['зеркалирование репозиториев', 'Зеркалирование репозиториев с внешних серверов', 'зеркалирование репозиториев'],
	['журнал аудита', 'Журнал аудита действий', 'журнал АУДИТА'],
	['уведомления почтой', 'Уведомления почтой и дайджесты', 'уведомления почтой'],
	['лимиты запросов', 'Лимиты запросов к API', 'Лимиты запросов'],
	['webhook retries', 'Webhook retries and backoff', 'webhook retries'],
	['shard rebalancing', 'Shard rebalancing of repositories', 'Shard Rebalancing'],
	['garbage collection', 'Garbage collection of packs', 'garbage collection'],
	['certificate renewal', 'Certificate renewal for the gateway', 'certificate renewal'],
	['merge queue', 'Merge queue design', 'merge queue'],
	['blame cache', 'Blame cache invalidation', 'blame cache'],
	['sandbox seccomp', 'Sandbox seccomp profiles', 'sandbox seccomp'],
	['snapshot restore', 'Snapshot restore drills', 'SNAPSHOT restore'],
	['mirror credentials', 'Mirror credentials storage', 'mirror credentials'],
	['runner autoscaling', 'Runner autoscaling policy', 'runner autoscaling'],
);
my %planted;
my @rel;
for my $q (0 .. $#topics) {
	my ($words, $title, $query) = @{ $topics[$q] };
	my @w = split / /, $words;
	my $k = 100 * $q + 41;
	$planted{$k} = 1;
	my ($v, $o) = $q < 10 ? (\@ru, \@en) : (\@en, \@ru);
	my @paras = ("# $title");
	for my $j (1 .. 6) {
		my $s = sentence($v, $o);
		# the query's words in some of the sentences, as a page about them has them
		$s =~ s/^(\S+) (\S+) (\S+)/$1 $w[0] $2 $w[1] $3/ if $j % 2;
		$s =~ s/(\S+)\.$/$w[$j % 2] $1./ if $j % 3 == 0;
		push @paras, $s, paragraph($v, $o);
	}
	$page[$k] = { code => $page[$k]{code}, title => $title, paras => \@paras };
	push @rel, "$query\t$page[$k]{code}";
}
for my $q (0 .. $#topics) {
	my @w = split / /, $topics[$q][0];
	my @long = grep { $page[$_]{long} } 0 .. $n - 1;
	my @who = map { ($q * 131 + $_ * 89 + 7) % $n } 1 .. 23;
	push @who, $long[($q * 2) % @long], $long[($q * 2 + 1) % @long];
	for my $k (@who) {
		next if $planted{$k} || $k == 0;
		my $paras = $page[$k]{paras};
		my $at = 1 + int rand(@$paras - 1);
		my $mention = $k % 3 ? "$w[0] и $w[-1]" : $w[int rand @w];
		$paras->[$at] .= ' ' . ucfirst(word(\@en)) . ' ' . word(\@ru) . " $mention " . word(\@ru) . '.';
		# the long ones twice, pages apart
		$paras->[-1] .= " См. также $w[0]." if $page[$k]{long};
	}
}

# --- the stream ------------------------------------------------------------------
my $mark = 0;
sub data { my $s = encode_utf8(shift); print 'data ', length($s), "\n", $s, "\n" }
binmode STDOUT;
my @files;
for my $k (0 .. $n - 1) {
	my $p = $page[$k];
	$mark++;
	print "blob\nmark :$mark\n";
	data("---\ncode: $p->{code}\ntitle: $p->{title}\n---\n" . join("\n\n", @{ $p->{paras} }) . "\n");
	push @files, [$mark, "$pages[$k][0].md"];
}
print "commit refs/heads/main\ncommitter Bench <bench\@example.com> 1764662400 +0000\n";
data('the wiki of the bench');
print "M 100644 :$_->[0] $_->[1]\n" for @files;
print "\n";

# --- what the bench asks ---------------------------------------------------------
sub put {
	my ($name, @l) = @_;
	open my $fh, '>:encoding(UTF-8)', "$out/$name" or die "gen-wiki.pl: $out/$name: $!";
	print $fh "$_\n" for @l;
	close $fh or die "gen-wiki.pl: $out/$name: $!";
}
put('relevance.tsv', @rel);
# varied queries: the relevance ones, single words of every frequency in
# both alphabets and cases, pairs, boolean and prefix forms, one found nowhere
my @q = map { (split /\t/)[0] } @rel;
for my $j (1 .. 40) {
	my $v = $j % 2 ? \@ru : \@en;
	my $w = $v->[int(($j / 40) ** 3 * (@$v - 1))];
	push @q, $j % 4 == 0 ? uc $w : $j % 4 == 1 ? ucfirst $w : $w;
	push @q, word($v) . ' ' . word($v) if $j % 3 == 0;
}
push @q, '+' . $ru[3] . ' -' . $ru[7], $en[40] . '*', '"' . $ru[0] . ' ' . $ru[1] . '"',
	'несуществующееслово', 'nonexistentword';
put('search.txt', @q);
my @pg;
for my $j (0 .. 59) {
	my $k = ($j * 37 + 11) % $n;
	push @pg, "$page[$k]{code}\t0";
}
for my $k (grep { $page[$_]{long} } 0 .. $n - 1) {
	push @pg, "$page[$k]{code}\t0", "$page[$k]{code}\t20000";
}
put('pages.tsv', @pg);
