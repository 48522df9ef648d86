/* get_pull_request_diff: not written yet. */
