/* hold: a process held at a chosen point while a test acts (fault hooks). */
#ifndef FM_HOLD_H
#define FM_HOLD_H

/*
 * Creates path and waits until it is removed, at most 60 s: the test that
 * named path acts in the meantime, then removes it.  Only the fault hooks
 * of --enable-debug builds call it.
 */
void	hold_until_removed(const char *path);

#endif
