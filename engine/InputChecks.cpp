// The input checks of the LibTorch module (InputChecks.h): caps and shapes before any tensor is made.
#include "engine/InputChecks.h"

#include <stdexcept>
#include <string>

namespace maskscope::engine {

void validateGrid(const IntGrid& g, const IntGrid& ids, const char* name, bool optional) {
  if (optional && g.empty()) return;
  if (!g.sameShape(ids) || g.values.size() != size_t(g.rows * g.cols))
    throw std::runtime_error(std::string(name) + " has shape [" + std::to_string(g.rows) + ", " +
                             std::to_string(g.cols) + "], input_ids [" + std::to_string(ids.rows) + ", " +
                             std::to_string(ids.cols) + "]");
}

void validateIds(const IntGrid& g, int64_t vocab, const char* name, bool allowIgnore) {
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t c = 0; c < g.cols; ++c) {
      int64_t v = g.at(r, c);
      if ((v < 0 || v >= vocab) && !(allowIgnore && v == kIgnoreIndex))
        throw std::runtime_error(std::string(name) + "[" + std::to_string(r) + "][" + std::to_string(c) +
                                 "] = " + std::to_string(v) + " is outside the model's vocabulary (0.." +
                                 std::to_string(vocab - 1) + (allowIgnore ? ", or -100)" : ")"));
    }
}

void validateInputs(const ForwardInputs& in, int64_t vocab) {
  const IntGrid& ids = in.inputIds;
  if (ids.rows <= 0 || ids.cols <= 0 || ids.values.size() != size_t(ids.rows * ids.cols))
    throw std::runtime_error("input_ids is empty or malformed");
  if (ids.cols > 32768) throw std::runtime_error("sequence length " + std::to_string(ids.cols) + " is over 32768");
  if (ids.rows * ids.cols > (int64_t(1) << 22)) throw std::runtime_error("the batch holds more than 4M tokens");
  validateGrid(in.attentionMask, ids, "attention_mask", true);
  validateGrid(in.positionIds, ids, "position_ids", true);
  validateGrid(in.labels, ids, "labels", true);
  validateIds(ids, vocab, "input_ids", false);
  if (!in.labels.empty()) validateIds(in.labels, vocab, "labels", true);
}

void validateLossRequest(const LossRequest& req, int64_t vocab) {
  const ForwardInputs& in = req.asGiven;
  validateInputs(in, vocab);
  if (in.labels.empty()) throw std::runtime_error("the loss needs labels");
  validateGrid(req.roles, in.inputIds, "roles", false);
  for (const LossVariant& v : req.variants) {
    validateGrid(v.attentionMask, in.inputIds, (v.name + ".attention_mask").c_str(), true);
    validateGrid(v.positionIds, in.inputIds, (v.name + ".position_ids").c_str(), true);
    validateGrid(v.labels, in.inputIds, (v.name + ".labels").c_str(), false);
    validateIds(v.labels, vocab, (v.name + ".labels").c_str(), true);
  }
}

} // namespace maskscope::engine
