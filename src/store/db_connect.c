/*
 * db_connect: connecting to MariaDB, and saying why a connection failed in
 * the configuration's terms: where it tried (db_socket, or db_host and
 * db_port), the server's or the client library's reason, and the keys to
 * check.  A refused login is told from an outage (db_login_refused): both
 * are ERR_UNAVAILABLE to a request, but only an outage passes by itself.
 */
#include <stdio.h>
#include <string.h>
#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>

#include "conf.h"
#include "err.h"
#include "log.h"
#include "store/db.h"
#include "store/db-internal.h"

#define DB_CONNECT_TIMEOUT	3
#define DB_RW_TIMEOUT		30

/* Whether error no is the server refusing the login or the database: no outage. */
static int
db_refusal(unsigned no)
{
	switch (no) {
	case ER_ACCESS_DENIED_ERROR:			/* 1045: user or password */
	case ER_ACCESS_DENIED_NO_PASSWORD_ERROR:	/* 1698: the same, no password given */
	case ER_DBACCESS_DENIED_ERROR:			/* 1044: db_name not granted */
	case ER_BAD_DB_ERROR:				/* 1049: no database db_name */
		return 1;
	default:
		return 0;
	}
}

/* Whether the connection goes through a unix socket named by db_socket (db_write_socket). */
static int
db_by_socket(const struct db_node *n)
{
	return n->socket != NULL && n->socket[0] != '\0';
}

/* Whether the connection goes to the client library's default socket. */
static int
db_by_default(const struct db_node *n)
{
	return n->host == NULL || n->host[0] == '\0' || strcmp(n->host, "localhost") == 0;
}

/* Where a connection goes, in the configuration's keys, into out. */
static void
db_where(char *out, size_t len, const struct db_node *n)
{
	if (db_by_socket(n))
		snprintf(out, len, "through %s_socket %s", n->keys, n->socket);
	else if (db_by_default(n))
		snprintf(out, len, "through the default socket (%s_socket is not set)", n->keys);
	else
		snprintf(out, len, "at %s_host %s, %s_port %u", n->keys, n->host, n->keys, n->port);
}

/* What to check after a connection failed with error no, into out. */
static void
db_hint(char *out, size_t len, const struct config *c, const struct db_node *n, unsigned no)
{
	switch (no) {
	case ER_ACCESS_DENIED_ERROR:
	case ER_ACCESS_DENIED_NO_PASSWORD_ERROR:
		if (c->db_password != NULL && c->db_password[0] != '\0')
			snprintf(out, len, "check db_user and db_password");
		else
			snprintf(out, len, "check db_user, and that the system user running "
			    "forgemcp is the one the database account is IDENTIFIED VIA "
			    "unix_socket for");
		break;
	case ER_DBACCESS_DENIED_ERROR:
		snprintf(out, len, "check db_name, and that db_user was granted it");
		break;
	case ER_BAD_DB_ERROR:
		snprintf(out, len, "check db_name, or create the database");
		break;
	default:
		if (db_by_socket(n))
			snprintf(out, len, "check %s_socket, and that MariaDB is running", n->keys);
		else if (db_by_default(n))
			snprintf(out, len, "set %s_socket to the server's socket, and check that "
			    "MariaDB is running", n->keys);
		else
			snprintf(out, len, "check %s_host and %s_port, and that MariaDB is running",
			    n->keys, n->keys);
	}
}

/* Logs and records why my failed to connect; returns ERR_UNAVAILABLE. */
static int
db_connect_failed(struct db *db, MYSQL *my, struct err *e)
{
	unsigned	 no = mysql_errno(my);
	char		 where[300], hint[200], msg[sizeof(e->msg)];

	db_where(where, sizeof(where), &db->node);
	db_hint(hint, sizeof(hint), db->cfg, &db->node, no);
	/* a long socket path and server message are cut at the message's size */
	if (snprintf(msg, sizeof(msg), "cannot connect to the database %s: %s (%s)", where,
	    mysql_error(my), hint) < 0)
		msg[0] = '\0';
	db->refused = db_refusal(no);
	if (db->refused)
		log_error("database login refused (%u), a configuration error that will not "
		    "pass by itself: %s", no, msg);
	else
		log_error("database connect failed (%u): %s", no, msg);
	return err_set(e, ERR_UNAVAILABLE, "%s", msg);
}

int
db_connect(struct db *db, struct err *e)
{
	const struct config	*c = db->cfg;
	MYSQL			*my = NULL;
	unsigned		 tmo = DB_CONNECT_TIMEOUT, rw = DB_RW_TIMEOUT;
	const struct db_node	*n = &db->node;
	const char		*host = !db_by_default(n) ? n->host : "localhost";
	char			 init[300];
	int			 rc = 0;

	if (db->my != NULL)
		return 0;
	/* A transaction dies with its connection: never go on outside it. */
	if (db->in_tx)
		return err_set(e, ERR_UNAVAILABLE, "database connection lost in a transaction");
	if ((my = mysql_init(NULL)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	mysql_options(my, MYSQL_OPT_CONNECT_TIMEOUT, &tmo);
	mysql_options(my, MYSQL_OPT_READ_TIMEOUT, &rw);
	mysql_options(my, MYSQL_OPT_WRITE_TIMEOUT, &rw);
	mysql_options(my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	/* a row lock is waited for at most request_timeout (then ERR_CONFLICT: retry) */
	snprintf(init, sizeof init, "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,"
	    "NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', "
	    "innodb_lock_wait_timeout = %u", c->request_timeout > 0 ? c->request_timeout : 10);
	mysql_options(my, MYSQL_INIT_COMMAND, init);
	if (db_by_socket(n)) {
		unsigned proto = MYSQL_PROTOCOL_SOCKET;

		mysql_options(my, MYSQL_OPT_PROTOCOL, &proto);
		host = "localhost";
	}
	if (mysql_real_connect(my, host, c->db_user != NULL ? c->db_user : "forgemcp",
	    c->db_password, c->db_name != NULL ? c->db_name : "forgemcp", n->port,
	    db_by_socket(n) ? n->socket : NULL, CLIENT_MULTI_STATEMENTS) == NULL) {
		rc = db_connect_failed(db, my, e);
		goto done;
	}
	db->refused = 0;
	db->my = my;
	my = NULL;
done:
	if (my != NULL)
		mysql_close(my);
	return rc;
}

int
db_login_refused(const struct db *db)
{
	return db->refused;
}
