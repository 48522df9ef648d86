/* get_pull_request_checks: not written yet. */
