/* list_inbox: not written yet. */
