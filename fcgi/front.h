/* front: the FastCGI and CGI front; the only code that includes <fcgiapp.h>. */
#ifndef FM_FRONT_H
#define FM_FRONT_H

struct config;

/*
 * Serves requests until told to stop.  With a listen address it binds the
 * socket itself and pre-forks workers (replacing any that die); without one
 * it serves the inherited FastCGI socket (spawn-fcgi, systemd LISTEN_FDS,
 * Apache) or, when started as CGI, exactly one request.  argv[0] is "fcgi".
 * Returns the exit status.
 */
int	front_main(const struct config *cfg, int argc, char **argv);
/* Whether this process was started as a FastCGI responder or as CGI. */
int	front_detect(void);
/*
 * For a process started as CGI or as a FastCGI responder (front_detect)
 * whose configuration cannot be read or used: logs why (the operator's
 * message, on stderr, which the web server or process manager keeps) and
 * answers with a 503 and a JSON-RPC error that tells the client only that
 * the server is misconfigured, never the web server's bare 500 or 502: the
 * one request of a CGI run, or, on the inherited FastCGI socket, every
 * request until the process is stopped.  Returns the exit status, 1.
 */
int	front_refuse(const char *why);

#endif
