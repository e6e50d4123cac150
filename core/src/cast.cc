// The 17x17 table of conversion loops, instantiated from Convert<>.
#include "cast.h"

#include <array>
#include <cstring>

#include "ufuncx/scalar.h"

namespace ufuncx::internal {
namespace {

template <class From, class To>
void CastLoop(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n) {
  if (ss == static_cast<int64_t>(sizeof(From)) &&
      ds == static_cast<int64_t>(sizeof(To))) {
    for (int64_t i = 0; i < n; ++i) {
      StoreElem(dst + i * ds, Convert<To>(LoadElem<From>(src + i * ss)));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i, src += ss, dst += ds) {
    StoreElem(dst, Convert<To>(LoadElem<From>(src)));
  }
}

using Table = std::array<std::array<CastFn, kNumDTypes>, kNumDTypes>;

Table BuildTable() {
  Table t{};
  for (int i = 0; i < kNumDTypes; ++i) {
    for (int j = 0; j < kNumDTypes; ++j) {
      t[i][j] = VisitDType(static_cast<DType>(i), [&](auto from) {
        return VisitDType(static_cast<DType>(j), [&](auto to) -> CastFn {
          return &CastLoop<typename decltype(from)::type,
                           typename decltype(to)::type>;
        });
      });
    }
  }
  return t;
}

}  // namespace

CastFn GetCast(DType from, DType to) {
  static const Table table = BuildTable();
  return table[static_cast<int>(from)][static_cast<int>(to)];
}

}  // namespace ufuncx::internal
