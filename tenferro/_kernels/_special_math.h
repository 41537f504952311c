/* tenferro.special's element functions, written once for a floating type.
 *
 * Not a header of its own: _special.h includes it once per dtype after defining
 *   TFS_T     the type (double, float),
 *   TFS(f)    the name of element function f for that type (tfs_expit_f64, ...),
 *   TFS_M(f)  the libm function f of that type (exp, expf, ...),
 *   TFS_TINY, TFS_EXP_MIN, TFS_ERFC_ZERO  the type's constants (_special.h says which),
 * and undefines them at its end.
 *
 * Each function follows scipy.special's formula (scipy/special/xsf: log_exp.h, xlogy,
 * entr, rel_entr; numpy.sinc), so that its value is scipy's to a few ulp, and is
 * written as straight-line code with selects rather than branches around the calls, so
 * that `omp simd` loops vectorise them with libmvec's SIMD exp/log/log1p/sin/erfc.
 */

/* log and log1p with C99's values, calling libm (libmvec) on a sanitized argument
 * outside the finite domain: a SIMD lane holding 0, a negative, inf or NaN sends
 * libmvec's vector to its slow scalar path for that lane (~20x the cost).
 *
 * The other lanes' values are *added* to the call's result (log(1) = log1p(0) = 0)
 * rather than selected, so the call stays unconditional (a call under a branch is not
 * vectorised); the good lanes add -0, the identity that keeps log1p(-0) = -0.  GCC
 * may still fold the sanitizing select away (it moves the select after the call
 * where the call folds to a constant) -- a slow lane then, never a wrong value: the
 * compiler's rewrites keep the values. */
TFS_INLINE TFS_T TFS(log)(TFS_T y) {
    const int ok = y > 0 && y < (TFS_T)INFINITY;
    return TFS_M(log)(ok ? y : (TFS_T)1)
           + (ok ? -(TFS_T)0 : (y > 0 ? y : (y == 0 ? -(TFS_T)INFINITY : (TFS_T)NAN)));
}

TFS_INLINE TFS_T TFS(log1p)(TFS_T y) {
    const int ok = y > -1 && y < (TFS_T)INFINITY;
    return TFS_M(log1p)(ok ? y : (TFS_T)0)
           + (ok ? -(TFS_T)0 : (y > -1 ? y : (y == -1 ? -(TFS_T)INFINITY : (TFS_T)NAN)));
}

/* exp(-|x|), its argument kept above where exp underflows to 0 (the slow path too). */
TFS_INLINE TFS_T TFS(exp_neg_abs)(TFS_T x) {
    const TFS_T t = -TFS_M(fabs)(x);
    return TFS_M(exp)(t < TFS_EXP_MIN ? TFS_EXP_MIN : t);
}

/* scipy.special.log_expit: x - log1p(exp(x)) for x < 0, -log1p(exp(-x)) otherwise. */
TFS_INLINE TFS_T TFS(log_expit)(TFS_T x) {
    const TFS_T l = TFS_M(log1p)(TFS(exp_neg_abs)(x));
    return x < 0 ? x - l : -l;
}

/* scipy.special.logit: log(x/(1 - x)) off [0.3, 0.65]; log1p(s) - log1p(-s), s = 2x - 1,
 * on it (no cancellation near 1/2).  -inf at 0, inf at 1, NaN outside [0, 1]. */
TFS_INLINE TFS_T TFS(logit)(TFS_T x) {
    /* one formula's terms are neutral (log1p(0), log(1)) where the other applies: every
     * call's result is used, so none is moved under a branch (which stops `omp simd`) */
    const int mid = x >= (TFS_T)0.3 && x <= (TFS_T)0.65;
    const TFS_T s = mid ? 2 * (x - (TFS_T)0.5) : (TFS_T)0;
    return (TFS_M(log1p)(s) - TFS_M(log1p)(-s)) + TFS(log)(mid ? (TFS_T)1 : x / (1 - x));
}

/* scipy.special.xlogy: x log(y), 0 where x == 0 unless y is NaN. */
TFS_INLINE TFS_T TFS(xlogy)(TFS_T x, TFS_T y) {
    const TFS_T v = x * TFS(log)(y);
    return (x == 0 && y == y) ? (TFS_T)0 : v;
}

/* scipy.special.xlog1py: x log1p(y), 0 where x == 0 unless y is NaN. */
TFS_INLINE TFS_T TFS(xlog1py)(TFS_T x, TFS_T y) {
    const TFS_T v = x * TFS(log1p)(y);
    return (x == 0 && y == y) ? (TFS_T)0 : v;
}

/* scipy.special.entr: -x log x for x > 0, 0 at 0, -inf for x < 0, NaN for NaN. */
TFS_INLINE TFS_T TFS(entr)(TFS_T x) {
    const TFS_T v = -x * TFS(log)(x);
    return x > 0 ? v : (x == 0 ? (TFS_T)0 : (x != x ? x : -(TFS_T)INFINITY));
}

/* scipy.special.rel_entr: x log(x/y) for x, y > 0 -- as x log1p((x - y)/y) for x/y in
 * (1/2, 2), x (log x - log y) where x/y over- or underflows -- 0 for x = 0 and y >= 0,
 * inf elsewhere, NaN if either is NaN. */
TFS_INLINE TFS_T TFS(rel_entr)(TFS_T x, TFS_T y) {
    /* log1p(a) + (log(b) - log(c)) is each branch's logarithm, the others' terms neutral
     * (log1p(0), log(1)), as in logit */
    const int pos = x > 0 && y > 0;
    const TFS_T xs = pos ? x : (TFS_T)1, ys = pos ? y : (TFS_T)1;
    const TFS_T r = xs / ys;
    const int near = r > (TFS_T)0.5 && r < 2, mid = r > TFS_TINY && r < (TFS_T)INFINITY;
    const TFS_T a = near ? (xs - ys) / ys : (TFS_T)0;
    const TFS_T b = near ? (TFS_T)1 : (mid ? r : xs), c = (near || mid) ? (TFS_T)1 : ys;
    const TFS_T v = xs * (TFS_M(log1p)(a) + (TFS_M(log)(b) - TFS_M(log)(c)));
    const TFS_T edge = (x != x || y != y) ? x + y
                     : ((x == 0 && y >= 0) ? (TFS_T)0 : (TFS_T)INFINITY);
    return v + (pos ? -(TFS_T)0 : edge);   /* v = 0 off pos; -0 keeps v's zero sign */
}

/* kl_div: rel_entr(x, y) - (x - y) (y at x = 0 <= y), inf off the domain, NaN if either
 * is NaN.  x - y is exact where x ~ y (Sterbenz), so only rel_entr's rounding is
 * amplified by the cancellation (scipy's x log(x/y) - x + y rounds at |x| first: 3e-6
 * relative error at x/y = 1 + 1e-5).  rel_entr's branches keep it finite where scipy's
 * x log(x/y) over- or underflows (docs/special.md). */
TFS_INLINE TFS_T TFS(kl_div_direct)(TFS_T x, TFS_T y) {
    /* off the domain rel_entr is inf, and so is inf + inf; at x = 0 <= y, y itself
     * (its zero's sign, as scipy) */
    const int ok = x != x || y != y || (x >= 0 && y >= 0 && (x == 0 || y > 0));
    const TFS_T v = TFS(rel_entr)(x, y) - (ok ? x - y : -(TFS_T)INFINITY);
    return (x == 0 && y >= 0) ? y : v;
}

/* numpy.sinc: sin(pi x)/(pi x), 1 at 0. */
TFS_INLINE TFS_T TFS(sinc)(TFS_T x) {
    const TFS_T y = (TFS_T)3.14159265358979323846264338327950288 * (x == 0 ? (TFS_T)1 : x);
    const TFS_T v = TFS_M(sin)(y) / y;
    return x == 0 ? (TFS_T)1 : v;
}

/* erfc: C99's (glibc's; libmvec's SIMD variant in loops), 0 exactly from TFS_ERFC_ZERO
 * on (computed there on 0 instead: an underflowing lane takes the slow path). */
TFS_INLINE TFS_T TFS(erfc)(TFS_T x) {
    const int zero = x > TFS_ERFC_ZERO;
    return TFS_M(erfc)(zero ? (TFS_T)0 : x) * (zero ? (TFS_T)0 : (TFS_T)1);
}

/* scipy.special.softmax (log_mode 0) and log_softmax (1) of one contiguous row of n,
 * in scipy's order of operations: m = max (NaN if any is; log_softmax: 0 where not
 * finite), e = exp(x - m), s = sum e (SIMD leaves of 128 as NumPy's pairwise sum,
 * added with Neumaier's compensation while finite), then e / s or (x - m) - log s. */
static void TFS(softmax_row)(const void *xv, void *ov, npy_intp n, int log_mode) {
    const TFS_T *x = (const TFS_T *)xv;
    TFS_T *o = (TFS_T *)ov;
    TFS_T m = -(TFS_T)INFINITY, s = 0, c = 0;
    int nan = 0;
#pragma omp simd reduction(max:m) reduction(|:nan)
    for (npy_intp i = 0; i < n; i++) { m = x[i] > m ? x[i] : m; nan |= x[i] != x[i]; }
    if (nan) m = (TFS_T)NAN;
    if (log_mode && !(m - m == 0)) m = 0;
    for (npy_intp b = 0; b < n; b += 128) {
        const npy_intp e = b + 128 < n ? b + 128 : n;
        TFS_T p = 0, t;
        if (log_mode) {
#pragma omp simd reduction(+:p)
            for (npy_intp i = b; i < e; i++) p += TFS_M(exp)(x[i] - m);
        } else {
#pragma omp simd reduction(+:p)
            for (npy_intp i = b; i < e; i++) {
                const TFS_T v = TFS_M(exp)(x[i] - m);
                o[i] = v;
                p += v;
            }
        }
        t = s + p;
        if (t - t == 0)
            c += TFS_M(fabs)(s) >= TFS_M(fabs)(p) ? (s - t) + p : (p - t) + s;
        s = t;
    }
    if (s - s == 0) s += c;
    if (log_mode) {
        const TFS_T ls = TFS_M(log)(s);
#pragma omp simd
        for (npy_intp i = 0; i < n; i++) o[i] = (x[i] - m) - ls;
    } else {
#pragma omp simd
        for (npy_intp i = 0; i < n; i++) o[i] = o[i] / s;
    }
}

#undef TFS_T
#undef TFS
#undef TFS_M
#undef TFS_TINY
#undef TFS_EXP_MIN
#undef TFS_ERFC_ZERO
