/* wiki_text: what the wiki checks of a text: characters, UTF-8, page codes, roots (wiki.h). */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "hub/wiki.h"

size_t
hub_wiki_chars(const char *s)
{
	size_t	n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

int
hub_wiki_utf8_ok(const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s, *end = p + len;
	unsigned		 c, need, min;

	while (p < end) {
		c = *p++;
		if (c == 0)
			return 0;
		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, min = 0x80, c &= 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, min = 0x800, c &= 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, min = 0x10000, c &= 0x07;
		else
			return 0;
		if ((size_t)(end - p) < need)
			return 0;
		for (; need > 0; need--, p++) {
			if ((*p & 0xc0) != 0x80)
				return 0;
			c = (c << 6) | (*p & 0x3f);
		}
		if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
			return 0;
	}
	return 1;
}

int
hub_wiki_code_ok(const char *code)
{
	size_t	i = 1, digits = 0;

	if (code == NULL || !((code[0] >= 'A' && code[0] <= 'Z') ||
	    (code[0] >= 'a' && code[0] <= 'z')))
		return 0;
	while (code[i] != '\0' && code[i] != '-')
		if (!((code[i] >= 'A' && code[i] <= 'Z') || (code[i] >= 'a' && code[i] <= 'z') ||
		    (code[i] >= '0' && code[i] <= '9') || code[i] == '_') || i++ > 40)
			return 0;
	if (code[i++] != '-')
		return 0;
	for (; code[i] >= '0' && code[i] <= '9'; i++)
		digits++;
	return code[i] == '\0' && digits > 0 && digits <= 18;
}

/*
 * A root "[owner/name[@branch]:]CODE" or "confluence:CODE" split (in
 * place) into its parts; 0, or -1 when bad.
 */
int
hub_wiki_root_parse(char *root, const char **owner, const char **name, const char **branch,
    const char **code)
{
	char	*colon, *slash, *at;

	*owner = *name = *branch = NULL;
	*code = root;
	if ((colon = strrchr(root, ':')) == NULL)
		return hub_wiki_code_ok(root) ? 0 : -1;
	*colon = '\0';
	*code = colon + 1;
	if (strcmp(root, HUB_WIKI_CONFLUENCE) == 0) {
		*owner = HUB_WIKI_CONFLUENCE;
		return hub_wiki_code_ok(*code) ? 0 : -1;
	}
	if ((slash = strchr(root, '/')) == NULL)
		return -1;
	*slash = '\0';
	*owner = root;
	*name = slash + 1;
	if ((at = strchr(slash + 1, '@')) != NULL) {
		*at = '\0';
		*branch = at + 1;
	}
	if (**owner == '\0' || **name == '\0' || (*branch != NULL && **branch == '\0'))
		return -1;
	if (*branch == NULL)
		*branch = "main";
	return hub_wiki_code_ok(*code) ? 0 : -1;
}

const char *
hub_wiki_mime(const char *name)
{
	static const struct {
		const char	*ext, *mime;
	} types[] = {
		{ ".png", "image/png" }, { ".jpg", "image/jpeg" }, { ".jpeg", "image/jpeg" },
		{ ".gif", "image/gif" }, { ".svg", "image/svg+xml" }, { ".pdf", "application/pdf" },
		{ ".txt", "text/plain" }, { ".csv", "text/csv" }, { ".zip", "application/zip" },
		{ ".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
		{ ".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
	};
	size_t	i, n = strlen(name), e;

	for (i = 0; i < sizeof types / sizeof types[0]; i++)
		if (n > (e = strlen(types[i].ext)) && strcasecmp(name + n - e, types[i].ext) == 0)
			return types[i].mime;
	return "application/octet-stream";
}
