/* _blas_gate.h: BLAS's thread count, shared safely by concurrent callers.
 *
 * BLAS has one process-wide thread count.  tenferro's kernels change it: a batch of
 * products or LAPACK calls spread over the kernel pool holds BLAS at one thread (the
 * pool provides the parallelism), a single product runs it at tenferro's count.  And
 * BLAS's results depend on its thread count in the last bits.  So a call must not
 * start while another thread's call has set a different count (its result would
 * differ from the same call run alone), and two callers must not save and restore the
 * count crosswise (BLAS would be left at the batch's one thread).
 *
 * The gate (a "group lock") serialises the count with the calls that depend on it:
 *
 *     tf_blas_enter(gate, want, get, set);   ... BLAS calls ...   tf_blas_leave(gate, set);
 *
 * Callers that want the same count are inside together (concurrent single products
 * run concurrently, as before).  The first of a group saves BLAS's count and sets
 * `want` if it differs; the last to leave restores the saved count.  A caller that
 * wants another count waits until the group inside has left; it is then next
 * (`next`): callers arriving meanwhile wait behind it even if they want the count
 * inside, so a stream of callers of one count cannot starve another count.  Only one
 * count is pending at a time; the callers woken when a group leaves race for the
 * next turn, which is fair enough for kernels that hold the gate for one call.
 *
 * tf_blas_set_rest(gate, n, set) sets the count (tenferro's set_num_threads, a user's
 * set_blas_threads) once no caller is inside, with a setter's priority (next = -1),
 * so a kernel's restore never undoes it; tf_blas_get_rest returns the count BLAS has
 * between calls (the saved one while a group is inside).
 *
 * Rules that keep it free of deadlocks:
 * - The gate is held only around nogil C that calls BLAS/LAPACK and the kernel pool's
 *   chunks, which never take the gate (nor the GIL): whoever is inside leaves without
 *   waiting for anything a waiter holds.  Waiters wait without the GIL (the kernels
 *   enter it in nogil sections).
 * - Nesting: a thread already inside (depth > 0) joins again without waiting, whatever
 *   the count (it would otherwise wait for itself); it runs at the outer count.  No
 *   kernel nests today.
 * - fork: _pool.h's atfork handlers hold `mu` across the fork, and the child forgets
 *   the callers inside (they do not exist there); if there were any, BLAS in the child
 *   still has their count and `stale` makes the next group restore the saved one.
 * - The mutex is held while BLAS's setter runs (never while BLAS computes).
 */
#ifndef TF_BLAS_GATE_H
#define TF_BLAS_GATE_H

#include <pthread.h>

typedef void (*tf_blas_set_fn)(int);
typedef int (*tf_blas_get_fn)(void);

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int users;      /* callers inside, all with BLAS at `count` */
    int count;      /* the count of the callers inside */
    int saved;      /* BLAS's count before they entered: restored when the last leaves */
    int next;       /* the count a waiter wants next (0: none, -1: a setter waits) */
    int nwait;      /* callers waiting on cv */
    int stale;      /* fork child: BLAS has a group's count, `saved` is the real one */
} tf_blas_gate_t;

static _Thread_local int tf_blas_depth = 0;   /* this thread's entries (nesting) */

static void tf_blas_gate_init(tf_blas_gate_t *g)
{
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->users = g->count = g->saved = g->next = g->nwait = g->stale = 0;
}

/* In a fork child (mu was held across the fork by the parent's prepare handler). */
static void tf_blas_gate_child(tf_blas_gate_t *g)
{
    int stale = g->users > 0 || g->stale, saved = g->saved;
    tf_blas_gate_init(g);
    g->stale = stale;
    g->saved = saved;
}

static void tf_blas_enter(tf_blas_gate_t *g, int want, tf_blas_get_fn get, tf_blas_set_fn set)
{
    pthread_mutex_lock(&g->mu);
    if (tf_blas_depth++ > 0) {                  /* nested: already inside */
        g->users++;
        pthread_mutex_unlock(&g->mu);
        return;
    }
    for (;;) {
        if (g->users == 0) {
            if (g->next == 0 || g->next == want) {
                int have = get();               /* start a group */
                if (!g->stale)
                    g->saved = have;
                g->stale = 0;
                if (have != want)
                    set(want);
                g->count = want;
                g->next = 0;
                g->users = 1;
                if (g->nwait)                   /* waiters of this count join */
                    pthread_cond_broadcast(&g->cv);
                break;
            }
        } else if (g->count == want && g->next == 0) {
            g->users++;                         /* join the group inside */
            break;
        } else if (g->next == 0) {
            g->next = want;                     /* go next */
        }
        g->nwait++;
        pthread_cond_wait(&g->cv, &g->mu);
        g->nwait--;
    }
    pthread_mutex_unlock(&g->mu);
}

static void tf_blas_leave(tf_blas_gate_t *g, tf_blas_set_fn set)
{
    pthread_mutex_lock(&g->mu);
    tf_blas_depth--;
    if (--g->users == 0) {
        if (g->count != g->saved)
            set(g->saved);
        if (g->nwait)
            pthread_cond_broadcast(&g->cv);
    }
    pthread_mutex_unlock(&g->mu);
}

/* Set BLAS's count to n once no caller is inside (waits for them, with priority). */
static void tf_blas_set_rest(tf_blas_gate_t *g, int n, tf_blas_set_fn set)
{
    pthread_mutex_lock(&g->mu);
    while (g->users > 0 || (g->next != 0 && g->next != -1)) {
        if (g->next == 0)
            g->next = -1;
        g->nwait++;
        pthread_cond_wait(&g->cv, &g->mu);
        g->nwait--;
    }
    set(n);
    g->stale = 0;
    g->next = 0;
    if (g->nwait)
        pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* BLAS's count between calls: the saved one while callers are inside. */
static int tf_blas_get_rest(tf_blas_gate_t *g, tf_blas_get_fn get)
{
    int n;
    pthread_mutex_lock(&g->mu);
    n = (g->users > 0 || g->stale) ? g->saved : get();
    pthread_mutex_unlock(&g->mu);
    return n;
}

#endif
