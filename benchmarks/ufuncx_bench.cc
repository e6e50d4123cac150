// ufuncx's C++ API against what a C++ user would otherwise write: a plain
// loop for an elementwise call, a sum, a running sum and a scatter-add, and
// Eigen's (single-threaded) product for matmul. Each pair runs on the same
// data, so the ratio of the two rows is the figure to read.
//
//   cmake -S . -B build -DUFX_BUILD_BENCHMARKS=ON && cmake --build build -j2
//   ./build/benchmarks/ufuncx_bench --benchmark_filter=Matmul
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <cstdint>
#include <random>

#include "ufuncx/frontends.h"
#include "ufuncx/ufuncx.h"

namespace {

using ufuncx::Array;
using ufuncx::ArrayView;
using ufuncx::DType;

template <class T>
constexpr DType kType = std::is_same_v<T, float> ? DType::kFloat32 : DType::kFloat64;

template <class T>
Array Random(ufuncx::Shape shape, uint32_t seed) {
  Array a(kType<T>, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<T> dist(T(-2), T(2));
  int64_t size = 1;
  for (const int64_t d : shape) size *= d;
  for (int64_t i = 0; i < size; ++i) a.typed<T>()[i] = dist(gen);
  return a;
}

template <class T>
void BM_AddCall(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Array a = Random<T>({n}, 1), b = Random<T>({n}, 2);
  Array out(kType<T>, {n});
  const ArrayView in[] = {a.view(), b.view()}, outs[] = {out.view()};
  const ufuncx::Ufunc& add = ufuncx::GetUfunc("add");
  for (auto _ : state) add.CallInto(in, outs);
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(T)});
}

template <class T>
void BM_AddLoop(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Array a = Random<T>({n}, 1), b = Random<T>({n}, 2);
  Array out(kType<T>, {n});
  const T* x = a.typed<T>();
  const T* y = b.typed<T>();
  T* z = out.typed<T>();
  for (auto _ : state) {
    for (int64_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(T)});
}

// add.reduce of a contiguous vector (NumPy's pairwise order, bit for bit).
template <class T>
void BM_SumReduce(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Array a = Random<T>({n}, 3);
  const ufuncx::Ufunc& add = ufuncx::GetUfunc("add");
  for (auto _ : state) benchmark::DoNotOptimize(add.Reduce(a.view()));
  state.SetBytesProcessed(state.iterations() * n * int64_t{sizeof(T)});
}

// The naive sequential sum (a different, less accurate order).
template <class T>
void BM_SumLoop(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Array a = Random<T>({n}, 3);
  const T* x = a.typed<T>();
  for (auto _ : state) {
    T s = 0;
    for (int64_t i = 0; i < n; ++i) s += x[i];
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * n * int64_t{sizeof(T)});
}

template <class T>
void BM_CumsumAccumulate(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Array a = Random<T>({n}, 4);
  const ufuncx::Ufunc& add = ufuncx::GetUfunc("add");
  for (auto _ : state) benchmark::DoNotOptimize(add.Accumulate(a.view()));
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(T)});
}

template <class T>
void BM_CumsumLoop(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Array a = Random<T>({n}, 4);
  const T* x = a.typed<T>();
  for (auto _ : state) {
    Array out(kType<T>, {n});
    T* y = out.typed<T>();
    T s = 0;
    for (int64_t i = 0; i < n; ++i) y[i] = s += x[i];
    benchmark::DoNotOptimize(y);
  }
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(T)});
}

// add.at(target, idx, updates): n random indices into a target of n.
struct ScatterData {
  explicit ScatterData(int64_t n) : target(Array::Zeros(DType::kFloat64, {n})),
                                    idx(DType::kInt64, {n}), upd(Random<double>({n}, 5)) {
    std::mt19937_64 gen(6);
    std::uniform_int_distribution<int64_t> pick(0, n - 1);
    for (int64_t i = 0; i < n; ++i) idx.typed<int64_t>()[i] = pick(gen);
  }
  Array target, idx, upd;
};

void BM_ScatterAddAt(benchmark::State& state) {
  ScatterData d(state.range(0));
  const ArrayView ix[] = {d.idx.view()};
  const ArrayView upd = d.upd.view();
  const ufuncx::Ufunc& add = ufuncx::GetUfunc("add");
  for (auto _ : state) ufuncx::At(add, d.target.view(), ix, &upd);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The speed-of-light loop: no bounds checks, no negative indices.
void BM_ScatterAddLoop(benchmark::State& state) {
  ScatterData d(state.range(0));
  double* t = d.target.typed<double>();
  const int64_t* ix = d.idx.typed<int64_t>();
  const double* u = d.upd.typed<double>();
  for (auto _ : state) {
    for (int64_t i = 0; i < state.range(0); ++i) t[ix[i]] += u[i];
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <class T>
void BM_MatmulUfuncx(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Array a = Random<T>({n, n}, 7), b = Random<T>({n, n}, 8);
  Array out(kType<T>, {n, n});
  const ArrayView in[] = {a.view(), b.view()}, outs[] = {out.view()};
  const ufuncx::Ufunc& matmul = ufuncx::GetUfunc("matmul");
  for (auto _ : state) matmul.CallInto(in, outs);
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void BM_MatmulEigen(benchmark::State& state) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t n = state.range(0);
  const Array a = Random<T>({n, n}, 7), b = Random<T>({n, n}, 8);
  const Eigen::Map<const M> A(a.typed<T>(), n, n), B(b.typed<T>(), n, n);
  M out(n, n);
  for (auto _ : state) out.noalias() = A * B;
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_AddCall<float>)->Arg(1 << 10)->Arg(1 << 20);
BENCHMARK(BM_AddLoop<float>)->Arg(1 << 10)->Arg(1 << 20);
BENCHMARK(BM_SumReduce<float>)->Arg(1 << 20);
BENCHMARK(BM_SumLoop<float>)->Arg(1 << 20);
BENCHMARK(BM_CumsumAccumulate<double>)->Arg(1 << 20);
BENCHMARK(BM_CumsumLoop<double>)->Arg(1 << 20);
BENCHMARK(BM_ScatterAddAt)->Arg(1 << 20);
BENCHMARK(BM_ScatterAddLoop)->Arg(1 << 20);
BENCHMARK(BM_MatmulUfuncx<float>)->Arg(512)->UseRealTime();
BENCHMARK(BM_MatmulEigen<float>)->Arg(512)->UseRealTime();
BENCHMARK(BM_MatmulUfuncx<double>)->Arg(512)->UseRealTime();
BENCHMARK(BM_MatmulEigen<double>)->Arg(512)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
