/* _pool.h: tenferro's claim-based parallel-for (pthreads + C11 atomics).
 *
 *     int tf_parallel_for(Py_ssize_t nchunks, int nthreads, tf_chunk_fn fn, void *ctx);
 *
 * runs fn(ctx, c) once for every chunk c in [0, nchunks) and returns the sum of what
 * the calls returned (0: success).  Unlike an OpenMP parallel region it never waits
 * for a thread that has not started: the CALLER claims chunks too, chunks are claimed
 * one at a time from an atomic range (the caller from the front, workers from the
 * back: equal threads split it as a static schedule does), and the caller waits only
 * for chunks a worker has already claimed.  A worker that wakes late (its core taken
 * by another process, or by NumPy's OpenBLAS threads spinning after a call) finds
 * every chunk claimed and does nothing; the call then costs what one thread costs.  Give it more chunks than
 * threads (the kernels use 4 per thread) so the caller can take up work a sleeping
 * worker never claimed.
 *
 * Workers are persistent, created lazily (at most nthreads - 1 take part in a job),
 * spin until TF_POOL_SPIN_NS after the caller's job has ended (up to
 * TF_POOL_SPIN_MAX_NS, yielding the core after the first TF_POOL_SPIN_NS: a worker
 * that slept while the caller finished its last chunk woke late for the next call),
 * then sleep on a condition variable.  Sleeping workers are woken only for a job
 * whose chunks left after the caller's first one would take more than
 * TF_POOL_WAKE_MIN_NS at that chunk's pace (lazy wake: a small job after a pause
 * runs on the caller alone instead of paying the wake-up).  A job of more than
 * 2^31 - 1 chunks runs on the caller alone (the claim range packs two 32-bit bounds).
 *
 * Rules that keep it correct:
 * - One job at a time.  A caller that finds the pool busy (a second Python thread, or
 *   a chunk that itself calls tf_parallel_for: nesting) runs all its chunks itself.
 * - fork: a pthread_atfork child handler (registered when the state is created)
 *   forgets the workers (they do not exist in the child), the job in flight and the
 *   BLAS gate's callers; the child starts new workers when it needs them.
 * - Late workers (the epoch argument).  A job lives in one of TF_POOL_SLOTS slots and
 *   is published by storing `cur` = epoch * TF_POOL_SLOTS + slot (epochs only grow, so
 *   every job has its own `cur`).  A worker that reads cur == w pins slot s = w % SLOTS
 *   by incrementing its `refs`, then re-reads cur: only if cur is still w does it read
 *   fn/ctx/n and claim chunks.  A caller only refills a slot that is not the current
 *   one and has refs == 0.  Everything is seq_cst, so for a worker's refs++ (W1) then
 *   cur load (R1) and a caller's earlier cur store (W2, moving cur off slot s) then its
 *   refs load (R2): if R2 read 0 (the refill goes ahead) then R2 precedes W1 in the
 *   single total order, so W2 < R2 < W1 < R1 and R1 sees the newer cur: the worker
 *   backs off before touching the slot's fields.  Otherwise R2 sees the pin and the
 *   caller picks another slot (or, with none free, runs the job itself).  A pinned
 *   slot's fields stay those of job w until the pin is dropped, so the worker can
 *   never run a chunk of a finished or newer job with stale fn/ctx: once job w is
 *   done its unclaimed `range` is empty and the worker's claims fail.
 * - The caller returns once `done` (chunks finished) == n; chunk results (`err`) are
 *   added before `done` is incremented, so the caller reads all of them.
 *
 * The state is shared by every extension module that includes this header:
 * tf_pool_attach(holder) (with the GIL, at module import) keeps it in a capsule on
 * `holder` (the tenferro._kernels package), so the modules share one set of workers.
 * It also holds the BLAS gate (_blas_gate.h: BLAS's thread count under concurrent
 * callers), which _matmul and _lapack must share; tf_blas_gate() returns it.
 */
#ifndef TF_POOL_H
#define TF_POOL_H

#include <Python.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "_blas_gate.h"

typedef int (*tf_chunk_fn)(void *ctx, Py_ssize_t chunk);

#define TF_POOL_SLOTS 8
#define TF_POOL_MAXW 64
#define TF_POOL_SPIN_NS 20000      /* a worker's spin after its last job, at least */
#define TF_POOL_SPIN_MAX_NS 200000 /* and at most (while the caller still runs its job) */
#define TF_POOL_CHUNKS_PER_THREAD 4   /* a late thread's chunks go to the others */
#define TF_POOL_WAKE_MIN_NS 30000  /* wake sleeping workers for a job longer than this */

typedef struct {
    tf_chunk_fn fn;
    void *ctx;
    Py_ssize_t n;
    _Atomic uint64_t range;     /* unclaimed chunks [lo, hi): lo | hi << 32 */
    _Atomic Py_ssize_t done;    /* chunks finished */
    _Atomic int err;            /* sum of the chunks' results */
    _Atomic int refs;           /* workers pinning this slot */
    _Atomic int seats;          /* workers still allowed to join */
} tf_job;

typedef struct {
    size_t size;                /* sizeof(tf_pool_t): modules built apart must agree */
    _Atomic uint64_t cur;       /* epoch * TF_POOL_SLOTS + slot of the newest job */
    _Atomic int busy;           /* a caller owns the pool */
    _Atomic int nsleep;         /* workers asleep on `wake` */
    _Atomic int waiting;        /* the caller sleeps on `fin` */
    _Atomic int enabled;        /* 0: tf_parallel_for uses OpenMP (comparisons) */
    _Atomic long spin_ns;
    _Atomic long wake_ns;       /* lazy wake threshold (< 0: wake before the first chunk) */
    tf_job job[TF_POOL_SLOTS];
    pthread_mutex_t mu;
    pthread_cond_t wake, fin;
    _Atomic int nworkers;       /* started (changed under mu) */
    int atfork;
    tf_blas_gate_t blas;        /* BLAS's thread count (_blas_gate.h) */
} tf_pool_t;

static tf_pool_t *tf_pool = NULL;

static int tf_pool_serial(Py_ssize_t n, tf_chunk_fn fn, void *ctx)
{
    int err = 0;
    for (Py_ssize_t c = 0; c < n; c++)
        err += fn(ctx, c);
    return err;
}

static inline long tf_pool_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

static inline void tf_pool_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Claim one chunk of j: the lowest unclaimed one (the caller), or the highest (a
 * worker), so that threads of equal speed split the range into contiguous parts as a
 * static schedule does (the same part each call: its data stays in that core's
 * cache).  -1: none left. */
static inline Py_ssize_t tf_pool_claim(tf_job *j, int back)
{
    uint64_t r = atomic_load(&j->range), nr;
    for (;;) {
        uint32_t lo = (uint32_t)r, hi = (uint32_t)(r >> 32);
        if (lo >= hi)
            return -1;
        nr = back ? ((uint64_t)(hi - 1) << 32) | lo : ((uint64_t)hi << 32) | (lo + 1);
        if (atomic_compare_exchange_weak(&j->range, &r, nr))
            return back ? (Py_ssize_t)hi - 1 : (Py_ssize_t)lo;
    }
}

/* Claim and run chunks of j until none is left (a worker claims from the back); a
 * worker wakes a sleeping caller when it finishes the last chunk. */
/* Run claimed chunk c of j and count it done; a worker that finishes the last chunk
 * wakes a sleeping caller. */
static inline void tf_pool_run(tf_pool_t *p, tf_job *j, tf_chunk_fn fn, void *ctx,
                               Py_ssize_t n, Py_ssize_t c, int worker)
{
    int e = fn(ctx, c);
    if (e)
        atomic_fetch_add(&j->err, e);
    if (atomic_fetch_add(&j->done, 1) + 1 == n && worker && atomic_load(&p->waiting)) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_signal(&p->fin);
        pthread_mutex_unlock(&p->mu);
    }
}

static void tf_pool_work(tf_pool_t *p, tf_job *j, tf_chunk_fn fn, void *ctx,
                         Py_ssize_t n, int worker)
{
    Py_ssize_t c;
    while ((c = tf_pool_claim(j, worker)) >= 0)
        tf_pool_run(p, j, fn, ctx, n, c, worker);
}

static void *tf_pool_worker(void *arg)
{
    tf_pool_t *p = (tf_pool_t *)arg;
    uint64_t seen = 0, w;
    for (;;) {
        w = atomic_load(&p->cur);
        if (w == seen) {
            /* spin spin_ns after the caller's job ends (the caller may still be on
             * its last chunk when this worker runs out), TF_POOL_SPIN_MAX_NS at most;
             * after the first spin_ns, yield the core to whoever waits for it */
            long spin = atomic_load_explicit(&p->spin_ns, memory_order_relaxed);
            long start = tf_pool_now_ns(), until = start + spin;
            int k = 0, yield = 0;
            while ((w = atomic_load_explicit(&p->cur, memory_order_relaxed)) == seen) {
                if (yield)
                    sched_yield();
                else
                    tf_pool_pause();
                if (yield || ++k % 64 == 0) {
                    long now = tf_pool_now_ns();
                    if (atomic_load_explicit(&p->busy, memory_order_relaxed)
                            && now + spin < start + TF_POOL_SPIN_MAX_NS)
                        until = now + spin;
                    if (now > until)
                        break;
                    yield = now > start + spin;
                }
            }
            if (w == seen) {
                pthread_mutex_lock(&p->mu);
                atomic_fetch_add(&p->nsleep, 1);
                while (atomic_load(&p->cur) == seen)
                    pthread_cond_wait(&p->wake, &p->mu);
                atomic_fetch_sub(&p->nsleep, 1);
                pthread_mutex_unlock(&p->mu);
            }
            continue;
        }
        seen = w;
        tf_job *j = &p->job[w % TF_POOL_SLOTS];
        atomic_fetch_add(&j->refs, 1);
        if (atomic_load(&p->cur) == w && atomic_fetch_sub(&j->seats, 1) > 0)
            tf_pool_work(p, j, j->fn, j->ctx, j->n, 1);
        atomic_fetch_sub(&j->refs, 1);
    }
    return NULL;
}

static void tf_pool_prepare(void)
{
    pthread_mutex_lock(&tf_pool->mu);
    pthread_mutex_lock(&tf_pool->blas.mu);
}

static void tf_pool_parent(void)
{
    pthread_mutex_unlock(&tf_pool->blas.mu);
    pthread_mutex_unlock(&tf_pool->mu);
}

static void tf_pool_child(void)
{
    /* the workers do not exist here; neither does a caller in another thread */
    tf_pool_t *p = tf_pool;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->fin, NULL);
    p->nworkers = 0;
    atomic_store(&p->nsleep, 0);
    atomic_store(&p->waiting, 0);
    for (int s = 0; s < TF_POOL_SLOTS; s++)
        atomic_store(&p->job[s].refs, 0);
    atomic_store(&p->busy, 0);
    tf_blas_gate_child(&p->blas);
}

/* Start workers until there are `want` (under the mutex; failures leave fewer). */
static void tf_pool_grow(tf_pool_t *p, int want)
{
    pthread_attr_t attr;
    sigset_t all, old;
    if (want > TF_POOL_MAXW)
        want = TF_POOL_MAXW;
    pthread_mutex_lock(&p->mu);
    if (!p->atfork) {
        p->atfork = pthread_atfork(tf_pool_prepare, tf_pool_parent, tf_pool_child) == 0;
    }
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* workers take no signals */
    while (p->nworkers < want) {
        pthread_t t;
        if (pthread_create(&t, &attr, tf_pool_worker, p) != 0)
            break;
        p->nworkers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    pthread_mutex_unlock(&p->mu);
}

/* Wake the sleeping workers a job of nthreads threads needs. */
static void tf_pool_wake(tf_pool_t *p, int nthreads)
{
    pthread_mutex_lock(&p->mu);
    if (nthreads - 1 >= p->nworkers)
        pthread_cond_broadcast(&p->wake);
    else
        for (int k = 0; k < nthreads - 1; k++)
            pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->mu);
}

static int tf_parallel_for_omp(Py_ssize_t n, int nthreads, tf_chunk_fn fn, void *ctx)
{
    int err = 0;
    Py_ssize_t c;
    #pragma omp parallel for schedule(static) num_threads(nthreads) reduction(+:err)
    for (c = 0; c < n; c++)
        err += fn(ctx, c);
    return err;
}

static int tf_parallel_for(Py_ssize_t n, int nthreads, tf_chunk_fn fn, void *ctx)
{
    tf_pool_t *p = tf_pool;
    if (nthreads > n)
        nthreads = (int)n;
    if (nthreads <= 1 || p == NULL || n > 0x7fffffff)
        return tf_pool_serial(n, fn, ctx);
    if (!atomic_load_explicit(&p->enabled, memory_order_relaxed))
        return tf_parallel_for_omp(n, nthreads, fn, ctx);
    if (atomic_exchange(&p->busy, 1))          /* another thread's job, or nested */
        return tf_pool_serial(n, fn, ctx);
    if (p->nworkers < nthreads - 1)
        tf_pool_grow(p, nthreads - 1);
    uint64_t c = atomic_load(&p->cur);
    int s = -1;
    for (int k = 1; k < TF_POOL_SLOTS; k++) {
        int t = (int)((c + k) % TF_POOL_SLOTS);
        if (atomic_load(&p->job[t].refs) == 0) {
            s = t;
            break;
        }
    }
    if (s < 0) {                                /* every other slot pinned */
        atomic_store(&p->busy, 0);
        return tf_pool_serial(n, fn, ctx);
    }
    tf_job *j = &p->job[s];
    j->fn = fn;
    j->ctx = ctx;
    j->n = n;
    atomic_store_explicit(&j->range, (uint64_t)n << 32, memory_order_relaxed);
    atomic_store_explicit(&j->done, 0, memory_order_relaxed);
    atomic_store_explicit(&j->err, 0, memory_order_relaxed);
    atomic_store_explicit(&j->seats, nthreads - 1, memory_order_relaxed);
    atomic_store(&p->cur, (c / TF_POOL_SLOTS + 1) * TF_POOL_SLOTS + (uint64_t)s);
    long wake_ns = atomic_load_explicit(&p->wake_ns, memory_order_relaxed);
    if (wake_ns < 0 && atomic_load(&p->nsleep) > 0)
        tf_pool_wake(p, nthreads);
    else if (atomic_load(&p->nsleep) > 0) {
        /* Lazy wake: spinning workers join at once; sleeping ones are woken only if
         * the job is worth it.  The caller runs its first chunk, and wakes them when
         * the chunks left, at that chunk's pace, would take more than wake_ns
         * (TF_POOL_WAKE_MIN_NS unless changed): a small job never pays the wake-up
         * (a syscall, and on a VM the waking of an idle virtual CPU) nor waits for a
         * worker that came late and claimed its last chunk.  A large job after a
         * pause loses at most its first chunk's share of the parallelism. */
        long t0 = tf_pool_now_ns();
        Py_ssize_t c0 = tf_pool_claim(j, 0);
        if (c0 >= 0) {
            tf_pool_run(p, j, fn, ctx, n, c0, 0);
            uint64_t r = atomic_load(&j->range);
            Py_ssize_t left = (Py_ssize_t)(uint32_t)(r >> 32) - (Py_ssize_t)(uint32_t)r;
            if (left > 0 && (double)left * (double)(tf_pool_now_ns() - t0)
                    > (double)wake_ns)
                tf_pool_wake(p, nthreads);
        }
    }
    tf_pool_work(p, j, fn, ctx, n, 0);
    if (atomic_load(&j->done) < n) {           /* chunks a worker claimed: wait */
        long until = tf_pool_now_ns() + 20000;
        int k = 0;
        while (atomic_load(&j->done) < n) {
            tf_pool_pause();
            if (++k % 64 == 0 && tf_pool_now_ns() > until)
                break;
        }
        if (atomic_load(&j->done) < n) {
            pthread_mutex_lock(&p->mu);
            atomic_store(&p->waiting, 1);
            while (atomic_load(&j->done) < n)
                pthread_cond_wait(&p->fin, &p->mu);
            atomic_store(&p->waiting, 0);
            pthread_mutex_unlock(&p->mu);
        }
    }
    int err = atomic_load(&j->err);
    atomic_store(&p->busy, 0);
    return err;
}

/* The lazy-wake threshold (ns; < -1: only returns it; -1: wake sleeping workers
 * before the caller's first chunk, as before lazy wake). */
static long tf_pool_wake_min(long ns)
{
    if (tf_pool == NULL)
        return 0;
    return ns < -1 ? atomic_load(&tf_pool->wake_ns) : atomic_exchange(&tf_pool->wake_ns, ns);
}

/* The BLAS gate every module shares (NULL before tf_pool_attach). */
static inline tf_blas_gate_t *tf_blas_gate(void) { return tf_pool ? &tf_pool->blas : NULL; }

/* Number of workers started (tests, docs). */
static int tf_pool_nworkers(void) { return tf_pool ? tf_pool->nworkers : 0; }

/* Use the pool (1) or OpenMP (0) from now on (comparisons); returns the old setting
 * (on < 0: only returns it). */
static int tf_pool_enable(int on)
{
    if (tf_pool == NULL)
        return 0;
    return on < 0 ? atomic_load(&tf_pool->enabled) : atomic_exchange(&tf_pool->enabled, on);
}

/* How long an idle worker spins before it sleeps (ns; < 0: only returns it). */
static long tf_pool_spin(long ns)
{
    if (tf_pool == NULL)
        return 0;
    return ns < 0 ? atomic_load(&tf_pool->spin_ns) : atomic_exchange(&tf_pool->spin_ns, ns);
}

static void tf_pool_capsule_free(PyObject *cap) { (void)cap; /* lives as long as the process */ }

/* Share one pool between the modules: the state lives in a capsule `_tf_pool` on
 * holder (created by the first module imported). */
static int tf_pool_attach(PyObject *holder)
{
    PyObject *cap = PyObject_GetAttrString(holder, "_tf_pool");
    if (cap == NULL) {
        PyErr_Clear();
        tf_pool_t *p = (tf_pool_t *)calloc(1, sizeof(tf_pool_t));
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->wake, NULL);
        pthread_cond_init(&p->fin, NULL);
        tf_blas_gate_init(&p->blas);
        p->size = sizeof(tf_pool_t);
        atomic_store(&p->enabled, 1);
        atomic_store(&p->spin_ns, TF_POOL_SPIN_NS);
        atomic_store(&p->wake_ns, TF_POOL_WAKE_MIN_NS);
        cap = PyCapsule_New(p, "tenferro._tf_pool", tf_pool_capsule_free);
        if (cap == NULL || PyObject_SetAttrString(holder, "_tf_pool", cap) < 0) {
            Py_XDECREF(cap);
            return -1;
        }
    }
    tf_pool_t *p = (tf_pool_t *)PyCapsule_GetPointer(cap, "tenferro._tf_pool");
    Py_DECREF(cap);
    if (p != NULL && p->size != sizeof(tf_pool_t)) {
        PyErr_SetString(PyExc_ImportError, "tenferro kernels built from different "
                        "_pool.h versions: rebuild them all (python setup.py build_ext)");
        return -1;
    }
    tf_pool = p;
    if (p == NULL)
        return -1;
    /* the fork handlers (once; under mu, as tf_pool_grow registers them): now, since
     * the BLAS gate is in use before any worker starts */
    pthread_mutex_lock(&p->mu);
    if (!p->atfork)
        p->atfork = pthread_atfork(tf_pool_prepare, tf_pool_parent, tf_pool_child) == 0;
    pthread_mutex_unlock(&p->mu);
    return 0;
}

#endif
