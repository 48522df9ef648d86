/* repo_glob: the path globs of search_code ('*', '?', [...], '**'). */
#include <string.h>

#include "store/repo.h"

/* Matches one segment [p, pe) against the segment pattern [g, ge): '*', '?', [...]. */
static int
seg_match(const char *g, const char *ge, const char *p, const char *pe)
{
	const char	*star_g = NULL, *star_p = NULL;

	while (p < pe) {
		if (g < ge && *g == '*') {
			star_g = ++g;
			star_p = p;
			continue;
		}
		if (g < ge && *g == '[') {
			const char	*c = g + 1;
			int		 neg = 0, ok = 0;

			if (c < ge && (*c == '!' || *c == '^')) {
				neg = 1;
				c++;
			}
			while (c < ge && (*c != ']' || c == g + 1 + neg)) {
				if (c + 2 < ge && c[1] == '-' && c[2] != ']') {
					if (*p >= c[0] && *p <= c[2])
						ok = 1;
					c += 3;
				} else {
					if (*p == *c)
						ok = 1;
					c++;
				}
			}
			if (c < ge && ok != neg) {
				g = c + 1;
				p++;
				continue;
			}
		} else if (g < ge && (*g == '?' || *g == *p ||
		    (*g == '\\' && g + 1 < ge && g[1] == *p))) {
			g += *g == '\\' ? 2 : 1;
			p++;
			continue;
		}
		if (star_g == NULL)
			return 0;
		g = star_g;
		p = ++star_p;
	}
	while (g < ge && *g == '*')
		g++;
	return g == ge;
}

/*
 * Matches segment lists: glob [g, ge) against path [p, pe), both '/'-separated.
 * "**" takes zero or more whole segments.  Like '*' in seg_match, only the
 * last "**" is ever backtracked to, so a glob of many "**" costs at most
 * glob segments x path segments steps, never an exponential search.
 */
static int
path_match(const char *g, const char *ge, const char *p, const char *pe)
{
	const char	*gs = ge, *ps, *star_g = NULL, *star_p = NULL;

	for (;;) {
		if (g < ge) {
			gs = memchr(g, '/', (size_t)(ge - g));
			if (gs == NULL)
				gs = ge;
			if (gs - g == 2 && g[0] == '*' && g[1] == '*') {
				g = gs < ge ? gs + 1 : ge;
				if (g == ge)
					return 1;	/* trailing "**": everything below */
				star_g = g;
				star_p = p;
				continue;
			}
		}
		if (p == pe && g == ge)
			return 1;
		if (p < pe && g < ge) {
			ps = memchr(p, '/', (size_t)(pe - p));
			if (ps == NULL)
				ps = pe;
			if (seg_match(g, gs, p, ps)) {
				g = gs < ge ? gs + 1 : ge;
				p = ps < pe ? ps + 1 : pe;
				continue;
			}
		}
		/* Let the last "**" take one more segment, then retry what follows it. */
		if (star_g == NULL || star_p == pe)
			return 0;
		ps = memchr(star_p, '/', (size_t)(pe - star_p));
		star_p = ps != NULL ? ps + 1 : pe;
		g = star_g;
		p = star_p;
	}
}

int
repo_glob_match(const char *glob, const char *path)
{
	const char	*base;

	if (strchr(glob, '/') == NULL) {
		base = strrchr(path, '/');
		base = base != NULL ? base + 1 : path;
		return seg_match(glob, glob + strlen(glob), base, base + strlen(base));
	}
	if (glob[0] == '/')
		glob++;
	return path_match(glob, glob + strlen(glob), path, path + strlen(path));
}

/*
 * Whether some path below the directory dir ("a/b", no trailing '/') can
 * match glob: the search skips a subtree that cannot.  Sure only when it
 * says no: a glob without '/' names a last segment at any depth, and a
 * "**" among the segments dir reaches may take any of them.
 */
int
repo_glob_dir_may_match(const char *glob, const char *dir)
{
	const char	*g, *gs, *d = dir, *ds;

	if (strchr(glob, '/') == NULL)
		return 1;
	g = glob[0] == '/' ? glob + 1 : glob;
	while (*d != '\0') {
		ds = strchr(d, '/');
		if (ds == NULL)
			ds = d + strlen(d);
		gs = strchr(g, '/');
		if (gs == NULL)
			return strcmp(g, "**") == 0;	/* only a file's name is left */
		if (gs - g == 2 && g[0] == '*' && g[1] == '*')
			return 1;
		if (!seg_match(g, gs, d, ds))
			return 0;
		g = gs + 1;
		d = *ds == '/' ? ds + 1 : ds;
	}
	return 1;
}
