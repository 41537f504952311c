/* The direct 2-d convolution of _conv.pyx: the geometry every loop reads, and the loops
 * (_conv_loops.h) instantiated for float32, float64, complex64 and complex128.
 *
 *   out[n, o, oy, ox] = sum_{c < CG, kh, kw} w[o, c, kh, kw]
 *                         * xd[n, (o / OG) * CG + c, oy*sh + kh*dh - ph, ox*sw + kw*dw - pw]
 *
 * where xd is x with lh - 1 (lw - 1) zeros between its rows (columns), read as zero
 * outside its extent (the padding, positive or negative, and the inserted zeros are
 * never materialised).  One item is one output row (n, o, oy); items are independent,
 * so a thread split changes no value.  Two loop orders:
 *
 * - rows (most convolutions): the row is accumulated in a scratch row, one
 *   multiply-add pass per (c, kh, kw) over the output positions where that tap meets
 *   the input (lo[kw] <= ox < hi[kw]); the interior, where every kw does, takes the KW
 *   taps in one pass.  Vector code along ox.  With lw > 1 (then sw = 1: the input
 *   gradient of a strided convolution) a tap meets the input at every lw-th output
 *   column only, so the scratch row holds the columns phase by phase (ox = r + lw q at
 *   phase r's offset aoff + q) and each tap is a contiguous pass over its phase.
 * - dots (few output columns from a wide kernel: a weight's gradient, whose "kernel"
 *   is the output gradient; lw = 1): per output position a dot product along kw,
 *   vector code along the kernel row.
 *
 * Strides are in scalar units (a complex element is two scalars: real, imaginary).
 */
#ifndef TENFERRO_CONV_H
#define TENFERRO_CONV_H

#include <stddef.h>
#include <stdlib.h>

typedef ptrdiff_t tfc_i;

/* A loop over items [start, end) of the geometry geo (a tfc_geo, a tfp_geo); -1 when
 * it cannot allocate its scratch, else 0. */
typedef int (*tfc_items_fn)(const void *geo, tfc_i start, tfc_i end);

typedef struct {
    const char *x, *w;
    char *o;
    tfc_i N, C, H, W, O, CG, OG, KH, KW, OH, OW;
    tfc_i xs[4], ws[4], os[4];   /* strides in scalars */
    tfc_i sh, sw, dh, dw, ph, pw, lh, lw;
    tfc_i *lo, *hi;              /* rows, per kw: the ox range (lw > 1: q range of its
                                    phase) where that tap meets the input; dots, per ox
                                    (OW < KW): the kw range that meets the input */
    tfc_i *aoff, *xoff;          /* lw > 1, per kw: its phase's offset in the scratch row;
                                    the input column of q = 0.  sw > 1: aoff[kw] + ox,
                                    where tap kw of column ox is in the input row's
                                    phases (_conv_loops.h, row_strided) */
    tfc_i ilo, ihi;              /* the interior: every tap meets the input (lw = 1) */
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

static inline tfc_i tfc_mod(tfc_i a, tfc_i b) {   /* b > 0; in [0, b) */
    return a - tfc_floor_div(a, b) * b;
}

/* The phase r of the output columns ox = r + lw q: how many there are. */
static inline tfc_i tfc_phase_len(const tfc_geo *g, tfc_i r) {
    return r < g->OW ? (g->OW - r + g->lw - 1) / g->lw : 0;
}

/* Fills the per-tap tables from buf (4 * KW, the caller's) and the interior. */
static void tfc_setup(tfc_geo *g, tfc_i *buf) {
    tfc_i kw, r, off;
    g->lo = buf;
    g->hi = buf + g->KW;
    g->aoff = buf + 2 * g->KW;
    g->xoff = buf + 3 * g->KW;
    g->ilo = 0;
    g->ihi = g->OW;
    if (g->dots) {   /* per output column (OW < KW) */
        for (off = 0; off < g->OW; off++)
            tfc_range(off * g->sw - g->pw, g->dw, g->W, g->KW, g->lo + off, g->hi + off);
        return;
    }
    for (kw = 0; kw < g->KW; kw++) {
        if (g->lw > 1) {   /* sw = 1: ox = r + lw q meets column q + xoff */
            const tfc_i d = kw * g->dw - g->pw;
            r = tfc_mod(-d, g->lw);
            for (off = 0, g->aoff[kw] = 0; off < r; off++)
                g->aoff[kw] += tfc_phase_len(g, off);
            g->xoff[kw] = (r + d) / g->lw;
            tfc_range(g->xoff[kw], 1, g->W, tfc_phase_len(g, r), g->lo + kw, g->hi + kw);
        } else {
            const tfc_i d = kw * g->dw - g->pw, Wp = (g->W + g->sw - 1) / g->sw;
            /* sw > 1: column ox * sw + d is in phase d % sw at index ox + d / sw */
            g->aoff[kw] = tfc_mod(d, g->sw) * Wp + tfc_floor_div(d, g->sw);
            tfc_range(d, g->sw, g->W, g->OW, g->lo + kw, g->hi + kw);
            if (g->lo[kw] > g->ilo) g->ilo = g->lo[kw];
            if (g->hi[kw] < g->ihi) g->ihi = g->hi[kw];
        }
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


/* By dtype: 0 float32, 1 float64, 2 complex64, 3 complex128. */
static const tfc_items_fn tfc_items_fns[4] = {
    tfc_items_f32, tfc_items_f64, tfc_items_c64, tfc_items_c128};

#endif
