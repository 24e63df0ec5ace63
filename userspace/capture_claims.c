// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/capture_claims.c - which file each stored build-id came from.
 */
#include <stdlib.h>
#include <string.h>

#include "capture_claims.h"

void capture_claims_init(struct capture_claims *cl)
{
	memset(cl, 0, sizeof(*cl));
}

static void claim_free(struct capture_claim *c)
{
	free(c->dirs);
	free(c->path);
	free(c);
}

void capture_claims_free(struct capture_claims *cl)
{
	size_t i;

	for (i = 0; i < cl->map.cap; i++)
		if (cl->map.slots[i].hash)
			claim_free((struct capture_claim *)cl->map.slots[i].value);
	hashmap_free(&cl->map);
}

static int same_id(uintptr_t value, const void *key)
{
	const struct capture_claim *c = (const void *)value;
	const struct mmap3_build_id *bid = key;

	return c->size == bid->size && !memcmp(c->id, bid->data, bid->size);
}

struct capture_claim *capture_claims_find(struct capture_claims *cl,
					  const struct mmap3_build_id *bid)
{
	return (void *)hashmap_find(&cl->map, hashmap_hash(bid->data, bid->size), same_id, bid);
}

static int set_str(char **to, const char *s)
{
	char *copy = NULL;

	if (s && !(copy = strdup(s)))
		return -1;
	free(*to);
	*to = copy;
	return 0;
}

int capture_claims_set(struct capture_claims *cl, const struct mmap3_build_id *bid,
		       int root_owned, const char *dirs, const char *path)
{
	struct capture_claim *c = capture_claims_find(cl, bid);
	int fresh = !c;

	if (fresh) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return -1;
		c->size = bid->size;
		memcpy(c->id, bid->data, bid->size);
	}
	if (set_str(&c->dirs, dirs) || set_str(&c->path, path))
		goto fail;
	c->root_owned = root_owned;
	if (fresh && hashmap_add(&cl->map, hashmap_hash(bid->data, bid->size), (uintptr_t)c))
		goto fail;
	return 0;
fail:
	if (fresh)
		claim_free(c);
	return -1;
}

void capture_claims_forget(struct capture_claims *cl, const struct mmap3_build_id *bid)
{
	struct capture_claim *c = capture_claims_find(cl, bid);

	if (c && hashmap_remove(&cl->map, hashmap_hash(bid->data, bid->size), (uintptr_t)c))
		claim_free(c);
}
