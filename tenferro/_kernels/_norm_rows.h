/* The row functions of _norm.h for one element type TFN_T (included once per dtype).
 *
 * A row's statistics are computed in double, in two passes over the row (which the
 * forward and backward passes leave in cache): the mean (the sum scaled by a power of
 * two first where it would overflow), then the deviations from it, whose sum corrects
 * the mean and whose squares give the variance (the corrected two-pass algorithm:
 * exact for a row of equal values, whose variance is then 0; the squares are scaled by
 * a power of two where they overflow).  float32 rows take one pass about their first
 * element where double's digits cover the cancellation (see moments).  They are rounded to TFN_T, and the
 * normalized values computed in TFN_T from them, as PyTorch's mean and rstd are saved
 * in the input's dtype:
 *
 *   layer_norm: mean, rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * w + b
 *   rms_norm:   rstd = 1 / sqrt(mean(x^2) + eps),  y = x * rstd * w
 *
 * The backward functions recompute the statistics (so the values are those of the
 * forward pass) and follow PyTorch's decomposition of the layer_norm backward
 * (torch/_decomp/decompositions.py, native_layer_norm_backward), with g = dy * w and
 * xhat the normalized row (for rms_norm, mean = 0):
 *
 *   dx = rstd / n * (n * g - sum(g) - xhat * sum(g * xhat))     (rms_norm: no sum(g))
 *   dw += dy * xhat,  db += dy                                  (summed over the rows)
 *
 * w, b, dx, dw, db may be NULL (absent: a weight of ones, a bias of zeros, no output).
 */

/* mean and rstd of row x[0:n] (n >= 1); rms: the mean is 0 */
static inline void TFN(moments)(const TFN_T *x, ptrdiff_t n, int rms, double eps,
                                TFN_T *mean, TFN_T *rstd) {
    double m = 0.0, q = 0.0, c = 0.0;
    if (!rms && sizeof(TFN_T) < sizeof(double)) {
        /* float32: one pass about the shift k = x[0], in double.  Sums of squares about
         * k less c^2 / n lose digits as (x[0] - mean)^2 / var grows; while the loss is
         * under 8 of double's 16 the variance is still far below float32's rounding,
         * else (an outlier first, NaN, inf) the passes below. */
        const double k = (double)x[0];
        TFN_SUM2(n, c, (double)x[i] - k, q, ((double)x[i] - k) * ((double)x[i] - k));
        const double ss = q - c * (c / (double)n);
        if (isfinite(q) && ss >= q * 1e-8) {
            *mean = (TFN_T)(k + c / (double)n);
            *rstd = (TFN_T)(1.0 / sqrt(ss / (double)n + eps));
            return;
        }
    }
    if (!rms) {
        double s;   /* (a first estimate, in the input's dtype: the deviations' sum
                       below corrects it) */
        TFN_SUM_AS(TFN_T, n, s, x[i]);
        if (isinf(s)) {   /* overflow (or an inf): sum x / 2^k, exact for finite x */
            const double sc = ldexp(1.0, -(int)ceil(log2((double)n)));
            double s2;
            TFN_SUM(n, s2, (double)x[i] * sc);
            if (isfinite(s2)) s = s2 / ((double)n * sc);
        } else {
            s /= (double)n;
        }
        m = (TFN_T)s;
    }
    /* the deviations from m: their sum c corrects the mean to mu = m + c / n (a row of
     * equal values gets its value exactly), and sum (x - mu)^2 = sum (x - m)^2 - c^2 / n
     * (Chan, Golub and LeVeque's corrected two-pass algorithm) */
    TFN_SUM2(n, c, (double)x[i] - m, q, ((double)x[i] - m) * ((double)x[i] - m));
    if (!rms && isfinite(c)) {
        if (isfinite(q)) q -= c * (c / (double)n);
        m = (TFN_T)(m + c / (double)n);
    }
    if (q < 0) q = 0;
    *mean = (TFN_T)m;
    if (isinf(q) && isfinite(m)) {   /* squares overflow: deviations scaled by 2^-k */
        double mx = 0.0;
#pragma omp simd reduction(max:mx)
        for (ptrdiff_t i = 0; i < n; i++) mx = fmax(mx, fabs((double)x[i] - m));
        if (mx == 0) {
            q = 0;
        } else if (isfinite(mx)) {
            const double sc = ldexp(1.0, -ilogb(mx));
            TFN_SUM(n, q, (((double)x[i] - m) * sc) * (((double)x[i] - m) * sc));
            *rstd = (TFN_T)(sc / sqrt(q / (double)n + eps * sc * sc));
            return;
        }
    }
    *rstd = (TFN_T)(1.0 / sqrt(q / (double)n + eps));
}

static void TFN(forward_row)(const TFN_T *x, const TFN_T *w, const TFN_T *b, TFN_T *y,
                             ptrdiff_t n, int rms, double eps) {
    TFN_T mean, rstd;
    TFN(moments)(x, n, rms, eps, &mean, &rstd);
    if (w != NULL && b != NULL) {
#pragma omp simd
        for (ptrdiff_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
    } else if (w != NULL) {
#pragma omp simd
        for (ptrdiff_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd * w[i];
    } else if (b != NULL) {
#pragma omp simd
        for (ptrdiff_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd + b[i];
    } else {
#pragma omp simd
        for (ptrdiff_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd;
    }
}

/* dx of one row (if dx), and its terms added to the partial sums pw, pb (if given:
 * double rows of n) */
static void TFN(backward_row)(const TFN_T *dy, const TFN_T *x, const TFN_T *w, TFN_T *dx,
                              double *pw, double *pb, ptrdiff_t n, int rms, double eps) {
    TFN_T mean, rstd;
    TFN(moments)(x, n, rms, eps, &mean, &rstd);
    if (pw != NULL) {
#pragma omp simd
        for (ptrdiff_t i = 0; i < n; i++) pw[i] += (double)(dy[i] * ((x[i] - mean) * rstd));
    }
    if (pb != NULL) {
#pragma omp simd
        for (ptrdiff_t i = 0; i < n; i++) pb[i] += (double)dy[i];
    }
    if (dx == NULL) return;
    double sg, sgx;
    if (w != NULL)
        TFN_SUM2(n, sg, (double)(dy[i] * w[i]),
                 sgx, (double)((dy[i] * w[i]) * ((x[i] - mean) * rstd)));
    else
        TFN_SUM2(n, sg, (double)dy[i], sgx, (double)(dy[i] * ((x[i] - mean) * rstd)));
    const TFN_T a = (TFN_T)((double)rstd / (double)n), fn = (TFN_T)n;
    const TFN_T c1 = rms ? (TFN_T)0 : (TFN_T)sg, c2 = (TFN_T)sgx;
    if (w != NULL) {
#pragma omp simd
        for (ptrdiff_t i = 0; i < n; i++)
            dx[i] = a * (fn * (dy[i] * w[i]) - c1 - ((x[i] - mean) * rstd) * c2);
    } else {
#pragma omp simd
        for (ptrdiff_t i = 0; i < n; i++)
            dx[i] = a * (fn * dy[i] - c1 - ((x[i] - mean) * rstd) * c2);
    }
}

#undef TFN_T
#undef TFN
