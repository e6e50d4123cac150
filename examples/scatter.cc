// Scatter from C++: NumPy's add.at and a StableHLO window scatter, both
// through the one planner, which reports the plan it chose.
#include <cstdio>

#include "ufuncx/frontends.h"
#include "ufuncx/ufuncx.h"

int main() {
  using namespace ufuncx;
  Array hist = Array::Zeros(DType::kFloat64, {4});
  Array idx(DType::kInt64, {6});
  const int64_t iv[] = {0, 3, 3, -1, 2, 0};
  for (int i = 0; i < 6; ++i) idx.typed<int64_t>()[i] = iv[i];
  Array one(DType::kFloat64, {});
  *one.typed<double>() = 1.0;
  const ArrayView ix[] = {idx.view()};
  const ScatterReport rep = At(GetUfunc("add"), hist.view(), ix, &one.view());
  std::printf("add.at -> [%g %g %g %g] (plan %s)\n", hist.typed<double>()[0],
              hist.typed<double>()[1], hist.typed<double>()[2], hist.typed<double>()[3],
              PlanName(rep.plan));

  // Rows of a (4, 8) operand updated by maximum with a (2, 8) window each.
  Array op = Array::Zeros(DType::kFloat32, {4, 8});
  Array rows(DType::kInt32, {2, 1});
  rows.typed<int32_t>()[0] = 3;
  rows.typed<int32_t>()[1] = 1;
  Array upd(DType::kFloat32, {2, 8});
  for (int i = 0; i < 16; ++i) upd.typed<float>()[i] = static_cast<float>(i);
  ScatterRequest r;
  r.operands = {op.view()};
  r.indices = rows.view();
  r.updates = {upd.view()};
  r.dims.update_window_dims = {1};
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {0};
  r.dims.index_vector_dim = 1;
  r.combiner = &GetUfunc("maximum");
  const ScatterReport w = Scatter(r);
  std::printf("window scatter: row 3 starts %g, row 1 starts %g (plan %s)\n",
              op.view().Ref<float>({3, 0}), op.view().Ref<float>({1, 0}), PlanName(w.plan));
  return 0;
}
