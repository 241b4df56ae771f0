// `maskscope train-ab` (see TrainAbCommand.h): plans the two runs (core/train), trains them in the
// LibTorch module (ForwardEngine::trainAB), and prints the report as JSON or for a reader.
#include "core/commands/TrainAbCommand.h"
#include "core/forward/ForwardEngineLoader.h"
#include "core/train/TrainReport.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace maskscope {
namespace {

std::string fmt(double v, const char* f = "%.4f") {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void printHuman(const nlohmann::json& j, std::ostream& o) {
  o << "experiment " << j["experiment"].get<std::string>() << ": " << j["look_for"].get<std::string>() << "\n";
  o << "model " << j["model"].get<std::string>() << " (" << j["init"].get<std::string>() << " init) on "
    << j["device"].get<std::string>() << ", " << j["steps"].get<int64_t>() << " steps, "
    << j["train_conversations"].get<int64_t>() << " conversations trained on, "
    << j["held_out_conversations"].get<int64_t>() << " held out\n";
  if (const auto& h = j["held_out_before"]; h.is_object())
    o << "held-out loss before fine-tuning " << fmt(h["loss"].get<double>(), "%.3f") << " (uniform over "
      << j["vocab_size"].get<int64_t>() << " tokens: " << fmt(h["uniform_loss"].get<double>(), "%.3f") << ", "
      << fmt(h["fraction_of_uniform"].get<double>(), "%.2f") << " of it)\n";
  o << "\n";
  for (const auto& r : j["runs"]) {
    auto num = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : NAN; };
    o << "run " << r["run"].get<std::string>() << "  " << r["collator"].get<std::string>() << " ("
      << r["normalisation"].get<std::string>() << ")\n";
    o << "  final training loss " << fmt(num(r["final_train_loss"])) << ", held-out loss "
      << fmt(num(r["final_held_out_loss"])) << ", stop fraction " << fmt(num(r["stop_fraction"]), "%.2f") << "\n";
    o << "  exposure bias: " << r["exposure"]["text"].get<std::string>() << "\n";
    o << "  held-out curve:";
    for (size_t i = 0; i < r["held_out"]["step"].size(); ++i)
      o << " " << r["held_out"]["step"][i].get<int64_t>() << ":" << fmt(num(r["held_out"]["loss"][i]), "%.3f");
    o << "\n";
    for (const auto& g : r["generations"]) {
      std::string text = g["text"].get<std::string>();
      for (char& c : text)
        if (c == '\n') c = ' ';
      o << "  row " << g["row"].get<long>() << (g["stopped"].get<bool>() ? " [stopped] " : " [no stop] ") << text
        << "\n";
    }
    o << "\n";
  }
}

} // namespace

int runTrainAB(const TrainArgs& args, CommandIO& io) {
  TrainABPlan b = planTrainAB(args, io.err);
  auto engine = requireForwardEngine();
  TrainObserver obs;
  obs.heldOut = [&](int run, const HeldOutRecord& h) {
    io.err << "step " << h.step << "  run " << (run == 0 ? "A" : "B") << "  held-out loss " << fmt(h.loss) << "\n";
    io.err.flush();
  };
  TrainReport rep;
  try {
    rep = engine->trainAB(b.request, obs, {});
  } catch (const Error&) {
    throw;
  } catch (const std::exception& ex) {
    throw Error(ex.what(), {args.modelSpec});
  }
  const nlohmann::json j = trainReportJson(b, rep);
  if (io.json)
    io.out << escapeLineSeparators(j.dump()) << "\n";
  else
    printHuman(j, io.out);
  if (!io.json)
    for (const auto& n : j["notes"]) io.err << "note: " << n.get<std::string>() << "\n";
  return 0;
}

} // namespace maskscope
