/* close_issue: not written yet. */
