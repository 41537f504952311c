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

#define TFN_T double
#define TFN(f) tfn_##f##_f64
#include "_norm_rows.h"   /* (which #undefs these) */

#define TFN_T float
#define TFN(f) tfn_##f##_f32
#include "_norm_rows.h"

#endif
