/* tenferro.special's CPU loops: _special_math.h's element functions instantiated for
 * float32 and float64 inside the elementwise kernels' 1-D loop macros
 * (_elementwise_loops.h: contiguous, broadcast-scalar and strided runs, `omp simd`),
 * and the tables _special.pyx dispatches on: tfs_unary_fns[op * 2 + dtype] and
 * tfs_binary_fns[op * 2 + dtype], dtype 0 = float32, 1 = float64, in the order of
 * TFS_UNARY_OPS / TFS_BINARY_OPS; and tfs_softmax_rows[dtype], the row kernels of
 * softmax and log_softmax.
 */
#ifndef TENFERRO_SPECIAL_H
#define TENFERRO_SPECIAL_H

#include <float.h>
#include "_elementwise_loops.h"

/* libmvec's SIMD erfc (glibc >= 2.35), declared as _elementwise_loops.h declares the
 * others. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__FAST_MATH__) \
    && !defined(TENFERRO_NO_LIBMVEC) && defined(__GLIBC__) \
    && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#pragma omp declare simd notinbranch
extern double erfc(double);
#pragma omp declare simd notinbranch
extern float erfcf(float);
#endif

/* Inlined always: a call left in a loop (GCC's size limits) stops its vectorisation. */
#define TFS_INLINE static inline __attribute__((always_inline))

#define TFS_T double
#define TFS(f) tfs_##f##_f64
#define TFS_M(f) f
#define TFS_TINY DBL_MIN
#define TFS_EXP_MIN -746.0     /* exp(-746) = 0 */
#define TFS_ERFC_ZERO 27.3     /* erfc(27.3) = 0 */
#include "_special_math.h"   /* (which #undefs these) */

#define TFS_T float
#define TFS(f) tfs_##f##_f32
#define TFS_M(g) g##f
#define TFS_TINY FLT_MIN
#define TFS_EXP_MIN -104.0f    /* expf(-104) = 0 */
#define TFS_ERFC_ZERO 10.1f    /* erfcf(10.1) = 0 */
#include "_special_math.h"   /* (which #undefs these) */

/* kl_div = rel_entr(x, y) - (x - y) cancels where x ~ y: float32 is computed in double and
 * rounded once (as scipy's float32 loop, which calls the double function). */
TFS_INLINE double tfs_kl_div_f64(double x, double y) { return tfs_kl_div_direct_f64(x, y); }
TFS_INLINE float tfs_kl_div_f32(float x, float y) {
    return (float)tfs_kl_div_direct_f64((double)x, (double)y);
}

/* The ops: X(name) for each; the loops and tables below are generated from these. */
#define TFS_UNARY_OPS(X) X(log_expit) X(logit) X(entr) X(sinc) X(erfc)
#define TFS_BINARY_OPS(X) X(xlogy) X(xlog1py) X(rel_entr) X(kl_div)

#define TFS_U(f) TF_U_LOOP(tfs_u_##f##_f32, float, float, tfs_##f##_f32(x)) \
                 TF_U_LOOP(tfs_u_##f##_f64, double, double, tfs_##f##_f64(x))
#define TFS_B(f) TF_B_LOOP(tfs_b_##f##_f32, float, float, tfs_##f##_f32(a, b)) \
                 TF_B_LOOP(tfs_b_##f##_f64, double, double, tfs_##f##_f64(a, b))
TFS_UNARY_OPS(TFS_U)
TFS_BINARY_OPS(TFS_B)

#define TFS_UENTRY(f) tfs_u_##f##_f32, tfs_u_##f##_f64,
#define TFS_BENTRY(f) tfs_b_##f##_f32, tfs_b_##f##_f64,
#define TFS_NAME(f) #f,
static tf_loop_fn tfs_unary_fns[] = {TFS_UNARY_OPS(TFS_UENTRY)};
static tf_loop_fn tfs_binary_fns[] = {TFS_BINARY_OPS(TFS_BENTRY)};
static const char *tfs_unary_names[] = {TFS_UNARY_OPS(TFS_NAME) NULL};
static const char *tfs_binary_names[] = {TFS_BINARY_OPS(TFS_NAME) NULL};

/* softmax / log_softmax of a contiguous row: tfs_softmax_rows[dtype] */
typedef void (*tfs_row_fn)(const void *x, void *o, npy_intp n, int log_mode);
static tfs_row_fn tfs_softmax_rows[] = {tfs_softmax_row_f32, tfs_softmax_row_f64};

#endif
