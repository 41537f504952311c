# TEMPORARY STUB (lead's local testing; replaced by the helper's cmath.py)
import numpy as np
from ... import _dtypes
CTYPE = {_dtypes.bool_: "bool", _dtypes.int32: "int", _dtypes.int64: "long long",
         _dtypes.float32: "float", _dtypes.float64: "double", _dtypes.complex64: "c64",
         _dtypes.complex128: "c128"}
PRELUDE = r"""
template <class T> struct tf_complex { T re, im; };
typedef tf_complex<float> c64; typedef tf_complex<double> c128;
template <class To, class From> __device__ __forceinline__ To tf_convert(From x) { return (To)x; }
__device__ __forceinline__ double tf_add(double x, double y) { return x + y; }
__device__ __forceinline__ long long tf_add(long long x, long long y) { return x + y; }
__device__ __forceinline__ float tf_add(float x, float y) { return x + y; }
__device__ __forceinline__ double tf_sin(double x) { return sin(x); }
__device__ __forceinline__ double tf_multiply(double x, double y) { return x * y; }
__device__ __forceinline__ double tf_maximum(double x, double y) { return x != x ? x : (y != y ? y : (x > y ? x : y)); }
__device__ __forceinline__ double tf_minimum(double x, double y) { return x != x ? x : (y != y ? y : (x < y ? x : y)); }
__device__ __forceinline__ bool tf_logical_or(bool x, bool y) { return x || y; }
"""
UNARY_SUPPORT = {"sin": frozenset({_dtypes.float64})}
BINARY_SUPPORT = {"add": frozenset({_dtypes.float64, _dtypes.float32, _dtypes.int64}), "multiply": frozenset({_dtypes.float64})}
def OUT_DTYPE(op, dtype):
    return dtype
