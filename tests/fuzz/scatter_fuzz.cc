// Fuzz target for the scatter planner and every scatter front end of the
// C++ API: arbitrary bytes become an arbitrary (often invalid) call. The
// call must either throw a ufuncx::Error or scatter without touching memory
// outside the operand's elements.
//
// The operand is a view into a larger buffer, at an offset, with strides
// from the bytes (negative, zero, and non-zero on empty dims too); every
// byte of the buffer that is not an element of the view holds a canary, and
// the canaries are checked after each call (ASan cannot see a write that
// stays inside the buffer). The index array is sometimes a view of the
// operand's own memory.
//
// Built as a libFuzzer target with clang (-DUFX_FUZZ=ON; tests/fuzz/corpus
// holds the seed inputs and the crash inputs found so far, which ctest
// replays), and otherwise as a standalone program that replays the corpus
// and many pseudo-random inputs (ctest runs it under ASan+UBSan).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <vector>

#include "ufuncx/frontends.h"
#include "ufuncx/scatter.h"
#include "ufuncx/ufuncx.h"

namespace {

int64_t g_accepted = 0;  // calls that passed validation and ran
constexpr unsigned char kCanary = 0xA5;

class Bytes {
 public:
  Bytes(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  uint8_t Next() { return i_ < n_ ? d_[i_++] : 0; }
  int Small(int lo, int hi) { return lo + Next() % (hi - lo + 1); }
  std::vector<int64_t> Dims(int max_len, int lo, int hi) {
    std::vector<int64_t> v(Small(0, max_len));
    for (auto& x : v) x = Small(lo, hi);
    return v;
  }

 private:
  const uint8_t* d_;
  size_t n_, i_ = 0;
};

// A strided view into a canary-filled buffer; Intact() says whether every
// byte outside the view's elements still holds the canary.
class GuardedView {
 public:
  GuardedView(ufuncx::DType t, const ufuncx::Shape& shape, Bytes& in) {
    const int64_t item = static_cast<int64_t>(ufuncx::ItemSize(t));
    const bool dense = in.Small(0, 2) != 0;
    ufuncx::Strides strides(shape.size());
    int64_t step = item;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (dense) {
        strides[d] = step;
        step *= std::max<int64_t>(shape[d], 1);
      } else {
        strides[d] = item * in.Small(-3, 3);
      }
    }
    int64_t lo = 0, hi = item;
    bool empty = false;
    for (size_t d = 0; d < shape.size(); ++d) {
      empty = empty || shape[d] == 0;
      const int64_t span = (std::max<int64_t>(shape[d], 1) - 1) * strides[d];
      (span < 0 ? lo : hi) += span;
    }
    const int64_t pad = 64 + in.Small(0, 7);  // odd offsets: unaligned elements
    buffer_.assign(static_cast<size_t>(hi - lo + 2 * pad), kCanary);
    element_.assign(buffer_.size(), false);
    view_ = ufuncx::ArrayView{reinterpret_cast<char*>(buffer_.data()) + pad - lo, t, shape,
                              strides};
    if (empty) return;
    // Mark (and zero) every element's bytes.
    std::vector<int64_t> at(shape.size(), 0);
    while (true) {
      int64_t off = pad - lo;
      for (size_t d = 0; d < shape.size(); ++d) off += at[d] * strides[d];
      for (int64_t b = 0; b < item; ++b) {
        element_[off + b] = true;
        buffer_[off + b] = 0;
      }
      int d = static_cast<int>(shape.size()) - 1;
      for (; d >= 0; --d) {
        if (++at[d] < shape[d]) break;
        at[d] = 0;
      }
      if (d < 0) break;
    }
  }
  const ufuncx::ArrayView& view() const { return view_; }
  bool Intact() const {
    for (size_t i = 0; i < buffer_.size(); ++i) {
      if (!element_[i] && buffer_[i] != kCanary) return false;
    }
    return true;
  }

 private:
  std::vector<unsigned char> buffer_;
  std::vector<bool> element_;
  ufuncx::ArrayView view_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ufuncx;
  Bytes in(data, size);
  // Build a valid request from the bytes, then (often) corrupt one field,
  // so both the planner and the validation are exercised.
  const DType kTypes[] = {DType::kFloat64, DType::kFloat32, DType::kInt32, DType::kInt8,
                          DType::kUInt16, DType::kComplex64, DType::kBool, DType::kInt64};
  const int rank = in.Small(1, 3);
  Shape op_shape(rank);
  for (auto& d : op_shape) d = in.Small(0, 4);
  std::vector<int64_t> window_dims_op, inserted, batching;
  for (int d = 0; d < rank; ++d) {
    const int role = in.Small(0, 5);
    (role < 3 ? window_dims_op : role < 5 ? inserted : batching).push_back(d);
  }
  std::vector<int64_t> candidates;
  for (int d = 0; d < rank; ++d) {
    if (std::find(batching.begin(), batching.end(), d) == batching.end()) candidates.push_back(d);
  }
  std::vector<int64_t> sdod;
  for (int64_t d : candidates) {
    if (in.Small(0, 1)) sdod.push_back(d);
  }
  Shape rows(in.Small(0, 2));
  for (auto& d : rows) d = in.Small(0, 3);
  std::vector<int64_t> batch_rows;
  for (int64_t b : batching) {
    rows.push_back(op_shape[b]);
    batch_rows.push_back(static_cast<int64_t>(rows.size()) - 1);
  }
  const int64_t ivd = in.Small(0, static_cast<int>(rows.size()));
  Shape idx_shape = rows;
  idx_shape.insert(idx_shape.begin() + ivd, static_cast<int64_t>(sdod.size()));
  std::vector<int64_t> sibd;
  for (int64_t p : batch_rows) sibd.push_back(p >= ivd ? p + 1 : p);
  Shape upd_shape = rows;
  std::vector<int64_t> uwd;
  for (int64_t d : window_dims_op) {
    uwd.push_back(static_cast<int64_t>(upd_shape.size()));
    upd_shape.push_back(op_shape[d] == 0 ? 0 : in.Small(1, static_cast<int>(op_shape[d])));
  }
  const DType op_type = kTypes[in.Small(0, 7)];
  GuardedView op(op_type, op_shape, in);
  const DType kIndexTypes[] = {DType::kInt8, DType::kUInt8, DType::kInt32, DType::kUInt64,
                               DType::kInt64};
  Array idx = Array::Zeros(kIndexTypes[in.Small(0, 4)], idx_shape);
  const size_t isz = ItemSize(idx.dtype());
  for (int64_t i = 0; i < idx.size(); ++i) {
    const int v = in.Next() % 8 == 7 ? static_cast<int8_t>(in.Next()) : in.Small(-1, 5);
    for (size_t k = 0; k < isz; ++k) idx.data()[i * isz + k] = static_cast<char>(v < 0 ? 0xff : 0);
    idx.data()[i * isz] = static_cast<char>(v);
    if (in.Next() % 32 == 31) {  // a huge index: past any size, or wrapping in uint64
      for (size_t k = 1; k < isz; ++k) idx.data()[i * isz + k] = static_cast<char>(in.Next());
    }
  }
  ArrayView idx_view = idx.view();
  // Sometimes the indices are the operand's own memory (copy them there).
  const ArrayView& ov = op.view();
  if (in.Small(0, 7) == 0 && idx.dtype() == ov.dtype && ov.IsCContiguous() &&
      ov.size() >= idx.size()) {
    CopyInto(ArrayView{ov.data, ov.dtype, idx_shape, ContiguousStrides(idx_shape, isz)},
             idx.view());
    idx_view = ArrayView{ov.data, ov.dtype, idx_shape, ContiguousStrides(idx_shape, isz)};
  }
  Array upd = Array::Zeros(in.Small(0, 3) == 0 ? kTypes[in.Small(0, 7)] : op_type, upd_shape);
  const char* kCombiners[] = {"add", "multiply", "maximum", "negative", "divmod", "sqrt",
                              "power"};
  const int c = in.Small(0, 7);
  const Ufunc* combiner = c == 7 ? nullptr : &GetUfunc(kCombiners[c]);
  const int front_end = in.Small(0, 9);
  const int64_t dim = in.Small(-1, 3);
  try {
    switch (front_end) {
      case 1: {
        const ArrayView u = upd.view();
        At(combiner ? *combiner : GetUfunc("add"), ov, std::span(&idx_view, 1),
           combiner && combiner->nin() == 1 ? nullptr : &u);
        break;
      }
      case 2:
        torchlike::ScatterReduce(ov, dim, idx_view, upd.view(),
                                 static_cast<torchlike::Reduce>(in.Small(0, 7)), in.Small(0, 1));
        break;
      case 3:
        torchlike::IndexAdd(ov, dim, idx_view, upd.view(), in.Small(0, 1));
        break;
      case 4:
        torchlike::IndexPut(ov, std::span(&idx_view, 1), upd.view(), in.Small(0, 1));
        break;
      case 5: {
        std::vector<int64_t> offsets(std::max<int64_t>(dim + 1, 0));
        for (auto& o : offsets) o = in.Small(-1, 4);
        asctile::Scatter(upd.view(), dim, idx_view, ov, offsets, in.Small(0, 1));
        break;
      }
      default: {
        ScatterRequest r;
        r.operands = {ov};
        r.indices = idx_view;
        r.updates = {upd.view()};
        r.dims.update_window_dims = uwd;
        r.dims.inserted_window_dims = inserted;
        r.dims.input_batching_dims = batching;
        r.dims.scatter_indices_batching_dims = sibd;
        r.dims.scatter_dims_to_operand_dims = sdod;
        r.dims.index_vector_dim = ivd;
        switch (in.Small(0, 9)) {  // corrupt one field, sometimes
          case 0: r.dims.update_window_dims = in.Dims(3, -1, 4); break;
          case 1: r.dims.inserted_window_dims = in.Dims(3, -1, 3); break;
          case 2: r.dims.scatter_dims_to_operand_dims = in.Dims(3, -1, 3); break;
          case 3: r.dims.index_vector_dim = in.Small(-1, 4); break;
          case 4: r.dims.input_batching_dims = in.Dims(2, -1, 3); break;
          default: break;
        }
        r.combiner = combiner;
        const Bounds kBounds[] = {Bounds::kSkipElement, Bounds::kSkipWindow, Bounds::kClip,
                                  Bounds::kRaise, Bounds::kWrapThenRaise, Bounds::kUnchecked};
        r.bounds = kBounds[in.Small(0, 5)];
        r.force_plan = static_cast<ScatterPlan>(in.Small(0, 7));
        r.casting = in.Small(0, 1) ? Casting::kUnsafe : Casting::kSameKind;
        Scatter(r);
        break;
      }
    }
    ++g_accepted;
  } catch (const Error&) {
    // Invalid calls are rejected; that is the point.
  }
  if (!op.Intact()) {
    std::fprintf(stderr, "scatter_fuzz: a write outside the operand's elements (front end %d)\n",
                 front_end);
    std::abort();
  }
  return 0;
}

#ifndef UFX_LIBFUZZER
// Replays the corpus files given as arguments (each a file or a folder),
// then `runs` pseudo-random inputs.
int main(int argc, char** argv) {
  int runs = 20000, files = 0;
  for (int a = 1; a < argc; ++a) {
    const std::filesystem::path p(argv[a]);
    if (!std::filesystem::exists(p)) {
      runs = std::atoi(argv[a]);
      continue;
    }
    std::vector<std::filesystem::path> paths;
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p)) paths.push_back(e.path());
    } else {
      paths.push_back(p);
    }
    for (const auto& f : paths) {
      std::ifstream s(f, std::ios::binary);
      const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(s)), {});
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++files;
    }
  }
  std::mt19937 rng(12345);
  std::vector<uint8_t> buf;
  for (int i = 0; i < runs; ++i) {
    buf.resize(rng() % 256);
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
    LLVMFuzzerTestOneInput(buf.data(), buf.size());
  }
  std::printf("scatter_fuzz: %d corpus files and %d random inputs (%lld valid calls ran), "
              "no crash\n", files, runs, static_cast<long long>(g_accepted));
  return 0;
}
#endif
