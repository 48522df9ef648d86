/* merge_pull_request: not written yet. */
