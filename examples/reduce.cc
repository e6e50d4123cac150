// The C++ reduce family and a generalized ufunc: sums along axes (NumPy's
// pairwise order), a running maximum, segment sums and matmul.
#include <cstdio>
#include <utility>
#include <vector>

#include "ufuncx/ufuncx.h"

int main() {
  using ufuncx::Array;
  using ufuncx::DType;
  Array m(DType::kFloat64, {3, 4});
  for (int i = 0; i < 12; ++i) m.typed<double>()[i] = static_cast<double>(i);

  const ufuncx::Ufunc& add = ufuncx::GetUfunc("add");
  Array cols = add.Reduce(m);  // axis=0
  ufuncx::ReduceOptions rows;
  rows.axis = std::vector<int64_t>{1};
  Array sums = add.Reduce(m, rows);
  std::printf("column sums: %g %g %g %g; row sums: %g %g %g\n", cols.typed<double>()[0],
              cols.typed<double>()[1], cols.typed<double>()[2], cols.typed<double>()[3],
              sums.typed<double>()[0], sums.typed<double>()[1], sums.typed<double>()[2]);

  // float32 [2^24, 1 x 15]: the pairwise order gives 16777230, not 2^24.
  Array f(DType::kFloat32, {16});
  f.typed<float>()[0] = 16777216.0f;
  for (int i = 1; i < 16; ++i) f.typed<float>()[i] = 1.0f;
  std::printf("pairwise float32 sum: %.1f\n", *add.Reduce(f).typed<float>());

  Array v(DType::kInt64, {6});
  const int64_t vals[] = {3, 1, 4, 1, 5, 9};
  for (int i = 0; i < 6; ++i) v.typed<int64_t>()[i] = vals[i];
  Array run = ufuncx::GetUfunc("maximum").Accumulate(v);
  std::printf("running max:");
  for (int i = 0; i < 6; ++i) std::printf(" %lld", static_cast<long long>(run.typed<int64_t>()[i]));
  const int64_t seg[] = {0, 2, 5};
  Array parts = add.Reduceat(v, seg);
  std::printf("; segment sums: %lld %lld %lld\n", static_cast<long long>(parts.typed<int64_t>()[0]),
              static_cast<long long>(parts.typed<int64_t>()[1]),
              static_cast<long long>(parts.typed<int64_t>()[2]));

  // matmul with a transposed view (strides swapped, no copy): (3,4) @ (4,3).
  ufuncx::ArrayView t = m.view();
  std::swap(t.shape[0], t.shape[1]);
  std::swap(t.strides[0], t.strides[1]);
  Array g = ufuncx::GetUfunc("matmul")(m.view(), t);
  std::printf("m @ m.T diagonal: %g %g %g (signature %s)\n", g.typed<double>()[0],
              g.typed<double>()[4], g.typed<double>()[8],
              ufuncx::GetUfunc("matmul").core()->text.c_str());
  return 0;
}
