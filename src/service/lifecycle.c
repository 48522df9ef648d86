/* lifecycle: not written yet. */
