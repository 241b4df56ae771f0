// `maskscope render`: reads messages (a JSON file, or one dataset row), renders them through the
// template and prints the text or {"text", "generation_spans"}. Template errors (raise_exception,
// undefined values, limits) are maskscope::Error, hence exit status 2 with the template's message.
#include "core/commands/RenderCommand.h"

#include "core/collate/TemplateVariables.h"
#include "core/data/DatasetReader.h"
#include "core/data/PreferenceRow.h"
#include "core/template/ChatTemplate.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"
#include "core/util/JsonString.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace maskscope {

namespace {

using ojson = nlohmann::ordered_json;

struct MessagesInput {
  ojson messages = ojson::array();
  ojson tools; // null when none
  ojson extra = ojson::object();
};

MessagesInput readMessagesFile(const std::string& path) {
  std::string text = readFileCapped(path, int64_t(256) << 20);
  ojson j = parseOrderedJsonOrThrow(text, {path});
  MessagesInput in;
  if (j.is_array()) {
    in.messages = std::move(j);
  } else if (j.is_object()) {
    auto m = j.find("messages");
    if (m == j.end() || !m->is_array()) {
      SourceLocation loc{path};
      loc.field = "messages";
      throw Error("expected a JSON list of messages or an object with a \"messages\" list", loc);
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "messages")
        in.messages = it.value();
      else if (it.key() == "tools")
        in.tools = it.value();
      else
        in.extra[it.key()] = it.value();
    }
  } else {
    throw Error("expected a JSON list of messages or an object with \"messages\"", SourceLocation{path});
  }
  for (size_t i = 0; i < in.messages.size(); ++i) {
    if (!in.messages[i].is_object()) {
      SourceLocation loc{path};
      loc.field = "messages[" + std::to_string(i) + "]";
      throw Error("each message must be a JSON object with role and content", loc);
    }
  }
  return in;
}

// --tools FILE: a JSON list of tool schemas (as transformers' tools=), or an object with "tools".
ojson readToolsFile(const std::string& path) {
  ojson j = parseOrderedJsonOrThrow(readFileCapped(path, int64_t(64) << 20), {path});
  if (j.is_object() && j.contains("tools")) j = j["tools"];
  if (!j.is_array())
    throw Error("expected a JSON list of tool schemas (or an object with \"tools\")", SourceLocation{path});
  return j;
}

MessagesInput fromConversation(const Conversation& c) {
  MessagesInput in;
  if (c.plainText) {
    // plain prompt/completion rows bypass the chat template in training; render them as one user turn
    in.messages.push_back({{"role", "user"}, {"content", c.plainPrompt + c.plainCompletion}});
    return in;
  }
  for (const auto& m : c.messages) {
    ojson o;
    o["role"] = m.role;
    o["content"] = m.content;
    if (m.extra.is_object())
      for (auto it = m.extra.begin(); it != m.extra.end(); ++it) o[it.key()] = ojson::parse(it.value().dump());
    in.messages.push_back(std::move(o));
  }
  if (!c.tools.is_null()) in.tools = ojson::parse(c.tools.dump());
  if (c.extraVariables.is_object())
    for (auto it = c.extraVariables.begin(); it != c.extraVariables.end(); ++it)
      in.extra[it.key()] = ojson::parse(it.value().dump());
  return in;
}

} // namespace

int runRender(const RenderArgs& args, CommandIO& io) {
  return runCommand(io, [&]() -> int {
    if (args.messagesFile.empty() == args.dataFile.empty())
      throw Error("render needs exactly one of --messages FILE or --data FILE --row N");
    MessagesInput input;
    if (!args.messagesFile.empty()) {
      input = readMessagesFile(args.messagesFile);
    } else {
      if (args.row < 0) throw Error("--data needs --row N (0-based)", SourceLocation{args.dataFile});
      refusePreferenceData(args.dataFile, "render");
      input = fromConversation(readDatasetRow(args.dataFile, args.row));
    }
    if (!args.toolsFile.empty()) input.tools = readToolsFile(args.toolsFile);
    std::shared_ptr<ChatTemplate> tmpl = loadChatTemplate(args.templateSpec, args.tokenizerSpec);
    RenderOptions options;
    options.addGenerationPrompt = args.addGenerationPrompt;
    options.now = args.now;
    options.computeMessageSpans = false;
    for (const auto& [k, v] : args.vars) options.variables[k] = v;
    // The variables collate and lint render with (core/collate/TemplateVariables.h): --var, the
    // template's defaults, then the tokenizer's special tokens.
    const std::shared_ptr<const Tokenizer> tokenizer =
        args.tokenizerSpec.empty() ? nullptr : loadTokenizer(args.tokenizerSpec);
    options = templateVariables(options, tmpl.get(), tokenizer.get());
    RenderResult result;
    if (auto* jt = dynamic_cast<JinjaChatTemplate*>(tmpl.get())) {
      result = jt->renderJson(input.messages, options, input.tools, input.extra);
    } else {
      std::vector<Message> msgs;
      for (const auto& m : input.messages)
        msgs.push_back({m.value("role", std::string()), m.value("content", std::string()), nullptr});
      result = tmpl->render(msgs, options);
    }
    if (io.json) {
      ojson out;
      out["text"] = result.text;
      if (result.generationSpans) {
        out["generation_spans"] = ojson::array();
        for (const auto& s : *result.generationSpans) out["generation_spans"].push_back({s.begin, s.end});
      } else {
        out["generation_spans"] = nullptr;
      }
      io.out << escapeLineSeparators(out.dump(-1, ' ', false, ojson::error_handler_t::replace)) << "\n";
    } else {
      io.out << result.text; // exactly the rendered text, no newline added
    }
    return 0;
  });
}

} // namespace maskscope
