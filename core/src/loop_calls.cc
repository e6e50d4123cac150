// The helpers every driver of loop slots shares (loop_calls.h).
#include "loop_calls.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "ufuncx/error.h"

namespace ufuncx::internal {

std::string DTypeRepr(DType t) { return std::string("dtype('") + Name(t) + "')"; }

void CheckStatus(int status, const char* name) {
  if (status == kLoopOk) return;
  if (status == kLoopNegativeIntPower) {
    throw ValueError("Integers to negative integer powers are not allowed.");
  }
  throw ValueError("ufunc '" + std::string(name) + "' loop failed with status " +
                   std::to_string(status));
}

namespace {

// Copies m items of `size` bytes from `from` (step fs) to `to` (step ts),
// with a fixed-size copy per common size so each compiles to one move.
template <int64_t kSize>
void CopyItems(const char* from, int64_t fs, char* to, int64_t ts, int64_t m) {
  for (int64_t i = 0; i < m; ++i) std::memcpy(to + i * ts, from + i * fs, kSize);
}

void CopyItems(const char* from, int64_t fs, char* to, int64_t ts, int64_t m, int64_t size) {
  switch (size) {
    case 1: return CopyItems<1>(from, fs, to, ts, m);
    case 2: return CopyItems<2>(from, fs, to, ts, m);
    case 4: return CopyItems<4>(from, fs, to, ts, m);
    case 8: return CopyItems<8>(from, fs, to, ts, m);
    case 16: return CopyItems<16>(from, fs, to, ts, m);
    default:
      for (int64_t i = 0; i < m; ++i) std::memcpy(to + i * ts, from + i * fs, size);
  }
}

// The strided SIMD slot takes aligned operands whose steps are whole
// elements: inputs 0 (broadcast) to 4 elements (its deinterleaving loads),
// outputs any positive step.
bool StridedSimdFits(char* const* args, const int64_t* steps, const int64_t* item, int nin,
                     int nargs) {
  constexpr int64_t kMaxInputStep = 4;  // (LoadStep in simd_drivers-inl.h)
  for (int k = 0; k < nargs; ++k) {
    if (k < nin && steps[k] == 0) continue;
    if (steps[k] <= 0 || steps[k] % item[k] != 0 || (k < nin && steps[k] > kMaxInputStep * item[k]) ||
        reinterpret_cast<uintptr_t>(args[k]) % static_cast<uintptr_t>(item[k]) != 0) {
      return false;
    }
  }
  return true;
}

constexpr int kGatherArgs = 8;             // operands at most (nin + nout)
constexpr int64_t kGatherBlock = 256;      // elements per block
constexpr int64_t kGatherItem = 16;        // bytes per element at most

}  // namespace

int RunElementwiseSlot(const LoopSlots& s, const LoopContext& ctx, char* const* args, int64_t n,
                       const int64_t* steps, const int64_t* item, int nin, int nargs) {
  bool contig = s.contig != nullptr;
  bool gather = s.gather_strided && !s.may_fail && n >= kGatherMin && nargs <= kGatherArgs;
  bool copy[kGatherArgs] = {};
  for (int k = 0; k < nargs; ++k) {
    const bool direct = steps[k] == item[k] || (k < nin && steps[k] == 0);
    contig = contig && direct;
    if (k < kGatherArgs) copy[k] = !direct;
    gather = gather && item[k] <= kGatherItem;
  }
  if (contig) return s.contig(ctx, args, &n, steps, nullptr);
  if (s.strided_simd && !s.may_fail && StridedSimdFits(args, steps, item, nin, nargs)) {
    return s.strided_simd(ctx, args, &n, steps, nullptr);
  }
  if (!gather) return s.strided(ctx, args, &n, steps, nullptr);
  // Inputs are read into a block before outputs are written from it, so an
  // output that is exactly an input (in place) stays correct; the callers
  // copied any other overlap beforehand.
  alignas(64) char scratch[kGatherArgs][kGatherBlock * kGatherItem];
  char* at[kGatherArgs];
  int64_t at_steps[kGatherArgs];
  for (int k = 0; k < nargs; ++k) at_steps[k] = copy[k] ? item[k] : steps[k];
  int status = kLoopOk;
  for (int64_t start = 0; start < n; start += kGatherBlock) {
    int64_t m = std::min(kGatherBlock, n - start);
    for (int k = 0; k < nargs; ++k) {
      char* p = args[k] + start * steps[k];
      at[k] = copy[k] ? scratch[k] : p;
      if (copy[k] && k < nin) CopyItems(p, steps[k], scratch[k], item[k], m, item[k]);
    }
    const int st = s.contig(ctx, at, &m, at_steps, nullptr);
    if (status == kLoopOk) status = st;
    for (int k = nin; k < nargs; ++k) {
      if (copy[k]) CopyItems(scratch[k], item[k], args[k] + start * steps[k], steps[k], m, item[k]);
    }
  }
  return status;
}

bool SameLayout(const ArrayView& a, const ArrayView& b) {
  return a.data == b.data && a.dtype == b.dtype && a.shape == b.shape && a.strides == b.strides;
}

// Whether no two elements of an array with these strides share a byte (a
// sufficient test: with the dims in order of |stride|, each stride clears
// everything the smaller ones span). A zero stride repeats an element; a
// stride below the item size (a byte-stepped int16 view) overlaps neighbours.
bool ElementsApart(const ArrayView& v, const Strides& strides) {
  SmallBuffer<std::pair<int64_t, int64_t>, 8> dims(static_cast<size_t>(v.ndim()), {0, 0});
  size_t n = 0;
  for (int d = 0; d < v.ndim(); ++d) {
    if (v.shape[d] > 1) dims[n++] = {std::abs(strides[d]), v.shape[d]};
  }
  std::sort(dims.data(), dims.data() + n);
  int64_t span = static_cast<int64_t>(ItemSize(v.dtype));
  for (size_t k = 0; k < n; ++k) {
    if (dims[k].first < span) return false;
    span += dims[k].first * (dims[k].second - 1);
  }
  return true;
}

}  // namespace ufuncx::internal
