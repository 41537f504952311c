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

/* One output row in the rows order, accumulated in acc (E * OW scalars; wk: E * KW). */
static void TFC(row)(const tfc_geo *g, TFC_T *restrict acc, TFC_T *restrict wk,
                     const TFC_T *x, const TFC_T *w, tfc_i oy) {
    const tfc_i xs3 = g->xs[3], step = g->sw * xs3, kstep = g->dw * xs3;
    const tfc_i ilo = g->ilo, ihi = g->ihi;
    tfc_i c, kh, kw, e;
    for (c = 0; c < g->CG; c++) {
        const TFC_T *xc = x + c * g->xs[1], *wc = w + c * g->ws[1];
        for (kh = 0; kh < g->KH; kh++) {
            const tfc_i iy = oy * g->sh + kh * g->dh - g->ph;
            if (iy < 0 || iy >= g->H)
                continue;
            const TFC_T *xr = xc + iy * g->xs[2], *wr = wc + kh * g->ws[2];
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
}

/* One output row in the dots order. */
static void TFC(dots_row)(const tfc_geo *g, TFC_T *restrict acc, const TFC_T *x,
                          const TFC_T *w, tfc_i oy) {
    const tfc_i xs3 = g->xs[3], ws3 = g->ws[3];
    tfc_i c, kh, ox;
    for (c = 0; c < g->CG; c++) {
        const TFC_T *xc = x + c * g->xs[1], *wc = w + c * g->ws[1];
        for (kh = 0; kh < g->KH; kh++) {
            const tfc_i iy = oy * g->sh + kh * g->dh - g->ph;
            if (iy < 0 || iy >= g->H)
                continue;
            const TFC_T *xr = xc + iy * g->xs[2], *wr = wc + kh * g->ws[2];
            for (ox = 0; ox < g->OW; ox++) {
                const tfc_i off = ox * g->sw - g->pw;
                tfc_i klo, khi;   /* the taps kw with 0 <= off + kw * dw < W */
                tfc_range(off, g->dw, g->W, g->KW, &klo, &khi);
                if (klo < khi)
                    TFC(dot)(acc + TFC_E * ox, wr + klo * ws3, ws3,
                             xr + (off + klo * g->dw) * xs3, g->dw * xs3, khi - klo);
            }
        }
    }
}

static int TFC(items)(const tfc_geo *g, tfc_i start, tfc_i end) {
    TFC_T *acc = (TFC_T *)malloc(sizeof(TFC_T) * TFC_E * (g->OW + g->KW + 1));
    tfc_i item, i, e;
    if (acc == NULL)
        return -1;
    for (item = start; item < end; item++) {
        const tfc_i oy = item % g->OH, t = item / g->OH, o = t % g->O, n = t / g->O;
        const TFC_T *x = (const TFC_T *)g->x + n * g->xs[0] + (o / g->OG) * g->CG * g->xs[1];
        const TFC_T *w = (const TFC_T *)g->w + o * g->ws[0];
        TFC_T *out = (TFC_T *)g->o + n * g->os[0] + o * g->os[1] + oy * g->os[2];
        for (i = 0; i < TFC_E * g->OW; i++)
            acc[i] = 0;
        if (g->dots)
            TFC(dots_row)(g, acc, x, w, oy);
        else
            TFC(row)(g, acc, acc + TFC_E * g->OW, x, w, oy);
        for (i = 0; i < g->OW; i++)
            for (e = 0; e < TFC_E; e++)
                out[i * g->os[3] + e] = acc[TFC_E * i + e];
    }
    free(acc);
    return 0;
}

#undef TFC_E
#undef TFC_T
#undef TFC_CPLX
#undef TFC
