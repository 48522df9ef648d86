/* glob-t: unit tests for the path globs of search_code and the directories a search may skip. */
#include <string.h>

#include "store/repo.h"
#include "tap.h"

/* The paths every glob is tried on: a directory may be skipped only when none below it matches. */
static const char *paths[] = {
	"README.md", "src/07/file00057.h", "src/07/file00007.md", "src/08/file00058.c",
	"src/07/sub/deep.h", "doc/a/b/c/x.h", "a/b/c/d/e/f/g/h/i/j/k/l/m/n/file.txt", "src/x.h",
};

static const char *globs[] = {
	"src/07/*.h", "*.h", "/src/07/*.h", "src/**", "**/x.h", "src/**/deep.h", "doc/*/b/**",
	"src/0[0-7]/*", "src/?7/*.md", "a/**/n/*.txt", "src/*.h", "[!s]*/**", "**",
};

int
main(void)
{
	size_t	 g, p;
	char	 dir[256], *slash;

	/* sound: every directory above a matching path may match */
	for (g = 0; g < sizeof globs / sizeof globs[0]; g++)
		for (p = 0; p < sizeof paths / sizeof paths[0]; p++) {
			int	 all = 1;

			if (!repo_glob_match(globs[g], paths[p]))
				continue;
			snprintf(dir, sizeof dir, "%s", paths[p]);
			while ((slash = strrchr(dir, '/')) != NULL) {
				*slash = '\0';
				all &= repo_glob_dir_may_match(globs[g], dir);
			}
			ok(all, "%s matches %s: no directory above it is skipped", globs[g], paths[p]);
		}
	/* and it skips what it can */
	is_int(repo_glob_dir_may_match("src/07/*.h", "src/08"), 0, "src/07/*.h skips src/08");
	is_int(repo_glob_dir_may_match("src/07/*.h", "doc"), 0, "src/07/*.h skips doc");
	is_int(repo_glob_dir_may_match("src/07/*.h", "src/07/sub"), 0,
	    "src/07/*.h skips src/07/sub ('*' stays in a segment)");
	is_int(repo_glob_dir_may_match("src/07/*.h", "src/07"), 1, "src/07/*.h reads src/07");
	is_int(repo_glob_dir_may_match("/src/07/*.h", "src/08"), 0, "a leading '/' is the root");
	is_int(repo_glob_dir_may_match("src/0[0-7]/*", "src/08"), 0, "a class skips what it excludes");
	is_int(repo_glob_dir_may_match("src/0[0-7]/*", "src/03"), 1, "a class reads what it names");
	is_int(repo_glob_dir_may_match("*.h", "any/depth/at/all"), 1, "a glob without '/' reads every directory");
	is_int(repo_glob_dir_may_match("src/**/deep.h", "src/07/sub/more"), 1, "'**' reads every depth below it");
	is_int(repo_glob_dir_may_match("src/**/deep.h", "doc"), 0, "but not beside it");
	is_int(repo_glob_dir_may_match("src/*.h", "src"), 1, "the directory of a file");
	is_int(repo_glob_dir_may_match("src/*.h", "src/07"), 0, "not one below it");
	return done_testing();
}
