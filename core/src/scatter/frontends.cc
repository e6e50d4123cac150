// Thin front ends: each translates its API's arguments into one
// ScatterRequest (StableHLO terms) and calls Scatter().
#include "ufuncx/frontends.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "iterator.h"
#include "scatter/bounds.h"
#include "scatter/plans.h"
#include "ufuncx/error.h"
#include "ufuncx/registry.h"
#include "ufuncx/scalar.h"

namespace ufuncx {
namespace {

using internal::BroadcastTo;
using internal::ListString;

// Leading-dims integer-array indexing lowered to StableHLO: the index arrays
// broadcast to B and are stacked (one array needs no stacking).
struct Lowered {
  Array stacked;
  ArrayView indices;
  int64_t ivd;
  std::vector<int64_t> positions, window_dims;
  Shape indexed_shape;
};

// torch's names of the dtypes its messages print.
std::string TorchName(DType t) {
  switch (t) {
    case DType::kBool: return "Bool";
    case DType::kInt8: return "Char";
    case DType::kUInt8: return "Byte";
    case DType::kInt16: return "Short";
    case DType::kInt32: return "Int";
    case DType::kInt64: return "Long";
    case DType::kFloat16: return "Half";
    case DType::kBFloat16: return "BFloat16";
    case DType::kFloat32: return "Float";
    case DType::kFloat64: return "Double";
    case DType::kComplex64: return "ComplexFloat";
    case DType::kComplex128: return "ComplexDouble";
    default: return Name(t);
  }
}

// (torch: index_put_'s words for too many indices; else NumPy's)
Lowered LowerLeading(const ArrayView& a, std::span<const ArrayView> indices, bool torch) {
  if (indices.empty() || static_cast<int>(indices.size()) > a.ndim()) {
    const std::string n = std::to_string(indices.size()), nd = std::to_string(a.ndim());
    throw IndexError(torch ? "too many indices for tensor of dimension " + nd + " (got " + n + ")"
                           : "too many indices for array: array is " + nd +
                                 "-dimensional, but " + n + " were indexed");
  }
  std::vector<const Shape*> shapes;
  for (const ArrayView& i : indices) {
    if (!IsInteger(i.dtype)) {
      throw IndexError("arrays used as indices must be of integer (or boolean) type");
    }
    shapes.push_back(&i.shape);
  }
  Lowered l;
  Shape b;
  try {
    b = internal::BroadcastShapes(shapes);
  } catch (const ValueError&) {
    std::string msg = "shape mismatch: indexing arrays could not be broadcast together with shapes";
    for (const ArrayView& i : indices) msg += " " + internal::ShapeString(i.shape);
    throw IndexError(msg);
  }
  (void)ShapeSize(b);  // ValueError when the broadcast shape has too many elements
  const int64_t k = static_cast<int64_t>(indices.size());
  for (int64_t d = 0; d < k; ++d) l.positions.push_back(d);
  l.indexed_shape = b;
  for (int64_t d = k; d < a.ndim(); ++d) {
    l.window_dims.push_back(static_cast<int64_t>(l.indexed_shape.size()));
    l.indexed_shape.push_back(a.shape[d]);
  }
  l.ivd = static_cast<int64_t>(b.size());
  if (k == 1) {
    l.indices = BroadcastTo(indices[0], b);
  } else {
    Shape s = b;
    s.push_back(k);
    l.stacked = Array(DType::kInt64, s);
    for (int64_t j = 0; j < k; ++j) {
      ArrayView col{l.stacked.data() + j * 8, DType::kInt64, b, {}};
      col.strides = ContiguousStrides(b, static_cast<size_t>(8 * k));
      CopyInto(col, BroadcastTo(indices[j], b));
    }
    l.indices = l.stacked.view();
  }
  return l;
}

int64_t WrapDim(int64_t dim, int ndim) {
  const int64_t n = std::max(ndim, 1);
  if (dim < -n || dim >= n) {
    throw IndexError("Dimension out of range (expected to be in range of [" + std::to_string(-n) +
                     ", " + std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + n : dim;
}

// torch's is_non_overlapping_and_dense: some order of the dims is C-contiguous.
bool DenseLayout(const ArrayView& v) {
  std::vector<int> dims;
  for (int d = 0; d < v.ndim(); ++d) {
    if (v.shape[d] != 1) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end(), [&](int a, int b) { return v.strides[a] < v.strides[b]; });
  int64_t expect = static_cast<int64_t>(v.itemsize());
  for (int d : dims) {
    if (v.strides[d] != expect) return false;
    expect *= v.shape[d];
  }
  return true;
}

// torch's assert_no_overlap: an input that shares memory with self is
// refused when both layouts are dense (torch cannot tell otherwise; then
// the planner reads a copy of the input).
void CheckNoOverlap(const ArrayView& self, const ArrayView& input) {
  if (self.size() == 0 || input.size() == 0 || !DenseLayout(self) || !DenseLayout(input)) return;
  if (MayShareMemory(self, input)) {
    throw RuntimeError("unsupported operation: some elements of the input tensor and the "
                       "written-to tensor refer to a single memory location. Please clone() "
                       "the tensor before performing the operation.");
  }
}

// torch's assert_no_internal_overlap: self may not repeat an element (an
// empty self repeats none, whatever its strides).
void CheckNoInternalOverlap(const ArrayView& self) {
  if (self.size() == 0) return;
  for (int d = 0; d < self.ndim(); ++d) {
    if (self.shape[d] > 1 && self.strides[d] == 0) {
      throw RuntimeError("unsupported operation: more than one element of the written-to tensor "
                         "refers to a single memory location. Please clone() the tensor before "
                         "performing the operation.");
    }
  }
}

// Re-raise the planner's IndexError with torch's class and wording.
template <class F>
void AsTorchError(int64_t dim, const Shape& shape, F&& f) {
  try {
    f();
  } catch (const internal::ScatterIndexError& e) {
    throw RuntimeError("index " + std::to_string(e.index) + " is out of bounds for dimension " +
                       std::to_string(dim) + " with size " + std::to_string(shape[dim]));
  }
}

}  // namespace

void CheckAt(const Ufunc& u, bool second_operand) {
  if (u.core()) u.CheckBinaryMethod("at");
  if (u.nout() != 1) throw ValueError("Only single output ufuncs supported at this time");
  if (u.nin() == 1 && second_operand) {
    throw ValueError("second operand provided when ufunc is unary");
  }
  if (u.nin() == 2 && !second_operand) throw ValueError("second operand needed for ufunc");
  if (u.nin() != 1 && u.nin() != 2) {
    throw ValueError("at is only supported for unary and binary ufuncs");
  }
}

ScatterReport At(const Ufunc& u, const ArrayView& a, std::span<const ArrayView> indices,
                 const ArrayView* b) {
  CheckAt(u, b != nullptr);
  if (b && indices.size() == 1 && internal::TinyAt(u, a, indices[0], *b)) {
    return ScatterReport{ScatterPlan::kElement, IndexSource::kColumn, indices[0].size(), 0};
  }
  Lowered l = LowerLeading(a, indices, false);
  ScatterRequest r;
  r.operands = {a};
  r.indices = l.indices;
  Array dummy;
  if (b) {
    try {
      r.updates = {BroadcastTo(*b, l.indexed_shape)};
    } catch (const ValueError&) {
      throw ValueError("array is not broadcastable to correct shape");
    }
  } else {
    dummy = Array::Zeros(a.dtype, {});
    r.updates = {BroadcastTo(dummy.view(), l.indexed_shape)};
  }
  r.dims.update_window_dims = l.window_dims;
  r.dims.inserted_window_dims = l.positions;
  r.dims.scatter_dims_to_operand_dims = l.positions;
  r.dims.index_vector_dim = l.ivd;
  r.combiner = &u;
  r.bounds = Bounds::kWrapThenRaise;
  return Scatter(r);
}

namespace torchlike {

void ScatterReduce(const ArrayView& self, int64_t dim, const ArrayView& index,
                   const ArrayView& src, Reduce reduce, bool include_self) {
  const char* name = "scatter";  // (torch's messages name it so for every variant)
  if (index.dtype != DType::kInt64 && index.dtype != DType::kInt32) {
    throw RuntimeError(std::string(name) + "(): Expected dtype int32/int64 for index");
  }
  if (src.dtype != self.dtype) {  // (torch checks it for an empty index too)
    throw RuntimeError(std::string(name) + "(): Expected self.dtype to be equal to src.dtype");
  }
  dim = WrapDim(dim, self.ndim());
  CheckNoInternalOverlap(self);
  CheckNoOverlap(self, index);
  CheckNoOverlap(self, src);
  if (index.size() == 0) return;
  if (index.ndim() != self.ndim()) {
    throw RuntimeError("Index tensor must have the same number of dimensions as self tensor");
  }
  if (src.ndim() != index.ndim()) {
    throw RuntimeError("Index tensor must have the same number of dimensions as src tensor");
  }
  for (int d = 0; d < index.ndim(); ++d) {
    if (index.shape[d] > src.shape[d] || (d != dim && index.shape[d] > self.shape[d])) {
      throw RuntimeError("Expected index " + ListString(index.shape) + " to be no larger than self " +
                         ListString(self.shape) + " apart from dimension " + std::to_string(dim) +
                         " and to be no larger size than src " + ListString(src.shape));
    }
  }
  // torch's CPU kernels have no complex amax/amin and no bool mean.
  const bool complex = KindOf(self.dtype) == Kind::kComplex;
  if (((reduce == Reduce::kAmax || reduce == Reduce::kAmin) && complex) ||
      (reduce == Reduce::kMean && self.dtype == DType::kBool)) {
    const char* kernel = reduce == Reduce::kAmax ? "amax" : reduce == Reduce::kAmin ? "amin" : "mean";
    const char* type = self.dtype == DType::kBool        ? "Bool"
                       : self.dtype == DType::kComplex64 ? "ComplexFloat"
                                                         : "ComplexDouble";
    throw NotImplementedError(std::string("\"scatter_gather_tensor_cpu_reduce_") + kernel +
                              "\" not implemented for '" + type + "'");
  }
  // Batching dims are every dim but `dim`; self and src are viewed at
  // index's extent there, so nothing is copied.
  ArrayView view = self, upd = src;
  upd.shape = index.shape;
  std::vector<int64_t> batch;
  for (int d = 0; d < self.ndim(); ++d) {
    if (d == dim) continue;
    view.shape[d] = index.shape[d];
    batch.push_back(d);
  }
  ScatterRequest r;
  r.operands = {view};
  r.indices = index;
  r.updates = {upd};
  r.dims.inserted_window_dims = {dim};
  r.dims.scatter_dims_to_operand_dims = {dim};
  r.dims.input_batching_dims = batch;
  r.dims.scatter_indices_batching_dims = batch;
  r.dims.index_vector_dim = index.ndim();
  r.bounds = Bounds::kRaise;
  r.casting = Casting::kNo;
  const char* combiner = nullptr;
  switch (reduce) {
    case Reduce::kNone: break;
    case Reduce::kAdd: case Reduce::kSum: case Reduce::kMean: combiner = "add"; break;
    case Reduce::kMultiply: case Reduce::kProd: combiner = "multiply"; break;
    case Reduce::kAmax: combiner = "maximum"; break;
    case Reduce::kAmin: combiner = "minimum"; break;
  }
  r.combiner = combiner ? &GetUfunc(combiner) : nullptr;
  Array init;
  if (!include_self && reduce >= Reduce::kSum) {
    init = Array::Zeros(self.dtype, {});
    const double lowest = -std::numeric_limits<double>::infinity();
    VisitDType(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T v{};
      if (reduce == Reduce::kProd) v = Convert<T>(1.0);
      if (reduce == Reduce::kAmax || reduce == Reduce::kAmin) {
        const bool max = reduce == Reduce::kAmax;
        if constexpr (kIsInt<T>) v = max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
        else if constexpr (std::is_same_v<T, bool>) v = !max;
        else v = Convert<T>(max ? lowest : -lowest);
      }
      StoreElem(init.data(), v);
      return 0;
    });
    r.init = Init::kValueAtHits;
    r.init_values = {init.view()};
  }
  if (reduce == Reduce::kMean) r.finalize = Finalize::kMean;
  AsTorchError(dim, self.shape, [&] { Scatter(r); });
}

void IndexAdd(const ArrayView& self, int64_t dim, const ArrayView& index,
              const ArrayView& source, bool scatter_kernel) {
  if (index.dtype != DType::kInt64 && index.dtype != DType::kInt32) {
    throw RuntimeError("index_add_(): Expected dtype int32/int64 for index");
  }
  if (index.ndim() > 1) throw IndexError("index_add_(): Index is supposed to be a vector");
  dim = WrapDim(dim, self.ndim());
  CheckNoInternalOverlap(self);
  CheckNoOverlap(self, index);
  CheckNoOverlap(self, source);
  if (source.ndim() > 0 && dim >= source.ndim()) {
    throw RuntimeError("index_add_(): Indexing dim " + std::to_string(dim) +
                       " is out of bounds of the source tensor with dim " +
                       std::to_string(source.ndim()));
  }
  const int64_t n = index.size();
  const int64_t src_dim = source.ndim() ? source.shape[dim] : 1;
  if (n != src_dim) {
    throw IndexError("index_add_(): Number of indices (" + std::to_string(n) +
                     ") should be equal to source.size(dim) (" + std::to_string(src_dim) + ")");
  }
  bool same = source.ndim() == self.ndim();
  for (int d = 0; same && d < self.ndim(); ++d) same = d == dim || source.shape[d] == self.shape[d];
  if (!same) {
    throw RuntimeError("source tensor shape must match self tensor shape, excluding the "
                       "specified dimension. Got self.shape = " + ListString(self.shape) +
                       " source.shape = " + ListString(source.shape));
  }
  if (source.dtype != self.dtype) {
    throw RuntimeError("index_add_(): self (" + TorchName(self.dtype) + ") and source (" +
                       TorchName(source.dtype) + ") must have the same scalar type");
  }
  ArrayView idx = index;
  if (idx.ndim() == 0) {
    idx.shape = {1};
    idx.strides = {0};
  }
  std::vector<int64_t> window;
  for (int d = 0; d < self.ndim(); ++d) {
    if (d != dim) window.push_back(d);
  }
  ScatterRequest r;
  r.operands = {self};
  r.indices = idx;
  r.updates = {source};
  r.dims.update_window_dims = window;
  r.dims.inserted_window_dims = {dim};
  r.dims.scatter_dims_to_operand_dims = {dim};
  r.dims.index_vector_dim = 1;
  r.combiner = &GetUfunc("add");
  r.bounds = Bounds::kRaise;
  r.casting = Casting::kNo;
  // (self of 2+ dims and no elements: torch returns before reading an index)
  if (self.ndim() > 1 && self.size() == 0) return;
  // torch's wording: its scatter_add_ kernel's, else its slice kernel's.
  if (scatter_kernel) return AsTorchError(dim, self.shape, [&] { Scatter(r); });
  try {
    Scatter(r);
  } catch (const IndexError&) {
    throw IndexError("index out of range in self");
  }
}

void IndexPut(const ArrayView& self, std::span<const ArrayView> indices, const ArrayView& values,
              bool accumulate) {
  if (values.dtype != self.dtype) {
    throw RuntimeError(std::string("Index put requires the source and destination dtypes match, "
                                   "got ") + TorchName(self.dtype) + " for the destination and " +
                       TorchName(values.dtype) + " for the source.");
  }
  for (const ArrayView& i : indices) CheckNoOverlap(self, i);
  CheckNoOverlap(self, values);
  Lowered l;
  try {
    l = LowerLeading(self, indices, true);
  } catch (const IndexError& e) {
    if (std::string(e.what()).rfind("shape mismatch", 0) != 0) throw;
    std::string msg = "shape mismatch: indexing tensors could not be broadcast together with shapes";
    for (size_t i = 0; i < indices.size(); ++i) msg += (i ? ", " : " ") + ListString(indices[i].shape);
    throw IndexError(msg);
  }
  ScatterRequest r;
  r.operands = {self};
  r.indices = l.indices;
  try {
    r.updates = {BroadcastTo(values, l.indexed_shape)};
  } catch (const ValueError&) {
    throw RuntimeError("shape mismatch: value tensor of shape " + ListString(values.shape) +
                       " cannot be broadcast to indexing result of shape " +
                       ListString(l.indexed_shape));
  }
  r.dims.update_window_dims = l.window_dims;
  r.dims.inserted_window_dims = l.positions;
  r.dims.scatter_dims_to_operand_dims = l.positions;
  r.dims.index_vector_dim = l.ivd;
  r.combiner = accumulate ? &GetUfunc("add") : nullptr;
  r.bounds = Bounds::kWrapThenRaise;
  if (self.size() == 0) {
    // torch refuses a non-empty index into an indexed dim of size 0, and
    // otherwise reads no index of an empty self
    const int64_t k = static_cast<int64_t>(l.positions.size());
    const bool empty_dim = std::any_of(self.shape.begin(), self.shape.begin() + k,
                                       [](int64_t n) { return n == 0; });
    const int64_t picks = l.ivd ? ShapeSize(Shape(r.indices.shape.begin(),
                                                  r.indices.shape.begin() + l.ivd)) : 1;
    if (empty_dim && picks > 0) {
      throw IndexError("index is out of bounds for dimension with size 0");
    }
    return;
  }
  try {
    Scatter(r);
  } catch (const internal::ScatterIndexError& e) {
    throw IndexError("index " + std::to_string(e.index) + " is out of bounds for dimension " +
                     std::to_string(e.dim) + " with size " + std::to_string(e.size));
  }
}

}  // namespace torchlike

namespace asctile {

void Scatter(const ArrayView& src, int64_t dim, const ArrayView& index, const ArrayView& dst,
             std::span<const int64_t> offsets, bool check_bounds,
             std::optional<int64_t> num_indices) {
  const int rank = dst.ndim();
  if (!IsInteger(index.dtype)) {
    throw RuntimeError(std::string("index must have an integer dtype, got ") + Name(index.dtype));
  }
  if (dim < 0 || dim >= rank) {
    throw ValueError("dim " + std::to_string(dim) + " is out of range for dst of rank " +
                     std::to_string(rank));
  }
  if (dim == rank - 1) {
    throw NotImplementedError("scatter along the last dimension of dst is not supported");
  }
  if (static_cast<int64_t>(offsets.size()) != dim + 1) {
    throw ValueError("offsets must contain dim + 1 = " + std::to_string(dim + 1) +
                     " values, got " + std::to_string(offsets.size()));
  }
  if (index.ndim() != 1) {
    throw ValueError("index must be rank 1, got rank " + std::to_string(index.ndim()));
  }
  if (src.ndim() != rank - dim) {
    throw ValueError("src must have rank " + std::to_string(rank - dim) +
                     " (one row per index), got " + std::to_string(src.ndim()));
  }
  if (src.dtype != dst.dtype) {
    throw ValueError(std::string("src and dst must have the same dtype, got ") +
                     Name(src.dtype) + " and " + Name(dst.dtype));
  }
  const int64_t n = num_indices.value_or(index.shape[0]);
  if (n < 0 || n > index.shape[0] || n > src.shape[0]) {
    throw ValueError("num_indices " + std::to_string(n) + " exceeds the index (" +
                     std::to_string(index.shape[0]) + ") or src (" +
                     std::to_string(src.shape[0]) + ") length");
  }
  for (int k = 1; k < src.ndim(); ++k) {
    if (src.shape[k] > dst.shape[dim + k]) {
      throw ValueError("src rows of shape " + ListString(Shape(src.shape.begin() + 1, src.shape.end())) +
                       " do not fit dst dims " +
                       ListString(Shape(dst.shape.begin() + dim + 1, dst.shape.end())));
    }
  }
  // dst at the leading offsets, as a view of rank - dim dims.
  ArrayView view = dst;
  for (int64_t d = 0; d < dim; ++d) {
    if (offsets[d] < 0 || offsets[d] >= dst.shape[d]) {
      if (check_bounds) return;
      throw IndexError("offset " + std::to_string(offsets[d]) + " is out of bounds for axis " +
                       std::to_string(d) + " with size " + std::to_string(dst.shape[d]));
    }
    view.data += offsets[d] * dst.strides[d];
  }
  view.shape.erase(view.shape.begin(), view.shape.begin() + dim);
  view.strides.erase(view.strides.begin(), view.strides.begin() + dim);
  // Row positions: index + offsets[dim] (a small int64 copy of the index),
  // saturated: a uint64 index beyond INT64_MAX or a sum that overflows
  // stays out of bounds instead of wrapping back into range.
  Array rows(DType::kInt64, {n});
  int64_t* pos = rows.typed<int64_t>();
  VisitDType(index.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsInt<T>) {
      for (int64_t i = 0; i < n; ++i) {
        const T v = LoadElem<T>(index.data + i * index.strides[0]);
        int64_t p = 0;
        if constexpr (std::is_unsigned_v<T>) {
          p = v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
        } else {
          p = static_cast<int64_t>(v);
        }
        if (__builtin_add_overflow(p, offsets[dim], &pos[i])) {
          pos[i] = p < 0 ? INT64_MIN : INT64_MAX;
        }
        if (!check_bounds && (pos[i] < 0 || pos[i] >= dst.shape[dim])) {
          // (named in dst's dims: the planner would see the view's axis 0)
          throw IndexError("index " + std::to_string(v) + " (row " + std::to_string(i) +
                           ") at offset " + std::to_string(offsets[dim]) +
                           " is out of bounds for axis " + std::to_string(dim) + " with size " +
                           std::to_string(dst.shape[dim]));
        }
      }
    }
    return 0;
  });
  ArrayView upd = src;
  upd.shape[0] = n;
  std::vector<int64_t> window;
  for (int k = 1; k < src.ndim(); ++k) window.push_back(k);
  ScatterRequest r;
  r.operands = {view};
  r.indices = rows.view();
  r.updates = {upd};
  r.dims.update_window_dims = window;
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {0};
  r.dims.index_vector_dim = 1;
  r.bounds = check_bounds ? Bounds::kSkipWindow : Bounds::kRaise;
  r.casting = Casting::kNo;
  ufuncx::Scatter(r);
}

}  // namespace asctile
}  // namespace ufuncx
