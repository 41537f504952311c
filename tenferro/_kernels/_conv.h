/* The direct 2-d convolution of _conv.pyx: the geometry every loop reads, and the loops
 * (_conv_loops.h) instantiated for float32, float64, complex64 and complex128.
 *
 *   out[n, o, oy, ox] = sum_{c < CG, kh, kw} w[o, c, kh, kw]
 *                         * x[n, (o / OG) * CG + c, oy*sh + kh*dh - ph, ox*sw + kw*dw - pw]
 *
 * with x read as zero outside [0, H) x [0, W) (the padding, never materialised).  One
 * item is one output row (n, o, oy); items are independent, so a thread split changes
 * no value.  Two loop orders:
 *
 * - rows (most convolutions): the row is accumulated in a scratch row, one
 *   multiply-add pass per (c, kh, kw) over the output positions where that tap meets
 *   the input (lo[kw] <= ox < hi[kw]); the interior, where every kw does, takes the KW
 *   taps in one pass.  Vector code along ox.
 * - dots (few output columns from a wide kernel: a weight's gradient, whose "kernel"
 *   is the output gradient): per output position a dot product along kw, vector code
 *   along the kernel row.
 *
 * Strides are in scalar units (a complex element is two scalars: real, imaginary).
 */
#ifndef TENFERRO_CONV_H
#define TENFERRO_CONV_H

#include <stddef.h>
#include <stdlib.h>

typedef ptrdiff_t tfc_i;

typedef struct {
    const char *x, *w;
    char *o;
    tfc_i N, C, H, W, O, CG, OG, KH, KW, OH, OW;
    tfc_i xs[4], ws[4], os[4];   /* strides in scalars */
    tfc_i sh, sw, dh, dw, ph, pw;
    tfc_i *lo, *hi;              /* per kw: the ox range where that tap meets the input */
    tfc_i ilo, ihi;              /* the interior: every tap meets the input */
    int dots;                    /* the loop order: 1 dots, 0 rows */
} tfc_geo;

static inline tfc_i tfc_ceil_div(tfc_i a, tfc_i b) {   /* b > 0 */
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

static inline tfc_i tfc_floor_div(tfc_i a, tfc_i b) {  /* b > 0 */
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The output columns ox in [0, OW) with 0 <= ox * s + off < W. */
static inline void tfc_range(tfc_i off, tfc_i s, tfc_i W, tfc_i OW, tfc_i *lo, tfc_i *hi) {
    tfc_i a = tfc_ceil_div(-off, s), b = tfc_floor_div(W - 1 - off, s) + 1;
    *lo = a < 0 ? 0 : (a > OW ? OW : a);
    *hi = b > OW ? OW : b;
    if (*hi < *lo)
        *hi = *lo;
}

/* Fills lo, hi (KW each, the caller's) and the interior. */
static void tfc_setup(tfc_geo *g, tfc_i *lo, tfc_i *hi) {
    tfc_i kw;
    g->lo = lo;
    g->hi = hi;
    g->ilo = 0;
    g->ihi = g->OW;
    for (kw = 0; kw < g->KW; kw++) {
        tfc_range(kw * g->dw - g->pw, g->sw, g->W, g->OW, lo + kw, hi + kw);
        if (lo[kw] > g->ilo) g->ilo = lo[kw];
        if (hi[kw] < g->ihi) g->ihi = hi[kw];
    }
    if (g->ihi < g->ilo)
        g->ihi = g->ilo;
}

#define TFC_T float
#define TFC_CPLX 0
#define TFC(f) tfc_##f##_f32
#include "_conv_loops.h"

#define TFC_T double
#define TFC_CPLX 0
#define TFC(f) tfc_##f##_f64
#include "_conv_loops.h"

#define TFC_T float
#define TFC_CPLX 1
#define TFC(f) tfc_##f##_c64
#include "_conv_loops.h"

#define TFC_T double
#define TFC_CPLX 1
#define TFC(f) tfc_##f##_c128
#include "_conv_loops.h"

typedef int (*tfc_items_fn)(const tfc_geo *g, tfc_i start, tfc_i end);

/* By dtype: 0 float32, 1 float64, 2 complex64, 3 complex128. */
static const tfc_items_fn tfc_items_fns[4] = {
    tfc_items_f32, tfc_items_f64, tfc_items_c64, tfc_items_c128};

#endif
