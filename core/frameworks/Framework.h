// The frameworks interface: maskscope reproduces, byte for byte, the batch a user's own trainer
// builds (TRL, transformers, Axolotl, Unsloth, LLaMA-Factory, torchtune), version by version.
//
// How a framework plugs in (the interface the framework files under core/frameworks/<name>/ use):
//   1. A FrameworkDefinition: its FrameworkInfo (name, versions, collators, each collator's options
//      with their own names and defaults, all in the framework's own words) and `make`, which
//      returns the FrameworkImpl for a parsed spec's version and collator. Optionally readConfig,
//      which turns the framework's own config file (an Axolotl YAML, an SFTConfig JSON) into a spec
//      object. Add the definition to the list in FrameworkList.cpp (one line per framework).
//   2. A FrameworkImpl with two stages, as the framework runs them:
//        prepare(): dataset preparation, raw dataset rows (InputRow: the JSON object and its line)
//                   -> PreparedRow (the framework's column names, one list of ints per column);
//                   text rows go through our chat template engine and tokenizer (ChatTokenization.h),
//                   pre-tokenized rows are read with FrameworkRows.h (untrusted: validated there);
//        collate(): prepared rows -> FrameworkBatch, exactly the dict the collator returns (keys in
//                   its order, tensor shapes and dtypes as it returns them, plain ints, bools).
//      and toBatch(): the framework batch as maskscope's Batch (core/data/Batch.h: labels in the
//      Hugging Face convention, attention as 0/1 or segment ids, position ids, packed segments) so
//      that lint, loss, snapshot and the app judge the framework's batch. The default converts by
//      BatchConventions (key names; pre-shifted labels; cu_seq_lens; a block mask or a doc-index
//      mask as segments); override it for layouts it cannot express (e.g. TRL 0.18 preference).
//   3. Facts for lint and the text form go into FrameworkContext::facts (core/data/FrameworkFacts.h):
//      warnings the framework prints, rows it drops, markers never found, pad-masking by id, ...
//   Errors: throw maskscope::Error naming the file, line and key (exit 2). Options are validated
//   against the registry before make() runs, so an impl reads them with FrameworkSpec's getters.
//
// Spec JSON (`--collator SPEC.json` or an inline object): {"framework": NAME, "version": V,
// "collator": CLASS, "type": T (Axolotl), every other key one of that collator's options}. Unknown
// framework, version, collator or option: Error naming it and listing the known ones.
#pragma once
#include "core/data/Batch.h"
#include "core/data/FrameworkFacts.h"
#include "core/frameworks/FrameworkBatch.h"
#include "core/frameworks/FrameworkRows.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/frameworks/PreparedRows.h"
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

// Everything an implementation may read besides the spec, and where it writes what it learns.
struct FrameworkContext {
  const FrameworkSpec& spec;
  std::shared_ptr<const Tokenizer> tokenizer;       // null when --tokenizer was not given (pre-tokenized rows)
  std::shared_ptr<const ChatTemplate> chatTemplate; // null without a tokenizer; text rows need both
  RenderOptions render;                             // --var values, special-token variables
  FrameworkFacts& facts;                            // warnings, dropped rows, ... (filled by the impl)
  // lint and the app: keep going where the framework itself would stop (TRL's RuntimeError on a
  // template without {% generation %}), recording the fact instead of throwing.
  bool lenient = false;
  // Settings the preparation resolved for the collator (TRL: completion_only_loss from the raw rows).
  OrderedJson resolved = OrderedJson::object();

  // A special token id the framework takes from the tokenizer, unless the spec gives it
  // (`pad_token_id`, `eos_token_id` win over --tokenizer). nullopt when neither knows it.
  std::optional<int64_t> tokenId(const char* specKey, const char* which) const;
  // The pad id TRL's trainers fall back through: the spec's pad_token_id, else the tokenizer's pad
  // token, else its EOS (`pad_token or tokenizer.pad_token or tokenizer.eos_token`). Error when none.
  int64_t padTokenIdOrEos() const;
  // The tokenizer, or Error saying that text rows need --tokenizer.
  const Tokenizer& requireTokenizer(const char* why) const;
  // The bound on pre-tokenized ids: --tokenizer's vocabulary size, nullopt without a tokenizer.
  std::optional<int64_t> vocabSize() const;
};

// How a framework batch maps onto maskscope's Batch (FrameworkToBatch.h). Empty names: absent.
struct BatchConventions {
  std::string inputIds = "input_ids";
  std::string labels = "labels";
  std::string attentionMask = "attention_mask"; // missing in the batch: all ones (padding-free)
  std::string positionIds = "position_ids";
  std::string cuSeqLens = "cu_seq_lens_q"; // example boundaries of a flattened row, when present
  bool labelsPreShifted = false;           // labels[t] = tokens[t + 1]: shifted back to the HF convention
  // attention_mask holds document indices 1, 2, 3 ... per packed example (0 = padding), as
  // LLaMA-Factory's neat_packing writes it: read as segment ids (our packed-mask convention).
  bool attentionIsSegmentIds = false;
  // A [B, T, T] or [B, 1, T, T] bool/0-1 mask (torchtune's packed `mask`): converted to segment ids
  // when it is block-causal, else Error naming the key.
  std::string blockMask;
};

class FrameworkImpl {
public:
  virtual ~FrameworkImpl() = default;
  virtual std::vector<PreparedRow> prepare(const std::vector<InputRow>& rows, FrameworkContext& ctx) const = 0;
  virtual FrameworkBatch collate(const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const = 0;
  virtual BatchConventions conventions() const { return {}; }
  // Default: convertFrameworkBatch(batch, conventions(), rows' meta and source rows, ids from facts).
  virtual Batch toBatch(const FrameworkBatch& batch, const std::vector<PreparedRow>& rows, FrameworkContext& ctx) const;
};

struct FrameworkDefinition {
  FrameworkInfo info;
  // (Each collator's implementation is its CollatorInfo::make.)
  // The framework's own config file as a spec object ({"framework": ..., options}); nullopt when
  // the file is not this framework's. path: for messages; text: the file (size-capped).
  std::function<std::optional<OrderedJson>(const std::string& path, const std::string& text)> readConfig;
  // The template the spec makes the framework render with instead of --template, as the option and
  // its value ({"chat_template", "chatml"}); nullopt when it renders with the tokenizer's or
  // --template's. Unset: the framework never picks one itself.
  std::function<std::optional<std::pair<std::string, std::string>>(const FrameworkSpec& spec)> ownTemplate;
};

// definition.ownTemplate of the spec's framework, or nullopt.
std::optional<std::pair<std::string, std::string>> frameworkOwnTemplate(const FrameworkSpec& spec);

// Every framework, in the order the help and the app list them (FrameworkList.cpp).
const std::vector<FrameworkDefinition>& frameworkDefinitions();
// The definition named name; Error listing the known names when there is none.
const FrameworkDefinition& frameworkDefinition(const std::string& name);

} // namespace maskscope
