/* mark_notification_read: not written yet. */
