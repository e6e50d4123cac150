// ufuncx._core: numpy.ufunc-like objects over the registry (the object and
// its call: ufunc_object.cc; here the methods, scatter front ends, errors and
// the module). Arrays in and out
// are NumPy's, zero-copy; kernels run without the GIL. This file parses
// arguments and maps errors; all semantics live in core/.
#include <pybind11/stl.h>

#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "convert.h"
#include "ufunc_object.h"
#include "ufuncx/error.h"
#include "ufuncx/frontends.h"
#include "ufuncx/memory.h"
#include "ufuncx/version.h"
#include "ufuncx/plugin.h"
#include "ufuncx/registry.h"
#include "ufuncx/scatter.h"

namespace ufuncx::py {
namespace {

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

// The planner's partition step on its own (ufuncx.dask): (order, starts,
// local coordinates) for the points of a C-contiguous (n, k) int64 array.
pyb::tuple PartitionPointsPy(pyb::handle coords_obj, pyb::list dims_obj, bool local32,
                             pyb::list rows_obj) {
  auto* coords = reinterpret_cast<PyArrayObject*>(coords_obj.ptr());
  if (!PyArray_Check(coords_obj.ptr()) || PyArray_NDIM(coords) != 2 ||
      PyArray_TYPE(coords) != NPY_INT64 || !PyArray_IS_C_CONTIGUOUS(coords)) {
    throw TypeError("coords must be a C-contiguous 2-d int64 array");
  }
  std::vector<BlockCuts> dims;
  for (auto d : dims_obj) {
    auto cut = pyb::reinterpret_borrow<pyb::sequence>(d);
    if (cut.size() != 2 && cut.size() != 4) {
      throw TypeError("each cut dim is (column, cuts) or (column, cuts, wrap, raise)");
    }
    dims.push_back({Int(cut[0], "column"), Ints(cut[1], "cuts")});
    if (cut.size() == 4) {
      dims.back().wrap = pyb::cast<bool>(cut[2]);
      dims.back().raise = pyb::cast<bool>(cut[3]);
    }
  }
  const int64_t n = PyArray_DIM(coords, 0), k = PyArray_DIM(coords, 1);
  pyb::object local = NewArray(local32 ? DType::kInt32 : DType::kInt64, Shape{n, k});
  // Rows moved with the points: C-contiguous, n rows, no object references.
  std::vector<PointRows> rows;
  pyb::list moved;
  for (auto r : rows_obj) {
    auto* a = reinterpret_cast<PyArrayObject*>(r.ptr());
    if (!PyArray_Check(r.ptr()) || PyArray_NDIM(a) < 1 || PyArray_DIM(a, 0) != n ||
        !PyArray_IS_C_CONTIGUOUS(a) || PyDataType_REFCHK(PyArray_DESCR(a))) {
      throw TypeError("rows must be C-contiguous arrays of plain values with one row per point");
    }
    pyb::object out = NewLike(a);
    rows.push_back({static_cast<const char*>(PyArray_DATA(a)),
                    n ? static_cast<int64_t>(PyArray_NBYTES(a)) / n : 0,
                    static_cast<char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(out.ptr())))});
    moved.append(std::move(out));
  }
  PointBlocks blocks;
  {
    pyb::gil_scoped_release release;
    blocks = PartitionPoints(static_cast<const int64_t*>(PyArray_DATA(coords)), n, k, dims,
                             PyArray_DATA(reinterpret_cast<PyArrayObject*>(local.ptr())),
                             local32, rows, /*want_order=*/rows.empty());
  }
  pyb::object starts = NewArray(DType::kInt64, Shape{static_cast<int64_t>(blocks.starts.size())});
  std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject*>(starts.ptr())), blocks.starts.data(),
              blocks.starts.size() * sizeof(int64_t));
  pyb::list kept_rows;
  const auto kept_n = static_cast<Py_ssize_t>(blocks.starts.back());
  for (auto m : moved) kept_rows.append(m[pyb::slice(0, kept_n, 1)]);
  if (blocks.order.empty()) {  // (nothing kept, or rows given: no order asked)
    pyb::object order = rows.empty() ? NewArray(DType::kInt64, Shape{0}) : pyb::none();
    return pyb::make_tuple(order, starts, local[pyb::slice(0, kept_n, 1)], kept_rows);
  }
  // The order goes to numpy without a copy: the array owns the vector.
  auto* order = new std::vector<int64_t>(std::move(blocks.order));
  pyb::capsule owner(order, [](void* p) { delete static_cast<std::vector<int64_t>*>(p); });
  npy_intp kept = static_cast<npy_intp>(order->size());
  PyObject* order_arr = PyArray_SimpleNewFromData(1, &kept, NPY_INT64, order->data());
  if (!order_arr) throw pyb::error_already_set();
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(order_arr), owner.release().ptr()) < 0) {
    Py_DECREF(order_arr);
    throw pyb::error_already_set();
  }
  pyb::object kept_local = local[pyb::slice(0, kept, 1)];
  return pyb::make_tuple(pyb::reinterpret_steal<pyb::object>(order_arr), starts, kept_local,
                         kept_rows);
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
  m.attr("__version__") = UFUNCX_VERSION_STRING;
  RegisterErrors(m);

  // dynamic_attr: each object carries its own __name__ and __doc__, set by
  // get(), as numpy.ufunc objects do.
  auto ufunc_class = pyb::class_<PyUfunc>(m, "ufunc", pyb::dynamic_attr(), "A universal function like numpy.ufunc.")
      .def("__call__", &PyUfunc::Call)
      .def("_outer", &PyUfunc::Outer)
      .def("_resolve_dtypes", &PyUfunc::ResolveDtypes)
      .def("_check_binary", [](const PyUfunc& f, const std::string& method) {
        f.u().CheckBinaryMethod(method.c_str());
      })
      .def_property_readonly("nin", [](const PyUfunc& f) { return f.u().nin(); })
      .def_property_readonly("nout", [](const PyUfunc& f) { return f.u().nout(); })
      .def_property_readonly("nargs", [](const PyUfunc& f) { return f.u().nargs(); })
      .def_property_readonly("ntypes", [](const PyUfunc& f) {
        return static_cast<int>(f.u().NumpyTypes().size());
      })
      .def_property_readonly("types", [](const PyUfunc& f) { return f.u().NumpyTypes(); },
                             "NumPy's list of the loops over NumPy dtypes.")
      .def_property_readonly("extra_types", [](const PyUfunc& f) { return f.u().ExtraTypes(); },
                             "The loops over dtypes NumPy has no type character for "
                             "(ml_dtypes' bfloat16 'E', float8_e4m3fn '4', float8_e5m2 '5').")
      .def_property_readonly("identity", &PyUfunc::Identity)
      .def_property_readonly("_default_doc", &PyUfunc::Doc)
      .def_property_readonly("_logical", [](const PyUfunc& f) { return f.u().traits().logical; })
      .def_property_readonly("signature", [](const PyUfunc& f) -> pyb::object {
        if (!f.u().core()) return pyb::none();
        return pyb::str(f.u().core()->text);
      })
      .def_property_readonly("reorderable", [](const PyUfunc& f) { return f.u().reorderable(); })
      .def("__repr__", [](const PyUfunc& f) { return "<ufunc '" + f.u().name() + "'>"; });
  InstallCallSlot(ufunc_class);

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
  m.def("_partition_points", &PartitionPointsPy, pyb::arg("coords"), pyb::arg("dims"),
        pyb::arg("local32"), pyb::arg("rows") = pyb::list(),
        "The scatter planner's partition step: (order, starts, local coords, moved rows).");
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
        // (b None: a unary ufunc)
        const Ufunc& u = UfuncOf(ufunc, "ufunc");
        const ArrayView av = TargetView(a, "operand"), iv = InputView(index, "scatter_indices");
        std::optional<ArrayView> bv;
        if (!b.is_none()) bv = InputView(b, "updates");
        const FpErrors fp;
        {
          pyb::gil_scoped_release release;
          At(u, av, std::span<const ArrayView>(&iv, 1), bv ? &*bv : nullptr);
        }
        fp.Report(u, u.name().c_str());
      });
  m.def("_torch_index_add", [](pyb::handle self, int64_t dim, pyb::handle index,
                               pyb::handle source, bool scatter_kernel) {
        const ArrayView s = TargetView(self, "self"), i = InputView(index, "index"),
                        u = InputView(source, "source");
        pyb::gil_scoped_release release;
        torchlike::IndexAdd(s, dim, i, u, scatter_kernel);
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
  m.def("set_num_threads", [](int n) { ufuncx::SetNumThreads(n); }, pyb::arg("n"),
        "Caps the threads one ufuncx call uses (n <= 0: the machine's). Until it is "
        "called, UFUNCX_NUM_THREADS, else OMP_NUM_THREADS, caps them.");
  m.def("get_num_threads", [] { return ufuncx::NumThreads(); },
        "The most threads one ufuncx call uses.");
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
        o.attr("__name__") = u.name();  // (__doc__: ufuncx/__init__.py's _Doc)
        o.attr("__qualname__") = u.name();  // (numpy.ma reads it, as of NumPy's ufuncs)
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
