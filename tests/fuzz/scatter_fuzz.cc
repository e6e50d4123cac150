// Fuzz target for the scatter planner: arbitrary bytes become an arbitrary
// (often invalid) request. The planner must either throw a ufuncx::Error or
// scatter without touching memory outside the operand (ASan checks).
//
// Built as a libFuzzer target with clang (-DUFX_FUZZ=ON), and always as a
// standalone program that replays many pseudo-random inputs (ctest runs it
// under ASan+UBSan in tools/test.sh).
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "ufuncx/scatter.h"
#include "ufuncx/ufuncx.h"

namespace {

int64_t g_accepted = 0;  // requests that passed validation and ran

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ufuncx;
  Bytes in(data, size);
  // Build a valid request from the bytes, then (often) corrupt one field,
  // so both the planner and the validation are exercised.
  const DType kTypes[] = {DType::kFloat64, DType::kFloat32, DType::kInt32, DType::kInt8,
                          DType::kUInt16, DType::kComplex64, DType::kBool};
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
  const DType op_type = kTypes[in.Small(0, 6)];
  Array op = Array::Zeros(op_type, op_shape);
  const DType kIndexTypes[] = {DType::kInt8, DType::kUInt8, DType::kInt32, DType::kUInt64,
                               DType::kInt64};
  Array idx = Array::Zeros(kIndexTypes[in.Small(0, 4)], idx_shape);
  const size_t isz = ItemSize(idx.dtype());
  for (int64_t i = 0; i < idx.size(); ++i) {
    const int v = in.Next() % 8 == 7 ? static_cast<int8_t>(in.Next()) : in.Small(-1, 5);
    for (size_t k = 0; k < isz; ++k) idx.data()[i * isz + k] = static_cast<char>(v < 0 ? 0xff : 0);
    idx.data()[i * isz] = static_cast<char>(v);
  }
  Array upd = Array::Zeros(in.Small(0, 3) == 0 ? kTypes[in.Small(0, 6)] : op_type, upd_shape);
  ScatterRequest r;
  r.operands = {op.view()};
  r.indices = idx.view();
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
  const char* kCombiners[] = {"add", "multiply", "maximum", "negative", "divmod", "sqrt"};
  const int c = in.Small(0, 6);
  r.combiner = c == 6 ? nullptr : &GetUfunc(kCombiners[c]);
  const Bounds kBounds[] = {Bounds::kSkipElement, Bounds::kSkipWindow, Bounds::kClip,
                            Bounds::kRaise, Bounds::kWrapThenRaise};
  r.bounds = kBounds[in.Small(0, 4)];
  r.force_plan = static_cast<ScatterPlan>(in.Small(0, 6));
  r.casting = in.Small(0, 1) ? Casting::kUnsafe : Casting::kSameKind;
  try {
    Scatter(r);
    ++g_accepted;
  } catch (const Error&) {
    // Invalid requests are rejected; that is the point.
  }
  return 0;
}

#ifndef UFX_LIBFUZZER
int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 20000;
  std::mt19937 rng(12345);
  std::vector<uint8_t> buf;
  for (int i = 0; i < runs; ++i) {
    buf.resize(rng() % 256);
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
    LLVMFuzzerTestOneInput(buf.data(), buf.size());
  }
  std::printf("scatter_fuzz: %d inputs (%lld valid requests ran), no crash\n", runs,
              static_cast<long long>(g_accepted));
  return 0;
}
#endif
