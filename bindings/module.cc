// ufuncx._core: numpy.ufunc-like objects over the registry. Arrays in and out
// are NumPy's, zero-copy; kernels run without the GIL. This file parses
// arguments and maps errors; all semantics live in core/.
#include <pybind11/stl.h>

#include <cctype>
#include <cfenv>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif
#include <cstring>
#include <string>
#include <vector>

#include "convert.h"
#include "ufuncx/error.h"
#include "ufuncx/frontends.h"
#include "ufuncx/memory.h"
#include "ufuncx/plugin.h"
#include "ufuncx/registry.h"
#include "ufuncx/scatter.h"

namespace ufuncx::py {
namespace {

constexpr int64_t kReleaseGilAbove = 4096;

PyArrayObject* AsArray(const pyb::object& o) {
  return reinterpret_cast<PyArrayObject*>(o.ptr());
}

// Floating-point errors as NumPy reports them: the flags are cleared when a
// computation starts and read when it ends (worker threads pass theirs on,
// workers.h); only a set flag costs a call into ufuncx/_errstate.py, which
// acts on np.errstate. The first flag NumPy's state says to raise on is
// raised as FloatingPointError from here.
class FpErrors {
 public:
  FpErrors() { Clear(); }
  // (name: what NumPy's messages name, the ufunc or the method)
  void Report(const Ufunc& u, const char* name) const {
    const int raised = Raised();
    if (!raised) return;
    if (!u.traits().fp_errors) {  // the table says this ufunc never reports
      Clear();
      return;
    }
    const int bits = (raised & FE_DIVBYZERO ? 1 : 0) | (raised & FE_OVERFLOW ? 2 : 0) |
                     (raised & FE_UNDERFLOW ? 4 : 0) | (raised & FE_INVALID ? 8 : 0);
    Clear();
    static const pyb::object* report =
        new pyb::object(pyb::module_::import("ufuncx._errstate").attr("report"));
    (*report)(bits, name);
  }

 private:
  static constexpr int kFlags = FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID;
#if defined(__x86_64__)
  // The SSE (MXCSR) and x87 (long double) status flags sit at the bits
  // <fenv.h> names; reading them is cheap, and they are written only when
  // set (glibc's feclearexcept reloads the whole x87 environment: 0.07 us
  // a call).
  static int Raised() {
    uint16_t x87;
    __asm__ volatile("fnstsw %0" : "=am"(x87));
    return static_cast<int>((_mm_getcsr() | x87) & kFlags);
  }
  static void Clear() {
    const unsigned csr = _mm_getcsr();
    if (csr & kFlags) _mm_setcsr(csr & ~static_cast<unsigned>(kFlags));
    uint16_t x87;
    __asm__ volatile("fnstsw %0" : "=am"(x87));
    if (x87 & kFlags) __asm__ volatile("fnclex");
  }
#else
  static int Raised() { return std::fetestexcept(kFlags); }
  static void Clear() { std::feclearexcept(kFlags); }
#endif
};

// NumPy's signature= forms: "ff->f", "ff" is an error, a tuple of dtypes or
// None, or a single dtype (all outputs).
std::vector<std::optional<DType>> ParseSignature(const Ufunc& u, pyb::handle sig) {
  std::vector<std::optional<DType>> out;
  if (pyb::isinstance<pyb::str>(sig)) {
    const std::string s = sig.cast<std::string>();
    const auto arrow = s.find("->");
    std::string chars;
    for (char c : s) {
      if (c != '-' && c != '>' && c != ',' && c != ' ') chars += c;
    }
    if (arrow == std::string::npos || static_cast<int>(arrow) != u.nin() ||
        static_cast<int>(chars.size()) != u.nargs()) {
      throw ValueError("a type-string for " + u.name() + ", " + std::to_string(u.nin()) +
                       " typecode(s) before and " + std::to_string(u.nout()) +
                       " after the -> sign");
    }
    for (char c : chars) {
      DType t;
      if (TryParseDType(std::string(1, c), &t)) {
        out.push_back(t);
        continue;
      }
      // NumPy's classes: a code no dtype has is a ValueError; a dtype
      // ufuncx has no loops for (datetime, object) is a TypeError.
      PyArray_Descr* descr = nullptr;
      if (!PyArray_DescrConverter2(pyb::str(std::string(1, c)).ptr(), &descr) || !descr) {
        PyErr_Clear();
        throw ValueError("signature " + s + ": '" + std::string(1, c) +
                         "' is not a valid type code (Invalid data-type for array)");
      }
      Py_DECREF(descr);
      out.push_back(DTypeFromObject(pyb::str(std::string(1, c))));
    }
    return out;
  }
  if (pyb::isinstance<pyb::tuple>(sig) || pyb::isinstance<pyb::list>(sig)) {
    auto seq = pyb::reinterpret_borrow<pyb::sequence>(sig);
    if (static_cast<int>(seq.size()) == u.nin() + u.nout()) {
      for (auto item : seq) {
        if (item.is_none()) out.emplace_back(std::nullopt);
        else out.emplace_back(DTypeFromObject(item));
      }
      return out;
    }
    throw ValueError("The signature tuple must have exactly " +
                     std::to_string(u.nargs()) + " entries: one per ufunc operand");
  }
  out.assign(u.nargs(), std::nullopt);
  const DType t = DTypeFromObject(sig);
  for (int i = u.nin(); i < u.nargs(); ++i) out[i] = t;
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
// ndarray's, None included). Plain types answer without a lookup.
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
    return false;
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

class PyUfunc {
 public:
  explicit PyUfunc(const Ufunc* u) : u_(u) {}
  const Ufunc& u() const { return *u_; }

  // The small-call fast path: positional ndarray or NumPy scalar inputs only,
  // one output, every array C-contiguous (or 1-D with any stride) with the
  // result's shape, or a single element. This only reads the operands'
  // pointers and shapes, with no ArrayView or vector built; core's direct
  // path (DirectLoop, RunDirect) chooses and runs the loop. Returns a null
  // object when the call needs the general path (Python scalars among
  // others: NEP 50 makes them weak).
  pyb::object TryFastCall(const pyb::args& args) const {
    const Ufunc& u = *u_;
    const int nin = u.nin();
    if (u.nout() != 1 || nin > 2 || static_cast<int>(args.size()) != nin || u.core()) return {};
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
        if (!t || !fits) return {};
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
    if (!loop || ToTypeNum(loop->types[nin]) < 0) return {};
    pyb::object result = NewArray(loop->types[nin], nd, dims);
    auto* oa = reinterpret_cast<PyArrayObject*>(result.ptr());
    const int64_t n = PyArray_SIZE(oa);
    char* a[3];
    int64_t steps[3];
    for (int i = 0; i < nin; ++i) {
      a[i] = in[i].data;
      steps[i] = in[i].size == 1 && n != 1 ? 0 : in[i].step;
    }
    a[nin] = static_cast<char*>(PyArray_DATA(oa));
    steps[nin] = static_cast<int64_t>(ItemSize(loop->types[nin]));
    const FpErrors fp;
    if (n > kReleaseGilAbove) {
      pyb::gil_scoped_release release;
      u.RunDirect(*loop, a, steps, n);
    } else {
      u.RunDirect(*loop, a, steps, n);
    }
    fp.Report(u, u.name().c_str());
    return pyb::reinterpret_steal<pyb::object>(
        PyArray_Return(reinterpret_cast<PyArrayObject*>(result.release().ptr())));
  }

  // This object as Python sees it (overrides and __array_wrap__ get it).
  pyb::object Self() const { return pyb::cast(this, pyb::return_value_policy::reference); }

  pyb::object Call(pyb::args args, pyb::kwargs kwargs) const {
    if (!kwargs || kwargs.empty()) {
      if (pyb::object r = TryFastCall(args)) return r;
    }
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

  // numpy.ufunc.outer(A, B, **kwargs): the call on core's OuterInputs.
  pyb::object Outer(pyb::args args, pyb::kwargs kwargs) const {
    u_->CheckBinaryMethod("outer");
    if (args.size() != 2) throw TypeError("exactly two arguments expected");
    return Invoke(args, kwargs, /*outer=*/true);
  }

  // The general call (outer: numpy.ufunc.outer's, on core's OuterInputs).
  pyb::object Invoke(const pyb::args& args, const pyb::kwargs& kwargs, bool outer) const {
    const Ufunc& u = *u_;
    const int nin = u.nin(), nout = u.nout();
    const int npos = static_cast<int>(args.size());
    if (npos < nin || npos > nin + nout) {
      throw TypeError(u.name() + "() takes from " + std::to_string(nin) + " to " +
                      std::to_string(nin + nout) + " positional arguments but " +
                      std::to_string(npos) + " were given");
    }
    std::vector<pyb::object> outs(nout);
    bool out_given = false;
    bool keep_arrays = false;  // out=...: 0-d results stay arrays
    bool subok = true;
    for (int i = nin; i < npos; ++i) {
      if (!args[i].is_none()) outs[i - nin] = args[i], out_given = true;
    }
    CallOptions opt;
    pyb::object where_obj;
    for (auto item : kwargs) {
      const std::string key = pyb::str(item.first);
      pyb::handle v = item.second;
      if (key == "out") {
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
        if (!(PyBool_Check(v.ptr()) && v.ptr() == Py_True)) {
          where_obj = pyb::reinterpret_borrow<pyb::object>(v);
        }
      } else if (key == "casting") {
        opt.casting = ParseCasting(v.cast<std::string>());
      } else if (key == "dtype") {
        if (!v.is_none()) opt.dtype = DTypeFromObject(v);
      } else if (key == "signature" || key == "sig") {
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
      if (o && !PyArray_ISNBO(PyArray_DESCR(AsArray(o))->byteorder)) {
        throw TypeError("ufuncx needs native byte order outputs");
      }
    }

    std::vector<Operand> ops;  // holds the arrays the inputs became
    std::vector<CallInput> in;
    ops.reserve(nin);
    in.reserve(nin);
    for (int i = 0; i < nin; ++i) {
      ops.push_back(ToOperand(args[i], u.name().c_str()));
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
    const PreparedCall call = u.Prepare(std::move(in), out_ptrs, opt);
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
    fp.Report(u, u.name().c_str());
    // Given outputs come back as given; new ones through the inputs'
    // __array_wrap__ (NumPy's subclass rules), else 0-d ones as scalars.
    const pyb::object array_wrap = subok && !outer ? FindArrayWrap(args, nin) : pyb::object();
    const bool return_scalar = !out_given && !keep_arrays;
    auto wrap = [&](int i) -> pyb::object {
      const pyb::object& o = outs[static_cast<size_t>(i)];
      if (!call.new_outputs[static_cast<size_t>(i)]) return o;  // given
      if (array_wrap) {
        static const pyb::object* apply =
            new pyb::object(pyb::module_::import("ufuncx._subclass").attr("wrap"));
        pyb::tuple inputs(nin);
        for (int k = 0; k < nin; ++k) inputs[k] = args[k];
        return (*apply)(array_wrap, o, pyb::make_tuple(Self(), inputs, i), return_scalar);
      }
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

  pyb::object Identity() const {
    const auto& id = u_->identity();
    switch (id.kind) {
      case Identity::Kind::kNone: return pyb::none();
      case Identity::Kind::kInt: return pyb::int_(static_cast<long long>(id.value));
      case Identity::Kind::kBool: return pyb::bool_(id.value != 0);
      case Identity::Kind::kFloat: return pyb::float_(id.value);
    }
    return pyb::none();
  }

  std::string Doc() const {
    std::string args;
    if (u_->nin() == 1) args = "x, /";
    else {
      for (int i = 1; i <= u_->nin(); ++i) args += "x" + std::to_string(i) + ", ";
      args += "/";
    }
    std::string out = u_->nout() == 1 ? "out=None" : "out=(None, None)";
    return u_->name() + "(" + args + ", " + out +
           ", *, where=True, casting='same_kind', order='K', dtype=None, "
           "subok=True[, signature])\n\n" + u_->doc();
  }

 private:
  const Ufunc* u_;
};

Bounds ParseBounds(const std::string& s) {
  if (s == "skip") return Bounds::kSkipElement;
  if (s == "skip_window") return Bounds::kSkipWindow;
  if (s == "clip") return Bounds::kClip;
  if (s == "raise") return Bounds::kRaise;
  if (s == "wrap_raise") return Bounds::kWrapThenRaise;
  throw ValueError("mode must be one of 'skip', 'skip_window', 'clip', 'raise' (got '" + s + "')");
}

ScatterPlan ParsePlan(const std::string& s) {
  for (ScatterPlan p : {ScatterPlan::kAuto, ScatterPlan::kWindowRuns, ScatterPlan::kElement,
                        ScatterPlan::kLocalTarget, ScatterPlan::kPartitioned,
                        ScatterPlan::kSortedParallel, ScatterPlan::kGeneric, ScatterPlan::kRows}) {
    if (s == PlanName(p)) return p;
  }
  throw ValueError("unknown scatter plan '" + s + "'");
}

// A sequence of Python ints (anything with __index__ but bool), each within
// int64; TypeError naming the argument otherwise, never pybind11's cast error.
int64_t Int(pyb::handle x, const char* what) {
  if (PyBool_Check(x.ptr()) || !PyIndex_Check(x.ptr())) {
    throw TypeError(std::string(what) + " must hold ints, got " + Py_TYPE(x.ptr())->tp_name);
  }
  pyb::object v = pyb::reinterpret_steal<pyb::object>(PyNumber_Index(x.ptr()));
  if (!v) throw pyb::error_already_set();
  int overflow = 0;
  const long long r = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow) throw TypeError(std::string(what) + ": " + pyb::str(v).cast<std::string>() +
                                " does not fit in int64");
  if (r == -1 && PyErr_Occurred()) throw pyb::error_already_set();
  return r;
}

std::vector<int64_t> Ints(pyb::handle seq, const char* what) {
  if (!PySequence_Check(seq.ptr()) || PyUnicode_Check(seq.ptr()) || PyBytes_Check(seq.ptr())) {
    throw TypeError(std::string(what) + " must be a sequence of ints, got " +
                    Py_TYPE(seq.ptr())->tp_name);
  }
  std::vector<int64_t> out;
  for (auto x : pyb::reinterpret_borrow<pyb::sequence>(seq)) out.push_back(Int(x, what));
  return out;
}

// A ufuncx ufunc given as the object or its name; TypeError otherwise.
const Ufunc& UfuncOf(pyb::handle obj, const char* what) {
  if (pyb::isinstance<pyb::str>(obj)) return GetUfunc(obj.cast<std::string>());
  if (pyb::isinstance<PyUfunc>(obj)) return obj.cast<const PyUfunc&>().u();
  throw TypeError(std::string(what) + " must be a ufuncx ufunc or its name, got " +
                  Py_TYPE(obj.ptr())->tp_name);
}

// A view of a writeable, native-endian ndarray of a supported dtype.
ArrayView TargetView(pyb::handle obj, const char* what) {
  if (!PyArray_Check(obj.ptr())) throw TypeError(std::string(what) + " must be a numpy.ndarray");
  auto a = reinterpret_cast<PyArrayObject*>(obj.ptr());
  if (!PyArray_ISWRITEABLE(a)) throw ValueError(std::string(what) + " is read-only");
  if (!PyArray_ISNBO(PyArray_DESCR(a)->byteorder) || !FromTypeNum(PyArray_TYPE(a))) {
    throw TypeError(std::string(what) + " must have a native numeric dtype");
  }
  return ViewOf(a);
}

ArrayView InputView(pyb::handle obj, const char* what) {
  if (!PyArray_Check(obj.ptr())) throw TypeError(std::string(what) + " must be a numpy.ndarray");
  auto a = reinterpret_cast<PyArrayObject*>(obj.ptr());
  if (!PyArray_ISNBO(PyArray_DESCR(a)->byteorder) || !FromTypeNum(PyArray_TYPE(a))) {
    throw TypeError(std::string(what) + " must have a native numeric dtype");
  }
  return ViewOf(a);
}

// The planner, in place on numpy arrays. Front ends (ufunc.at, scatter,
// torchlike, asctile) are written in Python on top of this one call.
pyb::dict ScatterInPlace(pyb::list operands, pyb::handle indices, pyb::list updates,
                         pyb::handle update_window_dims, pyb::handle inserted_window_dims,
                         pyb::handle input_batching_dims,
                         pyb::handle scatter_indices_batching_dims,
                         pyb::handle scatter_dims_to_operand_dims, pyb::handle index_vector_dim,
                         pyb::handle combiner, const std::string& mode, pyb::list init_values, const std::string& finalize,
                         const std::string& casting, const std::string& plan, int threads) {
  ScatterRequest r;
  for (auto o : operands) r.operands.push_back(TargetView(o, "operand"));
  r.indices = InputView(indices, "scatter_indices");
  for (auto u : updates) r.updates.push_back(InputView(u, "updates"));
  r.dims.update_window_dims = Ints(update_window_dims, "update_window_dims");
  r.dims.inserted_window_dims = Ints(inserted_window_dims, "inserted_window_dims");
  r.dims.input_batching_dims = Ints(input_batching_dims, "input_batching_dims");
  r.dims.scatter_indices_batching_dims = Ints(scatter_indices_batching_dims, "scatter_indices_batching_dims");
  r.dims.scatter_dims_to_operand_dims = Ints(scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims");
  r.dims.index_vector_dim = Int(index_vector_dim, "index_vector_dim");
  if (!combiner.is_none()) {
    r.combiner = &UfuncOf(combiner, "combiner");
  }
  r.bounds = ParseBounds(mode);
  for (auto v : init_values) r.init_values.push_back(InputView(v, "init value"));
  if (!r.init_values.empty()) r.init = Init::kValueAtHits;
  if (finalize == "mean") r.finalize = Finalize::kMean;
  else if (finalize != "none") throw ValueError("finalize must be 'none' or 'mean'");
  r.casting = ParseCasting(casting);
  r.force_plan = ParsePlan(plan);
  if (threads < 1) throw ValueError("threads must be at least 1");
  r.max_threads = threads;
  // Targets must not overlap other arguments (the planner reads them while
  // writing); such calls copy first in the Python front ends.
  ScatterReport rep;
  const FpErrors fp;
  {
    pyb::gil_scoped_release release;
    rep = Scatter(r);
  }
  if (r.combiner) fp.Report(*r.combiner, r.combiner->name().c_str());
  pyb::dict d;
  d["plan"] = PlanName(rep.plan);
  d["index_source"] = IndexSourceName(rep.source);
  d["applied"] = rep.updates_applied;
  d["skipped"] = rep.updates_skipped;
  return d;
}

// ----------------------------------------------------------- reduce family
// The Python methods (ufuncx/_methods.py) normalise NumPy's argument forms
// and call these; all semantics live in Ufunc's reduce family.

std::optional<DType> OptDType(pyb::handle dtype) {
  if (dtype.is_none()) return std::nullopt;
  return DTypeFromObject(dtype);
}

// out= is returned as given; a new result that is 0-d becomes a NumPy scalar.
pyb::object Finish(pyb::handle out, pyb::object result) {
  if (!out.is_none()) return pyb::reinterpret_borrow<pyb::object>(out);
  return pyb::reinterpret_steal<pyb::object>(
      PyArray_Return(reinterpret_cast<PyArrayObject*>(result.release().ptr())));
}

// Where a method writes: out= itself (its view already in *view), or a new
// NumPy-allocated array of the plan's shape and dtype (NumPy's allocator
// caches large blocks).
pyb::object Destination(const ReducePlan& plan, pyb::handle out, ArrayView* view) {
  if (!out.is_none()) return pyb::reinterpret_borrow<pyb::object>(out);
  pyb::object res = NewArray(plan.dtype(), plan.shape);
  *view = ViewOf(AsArray(res));
  return res;
}

// Runs f (without the GIL when the work is large) and reports its
// floating-point errors under the name NumPy gives them (the method's).
template <class F>
void MaybeWithoutGil(const Ufunc& u, int64_t size, const char* name, F&& f) {
  const FpErrors fp;
  if (size > kReleaseGilAbove) {
    pyb::gil_scoped_release release;
    f();
  } else {
    f();
  }
  fp.Report(u, name);
}

// Each method plans once in core (argument errors before loop errors, as
// NumPy), allocates its result from the plan, and runs the plan.
pyb::object ReduceMethod(const PyUfunc& self, pyb::handle array, pyb::handle axis,
                         pyb::handle dtype, pyb::handle out, bool keepdims, bool has_initial,
                         pyb::handle initial, pyb::handle where) {
  const Ufunc& u = self.u();
  const ArrayView a = InputView(array, "array");
  ReduceOptions opt;
  if (axis.is_none()) opt.axis = std::nullopt;
  else opt.axis = Ints(axis, "axis");
  opt.dtype = OptDType(dtype);
  opt.keepdims = keepdims;
  ArrayView out_view, initial_view, where_view;
  if (!out.is_none()) out_view = TargetView(out, "out");
  const ReducePlan plan =
      u.PlanReduce(a, opt, out.is_none() ? std::nullopt : std::optional(out_view.dtype));
  pyb::object initial_arr;
  if (has_initial) {
    if (initial.is_none()) {
      opt.no_initial = true;
    } else {
      // NumPy packs initial into the accumulator type (OverflowError for
      // out-of-range Python ints).
      initial_arr = pyb::module_::import("numpy").attr("array")(initial, NumpyDType(plan.dtype()));
      initial_view = ViewOf(AsArray(initial_arr));
      opt.initial = &initial_view;
    }
  }
  if (!where.is_none()) {
    where_view = InputView(where, "where");
    opt.where = &where_view;
  }
  pyb::object res = Destination(plan, out, &out_view);
  MaybeWithoutGil(u, a.size(), "reduce", [&] { u.RunReduce(plan, a, out_view, opt); });
  return Finish(out, res);
}

pyb::object AccumulateMethod(const PyUfunc& self, pyb::handle array, int64_t axis,
                             pyb::handle dtype, pyb::handle out) {
  const Ufunc& u = self.u();
  const ArrayView a = InputView(array, "array");
  ArrayView o;
  if (!out.is_none()) o = TargetView(out, "out");
  const ReducePlan plan = u.PlanAccumulate(a, axis, OptDType(dtype),
                                           out.is_none() ? std::nullopt : std::optional(o.dtype));
  pyb::object res = Destination(plan, out, &o);
  MaybeWithoutGil(u, a.size(), "accumulate", [&] { u.RunAccumulate(plan, a, o); });
  return Finish(out, res);
}

pyb::object ReduceatMethod(const PyUfunc& self, pyb::handle array, pyb::handle indices,
                           int64_t axis, pyb::handle dtype, pyb::handle out) {
  const Ufunc& u = self.u();
  const ArrayView a = InputView(array, "array");
  const ArrayView ix = InputView(indices, "indices");
  if (ix.dtype != DType::kInt64 || ix.ndim() != 1 || !ix.IsCContiguous()) {
    throw TypeError("reduceat indices must be a contiguous 1-d intp array");
  }
  const std::span<const int64_t> idx(reinterpret_cast<const int64_t*>(ix.data),
                                     static_cast<size_t>(ix.shape[0]));
  ArrayView o;
  if (!out.is_none()) o = TargetView(out, "out");
  const ReducePlan plan = u.PlanReduceat(a, idx, axis, OptDType(dtype),
                                         out.is_none() ? std::nullopt : std::optional(o.dtype));
  pyb::object res = Destination(plan, out, &o);
  MaybeWithoutGil(u, a.size(), "reduceat", [&] { u.RunReduceat(plan, a, idx, o); });
  return Finish(out, res);
}

void RegisterErrors(pyb::module_& m) {
  (void)m;
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ufuncx::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const ufuncx::AxisError& e) {
      static PyObject* axis_error = [] {
        PyObject* mod = PyImport_ImportModule("numpy.exceptions");
        PyObject* cls = mod ? PyObject_GetAttrString(mod, "AxisError") : nullptr;
        Py_XDECREF(mod);
        return cls;
      }();
      if (axis_error) PyErr_SetString(axis_error, e.what());
      else PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const ufuncx::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const ufuncx::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const ufuncx::OverflowError& e) {
      PyErr_SetString(PyExc_OverflowError, e.what());
    } catch (const ufuncx::RuntimeError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const ufuncx::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    }
  });
}

}  // namespace
}  // namespace ufuncx::py

PYBIND11_MODULE(_core, m) {
  using namespace ufuncx;
  using namespace ufuncx::py;
  if (_import_array() < 0) throw pybind11::error_already_set();
  m.doc() = "ufuncx native core: NumPy-style ufuncs over a generated registry";
  RegisterErrors(m);

  // dynamic_attr: each object carries its own __name__ and __doc__, set by
  // get(), as numpy.ufunc objects do.
  pyb::class_<PyUfunc>(m, "ufunc", pyb::dynamic_attr(), "A universal function like numpy.ufunc.")
      .def("__call__", &PyUfunc::Call)
      .def("_outer", &PyUfunc::Outer)
      .def("_check_binary", [](const PyUfunc& f, const std::string& method) {
        f.u().CheckBinaryMethod(method.c_str());
      })
      .def_property_readonly("nin", [](const PyUfunc& f) { return f.u().nin(); })
      .def_property_readonly("nout", [](const PyUfunc& f) { return f.u().nout(); })
      .def_property_readonly("nargs", [](const PyUfunc& f) { return f.u().nargs(); })
      .def_property_readonly("ntypes", [](const PyUfunc& f) {
        return static_cast<int>(f.u().loops().size());
      })
      .def_property_readonly("types", [](const PyUfunc& f) { return f.u().TypeStrings(); })
      .def_property_readonly("identity", &PyUfunc::Identity)
      .def_property_readonly("signature", [](const PyUfunc& f) -> pyb::object {
        if (!f.u().core()) return pyb::none();
        return pyb::str(f.u().core()->text);
      })
      .def_property_readonly("reorderable", [](const PyUfunc& f) { return f.u().reorderable(); })
      .def("__repr__", [](const PyUfunc& f) { return "<ufunc '" + f.u().name() + "'>"; });

  m.def("_reduce", &ReduceMethod, pyb::arg("ufunc"), pyb::arg("array"), pyb::arg("axis"),
        pyb::arg("dtype"), pyb::arg("out"), pyb::arg("keepdims"), pyb::arg("has_initial"),
        pyb::arg("initial"), pyb::arg("where"));
  m.def("_accumulate", &AccumulateMethod, pyb::arg("ufunc"), pyb::arg("array"), pyb::arg("axis"),
        pyb::arg("dtype"), pyb::arg("out"));
  m.def("_reduceat", &ReduceatMethod, pyb::arg("ufunc"), pyb::arg("array"),
        pyb::arg("indices"), pyb::arg("axis"), pyb::arg("dtype"), pyb::arg("out"));
  m.def("_scatter", &ScatterInPlace, pyb::arg("operands"), pyb::arg("indices"),
        pyb::arg("updates"), pyb::arg("update_window_dims"), pyb::arg("inserted_window_dims"),
        pyb::arg("input_batching_dims"), pyb::arg("scatter_indices_batching_dims"),
        pyb::arg("scatter_dims_to_operand_dims"), pyb::arg("index_vector_dim"),
        pyb::arg("combiner"), pyb::arg("mode"), pyb::arg("init_values") = pyb::list(),
        pyb::arg("finalize") = "none", pyb::arg("casting") = "unsafe",
        pyb::arg("plan") = "auto", pyb::arg("threads") = 2,
        "The scatter planner, in place on numpy arrays; returns which plan ran.");
  using torchlike::Reduce;
  m.def("_torch_scatter_reduce", [](pyb::handle self, int64_t dim, pyb::handle index,
                                    pyb::handle src, const std::string& reduce, bool include_self) {
        static const std::pair<const char*, Reduce> kReduce[] = {
            {"none", Reduce::kNone}, {"add", Reduce::kAdd}, {"multiply", Reduce::kMultiply},
            {"sum", Reduce::kSum}, {"prod", Reduce::kProd}, {"mean", Reduce::kMean},
            {"amax", Reduce::kAmax}, {"amin", Reduce::kAmin}};
        std::optional<Reduce> r;
        for (const auto& [n, v] : kReduce) {
          if (reduce == n) r = v;
        }
        if (!r) throw ValueError("reduce must be none, add, multiply, sum, prod, mean, amax or amin");
        const ArrayView s = TargetView(self, "self"), i = InputView(index, "index"),
                        u = InputView(src, "src");
        pyb::gil_scoped_release release;
        torchlike::ScatterReduce(s, dim, i, u, *r, include_self);
      });
  m.def("_check_at", [](pyb::handle ufunc, bool second_operand) {
        CheckAt(UfuncOf(ufunc, "ufunc"), second_operand);
      });
  m.def("_at", [](pyb::handle ufunc, pyb::handle a, pyb::handle index, pyb::handle b) {
        // ufunc.at with one integer index array: the C++ front end directly.
        const Ufunc& u = UfuncOf(ufunc, "ufunc");
        const ArrayView av = TargetView(a, "operand"), iv = InputView(index, "scatter_indices"),
                        bv = InputView(b, "updates");
        const FpErrors fp;
        {
          pyb::gil_scoped_release release;
          At(u, av, std::span<const ArrayView>(&iv, 1), &bv);
        }
        fp.Report(u, u.name().c_str());
      });
  m.def("_torch_index_add", [](pyb::handle self, int64_t dim, pyb::handle index,
                               pyb::handle source) {
        const ArrayView s = TargetView(self, "self"), i = InputView(index, "index"),
                        u = InputView(source, "source");
        pyb::gil_scoped_release release;
        torchlike::IndexAdd(s, dim, i, u);
      });
  m.def("_torch_index_put", [](pyb::handle self, pyb::list indices, pyb::handle values,
                               bool accumulate) {
        std::vector<ArrayView> idx;
        for (auto i : indices) idx.push_back(InputView(i, "index"));
        const ArrayView s = TargetView(self, "self"), v = InputView(values, "values");
        pyb::gil_scoped_release release;
        torchlike::IndexPut(s, idx, v, accumulate);
      });
  m.def("_asctile_scatter", [](pyb::handle src, int64_t dim, pyb::handle index, pyb::handle dst,
                               std::vector<int64_t> offsets, bool check_bounds,
                               std::optional<int64_t> num_indices) {
        const ArrayView s = InputView(src, "src"), i = InputView(index, "index"),
                        d = TargetView(dst, "dst");
        pyb::gil_scoped_release release;
        asctile::Scatter(s, dim, i, d, offsets, check_bounds, num_indices);
      });
  m.def("release_memory", [] {
        pyb::gil_scoped_release release;
        return ReleaseRetainedMemory();
      },
        "Frees the blocks ufuncx keeps for reuse (results and scatter scratch) and returns "
        "free heap pages to the system; returns the bytes the kept blocks held. (Kept blocks "
        "are freed by themselves after a second unused.)");
  m.def("_copy", &CopyC, pyb::arg("a"),
        "np.array(a, copy=True, order='C'), 64-byte aligned when large.");
  m.def("load_plugin", [](const std::string& path) {
    std::vector<std::string> names;
    {
      pyb::gil_scoped_release release;
      names = LoadPlugin(path);
    }
    return names;
  }, pyb::arg("path"), "Registers a plugin's ufuncs and overloads; returns their names.");
  m.def("get", [](const std::string& name) {
        const Ufunc& u = GetUfunc(name);
        pyb::object o = pyb::cast(PyUfunc(&u));
        o.attr("__name__") = u.name();
        o.attr("__doc__") = PyUfunc(&u).Doc();
        return o;
      }, "A new object for the ufunc registered under a name or alias.");
  m.def("registry", [] {
        std::vector<std::string> names;
        for (const Ufunc* u : AllUfuncs()) names.push_back(u->name());
        return names;
      }, "Names of every registered ufunc, in table order.");
  m.def("aliases", &Aliases, "(alias, name) pairs.");
  m.def("simd_targets", [] {
        pyb::dict d;
        for (const auto& [family, target] : SimdTargets()) d[pyb::str(family)] = target;
        return d;
      }, "The Highway target each loop family's SIMD file selected on this CPU (plugins' as 'plugin.family').");
  m.def("loop_targets", [](const std::string& name) {
        pyb::dict d;
        const Ufunc& u = GetUfunc(name);
        auto types = u.TypeStrings();
        for (size_t i = 0; i < types.size(); ++i) {
          const char* t = u.loops()[i].slots.simd_target;
          d[pyb::str(types[i])] = t ? pyb::object(pyb::str(t)) : pyb::object(pyb::none());
        }
        return d;
      }, "Per loop of a ufunc: the Highway target of its contiguous body, or None.");
  m.def("promote_types", [](pyb::handle a, pyb::handle b) {
        return NumpyDType(PromoteTypes(DTypeFromObject(a), DTypeFromObject(b)));
      });
  m.def("can_cast", [](pyb::handle from, pyb::handle to, const std::string& casting) {
        return CanCast(DTypeFromObject(from), DTypeFromObject(to), ParseCasting(casting));
      }, pyb::arg("from_"), pyb::arg("to"), pyb::arg("casting") = "safe");
}
