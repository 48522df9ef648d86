# fixtures-git.sh: a richer deterministic repository for the git read tools (t41xx-t43xx).
#
# Sourced by a test script after test-lib.sh.  make_git_fixture builds it
# with plain git commands, the fixed author and test_tick's clock.
#
# Licensed under the ISC license, see LICENSE.

# make_git_fixture DIR.git: a bare repository with this history:
#
#   main:    m1 --- m2 --- m3 ----------- M (merge of topic, --no-ff)
#                     \        \        /
#   feature:           f1 - f2  topic: t1
#
#   m1: README.md, src/app.c, src/util.h, src/lib/a.c, src/lib/deep/b.c,
#       tests/c.c, docs/notes.txt, old-name.txt (20 lines), data.bin,
#       latin1.txt (ISO-8859-1), nonl.txt (no final newline), long.txt (one
#       400-byte line), link (symlink to README.md), vendor (a submodule),
#       wide.txt (3000 lines of 100 bytes), oneline.txt (one 300000-byte
#       line), huge.txt (1.1 MB, over search_code's 1 MiB file limit)
#   m2: src/app.c changed                                  <- feature forks here
#   f1: old-name.txt renamed to new-name.txt (one line changed), docs/notes.txt
#       deleted, src/feature.c added, nonl.txt changed, data.bin changed
#   f2: large.txt added (4000 lines, about 180 kB)
#   m3: README.md changed (after the fork: only a two-dot diff shows it)
#   t1: src/util.h changed (branch topic, from m3)
#   M:  topic merged into main
# Branches: main, feature, topic, release/1.0 (at m1), zeta (at m2).
# Sets GF_M1 GF_M2 GF_M3 GF_F1 GF_F2 GF_T1 GF_MERGE.
make_git_fixture () {
	local bare=$1 work=$TRASH/gitfix-work.$$
	rm -rf "$work" "$bare"
	git -c init.defaultBranch=main init -q "$work" || return 1
	(
		cd "$work" &&
		git config user.useConfigOnly false &&
		git config core.autocrlf false &&
		mkdir -p src/lib/deep tests docs &&
		printf '# gitfix\n\nA repository for the git read tools.\n' >README.md &&
		cat >src/app.c <<-\EOT &&
		#include "util.h"

		/* Hello World, the classic. */
		int
		main(void)
		{
			hello_world();
			return 0;
		}
		EOT
		printf '#ifndef UTIL_H\n#define UTIL_H\nvoid hello_world(void);\n#endif\n' >src/util.h &&
		printf 'int a(void) { return 1; } /* needle one */\n' >src/lib/a.c &&
		printf 'int b;\n\nint b2(void) { return 2; } /* NEEDLE two */\n' >src/lib/deep/b.c &&
		printf '/* a needle in tests */\nint c;\n' >tests/c.c &&
		printf 'notes\nmore notes\n' >docs/notes.txt &&
		perl -e 'printf "old line %02d\n", $_ for 1..20' >old-name.txt &&
		printf '\000\001\002binary\377data needle\n' >data.bin &&
		printf 'caf\351 latin1 needle\n' >latin1.txt &&
		printf 'first\nlast line without newline' >nonl.txt &&
		perl -e 'print "x" x 250, " needle ", "y" x 142, "\n"' >long.txt &&
		ln -s README.md link &&
		perl -e 'printf "wide %04d %s\n", $_, "w" x 89 for 1..3000' >wide.txt &&
		perl -e 'print "a" x 300000, "\n"' >oneline.txt &&
		perl -e 'print "needle in a huge file\n" x 50000' >huge.txt &&
		git add . &&
		mkdir vendor &&
		git update-index --add --cacheinfo "160000,1111111111111111111111111111111111111111,vendor" &&
		test_tick && git commit -q -m 'm1: initial layout' &&
		git branch release/1.0 &&
		sed 's/return 0;/return hello_count();/' src/app.c >src/app.c.new &&
		mv src/app.c.new src/app.c &&
		git add . && test_tick && git commit -q -m 'm2: app returns the count' &&
		git branch zeta &&
		git checkout -q -b feature &&
		git mv old-name.txt new-name.txt &&
		sed 's/old line 10/renamed line 10/' new-name.txt >n.tmp && mv n.tmp new-name.txt &&
		git rm -q docs/notes.txt &&
		printf 'int feature(void)\n{\n\treturn 42;\n}\n' >src/feature.c &&
		printf 'first\nchanged last line, still no newline' >nonl.txt &&
		printf '\000\001\002binary\377data v2\n' >data.bin &&
		git add -A && test_tick && git commit -q -m 'f1: rename, delete, add' \
			-m 'A body paragraph that is not part of the subject.' &&
		perl -e 'printf "large line %04d: %s\n", $_, "z" x 30 for 1..4000' >large.txt &&
		git add . && test_tick && git commit -q -m 'f2: a large file' &&
		git checkout -q main &&
		printf '# gitfix\n\nA repository for the git read tools.\nChanged on main.\n' >README.md &&
		git add . && test_tick && git commit -q -m 'm3: README on main' &&
		git checkout -q -b topic &&
		printf '#ifndef UTIL_H\n#define UTIL_H\nvoid hello_world(void);\nint hello_count(void);\n#endif\n' >src/util.h &&
		git add . && test_tick && git commit -q -m 't1: declare hello_count' &&
		git checkout -q main &&
		test_tick && git merge -q --no-ff -m 'Merge branch topic' topic
	) || return 1
	GF_M1=$(git -C "$work" rev-parse main~3)
	GF_M2=$(git -C "$work" rev-parse main~2)
	GF_M3=$(git -C "$work" rev-parse main~1)
	GF_T1=$(git -C "$work" rev-parse topic)
	GF_F1=$(git -C "$work" rev-parse feature~1)
	GF_F2=$(git -C "$work" rev-parse feature)
	GF_MERGE=$(git -C "$work" rev-parse main)
	git clone -q --bare "$work" "$bare" || return 1
	rm -rf "$work"
}

# setup_git_fixtures: setup_fixtures plus alice/gitfix (public, the repository above).
setup_git_fixtures () {
	setup_fixtures &&
	make_git_fixture "$TRASH/gitfix.git" &&
	fm repo import alice/gitfix --from "$TRASH/gitfix.git" --description 'git reads' >/dev/null &&
	GF=$TRASH/repos/alice/gitfix.git
}

# gf_git ARGS...: git on the imported fixture as the server stores it.
gf_git () {
	git --git-dir="$GF" "$@"
}
