#!/bin/bash
# t7200: path traversal through the repo, path and ref arguments: "..",
# absolute paths, .git/config, ../../etc/passwd, URL-encoded and backslash
# variants, git revision syntax in refs, and symlinks committed in a
# repository that point outside it.  Every answer is a clear in-band error
# (or an honest empty result), nothing outside the repository is ever
# returned, and the workers survive.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/hostile.sh"

start_all "$HOSTILE_WORKERS"
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
# every scope, so the execute and merge tools are reached past the gate
TOKEN=$(make_token alice read,write,execute,merge)

# alice/links: a public repository whose tree holds symlinks pointing out.
make_links_repo () {
	local work=$TRASH/links-work
	rm -rf "$work" "$TRASH/links.git"
	git -c init.defaultBranch=main init -q "$work" &&
	(
		cd "$work" &&
		printf 'links fixture\n' >README.md &&
		git add README.md && test_tick && git commit -q -m 'readme' &&
		ln -s /etc/passwd passwd-link &&
		ln -s /etc etc-link &&
		ln -s ../../../../../../../../etc/passwd up-link &&
		ln -s ../config config-link &&
		ln -s "$TRASH/repos/bob/hidden.git" hidden-link &&
		git add . && test_tick && git commit -q -m 'links out of the tree'
	) &&
	git clone -q --bare "$work" "$TRASH/links.git" &&
	rm -rf "$work" &&
	fm repo import alice/links --from "$TRASH/links.git" >/dev/null
}

# alice/deep: one file fifteen levels down, for glob patterns.
make_deep_repo () {
	local work=$TRASH/deep-work
	rm -rf "$work" "$TRASH/deep.git"
	git -c init.defaultBranch=main init -q "$work" &&
	(
		cd "$work" &&
		mkdir -p a/b/c/d/e/f/g/h/i/j/k/l/m/n &&
		printf 'needle\n' >a/b/c/d/e/f/g/h/i/j/k/l/m/n/file.txt &&
		git add . && test_tick && git commit -q -m 'deep'
	) &&
	git clone -q --bare "$work" "$TRASH/deep.git" &&
	rm -rf "$work" &&
	fm repo import alice/deep --from "$TRASH/deep.git" >/dev/null
}

test_expect_success 'a repository with one file fifteen levels down' '
	make_deep_repo
'

test_expect_success 'a repository with symlinks pointing outside it' '
	make_links_repo &&
	test "$(git --git-dir="$TRASH/links.git" cat-file -p HEAD:passwd-link)" = /etc/passwd
'

test_expect_success "the server runs $HOSTILE_WORKERS workers; their pids are recorded" '
	workers_record
'
hclient_start

Q="'"
NOT_FOUND='^Repository not found or not accessible$'

# no_leak: the answer shows nothing of /etc/passwd, a git config file or the
# server's own paths.
no_leak () {
	[[ $BODY != *root:x:0:0* && $BODY != *root:*:0:0:* ]] || show_ "/etc/passwd leaked" || return 1
	[[ $BODY != *repositoryformatversion* && $BODY != *"[core]"* ]] || show_ "a git config leaked" || return 1
	[[ $BODY != *"$TRASH"* ]] || show_ "a server path leaked" || return 1
}

# tool_case TOOL ARGS_JSON TEXT_ERE TITLE: an in-band error matching
# TEXT_ERE (or "ok" for a result), and no leak.
tool_case () {
	C_TOOL=$1 C_ARGS=$2 C_RE=$3
	test_expect_success "$FAMILY: $4" '
		call_modern "$C_TOOL" "$C_ARGS" &&
		if test "$C_RE" = ok; then expect_tool_ok; else expect_tool_error "$C_RE"; fi &&
		no_leak
	'
}

# ---------------------------------------------------------------------------
family_begin 'traversal in the repo argument'

for r in '../../etc/passwd' '../alice/fixture' 'alice/../bob/hidden' 'alice/fixture/../../bob/hidden' \
	'/etc/passwd' '/alice/fixture' 'alice/fixture/' 'alice//fixture' 'alice/./fixture' './alice/fixture' \
	'alice/fixture.git' 'alice/fixture.git/config' 'alice/.git' '..%2f..%2fetc%2fpasswd' \
	'alice%2ffixture' '%2e%2e/%2e%2e' 'alice\fixture' 'alice/fixture%00' '~alice/fixture' \
	'alice/*' 'alice/%' 'alice/_ixture' 'bob/hidden' 'bob/hidden/../../alice/fixture' \
	"$TRASH/repos/alice/fixture.git" 'file:///etc/passwd'; do
	json_str rj "$r"
	tool_case get_file_contents "{\"repo\":$rj,\"path\":\"README.md\"}" "$NOT_FOUND" \
		"get_file_contents repo $r -> not found"
	tool_case get_tree "{\"repo\":$rj}" "$NOT_FOUND" "get_tree repo $r -> not found"
done

tool_case list_commits '{"repo":"alice/../bob/hidden"}' "$NOT_FOUND" 'list_commits repo alice/../bob/hidden -> not found'
tool_case list_branches '{"repo":"../bob/hidden"}' "$NOT_FOUND" 'list_branches repo ../bob/hidden -> not found'
tool_case search_code '{"repo":"alice/../bob/hidden","query":"deep"}' "$NOT_FOUND" 'search_code repo alice/../bob/hidden -> not found'
tool_case compare_refs '{"repo":"bob/hidden","base":"main","head":"v1.0"}' "$NOT_FOUND" 'compare_refs on a private repository -> not found'
tool_case list_issues '{"repo":"alice/fixture/../secret"}' "$NOT_FOUND" 'list_issues repo alice/fixture/../secret -> not found'
tool_case create_issue '{"repo":"alice/../bob/hidden","title":"x"}' "$NOT_FOUND" 'create_issue repo alice/../bob/hidden -> not found'

test_expect_success "$FAMILY: the NUL byte in a repo is refused by the gate" '
	call_modern get_file_contents "{\"repo\":\"alice/fixture\\u0000/../../bob/hidden\",\"path\":\"README.md\"}" &&
	expect_tool_error "^argument ${Q}repo$Q must not contain NUL bytes$"
'

test_expect_success "$FAMILY: the real repository still answers (control)" '
	call_modern get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\"}" &&
	expect_tool_ok &&
	[[ $BODY == *"A repository for tests."* ]] || show_ "expected the README"
'

test_expect_success "$FAMILY: no issue was created" '
	test "$(db_sql "select count(*) from issues")" = 0
'

family_end

# ---------------------------------------------------------------------------
family_begin 'traversal in the path argument'

INVALID="^invalid path $Q"
RELATIVE='^path must be relative to the repository root$'

# path_case PATH FILE_ERE TREE_ERE: get_file_contents and get_tree with PATH.
path_case () {
	local pj
	json_str pj "$1"
	tool_case get_file_contents "{\"repo\":\"alice/fixture\",\"path\":$pj}" "$2" "get_file_contents path $1"
	tool_case get_tree "{\"repo\":\"alice/fixture\",\"path\":$pj}" "$3" "get_tree path $1"
}

path_case '../../../../etc/passwd' "$INVALID" "$INVALID"
path_case '..' "$INVALID" "$INVALID"
path_case '.' "$INVALID" "$INVALID"
path_case '/etc/passwd' "$RELATIVE" "$RELATIVE"
path_case "$TRASH/repos/bob/hidden.git/config" "$RELATIVE" "$RELATIVE"
path_case './README.md' "$INVALID" "$INVALID"
path_case 'src/../README.md' "$INVALID" "$INVALID"
path_case 'src/lib/../../../../etc/passwd' "$INVALID" "$INVALID"
path_case 'src//lib' "$INVALID" "$INVALID"
path_case 'README.md/' "$INVALID" "^${Q}README\\.md$Q is not a directory"
path_case 'src/lib/deep/nested.txt/..' "$INVALID" "$INVALID"
path_case '.git/config' '^File not found: \.git/config@' '^path not found: '
path_case 'config' '^File not found: config@' '^path not found: '
path_case 'HEAD' '^File not found: HEAD@' '^path not found: '
path_case 'objects/info/packs' '^File not found: objects/info/packs@' '^path not found: '
path_case 'refs/heads/main' '^File not found: refs/heads/main@' '^path not found: '
path_case '%2e%2e/%2e%2e/etc/passwd' '^File not found: ' '^path not found: '
path_case '..%2fREADME.md' '^File not found: ' '^path not found: '
path_case '..\..\etc\passwd' '^File not found: ' '^path not found: '
path_case '....//....//etc/passwd' "$INVALID" "$INVALID"
path_case '~/.ssh/id_rsa' '^File not found: ' '^path not found: '

test_expect_success "$FAMILY: get_tree path / is the repository's root" '
	call_modern get_tree "{\"repo\":\"alice/fixture\",\"path\":\"/\"}" &&
	expect_tool_ok &&
	jq_body -e "[.result.structuredContent.entries[].name] | sort == [\"README.md\",\"big.txt\",\"docs\",\"logo.bin\",\"src\"]" &&
	no_leak
'

test_expect_success "$FAMILY: get_file_contents path / -> must be relative" '
	call_modern get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"/\"}" &&
	expect_tool_error "$RELATIVE"
'

test_expect_success "$FAMILY: a NUL byte in the path is refused by the gate" '
	call_modern get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\\u0000/../../etc/passwd\"}" &&
	expect_tool_error "^argument ${Q}path$Q must not contain NUL bytes$"
'

for p in '../../etc/passwd' '/etc/passwd' 'src/../../x'; do
	json_str pj "$p"
	tool_case list_commits "{\"repo\":\"alice/fixture\",\"path\":$pj}" "$INVALID|$RELATIVE" "list_commits path $p"
	tool_case compare_refs "{\"repo\":\"alice/fixture\",\"base\":\"v1.0\",\"head\":\"main\",\"path\":$pj}" \
		"$INVALID|$RELATIVE" "compare_refs path $p"
done

# A glob only filters the repository's own paths: it matches nothing here.
for g in '../../etc/*' '/etc/passwd' '**/../../**' '/**'; do
	json_str C_G "$g"
	test_expect_success "$FAMILY: search_code path glob $g -> only the repository's files" '
		call_modern search_code "{\"repo\":\"alice/fixture\",\"query\":\"root\",\"path\":$C_G}" &&
		expect_tool_ok &&
		jq_body -e ".result.structuredContent.results | all(.path | startswith(\"/\") or contains(\"..\") | not)" &&
		no_leak
	'
done

family_end

# ---------------------------------------------------------------------------
family_begin 'traversal and revision syntax in refs'

BADREF="^invalid ref"

for ref in 'main..v1.0' 'main...v1.0' 'main@{0}' '@{-1}' 'HEAD@{1}' 'main~1' 'main^' 'main^{tree}' \
	'main:README.md' 'HEAD:README.md' ':/first commit' '../../etc/passwd' '/etc/passwd' 'refs/../config' \
	'refs/heads/../../config' '-all' '--output=/tmp/x' 'main.lock' 'ma in' 'main\x' 'refs/heads/main/' \
	'.hidden' 'main?' 'main*' 'main[' "$(printf 'main\tx')"; do
	json_str C_REF "$ref"
	tool_case get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":$C_REF}" "$BADREF" \
		"get_file_contents ref $ref"
done

for ref in 'config' 'FETCH_HEAD' 'ORIG_HEAD' 'refs/remotes/origin/main' 'objects' '@'; do
	json_str C_REF "$ref"
	tool_case get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":$C_REF}" \
		"^ref $Q$ref$Q not found$" "get_file_contents ref $ref -> not found"
done

for ref in 'main..v1.0' '../../etc/passwd' 'main:README.md' 'main@{0}'; do
	json_str C_REF "$ref"
	tool_case get_tree "{\"repo\":\"alice/fixture\",\"ref\":$C_REF}" "$BADREF" "get_tree ref $ref"
	tool_case list_commits "{\"repo\":\"alice/fixture\",\"ref\":$C_REF}" "$BADREF" "list_commits ref $ref"
	tool_case compare_refs "{\"repo\":\"alice/fixture\",\"base\":$C_REF,\"head\":\"main\"}" "$BADREF" "compare_refs base $ref"
	tool_case compare_refs "{\"repo\":\"alice/fixture\",\"base\":\"main\",\"head\":$C_REF}" "$BADREF" "compare_refs head $ref"
	tool_case search_code "{\"repo\":\"alice/fixture\",\"query\":\"x\",\"ref\":$C_REF}" "$BADREF" "search_code ref $ref"
done

tool_case get_file_contents '{"repo":"alice/fixture","path":"README.md","ref":"v1.0"}' ok 'a tag is a fine ref (control)'
tool_case list_branches '{"repo":"alice/fixture","after":"../../etc/passwd"}' ok 'list_branches after ../../etc/passwd is only a sort key'

family_end

# ---------------------------------------------------------------------------
family_begin 'symlinks committed in the tree'

L='"repo":"alice/links"'

test_expect_success "$FAMILY: a symlink to /etc/passwd reads as its target text" '
	call_modern get_file_contents "{$L,\"path\":\"passwd-link\"}" &&
	expect_tool_ok &&
	jq_body -e ".result.structuredContent.content == \"/etc/passwd\"" &&
	no_leak
'

test_expect_success "$FAMILY: a relative symlink climbing out reads as its target text" '
	call_modern get_file_contents "{$L,\"path\":\"up-link\"}" &&
	expect_tool_ok &&
	jq_body -e ".result.structuredContent.content == \"../../../../../../../../etc/passwd\"" &&
	no_leak
'

test_expect_success "$FAMILY: a symlink to the repository config reads as its target text" '
	call_modern get_file_contents "{$L,\"path\":\"config-link\"}" &&
	expect_tool_ok &&
	jq_body -e ".result.structuredContent.content == \"../config\"" &&
	no_leak
'

test_expect_success "$FAMILY: a symlink to another repository reads as its target text" '
	call_modern get_file_contents "{$L,\"path\":\"hidden-link\"}" &&
	expect_tool_ok &&
	jq_body -e ".result.structuredContent.content | endswith(\"/repos/bob/hidden.git\")"
'

tool_case get_file_contents "{$L,\"path\":\"etc-link/passwd\"}" '^File not found: etc-link/passwd@' \
	'a path through a directory symlink -> not found'
tool_case get_file_contents "{$L,\"path\":\"hidden-link/config\"}" '^File not found: hidden-link/config@' \
	'a path through a symlink to a repository -> not found'
tool_case get_tree "{$L,\"path\":\"etc-link\"}" '.' 'get_tree of a directory symlink -> in-band error'
tool_case list_commits "{$L,\"path\":\"etc-link/passwd\"}" ok 'list_commits through a directory symlink -> no commits, no error'

test_expect_success "$FAMILY: get_tree shows the links as symlinks" '
	call_modern get_tree "{$L}" &&
	expect_tool_ok &&
	jq_body -e "[.result.structuredContent.entries[] | select(.type == \"symlink\") | .name] | sort == [\"config-link\",\"etc-link\",\"hidden-link\",\"passwd-link\",\"up-link\"]"
'

test_expect_success "$FAMILY: search_code never follows a link" '
	call_modern search_code "{$L,\"query\":\"root\"}" &&
	expect_tool_ok &&
	jq_body -e ".result.structuredContent.results == []" &&
	no_leak
'

test_expect_success "$FAMILY: compare_refs shows the link target as the patch" '
	call_modern compare_refs "{$L,\"base\":\"main~1\",\"head\":\"main\"}" &&
	expect_tool_error "^invalid ref" &&
	first=$(git --git-dir="$TRASH/links.git" rev-parse main~1) &&
	call_modern compare_refs "{$L,\"base\":\"$first\",\"head\":\"main\",\"path\":\"passwd-link\"}" &&
	expect_tool_ok &&
	[[ $BODY == *"+/etc/passwd"* ]] || show_ "expected the link text in the patch" || return 1
	no_leak
'

family_end

# ---------------------------------------------------------------------------
family_begin 'glob patterns built to backtrack'

DEEP=a/b/c/d/e/f/g/h/i/j/k/l/m/n/file.txt

# glob_case GLOB FOUND: search_code for "needle" in alice/deep with the path
# GLOB answers within 10 seconds, with the deep file (FOUND=yes) or nothing.
glob_case () {
	json_str C_G "$1"
	C_FOUND=$2
	test_expect_success "$FAMILY: path glob of ${#1} bytes (${1:0:24}...) answers at once" '
		start=$SECONDS &&
		call_modern search_code "{\"repo\":\"alice/deep\",\"query\":\"needle\",\"path\":$C_G}" &&
		expect_tool_ok &&
		test $((SECONDS - start)) -le 10 &&
		if test "$C_FOUND" = yes; then
			jq_body -e "[.result.structuredContent.results[].path] == [\"$DEEP\"]"
		else
			jq_body -e ".result.structuredContent.results == []"
		fi
	'
}

glob_case "$(perl -e 'print "**/" x 330, "zz"')" no
glob_case "$(perl -e 'print "**/" x 330, "file.txt"')" yes
glob_case "$(perl -e 'print "**/*/" x 165, "zz"')" no
glob_case "$(perl -e 'print "**/a*/" x 165, "zz"')" no
glob_case "$(perl -e 'print "**/" x 20, "**/*.txt"')" yes
glob_case 'a/**/n/**/file.txt' yes
glob_case '*/*/*/*' no
glob_case "$(perl -e 'print "*" x 999, "x"')" no

family_end

hostile_summary 100

test_done
