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

#endif
