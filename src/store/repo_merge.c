/* repo_merge: merging a pull request's head into its target with libgit2 on the bare repository. */
#include <stdio.h>
#include <string.h>
#include <git2.h>

#include "buf.h"
#include "err.h"
#include "store/repo-internal.h"
#include "store/repo.h"

#define MERGE_PATHS_NAMED	20	/* conflicting paths a failure names */

/* The commit refs/heads/branch holds; GIT_ENOTFOUND when the branch is gone. */
static int
branch_oid(git_repository *r, git_oid *out, const char *branch)
{
	char		 full[300];

	if ((size_t)snprintf(full, sizeof full, "refs/heads/%s", branch) >= sizeof full)
		return GIT_ENOTFOUND;
	return git_reference_name_to_id(out, r, full);
}

/* A conflict failure naming the conflicting paths of idx. */
static int
conflict_fail(git_index *idx, const struct repo_merge_req *req, struct err *e)
{
	git_index_conflict_iterator	*it = NULL;
	const git_index_entry		*anc, *ours, *theirs;
	struct buf			 b;
	const char			*path;
	size_t				 n = 0;
	int				 rc;

	buf_init(&b);
	if (git_index_conflict_iterator_new(&it, idx) != 0) {
		rc = repo_git_fail(e, ERR_GIT, "conflicts", "cannot list the conflicts");
		goto done;
	}
	while (git_index_conflict_next(&anc, &ours, &theirs, it) == 0) {
		path = ours != NULL ? ours->path : theirs != NULL ? theirs->path :
		    anc != NULL ? anc->path : "?";
		if (n < MERGE_PATHS_NAMED &&
		    buf_printf(&b, "%s%s", n > 0 ? ", " : "", path) != 0) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
		n++;
	}
	if (n > MERGE_PATHS_NAMED && buf_printf(&b, " and %zu more",
	    n - MERGE_PATHS_NAMED) != 0) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = err_set(e, ERR_CONFLICT, "merging '%s' into '%s' conflicts in %zu file%s: %s; "
	    "resolve the conflicts on the head branch and merge again", req->head_branch,
	    req->target_branch, n, n == 1 ? "" : "s", b.len > 0 ? b.data : "?");
done:
	git_index_conflict_iterator_free(it);
	buf_release(&b);
	return rc;
}

/* The tree of head merged into target; ERR_CONFLICT naming the paths. */
static int
merged_tree(git_repository *r, git_tree **out, git_commit *target, git_commit *head,
    const struct repo_merge_req *req, struct err *e)
{
	git_merge_options	 opts;
	git_index		*idx = NULL;
	git_oid			 tree_id;
	int			 rc = 0;

	*out = NULL;
	git_merge_options_init(&opts, GIT_MERGE_OPTIONS_VERSION);
	if (git_merge_commits(&idx, r, target, head, &opts) != 0) {
		rc = repo_git_fail(e, ERR_GIT, "merge", "cannot merge the branches");
		goto done;
	}
	if (git_index_has_conflicts(idx)) {
		rc = conflict_fail(idx, req, e);
		goto done;
	}
	if (git_index_write_tree_to(&tree_id, idx, r) != 0 ||
	    git_tree_lookup(out, r, &tree_id) != 0)
		rc = repo_git_fail(e, ERR_GIT, "merge tree", "cannot write the merged tree");
done:
	git_index_free(idx);
	return rc;
}

int
repo_merge_build(struct repo_cache *c, char base[41], char result[41], const char *owner,
    const char *name, const struct repo_merge_req *req, struct err *e)
{
	git_repository		*r;
	git_commit		*target = NULL, *head = NULL;
	const git_commit	*parents[2];
	git_tree		*tree = NULL;
	git_signature		*sig = NULL;
	git_oid			 target_id, head_id, want, out_id;
	int			 rc, grc;

	base[0] = result[0] = '\0';
	if ((rc = repo_ref_check(req->head_branch, e)) != 0 ||
	    (rc = repo_ref_check(req->target_branch, e)) != 0)
		return rc;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		return rc;
	if (git_oid_fromstr(&want, req->head_commit) != 0)
		return err_set(e, ERR_INVALID, "bad head commit '%s'", req->head_commit);
	if ((grc = branch_oid(r, &target_id, req->target_branch)) == GIT_ENOTFOUND)
		return err_set(e, ERR_CONFLICT, "the target branch '%s' no longer exists",
		    req->target_branch);
	if (grc != 0)
		return repo_git_fail(e, ERR_GIT, "target", "cannot read the target branch");
	if ((grc = branch_oid(r, &head_id, req->head_branch)) == GIT_ENOTFOUND)
		return err_set(e, ERR_CONFLICT, "the head branch '%s' no longer exists: push it "
		    "again, reload the pull request and merge again", req->head_branch);
	if (grc != 0)
		return repo_git_fail(e, ERR_GIT, "head", "cannot read the head branch");
	if (!git_oid_equal(&head_id, &want))
		return err_set(e, ERR_CONFLICT, "the head branch moved since version %lld: reload "
		    "and merge again", req->version);
	git_oid_tostr(base, 41, &target_id);
	if (git_oid_equal(&head_id, &target_id) ||
	    git_graph_descendant_of(r, &target_id, &head_id) == 1)
		return err_set(e, ERR_CONFLICT, "nothing to merge: '%s' already contains every "
		    "commit of '%s'", req->target_branch, req->head_branch);
	if (req->strategy == REPO_MERGE_FAST_FORWARD) {
		if (git_graph_descendant_of(r, &head_id, &target_id) != 1)
			return err_set(e, ERR_CONFLICT, "cannot fast-forward '%s' to '%s': '%s' has "
			    "commits the head branch does not contain; merge with strategy merge "
			    "or squash, or rebase the head branch", req->target_branch,
			    req->head_branch, req->target_branch);
		git_oid_tostr(result, 41, &head_id);
		return 0;
	}
	if (git_commit_lookup(&target, r, &target_id) != 0 ||
	    git_commit_lookup(&head, r, &head_id) != 0) {
		rc = repo_git_fail(e, ERR_GIT, "commits", "cannot read the commits to merge");
		goto done;
	}
	if ((rc = merged_tree(r, &tree, target, head, req, e)) != 0)
		goto done;
	if (git_signature_now(&sig, req->who, req->email) != 0) {
		rc = repo_git_fail(e, ERR_GIT, "signature", "cannot make the committer identity");
		goto done;
	}
	parents[0] = target;
	parents[1] = head;
	if (git_commit_create(&out_id, r, NULL, sig, sig, NULL, req->message, tree,
	    req->strategy == REPO_MERGE_COMMIT ? 2 : 1, parents) != 0) {
		rc = repo_git_fail(e, ERR_GIT, "commit", "cannot write the merge commit");
		goto done;
	}
	git_oid_tostr(result, 41, &out_id);
done:
	if (rc != 0)
		base[0] = result[0] = '\0';
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(head);
	git_commit_free(target);
	return rc;
}

int
repo_merge_move(struct repo_cache *c, const char *owner, const char *name,
    const char *branch, const char *new_id, const char *old_id, const char *why,
    struct err *e)
{
	git_repository	*r;
	git_reference	*ref = NULL;
	git_oid		 to, from;
	char		 full[300];
	int		 rc, grc;

	if ((rc = repo_ref_check(branch, e)) != 0)
		return rc;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		return rc;
	if (git_oid_fromstr(&to, new_id) != 0 || git_oid_fromstr(&from, old_id) != 0)
		return err_set(e, ERR_INVALID, "bad commit id");
	if ((size_t)snprintf(full, sizeof full, "refs/heads/%s", branch) >= sizeof full)
		return err_set(e, ERR_INVALID, "branch name too long");
	grc = git_reference_create_matching(&ref, r, full, &to, 1, &from, why);
	git_reference_free(ref);
	if (grc == GIT_EMODIFIED || grc == GIT_ELOCKED || grc == GIT_ENOTFOUND) {
		git_error_clear();
		return ERR_CONFLICT;
	}
	if (grc != 0)
		return repo_git_fail(e, ERR_GIT, "ref update", "cannot move the target branch");
	return 0;
}

int
repo_merge_contains(struct repo_cache *c, char now[41], int *contains, const char *owner,
    const char *name, const char *branch, const char *commit, struct err *e)
{
	git_repository	*r;
	git_oid		 at, want;
	int		 rc, grc;

	now[0] = '\0';
	*contains = 0;
	if ((rc = repo_ref_check(branch, e)) != 0)
		return rc;
	if ((rc = repo_open(c, &r, owner, name, e)) != 0)
		return rc;
	if (git_oid_fromstr(&want, commit) != 0)
		return err_set(e, ERR_INVALID, "bad commit id '%s'", commit);
	if ((grc = branch_oid(r, &at, branch)) == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (grc != 0)
		return repo_git_fail(e, ERR_GIT, "branch", "cannot read the branch");
	git_oid_tostr(now, 41, &at);
	if (git_oid_equal(&at, &want))
		*contains = 1;
	else if (git_graph_descendant_of(r, &at, &want) == 1)
		*contains = 1;
	return 0;
}
