// One decode step of a Llama model at one row, for the lean forward's int8/int4 layers.
//
// At one row a decode step is about 600 small tensor operations around 120 matrix products;
// from Python each costs more in dispatch than in arithmetic. This file runs the decoder
// layers of one step in C++: the matrix products stay torch's own int4/int8 kernels, and
// what lies between them (RMS norms, rotary embedding, the key/value write, attention over
// the cached positions, SiLU, residual adds) is plain loops over a few hundred floats.
// The arithmetic is the lean forward's (api/engine/lean.py): float32 residual stream and
// attention, bfloat16 into and out of each quantized product.
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <cmath>
#include <cstdint>
#include <cstring>
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

}  // namespace

// Runs every decoder layer for one new token; returns the residual stream after the last.
// h: [1, hidden] float32. cos, sin: [head_dim] float32, sin's first half negated (so that
// rotate_half(x) * sin == roll(x, half) * sin). kbufs/vbufs: per layer [1, kv_heads, capacity,
// head_dim] float32 buffers whose first `past` positions are filled; position `past` is
// written here. projs: per layer qkv, o, gate_up, down (qweight, scales, group each).
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
    TORCH_CHECK(kb.is_contiguous() && vb.is_contiguous() && kb.scalar_type() == at::kFloat &&
                vb.scalar_type() == at::kFloat && kb.dim() == 4 && kb.size(0) == 1 &&
                kb.size(1) == kv_heads && kb.size(3) == head_dim && kb.size(2) > past &&
                vb.sizes() == kb.sizes(), "key/value buffers: contiguous [1, kv_heads, > past, head_dim] float32");
    const int64_t cap = kb.size(2);
    float* kp = kb.data_ptr<float>();
    float* vp = vb.data_ptr<float>();
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
      float* dst = hd < heads ? q.data() + hd * head_dim
                              : kp + ((hd - heads) * cap + past) * head_dim;
      std::copy(rotated.begin(), rotated.end(), dst);
    }
    for (int64_t g = 0; g < kv_heads; ++g) {
      const BFloat16* src = yp + (heads + kv_heads + g) * head_dim;
      float* dst = vp + (g * cap + past) * head_dim;
      for (int64_t d = 0; d < head_dim; ++d) dst[d] = float(src[d]);
    }

    // attention over positions 0..past, one query head at a time
    const int64_t grain = std::max<int64_t>(1, 16384 / (length * head_dim));
    at::parallel_for(0, heads, grain, [&](int64_t begin, int64_t end) {
      for (int64_t hq = begin; hq < end; ++hq) {
        const int64_t g = hq / per_kv;
        const float* qh = q.data() + hq * head_dim;
        const float* keys = kp + g * cap * head_dim;
        const float* values = vp + g * cap * head_dim;
        float* s = scores.data() + hq * length;
        float top = 0;
        for (int64_t j = 0; j < length; ++j) {
          const float* kj = keys + j * head_dim;
          float dot = 0;
          for (int64_t d = 0; d < head_dim; ++d) dot += qh[d] * kj[d];
          s[j] = dot * float(scaling);
          top = j == 0 ? s[j] : std::max(top, s[j]);
        }
        float total = 0;
        for (int64_t j = 0; j < length; ++j) {
          s[j] = std::exp(s[j] - top);
          total += s[j];
        }
        float* out = attn.data() + hq * head_dim;
        std::fill(out, out + head_dim, 0.0f);
        for (int64_t j = 0; j < length; ++j) {
          const float p = s[j] / total;
          const float* vj = values + j * head_dim;
          for (int64_t d = 0; d < head_dim; ++d) out[d] += p * vj[d];
        }
      }
    });
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

// bfloat16 <-> float32 as bits: plain integer operations, which the compiler vectorises
// (c10's conversions guard against NaN, which these scores never hold).
inline float bf16_bits_to_float(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t float_to_bf16_bits(float f) {  // round to nearest, ties to even
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return uint16_t((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

// exp(x) for x <= 0, as arithmetic the compiler vectorises (libm's exp is a call per value):
// 2^n times a degree-6 polynomial of the remainder, within 2 float32 rounding steps; below
// -87 (where float32 would go subnormal) the result is 0.
inline float exp_nonpositive(float x) {
  const float clamped = std::max(x, -87.0f);
  const float n = std::floor(clamped * 1.44269504f + 0.5f);  // x / ln 2, rounded
  const float r = (clamped - n * 0.693145751953125f) - n * 1.428606765330187e-06f;  // ln 2 in two parts
  float p = 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const uint32_t bits = uint32_t(int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return x < -87.0f ? 0.0f : p * scale;
}

// The softmax of a turn's prefill attention (api/engine/attention.py), in place. `scores`:
// [kv_heads, group * new, length] bfloat16, the first product of that attention: row r of a
// key/value head belongs to new position r % new, which sees positions 0 .. length - new +
// r % new. Each row becomes its probabilities over what it sees (the exponentials and their
// sum in float32, each probability rounded once to bfloat16, as torch's softmax does) and 0
// past it. This is the causal mask, torch's softmax and its output in one pass over each row,
// held in float32 in a buffer of its own, instead of four passes over the whole scores
// (masked fill, maximum, exponentials and sum, normalisation) and a second buffer.
void causal_softmax_(at::Tensor scores, int64_t new_) {
  TORCH_CHECK(scores.dim() == 3 && scores.scalar_type() == at::kBFloat16 && scores.is_contiguous(),
              "scores: contiguous [kv_heads, rows, length] bfloat16");
  const int64_t rows = scores.size(1), length = scores.size(2);
  TORCH_CHECK(new_ >= 1 && rows % new_ == 0 && new_ <= length,
              "rows must be a multiple of the new positions, which the length must hold");
  uint16_t* base = reinterpret_cast<uint16_t*>(scores.data_ptr<BFloat16>());
  const int64_t all = scores.size(0) * rows, past = length - new_;
  at::parallel_for(0, all, std::max<int64_t>(1, 32768 / length), [&](int64_t begin, int64_t end) {
    std::vector<float> row(length);
    for (int64_t r = begin; r < end; ++r) {
      uint16_t* s = base + r * length;
      const int64_t seen = past + (r % rows) % new_ + 1;
      float top = bf16_bits_to_float(s[0]);
      for (int64_t j = 0; j < seen; ++j) {
        row[j] = bf16_bits_to_float(s[j]);
        top = std::max(top, row[j]);
      }
      float total = 0;
      for (int64_t j = 0; j < seen; ++j) {
        row[j] = exp_nonpositive(row[j] - top);
        total += row[j];
      }
      const float inverse = 1.0f / total;
      for (int64_t j = 0; j < seen; ++j) s[j] = float_to_bf16_bits(row[j] * inverse);
      std::fill(s + seen, s + length, uint16_t(0));
    }
  });
}

// All three release the GIL while they run (their arguments are converted before): the server's
// other threads (HTTP, tokenizing) go on during a step, as they do during torch's own kernels.
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("decode_layers", &decode_layers, "every decoder layer of one decode step at one row",
        py::call_guard<py::gil_scoped_release>());
  m.def("logits_int8", &logits_int8, "final norm and int8 output layer of one row",
        py::call_guard<py::gil_scoped_release>());
  m.def("causal_softmax_", &causal_softmax_, "a turn's prefill attention softmax, in place",
        py::call_guard<py::gil_scoped_release>());
}
