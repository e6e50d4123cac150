#define NO_IMPORT_ARRAY
#include "convert.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <complex>

#include "ufuncx/error.h"
#include "ufuncx/memory.h"

namespace ufuncx::py {
namespace {

struct TypeNumPair {
  int num;
  DType t;
};
constexpr TypeNumPair kTypeNums[] = {
    {NPY_BOOL, DType::kBool},          {NPY_BYTE, DType::kInt8},
    {NPY_UBYTE, DType::kUInt8},        {NPY_SHORT, DType::kInt16},
    {NPY_USHORT, DType::kUInt16},      {NPY_INT, DType::kInt32},
    {NPY_UINT, DType::kUInt32},        {NPY_LONG, DType::kInt64},
    {NPY_ULONG, DType::kUInt64},       {NPY_LONGLONG, DType::kInt64},
    {NPY_ULONGLONG, DType::kUInt64},   {NPY_HALF, DType::kFloat16},
    {NPY_FLOAT, DType::kFloat32},      {NPY_DOUBLE, DType::kFloat64},
    {NPY_LONGDOUBLE, DType::kLongDouble}, {NPY_CFLOAT, DType::kComplex64},
    {NPY_CDOUBLE, DType::kComplex128}, {NPY_CLONGDOUBLE, DType::kCLongDouble},
};

[[noreturn]] void ThrowPy() { throw pyb::error_already_set(); }

}  // namespace

std::optional<DType> FromTypeNum(int num) {
  for (const auto& p : kTypeNums) {
    if (p.num == num) return p.t;
  }
  return std::nullopt;
}

int ToTypeNum(DType t) {
  for (const auto& p : kTypeNums) {
    if (p.t == t) return p.num;
  }
  return -1;
}

DType DTypeFromObject(pyb::handle obj) {
  if (pyb::isinstance<pyb::str>(obj)) {
    DType t;
    if (TryParseDType(obj.cast<std::string>(), &t) && t != DType::kBFloat16) return t;
  }
  PyArray_Descr* descr = nullptr;
  if (!PyArray_DescrConverter(obj.ptr(), &descr)) ThrowPy();
  const int num = descr->type_num;
  Py_DECREF(descr);
  if (auto t = FromTypeNum(num)) return *t;
  throw TypeError("ufuncx does not support dtype " +
                  pyb::str(obj).cast<std::string>() +
                  " (datetime, string and object loops are not supported)");
}

pyb::object NumpyDType(DType t) {
  const int num = ToTypeNum(t);
  if (num < 0) throw TypeError(std::string("numpy has no dtype ") + Name(t));
  return pyb::reinterpret_steal<pyb::object>(
      reinterpret_cast<PyObject*>(PyArray_DescrFromType(num)));
}

ArrayView ViewOf(PyArrayObject* a) {
  ArrayView v;
  v.data = static_cast<char*>(PyArray_DATA(a));
  const auto t = FromTypeNum(PyArray_TYPE(a));
  if (!t) throw TypeError("unsupported dtype");
  v.dtype = *t;
  const int nd = PyArray_NDIM(a);
  v.shape.assign(PyArray_DIMS(a), PyArray_DIMS(a) + nd);
  v.strides.assign(PyArray_STRIDES(a), PyArray_STRIDES(a) + nd);
  return v;
}

Operand ToOperand(pyb::handle obj, const char* ufunc_name) {
  Operand op;
  PyObject* o = obj.ptr();
  if (!PyArray_Check(o)) {
    if (PyBool_Check(o)) {
      // Python bool is strong: it is NumPy's bool.
    } else if (PyLong_CheckExact(o) || (PyLong_Check(o) && !PyArray_IsScalar(o, Generic))) {
      op.weak = Operand::Weak::kInt;
    } else if (PyFloat_CheckExact(o) ||
               (PyFloat_Check(o) && !PyArray_IsScalar(o, Generic))) {
      op.weak = Operand::Weak::kFloat;
    } else if (PyComplex_CheckExact(o) ||
               (PyComplex_Check(o) && !PyArray_IsScalar(o, Generic))) {
      op.weak = Operand::Weak::kComplex;
    }
    if (op.weak != Operand::Weak::kNo) {
      op.scalar = pyb::reinterpret_borrow<pyb::object>(obj);
      return op;
    }
  }
  if (PyArray_Check(o)) {
    auto a = reinterpret_cast<PyArrayObject*>(o);
    if (PyArray_ISNBO(PyArray_DESCR(a)->byteorder) && FromTypeNum(PyArray_TYPE(a))) {
      op.array = pyb::reinterpret_borrow<pyb::object>(obj);  // the common, free case
      return op;
    }
  }
  PyObject* arr = PyArray_FromAny(o, nullptr, 0, 0, 0, nullptr);
  if (!arr) ThrowPy();
  auto a = reinterpret_cast<PyArrayObject*>(arr);
  if (!FromTypeNum(PyArray_TYPE(a))) {
    PyArray_Descr* d = PyArray_DESCR(a);
    std::string tn = pyb::str(reinterpret_cast<PyObject*>(d)).cast<std::string>();
    Py_DECREF(arr);
    throw TypeError(std::string("ufunc '") + ufunc_name +
                    "' did not contain a loop with signature matching types "
                    "(dtype('" + tn + "'), ...); ufuncx has no loops for it");
  }
  if (!PyArray_ISNBO(PyArray_DESCR(a)->byteorder)) {
    PyArray_Descr* native = PyArray_DescrFromType(PyArray_TYPE(a));
    PyObject* conv = PyArray_FromAny(arr, native, 0, 0, NPY_ARRAY_FORCECAST, nullptr);
    Py_DECREF(arr);
    if (!conv) ThrowPy();
    arr = conv;
  }
  op.array = pyb::reinterpret_steal<pyb::object>(arr);
  return op;
}

namespace {

// The weak int's value must fit the dtype it takes (NumPy 2 raises).
void CheckIntFits(pyb::handle v, DType t) {
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (x == -1 && PyErr_Occurred()) ThrowPy();
  bool ok;
  if (overflow != 0) {
    ok = false;
    if (overflow > 0 && t == DType::kUInt64) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
      if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
      } else {
        ok = true;
      }
    }
  } else {
    switch (t) {
      case DType::kInt8: ok = x >= INT8_MIN && x <= INT8_MAX; break;
      case DType::kUInt8: ok = x >= 0 && x <= UINT8_MAX; break;
      case DType::kInt16: ok = x >= INT16_MIN && x <= INT16_MAX; break;
      case DType::kUInt16: ok = x >= 0 && x <= UINT16_MAX; break;
      case DType::kInt32: ok = x >= INT32_MIN && x <= INT32_MAX; break;
      case DType::kUInt32: ok = x >= 0 && x <= UINT32_MAX; break;
      case DType::kUInt64: ok = x >= 0; break;
      default: ok = true;
    }
  }
  if (!ok) {
    if (IsInteger(t) && t != DType::kInt64 && t != DType::kUInt64) {
      throw OverflowError("Python integer " + pyb::str(v).cast<std::string>() +
                          " out of bounds for " + Name(t));
    }
    if (t == DType::kUInt64 && overflow == 0 && x < 0) {
      throw OverflowError("Python integer " + pyb::str(v).cast<std::string>() +
                          " out of bounds for uint64");
    }
    throw OverflowError("Python int too large to convert to C long");
  }
}

// Does the weak int fit t? (for comparisons, which widen instead of raising)
bool IntFits(pyb::handle v, DType t) {
  try {
    CheckIntFits(v, t);
    return true;
  } catch (const OverflowError&) {
    return false;
  }
}

}  // namespace

void ResolveWeak(std::vector<Operand>& ops, bool comparison) {
  std::optional<DType> strong;
  for (const Operand& op : ops) {
    if (op.weak != Operand::Weak::kNo) continue;
    const DType t = *FromTypeNum(PyArray_TYPE(reinterpret_cast<PyArrayObject*>(op.array.ptr())));
    strong = strong ? PromoteTypes(*strong, t) : t;
  }
  for (Operand& op : ops) {
    if (op.weak == Operand::Weak::kNo) continue;
    DType t;
    const Kind k = strong ? KindOf(*strong) : Kind::kBool;
    switch (op.weak) {
      case Operand::Weak::kInt:
        t = strong && k != Kind::kBool ? *strong : DType::kInt64;
        if (IsInteger(t) || !strong) {
          if (comparison && !IntFits(op.scalar, t)) {
            t = IntFits(op.scalar, DType::kInt64) ? DType::kInt64 : DType::kUInt64;
          } else if (!strong && !IntFits(op.scalar, DType::kInt64) &&
                     IntFits(op.scalar, DType::kUInt64)) {
            t = DType::kUInt64;
          }
          if (strong && !comparison && !IntFits(op.scalar, t)) {
            // NumPy checks the value against the loop's type, not this one.
            op.deferred = true;
            op.array = pyb::reinterpret_steal<pyb::object>(
                PyArray_Zeros(0, nullptr, PyArray_DescrFromType(ToTypeNum(t)), 0));
            if (!op.array) ThrowPy();
            continue;
          }
          CheckIntFits(op.scalar, t);
        }
        break;
      case Operand::Weak::kFloat:
        t = strong && (k == Kind::kFloat || k == Kind::kComplex) ? *strong : DType::kFloat64;
        break;
      default:
        t = !strong ? DType::kComplex128
            : k == Kind::kComplex ? *strong
            : k == Kind::kFloat ? ComplexOf(*strong)
                                : DType::kComplex128;
        break;
    }
    PyObject* arr = PyArray_FromAny(op.scalar.ptr(), PyArray_DescrFromType(ToTypeNum(t)), 0, 0,
                                    NPY_ARRAY_FORCECAST, nullptr);
    if (!arr) ThrowPy();
    op.array = pyb::reinterpret_steal<pyb::object>(arr);
  }
}

void FinishWeak(std::vector<Operand>& ops, std::span<const DType> loop_inputs, bool logical) {
  for (size_t i = 0; i < ops.size(); ++i) {
    Operand& op = ops[i];
    if (!op.deferred) continue;
    const DType t = loop_inputs[i];
    pyb::object value = op.scalar;
    if (logical) {
      value = pyb::bool_(PyObject_IsTrue(op.scalar.ptr()) == 1);
    } else if (IsInteger(t)) {
      CheckIntFits(op.scalar, t);
    }
    PyObject* arr = PyArray_FromAny(value.ptr(), PyArray_DescrFromType(ToTypeNum(t)), 0, 0,
                                    NPY_ARRAY_FORCECAST, nullptr);
    if (!arr) ThrowPy();
    op.array = pyb::reinterpret_steal<pyb::object>(arr);
    op.deferred = false;
  }
}

namespace {

// Arrays ufuncx allocates from this size on come from a NEP 49 handler over
// ufuncx's block allocator (ufuncx/memory.h): cache-line aligned where
// NumPy's are 16 bytes past a line (row scatter of 20000 rows of 64 float64
// into a fresh copy: 0.414 -> 0.386 ms), huge pages from 4 MiB, and the
// last large blocks freed reused. The array owns its block and frees it
// through the handler it records. Switching handlers costs about 0.4 us,
// so small arrays keep NumPy's allocator.
constexpr size_t kAlignedMinBytes = size_t{256} << 10;

void* BlockMalloc(void*, size_t size) { return AllocateBlock(size); }
void* BlockCalloc(void*, size_t n, size_t item) {
  if (item != 0 && n > SIZE_MAX / item) return nullptr;
  void* p = AllocateBlock(n * item);
  if (p) std::memset(p, 0, n * item);
  return p;
}
// (A resized block may lose the alignment; it is a speed hint, not a contract.)
void* BlockRealloc(void*, void* p, size_t size) { return std::realloc(p, size ? size : 1); }
void BlockFree(void*, void* p, size_t size) { FreeBlock(p, size); }

PyDataMem_Handler aligned_handler = {
    "ufuncx_aligned64", 1, {nullptr, BlockMalloc, BlockCalloc, BlockRealloc, BlockFree}};

// Runs make() (which allocates one array) under the aligned handler when
// the array is large.
template <class Make>
PyObject* Allocate(size_t nbytes, Make make) {
  if (nbytes < kAlignedMinBytes) return make();
  static PyObject* const capsule = PyCapsule_New(&aligned_handler, "mem_handler", nullptr);
  if (!capsule) ThrowPy();
  PyObject* old = PyDataMem_SetHandler(capsule);
  if (!old) ThrowPy();
  PyObject* a = make();
  PyObject* restored = PyDataMem_SetHandler(old);
  Py_DECREF(old);
  Py_XDECREF(restored);
  return a;
}

}  // namespace

pyb::object NewArray(DType t, const Shape& shape) {
  std::vector<npy_intp> dims(shape.begin(), shape.end());
  return NewArray(t, static_cast<int>(dims.size()), dims.data());
}

pyb::object NewArray(DType t, int nd, const npy_intp* dims) {
  size_t nbytes = ItemSize(t);
  for (int i = 0; i < nd; ++i) nbytes *= static_cast<size_t>(dims[i]);
  PyObject* a = Allocate(nbytes, [&] {
    return PyArray_SimpleNew(nd, const_cast<npy_intp*>(dims), ToTypeNum(t));
  });
  if (!a) ThrowPy();
  return pyb::reinterpret_steal<pyb::object>(a);
}

std::vector<int> ResultAxisOrder(char order, const Shape& shape,
                                 std::span<const ArrayView* const> operands) {
  const int nd = static_cast<int>(shape.size());
  std::vector<int> r(static_cast<size_t>(nd));  // r[0] is the innermost axis
  for (int k = 0; k < nd; ++k) r[static_cast<size_t>(k)] = nd - 1 - k;
  if (nd < 2 || order == 'C') return r;
  auto fortran = [&] {
    for (int k = 0; k < nd; ++k) r[static_cast<size_t>(k)] = k;
    return r;
  };
  if (order == 'F') return fortran();
  if (order == 'A') {  // F when every operand of rank 2 or more is F- and not C-ordered
    bool any = false;
    for (const ArrayView* v : operands) {
      if (v->shape.size() < 2) continue;
      if (!v->IsFContiguous() || v->IsCContiguous()) return r;
      any = true;
    }
    return any ? fortran() : r;
  }
  // 'K': each operand's stride along each result axis, 0 where it
  // broadcasts or the axis has length 1 (those do not vote).
  auto stride = [&](const ArrayView& v, int axis) -> int64_t {
    const int lead = nd - static_cast<int>(v.shape.size());
    if (axis < lead || shape[static_cast<size_t>(axis)] == 1) return 0;
    const size_t a = static_cast<size_t>(axis - lead);
    return v.shape[a] == 1 ? 0 : v.strides[a];
  };
  for (int i0 = 1; i0 < nd; ++i0) {
    const int ax0 = r[static_cast<size_t>(i0)];
    int ipos = i0;
    for (int i1 = i0 - 1; i1 >= 0; --i1) {
      const int ax1 = r[static_cast<size_t>(i1)];
      bool ambiguous = true, swap = false;
      for (const ArrayView* v : operands) {
        const int64_t s0 = stride(*v, ax0), s1 = stride(*v, ax1);
        if (s0 == 0 || s1 == 0) continue;
        if (std::llabs(s1) <= std::llabs(s0)) {
          swap = false;
        } else if (ambiguous) {
          swap = true;
        }
        ambiguous = false;
      }
      if (ambiguous) continue;
      if (!swap) break;
      ipos = i1;
    }
    if (ipos != i0) {
      std::rotate(r.begin() + ipos, r.begin() + i0, r.begin() + i0 + 1);
    }
  }
  return r;
}

pyb::object NewArray(DType t, const Shape& shape, const std::vector<int>& inner_first) {
  const int nd = static_cast<int>(shape.size());
  bool c_order = true;
  for (int k = 0; k < nd; ++k) c_order = c_order && inner_first[static_cast<size_t>(k)] == nd - 1 - k;
  if (c_order) return NewArray(t, shape);
  std::vector<npy_intp> dims(shape.begin(), shape.end()), strides(shape.size());
  npy_intp step = static_cast<npy_intp>(ItemSize(t));
  for (const int axis : inner_first) {
    strides[static_cast<size_t>(axis)] = step;
    step *= std::max<npy_intp>(dims[static_cast<size_t>(axis)], 1);
  }
  PyObject* a = Allocate(static_cast<size_t>(step), [&] {
    return PyArray_NewFromDescr(&PyArray_Type, PyArray_DescrFromType(ToTypeNum(t)), nd,
                                dims.data(), strides.data(), nullptr, 0, nullptr);
  });
  if (!a) ThrowPy();
  return pyb::reinterpret_steal<pyb::object>(a);
}

pyb::object CopyC(pyb::handle obj) {
  PyArrayObject* src = reinterpret_cast<PyArrayObject*>(PyArray_FROM_O(obj.ptr()));
  if (!src) ThrowPy();
  pyb::object keep = pyb::reinterpret_steal<pyb::object>(reinterpret_cast<PyObject*>(src));
  PyArray_Descr* descr = PyArray_DESCR(src);
  Py_INCREF(descr);
  PyObject* a = Allocate(static_cast<size_t>(PyArray_NBYTES(src)), [&] {
    return PyArray_NewFromDescr(&PyArray_Type, descr, PyArray_NDIM(src), PyArray_DIMS(src),
                                nullptr, nullptr, 0, nullptr);
  });
  if (!a) ThrowPy();
  pyb::object res = pyb::reinterpret_steal<pyb::object>(a);
  if (PyArray_CopyInto(reinterpret_cast<PyArrayObject*>(a), src) < 0) ThrowPy();
  return res;
}

}  // namespace ufuncx::py
