// One decode step of a Llama model at one row, for the lean forward's int8/int4 layers.
//
// At one row a decode step is about 600 small tensor operations around 120 matrix products;
// from Python each costs more in dispatch than in arithmetic. This file runs the decoder
// layers of one step in C++: the matrix products stay torch's own int4/int8 kernels, and
// what lies between them (RMS norms, rotary embedding, the key/value write, attention over
// the cached positions, SiLU, residual adds) is plain loops over a few hundred floats.
// The arithmetic is the lean forward's (api/engine/lean.py): float32 residual stream and
// attention, bfloat16 into and out of each quantized product.
//
// It includes what it uses (ATen's tensor, its three operators, torch's pybind casters), not
// <torch/extension.h>, which pulls in all of libtorch's C++ API: the build takes 13 s here
// instead of 27.
#include <ATen/core/Tensor.h>
#include <ATen/ops/_weight_int4pack_mm_for_cpu.h>
#include <ATen/ops/_weight_int8pack_mm.h>
#include <ATen/ops/empty.h>
#include <ATen/Parallel.h>
#include <torch/csrc/utils/pybind.h>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using at::BFloat16;

struct Proj {
  at::Tensor qweight, scales;
  int64_t group;  // 0: int8 per channel; else int4 with this many inputs per scale
  at::Tensor operator()(const at::Tensor& x) const {  // [1, in] bf16 -> [1, out] bf16
    if (group == 0) return at::_weight_int8pack_mm(x, qweight, scales);
    return at::_weight_int4pack_mm_for_cpu(x, qweight, group, scales);
  }
};

// x * rsqrt(mean(x^2) + eps) * w, written as bfloat16 (what enters a quantized product)
void rms_norm_bf16(const float* x, const float* w, float eps, int64_t n, BFloat16* out) {
  double ss = 0;  // in double: a float sum of squares of large values would overflow
  for (int64_t i = 0; i < n; ++i) ss += double(x[i]) * x[i];
  const float r = float(1.0 / std::sqrt(ss / n + double(eps)));
  for (int64_t i = 0; i < n; ++i) out[i] = BFloat16((x[i] * r) * w[i]);
}

// Attention of one new position's query heads `q` over positions 0 .. length - 1 of a layer's
// key/value buffers `kp`/`vp` ([kv_heads, cap, head_dim] of T: float, or bfloat16 where the
// lean forward keeps its cache in bfloat16), into `attn`; `scores` holds heads x length floats.
// The products, the softmax and the sums are float32 either way.
template <typename T>
void attend(const float* q, const T* kp, const T* vp, int64_t cap, int64_t length,
            int64_t heads, int64_t per_kv, int64_t head_dim, float scaling, float* scores,
            float* attn) {
  const int64_t grain = std::max<int64_t>(1, 16384 / (length * head_dim));
  at::parallel_for(0, heads, grain, [&](int64_t begin, int64_t end) {
    for (int64_t hq = begin; hq < end; ++hq) {
      const int64_t g = hq / per_kv;
      const float* qh = q + hq * head_dim;
      const T* keys = kp + g * cap * head_dim;
      const T* values = vp + g * cap * head_dim;
      float* s = scores + hq * length;
      float top = 0;
      for (int64_t j = 0; j < length; ++j) {
        const T* kj = keys + j * head_dim;
        float dot = 0;
        for (int64_t d = 0; d < head_dim; ++d) dot += qh[d] * float(kj[d]);
        s[j] = dot * scaling;
        top = j == 0 ? s[j] : std::max(top, s[j]);
      }
      float total = 0;
      for (int64_t j = 0; j < length; ++j) {
        s[j] = std::exp(s[j] - top);
        total += s[j];
      }
      float* out = attn + hq * head_dim;
      std::fill(out, out + head_dim, 0.0f);
      for (int64_t j = 0; j < length; ++j) {
        const float p = s[j] / total;
        const T* vj = values + j * head_dim;
        for (int64_t d = 0; d < head_dim; ++d) out[d] += p * float(vj[d]);
      }
    }
  });
}

// Writes a key or value of head_dim floats into a buffer of T.
template <typename T>
void store(T* dst, const float* src, int64_t n) {
  for (int64_t d = 0; d < n; ++d) dst[d] = T(src[d]);
}

}  // namespace

// Runs every decoder layer for one new token; returns the residual stream after the last.
// h: [1, hidden] float32. cos, sin: [head_dim] float32, sin's first half negated (so that
// rotate_half(x) * sin == roll(x, half) * sin). kbufs/vbufs: per layer [1, kv_heads, capacity,
// head_dim] buffers, float32 or bfloat16 (all alike), whose first `past` positions are
// filled; position `past` is written here. projs: per layer qkv, o, gate_up, down (qweight,
// scales, group each).
// norms: per layer the two RMSNorm weights.
at::Tensor decode_layers(at::Tensor h, at::Tensor cos, at::Tensor sin,
                         std::vector<at::Tensor> norms, std::vector<at::Tensor> qweights,
                         std::vector<at::Tensor> scales, std::vector<int64_t> groups,
                         std::vector<at::Tensor> kbufs, std::vector<at::Tensor> vbufs,
                         int64_t past, int64_t heads, int64_t kv_heads, int64_t head_dim,
                         int64_t intermediate, double eps, double scaling) {
  const int64_t layers = int64_t(kbufs.size());
  TORCH_CHECK(h.dim() == 2 && h.size(0) == 1 && h.scalar_type() == at::kFloat && h.is_contiguous(),
              "h must be a contiguous [1, hidden] float32 tensor");
  TORCH_CHECK(int64_t(vbufs.size()) == layers && int64_t(norms.size()) == 2 * layers &&
              int64_t(qweights.size()) == 4 * layers && int64_t(scales.size()) == 4 * layers &&
              int64_t(groups.size()) == 4 * layers, "one set of weights and buffers per layer");
  TORCH_CHECK(cos.numel() == head_dim && sin.numel() == head_dim, "cos/sin of head_dim values");
  TORCH_CHECK(heads % kv_heads == 0 && head_dim % 2 == 0, "head counts");
  const int64_t hidden = h.size(1);
  const int64_t per_kv = heads / kv_heads, half = head_dim / 2, length = past + 1;
  for (const at::Tensor& w : norms)
    TORCH_CHECK(w.scalar_type() == at::kFloat && w.is_contiguous() && w.numel() == hidden,
                "norm weights: contiguous float32, one per hidden value");
  TORCH_CHECK(cos.scalar_type() == at::kFloat && sin.scalar_type() == at::kFloat &&
              cos.is_contiguous() && sin.is_contiguous(), "cos/sin: contiguous float32");
  h = h.clone();
  float* hp = h.data_ptr<float>();
  const float* cp = cos.data_ptr<float>();
  const float* sp = sin.data_ptr<float>();
  auto bf = at::TensorOptions().dtype(at::kBFloat16);
  at::Tensor x = at::empty({1, hidden}, bf);
  at::Tensor a = at::empty({1, heads * head_dim}, bf);
  at::Tensor act = at::empty({1, intermediate}, bf);
  std::vector<float> q(heads * head_dim), rotated(head_dim);
  std::vector<float> attn(heads * head_dim);
  std::vector<float> scores(heads * length);

  for (int64_t l = 0; l < layers; ++l) {
    const at::Tensor& kb = kbufs[l];
    const at::Tensor& vb = vbufs[l];
    const bool bf16 = kb.scalar_type() == at::kBFloat16;
    TORCH_CHECK(kb.is_contiguous() && vb.is_contiguous() &&
                (kb.scalar_type() == at::kFloat || bf16) &&
                vb.scalar_type() == kb.scalar_type() && kb.dim() == 4 && kb.size(0) == 1 &&
                kb.size(1) == kv_heads && kb.size(3) == head_dim && kb.size(2) > past &&
                vb.sizes() == kb.sizes(),
                "key/value buffers: contiguous [1, kv_heads, > past, head_dim] float32 or bfloat16");
    const int64_t cap = kb.size(2);
    void* kp = kb.data_ptr();
    void* vp = vb.data_ptr();
    Proj qkv{qweights[4 * l], scales[4 * l], groups[4 * l]};
    Proj o{qweights[4 * l + 1], scales[4 * l + 1], groups[4 * l + 1]};
    Proj gate_up{qweights[4 * l + 2], scales[4 * l + 2], groups[4 * l + 2]};
    Proj down{qweights[4 * l + 3], scales[4 * l + 3], groups[4 * l + 3]};

    // attention half: norm, q/k/v, rotary, cache write
    rms_norm_bf16(hp, norms[2 * l].data_ptr<float>(), float(eps), hidden, x.data_ptr<BFloat16>());
    at::Tensor y = qkv(x);
    TORCH_CHECK(y.numel() == (heads + 2 * kv_heads) * head_dim, "qkv output size");
    const BFloat16* yp = y.data_ptr<BFloat16>();
    for (int64_t hd = 0; hd < heads + kv_heads; ++hd) {
      const BFloat16* src = yp + hd * head_dim;
      for (int64_t d = 0; d < head_dim; ++d) {
        const float rolled = float(src[(d + half) % head_dim]);
        rotated[d] = float(src[d]) * cp[d] + rolled * sp[d];
      }
      if (hd < heads) {
        std::copy(rotated.begin(), rotated.end(), q.data() + hd * head_dim);
      } else {
        const int64_t off = ((hd - heads) * cap + past) * head_dim;
        if (bf16) store(static_cast<BFloat16*>(kp) + off, rotated.data(), head_dim);
        else store(static_cast<float*>(kp) + off, rotated.data(), head_dim);
      }
    }
    for (int64_t g = 0; g < kv_heads; ++g) {
      const BFloat16* src = yp + (heads + kv_heads + g) * head_dim;
      const int64_t off = (g * cap + past) * head_dim;
      for (int64_t d = 0; d < head_dim; ++d) rotated[d] = float(src[d]);
      if (bf16) store(static_cast<BFloat16*>(vp) + off, rotated.data(), head_dim);
      else store(static_cast<float*>(vp) + off, rotated.data(), head_dim);
    }

    // attention over positions 0..past, one query head at a time
    if (bf16)
      attend(q.data(), static_cast<const BFloat16*>(kp), static_cast<const BFloat16*>(vp), cap,
             length, heads, per_kv, head_dim, float(scaling), scores.data(), attn.data());
    else
      attend(q.data(), static_cast<const float*>(kp), static_cast<const float*>(vp), cap, length,
             heads, per_kv, head_dim, float(scaling), scores.data(), attn.data());
    BFloat16* ap = a.data_ptr<BFloat16>();
    for (int64_t i = 0; i < heads * head_dim; ++i) ap[i] = BFloat16(attn[i]);
    at::Tensor ao = o(a);
    TORCH_CHECK(ao.numel() == hidden, "attention output size");
    const BFloat16* aop = ao.data_ptr<BFloat16>();
    for (int64_t i = 0; i < hidden; ++i) hp[i] += float(aop[i]);

    // MLP half
    rms_norm_bf16(hp, norms[2 * l + 1].data_ptr<float>(), float(eps), hidden, x.data_ptr<BFloat16>());
    at::Tensor gu = gate_up(x);
    TORCH_CHECK(gu.numel() == 2 * intermediate, "gate/up output size");
    const BFloat16* gp = gu.data_ptr<BFloat16>();
    BFloat16* actp = act.data_ptr<BFloat16>();
    for (int64_t i = 0; i < intermediate; ++i) {
      const float gate = float(gp[i]);
      actp[i] = BFloat16(gate / (1.0f + std::exp(-gate)) * float(gp[intermediate + i]));
    }
    at::Tensor dn = down(act);
    TORCH_CHECK(dn.numel() == hidden, "MLP output size");
    const BFloat16* dp = dn.data_ptr<BFloat16>();
    for (int64_t i = 0; i < hidden; ++i) hp[i] += float(dp[i]);
  }
  return h;
}

// The logits of one row: the final RMS norm, then an int8 output layer (weights [vocab, hidden]
// with a scale per row). torch's int8 kernel reads these 28 MB at about 11 GB/s here; a plain
// loop per row, split over the threads, reads them faster. The input is rounded to bfloat16 as
// the int8 kernel's input is; the sums and the result stay float32.
at::Tensor logits_int8(at::Tensor h, at::Tensor norm, double eps, at::Tensor qweight,
                       at::Tensor scales) {
  TORCH_CHECK(h.dim() == 2 && h.size(0) == 1 && h.scalar_type() == at::kFloat && h.is_contiguous(),
              "h must be a contiguous [1, hidden] float32 tensor");
  const int64_t hidden = h.size(1), vocab = qweight.size(0);
  TORCH_CHECK(qweight.scalar_type() == at::kChar && qweight.is_contiguous() &&
              qweight.size(1) == hidden && scales.scalar_type() == at::kBFloat16 &&
              scales.is_contiguous() && scales.numel() == vocab && norm.numel() == hidden &&
              norm.scalar_type() == at::kFloat && norm.is_contiguous(), "int8 output layer shapes");
  std::vector<BFloat16> rounded(hidden);
  rms_norm_bf16(h.data_ptr<float>(), norm.data_ptr<float>(), float(eps), hidden, rounded.data());
  std::vector<float> x(rounded.begin(), rounded.end());
  at::Tensor out = at::empty({1, vocab}, h.options());
  float* op = out.data_ptr<float>();
  const int8_t* wp = qweight.data_ptr<int8_t>();
  const BFloat16* sp = scales.data_ptr<BFloat16>();
  at::parallel_for(0, vocab, 512, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const int8_t* w = wp + n * hidden;
      float acc = 0;
      for (int64_t k = 0; k < hidden; ++k) acc += float(w[k]) * x[k];
      op[n] = acc * float(sp[n]);
    }
  });
  return out;
}

// Both release the GIL while they run (their arguments are converted before): the server's
// other threads (HTTP, tokenizing) go on during a step, as they do during torch's own kernels.
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("decode_layers", &decode_layers, "every decoder layer of one decode step at one row",
        py::call_guard<py::gil_scoped_release>());
  m.def("logits_int8", &logits_int8, "final norm and int8 output layer of one row",
        py::call_guard<py::gil_scoped_release>());
}
