/* reopen_issue: not written yet. */
