// `maskscope patch-template`: loads the template (and the tokenizer's special tokens), asks
// makeTrainingTemplate() for a verified training template and writes it; nothing is written on failure.
#include "core/commands/PatchTemplateCommand.h"

#include "core/template/ChatTemplate.h"
#include "core/template/TrainingTemplate.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

namespace maskscope {

int runTrainingTemplate(const TrainingTemplateArgs& args, CommandIO& io) {
  return runCommand(io, [&]() -> int {
    if (args.out.empty()) throw Error("patch-template needs --out FILE.jinja");
    std::shared_ptr<ChatTemplate> tmpl = loadChatTemplate(args.templateSpec, args.tokenizerSpec);
    std::vector<std::string> specials;
    if (!args.tokenizerSpec.empty()) specials = loadTokenizer(args.tokenizerSpec)->specialTokenStrings();
    TrainingTemplateResult r = makeTrainingTemplate(tmpl->source(), tmpl->defaultVariables(), specials);
    using ojson = nlohmann::ordered_json;
    if (!r.ok) {
      if (io.json) io.out << ojson{{"error", r.error}}.dump(-1, ' ', false, ojson::error_handler_t::replace) << "\n";
      throw Error("cannot patch " + tmpl->name() + ": " + r.error + " (nothing written)");
    }
    std::ofstream f(args.out, std::ios::binary);
    if (!f || !(f << r.source) || !f.flush()) throw Error("cannot write " + args.out);
    if (io.json) {
      ojson j{{"out", args.out},
              {"closing_token", r.closingToken},
              {"wrapped", r.wrapped},
              {"probes_checked", r.probesChecked}};
      io.out << escapeLineSeparators(j.dump(-1, ' ', false, ojson::error_handler_t::replace)) << "\n";
      return 0;
    }
    io.out << "wrote " << args.out << ": " << r.wrapped.size() << " output(s) wrapped in {% generation %} through "
           << r.closingToken << ", verified on " << r.probesChecked << " probe renders\n";
    for (const auto& w : r.wrapped) io.out << "  " << w << "\n";
    return 0;
  });
}

} // namespace maskscope
