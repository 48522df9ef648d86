/* notify: not written yet. */
