#define NO_IMPORT_ARRAY
#include "convert.h"

#include <algorithm>
#include <climits>
#include <cmath>
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

// ml_dtypes registers its types with NumPy at import, so their type numbers
// are known only then. Looked up once, on first need; -1 each without
// ml_dtypes (an optional dependency: everything else works without it).
struct MlTypeNums {
  int num[3] = {-1, -1, -1};  // bfloat16, float8_e4m3fn, float8_e5m2
};
constexpr DType kMlDTypes[3] = {DType::kBFloat16, DType::kFloat8E4M3FN, DType::kFloat8E5M2};

const MlTypeNums& MlNums() {
  static const MlTypeNums nums = [] {
    MlTypeNums n;
    PyObject* mod = PyImport_ImportModule("ml_dtypes");
    if (!mod) {
      PyErr_Clear();
      return n;
    }
    const char* names[3] = {"bfloat16", "float8_e4m3fn", "float8_e5m2"};
    for (int i = 0; i < 3; ++i) {
      PyObject* type = PyObject_GetAttrString(mod, names[i]);
      PyArray_Descr* descr = nullptr;
      if (type && PyArray_DescrConverter(type, &descr) && descr) {
        n.num[i] = descr->type_num;
        Py_DECREF(descr);
      }
      Py_XDECREF(type);
      PyErr_Clear();
    }
    Py_DECREF(mod);
    return n;
  }();
  return nums;
}

int MlIndex(DType t) {
  for (int i = 0; i < 3; ++i) {
    if (kMlDTypes[i] == t) return i;
  }
  return -1;
}

}  // namespace

std::optional<DType> FromTypeNum(int num) {
  if (num >= NPY_USERDEF) {
    const MlTypeNums& ml = MlNums();
    for (int i = 0; i < 3; ++i) {
      if (ml.num[i] == num) return kMlDTypes[i];
    }
    return std::nullopt;
  }
  for (const auto& p : kTypeNums) {
    if (p.num == num) return p.t;
  }
  return std::nullopt;
}

int ToTypeNum(DType t) {
  if (const int i = MlIndex(t); i >= 0) return MlNums().num[i];
  for (const auto& p : kTypeNums) {
    if (p.t == t) return p.num;
  }
  return -1;
}

bool HaveMlDType(DType t) { return ToTypeNum(t) >= 0; }

DType DTypeFromObject(pyb::handle obj) {
  if (pyb::isinstance<pyb::str>(obj)) {
    DType t;
    if (TryParseDType(obj.cast<std::string>(), &t)) {
      if (!IsMlDType(t)) return t;
      if (HaveMlDType(t)) return t;
      throw TypeError(std::string("dtype '") + Name(t) +
                      "' needs the ml_dtypes package (pip install ml_dtypes)");
    }
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
  if (num < 0) {
    if (IsMlDType(t)) {
      throw TypeError(std::string("dtype '") + Name(t) +
                      "' needs the ml_dtypes package (pip install ml_dtypes)");
    }
    throw TypeError(std::string("numpy has no dtype ") + Name(t));
  }
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
  if (!PyArray_Check(o) && !PyBool_Check(o) && !PyArray_IsScalar(o, Generic)) {
    // Python's int, float and complex (and their subclasses) are weak;
    // Python's bool is strong: it is NumPy's bool.
    if (PyLong_Check(o)) {
      int overflow = 0;
      const long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (x == -1 && PyErr_Occurred()) ThrowPy();
      if (overflow == 0) {
        op.weak = WeakScalar::Int(x);
      } else {
        const unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(o) : 0;
        if (overflow > 0 && !(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
          op.weak = WeakScalar::UInt(u);
        } else {
          PyErr_Clear();
          double d = PyLong_AsDouble(o);
          if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            d = overflow > 0 ? HUGE_VAL : -HUGE_VAL;
          }
          op.weak = WeakScalar::HugeInt(d);
        }
      }
      return op;
    }
    if (PyFloat_Check(o)) {
      op.weak = WeakScalar::Float(PyFloat_AsDouble(o));
      return op;
    }
    if (PyComplex_Check(o)) {
      op.weak = WeakScalar::Complex({PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)});
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

pyb::object NewArray(DType t, const Shape& shape, const std::vector<int>& inner_first) {
  const int nd = static_cast<int>(shape.size());
  bool c_order = true;  // (an empty order is C order)
  for (int k = 0; k < nd && !inner_first.empty(); ++k) {
    c_order = c_order && inner_first[static_cast<size_t>(k)] == nd - 1 - k;
  }
  if (c_order) return NewArray(t, shape);
  std::vector<npy_intp> dims(shape.begin(), shape.end());
  const Strides s = DenseStrides(shape, ItemSize(t), inner_first);
  std::vector<npy_intp> strides(s.begin(), s.end());
  size_t nbytes = ItemSize(t);
  for (const int64_t d : shape) nbytes *= static_cast<size_t>(std::max<int64_t>(d, 1));
  PyObject* a = Allocate(nbytes, [&] {
    return PyArray_NewFromDescr(&PyArray_Type, PyArray_DescrFromType(ToTypeNum(t)), nd,
                                dims.data(), strides.data(), nullptr, 0, nullptr);
  });
  if (!a) ThrowPy();
  return pyb::reinterpret_steal<pyb::object>(a);
}

pyb::object NewLike(PyArrayObject* a) {
  PyObject* made = Allocate(static_cast<size_t>(PyArray_NBYTES(a)), [&] {
    return PyArray_NewLikeArray(a, NPY_CORDER, nullptr, 0);
  });
  if (!made) ThrowPy();
  return pyb::reinterpret_steal<pyb::object>(made);
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
