// The entry points of maskscope's parsers of untrusted input, one function per fuzz target.
// Shared by the libFuzzer harnesses (tests/fuzz) and the corpus replay test (tests/fuzz_regressions),
// so a crasher found by fuzzing is replayed through exactly the same code in the normal suite.
#pragma once
#include "core/batchio/BatchJson.h"
#include "core/batchio/BatchLoader.h"
#include "core/batchio/SafetensorsReader.h"
#include "core/collate/CollatorSpec.h"
#include "core/collate/DatasetPipeline.h"
#include "core/data/DatasetReader.h"
#include "core/lint/Lint.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/tokenizer/hf/HfTokenizer.h"
#include "core/tokenizer/hf/TokenizerJsonReader.h"
#include "core/util/Error.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>

namespace maskscope::fuzz {

// Parsers that only take a path get the input through a scratch file (tmpfs when there is one).
inline std::string scratchFile(const std::string& bytes, const std::string& ext) {
  static const std::string dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  std::string path = dir + "/maskscope-fuzz-" + std::to_string(::getpid()) + ext;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  return path;
}

// Runs fn; maskscope::Error and other std::exceptions are the expected way to refuse input.
template <class Fn> void expectNoCrash(Fn&& fn) {
  try {
    fn();
  } catch (const Error&) {
  } catch (const std::exception&) {
  }
}

// Dataset rows: JSONL or a top-level JSON list; every row converted to a Conversation and its
// messages (with their extra fields: tool_calls, nested content) rendered by the builtin chatml template.
inline void runDataset(const std::string& bytes) {
  static const std::shared_ptr<ChatTemplate> chatml = loadChatTemplate("builtin:chatml");
  const std::string path = scratchFile(bytes, ".jsonl");
  expectNoCrash([&] {
    DatasetReader reader(path);
    Conversation c;
    for (int i = 0; i < 10000 && reader.next(c); ++i) {
      if (c.plainText) continue;
      RenderOptions options;
      options.now = "2024-07-26";
      expectNoCrash([&] { (void)chatml->render(c.messages, options); });
    }
    (void)reader.progress();
  });
}

// tokenizer.json parsed in memory and built into a tokenizer, then used on a short text.
inline void runTokenizerJson(const std::string& bytes) {
  expectNoCrash([&] {
    hf::TokenizerJson parsed = hf::readTokenizerJson(bytes, "fuzz/tokenizer.json");
    auto tok = std::make_shared<hf::HfTokenizer>("fuzz/tokenizer.json", parsed.json, nullptr, "", &parsed.model);
    Encoding e = tok->encode("Hello world <s> 12 é\n", EncodeOptions{true, false});
    (void)tok->decode(e.ids);
    for (int32_t id = -1; id < 8; ++id) {
      (void)tok->idToToken(id);
      (void)tok->displayText(id);
    }
  });
}

// Chat template source: parsed, then rendered over a fixed small conversation.
inline void runTemplate(const std::string& bytes) {
  expectNoCrash([&] {
    JinjaChatTemplate t("fuzz", bytes, {{"bos_token", "<s>"}, {"eos_token", "</s>"}});
    std::vector<Message> messages = {
        {"system", "Be brief.", nullptr}, {"user", "Hi {{ there }}", nullptr}, {"assistant", "Hello!", nullptr}};
    RenderOptions options;
    options.now = "2024-07-26";
    (void)t.render(messages, options);
    options.addGenerationPrompt = true;
    messages.pop_back();
    (void)t.render(messages, options);
  });
}

// Safetensors batch dump: parsed from memory, every integer tensor read, then loaded as a Batch.
inline void runSafetensors(const std::string& bytes) {
  expectNoCrash([&] {
    SafetensorsReader f = SafetensorsReader::fromBytes(bytes, "fuzz.safetensors");
    for (const auto& t : f.tensors())
      if (safetensorsDtypeIsInteger(t.dtype)) expectNoCrash([&] { (void)f.readIntegers(t.name, 1 << 20); });
  });
  const std::string path = scratchFile(bytes, ".safetensors");
  expectNoCrash([&] { (void)readSafetensorsBatch(path, true); });
  expectNoCrash([&] { (void)readSafetensorsBatch(path, false); });
}

// JSON batch dump: the first byte picks .json or .jsonl, the rest is the file.
inline void runBatchJson(const std::string& bytes) {
  if (bytes.empty()) return;
  const bool lines = (uint8_t(bytes[0]) & 1) != 0;
  const std::string path = scratchFile(bytes.substr(1), lines ? ".jsonl" : ".json");
  expectNoCrash([&] { (void)readJsonBatch(path, true); });
  expectNoCrash([&] { (void)readJsonBatch(path, false); });
}

// --collator specs. First byte odd: the rest is a collator JSON file; even: the rest is a spec string
// (preset names and key=value lists), skipped when it would name a file (arbitrary paths are not fuzzed).
inline void runCollatorSpec(const std::string& bytes) {
  if (bytes.empty()) return;
  std::string spec = bytes.substr(1);
  if (uint8_t(bytes[0]) & 1)
    spec = scratchFile(spec, ".json");
  else if (std::error_code ec; spec.ends_with(".json") || spec.find('/') != std::string::npos ||
                               spec.find('\0') != std::string::npos || std::filesystem::exists(spec, ec))
    return;
  expectNoCrash([&] {
    CollatorSpec s = parseCollatorSpec(spec);
    (void)s.describe();
    (void)s.toJson().dump();
  });
}

// Arbitrary bytes encoded (and decoded back) with the builtin SentencePiece and, when given, an HF tokenizer.
inline void runTokenizerEncode(const std::string& bytes, const Tokenizer& tok) {
  for (bool split : {false, true}) {
    expectNoCrash([&] {
      Encoding e = tok.encode(bytes, EncodeOptions{split, split});
      (void)tok.decode(e.ids, split);
    });
  }
}

// The tokenizers fuzz_tokenizer_encode feeds: the builtin SentencePiece demo and, when the fetched
// tokenizer cache (tools/fetch-tokenizers.sh) has it, llama3's tokenizer.json (byte-level BPE, regex
// pre-tokenizer, added tokens). Without the cache the HF half falls back to the demo tokenizer.
inline const Tokenizer& encodeTokenizer(bool huggingFace) {
  static const std::shared_ptr<Tokenizer> demo = loadTokenizer("builtin:demo");
  static const std::shared_ptr<Tokenizer> hfTok = []() -> std::shared_ptr<Tokenizer> {
    const std::string path = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/llama3/tokenizer.json";
    if (!std::filesystem::exists(path)) return nullptr;
    return loadTokenizer(path);
  }();
  return huggingFace && hfTok ? *hfTok : *demo;
}

// First byte: which tokenizer (odd: the HF one); the rest is the text.
inline void runTokenizerEncodeInput(const std::string& bytes) {
  if (bytes.empty()) return;
  runTokenizerEncode(bytes.substr(1), encodeTokenizer((uint8_t(bytes[0]) & 1) != 0));
}

// Dataset rows of every shape (messages, prompt/completion as strings or messages, text, ShareGPT,
// Alpaca; preference rows must be refused cleanly) through the whole pipeline: read, rendered with
// ChatML, tokenized by the demo tokenizer, collated. The first byte picks the collator (padding,
// completion-only labels, packing, padding-free), the rest is the JSONL file.
inline void runDatasetRows(const std::string& bytes) {
  if (bytes.empty()) return;
  static const char* const kCollators[] = {
      "default",          "trl-completion-only",      "axolotl-packed",       "hf-flattening",
      "buggy-pad-is-eos", "buggy-left-pad-positions", "buggy-last-turn-only", "naive-packed"};
  static std::vector<std::unique_ptr<DatasetPipeline>> pipelines = [] {
    std::vector<std::unique_ptr<DatasetPipeline>> all;
    for (const char* c : kCollators) {
      PipelineSpec spec;
      spec.templateSpec = "builtin:chatml";
      spec.collatorSpec = c;
      spec.render.now = "2024-07-26";
      all.push_back(std::make_unique<DatasetPipeline>(spec));
    }
    return all;
  }();
  const DatasetPipeline& pipeline = *pipelines[uint8_t(bytes[0]) % pipelines.size()];
  const std::string path = scratchFile(bytes.substr(1), ".jsonl");
  expectNoCrash([&] {
    DatasetReader reader(path);
    std::vector<TokenizedConversation> rows;
    Conversation c;
    for (int i = 0; i < 64 && reader.next(c); ++i) expectNoCrash([&] { rows.push_back(pipeline.encode(c)); });
    if (!rows.empty()) (void)pipeline.collate(rows);
  });
}

// A batch dump as every command loads it (loadBatchDump: the JSON wrappers, a 1-D list as one row,
// JSONL rows stacked, cu_seq_lens, the value checks, packed segments), then linted. The first byte:
// bit 0 picks .jsonl over .json, bit 1 a generation batch; the rest is the file.
inline void runBatchDump(const std::string& bytes) {
  if (bytes.empty()) return;
  const uint8_t mode = uint8_t(bytes[0]);
  const std::string path = scratchFile(bytes.substr(1), (mode & 1) ? ".jsonl" : ".json");
  for (bool strict : {true, false}) {
    expectNoCrash([&] {
      Batch b = loadBatchDump(path, strict);
      LintContext ctx;
      ctx.generation = (mode & 2) != 0;
      (void)lintBatch(b, ctx).toJson().dump();
    });
  }
}

} // namespace maskscope::fuzz
