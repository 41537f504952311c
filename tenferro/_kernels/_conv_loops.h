/* The loops of _conv.h for one dtype: included once per dtype with TFC_T (the scalar
 * type), TFC_CPLX (1: elements are (real, imaginary) pairs of TFC_T) and TFC(f) (the
 * names), which it #undefs.  tfc_items_<dtype>(g, start, end) computes the output rows
 * [start, end) (item = (n * O + o) * OH + oy); it returns -1 when it cannot allocate
 * its scratch row, else 0. */

#if TFC_CPLX
#define TFC_E 2
#else
#define TFC_E 1
#endif
#define TFC_V 8   /* the lanes of a dot product (dots order) */

/* a[i] += wv * x[i * step] for i < len (complex: a and wv complex, x complex at scalar
 * stride step). */
static inline void TFC(axpy)(TFC_T *restrict a, const TFC_T *wv, const TFC_T *restrict x,
                             tfc_i len, tfc_i step) {
    tfc_i i;
#if TFC_CPLX
    const TFC_T wr = wv[0], wi = wv[1];
    _Pragma("omp simd")
    for (i = 0; i < len; i++) {
        const TFC_T xr = x[i * step], xi = x[i * step + 1];
        a[2 * i] += wr * xr - wi * xi;
        a[2 * i + 1] += wr * xi + wi * xr;
    }
#else
    const TFC_T w0 = wv[0];
    if (step == 1) {
        _Pragma("omp simd")
        for (i = 0; i < len; i++)
            a[i] += w0 * x[i];
    } else {
        _Pragma("omp simd")
        for (i = 0; i < len; i++)
            a[i] += w0 * x[i * step];
    }
#endif
}

/* The interior of a row: a[i] += sum_k wk[k] * x[i * step + k * kstep] for i < len
 * (wk: K packed weights), K a constant (the k loop unrolled, vector code along i);
 * 0 when K has no such loop here. */
#if TFC_CPLX
#define TFC_TAPS_K(KC)                                                                    \
    case KC:                                                                              \
        _Pragma("omp simd")                                                               \
        for (i = 0; i < len; i++) {                                                       \
            TFC_T sr = a[2 * i], si = a[2 * i + 1];                                       \
            for (k = 0; k < KC; k++) {                                                    \
                const TFC_T xr = x[i * step + k * kstep], xi = x[i * step + k * kstep + 1]; \
                sr += wk[2 * k] * xr - wk[2 * k + 1] * xi;                                \
                si += wk[2 * k] * xi + wk[2 * k + 1] * xr;                                \
            }                                                                             \
            a[2 * i] = sr;                                                                \
            a[2 * i + 1] = si;                                                            \
        }                                                                                 \
        return 1;
#else
#define TFC_TAPS_K(KC)                                                                    \
    case KC:                                                                              \
        if (step == 1) {                                                                  \
            _Pragma("omp simd")                                                           \
            for (i = 0; i < len; i++) {                                                   \
                TFC_T s = a[i];                                                           \
                for (k = 0; k < KC; k++)                                                  \
                    s += wk[k] * x[i + k * kstep];                                        \
                a[i] = s;                                                                 \
            }                                                                             \
        } else {                                                                          \
            _Pragma("omp simd")                                                           \
            for (i = 0; i < len; i++) {                                                   \
                TFC_T s = a[i];                                                           \
                for (k = 0; k < KC; k++)                                                  \
                    s += wk[k] * x[i * step + k * kstep];                                 \
                a[i] = s;                                                                 \
            }                                                                             \
        }                                                                                 \
        return 1;
#endif

static inline int TFC(taps)(TFC_T *restrict a, const TFC_T *restrict wk, tfc_i K,
                            const TFC_T *restrict x, tfc_i len, tfc_i step, tfc_i kstep) {
    tfc_i i, k;
    switch (K) {
        TFC_TAPS_K(2) TFC_TAPS_K(3) TFC_TAPS_K(4) TFC_TAPS_K(5) TFC_TAPS_K(7)
    }
    return 0;
}
#undef TFC_TAPS_K

/* s += sum_i w[i * ws] * x[i * xs] for i < len (complex: s a pair). */
static inline void TFC(dot)(TFC_T *s, const TFC_T *restrict w, tfc_i ws,
                            const TFC_T *restrict x, tfc_i xs, tfc_i len) {
    tfc_i i;
#if TFC_CPLX
    TFC_T sr = 0, si = 0;
    _Pragma("omp simd reduction(+:sr, si)")
    for (i = 0; i < len; i++) {
        const TFC_T wr = w[i * ws], wi = w[i * ws + 1], xr = x[i * xs], xi = x[i * xs + 1];
        sr += wr * xr - wi * xi;
        si += wr * xi + wi * xr;
    }
    s[0] += sr;
    s[1] += si;
#else
    TFC_T r = 0;
    if (ws == 1 && xs == 1) {
        _Pragma("omp simd reduction(+:r)")
        for (i = 0; i < len; i++)
            r += w[i] * x[i];
    } else {
        _Pragma("omp simd reduction(+:r)")
        for (i = 0; i < len; i++)
            r += w[i * ws] * x[i * xs];
    }
    s[0] += r;
#endif
}

/* The input row that output row oy meets through tap kh, or -1 (padding, a zero row). */
static inline tfc_i TFC(in_row)(const tfc_geo *g, tfc_i oy, tfc_i kh) {
    const tfc_i t = oy * g->sh + kh * g->dh - g->ph;
    if (g->lh == 1)   /* (no division) */
        return t >= 0 && t < g->H ? t : -1;
    if (t < 0 || t % g->lh)
        return -1;
    return t / g->lh < g->H ? t / g->lh : -1;
}

/* The input rows (xrs) and kernel rows (wrs) that output row oy combines: one per input
 * channel c of the group and kernel row kh whose input row is not padding; their
 * count. */
static tfc_i TFC(rows_of)(const tfc_geo *g, const TFC_T *x, const TFC_T *w, tfc_i oy,
                          const TFC_T **xrs, const TFC_T **wrs) {
    tfc_i c, kh, n = 0;
    for (c = 0; c < g->CG; c++)
        for (kh = 0; kh < g->KH; kh++) {
            const tfc_i iy = TFC(in_row)(g, oy, kh);
            if (iy >= 0) {
                xrs[n] = x + c * g->xs[1] + iy * g->xs[2];
                wrs[n++] = w + c * g->ws[1] + kh * g->ws[2];
            }
        }
    return n;
}

/* One output row in the rows order with lw > 1, acc phase by phase. */
static void TFC(row_dilated)(const tfc_geo *g, TFC_T *restrict acc,
                             const TFC_T *const *xrs, const TFC_T *const *wrs, tfc_i nr) {
    const tfc_i xs3 = g->xs[3];
    tfc_i r, kw;
    for (r = 0; r < nr; r++) {
        const TFC_T *xr = xrs[r], *wr = wrs[r];
        for (kw = 0; kw < g->KW; kw++) {
            const tfc_i lo = g->lo[kw], hi = g->hi[kw];
            if (lo < hi)
                TFC(axpy)(acc + TFC_E * (g->aoff[kw] + lo), wr + kw * g->ws[3],
                          xr + (lo + g->xoff[kw]) * xs3, hi - lo, xs3);
        }
    }
}

#if !TFC_CPLX
/* The interior of a strided row from its deinterleaved input: a[i] += sum_k wk[k] *
 * xk[k][i] for i < len, K a constant as in taps (0 without such a loop). */
#define TFC_TAPSP_K(KC)                                                                   \
    case KC:                                                                              \
        _Pragma("omp simd")                                                               \
        for (i = 0; i < len; i++) {                                                       \
            TFC_T s = a[i];                                                               \
            for (k = 0; k < KC; k++)                                                      \
                s += wk[k] * xk[k][i];                                                    \
            a[i] = s;                                                                     \
        }                                                                                 \
        return 1;

static inline int TFC(taps_phased)(TFC_T *restrict a, const TFC_T *restrict wk, tfc_i K,
                                   const TFC_T *const *xk, tfc_i len) {
    tfc_i i, k;
    switch (K) {
        TFC_TAPSP_K(2) TFC_TAPSP_K(3) TFC_TAPSP_K(4) TFC_TAPSP_K(5) TFC_TAPSP_K(7)
    }
    return 0;
}
#undef TFC_TAPSP_K

/* One output row in the rows order with sw > 1 (real dtypes): each input row is first
 * split into its sw phases (ph: W + sw scalars; column j at (j % sw) * Wp + j / sw),
 * where every tap reads a contiguous run (from aoff[kw] + ox) instead of every sw-th
 * element. */
static void TFC(row_strided)(const tfc_geo *g, TFC_T *restrict acc, TFC_T *restrict wk,
                             TFC_T *restrict ph, const TFC_T *const *xrs,
                             const TFC_T *const *wrs, tfc_i nr) {
    const tfc_i xs3 = g->xs[3], sw = g->sw, Wp = (g->W + sw - 1) / sw;
    const tfc_i ilo = g->ilo, ihi = g->ihi;
    const TFC_T *xk[8];
    tfc_i r, kw, p, j;
    for (r = 0; r < nr; r++) {
        const TFC_T *xr = xrs[r], *wr = wrs[r];
        for (p = 0; p < sw; p++) {
            const tfc_i n = (g->W - p + sw - 1) / sw;
            for (j = 0; j < n; j++)
                ph[p * Wp + j] = xr[(p + j * sw) * xs3];
        }
        for (kw = 0; kw < g->KW; kw++) {
            wk[kw] = wr[kw * g->ws[3]];
            if (kw < 8)
                xk[kw] = ph + (g->aoff[kw] + ilo);
        }
        const int fused = ilo < ihi && g->KW <= 8
                          && TFC(taps_phased)(acc + ilo, wk, g->KW, xk, ihi - ilo);
        for (kw = 0; kw < g->KW; kw++) {
            const TFC_T *xq = ph + g->aoff[kw];
            tfc_i lo = g->lo[kw], hi = fused && g->hi[kw] > ilo ? ilo : g->hi[kw];
            if (lo < hi)
                TFC(axpy)(acc + lo, wk + kw, xq + lo, hi - lo, 1);
            lo = fused && g->lo[kw] < ihi ? ihi : g->lo[kw];
            hi = g->hi[kw];
            if (fused && lo < hi)
                TFC(axpy)(acc + lo, wk + kw, xq + lo, hi - lo, 1);
        }
    }
}
#endif

/* One output row in the rows order, accumulated in acc (E * OW scalars; wk: E * KW). */
static void TFC(row)(const tfc_geo *g, TFC_T *restrict acc, TFC_T *restrict wk,
                     const TFC_T *const *xrs, const TFC_T *const *wrs, tfc_i nr) {
    const tfc_i xs3 = g->xs[3], step = g->sw * xs3, kstep = g->dw * xs3;
    const tfc_i ilo = g->ilo, ihi = g->ihi;
    tfc_i r, kw, e;
    for (r = 0; r < nr; r++) {
        const TFC_T *xr = xrs[r], *wr = wrs[r];
        /* the edges, one tap at a time; then the interior, all taps at once (one
           at a time too for a kernel width without its own loop) */
        for (kw = 0; kw < g->KW; kw++) {
            for (e = 0; e < TFC_E; e++)
                wk[TFC_E * kw + e] = wr[kw * g->ws[3] + e];
        }
        const int fused = ilo < ihi && TFC(taps)(acc + TFC_E * ilo, wk, g->KW,
                                                 xr + (ilo * g->sw - g->pw) * xs3,
                                                 ihi - ilo, step, kstep);
        for (kw = 0; kw < g->KW; kw++) {
            const TFC_T *xk = xr + (kw * g->dw - g->pw) * xs3;
            tfc_i lo = g->lo[kw], hi = g->hi[kw] < ilo ? g->hi[kw] : ilo;
            if (!fused) {   /* the interior too: one range */
                if (lo < g->hi[kw])
                    TFC(axpy)(acc + TFC_E * lo, wk + TFC_E * kw, xk + lo * step,
                              g->hi[kw] - lo, step);
                continue;
            }
            if (lo < hi)
                TFC(axpy)(acc + TFC_E * lo, wk + TFC_E * kw, xk + lo * step, hi - lo, step);
            lo = g->lo[kw] > ihi ? g->lo[kw] : ihi;
            hi = g->hi[kw];
            if (lo < hi)
                TFC(axpy)(acc + TFC_E * lo, wk + TFC_E * kw, xk + lo * step, hi - lo, step);
        }
    }
}

#if !TFC_CPLX
/* L[v] += sum_i w[i * ws] * x[i * xs] over i = v (mod TFC_V), i < len: the dot product
 * left in TFC_V lanes (one horizontal sum per output, not per kernel row). */
static inline void TFC(dot_lanes)(TFC_T *restrict L, const TFC_T *restrict w, tfc_i ws,
                                  const TFC_T *restrict x, tfc_i xs, tfc_i len) {
    TFC_T l[TFC_V];
    tfc_i i, v;
    const tfc_i n = len - len % TFC_V;
    for (v = 0; v < TFC_V; v++)
        l[v] = L[v];
    if (ws == 1 && xs == 1) {
        for (i = 0; i < n; i += TFC_V) {
            _Pragma("omp simd")
            for (v = 0; v < TFC_V; v++)
                l[v] += w[i + v] * x[i + v];
        }
    } else {
        for (i = 0; i < n; i += TFC_V) {
            _Pragma("omp simd")
            for (v = 0; v < TFC_V; v++)
                l[v] += w[(i + v) * ws] * x[(i + v) * xs];
        }
    }
    for (v = 0; n + v < len; v++)
        l[v] += w[(n + v) * ws] * x[(n + v) * xs];
    for (v = 0; v < TFC_V; v++)
        L[v] = l[v];
}
#endif

/* One output plane (n, o) in the dots order: each kernel row is read once for all
 * the outputs (in lanes: TFC_V * OH * OW scalars, real dtypes; complex: E * OH * OW
 * sums), then out is written. */
static void TFC(dots_plane)(const tfc_geo *g, TFC_T *restrict lanes, const TFC_T *x,
                            const TFC_T *w, TFC_T *out) {
    const tfc_i xs3 = g->xs[3], ws3 = g->ws[3], OW = g->OW;
#if TFC_CPLX
    const tfc_i per = TFC_E;
#else
    const tfc_i per = TFC_V;
#endif
    tfc_i c, kh, oy, ox;
    for (ox = 0; ox < per * g->OH * OW; ox++)
        lanes[ox] = 0;
    for (c = 0; c < g->CG; c++) {
        const TFC_T *xc = x + c * g->xs[1], *wc = w + c * g->ws[1];
        for (kh = 0; kh < g->KH; kh++) {
            const TFC_T *wr = wc + kh * g->ws[2];
            for (oy = 0; oy < g->OH; oy++) {
                const tfc_i iy = TFC(in_row)(g, oy, kh);
                if (iy < 0)
                    continue;
                const TFC_T *xr = xc + iy * g->xs[2];
                for (ox = 0; ox < OW; ox++) {
                    const tfc_i off = ox * g->sw - g->pw, klo = g->lo[ox], khi = g->hi[ox];
                    if (klo < khi)
#if TFC_CPLX
                        TFC(dot)(lanes + per * (oy * OW + ox), wr + klo * ws3, ws3,
                                 xr + (off + klo * g->dw) * xs3, g->dw * xs3, khi - klo);
#else
                        TFC(dot_lanes)(lanes + per * (oy * OW + ox), wr + klo * ws3, ws3,
                                       xr + (off + klo * g->dw) * xs3, g->dw * xs3,
                                       khi - klo);
#endif
                }
            }
        }
    }
    for (oy = 0; oy < g->OH; oy++)
        for (ox = 0; ox < OW; ox++) {
            const TFC_T *l = lanes + per * (oy * OW + ox);
            TFC_T *o = out + oy * g->os[2] + ox * g->os[3];
#if TFC_CPLX
            o[0] = l[0];
            o[1] = l[1];
#else
            TFC_T r = 0;
            for (c = 0; c < TFC_V; c++)
                r += l[c];
            o[0] = r;
#endif
        }
}

/* The items [start, end): output rows (n, o, oy) in the rows order, output planes
 * (n, o) in the dots order. */
static int TFC(items)(const void *geo, tfc_i start, tfc_i end) {
    const tfc_geo *g = (const tfc_geo *)geo;
    /* rows: the row, the packed weights, a strided row's phases; dots: the lanes */
    TFC_T *acc = (TFC_T *)malloc(sizeof(TFC_T) * (g->dots ? TFC_V * TFC_E * g->OH * g->OW
                                                  : TFC_E * (g->OW + g->KW + 1)
                                                    + (g->sw > 1 ? g->W + g->sw : 0)));
    /* rows: the (input row, kernel row) pairs of an output row */
    const TFC_T **xrs = (const TFC_T **)malloc(sizeof(TFC_T *) * 2 * (g->CG * g->KH + 1));
    const TFC_T **wrs = xrs + g->CG * g->KH + 1;
    tfc_i item, i, e, nr;
    if (acc == NULL || xrs == NULL) {
        free(acc);
        free((void *)xrs);
        return -1;
    }
    for (item = start; item < end; item++) {
        const tfc_i oy = g->dots ? 0 : item % g->OH, t = g->dots ? item : item / g->OH;
        const tfc_i o = t % g->O, n = t / g->O;
        const TFC_T *x = (const TFC_T *)g->x + n * g->xs[0] + (o / g->OG) * g->CG * g->xs[1];
        const TFC_T *w = (const TFC_T *)g->w + o * g->ws[0];
        TFC_T *out = (TFC_T *)g->o + n * g->os[0] + o * g->os[1] + oy * g->os[2];
        if (g->dots) {
            TFC(dots_plane)(g, acc, x, w, out);
            continue;
        }
        for (i = 0; i < TFC_E * g->OW; i++)
            acc[i] = 0;
        nr = TFC(rows_of)(g, x, w, oy, xrs, wrs);
        if (g->lw > 1)
            TFC(row_dilated)(g, acc, xrs, wrs, nr);
#if !TFC_CPLX
        else if (g->sw > 1)
            TFC(row_strided)(g, acc, acc + g->OW, acc + g->OW + g->KW + 1, xrs, wrs, nr);
#endif
        else
            TFC(row)(g, acc, acc + TFC_E * g->OW, xrs, wrs, nr);
        if (g->lw > 1) {   /* phase by phase: ox = r + lw q */
            tfc_i r, q, a = 0;
            for (r = 0; r < g->lw; r++)
                for (q = 0; q < tfc_phase_len(g, r); q++, a++)
                    for (e = 0; e < TFC_E; e++)
                        out[(r + g->lw * q) * g->os[3] + e] = acc[TFC_E * a + e];
        } else {
            for (i = 0; i < g->OW; i++)
                for (e = 0; e < TFC_E; e++)
                    out[i * g->os[3] + e] = acc[TFC_E * i + e];
        }
    }
    free(acc);
    free((void *)xrs);
    return 0;
}

#undef TFC_E
#undef TFC_V
#undef TFC_T
#undef TFC_CPLX
#undef TFC
