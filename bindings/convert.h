// NumPy <-> ufuncx conversions for the bindings: dtypes, zero-copy views of
// ndarrays, and Python scalars as NEP 50 weak scalars. Knows no ufunc methods.
#pragma once

#define PY_ARRAY_UNIQUE_SYMBOL ufuncx_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <pybind11/pybind11.h>
// clang-format off
#include <numpy/arrayobject.h>
// clang-format on

#include <optional>
#include <string>
#include <span>
#include <vector>

#include "ufuncx/array.h"
#include "ufuncx/dtype.h"
#include "ufuncx/ufunc.h"

namespace ufuncx::py {
namespace pyb = pybind11;

// NumPy type number <-> DType; nullopt/-1 when there is no counterpart.
// ml_dtypes' types (bfloat16, float8_e4m3fn, float8_e5m2) map when the
// ml_dtypes package can be imported.
std::optional<DType> FromTypeNum(int type_num);
int ToTypeNum(DType t);
bool HaveMlDType(DType t);

// Any object NumPy accepts as a dtype (np.float32, "f4", np.dtype(...)).
DType DTypeFromObject(pyb::handle obj);
pyb::object NumpyDType(DType t);

// A zero-copy view of an ndarray with a native-endian supported dtype.
ArrayView ViewOf(PyArrayObject* a);

// An input on its way into a ufunc: the ndarray it became (held here), or
// the weak scalar (NEP 50) a Python int, float or complex is; core decides
// its dtype.
struct Operand {
  pyb::object array;
  std::optional<WeakScalar> weak;
};

// Converts an input: ndarrays pass through (byte-swapped copies when not
// native), NumPy scalars and array-likes become arrays, Python scalars stay
// weak. Raises TypeError for dtypes ufuncx has no loops for.
Operand ToOperand(pyb::handle obj, const char* ufunc_name);

// A new C-ordered ndarray; large ones are 64-byte aligned.
pyb::object NewArray(DType t, const Shape& shape);
pyb::object NewArray(DType t, int nd, const npy_intp* dims);

// A new ndarray of `shape` whose axes lie in memory in `inner_first` order.
pyb::object NewArray(DType t, const Shape& shape, const std::vector<int>& inner_first);
// A new C-ordered ndarray of a's shape and dtype (any dtype NumPy has),
// 64-byte aligned when large. Its values are not set.
pyb::object NewLike(PyArrayObject* a);
// A C-ordered copy of any array-like (np.array(obj, copy=True, order="C")),
// 64-byte aligned when large.
pyb::object CopyC(pyb::handle obj);

}  // namespace ufuncx::py
