// The 17x17 table of conversion loops, instantiated from Convert<>.
#include "cast.h"

#include <array>
#include <cstring>
#include <type_traits>

#include "ufuncx/scalar.h"

namespace ufuncx::internal {
namespace {

// Same-type copies move bytes: memcpy when both sides are contiguous, else
// one fixed-size load and store per element, four per iteration.
template <size_t kSize>
void CopyLoop(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n) {
  if (ss == static_cast<int64_t>(kSize) && ds == static_cast<int64_t>(kSize)) {
    if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * kSize);
    return;
  }
  struct Bytes {
    unsigned char b[kSize];
  };
  auto move = [&](int64_t i) {
    Bytes v;
    std::memcpy(&v, src + i * ss, kSize);
    std::memcpy(dst + i * ds, &v, kSize);
  };
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    move(i);
    move(i + 1);
    move(i + 2);
    move(i + 3);
  }
  for (; i < n; ++i) move(i);
}

template <class From, class To>
void CastLoop(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n) {
  if constexpr (std::is_same_v<From, To>) {
    CopyLoop<sizeof(From)>(src, ss, dst, ds, n);
  } else if (ss == static_cast<int64_t>(sizeof(From)) &&
             ds == static_cast<int64_t>(sizeof(To))) {
    for (int64_t i = 0; i < n; ++i) {
      StoreElem(dst + i * ds, Convert<To>(LoadElem<From>(src + i * ss)));
    }
  } else {
    for (int64_t i = 0; i < n; ++i, src += ss, dst += ds) {
      StoreElem(dst, Convert<To>(LoadElem<From>(src)));
    }
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
