/* The key of a device action (run_priv.h, ofl_action_key): the action the
 * plan declared, and nothing else (docs/design.md, "Device-link cache").
 * Its words, with the link's own files (named by their bytes' hash, in a
 * directory each link names anew) as their bytes; its whole environment;
 * every file it may read: the link's own by their bytes, any other by its
 * identity (real path, size, modification time), or by its bytes when it
 * changed in the last 2 s (a file just made by ar or a build: its
 * identity may not tell its bytes yet), or as absent.  What the key saw
 * of each file is kept, to check after the command that nothing changed
 * while it ran (ofl_action_unchanged): what changed is not stored. */
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

/* A word, the link's directory in it as "@link" (its files are keyed by
 * their bytes, as declared: the name each link gives it does not
 * matter). */
static void key_word(struct ofl_cache_key *k, const char *tag, const char *w, const char *tmp)
{
	const char *at = strstr(w, tmp);
	if (!at) {
		ofl_key_str(k, tag, w);
		return;
	}
	struct ofl_buf b = OFL_BUF_INIT;
	ofl_buf_printf(&b, "%.*s@link%s", (int)(at - w), w, at + strlen(tmp));
	ofl_key_str(k, tag, b.data ? (const char *)b.data : w);
	ofl_buf_release(&b);
}

/* A file of the link's own: the bytes it will be written with, those it
 * has (an earlier action's output), or nothing yet (this one's). */
static int key_own(struct ofl_cache_key *k, struct ofl_link *l, const struct link_group *g,
                   const char *path)
{
	size_t next = 0;
	struct stat st;
	/* under the lock: another action of the group (a partition's) may be
	 * writing its pending files meanwhile, and freeing their bytes */
	pthread_mutex_lock(&l->lock);
	const struct pending_write *w = ofl_devlink_pending(g, path, &next);
	if (w)
		ofl_key_input(k, l->cache, "input", holder(l, w->data, w->size), w->data, w->size);
	pthread_mutex_unlock(&l->lock);
	if (w)
		return 0;
	if (!stat(path, &st))
		return ofl_key_content(k, path);
	else
		ofl_key_str(k, "output", strrchr(path, '/'));
	return 0;
}

/* Another file: its identity, or its bytes while it may still change
 * unseen (pinned: the same key once it has settled); absent; what the key
 * saw into s. */
static int key_other(struct ofl_cache_key *k, struct ofl_cache *c, const struct act_file *f,
                     struct seen *s)
{
	if (stat(f->path, &s->st)) {
		s->st.st_ino = 0;
		ofl_key_str(k, "absent", f->path);
		return 0;
	}
	if (f->how == ACT_ABSENT)
		ofl_key_str(k, "present", f->path); /* made since the plan */
	return ofl_key_file(k, c, f->path);
}

int ofl_action_key(struct ofl_link *l, const struct link_action *a, uint8_t key[OFL_CACHE_KEY_SIZE],
                   struct stat **seen)
{
	struct ofl_cache_key k;
	const struct link_group *g = &l->groups[a->group];
	struct seen *s = ofl_calloc(a->nfiles + 1, sizeof(*s));
	if (!s)
		return -1;
	ofl_key_init(&k);
	for (size_t j = 0; j < a->njobs; j++) {
		ofl_key_str(&k, "job", "");
		for (size_t i = 0; i < a->jobs[j].n; i++)
			key_word(&k, "word", a->jobs[j].v[i], l->tmpdir);
	}
	for (char *const *e = a->env; *e; e++)
		key_word(&k, "env", *e, l->tmpdir);
	int rc = 0;
	for (size_t i = 0; !rc && i < a->nfiles; i++) {
		const struct act_file *f = &a->files[i];
		ofl_key_str(&k, "file",
		            ofl_link_owns(l, f->path) ? strrchr(f->path, '/') : f->path);
		rc = ofl_link_owns(l, f->path) ? key_own(&k, l, g, f->path)
		                               : key_other(&k, l->cache, f, &s[i]);
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
		if (ofl_link_owns(l, a->files[i].path))
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
