/* revisions: not written yet. */
