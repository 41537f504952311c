/* A cache of freed large buffers for tenferro's CPU outputs.
 *
 * NumPy lets an allocator be installed per context (NEP 49, PyDataMem_Handler); an
 * array remembers the handler that allocated it and frees through it.  tenferro's CPU
 * driver allocates its large outputs (>= TF_CACHE_MIN bytes) through this handler, so
 * when such an array dies its buffer is kept for the next output of the same size
 * instead of being returned to the OS: a fresh 80 MB buffer otherwise costs ~20,000
 * page faults, about as much as the arithmetic of `x + y`.  Other NumPy arrays are
 * untouched.  Bounded by tf_cache_limit bytes; fresh buffers of >= 4 MiB are 2 MiB
 * aligned and asked to be huge pages, as NumPy does.
 */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>

#define TF_CACHE_SLOTS 32
#define TF_CACHE_MIN ((size_t)1 << 20)
#define TF_HUGE_MIN ((size_t)4 << 20)

typedef struct { void *ptr; size_t size; } tf_slot;

static tf_slot tf_slots[TF_CACHE_SLOTS];
static size_t tf_cached = 0;
static size_t tf_cache_limit = (size_t)1 << 30;
static size_t tf_hits = 0, tf_misses = 0;
static pthread_mutex_t tf_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void *tf_fresh(size_t size)
{
    void *p = NULL;
    if (size >= TF_HUGE_MIN) {
        if (posix_memalign(&p, (size_t)2 << 20, size) != 0)
            return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, size, MADV_HUGEPAGE);
#endif
        return p;
    }
    return malloc(size);
}

/* Free every cached buffer (caller holds the lock). */
static void tf_cache_drop_locked(void)
{
    for (int i = 0; i < TF_CACHE_SLOTS; i++) {
        if (tf_slots[i].ptr) {
            free(tf_slots[i].ptr);
            tf_slots[i].ptr = NULL;
        }
    }
    tf_cached = 0;
}

static void *tf_cache_malloc(void *ctx, size_t size)
{
    (void)ctx;
    if (size == 0)
        size = 1;
    if (size >= TF_CACHE_MIN) {
        pthread_mutex_lock(&tf_cache_lock);
        for (int i = 0; i < TF_CACHE_SLOTS; i++) {
            if (tf_slots[i].ptr && tf_slots[i].size == size) {
                void *p = tf_slots[i].ptr;
                tf_slots[i].ptr = NULL;
                tf_cached -= size;
                tf_hits++;
                pthread_mutex_unlock(&tf_cache_lock);
                return p;
            }
        }
        tf_misses++;
        if (tf_cached + size > tf_cache_limit)
            tf_cache_drop_locked();  /* memory is better spent on the new buffer */
        pthread_mutex_unlock(&tf_cache_lock);
    }
    return tf_fresh(size);
}

static void *tf_cache_calloc(void *ctx, size_t nelem, size_t elsize)
{
    (void)ctx;
    return calloc(nelem ? nelem : 1, elsize ? elsize : 1);
}

static void *tf_cache_realloc(void *ctx, void *ptr, size_t new_size)
{
    (void)ctx;
    return realloc(ptr, new_size ? new_size : 1);
}

static void tf_cache_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    if (ptr == NULL)
        return;
    if (size >= TF_CACHE_MIN) {
        pthread_mutex_lock(&tf_cache_lock);
        if (tf_cached + size <= tf_cache_limit) {
            for (int i = 0; i < TF_CACHE_SLOTS; i++) {
                if (tf_slots[i].ptr == NULL) {
                    tf_slots[i].ptr = ptr;
                    tf_slots[i].size = size;
                    tf_cached += size;
                    pthread_mutex_unlock(&tf_cache_lock);
                    return;
                }
            }
        }
        pthread_mutex_unlock(&tf_cache_lock);
    }
    free(ptr);
}

static PyDataMem_Handler tf_cache_handler = {
    "tenferro_buffer_cache",
    1,
    {NULL, tf_cache_malloc, tf_cache_calloc, tf_cache_realloc, tf_cache_free}
};

static void tf_cache_clear(void)
{
    pthread_mutex_lock(&tf_cache_lock);
    tf_cache_drop_locked();
    pthread_mutex_unlock(&tf_cache_lock);
}

static void tf_cache_set_limit(size_t limit)
{
    pthread_mutex_lock(&tf_cache_lock);
    tf_cache_limit = limit;
    if (tf_cached > limit)
        tf_cache_drop_locked();
    pthread_mutex_unlock(&tf_cache_lock);
}
