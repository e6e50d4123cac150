// Every generated loop against its scalar op. The contiguous SIMD body of
// each loop is checked on every compiled Highway target against the scalar
// strided driver, for counts 0..2N+3, two misalignments and a broadcast
// input; the strided driver itself is checked for strides 2, -1 and 0.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cfenv>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "generated.h"
#include "ufuncx/registry.h"
#include "ufuncx/scalar.h"

namespace ufuncx {
namespace {

constexpr int64_t kMaxCount = 2 * 64 + 3;  // 64 = most lanes of any target

// Values that stress every op: zeros of both signs, ±1, extremes, NaN, inf,
// subnormals, then pseudo-random values.
void Fill(DType t, char* p, int64_t n, uint32_t seed) {
  static const double kSpecial[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -3.5, 127.0, -128.0,
                                    255.0, 1e10, -1e10, INFINITY, -INFINITY, NAN,
                                    1e-310, 65504.0, 88.5, -90.0, 709.5,
                                    // rounding: halves to even, just under a half
                                    2.5, -0.5, 0.49999999999999994, 4503599627370497.0,
                                    // tiny normals (polynomials' powers underflow), powers of 2
                                    1e-30, -1.3e-154, 8.0, 0.125};
  constexpr int kCount = sizeof(kSpecial) / sizeof(kSpecial[0]);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  VisitDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) {
      const double v = i < kCount && (seed & 1) ? kSpecial[(i * 7 + seed) % kCount]
                       : (rng() % 5 == 0) ? kSpecial[rng() % kCount] : u(rng);
      if constexpr (std::is_same_v<T, bool>) {
        StoreElem<uint8_t>(p + i * sizeof(T), v > 0 ? 1 : 0);
      } else if constexpr (kIsInt<T>) {
        // half small values of both signs (shift counts in and just out of
        // range, signs), half anything
        const int64_t small = static_cast<int64_t>(rng() % 140) - 70;
        StoreElem<T>(p + i * sizeof(T),
                     static_cast<T>(rng() % 2 ? small : static_cast<int64_t>(rng())));
      } else if constexpr (requires { typename T::value_type; }) {
        // complex: an imaginary part of its own (specials too), so
        // products mix all four parts
        using R = typename T::value_type;
        const double w = (rng() % 4 == 0) ? kSpecial[rng() % kCount] : u(rng);
        StoreElem<T>(p + i * sizeof(T), T(static_cast<R>(v), static_cast<R>(w)));
      } else {
        StoreElem<T>(p + i * sizeof(T), Convert<T>(v));
      }
    }
  });
}

// Element equality: exact (NaN matches NaN), or within `ulp` for floats.
bool Same(DType t, const char* a, const char* b, int ulp) {
  return VisitDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T x = LoadElem<T>(a), y = LoadElem<T>(b);
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
      // (By value and sign: a long double's padding bytes hold garbage.)
      if (ulp == 0) return x == y && std::signbit(x) == std::signbit(y);
      if (std::isinf(x) || std::isinf(y)) return x == y;
      const T tol = ulp * std::numeric_limits<T>::epsilon() *
                    std::max(std::abs(y), std::numeric_limits<T>::min());
      return std::abs(x - y) <= tol;
    } else if constexpr (std::is_same_v<T, std::complex<long double>>) {
      const T x = LoadElem<T>(a), y = LoadElem<T>(b);
      auto same = [](long double p, long double q) {
        return (std::isnan(p) && std::isnan(q)) || (p == q && std::signbit(p) == std::signbit(q));
      };
      return same(x.real(), y.real()) && same(x.imag(), y.imag());
    } else {
      return std::memcmp(a, b, sizeof(T)) == 0;
    }
  });
}

bool ZeroTie(DType t, const char* a, const char* b) {
  return VisitDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      return LoadElem<T>(a) == T(0) && LoadElem<T>(b) == T(0);
    } else {
      return false;
    }
  });
}

// The SIMD bodies from Highway's contrib/math: within the table's ulp
// bound (4) of libm, the scalar loop.
int UlpFor(const Ufunc& u) {
  static const std::set<std::string> kMath = {
      "exp", "log", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arctanh",
      "log10", "log2", "log1p", "expm1", "sin", "cos", "tan", "exp2", "cbrt", "arctan2", "power",
      "arccosh"};
  return kMath.count(u.name()) ? 4 : 0;
}

struct Buffers {
  std::vector<std::vector<char>> data;
  std::vector<char*> args;
  std::vector<int64_t> steps;
};

Buffers Make(const Loop& l, int nin, int64_t n, int misalign, uint32_t seed) {
  Buffers b;
  for (size_t k = 0; k < l.types.size(); ++k) {
    const size_t item = ItemSize(l.types[k]);
    b.data.emplace_back((n + 2) * item + 64);
    char* p = b.data.back().data() + 64 - (64 % item) + misalign * item;
    if (static_cast<int>(k) < nin) Fill(l.types[k], p, n, seed + static_cast<uint32_t>(k));
    b.args.push_back(p);
    b.steps.push_back(static_cast<int64_t>(item));
  }
  return b;
}

void CompareOutputs(const Ufunc& u, const Loop& l, const Buffers& got, const Buffers& want,
                    int64_t n, const std::string& what) {
  for (size_t k = static_cast<size_t>(u.nin()); k < l.types.size(); ++k) {
    for (int64_t i = 0; i < n; ++i) {
      const size_t item = ItemSize(l.types[k]);
      ASSERT_TRUE(Same(l.types[k], got.args[k] + i * item, want.args[k] + i * item, UlpFor(u)))
          << what << " element " << i << " of " << n;
    }
  }
}

// The generated SIMD slot tables (indexed by Loop::id) with `target` the
// only one Highway may pick; `chosen` is the target each family's SIMD file took.
struct SimdTables {
  std::vector<LoopFn> contig, reduce, rows, gather;
  std::vector<int64_t> chosen;
};
SimdTables TablesFor(int64_t target) {
  hwy::SetSupportedTargetsForTest(target);
  const size_t n = static_cast<size_t>(internal::NumGeneratedLoops());
  SimdTables t{std::vector<LoopFn>(n), std::vector<LoopFn>(n), std::vector<LoopFn>(n),
               std::vector<LoopFn>(n), {}};
  t.chosen = internal::FillGeneratedSimdLoops(t.contig.data(), t.reduce.data(), t.rows.data(),
                                              t.gather.data());
  return t;
}

// f(target, ufunc, loop, body) for every generated loop whose `slot`
// table has a body, on every compiled target; returns the (loop, target)
// pairs visited.
template <class F>
int ForEachSimdLoop(std::vector<LoopFn> SimdTables::*slot, F&& f) {
  int visited = 0;
  for (int64_t target : internal::CompiledSimdTargets()) {
    const SimdTables tables = TablesFor(target);
    for (const Ufunc* u : AllUfuncs()) {
      for (const Loop& l : u->loops()) {
        if (l.id < 0 || !(tables.*slot)[static_cast<size_t>(l.id)]) continue;
        f(target, *u, l, (tables.*slot)[static_cast<size_t>(l.id)]);
        ++visited;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  return visited;
}

std::string Describe(const Ufunc& u, const Loop& l) {
  std::string s = u.name() + " ";
  for (size_t k = 0; k < l.types.size(); ++k) {
    if (static_cast<int>(k) == u.nin()) s += "->";
    s += TypeChar(l.types[k]);
  }
  return s;
}

TEST(Loops, SimdBodiesMatchScalarOnEveryTarget) {
  const std::vector<int64_t> targets = internal::CompiledSimdTargets();
  ASSERT_FALSE(targets.empty());
  int checked = 0;
  for (int64_t target : targets) {
    const SimdTables tables = TablesFor(target);
    const std::vector<LoopFn>& simd = tables.contig;
    for (int64_t chosen : tables.chosen) {
      ASSERT_EQ(chosen, target) << hwy::TargetName(target);
    }
    const LoopContext ctx;
    for (const Ufunc* u : AllUfuncs()) {
      for (const Loop& l : u->loops()) {
        if (l.id < 0 || !simd[static_cast<size_t>(l.id)]) continue;
        const std::string what = Describe(*u, l) + " on " + hwy::TargetName(target);
        for (int64_t n = 0; n <= kMaxCount; ++n) {
          for (int misalign = 0; misalign < 2; ++misalign) {
            for (int bcast = 0; bcast < 1 + u->nin(); ++bcast) {
              const uint32_t seed = static_cast<uint32_t>(n * 3 + misalign);
              Buffers got = Make(l, u->nin(), n, misalign, seed);
              Buffers want = Make(l, u->nin(), n, misalign, seed);
              if (bcast > 0) got.steps[bcast - 1] = want.steps[bcast - 1] = 0;
              ASSERT_EQ(simd[static_cast<size_t>(l.id)](ctx, got.args.data(), &n,
                                                          got.steps.data(), nullptr), 0);
              ASSERT_EQ(l.slots.strided(ctx, want.args.data(), &n, want.steps.data(), nullptr),
                        0);
              CompareOutputs(*u, l, got, want, n, what + " n=" + std::to_string(n));
            }
          }
        }
        ++checked;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  std::printf("checked %d SIMD loops over %zu targets:", checked, targets.size());
  for (int64_t t : targets) std::printf(" %s", hwy::TargetName(t));
  std::printf("\n");
  EXPECT_GT(checked, 100);
}

// The strided SIMD slot against the scalar strided loop on every target:
// input steps of 2, 3 and 4 elements (its deinterleaving loads) and 0
// (broadcast), output steps of 1 and 3, every count through two vectors of
// the widest target (16 lanes of 32 bits on AVX3). Each strided buffer ends
// at its last element, so a load past it is a heap overflow under ASan.
TEST(Loops, SimdStridedMatchesScalarStridedOnEveryTarget) {
  const LoopContext ctx;
  const int checked = ForEachSimdLoop(&SimdTables::gather, [&](int64_t target, const Ufunc& uf,
                                                               const Loop& l, LoopFn fn) {
        const Ufunc* u = &uf;
        const size_t nargs = l.types.size();
        const int nin = u->nin();
        for (int64_t step : {2, 3, 4}) {
          for (int64_t out_step : {1, 3}) {
            for (int bcast = 0; bcast <= nin; ++bcast) {
              for (int64_t n = 0; n <= 2 * 16 + 3; ++n) {
                std::vector<std::vector<char>> got(nargs), want(nargs);
                std::vector<char*> gp(nargs), wp(nargs);
                std::vector<int64_t> steps(nargs);
                for (size_t k = 0; k < nargs; ++k) {
                  const int64_t item = static_cast<int64_t>(ItemSize(l.types[k]));
                  const bool in = static_cast<int>(k) < nin;
                  const int64_t es = !in ? out_step : (bcast == static_cast<int>(k) + 1 ? 0 : step);
                  const int64_t span = n == 0 ? 0 : ((es == 0 ? 0 : (n - 1) * es) + 1) * item;
                  got[k].assign(static_cast<size_t>(span), 0);
                  want[k].assign(static_cast<size_t>(span), 0);
                  steps[k] = es * item;
                  if (in && n > 0) {
                    std::vector<char> packed(static_cast<size_t>(n * item));
                    Fill(l.types[k], packed.data(), n, static_cast<uint32_t>(n * 5 + k + step));
                    for (int64_t i = 0; i < (es == 0 ? 1 : n); ++i) {
                      std::memcpy(got[k].data() + i * es * item, packed.data() + i * item,
                                  static_cast<size_t>(item));
                    }
                    want[k] = got[k];
                  }
                  gp[k] = got[k].data();
                  wp[k] = want[k].data();
                }
                ASSERT_EQ(fn(ctx, gp.data(), &n, steps.data(), nullptr), 0);
                ASSERT_EQ(l.slots.strided(ctx, wp.data(), &n, steps.data(), nullptr), 0);
                for (size_t k = static_cast<size_t>(nin); k < nargs; ++k) {
                  const int64_t item = static_cast<int64_t>(ItemSize(l.types[k]));
                  for (int64_t i = 0; i < n; ++i) {
                    ASSERT_TRUE(Same(l.types[k], gp[k] + i * steps[k], wp[k] + i * steps[k],
                                     UlpFor(*u)))
                        << Describe(*u, l) << " on " << hwy::TargetName(target) << " step "
                        << step << " out step " << out_step << " bcast " << bcast << " n=" << n
                        << " element " << i << " (item " << item << ")";
                  }
                }
              }
            }
          }
        }
  });
  std::printf("checked %d strided SIMD loops\n", checked);
  EXPECT_GT(checked, 100);
}

// No SIMD body raises a floating-point flag that its data does not: on
// every compiled target, every float loop over lengths 0 to 70 (body and
// tail), aligned and not, on data in [0.6, 0.9] (inside every domain
// reached by a Highway body) leaves the flags NumPy reports clear. (Tails
// once loaded zeros into the unused lanes: 0/0 there raised invalid.)
TEST(Loops, SimdBodiesRaiseNoSpuriousFlagsOnEveryTarget) {
  constexpr int kFlags = FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID;
  int checked = 0;
  const LoopContext ctx;
  ForEachSimdLoop(&SimdTables::contig, [&](int64_t target, const Ufunc& uf, const Loop& l,
                                           LoopFn fn) {
        const Ufunc* u = &uf;
        const DType t = l.types[0];
        const bool cplx = t == DType::kComplex64 || t == DType::kComplex128;
        if (t != DType::kFloat32 && t != DType::kFloat64 && !cplx) return;
        const size_t nargs = l.types.size();
        for (int64_t n = 0; n <= 70; ++n) {
          // misalign 2: complex zeros (|0| divides nothing: no 0/0 in any lane)
          for (int misalign = 0; misalign < (cplx ? 3 : 2); ++misalign) {
            std::vector<std::vector<char>> bufs(nargs);
            std::vector<char*> args(nargs);
            std::vector<int64_t> steps(nargs);
            for (size_t k = 0; k < nargs; ++k) {
              const size_t item = ItemSize(l.types[k]);
              bufs[k].assign((static_cast<size_t>(n) + 2) * item, 0);
              args[k] = bufs[k].data() + (misalign == 1) * item;
              steps[k] = static_cast<int64_t>(item);
              for (int64_t i = 0; k < static_cast<size_t>(u->nin()) && i < n; ++i) {
                // (arccosh's domain starts at 1: its data is moved up by 1)
                const double v = 0.6 + 0.3 * static_cast<double>((i * 7 + static_cast<int64_t>(k)) % 11) / 10 +
                                 (u->name() == "arccosh" ? 1.0 : 0.0);
                const double w = 1.5 - v;  // (an imaginary part, also in [0.6, 0.9])
                char* at = args[k] + i * static_cast<int64_t>(item);
                if (misalign == 2) continue;  // (zeros)
                if (l.types[k] == DType::kFloat32) {
                  const float f = static_cast<float>(v);
                  std::memcpy(at, &f, sizeof f);
                } else if (l.types[k] == DType::kFloat64) {
                  std::memcpy(at, &v, sizeof v);
                } else if (l.types[k] == DType::kComplex64) {
                  const float f[2] = {static_cast<float>(v), static_cast<float>(w)};
                  std::memcpy(at, f, sizeof f);
                } else if (l.types[k] == DType::kComplex128) {
                  const double f[2] = {v, w};
                  std::memcpy(at, f, sizeof f);
                }
              }
            }
            std::feclearexcept(kFlags);
            ASSERT_EQ(fn(ctx, args.data(), &n, steps.data(), nullptr), 0);
            ASSERT_EQ(std::fetestexcept(kFlags), 0)
                << Describe(*u, l) << " on " << hwy::TargetName(target) << " n=" << n
                << " misalign=" << misalign;
          }
        }
        ++checked;
  });
  EXPECT_GT(checked, 20);
}

// Every SIMD reduce slot gives the scalar reduce slot's result (NumPy's
// order) on every target: lane-wise reductions are exact for their ops, the
// pairwise sum is the same additions in the same order. Counts cover every
// pairwise threshold (8, 128 and the recursive split).
TEST(Loops, SimdReduceMatchesScalarOnEveryTarget) {
  const std::vector<int64_t> targets = internal::CompiledSimdTargets();
  int checked = 0;
  for (int64_t target : targets) {
    const SimdTables tables = TablesFor(target);
    const std::vector<LoopFn>& reduce = tables.reduce;
    const LoopContext ctx;
    for (const Ufunc* u : AllUfuncs()) {
      for (const Loop& l : u->loops()) {
        if (l.id < 0 || !reduce[static_cast<size_t>(l.id)]) continue;
        ASSERT_NE(l.slots.reduce, nullptr);
        for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 127, 128, 129, 130, 255, 256, 1000, 4099}) {
          for (int misalign = 0; misalign < 2; ++misalign) {
            Buffers in = Make(l, u->nin(), n, misalign, static_cast<uint32_t>(n + 11));
            const size_t item = ItemSize(l.types[0]);
            std::vector<char> acc_simd(item), acc_scalar(item);
            std::memcpy(acc_simd.data(), in.args[0], std::min<size_t>(item, n > 0 ? item : 0));
            acc_scalar = acc_simd;
            const int64_t zero_steps[3] = {0, static_cast<int64_t>(item), 0};
            char* a1[3] = {acc_simd.data(), in.args[1], acc_simd.data()};
            char* a2[3] = {acc_scalar.data(), in.args[1], acc_scalar.data()};
            ASSERT_EQ(reduce[static_cast<size_t>(l.id)](ctx, a1, &n, zero_steps, nullptr), 0);
            ASSERT_EQ(l.slots.reduce(ctx, a2, &n, zero_steps, nullptr), 0);
            // min/max may pick either zero when +0 and -0 tie (NumPy's own
            // SIMD reductions do too); every other bit must match.
            const bool zero_tie = KindOf(l.types[0]) == Kind::kFloat && u->name() != "add" &&
                                  ZeroTie(l.types[0], acc_simd.data(), acc_scalar.data());
            ASSERT_TRUE(zero_tie || Same(l.types[0], acc_simd.data(), acc_scalar.data(), 0))
                << Describe(*u, l) << " reduce on " << hwy::TargetName(target) << " n=" << n;
          }
        }
        ++checked;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  std::printf("checked %d SIMD reduce loops over %zu targets:", checked, targets.size());
  for (int64_t t : targets) std::printf(" %s", hwy::TargetName(t));
  std::printf("\n");
  EXPECT_GE(checked, 70 * static_cast<int>(targets.size()));
}

// Every rows slot on every target equals row-by-row calls of the same
// target's contiguous SIMD slot, bit for bit (the math bodies give each lane
// a result of its own value only, so row boundaries change nothing): rows of every length up to two full vectors and a tail, repeated
// and neighbouring destinations, update rows in any order or all the same,
// and prefetching on and off.
TEST(Loops, SimdRowsMatchStridedRowsOnEveryTarget) {
  const std::vector<int64_t> targets = internal::CompiledSimdTargets();
  int checked = 0;
  for (int64_t target : targets) {
    const SimdTables tables = TablesFor(target);
    const std::vector<LoopFn>& rows = tables.rows;
    const LoopContext ctx;
    for (const Ufunc* u : AllUfuncs()) {
      for (const Loop& l : u->loops()) {
        const LoopFn fn = l.id < 0 ? nullptr : rows[static_cast<size_t>(l.id)];
        if (!fn) continue;
        ASSERT_EQ(u->nin(), 2);
        ASSERT_NE(l.slots.rows, nullptr) << Describe(*u, l);
        const int64_t item = static_cast<int64_t>(ItemSize(l.types[0]));
        for (int64_t len : {1, 3, 8, 17, 64 + 5}) {
          for (int64_t upd_rows : {1, 0}) {
            for (int64_t ahead : {0, 2}) {
              const int64_t nrows = 6, nupd = 9;
              std::vector<char> got(static_cast<size_t>(nrows * len * item));
              Fill(l.types[0], got.data(), nrows * len, static_cast<uint32_t>(len + 3));
              std::vector<char> want = got;
              std::vector<char> upd(static_cast<size_t>(nupd * len * item));
              Fill(l.types[1], upd.data(), nupd * len, static_cast<uint32_t>(len + 4));
              const int64_t dest[nupd] = {2, 2, 0, 5, 1, 2, 5, 4, 3};
              std::vector<int64_t> offs(nupd), src(nupd);
              for (int64_t r = 0; r < nupd; ++r) {
                offs[r] = dest[r] * len * item;
                src[r] = upd_rows * (nupd - 1 - r) * len * item;  // update rows backwards
              }
              char* args[4] = {got.data(), reinterpret_cast<char*>(offs.data()), upd.data(),
                               reinterpret_cast<char*>(src.data())};
              const int64_t dims[2] = {nupd, len}, steps[4] = {0, 8, 0, 8};
              RowsPrefetch pf{ahead, ahead / 2};
              ASSERT_EQ(fn(ctx, args, dims, steps, ahead ? &pf : nullptr), 0);
              for (int64_t r = 0; r < nupd; ++r) {
                char* dst = want.data() + offs[r];
                char* row[3] = {dst, upd.data() + src[r], dst};
                const int64_t row_steps[3] = {item, item, item};
                ASSERT_EQ(tables.contig[static_cast<size_t>(l.id)](ctx, row, &len, row_steps, nullptr), 0);
              }
              for (int64_t i = 0; i < nrows * len; ++i) {
                ASSERT_TRUE(Same(l.types[0], got.data() + i * item, want.data() + i * item, 0))
                    << Describe(*u, l) << " rows on " << hwy::TargetName(target) << " len=" << len
                    << " element " << i;
              }
            }
          }
        }
        ++checked;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  std::printf("checked %d SIMD rows loops over %zu targets\n", checked, targets.size());
  EXPECT_GE(checked, 60 * static_cast<int>(targets.size()));
}

// The strided driver with steps 2, -1 and 0 equals the same driver on a
// contiguous copy of the inputs.
TEST(Loops, StridedDriversHandleEveryStep) {
  const LoopContext ctx;
  const int64_t n = 37;
  int checked = 0;
  for (const Ufunc* u : AllUfuncs()) {
    if (u->core()) continue;  // gufunc loops: tests/reduce_test.cc, test_gufunc.py
    for (const Loop& l : u->loops()) {
      for (int64_t step_mult : {2, -1, 0}) {
        Buffers want = Make(l, u->nin(), n, 0, 7);
        std::vector<std::vector<char>> strided;
        std::vector<char*> args;
        std::vector<int64_t> steps;
        for (size_t k = 0; k < l.types.size(); ++k) {
          const int64_t item = static_cast<int64_t>(ItemSize(l.types[k]));
          const bool input = static_cast<int>(k) < u->nin();
          const int64_t s = input ? step_mult * item : item;
          strided.emplace_back(static_cast<size_t>(2 * n * item + item));
          char* base = strided.back().data() + (s < 0 ? (n - 1) * -s : 0);
          for (int64_t i = 0; i < n && input; ++i) {
            std::memcpy(base + i * s, want.args[k] + (s == 0 ? 0 : i * item),
                        static_cast<size_t>(item));
          }
          if (input && s == 0) {
            for (int64_t i = 1; i < n; ++i) {
              std::memcpy(want.args[k] + i * item, want.args[k], static_cast<size_t>(item));
            }
          }
          args.push_back(base);
          steps.push_back(s);
        }
        int64_t count = n;
        const int rc1 = l.slots.strided(ctx, args.data(), &count, steps.data(), nullptr);
        const int rc2 = l.slots.strided(ctx, want.args.data(), &count, want.steps.data(), nullptr);
        ASSERT_EQ(rc1, rc2);
        for (size_t k = static_cast<size_t>(u->nin()); k < l.types.size(); ++k) {
          const size_t item = ItemSize(l.types[k]);
          for (int64_t i = 0; i < n; ++i) {
            ASSERT_TRUE(Same(l.types[k], args[k] + i * item, want.args[k] + i * item, 0))
                << Describe(*u, l) << " step x" << step_mult << " element " << i;
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 2500);
}

// The accumulate slot's start value (aux): scanning [0, k) and then [k, n)
// from the first part's last value gives the one-call scan bit for bit, for
// every loop with the slot (the two-thread scans of reduce.cc rely on it).
TEST(Loops, AccumulateFromAStartValueContinuesTheScan) {
  const LoopContext ctx;
  const int64_t n = 41, k = 17;
  int checked = 0;
  for (const Ufunc* u : AllUfuncs()) {
    for (const Loop& l : u->loops()) {
      if (!l.slots.accumulate) continue;
      const Buffers in = Make(l, 1, n, 0, 11);
      const int64_t item = static_cast<int64_t>(ItemSize(l.types[0]));
      std::vector<char> whole(static_cast<size_t>(n * item)), parts(whole.size());
      const int64_t steps[2] = {item, item};
      char* one[2] = {in.args[0], whole.data()};
      int64_t count = n;
      const int rc = l.slots.accumulate(ctx, one, &count, steps, nullptr);  // (FP flags)
      char* head[2] = {in.args[0], parts.data()};
      count = k;
      const int rc_head = l.slots.accumulate(ctx, head, &count, steps, nullptr);
      std::vector<char> start(parts.begin() + (k - 1) * item, parts.begin() + k * item);
      char* tail[2] = {in.args[0] + k * item, parts.data() + k * item};
      count = n - k;
      const int rc_tail = l.slots.accumulate(ctx, tail, &count, steps, start.data());
      EXPECT_EQ(rc_head | rc_tail, rc) << Describe(*u, l);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_TRUE(Same(l.types[0], parts.data() + i * item, whole.data() + i * item, 0))
            << Describe(*u, l) << " element " << i << ": got byte "
            << static_cast<int>(static_cast<uint8_t>(parts[i * item])) << ", want "
            << static_cast<int>(static_cast<uint8_t>(whole[i * item])) << ", start "
            << static_cast<int>(static_cast<uint8_t>(start[0])) << ", input "
            << static_cast<int>(static_cast<uint8_t>(in.args[0][i * item]));
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);
}

}  // namespace
}  // namespace ufuncx
