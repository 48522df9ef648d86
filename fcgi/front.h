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
/* Whether this process was started as plain CGI, to serve exactly one request. */
int	front_is_cgi(void);
/*
 * Answers the one request of a CGI run that cannot serve it, because its
 * configuration cannot be read or used: logs why (the operator's message,
 * on stderr, which the web server keeps in its error log), reads the body,
 * and writes a 503 with a JSON-RPC error that tells the client only that
 * the server is misconfigured; never the web server's bare 500.  Returns
 * the exit status, 1.
 */
int	front_cgi_refuse(const char *why);

#endif
