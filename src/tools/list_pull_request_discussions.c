/* list_pull_request_discussions: not written yet. */
