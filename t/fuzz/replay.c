/* replay: runs a fuzz harness over its seed corpus with the normal compiler and prints TAP. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#ifndef FUZZ_CORPUS
#error "FUZZ_CORPUS must name the harness's seed corpus directory"
#endif

static int	replay_run;
static int	replay_failed;

static void
replay_result(int ok, const char *name, const char *why)
{
	replay_run++;
	if (!ok)
		replay_failed++;
	printf("%sok %d - %s%s%s\n", ok ? "" : "not ", replay_run, name, why ? ": " : "",
	    why ? why : "");
	fflush(stdout);
}

/* Reads a whole file into a buffer of exactly its size, so an overread is caught. */
static int
replay_read(unsigned char **out, size_t *outlen, const char *path)
{
	FILE		*f = NULL;
	unsigned char	*buf = NULL;
	struct stat	 st;
	int		 rc = -1;

	*out = NULL;
	*outlen = 0;
	if ((f = fopen(path, "rb")) == NULL || fstat(fileno(f), &st) != 0)
		goto done;
	if ((buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1)) == NULL)
		goto done;
	if (st.st_size > 0 && fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		goto done;
	*out = buf;
	*outlen = (size_t)st.st_size;
	buf = NULL;
	rc = 0;
done:
	free(buf);
	if (f != NULL)
		fclose(f);
	return rc;
}

static void
replay_file(const char *path, const char *name)
{
	unsigned char	*buf = NULL;
	size_t		 len;

	if (replay_read(&buf, &len, path) != 0) {
		replay_result(0, name, strerror(errno));
		return;
	}
	/* A crash ends the run here, so name the input first. */
	printf("# %s\n", name);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	replay_result(1, name, NULL);
}

static int
replay_visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static void
replay_dir(const char *dir)
{
	struct dirent	**list = NULL;
	struct stat	  st;
	const char	 *base = strrchr(dir, '/') != NULL ? strrchr(dir, '/') + 1 : dir;
	char		 *path = NULL, *name = NULL;
	int		  n, i, files = 0;

	if ((n = scandir(dir, &list, replay_visible, alphasort)) < 0) {
		replay_result(0, dir, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		if (asprintf(&path, "%s/%s", dir, list[i]->d_name) < 0 ||
		    asprintf(&name, "%s/%s", base, list[i]->d_name) < 0) {
			replay_result(0, list[i]->d_name, "out of memory");
		} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			replay_file(path, name);
			files++;
		}
		free(path);
		free(name);
		path = name = NULL;
		free(list[i]);
	}
	free(list);
	if (files == 0)
		replay_result(0, dir, "no seed files");
}

/*
 * With no arguments replays the seed corpus this program was built for;
 * otherwise each argument is a corpus directory or a single input file.
 * Prints one TAP line per input; exits 0 when every input ran.
 */
int
main(int argc, char **argv)
{
	struct stat	st;
	int		i;

	LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
	replay_result(1, "the empty input", NULL);
	if (argc < 2)
		replay_dir(FUZZ_CORPUS);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0)
			replay_result(0, argv[i], strerror(errno));
		else if (S_ISDIR(st.st_mode))
			replay_dir(argv[i]);
		else
			replay_file(argv[i], argv[i]);
	}
	printf("1..%d\n", replay_run);
	return replay_failed == 0 ? 0 : 1;
}
