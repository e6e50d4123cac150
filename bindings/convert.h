// NumPy <-> ufuncx conversions for the bindings: dtypes, zero-copy views of
// ndarrays, and NEP 50 handling of Python scalars. Knows no ufunc methods.
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

namespace ufuncx::py {
namespace pyb = pybind11;

// NumPy type number <-> DType; nullopt/-1 when there is no counterpart.
std::optional<DType> FromTypeNum(int type_num);
int ToTypeNum(DType t);

// Any object NumPy accepts as a dtype (np.float32, "f4", np.dtype(...)).
DType DTypeFromObject(pyb::handle obj);
pyb::object NumpyDType(DType t);

// A zero-copy view of an ndarray with a native-endian supported dtype.
ArrayView ViewOf(PyArrayObject* a);

// An operand on its way into a ufunc. Python int/float/complex are "weak"
// (NEP 50): their dtype is decided by the other operands.
struct Operand {
  pyb::object array;  // ndarray once resolved
  enum class Weak { kNo, kInt, kFloat, kComplex } weak = Weak::kNo;
  pyb::object scalar;  // the Python scalar when weak
  // A weak int that does not fit the dtype it takes for promotion: its
  // array holds a placeholder until the loop is chosen (FinishWeak).
  bool deferred = false;
};

// Converts an input: ndarrays pass through (byte-swapped copies when not
// native), NumPy scalars and array-likes become arrays, Python scalars stay
// weak. Raises TypeError for dtypes ufuncx has no loops for.
Operand ToOperand(pyb::handle obj, const char* ufunc_name);

// Gives every weak operand a dtype and an array, as NumPy 2 does.
// `comparison` allows out-of-range Python ints (NumPy compares them exactly).
void ResolveWeak(std::vector<Operand>& ops, bool comparison);

// Once the loop is chosen: a deferred weak int takes the loop's input
// type, raising NumPy's OverflowError only when that is an integer type it
// does not fit (logaddexp(uint8 array, 300) runs in float16; add raises).
// `logical`: the ufunc's loops only test truth (NumPy's logical promoter
// takes a Python int to bool).
void FinishWeak(std::vector<Operand>& ops, std::span<const DType> loop_inputs, bool logical);

// A new C-ordered ndarray; large ones are 64-byte aligned.
pyb::object NewArray(DType t, const Shape& shape);
pyb::object NewArray(DType t, int nd, const npy_intp* dims);

// NumPy's `order=` for new ufunc results: the order of the result's axes
// from the innermost out ('C': the last axis innermost). 'K' follows the
// operands' strides as NumPy's iterator does: an operand that does not
// broadcast along two axes votes for the one with the smaller stride to be
// inner, and any vote for C order between them wins.
std::vector<int> ResultAxisOrder(char order, const Shape& shape,
                                 std::span<const ArrayView* const> operands);
// A new ndarray of `shape` whose axes lie in memory in `inner_first` order.
pyb::object NewArray(DType t, const Shape& shape, const std::vector<int>& inner_first);
// A C-ordered copy of any array-like (np.array(obj, copy=True, order="C")),
// 64-byte aligned when large.
pyb::object CopyC(pyb::handle obj);

}  // namespace ufuncx::py
