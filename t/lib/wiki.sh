# wiki.sh: helpers of the wiki scripts (t66xx): a work tree of Markdown pages
# pushed to the bare repository a project's wiki root names.  The script
# sets WORK (the work tree) and WIKI (the bare repository) first.
#
# Licensed under the ISC license, see LICENSE.

# page FILE CODE TITLE [PARENT]: front matter into FILE; the body follows from stdin
page () {
	mkdir -p "$(dirname "$WORK/$1")" &&
	{ printf -- '---\ncode: %s\ntitle: %s\n' "$2" "$3"
	  test -z "${4:-}" || printf 'parent: %s\n' "$4"
	  printf -- '---\n'; cat; } >"$WORK/$1"
}
# commit MESSAGE: commits the work tree and pushes main to the bare repository
commit () {
	(cd "$WORK" && git add -A && git -c user.name=t -c user.email=t@t commit -qm "$1" &&
	 git push -q "$WIKI" HEAD:refs/heads/main)
}
