/*
 * forge: the store's forge modules in one include, for the layers above the
 * store (services, tools, the command line).  Inside the store each file
 * includes the one module header it uses, so no store header includes this.
 */
#ifndef FM_FORGE_H
#define FM_FORGE_H

#include "store/db_forge.h"
#include "store/db_inbox.h"
#include "store/db_variables.h"
#include "store/db_activity.h"
#include "store/db_discussions.h"
#include "store/db_revisions.h"
#include "store/db_checks.h"
#include "store/db_merges.h"

#endif
