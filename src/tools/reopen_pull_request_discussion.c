/* reopen_pull_request_discussion: not written yet. */
