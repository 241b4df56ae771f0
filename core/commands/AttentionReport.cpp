// The "attention" line and object shared by lint, loss and snapshot.
#include "core/commands/AttentionReport.h"

namespace maskscope {

AttentionReport attentionReport(const Batch& batch, const std::string& name) {
  AttentionReport r;
  r.choice = chooseAttnImplementation(batch, name);
  r.mask = effectiveAttention(batch, r.choice.implementation);
  return r;
}

nlohmann::json attentionJson(const AttentionReport& r) {
  return {{"implementation", attnImplementationName(r.choice.implementation)},
          {"assumed", r.choice.assumed},
          {"assumed_from", r.choice.assumed ? nlohmann::json(r.choice.why) : nlohmann::json()},
          {"rule", r.mask.rule}};
}

std::string attentionText(const AttentionReport& r) {
  return std::string("attention: ") + attnImplementationName(r.choice.implementation) +
         (r.choice.assumed ? " (assumed: " + r.choice.why + ")" : " (--attn-implementation)") +
         "\n  rule: " + r.mask.rule + "\n";
}

} // namespace maskscope
