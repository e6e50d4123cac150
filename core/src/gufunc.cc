// Generalized ufuncs (NumPy's gufunc protocol): core signature parsing, the
// split of every operand into loop dims and core dims, optional core dims
// ("n?", matmul's 1-D promotion), broadcasting of the loop dims, and the
// iteration that hands each run of loop elements to the core kernel.
#include <algorithm>
#include <cctype>

#include "iterator.h"
#include "ufuncx/error.h"
#include "ufuncx/ufunc.h"

namespace ufuncx {
namespace {

// Parses "(n?,k),(k,m?)->(n?,m?)".
CoreSignature ParseCoreSignature(const std::string& text, int nin, int nout) {
  CoreSignature sig;
  sig.text = text;
  std::string s;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  }
  const auto arrow = s.find("->");
  auto bad = [&](const std::string& why) {
    return ValueError("not a valid gufunc signature: " + text + " (" + why + ")");
  };
  if (arrow == std::string::npos) throw bad("no '->'");
  auto parse_side = [&](const std::string& side) {
    size_t i = 0;
    int count = 0;
    while (i < side.size()) {
      if (count > 0) {
        if (side[i] != ',') throw bad("expected ','");
        ++i;
      }
      if (i >= side.size() || side[i] != '(') throw bad("expected '('");
      ++i;
      std::vector<int> dims;
      std::vector<bool> opt;
      while (i < side.size() && side[i] != ')') {
        if (!dims.empty()) {
          if (side[i] != ',') throw bad("expected ',' between dims");
          ++i;
        }
        size_t j = i;
        while (j < side.size() && (std::isalnum(static_cast<unsigned char>(side[j])) || side[j] == '_')) ++j;
        if (j == i) throw bad("expected a dimension name");
        const std::string name = side.substr(i, j - i);
        i = j;
        bool optional = false;
        if (i < side.size() && side[i] == '?') optional = true, ++i;
        auto it = std::find(sig.names.begin(), sig.names.end(), name);
        if (it == sig.names.end()) {
          sig.names.push_back(name);
          it = sig.names.end() - 1;
        }
        dims.push_back(static_cast<int>(it - sig.names.begin()));
        opt.push_back(optional);
      }
      if (i >= side.size()) throw bad("expected ')'");
      ++i;
      sig.dims.push_back(std::move(dims));
      sig.optional.push_back(std::move(opt));
      ++count;
    }
    return count;
  };
  if (parse_side(s.substr(0, arrow)) != nin) throw bad("wrong number of inputs");
  if (parse_side(s.substr(arrow + 2)) != nout) throw bad("wrong number of outputs");
  return sig;
}

}  // namespace

void Ufunc::SetCoreSignature(const std::string& signature) {
  core_ = std::make_shared<const CoreSignature>(ParseCoreSignature(signature, nin_, nout_));
}

CallPlan Ufunc::PlanGufunc(CallPlan plan, std::span<const ArrayView> inputs,
                           std::span<const ArrayView* const> outputs) const {
  const CoreSignature& sig = *core_;
  const size_t ndims = sig.names.size();
  std::vector<int64_t> size(ndims, -1);
  std::vector<bool> dim_missing(ndims, false);
  plan.missing.assign(static_cast<size_t>(nargs()), {});
  std::vector<Shape> loop_shapes;
  // Inputs fix the core sizes; an optional dim an input lacks is missing
  // everywhere (matmul's 1-D promotion).
  for (int i = 0; i < nin_; ++i) {
    const ArrayView& v = inputs[static_cast<size_t>(i)];
    const auto& dims = sig.dims[static_cast<size_t>(i)];
    const auto& opt = sig.optional[static_cast<size_t>(i)];
    const int ncore = static_cast<int>(dims.size());
    const int nopt = static_cast<int>(std::count(opt.begin(), opt.end(), true));
    int drop = std::max(0, ncore - v.ndim());
    if (drop > nopt) {
      throw ValueError(name_ + ": Input operand " + std::to_string(i) +
                       " does not have enough dimensions (has " + std::to_string(v.ndim()) +
                       ", gufunc core with signature " + sig.text + " requires " +
                       std::to_string(ncore - nopt) + ")");
    }
    auto& miss = plan.missing[static_cast<size_t>(i)];
    miss.assign(static_cast<size_t>(ncore), false);
    for (int c = 0; c < ncore && drop > 0; ++c) {
      if (opt[static_cast<size_t>(c)]) miss[static_cast<size_t>(c)] = true, --drop;
    }
    const int present = ncore - static_cast<int>(std::count(miss.begin(), miss.end(), true));
    int axis = v.ndim() - present;
    loop_shapes.emplace_back(v.shape.begin(), v.shape.begin() + axis);
    for (int c = 0; c < ncore; ++c) {
      const int d = dims[static_cast<size_t>(c)];
      if (miss[static_cast<size_t>(c)]) {
        dim_missing[static_cast<size_t>(d)] = true;
        continue;
      }
      const int64_t extent = v.shape[static_cast<size_t>(axis++)];
      if (size[static_cast<size_t>(d)] < 0) {
        size[static_cast<size_t>(d)] = extent;
      } else if (size[static_cast<size_t>(d)] != extent) {
        throw ValueError(name_ + ": Input operand " + std::to_string(i) +
                         " has a mismatch in its core dimension " + std::to_string(c) +
                         ", with gufunc signature " + sig.text + " (size " +
                         std::to_string(extent) + " is different from " +
                         std::to_string(size[static_cast<size_t>(d)]) + ")");
      }
    }
  }
  for (size_t d = 0; d < ndims; ++d) {
    if (dim_missing[d]) size[d] = 1;
  }
  std::vector<const Shape*> shape_ptrs;
  for (const Shape& s : loop_shapes) shape_ptrs.push_back(&s);
  plan.shape = internal::BroadcastShapes(shape_ptrs);
  // Each output's core dims (those it lacks marked missing).
  std::vector<Shape> core_outs(static_cast<size_t>(nout_));
  for (int o = 0; o < nout_; ++o) {
    const size_t k = static_cast<size_t>(nin_ + o);
    const auto& dims = sig.dims[k];
    auto& miss = plan.missing[k];
    miss.assign(dims.size(), false);
    for (size_t c = 0; c < dims.size(); ++c) {
      const int d = dims[c];
      if (dim_missing[static_cast<size_t>(d)] && sig.optional[k][c]) {
        miss[c] = true;
        continue;
      }
      if (size[static_cast<size_t>(d)] < 0) {
        throw ValueError(name_ + ": output core dimension " + sig.names[static_cast<size_t>(d)] +
                         " is not set by any input");
      }
      core_outs[static_cast<size_t>(o)].push_back(size[static_cast<size_t>(d)]);
    }
  }
  // A given output's loop dims take part in the broadcast (the inputs
  // broadcast to them; the output itself never broadcasts), as in NumPy.
  for (int o = 0; o < nout_ && o < static_cast<int>(outputs.size()); ++o) {
    const ArrayView* given = outputs[static_cast<size_t>(o)];
    const int nc = static_cast<int>(core_outs[static_cast<size_t>(o)].size());
    if (!given || given->ndim() < nc) continue;
    const Shape loop(given->shape.begin(), given->shape.end() - nc);
    if (loop.size() < plan.shape.size()) continue;
    bool fits = true;  // plan.shape broadcasts to loop
    const size_t lead = loop.size() - plan.shape.size();
    for (size_t d = 0; d < plan.shape.size() && fits; ++d) {
      fits = plan.shape[d] == loop[lead + d] || plan.shape[d] == 1;
    }
    if (fits) plan.shape = loop;
  }
  plan.out_shapes.clear();
  for (int o = 0; o < nout_; ++o) {
    const Shape& core_out = core_outs[static_cast<size_t>(o)];
    Shape out = plan.shape;
    out.insert(out.end(), core_out.begin(), core_out.end());
    if (const ArrayView* given = outputs.size() > static_cast<size_t>(o) ? outputs[static_cast<size_t>(o)] : nullptr) {
      const int nc = static_cast<int>(core_out.size());
      if (given->ndim() < nc) {
        throw ValueError(name_ + ": Output operand " + std::to_string(o) +
                         " does not have enough dimensions (has " + std::to_string(given->ndim()) +
                         ", gufunc core with signature " + sig.text + " requires " +
                         std::to_string(nc) + ")");
      }
      for (int c = 0; c < nc; ++c) {
        const int64_t g = given->shape[static_cast<size_t>(given->ndim() - nc + c)];
        if (g != core_out[static_cast<size_t>(c)]) {
          throw ValueError(name_ + ": Output operand " + std::to_string(o) +
                           " has a mismatch in its core dimension " + std::to_string(c) +
                           ", with gufunc signature " + sig.text + " (size " + std::to_string(g) +
                           " is different from " + std::to_string(core_out[static_cast<size_t>(c)]) + ")");
        }
      }
      if (given->shape != out) {
        throw ValueError("non-broadcastable output operand with shape " +
                         internal::ShapeString(given->shape) +
                         " doesn't match the broadcast shape " + internal::ShapeString(out));
      }
    }
    plan.out_shapes.push_back(std::move(out));
  }
  plan.core_sizes = std::move(size);
  return plan;
}

void Ufunc::ExecuteGufunc(const CallPlan& plan, std::span<const ArrayView> inputs,
                          std::span<const ArrayView> outputs) const {
  const Loop& loop = *plan.loop;
  // Inputs in the loop's types (cast copies), outputs written directly
  // unless they need a cast or overlap an input.
  std::vector<Array> temps;
  std::vector<ArrayView> ops;
  for (int i = 0; i < nin_; ++i) {
    const ArrayView& v = inputs[static_cast<size_t>(i)];
    if (v.dtype == loop.types[static_cast<size_t>(i)]) {
      ops.push_back(v);
      continue;
    }
    temps.emplace_back(loop.types[static_cast<size_t>(i)], v.shape);
    CopyInto(temps.back().view(), v);
    ops.push_back(temps.back().view());
  }
  std::vector<std::pair<size_t, Array>> out_temps;
  for (int o = 0; o < nout_; ++o) {
    const ArrayView& v = outputs[static_cast<size_t>(o)];
    const DType t = loop.types[static_cast<size_t>(nin_ + o)];
    bool overlap = false;
    for (int i = 0; i < nin_; ++i) overlap = overlap || MayShareMemory(v, ops[static_cast<size_t>(i)]);
    if (v.dtype == t && !overlap) {
      ops.push_back(v);
      continue;
    }
    out_temps.emplace_back(static_cast<size_t>(o), Array(t, v.shape));
    ops.push_back(out_temps.back().second.view());
  }
  // Loop views (core dims removed) and core strides (0 where missing).
  std::vector<ArrayView> loop_views;
  std::vector<int64_t> core_steps;
  for (int k = 0; k < nargs(); ++k) {
    const ArrayView& v = ops[static_cast<size_t>(k)];
    const auto& miss = plan.missing[static_cast<size_t>(k)];
    const int present = static_cast<int>(std::count(miss.begin(), miss.end(), false));
    ArrayView lv = v;
    lv.shape.resize(static_cast<size_t>(v.ndim() - present));
    lv.strides.resize(static_cast<size_t>(v.ndim() - present));
    loop_views.push_back(lv);
    int axis = v.ndim() - present;
    for (size_t c = 0; c < miss.size(); ++c) {
      core_steps.push_back(miss[c] ? 0 : v.strides[static_cast<size_t>(axis++)]);
    }
  }
  std::vector<int64_t> dims(1 + plan.core_sizes.size());
  std::copy(plan.core_sizes.begin(), plan.core_sizes.end(), dims.begin() + 1);
  int64_t out_size = 1;
  for (const Shape& s : plan.out_shapes) out_size = std::max(out_size, ShapeSize(s));
  const internal::StridedIteration it(loop_views, plan.shape);
  std::vector<int64_t> steps(static_cast<size_t>(nargs()) + core_steps.size());
  std::copy(core_steps.begin(), core_steps.end(), steps.begin() + nargs());
  const LoopContext ctx{name_.c_str()};
  if (ShapeSize(plan.shape) > 0 && out_size > 0) {
    it.ForEachInner([&](char* const* p, int64_t n, const int64_t* s) {
      std::copy(s, s + nargs(), steps.begin());
      dims[0] = n;
      const int status = loop.slots.strided(ctx, p, dims.data(), steps.data(), nullptr);
      if (status != 0) throw ValueError(name_ + ": loop failed with status " + std::to_string(status));
    });
  }
  for (auto& [o, tmp] : out_temps) CopyInto(outputs[o], tmp.view());
}

}  // namespace ufuncx
