/* repo_merge: not written yet. */
