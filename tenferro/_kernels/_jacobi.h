/* tenferro: the Jacobi eigensolver for tiny real symmetric matrices, TF_LANES matrices
 * at once (used by _lapack.pyx.tp's heevd for n <= JACOBI_N).
 *
 * The matrices are interleaved, element (i, j) of lane l at A[(i + j n) TF_LANES + l]
 * (column-major each, both triangles filled, scaled to max |a_ij| ~ 1).  Every lane
 * runs the same cyclic Jacobi sweeps (Golub & Van Loan, Matrix Computations 4th ed.,
 * Alg. 8.5.3, with the round-robin parallel ordering of Sec. 8.5.5), so the innermost
 * loops run over the lanes and `#pragma omp simd` makes them vector code: one AVX2
 * register holds the same element of four matrices, and the divisions and square roots
 * of the four 2 x 2 Schur decompositions go through the vector units together.  A lane
 * that has converged, or whose a_pq is negligible (|a_pq|^2 <= eps^2 |a_pp a_qq| / 4),
 * gets the identity rotation (and a negligible a_pq is set to zero).  Sweeps stop when
 * every lane's off-diagonal mass is below (eps ||A||_F)^2, which leaves eigenvalues
 * accurate to eps ||A|| as LAPACK's.
 *
 * On return A is diagonal (eigenvalues unsorted), V holds the eigenvectors as columns
 * (if vecs) and conv[l] is 1 where lane l converged (0: 60 sweeps were not enough,
 * i.e. NaNs).
 */
#ifndef TENFERRO_JACOBI_H
#define TENFERRO_JACOBI_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#define TF_LANES 4
#define TF_JACOBI_MAXN 32

/* (u, v) <- (c u - s v, s u + c v), lane by lane: one plane rotation of two rows or
 * columns of every lane's matrix */
#define TF_ROTATE_LANES(T, u, v, c_, s_)                                                  \
    _Pragma("omp simd")                                                                   \
    for (int l = 0; l < TF_LANES; l++) {                                                  \
        T x = (u)[l], y = (v)[l];                                                         \
        (u)[l] = (c_)[l] * x - (s_)[l] * y;                                               \
        (v)[l] = (s_)[l] * x + (c_)[l] * y;                                               \
    }

#define TF_DEFINE_JACOBI_LANES(NAME, T, EPS, SQRT, FABS)                                  \
static void NAME(T *restrict A, T *restrict V, int n, int vecs, T *restrict conv)        \
{                                                                                         \
    int order[TF_JACOBI_MAXN], pp[TF_JACOBI_MAXN / 2], pq[TF_JACOBI_MAXN / 2];            \
    T cc[TF_JACOBI_MAXN / 2][TF_LANES], ss[TF_JACOBI_MAXN / 2][TF_LANES];                 \
    T tr[TF_JACOBI_MAXN / 2][TF_LANES], dp[TF_JACOBI_MAXN / 2][TF_LANES];                 \
    T dq[TF_JACOBI_MAXN / 2][TF_LANES], tol[TF_LANES], off[TF_LANES];                     \
    const T eps = EPS, tiny = EPS * EPS / 4;                                              \
    const int m = n + (n & 1);                                                            \
    for (int l = 0; l < TF_LANES; l++) { tol[l] = 0; conv[l] = 0; }                      \
    for (int i = 0; i < n * n; i++) {                                                     \
        const T *a_ = A + (ptrdiff_t)i * TF_LANES;                                        \
        _Pragma("omp simd")                                                               \
        for (int l = 0; l < TF_LANES; l++) tol[l] += a_[l] * a_[l];                       \
    }                                                                                     \
    for (int l = 0; l < TF_LANES; l++) tol[l] *= eps * eps;                               \
    if (vecs)                                                                             \
        for (int j = 0; j < n; j++)                                                       \
            for (int i = 0; i < n; i++)                                                   \
                for (int l = 0; l < TF_LANES; l++)                                        \
                    V[(i + j * n) * TF_LANES + l] = (i == j);                             \
    for (int sweep = 0; sweep < 60; sweep++) {                                            \
        int done = 1;                                                                     \
        for (int l = 0; l < TF_LANES; l++) off[l] = 0;                                    \
        for (int q = 1; q < n; q++)                                                       \
            for (int p = 0; p < q; p++) {                                                 \
                const T *a_ = A + (ptrdiff_t)(p + q * n) * TF_LANES;                      \
                _Pragma("omp simd")                                                       \
                for (int l = 0; l < TF_LANES; l++) off[l] += a_[l] * a_[l];               \
            }                                                                             \
        for (int l = 0; l < TF_LANES; l++) {                                              \
            conv[l] = off[l] <= tol[l];                                                   \
            done &= off[l] <= tol[l];                                                     \
        }                                                                                 \
        if (done) return;                                                                 \
        for (int i = 0; i < m; i++) order[i] = i;                                         \
        for (int rnd = 0; rnd < m - 1; rnd++) {                                           \
            int np = 0;                                                                   \
            for (int i = 0; i < m / 2; i++) {   /* this round's disjoint pairs */         \
                int p = order[i], q = order[m - 1 - i];                                   \
                if (p > q) { int s_ = p; p = q; q = s_; }                                 \
                if (q >= n) continue;           /* the dummy partner of odd n */          \
                pp[np] = p; pq[np] = q;                                                   \
                const T *xpq = A + (ptrdiff_t)(p + q * n) * TF_LANES;                     \
                const T *xpp = A + (ptrdiff_t)(p + p * n) * TF_LANES;                     \
                const T *xqq = A + (ptrdiff_t)(q + q * n) * TF_LANES;                     \
                T *c_ = cc[np], *s_ = ss[np], *t_ = tr[np], *dp_ = dp[np], *dq_ = dq[np]; \
                _Pragma("omp simd")                                                       \
                for (int l = 0; l < TF_LANES; l++) {   /* symmetric 2 x 2 Schur */        \
                    T x = xpq[l], app = xpp[l], aqq = xqq[l];                             \
                    int rot = conv[l] == 0 && x * x > tiny * FABS(app * aqq);             \
                    T theta = (aqq - app) / (2 * (rot ? x : 1));                          \
                    T t = 1 / (FABS(theta) + SQRT(theta * theta + 1)); /* inf: 0 */       \
                    t = theta < 0 ? -t : t;                                               \
                    T c = 1 / SQRT(t * t + 1);                                            \
                    c_[l] = rot ? c : 1;                                                  \
                    s_[l] = rot ? t * c : 0;                                              \
                    t_[l] = rot ? t * x : 0;                                              \
                    dp_[l] = app;                                                         \
                    dq_[l] = aqq;                                                         \
                }                                                                         \
                np++;                                                                     \
            }                                                                             \
            for (int j = 0; j < np; j++) {      /* A J and V J: columns p, q */           \
                const T *c_ = cc[j], *s_ = ss[j];                                         \
                for (int k = 0; k < n; k++) {                                             \
                    ptrdiff_t ip = (ptrdiff_t)(k + pp[j] * n) * TF_LANES;                 \
                    ptrdiff_t iq = (ptrdiff_t)(k + pq[j] * n) * TF_LANES;                 \
                    TF_ROTATE_LANES(T, A + ip, A + iq, c_, s_)                            \
                    if (vecs) TF_ROTATE_LANES(T, V + ip, V + iq, c_, s_)                  \
                }                                                                         \
            }                                                                             \
            for (int j = 0; j < np; j++) {      /* J^T (A J): rows p, q */                \
                int p = pp[j], q = pq[j];                                                 \
                const T *c_ = cc[j], *s_ = ss[j];                                         \
                for (int k = 0; k < n; k++) {                                             \
                    T *ap = A + (ptrdiff_t)(p + k * n) * TF_LANES;                        \
                    T *aq = A + (ptrdiff_t)(q + k * n) * TF_LANES;                        \
                    TF_ROTATE_LANES(T, ap, aq, c_, s_)                                    \
                }                                                                         \
            }                                                                             \
            for (int j = 0; j < np; j++) {      /* each 2 x 2 block, exactly */           \
                int p = pp[j], q = pq[j];                                                 \
                T *xpp = A + (ptrdiff_t)(p + p * n) * TF_LANES;                           \
                T *xqq = A + (ptrdiff_t)(q + q * n) * TF_LANES;                           \
                T *xpq = A + (ptrdiff_t)(p + q * n) * TF_LANES;                           \
                T *xqp = A + (ptrdiff_t)(q + p * n) * TF_LANES;                           \
                const T *t_ = tr[j], *dp_ = dp[j], *dq_ = dq[j];                          \
                _Pragma("omp simd")                                                       \
                for (int l = 0; l < TF_LANES; l++) {                                      \
                    xpp[l] = dp_[l] - t_[l];                                              \
                    xqq[l] = dq_[l] + t_[l];                                              \
                    xpq[l] *= conv[l];                                                    \
                    xqp[l] *= conv[l];                                                    \
                }                                                                         \
            }                                                                             \
            int last = order[m - 1];            /* rotate all players but the first */    \
            for (int i = m - 1; i > 1; i--) order[i] = order[i - 1];                      \
            order[1] = last;                                                              \
        }                                                                                 \
    }                                                                                     \
}

TF_DEFINE_JACOBI_LANES(tf_jacobi_lanes_float64, double, DBL_EPSILON, sqrt, fabs)
TF_DEFINE_JACOBI_LANES(tf_jacobi_lanes_float32, float, FLT_EPSILON, sqrtf, fabsf)

#endif
