// `maskscope loss --lessons` (LossLessons.h): the batch -> buildLessonsRequest -> the engine's
// ForwardModel::lessons -> JSON or a text report whose every figure is the engine's.
#include "core/commands/LossLessons.h"
#include "core/commands/AttentionReport.h"
#include "core/commands/CaptureInputs.h"
#include "core/data/PreferenceRow.h"
#include "core/forward/ModelSpec.h"
#include "core/table/GradedText.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace maskscope {
namespace {

// 1250432 -> "1,250,432"
std::string grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

nlohmann::json stepJson(const StepOutcome& s) {
  return {{"graded", s.graded},
          {"loss", s.loss},
          {"nonzero_gradients", s.nonZeroGradients},
          {"grad_norm", s.gradNorm},
          {"weights_moved", s.weightsMoved}};
}

void writeText(std::ostream& o, const MaskLessons& l, const Batch& batch, const Tokenizer* tok) {
  const GradientTally t = tallyGradients(l);
  o << "\nIgnored -> no loss -> no gradient -> no update\n";
  o << "  scored positions  " << l.positions.size() << ": " << t.graded << " graded, " << t.ignored << " ignored (";
  bool first = true;
  for (int k = 0; k < kRoleCount; ++k) {
    if (t.ignoredByRole[k] == 0) continue;
    o << (first ? "" : ", ") << t.ignoredByRole[k] << " " << positionRoleName(PositionRole(k));
    first = false;
  }
  o << ")\n  gradient each position's loss term sends into the " << grouped(l.weights) << " weights:\n";
  o << "    each ignored position: " << (t.ignoredNonZero == 0 && t.maxIgnoredNorm == 0.0 ? "exactly 0" : "NOT 0")
    << " (largest norm " << formatNumber(t.maxIgnoredNorm, "%g") << ", " << t.ignoredNonZero
    << " with a non-zero entry)\n";
  o << "    each graded position: norm " << formatNumber(t.minGradedNorm, "%.6g") << " to "
    << formatNumber(t.maxGradedNorm, "%.6g")
    << " (the whole loss's gradient: " << formatNumber(l.fullGradientNorm, "%.6g") << ")\n";
  o << "  one AdamW step from the same weights (learning rate " << formatNumber(l.learningRate, "%g")
    << ", weight decay 0):\n";
  o << "    every label -100: " << grouped(l.allIgnored.weightsMoved) << " of " << grouped(l.weights)
    << " weights moved (" << grouped(l.allIgnored.nonZeroGradients) << " non-zero gradient entries)\n";
  o << "    labels as given:  " << grouped(l.asGiven.weightsMoved) << " of " << grouped(l.weights)
    << " weights moved (gradient norm " << formatNumber(l.asGiven.gradNorm, "%.6g") << ")\n";
  o << "    weight decay " << formatNumber(l.weightDecay, "%g")
    << " alone, every label -100: " << grouped(l.movedByDecayAlone)
    << " weights shrink (AdamW's decay is not the loss)\n";
  if (l.probed) {
    o << "\nMasked tokens are still read\n";
    o << "  row " << l.probe.row << ", position " << l.probe.position
      << " (label -100): " << jsonString(lessonTokenText(l.probeTokenBefore, tok)) << " -> "
      << jsonString(lessonTokenText(l.probe.token, tok)) << "\n  the loss of that row's graded tokens ("
      << quotedGradedText(gradedTextOfRow(batch, l.probe.row, tok)) << ", " << l.rowGraded
      << " graded): " << formatNumber(l.rowLossBefore, "%.6f") << " -> " << formatNumber(l.rowLossAfter, "%.6f")
      << "\n";
  }
  if (l.flipCompared) {
    o << "\nMasking is free\n";
    o << "  labels flipped (graded <-> -100): " << l.asGiven.graded << " graded -> " << l.gradedFlipped << ", loss "
      << formatNumber(l.lossBefore, "%.6f") << " -> " << formatNumber(l.lossFlipped, "%.6f") << "\n";
    o << "  the forward pass is the same: max |logit change| " << formatNumber(l.maxLogitChangeFlip, "%g") << "\n";
  }
}

} // namespace

std::string lessonTokenText(int64_t id, const Tokenizer* tokenizer) {
  if (tokenizer && id >= 0 && id < tokenizer->vocabSize()) return tokenizer->displayText(int32_t(id));
  return "#" + std::to_string(id);
}

nlohmann::json lessonsJson(const MaskLessons& l, const Tokenizer* tokenizer) {
  using nlohmann::json;
  const GradientTally t = tallyGradients(l);
  json byRole = json::object();
  for (int k = 0; k < kRoleCount; ++k) byRole[positionRoleName(PositionRole(k))] = t.ignoredByRole[k];
  json positions = json::array();
  for (const PositionGradient& p : l.positions)
    positions.push_back({{"row", p.row},
                         {"position", p.position},
                         {"role", positionRoleName(PositionRole(p.role))},
                         {"graded", p.graded},
                         {"norm", p.norm},
                         {"nonzero", p.nonZero}});
  json j;
  j["device"] = l.device;
  j["weights"] = l.weights;
  j["gradients"] = {{"graded", t.graded},
                    {"ignored", t.ignored},
                    {"ignored_by_role", byRole},
                    {"ignored_nonzero", t.ignoredNonZero},
                    {"ignored_max_norm", t.maxIgnoredNorm},
                    {"graded_min_norm", t.minGradedNorm},
                    {"graded_max_norm", t.maxGradedNorm},
                    {"full_norm", l.fullGradientNorm},
                    {"positions", positions}};
  j["step"] = {{"learning_rate", l.learningRate},
               {"weight_decay", 0.0},
               {"all_ignored", stepJson(l.allIgnored)},
               {"as_given", stepJson(l.asGiven)},
               {"weight_decay_only", {{"weight_decay", l.weightDecay}, {"weights_moved", l.movedByDecayAlone}}}};
  if (l.probed)
    j["still_read"] = {{"row", l.probe.row},
                       {"position", l.probe.position},
                       {"token_before", l.probeTokenBefore},
                       {"token_after", l.probe.token},
                       {"text_before", lessonTokenText(l.probeTokenBefore, tokenizer)},
                       {"text_after", lessonTokenText(l.probe.token, tokenizer)},
                       {"row_graded", l.rowGraded},
                       {"row_loss_before", l.rowLossBefore},
                       {"row_loss_after", l.rowLossAfter},
                       {"loss_before", l.lossBefore},
                       {"loss_after", l.lossAfter}};
  else
    j["still_read"] = nullptr;
  if (l.flipCompared)
    j["label_flip"] = {{"graded_as_given", l.asGiven.graded},
                       {"graded_flipped", l.gradedFlipped},
                       {"loss_as_given", l.lossBefore},
                       {"loss_flipped", l.lossFlipped},
                       {"max_logit_change", l.maxLogitChangeFlip}};
  else
    j["label_flip"] = nullptr;
  j["holds"] = lessonsHold(l);
  j["notes"] = l.notes;
  return j;
}

int runLossLessons(const LossArgs& args, CommandIO& io) {
  if (args.modelSpec.empty()) throw Error("loss needs --model (a model folder or builtin:tiny)", {"--model"});
  if (!args.gradients)
    throw Error("--no-gradients does not go with --lessons: the lessons are gradients", {"--lessons"});
  if (args.inputs.batchFile.empty()) refusePreferenceData(args.inputs.dataSpec, "loss");
  std::vector<std::string> notes;
  BatchInputs inputs = args.inputs;
  CaptureChoice choice;
  const std::optional<CaptureManifest> capture = applyCaptureInputs(inputs, &choice);
  std::shared_ptr<const Tokenizer> tokenizer;
  const Batch batch = buildBatch(inputs, nullptr, &tokenizer, &notes);
  // The as-given mask the chosen attention implementation applies, as `loss` runs it.
  const AttentionReport attention = attentionReport(batch, args.attnImplementation);
  const IntGrid effective = attention.mask.segmentIdMask();
  auto model = loadForwardModel(args.modelSpec, args.device);
  const LessonsRequest request = buildLessonsRequest(batch, model->info().vocabSize, &notes, &effective);
  MaskLessons lessons;
  try {
    lessons = model->lessons(request, {});
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(e.what(), {batch.origin.empty() ? args.modelSpec : batch.origin});
  }
  lessons.notes.insert(lessons.notes.begin(), notes.begin(), notes.end());
  const bool holds = lessonsHold(lessons);
  if (io.json) {
    nlohmann::json j = lessonsJson(lessons, tokenizer.get());
    if (lessons.probed) j["still_read"]["graded_text"] = gradedTextOfRow(batch, lessons.probe.row, tokenizer.get());
    j["attention"] = attentionJson(attention);
    if (capture) j["capture"] = captureJson(*capture, choice);
    io.out << escapeLineSeparators(j.dump()) << "\n";
    return holds ? 0 : 1;
  }
  const ModelInfo& info = model->info();
  if (capture) io.out << captureText(*capture, choice);
  io.out << "model   " << args.modelSpec << " (" << info.architecture << ", " << info.layers << " layers, "
         << grouped(lessons.weights) << " weights) on " << lessons.device << "\n";
  io.out << "batch   " << batch.batchSize() << " x " << batch.length()
         << (batch.origin.empty() ? "" : ", " + batch.origin) << "\n";
  writeText(io.out, lessons, batch, tokenizer.get());
  for (const std::string& n : lessons.notes) io.err << "note: " << n << "\n";
  io.out << "\n" << (holds ? "every lesson holds" : "a lesson does NOT hold: see above") << "\n";
  return holds ? 0 : 1;
}

} // namespace maskscope
