// `maskscope loss` (see LossCommand.h): batch -> LossRequest (core/forward/LossPlan) -> the engine ->
// JSON or a short table.
#include "core/commands/LossCommand.h"
#include "core/commands/AttentionReport.h"
#include "core/commands/CaptureInputs.h"
#include "core/commands/LossLessons.h"
#include "core/data/PreferenceRow.h"
#include "core/forward/LayerAttention.h"
#include "core/forward/LossPlan.h"
#include "core/forward/ModelSpec.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace maskscope {
namespace {

const char* roleName(int r) { return positionRoleName(PositionRole(r)); }

std::optional<double> variant(const LossReport& r, const std::string& name) {
  for (const auto& [n, v] : r.variantLoss)
    if (n == name) return v;
  return std::nullopt;
}

bool differs(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) != std::isnan(b);
  return std::abs(a - b) > 1e-4 * std::max(1.0, std::abs(b));
}

} // namespace

nlohmann::json lossReportJson(const LossReport& r, const ModelInfo& info) {
  using nlohmann::json;
  json j;
  j["device"] = r.device;
  json loss = json::object();
  loss["as_given"] = r.asGiven; // NaN (nothing graded) becomes null
  for (const auto& [n, v] : r.variantLoss) loss[n] = v;
  j["loss"] = loss;
  j["graded_count"] = r.gradedCount;
  json graded = json::object();
  graded["as_given"] = r.gradedCount;
  for (const auto& [n, c] : r.variantGraded) graded[n] = c;
  j["graded_counts"] = graded;
  j["per_token_nll"] = r.perTokenNll; // [b][t] = NLL of input_ids[b][t+1] at t; last position 0
  double lossSum = 0;
  for (const RoleTally& t : r.roles) lossSum += t.lossSum;
  json positions = json::object(), lossShare = json::object(), counts = json::object();
  for (int k = 0; k < kRoleCount; ++k) {
    counts[roleName(k)] = r.roles[k].graded;
    positions[roleName(k)] = r.gradedCount > 0 ? double(r.roles[k].graded) / double(r.gradedCount) : 0.0;
    lossShare[roleName(k)] = lossSum > 0 ? r.roles[k].lossSum / lossSum : 0.0;
  }
  j["graded_by_role"] = counts;
  j["shares"] = {{"graded_positions", positions}, {"loss", lossShare}};
  if (r.gradientsComputed) {
    double total = r.gradNormPad + r.gradNormReal;
    j["gradient_norms"] = {
        {"pad", r.gradNormPad}, {"real", r.gradNormReal}, {"pad_share", total > 0 ? r.gradNormPad / total : 0.0}};
  } else {
    j["gradient_norms"] = nullptr;
  }
  j["max_logit_change_real_positions"] = r.logitsCompared ? json(r.maxLogitChangeReal) : json(nullptr);
  j["model"] = {{"architecture", info.architecture},  {"layers", info.layers},
                {"hidden_size", info.hiddenSize},     {"heads", info.heads},
                {"kv_heads", info.kvHeads},           {"vocab_size", info.vocabSize},
                {"parameters", info.parameterCount},  {"weight_dtype", info.weightDtype},
                {"compute_dtype", info.computeDtype}, {"rope_scaling", info.ropeScaling}};
  // Soft-capping: null when the model has none (Gemma 2 caps both).
  auto cap = [](double v) { return v > 0 ? json(v) : json(nullptr); };
  j["model"]["attn_logit_softcap"] = cap(info.attnLogitSoftcap);
  j["model"]["final_logit_softcap"] = cap(info.finalLogitSoftcap);
  json layers = json::array();
  for (int l = 0; l < int(info.layerAttention.size()); ++l) {
    const int64_t w = layerWindow(info, l);
    layers.push_back({{"layer", l},
                      {"kind", w > 0 ? "sliding" : "full"},
                      {"window", w > 0 ? json(w) : json(nullptr)},
                      {"rope_theta", info.layerAttention[size_t(l)].ropeTheta},
                      {"softcap", cap(info.attnLogitSoftcap)}});
  }
  j["model"]["layer_attention"] = layers;
  j["notes"] = r.notes;
  return j;
}

bool lossReportFindsProblems(const LossReport& r) {
  if (auto fixed = variant(r, "fixed"); fixed && differs(r.asGiven, *fixed)) return true;
  if (auto block = variant(r, "block_diagonal"); block && differs(r.asGiven, *block)) return true;
  return r.logitsCompared && r.maxLogitChangeReal > 1e-3;
}

std::string lossVerdict(const LossReport& r, bool problems) {
  if (problems) return "the masks change the result: see `maskscope lint`";
  double lossSum = 0;
  for (const RoleTally& t : r.roles) lossSum += t.lossSum;
  const RoleTally& prompt = r.roles[RolePrompt];
  if (prompt.graded == 0) return "the masks do not change the result";
  // Fixing pads and attention changes nothing, yet the prompt is trained on: not a clean bill.
  return "the pad and attention fixes do not change the result, but " + std::to_string(prompt.graded) +
         " prompt positions are graded: " + formatNumber(lossSum > 0 ? 100.0 * prompt.lossSum / lossSum : 0.0, "%.1f") +
         "% of the loss teaches the model to predict the prompt (see `maskscope lint`)";
}

int runLoss(const LossArgs& args, CommandIO& io) {
  if (args.lessons) return runLossLessons(args, io);
  if (args.modelSpec.empty()) throw Error("loss needs --model (a model folder or builtin:tiny)", {"--model"});
  if (args.inputs.batchFile.empty()) refusePreferenceData(args.inputs.dataSpec, "loss");
  std::vector<std::string> notes;
  // --batch CAPTURE_DIR (its first batch) or a batch file of one: the manifest's tokenizer, template, pad id.
  BatchInputs inputs = args.inputs;
  CaptureChoice choice;
  const std::optional<CaptureManifest> capture = applyCaptureInputs(inputs, &choice);
  Batch batch = buildBatch(inputs, nullptr, nullptr, &notes);
  // The as-given run applies the mask the chosen implementation would apply (core/mask/EffectiveAttention.h).
  const AttentionReport attention = attentionReport(batch, args.attnImplementation);
  const IntGrid effective = attention.mask.segmentIdMask();
  LossRequest request = buildLossRequest(batch, args.gradients, &notes, &effective);
  auto model = loadForwardModel(args.modelSpec, args.device);
  LossReport report;
  try {
    report = model->analyse(request, {});
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(e.what(), {batch.origin.empty() ? args.modelSpec : batch.origin});
  }
  report.notes.insert(report.notes.begin(), notes.begin(), notes.end());
  const ModelInfo& info = model->info();
  for (const std::string& n : info.notes) report.notes.push_back(n);
  const bool problems = lossReportFindsProblems(report);

  if (io.json) {
    nlohmann::json j = lossReportJson(report, info);
    j["attention"] = attentionJson(attention);
    if (capture) j["capture"] = captureJson(*capture, choice);
    io.out << escapeLineSeparators(j.dump()) << "\n";
    return problems ? 1 : 0;
  }
  std::ostream& o = io.out;
  if (capture) o << captureText(*capture, choice);
  o << "model   " << args.modelSpec << " (" << info.architecture << ", " << info.layers << " layers, "
    << formatNumber(double(info.parameterCount) / 1e6, "%.2f") << "M parameters) on " << report.device << "\n";
  o << "layers  " << layerAttentionSummary(info) << "\n";
  o << "batch   " << batch.batchSize() << " x " << batch.length() << (batch.origin.empty() ? "" : ", " + batch.origin)
    << "\n";
  o << attentionText(attention) << "\n";
  char line[160];
  std::snprintf(line, sizeof line, "  %-22s %10s %8s\n", "loss", "value", "graded");
  o << line;
  std::snprintf(line, sizeof line, "  %-22s %10s %8lld\n", "as given", formatNumber(report.asGiven).c_str(),
                (long long)report.gradedCount);
  o << line;
  for (size_t i = 0; i < report.variantLoss.size(); ++i) {
    std::string name = report.variantLoss[i].first;
    for (char& c : name)
      if (c == '_') c = ' ';
    std::snprintf(line, sizeof line, "  %-22s %10s %8lld\n", name.c_str(),
                  formatNumber(report.variantLoss[i].second).c_str(), (long long)report.variantGraded[i].second);
    o << line;
  }
  double lossSum = 0;
  for (const RoleTally& t : report.roles) lossSum += t.lossSum;
  o << "\n  graded positions (share of loss):";
  for (int k = 0; k < kRoleCount; ++k) {
    if (report.roles[k].graded == 0 && k == RoleUnknown) continue;
    o << "  " << roleName(k) << " " << report.roles[k].graded << " ("
      << formatNumber(lossSum > 0 ? 100.0 * report.roles[k].lossSum / lossSum : 0.0, "%.1f") << "%)";
  }
  o << "\n";
  if (report.gradientsComputed) {
    double total = report.gradNormPad + report.gradNormReal;
    o << "  gradient norm: pad " << formatNumber(report.gradNormPad) << ", real " << formatNumber(report.gradNormReal)
      << " (pad share " << formatNumber(total > 0 ? 100.0 * report.gradNormPad / total : 0.0, "%.1f") << "%)\n";
  }
  if (report.logitsCompared)
    o << "  max |logit change| at real positions when attention is fixed: "
      << formatNumber(report.maxLogitChangeReal, "%.6f") << "\n";
  for (const std::string& n : report.notes) io.err << "note: " << n << "\n";
  o << "\n" << lossVerdict(report, problems) << "\n";
  return problems ? 1 : 0;
}

} // namespace maskscope
