/* The window argmax of 2-d max pooling (_conv.pyx's pool_argmax), float32 and float64:
 * for each output (b, oy, ox), the flat index iy * W + ix of its window's maximum over
 * x[b] (H, W), PyTorch's: the first maximum in row-major window order, or the window's
 * last NaN; padding never wins (only input elements are visited), a window of -inf
 * points at its first input element, a window of padding only at 0.
 *
 * One item is one output row (b, oy); per kernel tap, in row-major order, one pass over
 * the output columns it meets (lo[kw] <= ox < hi[kw], as the convolution's rows order),
 * vector code along ox with the running maxima and their indices in scratch rows.
 */
#ifndef TENFERRO_CONV_POOL_H
#define TENFERRO_CONV_POOL_H

#include <stdint.h>
#include <math.h>
#include "_conv.h"

typedef struct {
    const char *x;
    char *o;
    tfc_i B, H, W, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw;
    tfc_i xs[3], os[3];   /* strides in elements */
    tfc_i *lo, *hi;       /* per kw: the output columns that tap meets */
    tfc_i *first;         /* per ox: its window's first input column, or -1 */
} tfp_geo;

/* Fills lo, hi (KW each) and first (OW) from buf (2 * KW + OW, the caller's). */
static void tfp_setup(tfp_geo *g, tfc_i *buf) {
    tfc_i kw, ox;
    g->lo = buf;
    g->hi = buf + g->KW;
    g->first = buf + 2 * g->KW;
    for (ox = 0; ox < g->OW; ox++)
        g->first[ox] = -1;
    for (kw = g->KW - 1; kw >= 0; kw--) {
        tfc_range(kw * g->dw - g->pw, g->sw, g->W, g->OW, g->lo + kw, g->hi + kw);
        for (ox = g->lo[kw]; ox < g->hi[kw]; ox++)
            g->first[ox] = ox * g->sw + kw * g->dw - g->pw;
    }
}

#define TFP_LOOPS(SUF, T, NEG_INF)                                                        \
static int tfp_items_##SUF(const void *geo, tfc_i start, tfc_i end) {                    \
    const tfp_geo *g = (const tfp_geo *)geo;                                              \
    T *best = (T *)malloc(sizeof(T) * (g->OW + 1));                                      \
    int64_t *idx = (int64_t *)malloc(sizeof(int64_t) * (g->OW + 1));                     \
    tfc_i item, ox, kh, kw;                                                               \
    if (best == NULL || idx == NULL) {                                                    \
        free(best);                                                                       \
        free(idx);                                                                        \
        return -1;                                                                        \
    }                                                                                     \
    for (item = start; item < end; item++) {                                              \
        const tfc_i oy = item % g->OH, b = item / g->OH, y0 = oy * g->sh - g->ph;         \
        tfc_i fy = -1;   /* the window's first input row */                               \
        for (kh = 0; kh < g->KH && fy < 0; kh++)                                          \
            if (y0 + kh * g->dh >= 0 && y0 + kh * g->dh < g->H)                           \
                fy = y0 + kh * g->dh;                                                     \
        for (ox = 0; ox < g->OW; ox++) {                                                  \
            best[ox] = NEG_INF;                                                           \
            idx[ox] = fy >= 0 && g->first[ox] >= 0 ? fy * g->W + g->first[ox] : 0;        \
        }                                                                                 \
        for (kh = 0; kh < g->KH; kh++) {                                                  \
            const tfc_i iy = y0 + kh * g->dh;                                             \
            if (iy < 0 || iy >= g->H)                                                     \
                continue;                                                                 \
            const T *xr = (const T *)g->x + b * g->xs[0] + iy * g->xs[1];                 \
            for (kw = 0; kw < g->KW; kw++) {                                              \
                const tfc_i off = kw * g->dw - g->pw, lo = g->lo[kw], hi = g->hi[kw];     \
                const tfc_i step = g->sw * g->xs[2], base = iy * g->W + off;              \
                const T *xk = xr + off * g->xs[2];                                        \
                _Pragma("omp simd")                                                       \
                for (ox = lo; ox < hi; ox++) {                                            \
                    const T v = xk[ox * step];                                            \
                    const int m = v > best[ox] || v != v;                                 \
                    best[ox] = m ? v : best[ox];                                          \
                    idx[ox] = m ? base + ox * g->sw : idx[ox];                            \
                }                                                                         \
            }                                                                             \
        }                                                                                 \
        int64_t *o = (int64_t *)g->o + b * g->os[0] + oy * g->os[1];                      \
        for (ox = 0; ox < g->OW; ox++)                                                    \
            o[ox * g->os[2]] = idx[ox];                                                   \
    }                                                                                     \
    free(best);                                                                           \
    free(idx);                                                                            \
    return 0;                                                                             \
}

TFP_LOOPS(f32, float, -INFINITY)
TFP_LOOPS(f64, double, -(double)INFINITY)
#undef TFP_LOOPS

/* By dtype: 0 float32, 1 float64. */
static const tfc_items_fn tfp_items_fns[2] = {tfp_items_f32, tfp_items_f64};

#endif
