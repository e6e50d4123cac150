// ufuncx.ufunc's call: argument parsing, the small-call fast path, NEP 13
// overrides, new results through __array_wrap__, and floating-point error
// reporting. All semantics live in core/ (Ufunc::Prepare / Run).
#define NO_IMPORT_ARRAY  // (module.cc imports NumPy's C API)
#include "ufunc_object.h"

#include <pybind11/stl.h>

#include <cctype>
#include <cstring>
#include <vector>

#include "ufuncx/error.h"

namespace ufuncx::py {
namespace {
// What a dtype= or signature= entry names: a DType, given as NumPy takes
// it (a dtype, a type code, a scalar type, Python's int/float/complex, or a
// dtype class such as np.dtypes.Float64DType), never a byte order.
DType SelectorDType(pyb::handle obj) {
  PyObject* o = obj.ptr();
  if (PyType_Check(o) &&
      PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(o), &PyArrayDescr_Type)) {
    return DTypeFromObject(obj.attr("type"));  // a dtype class: its scalar type
  }
  if (DType t; PyUnicode_Check(o) && TryParseDType(obj.cast<std::string>(), &t) && IsMlDType(t)) {
    return DTypeFromObject(obj);  // "bfloat16": says so when ml_dtypes is missing
  }
  PyArray_Descr* descr = nullptr;
  if (!PyArray_DescrConverter(o, &descr)) throw pyb::error_already_set();
  const bool swapped = !PyArray_ISNBO(descr->byteorder);
  Py_DECREF(descr);
  if (swapped) {
    throw TypeError(
        "The `dtype` and `signature` arguments to ufuncs only select the general DType and "
        "not details such as the byte order or time unit. You can avoid this error by using "
        "the scalar types `np.float64` or the dtype string notation.");
  }
  return DTypeFromObject(obj);
}

// NumPy's signature= forms: a type string "ff->f" or a tuple of one entry
// per operand (None leaves one free). A single type is refused: that is
// what dtype= is for.
std::vector<std::optional<DType>> ParseSignature(const Ufunc& u, pyb::handle sig) {
  constexpr const char* kSingle = "Use `dtype` or  fill the tuple with more than one 'None'.";
  std::vector<std::optional<DType>> out;
  pyb::object text;
  if (PyBytes_Check(sig.ptr())) text = pyb::reinterpret_borrow<pyb::bytes>(sig).attr("decode")("ascii");
  else if (PyUnicode_Check(sig.ptr())) text = pyb::reinterpret_borrow<pyb::object>(sig);
  if (text) {
    const std::string s = text.cast<std::string>();
    const auto n = static_cast<size_t>(u.nargs());
    if (s.size() == 1 && n > 1) throw TypeError(kSingle);
    if (s.size() != n + 2 || s.compare(static_cast<size_t>(u.nin()), 2, "->") != 0) {
      throw ValueError("a type-string for " + u.name() + ", " + std::to_string(u.nin()) +
                       " typecode(s) before and " + std::to_string(u.nout()) +
                       " after the -> sign");
    }
    for (size_t i = 0; i < s.size(); ++i) {
      if (i == static_cast<size_t>(u.nin()) || i == static_cast<size_t>(u.nin()) + 1) continue;
      const std::string c(1, s[i]);
      DType t;
      if (TryParseDType(c, &t) && (!IsMlDType(t) || HaveMlDType(t))) {
        out.push_back(t);
        continue;
      }
      // NumPy's classes: a code no dtype has is a ValueError; a dtype
      // ufuncx has no loops for (datetime, object) is a TypeError.
      PyArray_Descr* descr = nullptr;
      if (!PyArray_DescrConverter2(pyb::str(c).ptr(), &descr) || !descr) {
        PyErr_Clear();
        throw ValueError("signature " + s + ": '" + c +
                         "' is not a valid type code (Invalid data-type for array)");
      }
      Py_DECREF(descr);
      out.push_back(DTypeFromObject(pyb::str(c)));
    }
    return out;
  }
  if (!PyTuple_Check(sig.ptr())) {
    throw TypeError("the signature object to ufunc must be a string or a tuple.");
  }
  auto seq = pyb::reinterpret_borrow<pyb::tuple>(sig);
  if (seq.size() == 1 && u.nargs() > 1) {
    if (seq[0].is_none()) throw TypeError("a single item type tuple cannot contain None.");
    throw TypeError(kSingle);
  }
  if (static_cast<int>(seq.size()) != u.nargs()) {
    throw ValueError("a type-tuple must be specified of length " + std::to_string(u.nargs()) +
                     " for ufunc '" + u.name() + "'");
  }
  for (auto item : seq) {
    if (item.is_none()) out.emplace_back(std::nullopt);
    else out.emplace_back(SelectorDType(item));
  }
  return out;
}

// An axis as NumPy's ufuncs convert one: an index, a C long, then a C int.
int64_t AxisInt(pyb::handle x) {
  pyb::object v = pyb::reinterpret_steal<pyb::object>(PyNumber_Index(x.ptr()));
  if (!v) throw pyb::error_already_set();
  int overflow = 0;
  const long long r = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow) throw OverflowError("Python int too large to convert to C long");
  if (r == -1 && PyErr_Occurred()) throw pyb::error_already_set();
  if (r < INT32_MIN || r > INT32_MAX) throw ValueError("integer won't fit into a C int");
  return r;
}

// NEP 13: whether o's type overrides ufuncs (an __array_ufunc__ other than
// ndarray's, None included), or is a DLPack tensor ufuncx hands back in
// kind. Plain types answer without a lookup.
bool Overrides(PyObject* o) {
  if (PyArray_CheckExact(o) || PyFloat_CheckExact(o) || PyLong_CheckExact(o) || PyBool_Check(o) ||
      PyComplex_CheckExact(o) || o == Py_None || o == Py_Ellipsis || PyList_CheckExact(o) ||
      PyTuple_CheckExact(o) || PyArray_IsScalar(o, Generic)) {
    return false;
  }
  static PyObject* const ndarray_method =
      PyObject_GetAttrString(reinterpret_cast<PyObject*>(&PyArray_Type), "__array_ufunc__");
  PyObject* m = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(o)), "__array_ufunc__");
  if (!m) {
    PyErr_Clear();
    // A DLPack tensor (torch, JAX) takes the same path: ufuncx/_tensors.py
    // computes on its memory and gives back a tensor.
    return !PyArray_Check(o) &&
           PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(o)), "__dlpack__");
  }
  const bool other = m != ndarray_method;
  Py_DECREF(m);
  return other;
}

// Whether any input, out= entry or where= of a call overrides it.
bool AnyOverride(const pyb::args& args, const pyb::kwargs& kwargs) {
  for (pyb::handle a : args) {
    if (Overrides(a.ptr())) return true;
  }
  if (!kwargs || PyDict_GET_SIZE(kwargs.ptr()) == 0) return false;
  // (a walk over the few keywords given: no hashing, no string made)
  PyObject *key, *v;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs.ptr(), &pos, &key, &v)) {
    if (PyUnicode_CompareWithASCIIString(key, "out") != 0 &&
        PyUnicode_CompareWithASCIIString(key, "where") != 0) {
      continue;
    }
    if (PyTuple_Check(v)) {
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); ++i) {
        if (Overrides(PyTuple_GET_ITEM(v, i))) return true;
      }
    } else if (Overrides(v)) {
      return true;
    }
  }
  return false;
}

// NumPy's choice of the __array_wrap__ that new results go through: among
// the inputs, the one of highest __array_priority__ that is neither an exact
// ndarray nor a scalar and has __array_wrap__ (at priority 0, a subclass's
// wins over ndarray's). Null when results stay plain arrays.
pyb::object FindArrayWrap(const pyb::args& args, int nin) {
  constexpr double kScalarPriority = -1000000.0;
  pyb::object wrap;  // null: nothing seen yet; None: plain arrays
  double priority = 0;
  for (int i = 0; i < nin; ++i) {
    PyObject* o = args[i].ptr();
    if (PyArray_CheckExact(o) || PyArray_IsAnyScalar(o)) {
      const double p = PyArray_CheckExact(o) ? 0.0 : kScalarPriority;
      if (!wrap || priority < p) {
        wrap = pyb::none();
        priority = p;
      }
      continue;
    }
    PyObject* w = PyObject_GetAttrString(o, "__array_wrap__");
    if (!w) {
      PyErr_Clear();
      continue;
    }
    const double p = PyArray_GetPriority(o, 0);
    if (!wrap || priority < p || (p == 0 && wrap.is_none())) {
      wrap = pyb::reinterpret_steal<pyb::object>(w);
      priority = p;
    } else {
      Py_DECREF(w);
    }
  }
  if (wrap && wrap.is_none()) return {};
  return wrap;
}

}  // namespace

pyb::object PyUfunc::TryFastCall(const pyb::args& args, PyObject* out) const {
  const Ufunc& u = *u_;
  const int nin = u.nin();
  const int nout = u.nout();
  if (nout > 2 || nin > 2 || u.core()) return {};
  // The outputs given, if any: positional after the inputs, or out=.
  PyObject* given[2] = {nullptr, nullptr};
  const auto npos = static_cast<int>(args.size());
  if (npos == nin + nout && !out) {
    for (int k = 0; k < nout; ++k) given[k] = PyTuple_GET_ITEM(args.ptr(), nin + k);
  } else if (npos != nin) {
    return {};
  } else if (out) {
    if (PyTuple_Check(out)) {
      if (PyTuple_GET_SIZE(out) != nout) return {};
      for (int k = 0; k < nout; ++k) given[k] = PyTuple_GET_ITEM(out, k);
    } else if (nout == 1) {
      given[0] = out;
    } else {
      return {};
    }
  }
  const bool out_given = given[0] != nullptr;
  if (out_given) {
    for (int k = 0; k < nout; ++k) {
      if (!given[k] || !PyArray_CheckExact(given[k])) return {};
    }
  }
  struct Input {
    char* data;
    int nd;
    const npy_intp* dims;
    npy_intp size;
    int64_t step;  // for size != 1
  };
  Input in[2];
  alignas(16) char scalar_value[2][32];
  DType types[2];
  int nd = 0;
  const npy_intp* dims = nullptr;
  for (int i = 0; i < nin; ++i) {
    PyObject* o = PyTuple_GET_ITEM(args.ptr(), i);
    if (PyArray_CheckExact(o)) {
      auto* arr = reinterpret_cast<PyArrayObject*>(o);
      if (!PyArray_ISNBO(PyArray_DESCR(arr)->byteorder)) return {};
      const auto t = FromTypeNum(PyArray_TYPE(arr));
      // C-contiguous, or 1-D with any stride (the loop takes the step).
      const bool contiguous = PyArray_IS_C_CONTIGUOUS(arr);
      if (!t || (!contiguous && PyArray_NDIM(arr) != 1)) return {};
      types[i] = *t;
      in[i] = Input{static_cast<char*>(PyArray_DATA(arr)), PyArray_NDIM(arr), PyArray_DIMS(arr),
                    PyArray_SIZE(arr),
                    contiguous ? static_cast<int64_t>(ItemSize(*t)) : PyArray_STRIDES(arr)[0]};
    } else if (PyArray_IsScalar(o, Generic)) {  // np.float32(2) and the like: 0-d
      PyArray_Descr* descr = PyArray_DescrFromScalar(o);
      if (!descr) throw pyb::error_already_set();
      const auto t = FromTypeNum(descr->type_num);
      const bool fits = PyDataType_ELSIZE(descr) <= static_cast<npy_intp>(sizeof(scalar_value[i]));
      Py_DECREF(descr);
      // (ml_dtypes' scalars do not keep their value where NumPy's
      // PyArray_ScalarAsCtype reads a user type's: the general path takes them.)
      if (!t || !fits || IsMlDType(*t)) return {};
      types[i] = *t;
      PyArray_ScalarAsCtype(o, scalar_value[i]);
      in[i] = Input{scalar_value[i], 0, nullptr, 1, 0};
    } else {
      return {};
    }
    if (in[i].size != 1 || !dims) {
      if (dims && (in[i].nd != nd || !PyArray_CompareLists(dims, in[i].dims, nd))) {
        if (in[i].size != 1) return {};
        continue;
      }
      if (!dims || in[i].size != 1) {
        nd = in[i].nd;
        dims = in[i].dims;
      }
    }
  }
  // A size-1 operand may only broadcast if its rank does not exceed nd.
  for (int i = 0; i < nin; ++i) {
    if (in[i].nd > nd) return {};
  }
  const Loop* loop = u.DirectLoop(std::span<const DType>(types, nin));
  if (!loop) return {};
  for (int k = 0; k < nout; ++k) {
    if (ToTypeNum(loop->types[nin + k]) < 0) return {};
  }
  // A loop that can fail takes given outputs the general way: a failure here
  // would send the call there again, into outputs this run had written.
  if (out_given && loop->slots.may_fail) return {};
  pyb::object results[2];
  char* a[4];
  int64_t steps[4];
  for (int k = 0; k < nout; ++k) {
    if (out_given) {
      auto* o = reinterpret_cast<PyArrayObject*>(given[k]);
      if (PyArray_TYPE(o) != ToTypeNum(loop->types[nin + k]) || !PyArray_ISNBO(PyArray_DESCR(o)->byteorder) ||
          !PyArray_IS_C_CONTIGUOUS(o) || !PyArray_ISWRITEABLE(o) || PyArray_NDIM(o) != nd ||
          (nd && !PyArray_CompareLists(PyArray_DIMS(o), dims, nd))) {
        return {};
      }
      results[k] = pyb::reinterpret_borrow<pyb::object>(given[k]);
    } else {
      results[k] = NewArray(loop->types[nin + k], nd, dims);
    }
    a[nin + k] = static_cast<char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(results[k].ptr())));
    steps[nin + k] = static_cast<int64_t>(ItemSize(loop->types[nin + k]));
  }
  const int64_t n = PyArray_SIZE(reinterpret_cast<PyArrayObject*>(results[0].ptr()));
  for (int i = 0; i < nin; ++i) {
    a[i] = in[i].data;
    steps[i] = in[i].size == 1 && n != 1 ? 0 : in[i].step;
  }
  if (out_given && n > 0) {
    // Given outputs may share memory with an input only as the very same
    // elements (each element is then read before it is written); any other
    // overlap, and outputs overlapping each other, go the general way, which
    // copies (NumPy's result).
    auto span = [&](int j) {  // [lo, hi) of operand j's bytes
      const auto size = static_cast<int64_t>(ItemSize(loop->types[j]));
      const int64_t reach = steps[j] * (n - 1);
      const auto* p = a[j];
      return std::pair<const char*, const char*>(reach < 0 ? p + reach : p,
                                                 (reach < 0 ? p : p + reach) + size);
    };
    for (int k = 0; k < nout; ++k) {
      const auto [olo, ohi] = span(nin + k);
      for (int j = 0; j < nin + nout; ++j) {
        if (j == nin + k || (j < nin && in[j].data == scalar_value[j])) continue;
        const auto [lo, hi] = span(j);
        if (lo >= ohi || olo >= hi) continue;
        const bool same = j < nin && a[j] == a[nin + k] && steps[j] == steps[nin + k] &&
                          ItemSize(loop->types[j]) == ItemSize(loop->types[nin + k]);
        if (!same) return {};
      }
    }
  }
  const FpErrors fp;
  if (n > kReleaseGilAbove) {
    pyb::gil_scoped_release release;
    u.RunDirect(*loop, a, steps, n);
  } else {
    u.RunDirect(*loop, a, steps, n);
  }
  fp.Report(u, u.name().c_str());
  auto give = [&](int k) {  // (0-d results as NumPy scalars, as NumPy's call)
    if (out_given) return std::move(results[k]);  // (given outputs come back as given)
    return pyb::reinterpret_steal<pyb::object>(
        PyArray_Return(reinterpret_cast<PyArrayObject*>(results[k].release().ptr())));
  };
  if (nout == 1) return give(0);
  pyb::object first = give(0);
  return pyb::make_tuple(first, give(1));
}

namespace {
// The call slot pybind11's __call__ gave the type (CPython's slot_tp_call).
ternaryfunc g_general_call = nullptr;

// The value of a one-entry kwargs dict when its key is "out", else null.
PyObject* OnlyOut(PyObject* kwargs) {
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  if (!PyDict_Next(kwargs, &pos, &key, &value)) return nullptr;
  return PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "out") == 0 ? value
                                                                                   : nullptr;
}

// The type's call slot: the fast path for positional calls (and out=), else
// __call__. The fast path writes nothing but its new result or, with given
// outputs, runs only loops that cannot fail, so when it throws anything but
// a Python error the general path runs the call again and reports the error
// through pybind11's translators.
PyObject* CallSlot(PyObject* self, PyObject* args, PyObject* kwargs) {
  auto* inst = reinterpret_cast<pyb::detail::instance*>(self);
  PyObject* out = nullptr;  // out= as the only keyword
  const bool fast_kwargs = kwargs == nullptr || PyDict_GET_SIZE(kwargs) == 0 ||
                           (PyDict_GET_SIZE(kwargs) == 1 && (out = OnlyOut(kwargs)) != nullptr);
  if (fast_kwargs && inst->simple_layout && inst->simple_value_holder[0] != nullptr) {
    const auto* u = static_cast<const PyUfunc*>(inst->simple_value_holder[0]);
    try {
      if (pyb::object r = u->TryFastCall(pyb::reinterpret_borrow<pyb::args>(args), out)) {
        return r.release().ptr();
      }
    } catch (pyb::error_already_set& e) {
      e.restore();
      return nullptr;
    } catch (...) {  // (the general path raises it as Python sees it)
      return g_general_call(self, args, kwargs);
    }
  }
#if PYBIND11_VERSION_HEX >= 0x020D0000  // (try_translate_exceptions: 2.13)
  if (inst->simple_layout && inst->simple_value_holder[0] != nullptr) {
    const auto* u = static_cast<const PyUfunc*>(inst->simple_value_holder[0]);
    try {
      auto kw = kwargs ? pyb::reinterpret_borrow<pyb::kwargs>(kwargs) : pyb::kwargs();
      return u->CallGeneral(pyb::reinterpret_borrow<pyb::args>(args), kw).release().ptr();
    } catch (pyb::error_already_set& e) {
      e.restore();
      return nullptr;
    } catch (...) {
      pyb::detail::try_translate_exceptions();
      return nullptr;
    }
  }
#endif
  return g_general_call(self, args, kwargs);
}
}  // namespace

void InstallCallSlot(pyb::handle type) {
  auto* t = reinterpret_cast<PyTypeObject*>(type.ptr());
  if (t->tp_call == nullptr || t->tp_call == CallSlot) {
    throw std::logic_error("InstallCallSlot: the type has no __call__ slot yet");
  }
  g_general_call = t->tp_call;
  t->tp_call = CallSlot;
}

pyb::object PyUfunc::Self() const { return pyb::cast(this, pyb::return_value_policy::reference); }

pyb::object PyUfunc::Call(pyb::args args, pyb::kwargs kwargs) const {
  if (!kwargs || kwargs.empty()) {
    if (pyb::object r = TryFastCall(args)) return r;
  } else if (PyObject* out = kwargs.size() == 1 ? OnlyOut(kwargs.ptr()) : nullptr) {
    if (pyb::object r = TryFastCall(args, out)) return r;
  }
  return CallGeneral(args, kwargs);
}

pyb::object PyUfunc::CallGeneral(const pyb::args& args, const pyb::kwargs& kwargs) const {
  if (AnyOverride(args, kwargs)) {  // an argument's __array_ufunc__ (ufuncx/_override.py)
    // (kept for the life of the process: never released after Python's end)
    static const pyb::object* dispatch =
        new pyb::object(pyb::module_::import("ufuncx._override").attr("call"));
    static const pyb::object* none =
        new pyb::object(pyb::module_::import("ufuncx._override").attr("NO_OVERRIDE"));
    pyb::object r = (*dispatch)(Self(), "__call__", args, kwargs);
    if (!r.is(*none)) return r;
  }
  return Invoke(args, kwargs, /*outer=*/false);
}

pyb::object PyUfunc::Outer(pyb::args args, pyb::kwargs kwargs) const {
  u_->CheckBinaryMethod("outer");
  if (args.size() != 2) throw TypeError("exactly two arguments expected");
  return Invoke(args, kwargs, /*outer=*/true);
}

pyb::object PyUfunc::Invoke(const pyb::args& args, const pyb::kwargs& kwargs, bool outer) const {
  const Ufunc& u = *u_;
  const int nin = u.nin(), nout = u.nout();
  const int npos = static_cast<int>(args.size());
  if (npos < nin || npos > nin + nout) {
    throw TypeError(u.name() + "() takes from " + std::to_string(nin) + " to " +
                    std::to_string(nin + nout) + " positional arguments but " +
                    std::to_string(npos) + (npos == 1 ? " was given" : " were given"));
  }
  std::vector<pyb::object> outs(nout);
  bool out_given = false;
  bool keep_arrays = false;  // out=...: 0-d results stay arrays
  bool subok = true;
  for (int i = nin; i < npos; ++i) {
    if (args[i].ptr() == Py_Ellipsis) throw TypeError("out=... is only allowed as a keyword argument.");
    if (!args[i].is_none()) outs[i - nin] = args[i], out_given = true;
  }
  CallOptions opt;
  pyb::object where_obj;
  bool signature_given = false;
  bool out_keyword = false;  // out= given, None included
  for (auto item : kwargs) {
    const std::string key = pyb::str(item.first);
    pyb::handle v = item.second;
    if (key == "out") {
      out_keyword = true;
      if (npos > nin) throw TypeError("cannot specify 'out' as both a positional and keyword argument");
      if (v.ptr() == Py_Ellipsis) {
        keep_arrays = true;
      } else if (pyb::isinstance<pyb::tuple>(v)) {
        auto t = pyb::reinterpret_borrow<pyb::tuple>(v);
        if (static_cast<int>(t.size()) != nout) {
          throw ValueError("The 'out' tuple must have exactly " + std::to_string(nout) +
                           " entries: one per ufunc output");
        }
        for (int i = 0; i < nout; ++i) {
          if (t[i].ptr() == Py_Ellipsis) {
            throw TypeError("must use `...` as `out=...` and not per-operand/in a tuple");
          }
          if (!t[i].is_none()) outs[i] = t[i], out_given = true;
        }
      } else if (nout != 1) {  // (out=None too, as in NumPy)
        throw TypeError("'out' must be a tuple of arrays for a ufunc with more than one output");
      } else if (!v.is_none()) {
        outs[0] = pyb::reinterpret_borrow<pyb::object>(v);
        out_given = true;
      }
    } else if (key == "where") {
      if (u.core()) throw TypeError(u.name() + "() got an unexpected keyword argument 'where'");
      if (v.ptr() != Py_True) where_obj = pyb::reinterpret_borrow<pyb::object>(v);
    } else if (key == "casting") {
      opt.casting = ParseCasting(v.cast<std::string>());
    } else if (key == "dtype") {
      if (!v.is_none()) opt.dtype = SelectorDType(v);
    } else if (key == "signature" || key == "sig") {
      if (signature_given) throw TypeError("cannot specify both 'sig' and 'signature'");
      signature_given = true;
      if (!v.is_none()) opt.signature = ParseSignature(u, v);
    } else if (key == "order") {
      if (!v.is_none()) {
        if (!PyUnicode_Check(v.ptr())) {
          throw TypeError(std::string("order must be str, not ") + Py_TYPE(v.ptr())->tp_name);
        }
        const std::string o = v.cast<std::string>();
        if (o.size() != 1 || std::string("KACF").find(static_cast<char>(std::toupper(o[0]))) == std::string::npos) {
          throw ValueError("order must be one of 'C', 'F', 'A', or 'K' (got '" + o + "')");
        }
        const char c = static_cast<char>(std::toupper(o[0]));
        opt.order = c == 'C' ? Order::kC : c == 'F' ? Order::kF : c == 'A' ? Order::kA : Order::kK;
      }
    } else if (u.core() && key == "axes") {
      if (!PyList_Check(v.ptr())) throw TypeError("axes should be a list.");
      std::vector<std::vector<int64_t>> axes;
      for (auto e : pyb::reinterpret_borrow<pyb::list>(v)) {
        std::vector<int64_t> entry;
        if (PyTuple_Check(e.ptr()) || PyList_Check(e.ptr())) {
          for (auto a : pyb::reinterpret_borrow<pyb::sequence>(e)) entry.push_back(AxisInt(a));
        } else {
          entry.push_back(AxisInt(e));
        }
        axes.push_back(std::move(entry));
      }
      opt.axes = std::move(axes);
    } else if (u.core() && key == "axis") {
      if (!v.is_none()) opt.axis = AxisInt(v);
    } else if (u.core() && key == "keepdims") {
      if (!PyBool_Check(v.ptr()) && !PyArray_IsScalar(v.ptr(), Bool)) {
        throw TypeError("'keepdims' must be a boolean");
      }
      opt.keepdims = PyObject_IsTrue(v.ptr()) == 1;
    } else if (key == "subok") {
      if (!PyBool_Check(v.ptr())) throw TypeError("'subok' must be a boolean");
      subok = v.ptr() == Py_True;
    } else {
      throw TypeError(u.name() + "() got an unexpected keyword argument '" + key + "'");
    }
  }
  for (const pyb::object& o : outs) {
    if (o && !PyArray_Check(o.ptr())) throw TypeError("return arrays must be of ArrayType");
    if (o && !PyArray_ISWRITEABLE(AsArray(o))) {
      throw ValueError("output array is read-only");
    }
    if (o && !FromTypeNum(PyArray_TYPE(AsArray(o)))) {
      throw TypeError("ufuncx has no loops writing to this output dtype");
    }
  }
  if (where_obj && !out_keyword && !out_given &&
      PyErr_WarnEx(PyExc_UserWarning,
                   "'where' used without 'out', expect unitialized memory in output. "
                   "If this is intentional, use out=None.", 1) < 0) {
    throw pyb::error_already_set();
  }
  // casting='no' refuses a byte-swapped operand, as NumPy's does.
  auto refuse_swapped = [&](pyb::handle a, const std::string& what) {
    if (opt.casting != Casting::kNo || !PyArray_Check(a.ptr())) return;
    PyArray_Descr* d = PyArray_DESCR(reinterpret_cast<PyArrayObject*>(a.ptr()));
    if (PyArray_ISNBO(d->byteorder)) return;
    PyArray_Descr* native = PyArray_DescrNewByteorder(d, NPY_NATIVE);
    if (!native) throw pyb::error_already_set();
    const auto native_obj = pyb::reinterpret_steal<pyb::object>(reinterpret_cast<PyObject*>(native));
    const std::string from = pyb::repr(reinterpret_cast<PyObject*>(d)).cast<std::string>();
    const std::string to = pyb::repr(native_obj).cast<std::string>();
    throw TypeError("Cannot cast ufunc '" + u.name() + "' " + what + " from " +
                    (what == "output" ? to : from) + " to " + (what == "output" ? from : to) +
                    " with casting rule 'no'");
  };
  for (int i = 0; i < nin; ++i) refuse_swapped(args[i], "input " + std::to_string(i));
  // A byte-swapped out= is computed into a native copy and copied back.
  std::vector<std::pair<int, pyb::object>> swapped_outs;  // (index, the given array)
  for (int i = 0; i < nout; ++i) {
    pyb::object& o = outs[static_cast<size_t>(i)];
    if (!o || PyArray_ISNBO(PyArray_DESCR(AsArray(o))->byteorder)) continue;
    refuse_swapped(o, "output");
    PyArray_Descr* native = PyArray_DescrNewByteorder(PyArray_DESCR(AsArray(o)), NPY_NATIVE);
    if (!native) throw pyb::error_already_set();
    PyObject* copy = PyArray_FromArray(AsArray(o), native, NPY_ARRAY_ENSURECOPY);
    if (!copy) throw pyb::error_already_set();
    swapped_outs.emplace_back(i, o);
    o = pyb::reinterpret_steal<pyb::object>(copy);
  }

  std::vector<Operand> ops;  // holds the arrays the inputs became
  std::vector<CallInput> in;
  ops.reserve(nin);
  in.reserve(nin);
  for (int i = 0; i < nin; ++i) {
    try {
      ops.push_back(ToOperand(args[i], u.name().c_str()));
    } catch (const TypeError&) {
      // The logical ufuncs take any dtype that casts to bool (strings,
      // void), as NumPy's do; objects only with dtype=bool (without it
      // NumPy's object loop returns objects).
      const bool object = PyArray_Check(args[i].ptr()) &&
                          PyArray_TYPE(reinterpret_cast<PyArrayObject*>(args[i].ptr())) == NPY_OBJECT;
      if (u.traits().logical && opt.signature.empty() &&
          (opt.dtype ? *opt.dtype == DType::kBool : !object)) {
        PyObject* b = PyArray_FromAny(args[i].ptr(), PyArray_DescrFromType(NPY_BOOL), 0, 0,
                                      NPY_ARRAY_FORCECAST, nullptr);
        if (!b) throw pyb::error_already_set();
        Operand op;
        op.array = pyb::reinterpret_steal<pyb::object>(b);
        ops.push_back(std::move(op));
        in.emplace_back(ViewOf(AsArray(ops.back().array)));
        continue;
      }
      // A dtype without loops, for an input the signature fixes: NumPy
      // reports the cast it cannot make.
      if (opt.signature.size() <= static_cast<size_t>(i) || !opt.signature[static_cast<size_t>(i)] ||
          !PyArray_Check(args[i].ptr())) {
        throw;
      }
      PyObject* descr = reinterpret_cast<PyObject*>(PyArray_DESCR(reinterpret_cast<PyArrayObject*>(args[i].ptr())));
      throw TypeError("Cannot cast ufunc '" + u.name() + "' input " + std::to_string(i) +
                      " from " + pyb::repr(pyb::handle(descr)).cast<std::string>() + " to " +
                      pyb::repr(NumpyDType(*opt.signature[static_cast<size_t>(i)])).cast<std::string>() +
                      " with casting rule '" + CastingName(opt.casting) + "'");
    }
    if (ops.back().weak) {
      in.emplace_back(*ops.back().weak);
    } else {
      in.emplace_back(ViewOf(AsArray(ops.back().array)));
    }
  }

  ArrayView where_view;
  if (where_obj) {
    PyObject* w = PyArray_FromAny(where_obj.ptr(), PyArray_DescrFromType(NPY_BOOL), 0, 0,
                                  0, nullptr);
    if (!w) throw pyb::error_already_set();
    where_obj = pyb::reinterpret_steal<pyb::object>(w);
    where_view = ViewOf(AsArray(where_obj));
    opt.where = &where_view;
  }

  std::vector<ArrayView> out_views(nout);
  std::vector<const ArrayView*> out_ptrs(nout, nullptr);
  for (int i = 0; i < nout; ++i) {
    if (outs[i]) {
      out_views[i] = ViewOf(AsArray(outs[i]));
      out_ptrs[i] = &out_views[i];
    }
  }
  if (outer) {
    const auto io = u.OuterInputs(in[0].array, in[1].array);
    in.assign(io.begin(), io.end());
  }
  const FpErrors cast_fp;
  const PreparedCall call = u.Prepare(std::move(in), out_ptrs, opt);
  cast_fp.ReportCast();
  for (int i = 0; i < nout; ++i) {
    const auto& fresh = call.new_outputs[static_cast<size_t>(i)];
    if (!fresh) continue;
    outs[i] = NewArray(fresh->dtype, fresh->shape, fresh->inner_first);
    out_views[i] = ViewOf(AsArray(outs[i]));
  }
  const FpErrors fp;
  if (ShapeSize(call.plan.OutShape(0)) > kReleaseGilAbove || u.core()) {
    pyb::gil_scoped_release release;
    u.Run(call, out_views, opt);
  } else {
    u.Run(call, out_views, opt);
  }
  for (auto& [i, given] : swapped_outs) {
    if (PyArray_CopyInto(AsArray(given), AsArray(outs[static_cast<size_t>(i)])) < 0) {
      throw pyb::error_already_set();
    }
    outs[static_cast<size_t>(i)] = given;
  }
  fp.Report(u, u.name().c_str());
  // Given outputs come back as given; new ones through the inputs'
  // __array_wrap__ (NumPy's subclass rules), else 0-d ones as scalars.
  const pyb::object array_wrap = subok ? FindArrayWrap(args, nin) : pyb::object();
  const bool return_scalar = !out_given && !keep_arrays;
  static const pyb::object* apply =
      new pyb::object(pyb::module_::import("ufuncx._subclass").attr("wrap"));
  auto context = [&](int i) {
    pyb::tuple inputs(nin);
    for (int k = 0; k < nin; ++k) inputs[k] = args[k];
    if (out_given) {  // NumPy's context holds the outputs given, as a tuple
      pyb::tuple given(nout);
      for (int k = 0; k < nout; ++k) {
        given[k] = call.new_outputs[static_cast<size_t>(k)] ? pyb::none() : outs[static_cast<size_t>(k)];
      }
      inputs = pyb::reinterpret_steal<pyb::tuple>(PySequence_Concat(inputs.ptr(), given.ptr()));
      if (!inputs) throw pyb::error_already_set();
    }
    return pyb::make_tuple(Self(), inputs, i);
  };
  auto wrap = [&](int i) -> pyb::object {
    const pyb::object& o = outs[static_cast<size_t>(i)];
    if (!call.new_outputs[static_cast<size_t>(i)]) {
      // A given output that is a subclass goes through its own __array_wrap__.
      if (!subok || PyArray_CheckExact(o.ptr())) return o;
      pyb::object own = pyb::getattr(o, "__array_wrap__", pyb::none());
      if (own.is_none()) return o;
      return (*apply)(own, o, context(i), false);
    }
    if (array_wrap) return (*apply)(array_wrap, o, context(i), return_scalar);
    if (!return_scalar) return o;
    // 0-d results become NumPy scalars, as from numpy ufuncs.
    return pyb::reinterpret_steal<pyb::object>(
        PyArray_Return(reinterpret_cast<PyArrayObject*>(o.inc_ref().ptr())));
  };
  if (nout == 1) return wrap(0);
  pyb::tuple t(nout);
  for (int i = 0; i < nout; ++i) t[i] = wrap(i);
  return t;
}

pyb::tuple PyUfunc::ResolveDtypes(const pyb::list& inputs, const pyb::list& outputs,
                                   const pyb::object& signature,
                                   const std::string& casting) const {
  const Ufunc& u = *u_;
  CallOptions opt;
  opt.casting = ParseCasting(casting);
  if (!signature.is_none()) opt.signature = ParseSignature(u, signature);
  std::vector<CallInput> in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    pyb::handle d = inputs[i];
    if (PyUnicode_Check(d.ptr())) {
      const std::string kind = d.cast<std::string>();
      in.emplace_back(kind == "int" ? WeakScalar::Int(0)
                      : kind == "float" ? WeakScalar::Float(0)
                                        : WeakScalar::Complex({0, 0}));
      continue;
    }
    // An empty operand of the dtype, with as many dims as its core dims.
    ArrayView v;
    v.dtype = DTypeFromObject(d);
    const size_t ndim = u.core() ? std::max<size_t>(1, u.core()->dims[i].size()) : 1;
    v.shape.assign(ndim, 0);
    v.strides.assign(ndim, static_cast<int64_t>(ItemSize(v.dtype)));
    in.emplace_back(std::move(v));
  }
  const std::vector<const ArrayView*> no_outputs(static_cast<size_t>(u.nout()), nullptr);
  const PreparedCall call = u.Prepare(std::move(in), no_outputs, opt);
  const Loop& loop = *call.plan.loop;
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].is_none()) continue;
    const DType given = DTypeFromObject(outputs[o]);
    const DType t = loop.types[static_cast<size_t>(u.nin()) + o];
    if (!CanCast(t, given, opt.casting)) {
      throw TypeError("Cannot cast ufunc '" + u.name() + "' output from " +
                      pyb::repr(NumpyDType(t)).cast<std::string>() + " to " +
                      pyb::repr(NumpyDType(given)).cast<std::string>() + " with casting rule '" +
                      casting + "'");
    }
  }
  pyb::tuple out(static_cast<size_t>(u.nargs()));
  for (int i = 0; i < u.nargs(); ++i) out[static_cast<size_t>(i)] = NumpyDType(loop.types[static_cast<size_t>(i)]);
  return out;
}

pyb::object PyUfunc::Identity() const {
  const auto& id = u_->identity();
  switch (id.kind) {
    case Identity::Kind::kNone: return pyb::none();
    case Identity::Kind::kInt: return pyb::int_(static_cast<long long>(id.value));
    case Identity::Kind::kBool: return pyb::bool_(id.value != 0);
    case Identity::Kind::kFloat: return pyb::float_(id.value);
  }
  return pyb::none();
}

std::string PyUfunc::Doc() const {
  // NumPy's first line: "name(x1, x2[, out1, out2], / [, out=(None, None)], *, ...".
  const int nin = u_->nin(), nout = u_->nout();
  std::string args;
  if (nin == 1) args = "x";
  for (int i = 1; i <= nin && nin > 1; ++i) args += (i > 1 ? ", x" : "x") + std::to_string(i);
  if (nout == 1) {
    args += ", /, out=None";
  } else {
    args += "[";
    for (int i = 1; i <= nout; ++i) args += ", out" + std::to_string(i);
    args += "], / [, out=(None";
    for (int i = 1; i < nout; ++i) args += ", None";
    args += ")]";
  }
  const bool core = u_->core() != nullptr;
  return u_->name() + "(" + args + ", *, " + (core ? "" : "where=True, ") +
         "casting='same_kind', order='K', dtype=None, subok=True[, signature" +
         (core ? ", axes, axis" : "") + "])\n\n" + u_->doc();
}

}  // namespace ufuncx::py
