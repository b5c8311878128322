/* The key of a device action (run_priv.h, ofl_action_key): the action the
 * plan declared, and nothing else (docs/design.md, "Device-link cache").
 * The launcher's words and its jobs' words (the link's folder @link, the
 * working folder @cwd where the image does not depend on it); the
 * variables its tools read; every file it may read by its bytes, under
 * the name it is read by, or as absent.  What a search looked at first
 * and found empty is not in it (the search's answer is), but must still
 * be empty.  What the key saw of each file is kept, to check after the
 * command that nothing changed while it ran (ofl_action_unchanged): what
 * changed is not stored.  Nothing in it is this machine's own (times,
 * inodes, the loader cache's bytes): another machine with the same
 * toolchain at the same places makes the same key. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "cache_priv.h"
#include "internal.h"
#include "run_priv.h"

struct seen {
	struct stat st; /* as the key saw the file; st_ino 0: absent */
};

/* The input file whose mapping holds a large input's bytes (their
 * identity can stand for them: a memo), or NULL. */
static const struct ofl_file *holder(const struct ofl_link *l, const uint8_t *p, size_t n)
{
	for (size_t i = 0; n >= OFL_KEY_MEMO_MIN && i < l->nfiles; i++)
		if (ofl_file_offset_of(&l->files[i].f, p, n) >= 0)
			return &l->files[i].f;
	for (size_t i = 0; n >= OFL_KEY_MEMO_MIN && i < l->nunits; i++)
		if (l->units[i].thin && ofl_file_offset_of(l->units[i].thin, p, n) >= 0)
			return l->units[i].thin;
	return NULL;
}

/* A file's name in the key: the link's own by its name in the link's
 * folder, one in the working folder below @cwd, any other as it is. */
static void key_name(struct ofl_cache_key *k, const char *tag, const struct ofl_link *l,
                     const char *path)
{
	const char *cwd = l->memo.cwd;
	size_t n = cwd ? strlen(cwd) : 0;
	char label[PATH_MAX + 16];
	if (ofl_link_owns(l, path))
		snprintf(label, sizeof(label), "@link%s", strrchr(path, '/'));
	else if (n && !strncmp(path, cwd, n) && path[n] == '/')
		snprintf(label, sizeof(label), "@cwd%s", path + n);
	else
		snprintf(label, sizeof(label), "%s", path);
	ofl_key_str(k, tag, label);
}

/* A file of the link's own: the bytes the link writes it with (the same
 * key before and after it is written: another action of the group may
 * have written it first), those it has (an earlier action's output), or
 * nothing yet (this one's).  The plan's pending writes stay as planned
 * while the link runs, so no lock is needed to read them. */
static int key_own(struct ofl_cache_key *k, struct ofl_link *l, const struct link_group *g,
                   const char *path)
{
	size_t next = 0;
	struct stat st;
	const struct pending_write *w = ofl_devlink_pending(g, path, &next);
	if (w)
		ofl_key_input(k, l->cache, holder(l, w->data, w->size), w->data, w->size);
	else if (!stat(path, &st))
		return ofl_key_file(k, NULL, NULL, path, NULL);
	else
		ofl_key_str(k, "output", strrchr(path, '/'));
	return 0;
}

/* Another file: by its bytes, as absent, or (looked at by a search) not
 * at all, as long as it is still not there; what the key saw into s. */
static int key_other(struct ofl_cache_key *k, const struct ofl_link *l, const struct act_file *f,
                     struct seen *s)
{
	if (f->how == ACT_LOADER_CACHE)
		return 0;
	if (f->how == ACT_CONTENT) {
		/* a response file: the bytes the plan read (the memo is the
		 * plan's, read only once it is made) */
		const struct ofl_rsp_file *r = ofl_rsp_find(l->memo.rsp, f->path);
		key_name(k, "file", l, f->path);
		if (!r || r->state != OFL_RSP_READ)
			return ofl_key_file(k, l->cache, l->digests, f->path, &s->st);
		ofl_key_input(k, NULL, NULL, (const uint8_t *)r->text, r->n);
		s->st = r->st;
		return 0;
	}
	if (stat(f->path, &s->st)) {
		s->st.st_ino = 0;
		if (f->how == ACT_ABSENT)
			key_name(k, "absent", l, f->path);
		return 0;
	}
	if (f->how == ACT_LOOKED)
		return -1;                  /* made since the plan: its search has another answer */
	key_name(k, "present", l, f->path); /* made since the plan */
	return ofl_key_file(k, l->cache, l->digests, f->path, &s->st);
}

/* The variable name as the tools get it, the link's folder @link. */
static void key_env(struct ofl_cache_key *k, const struct ofl_link *l, const struct link_action *a,
                    const char *name)
{
	const char *v = ofl_proc_env_get(a->env, name);
	struct ofl_buf b = OFL_BUF_INIT;
	if (!v) {
		ofl_key_str(k, "unset", name);
		return;
	}
	bool own = l->tmpdir && !strcmp(v, l->tmpdir);
	ofl_buf_printf(&b, "%s=%s", name, own ? "@link" : v);
	ofl_key_str(k, "env", b.data ? (const char *)b.data : name);
	ofl_buf_release(&b);
}

int ofl_action_key(struct ofl_link *l, const struct link_action *a, uint8_t key[OFL_CACHE_KEY_SIZE],
                   struct stat **seen)
{
	struct ofl_cache_key k;
	const struct link_group *g = &l->groups[a->group];
	struct seen *s = ofl_calloc(a->nfiles + 1, sizeof(*s));
	if (!s || !a->keyjobs) {
		free(s);
		return -1;
	}
	ofl_key_init(&k);
	/* the launcher's own words: "env LLD_VERSION=B" is another link */
	for (size_t i = 0; i < l->o.nlauncher; i++)
		ofl_key_str(&k, "launcher", l->o.launcher[i]);
	for (size_t j = 0; j < a->njobs; j++) {
		ofl_key_str(&k, "job", "");
		for (size_t i = 0; i < a->keyjobs[j].n; i++)
			ofl_key_str(&k, "word", a->keyjobs[j].v[i]);
	}
	for (size_t i = 0; i < a->keyenv.n; i++)
		key_env(&k, l, a, a->keyenv.v[i]);
	int rc = 0;
	for (size_t i = 0; !rc && i < a->nfiles; i++) {
		const struct act_file *f = &a->files[i];
		if (ofl_link_owns(l, f->path)) {
			key_name(&k, "file", l, f->path);
			rc = key_own(&k, l, g, f->path);
		} else {
			rc = key_other(&k, l, f, &s[i]);
		}
	}
	ofl_key_final(&k, key);
	if (rc) {
		free(s);
		return -1;
	}
	*seen = (struct stat *)s;
	return 0;
}

bool ofl_action_unchanged(const struct ofl_link *l, const struct link_action *a,
                          const struct stat *seen)
{
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct stat *was = &seen[i];
		struct stat now;
		if (ofl_link_owns(l, a->files[i].path) || a->files[i].how == ACT_LOADER_CACHE)
			continue;
		bool there = !stat(a->files[i].path, &now);
		uint8_t a_id[OFL_STAT_ID], b_id[OFL_STAT_ID];
		if (there != (was->st_ino != 0))
			return false;
		if (!there)
			continue;
		ofl_stat_id(was, a_id);
		ofl_stat_id(&now, b_id);
		if (memcmp(a_id, b_id, sizeof(a_id)))
			return false;
	}
	return true;
}
