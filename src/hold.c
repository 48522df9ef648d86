/* hold: a process held at a chosen point while a test acts (fault hooks). */
#include <stdio.h>
#include <unistd.h>

#include "hold.h"

void
hold_until_removed(const char *path)
{
	FILE	*f;
	int	 i;

	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	for (i = 0; i < 1200 && access(path, F_OK) == 0; i++)
		usleep(50 * 1000);
}
