// Loop drivers: own the element loop, the loads/stores and the conversions,
// and call an op from ufuncs/ops/ per element. Every driver is a LoopFn.
// `Strided*` accept any steps; `Contig*` are the contiguous slot (outputs
// contiguous, inputs contiguous or broadcast with step 0) and are written so
// the compiler can vectorise them.
#pragma once

#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <tuple>
#include <type_traits>
#include <utility>

#include "ufuncx/loop.h"
#include "ufuncx/scalar.h"

namespace ufuncx::drivers {

template <class Op>
concept NativeHalf = requires { Op::kNativeHalf; };
template <class Op>
concept MayFail = requires { Op::kMayFail; };

// LoopSlots::may_fail of a loop of Op (the other parameters: its arity and
// types, as the drivers take them). An op that fails for some types only
// says which (kFailsFor<T>, T its first input's type).
template <class Op>
concept FailsForSome = requires { Op::template kFailsFor<int>; };
template <class Op, class T>
constexpr bool LoopFails() {
  if constexpr (FailsForSome<Op>) return Op::template kFailsFor<T>;
  else return MayFail<Op>;
}
template <class Op, int Nin, class T0, class... T>
inline constexpr bool kLoopMayFail = LoopFails<Op, T0>();
template <class Op>
concept HalfReduceInFloat = requires { Op::kHalfReduceInFloat; };
template <class Op>
concept PlainComplexChain = requires { Op::kPlainComplexChain; };


template <class Op>
concept NativeMl = requires { Op::kNativeMl; };

// What an op computes in: float for half types unless the op works on bits
// (kNativeHalf: every half type; kNativeMl: ml_dtypes' types, whose sign,
// max/min and copysign loops pass operands through unchanged).
template <class Op, class T>
using Compute = std::conditional_t<kIsHalf<T> && !NativeHalf<Op> && !(kIsMlFloat<T> && NativeMl<Op>),
                                   float, T>;

template <class Op, class T>
inline Compute<Op, T> In(const char* p) {
  return static_cast<Compute<Op, T>>(LoadElem<T>(p));
}

template <class Op, class... A>
inline auto Apply(int& status, A... a) {
  if constexpr (MayFail<Op>) return Op::Call(a..., status);
  else return Op::Call(a...);
}

// One step of a reduction or scan: the op, except where NumPy's chained
// loops compute differently from its elementwise ones.
template <class Op, class C>
inline C ChainStep(int& status, C acc, C x) {
  if constexpr (kIsComplex<C> && PlainComplexChain<Op>) {
    return C(acc.real() * x.real() - acc.imag() * x.imag(),
             acc.real() * x.imag() + acc.imag() * x.real());
  } else if constexpr (std::is_floating_point_v<C>) {
    // NaN with NaN gives the running value's NaN (quieted), as the x86
    // instruction does when it gets the operands in this order, which a
    // compiler may swap (it takes a + b and b + a as the same): a scan cut
    // in two then continues as one scan would.
    const C r = Apply<Op>(status, acc, x);
    if (r == r) [[likely]] return r;
    return acc != acc ? acc + acc : r;
  } else {
    return Apply<Op>(status, acc, x);
  }
}

// One element: Nin inputs, then the outputs (any counts). One output: the
// op returns it; several: the op writes them through references.
template <class Op, int Nin, class... T>
struct Element {
  using Types = std::tuple<T...>;
  template <size_t K>
  using At = std::tuple_element_t<K, Types>;
  static void Run(char* const* p, int& status) {
    Impl(p, status, std::make_index_sequence<Nin>{},
         std::make_index_sequence<sizeof...(T) - Nin>{});
  }
  template <size_t... I, size_t... J>
  static void Impl(char* const* p, int& status, std::index_sequence<I...>,
                   std::index_sequence<J...>) {
    if constexpr (sizeof...(J) == 1 && requires { Op::Elementwise(In<Op, At<I>>(p[I])...); }) {
      StoreElem(p[Nin], Convert<At<Nin>>(Op::Elementwise(In<Op, At<I>>(p[I])...)));
    } else if constexpr (sizeof...(J) == 1) {
      StoreElem(p[Nin], Convert<At<Nin>>(Apply<Op>(status, In<Op, At<I>>(p[I])...)));
    } else {
      std::tuple<Compute<Op, At<Nin + J>>...> outs{};
      Op::Call(In<Op, At<I>>(p[I])..., std::get<J>(outs)...);
      (StoreElem(p[Nin + J], Convert<At<Nin + J>>(std::get<J>(outs))), ...);
    }
  }
};

// Ops whose kernels call Fma (complex multiply and magnitude): their loops
// also get a copy built for CPUs with the FMA instruction, taken when the
// CPU has it, so Fma inlines to one instruction there instead of a call.
template <class Op>
concept UsesFma = requires { Op::kUsesFma; };
#ifdef UFX_FMA_DISPATCH
#define UFX_FMA_TARGET __attribute__((target("fma")))
#else
#define UFX_FMA_TARGET
#endif

template <class Op, int Nin, class... T>
[[gnu::always_inline]] inline int StridedBody(char* const* args, int64_t n, const int64_t* steps) {
  constexpr int kN = sizeof...(T);
  // Local copies: stores through char* may alias anything, so steps read
  // through the pointer would be reloaded at every element.
  char* p[kN];
  int64_t s[kN];
  for (int k = 0; k < kN; ++k) p[k] = args[k], s[k] = steps[k];
  int status = 0;
  for (int64_t i = 0; i < n; ++i) {
    Element<Op, Nin, T...>::Run(p, status);
    for (int k = 0; k < kN; ++k) p[k] += s[k];
  }
  return status;
}

template <class Op, int Nin, class... T>
UFX_FMA_TARGET int StridedFma(char* const* args, int64_t n, const int64_t* steps) {
  return StridedBody<Op, Nin, T...>(args, n, steps);
}

template <class Op, int Nin, class... T>
int Strided(const LoopContext&, char* const* args, const int64_t* dims,
            const int64_t* steps, void*) noexcept {
#ifdef UFX_FMA_DISPATCH
  if constexpr (UsesFma<Op>) {
    if (::ufuncx::detail::CpuHasFma()) return StridedFma<Op, Nin, T...>(args, dims[0], steps);
  }
#endif
  return StridedBody<Op, Nin, T...>(args, dims[0], steps);
}

// Compile-time steps let the compiler vectorise; a zero step is a
// broadcast input.
template <class Op, int Nin, bool kBroadcast0, bool kBroadcast1, class... T>
[[gnu::always_inline]] inline int ContigBody(char* const* args, int64_t n) {
  constexpr int kN = sizeof...(T);
  constexpr int64_t kSize[kN] = {static_cast<int64_t>(sizeof(T))...};
  int status = 0;
  for (int64_t i = 0; i < n; ++i) {
    char* p[kN];
    for (int k = 0; k < kN; ++k) {
      const bool bcast = (k == 0 && kBroadcast0) || (k == 1 && Nin == 2 && kBroadcast1);
      p[k] = args[k] + (bcast ? 0 : i * kSize[k]);
    }
    Element<Op, Nin, T...>::Run(p, status);
  }
  return status;
}

// The body for the broadcast pattern of the first two inputs.
template <class Op, int Nin, class... T>
[[gnu::always_inline]] inline int ContigRun(char* const* args, int64_t n, const int64_t* steps) {
  const bool b0 = steps[0] == 0;
  const bool b1 = Nin == 2 && steps[1] == 0;
  if (!b0 && !b1) return ContigBody<Op, Nin, false, false, T...>(args, n);
  if (b0 && !b1) return ContigBody<Op, Nin, true, false, T...>(args, n);
  if (!b0 && b1) return ContigBody<Op, Nin, false, true, T...>(args, n);
  return ContigBody<Op, Nin, true, true, T...>(args, n);
}

template <class Op, int Nin, class... T>
UFX_FMA_TARGET int ContigFma(char* const* args, int64_t n, const int64_t* steps) {
  return ContigRun<Op, Nin, T...>(args, n, steps);
}

template <class Op, int Nin, class... T>
int Contig(const LoopContext& ctx, char* const* args, const int64_t* dims,
           const int64_t* steps, void* aux) noexcept {
  for (int k = 2; k < Nin; ++k) {  // broadcast inputs past the second: strided
    if (steps[k] == 0) return Strided<Op, Nin, T...>(ctx, args, dims, steps, aux);
  }
#ifdef UFX_FMA_DISPATCH
  if constexpr (UsesFma<Op>) {
    if (::ufuncx::detail::CpuHasFma()) return ContigFma<Op, Nin, T...>(args, dims[0], steps);
  }
#endif
  return ContigRun<Op, Nin, T...>(args, dims[0], steps);
}

// The scatter slot for same-typed loops (T[, T] -> T). args[0] is the
// operand base, args[1] an int64 array of byte offsets into it, args[2] the
// updates (step steps[2]); dims[0] is the number of updates. Updates apply in
// order; a run of equal offsets keeps the value in a register (rounded to T
// after every step, so the result is the one-at-a-time result).
//
// Two bodies (below): IndexedBody checks the next offset after each update
// (best when runs are rare: random indices), IndexedRuns loops over each
// run (best for sorted indices). index_at(i) and upd_at(i) are inlined, so
// the common dense cases compile to scaled addressing.
template <class Op, int Nin, class T>
inline T IndexedStep(int& status, T cur, const char* u) {
  if constexpr (Nin == 2 && kIsComplex<T> && PlainComplexChain<Op>) {
    // (NumPy's indexed complex product is its scalar one, without fused
    // operations, as its reduce's)
    return ChainStep<Op>(status, cur, In<Op, T>(u));
  } else if constexpr (Nin == 2) {
    return Convert<T>(Apply<Op>(status, static_cast<Compute<Op, T>>(cur), In<Op, T>(u)));
  } else {
    (void)u;
    return Convert<T>(Apply<Op>(status, static_cast<Compute<Op, T>>(cur)));
  }
}

// Both bodies take index_at(i), the position of update i, and combine
// operand element base + index * stride. With kCheck each index is checked
// where it is read for a write (raw indices: IndexedIndices): the first
// one outside [0, size) ends the loop before it is applied, and its
// position goes to *stop (n when there is none). A caller that validated
// every index before the call sees a stop only when another thread rewrote
// an index meanwhile, so a race never sends a write outside the target.
// Without kCheck, index_at gives byte offsets the caller computed from
// indices it read once (stride 1; size and stop unused).
//
// IndexedRuns loops over each run of equal indices (sorted data): one
// check a run. IndexedBody keeps the value in a register while the next
// index repeats (random data), and with kPrefetch (targets beyond the
// caches) prefetches the destination kAhead updates on, so more misses are
// in flight at once (1e6 random updates into 2e6 float64: 8.2 ms plain,
// 6.8 ms 16 ahead, 6.0 ms 32 ahead).
template <class Op, int Nin, class T, bool kCheck, class IndexAt, class UpdAt>
inline int IndexedRuns(char* base, int64_t n, uint64_t size, int64_t stride, IndexAt index_at,
                       UpdAt upd_at, int64_t* stop) {
  int status = 0;
  int64_t i = 0;
  while (i < n) {
    const int64_t v = index_at(i);
    if (kCheck && static_cast<uint64_t>(v) >= size) break;
    T cur = IndexedStep<Op, Nin, T>(status, LoadElem<T>(base + v * stride), upd_at(i));
    for (++i; i < n && index_at(i) == v; ++i) cur = IndexedStep<Op, Nin, T>(status, cur, upd_at(i));
    StoreElem(base + v * stride, cur);
  }
  if constexpr (kCheck) *stop = i;
  return status;
}

template <class Op, int Nin, class T, bool kCheck, bool kPrefetch, class IndexAt, class UpdAt>
inline int IndexedBody(char* base, int64_t n, uint64_t size, int64_t stride, IndexAt index_at,
                       UpdAt upd_at, int64_t* stop) {
  constexpr int64_t kAhead = 32;
  int status = 0;
  if constexpr (kCheck) *stop = 0;
  if (n <= 0) return 0;
  int64_t v = index_at(0);
  if (kCheck && static_cast<uint64_t>(v) >= size) return 0;
  T cur = LoadElem<T>(base + v * stride);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kPrefetch) {
      // Only a hint: an index not yet checked may point anywhere (the
      // address is formed without overflow and never dereferenced).
      if (i + kAhead < n) {
        const uint64_t ahead = static_cast<uint64_t>(index_at(i + kAhead));
        __builtin_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(base) +
                                                         ahead * static_cast<uint64_t>(stride)),
                           1);
      }
    }
    cur = IndexedStep<Op, Nin, T>(status, cur, upd_at(i));
    if (i + 1 == n) break;
    const int64_t next = index_at(i + 1);
    if (next != v) {
      StoreElem(base + v * stride, cur);
      if (kCheck && static_cast<uint64_t>(next) >= size) {
        *stop = i + 1;
        return status;
      }
      v = next;
      cur = LoadElem<T>(base + v * stride);
    }
  }
  StoreElem(base + v * stride, cur);
  if constexpr (kCheck) *stop = n;
  return status;
}

// The dense case (int64 indices and updates both contiguous, a contiguous
// target axis) as a function of its own: inlined into Indexed it shared
// its registers, and a spilled pointer reloaded on every step cost up to
// 40% (measured). kWrap adds `size` to negative indices, branch-free (a
// template argument: the three instructions cost 15% on 1e7 updates into
// 1000 bins when no index is negative). kBody: 0 runs, 1 IndexedBody, 2 IndexedBody with
// prefetching, 3 one load, step and store per update, as the plain loop
// `t[idx[i]] += u[i]` does: fastest for a target in the caches (1e6
// random updates into 1e3 float64: 0.61 ms, against 0.99 for IndexedBody).
// v - lo modulo 2^64: in [0, size) exactly when v is in [lo, lo + size).
inline int64_t MinusLo(int64_t v, int64_t lo) {
  return static_cast<int64_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(lo));
}

template <class Op, int Nin, class T, int kBody, bool kWrap>
[[gnu::noinline]] int IndexedDense(char* base, const char* idx, const char* upd, int64_t n,
                                   int64_t size, int64_t lo, int64_t* stop) {
  constexpr int64_t kItem = sizeof(T);
  // (lo: positions relative to base + lo, so the checks stay one compare;
  // subtracted modulo 2^64, as any index may come)
  base += lo * kItem;
  auto index_at = [idx, size, lo](int64_t i) {
    const int64_t v = LoadElem<int64_t>(idx + i * 8);
    return MinusLo(kWrap ? v + ((v >> 63) & size) : v, lo);
  };
  auto upd_at = [upd](int64_t i) { return upd + (Nin == 2 ? i * kItem : 0); };
  const uint64_t usize = static_cast<uint64_t>(size);
  if constexpr (kBody == 0) {
    return IndexedRuns<Op, Nin, T, true>(base, n, usize, kItem, index_at, upd_at, stop);
  } else if constexpr (kBody == 3) {
    int status = 0;
    int64_t i = 0;
    for (; i < n; ++i) {
      const int64_t v = index_at(i);
      if (static_cast<uint64_t>(v) >= usize) break;
      char* p = base + v * kItem;
      StoreElem(p, IndexedStep<Op, Nin, T>(status, LoadElem<T>(p), upd_at(i)));
    }
    *stop = i;
    return status;
  } else {
    return IndexedBody<Op, Nin, T, true, kBody == 2>(base, n, usize, kItem, index_at, upd_at,
                                                     stop);
  }
}

template <class Op, int Nin, class T, class OffsetOf>
inline int IndexedPick(char* const* args, const int64_t* steps, int64_t n, bool runs,
                       OffsetOf offset_of) {
  const char* upd = Nin == 2 ? args[2] : nullptr;
  const int64_t us = Nin == 2 ? steps[2] : 0;
  auto body = [&](auto upd_at) {
    return runs ? IndexedRuns<Op, Nin, T, false>(args[0], n, 0, 1, offset_of, upd_at, nullptr)
                : IndexedBody<Op, Nin, T, false, false>(args[0], n, 0, 1, offset_of, upd_at,
                                                        nullptr);
  };
  if (us == static_cast<int64_t>(sizeof(T))) {
    return body([&](int64_t i) { return upd + i * static_cast<int64_t>(sizeof(T)); });
  }
  return body([&](int64_t i) { return upd + i * us; });
}

// kDense (the table's dense_at): the dense case (int64 indices, same-typed
// contiguous updates into a contiguous target axis) gets IndexedDense's
// bodies, eight per loop; without it that case takes the general checked
// body, as every other layout does. The table gives them to the ufuncs
// whose at is a hot path (NumPy's indexed loops: add, subtract, multiply,
// divide, floor_divide, minimum, maximum, fmin, fmax; and the bitwise and
// logical ones): they are most of the scalar loops' code and build time.
template <class Op, int Nin, class T, bool kDense>
int Indexed(const LoopContext&, char* const* args, const int64_t* dims,
            const int64_t* steps, void* aux) noexcept {
  const int64_t n = dims[0];
  if (aux) {  // raw int64 indices: each checked as it is read
    const auto* ix = static_cast<const IndexedIndices*>(aux);
    const char* idx = args[1];
    const int64_t is = steps[1], size = ix->size, stride = ix->stride, lo = ix->lo;
    const int64_t wrap_size = ix->wrap ? size : 0;
    int64_t unused_stop;
    int64_t* stop = ix->stop ? ix->stop : &unused_stop;
    constexpr int64_t kItem = sizeof(T);
    char* base = args[0];
    const char* upd = Nin == 2 ? args[2] : nullptr;
    const int64_t us = Nin == 2 ? steps[2] : 0;
    if constexpr (kDense) {
      if (is == 8 && stride == kItem && (Nin == 1 || us == kItem)) {
        // Measured: prefetching pays for targets of 8 MB and more (1e6 float64:
        // 3.1-3.5 -> 2.6-2.9 ms; 1.5e6: 7.8-9.0 -> 5.7-5.9 ms), not for 4 MB
        // and less. The development machine's 32 MiB L3 is shared on a VM.
        const int64_t bytes = size * kItem;
        auto dense = [&](auto body) {
          constexpr int kBody = decltype(body)::value;
          return ix->wrap
                     ? IndexedDense<Op, Nin, T, kBody, true>(base, idx, upd, n, size, lo, stop)
                     : IndexedDense<Op, Nin, T, kBody, false>(base, idx, upd, n, size, lo, stop);
        };
        if (ix->runs) return dense(std::integral_constant<int, 0>{});
        if (bytes > (int64_t{1} << 22)) return dense(std::integral_constant<int, 2>{});
        if (bytes > (int64_t{1} << 20)) return dense(std::integral_constant<int, 1>{});
        return dense(std::integral_constant<int, 3>{});
      }
    }
    auto index_at = [&](int64_t i) {
      const int64_t v = LoadElem<int64_t>(idx + i * is);
      return MinusLo(v + ((v >> 63) & wrap_size), lo);
    };
    auto upd_at = [&](int64_t i) { return upd + i * us; };
    const uint64_t usize = static_cast<uint64_t>(size);
    base += lo * stride;
    return ix->runs
               ? IndexedRuns<Op, Nin, T, true>(base, n, usize, stride, index_at, upd_at, stop)
               : IndexedBody<Op, Nin, T, true, false>(base, n, usize, stride, index_at, upd_at,
                                                      stop);
  }
  const int64_t* off = reinterpret_cast<const int64_t*>(args[1]);
  return IndexedPick<Op, Nin, T>(args, steps, n, false, [&](int64_t i) { return off[i]; });
}

// NumPy's pairwise summation (loops_utils.h): below 8 elements a plain sum
// from -0.0, up to 128 elements eight interleaved accumulators, above that
// the two halves (split at a multiple of 8) summed recursively. Acc is float
// for half types.
template <class T, class Acc>
Acc PairwiseSum(const char* a, int64_t n, int64_t s) {
  auto at = [&](int64_t i) { return static_cast<Acc>(LoadElem<T>(a + i * s)); };
  if (n < 8) {
    Acc res = -static_cast<Acc>(0);
    for (int64_t i = 0; i < n; ++i) res += at(i);
    return res;
  }
  if (n <= 128) {
    Acc r[8];
    for (int j = 0; j < 8; ++j) r[j] = at(j);
    int64_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += at(i + j);
    }
    Acc res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += at(i);
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum<T, Acc>(a, n2, s) + PairwiseSum<T, Acc>(a + n2 * s, n - n2, s);
}

// The complex form: NumPy sums the interleaved (re, im) scalars, so its
// thresholds count scalars, twice the element count m.
template <class R>
void ComplexPairwiseSum(R& rr, R& ri, const char* a, int64_t m, int64_t s) {
  auto re = [&](int64_t e) { return LoadElem<R>(a + e * s); };
  auto im = [&](int64_t e) { return LoadElem<R>(a + e * s + sizeof(R)); };
  if (m < 4) {
    rr = ri = -static_cast<R>(0);
    for (int64_t e = 0; e < m; ++e) rr += re(e), ri += im(e);
    return;
  }
  if (m <= 64) {
    R r[8];
    for (int j = 0; j < 4; ++j) r[2 * j] = re(j), r[2 * j + 1] = im(j);
    int64_t e = 4;
    for (; e < m - (m % 4); e += 4) {
      for (int j = 0; j < 4; ++j) r[2 * j] += re(e + j), r[2 * j + 1] += im(e + j);
    }
    rr = (r[0] + r[2]) + (r[4] + r[6]);
    ri = (r[1] + r[3]) + (r[5] + r[7]);
    for (; e < m; ++e) rr += re(e), ri += im(e);
    return;
  }
  const int64_t m2 = (m - m % 8) / 2;
  R rr1, ri1, rr2, ri2;
  ComplexPairwiseSum<R>(rr1, ri1, a, m2, s);
  ComplexPairwiseSum<R>(rr2, ri2, a + m2 * s, m - m2, s);
  rr = rr1 + rr2;
  ri = ri1 + ri2;
}

// The reduce slot (T, T -> T): args[0] == args[2] holds the running value.
// Pairwise (the table's `pairwise` types): NumPy's pairwise sum.
template <class Op, class T, bool Pairwise = false>
int Reduce(const LoopContext&, char* const* args, const int64_t* dims,
           const int64_t* steps, void*) noexcept {
  const int64_t n = dims[0], s = steps[1];
  const char* in = args[1];
  int status = 0;
  if constexpr (Pairwise && kIsComplex<T>) {
    using R = typename T::value_type;
    R rr, ri;
    ComplexPairwiseSum<R>(rr, ri, in, n, s);
    const T acc = LoadElem<T>(args[0]);
    StoreElem(args[0], T(acc.real() + rr, acc.imag() + ri));
  } else if constexpr (Pairwise && kIsFloat<T>) {
    using Acc = std::conditional_t<kIsHalf<T>, float, T>;
    const Acc acc = static_cast<Acc>(LoadElem<T>(args[0]));
    StoreElem(args[0], Convert<T>(acc + PairwiseSum<T, Acc>(in, n, s)));
  } else if constexpr (kIsHalf<T> && !kIsMlFloat<T> && HalfReduceInFloat<Op>) {
    float acc = static_cast<float>(LoadElem<T>(args[0]));
    for (int64_t i = 0; i < n; ++i) acc = Op::Call(acc, static_cast<float>(LoadElem<T>(in + i * s)));
    StoreElem(args[0], Convert<T>(acc));  // (Convert: half's rounding flags)
  } else {
    T acc = LoadElem<T>(args[0]);
    for (int64_t i = 0; i < n; ++i) {
      acc = Convert<T>(ChainStep<Op>(status, static_cast<Compute<Op, T>>(acc), In<Op, T>(in + i * s)));
    }
    StoreElem(args[0], acc);
  }
  return status;
}

// Stores v at p with a streaming (non-temporal) store where the ISA has one
// for T (x86-64: 4- and 8-byte integers); plain stores otherwise.
template <class T>
inline void StoreStreaming(T* p, T v) {
#if defined(__SSE2__)
  if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    return _mm_stream_si64(reinterpret_cast<long long*>(p), static_cast<long long>(v));
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) {
    return _mm_stream_si32(reinterpret_cast<int*>(p), static_cast<int>(v));
  }
#endif
  *p = v;
}

inline void StreamingStoresDone() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Contiguous scans whose input and output together exceed this many bytes
// no longer run in the last-level cache: they write with streaming stores,
// which skip reading each output line first (int64 add.accumulate of 1e7
// elements: 7.8-8.1 ms against 6.5 ms in a C harness; at 1e6, plain stores
// win, 0.335 against 0.350 ms).
inline constexpr int64_t kScanStreamMinBytes = int64_t{16} << 20;

// The accumulate slot (T, T -> T): args[0] input, args[1] output; aux, when
// set, points to a start value (a T): out[0] = op(start, in[0]).
template <class Op, class T>
int Accumulate(const LoopContext&, char* const* args, const int64_t* dims,
               const int64_t* steps, void* aux) noexcept {
  const int64_t n = dims[0], si = steps[0], so = steps[1];
  if (n <= 0) return 0;
  int status = 0;
  T cur = LoadElem<T>(args[0]);
  if (aux) {
    cur = Convert<T>(ChainStep<Op>(status, static_cast<Compute<Op, T>>(LoadElem<T>(static_cast<const char*>(aux))),
                                   In<Op, T>(args[0])));
  }
  StoreElem(args[1], cur);
  if constexpr (kIsInt<T> && !MayFail<Op>) {
    if (si == sizeof(T) && so == sizeof(T)) {
      // Contiguous integer scans: load four inputs ahead of the stores (in
      // and out are the same array or disjoint, so the loads are safe), and
      // keep only the adds on the dependency chain.
      const T* in = reinterpret_cast<const T*>(args[0]);
      T* out = reinterpret_cast<T*>(args[1]);
      auto body = [&](auto store) {
        int64_t i = 1;
        for (; i + 4 <= n; i += 4) {
          const T x0 = in[i], x1 = in[i + 1], x2 = in[i + 2], x3 = in[i + 3];
          const T c0 = Op::Call(cur, x0), c1 = Op::Call(c0, x1), c2 = Op::Call(c1, x2);
          cur = Op::Call(c2, x3);
          store(out + i, c0), store(out + i + 1, c1), store(out + i + 2, c2), store(out + i + 3, cur);
        }
        for (; i < n; ++i) store(out + i, cur = Op::Call(cur, in[i]));
      };
      if (2 * n * static_cast<int64_t>(sizeof(T)) >= kScanStreamMinBytes && in != out) {
        body([](T* p, T v) { StoreStreaming(p, v); });
        StreamingStoresDone();
      } else {
        body([](T* p, T v) { *p = v; });
      }
      return 0;
    }
  }
  for (int64_t i = 1; i < n; ++i) {
    cur = Convert<T>(ChainStep<Op>(status, static_cast<Compute<Op, T>>(cur), In<Op, T>(args[0] + i * si)));
    StoreElem(args[1] + i * so, cur);
  }
  return status;
}

}  // namespace ufuncx::drivers
