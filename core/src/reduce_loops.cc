// The reduce family's loop machinery (reduce_loops.h): which slot of the
// resolved Loop runs over which dims, and the two-thread splits that leave
// every result bit unchanged.
//
// Every element-level loop here is a loop slot: the `reduce` slot when the
// innermost dim is reduced (NumPy's binary-reduce call, pairwise for float
// add), the elementwise slots when it is not (column sums run across
// columns, vectorised), and the `accumulate` slot for running values along
// a line. This file only walks dims.
#include "reduce_loops.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "cast.h"
#include "iterator.h"
#include "loop_calls.h"
#include "workers.h"

namespace ufuncx::internal {

// The view with dim `axis` restricted to [start, start + count).
ArrayView Slice(const ArrayView& v, int axis, int64_t start, int64_t count) {
  ArrayView s = v;
  s.data += start * v.strides[static_cast<size_t>(axis)];
  s.shape[static_cast<size_t>(axis)] = count;
  return s;
}

// The view without dim `axis` (at index `index` along it).
ArrayView Drop(const ArrayView& v, int axis, int64_t index) {
  ArrayView s = v;
  s.data += index * v.strides[static_cast<size_t>(axis)];
  s.shape.erase(s.shape.begin() + axis);
  s.strides.erase(s.strides.begin() + axis);
  return s;
}

ArrayView SpreadOver(const ArrayView& kept, const Shape& full) {
  ArrayView b = kept;
  b.shape = full;
  for (size_t d = 0; d < full.size(); ++d) {
    if (kept.shape[d] == 1) b.strides[d] = 0;
  }
  return b;
}

namespace {

// Reductions reading at least this many bytes split over two threads, in
// this many pieces along the operand's first dim (claimed as the threads
// free up, so a busy core slows the call down rather than stalling it).
// With the pool's helper awake (workers.cc), float32 maximum.reduce
// measured 0.87x NumPy's time at 2.2 MB, 0.69-0.76x at 4 MB and 0.54x at
// 40 MB; one thread, 1.03-1.11x from 1.6 to 4 MB.
constexpr int64_t kThreadedMinBytes = int64_t{2} << 20;
constexpr int64_t kThreadedPieces = 16;
// Rows handed to the rows slot per call (ReduceLoops).
constexpr int64_t kRowsBatch = 256;
// A reduction over dim 0 whose order must stay splits a kept dim at least
// this long in halves instead.
constexpr int64_t kSplitColumnsMin = 64;

// Two-thread integer scans (ThreadedScan): the operand and result bytes
// above which a scan streams from memory, and the share of the elements the
// first thread then scans.
constexpr int64_t kScanCacheBytes = int64_t{32} << 20;
constexpr int64_t kScanHeadPercent = 60;

// Whether a reduction of loop type t, split into partial results that are
// then combined in order, gives the one-thread result bit for bit: the
// table's exact_split says so (selections on every type; wrapping integer
// arithmetic and logic, which are associative, on bool and integers; never
// float add or multiply, whose results depend on the order).
bool SplitsExactly(const UfuncTraits& traits, DType t) {
  const Kind k = KindOf(t);
  switch (traits.exact_split) {
    case UfuncTraits::ExactSplit::kAll: return true;
    case UfuncTraits::ExactSplit::kIntegers:
      return k == Kind::kBool || k == Kind::kSigned || k == Kind::kUnsigned;
    case UfuncTraits::ExactSplit::kNever: break;
  }
  return false;
}

// Whether the slices of v along dim 0 are disjoint: its dim-0 step passes
// over everything one slice spans.
bool DisjointAlongDim0(const ArrayView& v) {
  int64_t span = static_cast<int64_t>(v.itemsize());
  for (size_t d = 1; d < v.shape.size(); ++d) span += std::llabs(v.strides[d]) * (v.shape[d] - 1);
  return std::llabs(v.strides[0]) >= span;
}

}  // namespace

// Combines every element of `in` into `acc` (in's shape; stride 0 along the
// reduced dims), masked by `where` (bool, broadcast to in) when given.
void ReduceLoops(const Ufunc& u, const Loop& loop, const ArrayView& acc, const ArrayView& in,
                 const ArrayView* where) {
  const DType t = loop.types[0];
  const int64_t item = static_cast<int64_t>(ItemSize(t));
  const int64_t item1 = static_cast<int64_t>(ItemSize(loop.types[1]));
  const bool cast = in.dtype != loop.types[1];
  const bool chunked = cast;
  const LoopContext ctx{u.name().c_str()};
  CastFn to_loop = cast ? GetCast(in.dtype, loop.types[1]) : nullptr;
  std::unique_ptr<char[]> buf(cast ? new char[static_cast<size_t>(kBufferElems * item1)] : nullptr);
  // One loop call: the reduce slot when acc does not move, the elementwise
  // slots (in place, acc = op(acc, in)) when it does.
  auto call = [&](char* a, int64_t sa, const char* src, int64_t step, int64_t c) {
    char* args[3] = {a, const_cast<char*>(src), a};
    const int64_t steps[3] = {sa, step, sa};
    LoopFn fn = sa != 0 ? ElementwiseSlot(loop.slots, sa == item && step == item1)
                : loop.slots.reduce ? ReduceSlot(loop.slots, step, item1)
                                    : loop.slots.strided;
    CheckStatus(fn(ctx, args, &c, steps, nullptr), ctx.ufunc_name);
  };
  // One run of m elements, through bounded buffers when a cast is needed.
  auto run = [&](char* accp, int64_t sa, const char* inp, int64_t si, int64_t m) {
    if (!chunked) return call(accp, sa, inp, si, m);
    for (int64_t start = 0; start < m; start += kBufferElems) {
      const int64_t c = std::min(kBufferElems, m - start);
      const char* src = inp + start * si;
      int64_t step = si;
      if (cast) {
        to_loop(src, si, buf.get(), item1, c);
        src = buf.get();
        step = item1;
      }
      call(accp + start * sa, sa, src, step, c);
    }
  };
  if (in.size() == 0) return;
  if (in.ndim() == 1 && !where) {  // the common 1-D case, no iterator
    run(acc.data, acc.strides[0], in.data, in.strides[0], in.shape[0]);
    return;
  }
  std::vector<ArrayView> ops = {in};
  if (where) ops.push_back(*where);
  ops.push_back(acc);
  const StridedIteration it(ops, in.shape, /*flip_negative=*/false);
  const size_t ka = ops.size() - 1;
  // Blocks reduced into one element that do not form one run (a strided
  // view reduced over several dims): NumPy's buffered iterator hands each
  // block to the loop as one buffer, in iteration order. Same here, for
  // blocks that fit its buffer. A mask is gathered beside it: NumPy's
  // masked loop then sums each run of true positions of the whole buffer
  // (a run may cross a row), so the runs here are the buffer's too.
  const Shape& sh = it.shape();
  const auto& st = it.strides();
  const int nd = static_cast<int>(sh.size());
  int r = 0;
  int64_t block = 1;
  while (r < nd && st[ka][static_cast<size_t>(nd - 1 - r)] == 0) {
    block *= sh[static_cast<size_t>(nd - 1 - r)];
    ++r;
  }
  if (r >= 2 && block <= kBufferElems) {
    CastFn copy = GetCast(in.dtype, loop.types[1]);
    CastFn copy_mask = GetCast(DType::kBool, DType::kBool);
    std::unique_ptr<char[]> gathered(new char[static_cast<size_t>(block * item1)]);
    std::unique_ptr<char[]> gathered_mask(where ? new char[static_cast<size_t>(block)] : nullptr);
    const int outer = nd - r;
    // Copies one block's rows (and its mask's), innermost dim fastest.
    auto gather = [&](const char* p0, const char* m0) {
      std::vector<int64_t> bi(static_cast<size_t>(r), 0);
      int64_t filled = 0;
      const int64_t inner = sh[static_cast<size_t>(nd - 1)], sin = st[0][static_cast<size_t>(nd - 1)];
      while (true) {
        const char* p = p0;
        const char* m = m0;
        for (int q = 1; q < r; ++q) {
          p += bi[static_cast<size_t>(q)] * st[0][static_cast<size_t>(nd - 1 - q)];
          if (where) m += bi[static_cast<size_t>(q)] * st[1][static_cast<size_t>(nd - 1 - q)];
        }
        copy(p, sin, gathered.get() + filled * item1, item1, inner);
        if (where) copy_mask(m, st[1][static_cast<size_t>(nd - 1)], gathered_mask.get() + filled, 1, inner);
        filled += inner;
        int q = 1;
        for (; q < r; ++q) {
          if (++bi[static_cast<size_t>(q)] < sh[static_cast<size_t>(nd - 1 - q)]) break;
          bi[static_cast<size_t>(q)] = 0;
        }
        if (q == r) break;
      }
    };
    // The kept positions, in order: one buffer and one loop call each.
    std::vector<int64_t> idx(static_cast<size_t>(outer), 0);
    while (true) {
      int64_t off_in = 0, off_mask = 0, off_acc = 0;
      for (int q = 0; q < outer; ++q) {
        off_in += idx[static_cast<size_t>(q)] * st[0][static_cast<size_t>(q)];
        if (where) off_mask += idx[static_cast<size_t>(q)] * st[1][static_cast<size_t>(q)];
        off_acc += idx[static_cast<size_t>(q)] * st[ka][static_cast<size_t>(q)];
      }
      char* accp = it.base(static_cast<int>(ka)) + off_acc;
      gather(it.base(0) + off_in, where ? it.base(1) + off_mask : nullptr);
      if (!where) {
        call(accp, 0, gathered.get(), item1, block);
      } else {
        ForEachTrueRun(gathered_mask.get(), 1, block, [&](int64_t i, int64_t j) {
          call(accp, 0, gathered.get() + i * item1, item1, j - i);
        });
      }
      int q = outer - 1;
      for (; q >= 0; --q) {
        if (++idx[static_cast<size_t>(q)] < sh[static_cast<size_t>(q)]) break;
        idx[static_cast<size_t>(q)] = 0;
      }
      if (q < 0) break;
    }
    return;
  }
  if (!where && !cast && nd == 2 && loop.slots.rows && st[ka][0] == 0 && st[ka][1] == item &&
      st[0][1] == item1) {
    // Rows of the operand combined, in order, into one contiguous result
    // row (a C-ordered axis-0 reduction): the rows slot takes a batch of
    // rows a call, not one (1000x1000 float32 add.reduce over axis 0 on
    // two threads: 0.085-0.093 ms a row at a time, 0.062-0.067 ms so).
    int64_t dst[kRowsBatch] = {}, src[kRowsBatch];
    const int64_t rows = sh[0], dims[2] = {0, sh[1]};
    for (int64_t start = 0; start < rows; start += kRowsBatch) {
      const int64_t count = std::min(kRowsBatch, rows - start);
      for (int64_t i = 0; i < count; ++i) src[i] = (start + i) * st[0][0];
      char* args[4] = {it.base(static_cast<int>(ka)), reinterpret_cast<char*>(dst),
                       it.base(0), reinterpret_cast<char*>(src)};
      const int64_t batch[2] = {count, dims[1]}, steps[4] = {0, 8, 0, 8};
      CheckStatus(loop.slots.rows(ctx, args, batch, steps, nullptr), ctx.ufunc_name);
    }
    return;
  }
  it.ForEachInner([&](char* const* p, int64_t n, const int64_t* s) {
    if (!where) {
      run(p[ka], s[ka], p[0], s[0], n);
      return;
    }
    ForEachTrueRun(p[1], s[1], n, [&](int64_t i, int64_t j) {
      run(p[ka] + i * s[ka], s[ka], p[0] + i * s[0], s[0], j - i);
    });
  });
}

// ReduceLoops without a mask, over two threads when the operand is large
// and the split leaves the result unchanged bit for bit:
// - dim 0 kept (a row-wise reduction): the threads take disjoint pieces of
//   it, each a one-thread reduction of its own outputs (any ufunc);
// - dim 0 the only one reduced (a 1-D or column-wise reduction) and the
//   ufunc SplitsExactly: each piece but the first reduces into a partial
//   result that starts at its first row; the first reduces into acc; the
//   partials are then combined into acc in order.
// Otherwise one thread.
void ReduceLoopsThreaded(const Ufunc& u, const Loop& loop, const ArrayView& acc,
                         const ArrayView& in) {
  const int64_t rows = in.ndim() > 0 ? in.shape[0] : 0;
  const bool large = Cores() >= 2 && rows >= 2 && in.dtype == loop.types[1] &&
                     in.size() * static_cast<int64_t>(in.itemsize()) >= kThreadedMinBytes;
  if (!large) return ReduceLoops(u, loop, acc, in, nullptr);
  const DType t = loop.types[0];
  if (in.ndim() == 1 && acc.strides[0] == 0 && in.shape[0] > 128 &&
      (u.traits().pairwise_types >> static_cast<int>(t) & 1) &&
      (t == DType::kFloat32 || t == DType::kFloat64) && loop.types[1] == t && loop.types[2] == t) {
    // NumPy's pairwise sum of a long run first splits it in two at a
    // multiple of 8 (n2 below). Each thread sums one half from -0.0 (which
    // adds nothing, -0.0 included), and acc + (left + right) is then the
    // one-thread result bit for bit.
    const int64_t n = in.shape[0], si = in.strides[0];
    const int64_t n2 = n / 2 - (n / 2) % 8;
    alignas(16) char part[2][16];
    for (char* q : {part[0], part[1]}) {
      if (t == DType::kFloat32) {
        const float z = -0.0f;
        std::memcpy(q, &z, sizeof z);
      } else {
        const double z = -0.0;
        std::memcpy(q, &z, sizeof z);
      }
    }
    const LoopContext ctx{u.name().c_str()};
    const LoopFn sum = ReduceSlot(loop.slots, si, static_cast<int64_t>(ItemSize(t)));
    RunWorkers(2, [&](int w) {
      char* args[3] = {part[w], in.data + (w == 0 ? 0 : n2 * si), part[w]};
      const int64_t steps[3] = {0, si, 0}, len = w == 0 ? n2 : n - n2;
      CheckStatus(sum(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
    });
    const int64_t one = 1, steps[3] = {0, 0, 0};
    char* halves[3] = {part[0], part[1], part[0]};
    CheckStatus(loop.slots.strided(ctx, halves, &one, steps, nullptr), ctx.ufunc_name);
    char* total[3] = {acc.data, part[0], acc.data};
    CheckStatus(loop.slots.strided(ctx, total, &one, steps, nullptr), ctx.ufunc_name);
    return;
  }
  bool rest_kept = true;
  for (size_t d = 1; d < acc.shape.size(); ++d) rest_kept &= acc.strides[d] != 0 || acc.shape[d] == 1;
  const bool rowwise = acc.strides[0] != 0 && DisjointAlongDim0(acc);
  const bool partials = acc.strides[0] == 0 && rest_kept && loop.types[0] == loop.types[1] &&
                        SplitsExactly(u.traits(), loop.types[0]);
  // Dim 0 reduced in an order that must stay (float add), a long dim
  // kept: halves of the longest kept dim, each reduced whole on its own
  // thread, so every result element sees its inputs in the one-thread
  // order. (Where partial results are allowed they measured faster:
  // 1000x1000 float maximum.reduce over axis 0, 0.086-0.093 ms (float32)
  // and 0.136-0.139 ms (float64) against 0.096-0.098 and 0.157-0.278.)
  int64_t split = 0;
  for (size_t d = 1; !rowwise && !partials && d < acc.shape.size(); ++d) {
    if (acc.strides[d] != 0 && acc.shape[d] >= kSplitColumnsMin &&
        (split == 0 || acc.shape[d] > acc.shape[static_cast<size_t>(split)])) {
      split = static_cast<int64_t>(d);
    }
  }
  if (split != 0) {
    const int d = static_cast<int>(split);
    const int64_t cols = acc.shape[static_cast<size_t>(d)];
    const int64_t half = (cols / 2 + 15) / 16 * 16;  // cache-line multiples of the results
    RunWorkers(2, [&](int w) {
      const int64_t start = w == 0 ? 0 : half, count = w == 0 ? half : cols - half;
      ReduceLoops(u, loop, Slice(acc, d, start, count), Slice(in, d, start, count), nullptr);
    });
    return;
  }
  if (!rowwise && !partials) return ReduceLoops(u, loop, acc, in, nullptr);
  const int64_t piece = (rows + kThreadedPieces - 1) / kThreadedPieces;
  const int64_t pieces = (rows + piece - 1) / piece;
  std::vector<Array> partial(static_cast<size_t>(pieces));
  std::atomic<int64_t> next{0};
  RunWorkers(2, [&](int) {
    for (int64_t k; (k = next.fetch_add(1)) < pieces;) {
      const int64_t start = k * piece, count = std::min(piece, rows - start);
      if (rowwise || k == 0) {
        ReduceLoops(u, loop, Slice(acc, 0, start, count), Slice(in, 0, start, count), nullptr);
        continue;
      }
      Shape one = in.shape;
      one[0] = 1;
      Array& p = partial[static_cast<size_t>(k)];
      p = Array(loop.types[0], one);
      CopyInto(p.view(), Slice(in, 0, start, 1));
      const ArrayView rest = Slice(in, 0, start + 1, count - 1);
      if (count > 1) ReduceLoops(u, loop, SpreadOver(p.view(), rest.shape), rest, nullptr);
    }
  });
  if (rowwise) return;
  for (int64_t k = 1; k < pieces; ++k) {
    ReduceLoops(u, loop, Slice(acc, 0, 0, 1), partial[static_cast<size_t>(k)].view(), nullptr);
  }
}


// Two-thread 1-D scans (see AccumulateWith). The first thread scans a
// head [0, mid). In cache, the second scans the tail on its own, and then
// both offset the tail by the head's last value (op(carry, local prefix)).
// Beyond the cache, that second pass over the tail would cost as much
// memory traffic as the scan; so the second thread first reduces the head
// to its total (a read-only pass, which runs ahead of the first thread's
// scan) and then scans the tail from that total (the accumulate slot's
// start value). Both then write with streaming stores. (Not in place: the
// head must be read before the first thread overwrites it.) int64
// add.accumulate of 1e7 elements into a reused result: 7.5-8.0 ms with
// the offset pass, 6.1-6.8 ms with the tail offset chunk by chunk in L1,
// 4.9-5.5 ms so (a head of 55-70% measured alike).
namespace {
void ThreadedScan(const char* name, const Loop& loop, const ArrayView& a, const ArrayView& res) {
  const LoopContext ctx{name};
  const int64_t n = a.shape[0], si = a.strides[0], so = res.strides[0];
  const int64_t item = static_cast<int64_t>(ItemSize(loop.types[0]));
  const bool streaming = 2 * n * item > kScanCacheBytes && !MayShareMemory(a, res);
  const int64_t mid = streaming ? n * kScanHeadPercent / 100 : n / 2;
  const LoopFn offset = ElementwiseSlot(loop.slots, so == item);
  // out[start, start + len) = op(carry, out[start, start + len)).
  auto shift = [&](const char* carry, int64_t start, int64_t len) {
    char* out = res.data + start * so;
    char* args[3] = {const_cast<char*>(carry), out, out};
    const int64_t steps[3] = {0, so, so};
    CheckStatus(offset(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
  };
  auto scan = [&](int64_t start, int64_t len) {
    char* args[2] = {a.data + start * si, res.data + start * so};
    const int64_t steps[2] = {si, so};
    CheckStatus(loop.slots.accumulate(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
  };
  RunWorkers(2, [&](int w) {
    if (w == 0) return scan(0, mid);
    if (!streaming) return scan(mid, n - mid);
    alignas(16) char carry[16];
    std::memcpy(carry, a.data, static_cast<size_t>(item));
    const LoopFn reduce = ReduceSlot(loop.slots, si, item);
    char* args[3] = {carry, a.data + si, carry};
    const int64_t steps[3] = {0, si, 0}, len = mid - 1;
    CheckStatus(reduce(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
    char* targs[2] = {a.data + mid * si, res.data + mid * so};
    const int64_t tsteps[2] = {si, so}, tlen = n - mid;
    CheckStatus(loop.slots.accumulate(ctx, targs, &tlen, tsteps, carry), ctx.ufunc_name);
  });
  if (streaming) return;
  alignas(16) char carry[16];
  std::memcpy(carry, res.data + (mid - 1) * so, static_cast<size_t>(item));
  const int64_t half = (n - mid) / 2;
  RunWorkers(2, [&](int w) {
    if (w == 0) return shift(carry, mid, half);
    shift(carry, mid + half, n - mid - half);
  });
}
}  // namespace

void AccumulateLoops(const Ufunc& u, const Loop& loop, const ArrayView& a, const ArrayView& res,
                     int axis) {
  const LoopContext ctx{u.name().c_str()};
  const int64_t n = a.shape[static_cast<size_t>(axis)];
  if (a.size() == 0) return;
  const int64_t other = a.size() / n;
  // Along lines when the axis is the fastest dim of the result (or there
  // are few lines); otherwise slice by slice, vectorised across the slice.
  bool axis_fastest = true;
  const int64_t sa = std::llabs(res.strides[static_cast<size_t>(axis)]);
  for (int d = 0; d < a.ndim(); ++d) {
    if (d != axis && a.shape[static_cast<size_t>(d)] > 1 &&
        std::llabs(res.strides[static_cast<size_t>(d)]) < sa) {
      axis_fastest = false;
    }
  }
  // A long 1-D integer scan of an associative op, on two threads. Wrapping
  // integer arithmetic, logic and selections regroup exactly, so the result
  // is the sequential one. (Float scans stay sequential, as NumPy's are.)
  const int64_t item = static_cast<int64_t>(ItemSize(loop.types[0]));
  const Kind kind = KindOf(loop.types[0]);
  if (a.ndim() == 1 && Cores() >= 2 && n * item >= kThreadedMinBytes &&
      (kind == Kind::kSigned || kind == Kind::kUnsigned || kind == Kind::kBool) &&
      loop.types[0] == loop.types[1] && loop.types[1] == loop.types[2] &&
      SplitsExactly(u.traits(), loop.types[0]) && (SameLayout(a, res) || !MayShareMemory(a, res))) {
    ThreadedScan(u.name().c_str(), loop, a, res);
    return;
  }
  // Complex multiply differs between NumPy's chained and elementwise loops:
  // complex scans always run along lines, as NumPy's do.
  if (axis_fastest || other < 64 || n == 1 || KindOf(loop.types[0]) == Kind::kComplex) {
    const ArrayView ops[2] = {Drop(a, axis, 0), Drop(res, axis, 0)};
    const StridedIteration it(ops, ops[0].shape);
    const int64_t steps[2] = {a.strides[static_cast<size_t>(axis)],
                              res.strides[static_cast<size_t>(axis)]};
    it.ForEachInner([&](char* const* p, int64_t m, const int64_t* s) {
      for (int64_t j = 0; j < m; ++j) {
        char* args[2] = {p[0] + j * s[0], p[1] + j * s[1]};
        int64_t len = n;
        CheckStatus(loop.slots.accumulate(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
      }
    });
    return;
  }
  if (!SameLayout(a, res)) CopyInto(Drop(res, axis, 0), Drop(a, axis, 0));
  for (int64_t i = 1; i < n; ++i) {
    const ArrayView ops[3] = {Drop(res, axis, i - 1), Drop(a, axis, i), Drop(res, axis, i)};
    const StridedIteration it(ops, ops[0].shape);
    it.ForEachInner([&](char* const* p, int64_t m, const int64_t* s) {
      const bool contig = s[0] == item && s[1] == item && s[2] == item;
      CheckStatus(ElementwiseSlot(loop.slots, contig)(ctx, p, &m, s, nullptr), ctx.ufunc_name);
    });
  }
}

void ReduceatLoops(const Ufunc& u, const Loop& loop, const ArrayView& in,
                   std::span<const int64_t> indices, int ax, const ArrayView& res) {
  const int64_t n = in.shape[static_cast<size_t>(ax)];
  const int64_t m = static_cast<int64_t>(indices.size());
  const size_t item = ItemSize(loop.types[0]);
  const int64_t steps[3] = {0, in.strides[static_cast<size_t>(ax)], 0};
  const LoopFn fn = ReduceSlot(loop.slots, steps[1], static_cast<int64_t>(item));
  const LoopContext ctx{u.name().c_str()};
  // NumPy: a[i[j]:i[j+1]] reduced, or a[i[j]] alone when i[j] >= i[j+1];
  // the last segment runs to the end.
  auto segment = [&](int64_t j) {
    const int64_t start = indices[static_cast<size_t>(j)];
    int64_t end = j + 1 < m ? indices[static_cast<size_t>(j + 1)] : n;
    return std::pair{start, std::max(end, start + 1)};
  };
  // 1-D: one element to copy and one loop call a segment. Segments write
  // distinct results, so a large operand splits them over two threads in
  // claimed groups (each segment reduced as on one thread).
  auto one_d = [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) {
      const auto [start, end] = segment(j);
      char* acc = res.data + j * res.strides[0];
      std::memcpy(acc, in.data + start * steps[1], item);
      if (end - start == 1) continue;
      char* args[3] = {acc, in.data + (start + 1) * steps[1], acc};
      int64_t len = end - start - 1;
      CheckStatus(fn(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
    }
  };
  if (in.ndim() == 1) {
    if (Cores() < 2 || m < 2 || res.strides[0] == 0 ||
        n * static_cast<int64_t>(item) < kThreadedMinBytes) {
      return one_d(0, m);
    }
    const int64_t group = (m + kThreadedPieces - 1) / kThreadedPieces;
    std::atomic<int64_t> next{0};
    RunWorkers(2, [&](int) {
      for (int64_t g; (g = next.fetch_add(1)) * group < m;) {
        one_d(g * group, std::min(m, (g + 1) * group));
      }
    });
    return;
  }
  for (int64_t j = 0; j < m && res.size() > 0; ++j) {
    const auto seg = segment(j);  // (no structured binding: the lambda below uses it)
    const int64_t start = seg.first, end = seg.second;
    const ArrayView acc = Drop(res, ax, j);
    CopyInto(acc, Drop(in, ax, start));
    if (end - start == 1) continue;
    // NumPy calls the reduce loop along the axis for every other position.
    const ArrayView ops[2] = {Drop(in, ax, start + 1), acc};
    const StridedIteration it(ops, acc.shape, /*flip_negative=*/false);
    it.ForEachInner([&](char* const* q, int64_t cnt, const int64_t* s) {
      for (int64_t k = 0; k < cnt; ++k) {
        char* args[3] = {q[1] + k * s[1], q[0] + k * s[0], q[1] + k * s[1]};
        int64_t len = end - start - 1;
        CheckStatus(fn(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
      }
    });
  }
}

}  // namespace ufuncx::internal
