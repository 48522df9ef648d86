/* log: one line per event on stderr, control characters escaped. */
#ifndef FM_LOG_H
#define FM_LOG_H

enum log_level {
	LOG_ERROR,	/* LOG_ERROR */
	LOG_WARN,	/* LOG_WARN */
	LOG_INFO,	/* LOG_INFO */
	LOG_DEBUG,	/* LOG_DEBUG */
	LOG__MAX
};

void	log_set_level(enum log_level lv);
/* Silences every line (admin commands print their own one-line reasons). */
void	log_set_quiet(int quiet);
void	log_set_prog(const char *prog);
/* The request id printed on every line until cleared (NULL clears). */
void	log_set_request(const char *request_id);
void	log_msg(enum log_level lv, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
#define log_error(...)	log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
