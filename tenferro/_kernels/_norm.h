/* tenferro.nn's normalization kernels: layer_norm and rms_norm of each row of a 2-D
 * array (rows contiguous), forward and backward, for float32 and float64.
 *
 * _norm_rows.h holds the row functions, written once and instantiated here per dtype
 * (TFN_T the element type, TFN(f) the function name); the sums run in double under
 * `omp simd` whatever the element type.
 */
#ifndef TENFERRO_NORM_H
#define TENFERRO_NORM_H

#include <math.h>
#include <stddef.h>
#include <string.h>

/* acc = sum over i in [0, n) of EXPR (an expression of i), and likewise acc2 of EXPR2 in
 * the same pass: TFN_LANES independent partial sums of type LANE (vectorised, so the
 * additions are not one chain of dependent adds), added up in double at the end. */
#define TFN_LANES 16
#define TFN_SUM2_AS(LANE, n, acc, EXPR, acc2, EXPR2) do {                             \
    LANE a_[TFN_LANES] = {0}, b_[TFN_LANES] = {0};                                     \
    ptrdiff_t i0_ = 0;                                                                 \
    for (; i0_ + TFN_LANES <= (n); i0_ += TFN_LANES) {                                 \
        _Pragma("omp simd")                                                            \
        for (int j_ = 0; j_ < TFN_LANES; j_++) {                                       \
            const ptrdiff_t i = i0_ + j_;                                              \
            a_[j_] += (EXPR);                                                          \
            b_[j_] += (EXPR2);                                                         \
        }                                                                              \
    }                                                                                  \
    for (int j_ = 0; i0_ + j_ < (n); j_++) {                                           \
        const ptrdiff_t i = i0_ + j_;                                                  \
        a_[j_] += (EXPR);                                                              \
        b_[j_] += (EXPR2);                                                             \
    }                                                                                  \
    acc = 0.0;                                                                         \
    acc2 = 0.0;                                                                        \
    for (int j_ = 0; j_ < TFN_LANES; j_++) {                                           \
        acc += (double)a_[j_];                                                         \
        acc2 += (double)b_[j_];                                                        \
    }                                                                                  \
} while (0)
#define TFN_SUM2(n, acc, EXPR, acc2, EXPR2) TFN_SUM2_AS(double, n, acc, EXPR, acc2, EXPR2)
#define TFN_SUM_AS(LANE, n, acc, EXPR) do {                                           \
    double unused_;                                                                    \
    TFN_SUM2_AS(LANE, n, acc, EXPR, unused_, 0);                                       \
    (void)unused_;                                                                     \
} while (0)
#define TFN_SUM(n, acc, EXPR) TFN_SUM_AS(double, n, acc, EXPR)

#define TFN_T double
#define TFN(f) tfn_##f##_f64
#include "_norm_rows.h"   /* (which #undefs these) */

#define TFN_T float
#define TFN(f) tfn_##f##_f32
#include "_norm_rows.h"

#endif
