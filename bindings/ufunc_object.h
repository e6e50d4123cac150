// The ufuncx.ufunc Python object and what the bindings share around a call:
// NumPy's floating-point error reporting and the GIL threshold.
#pragma once

#include <cfenv>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif
#include <cstdint>
#include <string>

#include "convert.h"
#include "ufuncx/ufunc.h"

namespace ufuncx::py {

inline constexpr int64_t kReleaseGilAbove = 4096;

inline PyArrayObject* AsArray(const pyb::object& o) {
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
    if ((bits & ~IgnoredBits()) == 0) return;
    static const pyb::object* report =
        new pyb::object(pyb::module_::import("ufuncx._errstate").attr("report"));
    (*report)(bits, name);
  }

  // After a weak Python scalar became its loop type: overflow to inf is
  // NumPy's "overflow encountered in cast" (its scalar packing checks for
  // nothing else); other flags the conversion raised are dropped.
  void ReportCast() const {
    const int raised = Raised();
    if (!raised) return;
    Clear();
    if (!(raised & FE_OVERFLOW) || (IgnoredBits() & 2)) return;
    static const pyb::object* report =
        new pyb::object(pyb::module_::import("ufuncx._errstate").attr("report"));
    (*report)(2, "cast");
  }

 private:
  // The flags NumPy's current error state ignores (the report's bits), read
  // once per state: NumPy 2.x keeps the state in a context variable whose
  // capsule np.errstate / np.seterr replace, so while the capsule is the
  // one seen last (held here, so its identity is not reused) the answer
  // stands, and an ignored flag costs no call into Python (arccosh of one
  // invalid element under np.errstate(all="ignore"): 1.35 -> 0.51 us,
  // NumPy 0.92). 0 where NumPy lays its state out
  // otherwise. (The GIL is held.)
  static int IgnoredBits() {
    static PyObject* var = [] {
      pyb::object v = pyb::module_::import("ufuncx._errstate").attr("_extobj_contextvar");
      return v.is_none() ? nullptr : v.release().ptr();
    }();
    static PyObject* seen = nullptr;  // (a strong reference)
    static int ignored = 0;
    if (!var) return 0;
    PyObject* capsule = nullptr;
    if (PyContextVar_Get(var, nullptr, &capsule) != 0 || !capsule) {
      PyErr_Clear();
      return 0;
    }
    if (capsule == seen) {
      Py_DECREF(capsule);
      return ignored;
    }
    static const pyb::object* decode =
        new pyb::object(pyb::module_::import("ufuncx._errstate").attr("ignored_bits"));
    ignored = (*decode)().cast<int>();
    Py_XSETREF(seen, capsule);
    return ignored;
  }
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

// The Python object of a ufunc: numpy.ufunc's call protocol over core's
// Ufunc (ufunc_object.cc); reduce and the other methods are bound in module.cc.
class PyUfunc {
 public:
  explicit PyUfunc(const Ufunc* u) : u_(u) {}
  const Ufunc& u() const { return *u_; }

  // The small-call fast path: positional ndarray or NumPy scalar inputs only,
  // one or two outputs, every array C-contiguous (or 1-D with any stride) with the
  // result's shape, or a single element. This only reads the operands'
  // pointers and shapes, with no ArrayView or vector built; core's direct
  // path (DirectLoop, RunDirect) chooses and runs the loop. Returns a null
  // object when the call needs the general path (Python scalars among
  // others: NEP 50 makes them weak). The outputs may be given (positionally
  // after the inputs, or as `out`, an array or a tuple of one per output):
  // exact ndarrays, writeable, C-contiguous, of the loop's output dtype and
  // the result's shape, sharing no memory with the inputs or each other
  // except as the very same elements (x += y); anything else takes the
  // general path.
  pyb::object TryFastCall(const pyb::args& args, PyObject* out = nullptr) const;

  // This object as Python sees it (overrides and __array_wrap__ get it).
  pyb::object Self() const;

  // ufunc(*args, **kwargs): the fast path, then NEP 13 overrides, then the
  // general call.
  pyb::object Call(pyb::args args, pyb::kwargs kwargs) const;
  // The call after the fast path: NEP 13 overrides, then the general call.
  pyb::object CallGeneral(const pyb::args& args, const pyb::kwargs& kwargs) const;

  // numpy.ufunc.outer(A, B, **kwargs): the call on core's OuterInputs.
  pyb::object Outer(pyb::args args, pyb::kwargs kwargs) const;

  // The general call (outer: numpy.ufunc.outer's, on core's OuterInputs).
  pyb::object Invoke(const pyb::args& args, const pyb::kwargs& kwargs, bool outer) const;

  // numpy.ufunc.resolve_dtypes for a call (ufuncx/_methods.py checks the
  // arguments): the loop's dtypes for inputs given as dtypes or as the
  // names "int", "float", "complex" of Python's weak scalar types; each
  // given output dtype must take the loop's output under `casting`.
  pyb::tuple ResolveDtypes(const pyb::list& inputs, const pyb::list& outputs,
                           const pyb::object& signature, const std::string& casting) const;

  pyb::object Identity() const;

  std::string Doc() const;

 private:
  const Ufunc* u_;
};

// Makes `ufunc(...)` on objects of `type` (the pybind11 class of PyUfunc)
// try the fast path straight from the type's call slot, before pybind11's
// method lookup and argument conversion; every other call goes on to
// __call__ (PyUfunc::Call) as before.
void InstallCallSlot(pyb::handle type);

}  // namespace ufuncx::py
