// Reading a batch written by torch.save(dict) (.pt, the zip format) into plain integer grids.
#include "engine/TorchBatchFile.h"
#include "core/util/FileReading.h"

#include <torch/serialize.h>
#include <torch/torch.h>

#include <sstream>

namespace maskscope::engine {

std::map<std::string, TensorGrid> readTorchBatch(const std::string& path) {
  constexpr int64_t kCap = int64_t(1) << 30; // 1 GiB file, 256M values
  std::vector<char> bytes;
  {
    const std::string text = readFileCapped(path, kCap); // "file not found", "over the limit", ...
    bytes.assign(text.begin(), text.end());
  }
  c10::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": not a file written by torch.save: " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": not a file written by torch.save: " + e.what());
  }
  if (!value.isGenericDict())
    throw std::runtime_error(path + ": torch.save holds a " + value.tagKind() + ", expected a dict of tensors");
  std::map<std::string, TensorGrid> out;
  int64_t total = 0;
  for (const auto& item : value.toGenericDict()) {
    if (!item.key().isString()) throw std::runtime_error(path + ": a dict key is not a string");
    const std::string name = item.key().toStringRef();
    const c10::IValue& v = item.value();
    if (v.isInt()) { // scalars such as pad_token_id
      out[name] = TensorGrid{{}, {v.toInt()}, "int"};
      continue;
    }
    if (!v.isTensor()) {
      if (v.isNone()) continue;
      throw std::runtime_error(path + " (" + name + "): a " + v.tagKind() + ", expected a tensor");
    }
    at::Tensor t = v.toTensor().detach().to(at::kCPU);
    // A 4-D attention_mask [B, 1, T, T] (0/1 or bool, as sdpa_mask builds it) is read too.
    if (t.dim() > 3 && !(t.dim() == 4 && name == "attention_mask"))
      throw std::runtime_error(path + " (" + name + "): " + std::to_string(t.dim()) + " dimensions");
    total += t.numel();
    if (total > (int64_t(1) << 28)) throw std::runtime_error(path + ": more than 256M values");
    TensorGrid g;
    g.dtype = std::string(c10::toString(t.scalar_type()));
    g.shape.assign(t.sizes().begin(), t.sizes().end());
    if (at::isFloatingType(t.scalar_type())) {
      at::Tensor d = t.to(at::kDouble);
      if (!at::equal(d, d.round()) || !at::isfinite(d).all().item<bool>())
        throw std::runtime_error(path + " (" + name + "): floating-point tensor with non-integer values");
    } else if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/true)) {
      throw std::runtime_error(path + " (" + name + "): dtype " + g.dtype + " is not integer or bool");
    }
    at::Tensor l = t.to(at::kLong).contiguous();
    g.values.assign(l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
    out[name] = std::move(g);
  }
  return out;
}

} // namespace maskscope::engine
