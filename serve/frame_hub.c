#include "frame_hub.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct ks_frame_hub {
    pthread_mutex_t lock;
    ks_hub_item *latest[KS_HUB_NUM];
    unsigned long long seq[KS_HUB_NUM];
};

static atomic_long ks_hub_items_alive;

ks_status ks_frame_hub_create(ks_frame_hub **out)
{
    *out = NULL;
    ks_frame_hub *h = calloc(1, sizeof *h);
    if (!h) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_init(&h->lock, NULL);
    *out = h;
    return KS_OK;
}

void ks_frame_hub_destroy(ks_frame_hub *h)
{
    if (!h) return;
    for (int i = 0; i < KS_HUB_NUM; ++i) ks_hub_item_unref(h->latest[i]);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

ks_hub_item *ks_hub_item_new(size_t size)
{
    ks_hub_item *it = calloc(1, sizeof *it + size);
    if (!it) return NULL;
    atomic_init(&it->refs, 1);
    it->size = size;
    atomic_fetch_add(&ks_hub_items_alive, 1);
    return it;
}

void ks_hub_item_ref(ks_hub_item *it)
{
    if (it) atomic_fetch_add(&it->refs, 1);
}

void ks_hub_item_unref(ks_hub_item *it)
{
    if (it && atomic_fetch_sub(&it->refs, 1) == 1) {
        atomic_fetch_sub(&ks_hub_items_alive, 1);
        free(it);
    }
}

void ks_frame_hub_put(ks_frame_hub *h, ks_hub_slot slot, ks_hub_item *it)
{
    pthread_mutex_lock(&h->lock);
    it->seq = ++h->seq[slot];
    ks_hub_item *old = h->latest[slot];
    h->latest[slot] = it;
    pthread_mutex_unlock(&h->lock);
    ks_hub_item_unref(old);
}

ks_hub_item *ks_frame_hub_get(ks_frame_hub *h, ks_hub_slot slot)
{
    pthread_mutex_lock(&h->lock);
    ks_hub_item *it = h->latest[slot];
    ks_hub_item_ref(it);
    pthread_mutex_unlock(&h->lock);
    return it;
}

unsigned long long ks_frame_hub_seq(ks_frame_hub *h, ks_hub_slot slot)
{
    pthread_mutex_lock(&h->lock);
    unsigned long long s = h->seq[slot];
    pthread_mutex_unlock(&h->lock);
    return s;
}

long ks_frame_hub_live_items(void)
{
    return atomic_load(&ks_hub_items_alive);
}
