// Shape and input rules: the four grids agree, attention_mask values are masks or segment ids,
// ids and labels are in range; and the run-level entries (row-skipped, rules-not-run) that the
// dataset reader and lintBatch report. Conventions: labels -100 = ignored (PyTorch ignore_index).
#include "core/lint/LintRegistry.h"

#include <set>

namespace maskscope {

namespace {

std::string shapeText(const IntGrid& g) { return "[" + num(g.rows) + ", " + num(g.cols) + "]"; }

bool shapeMismatch(const BatchInput& in) {
  const Batch& b = in.batch;
  std::string bad;
  if (!b.labels.sameShape(b.inputIds)) bad += " labels " + shapeText(b.labels);
  if (!b.attentionMask.empty() && !b.attentionMask.sameShape(b.inputIds))
    bad += " attention_mask " + shapeText(b.attentionMask);
  if (!b.positionIds.empty() && !b.positionIds.sameShape(b.inputIds))
    bad += " position_ids " + shapeText(b.positionIds);
  if (!bad.empty()) {
    in.out.add("shape-mismatch", std::nullopt, std::nullopt, "input_ids is " + shapeText(b.inputIds) + " but" + bad);
    return false;
  }
  const size_t cells = size_t(b.inputIds.rows * b.inputIds.cols);
  if (b.inputIds.values.size() != cells || b.labels.values.size() != cells) {
    in.out.add("shape-mismatch", std::nullopt, std::nullopt, "a grid's storage does not match its shape");
    return false;
  }
  return true;
}

// The first position where a segment id (mask values above 1) comes back after another segment.
int64_t segmentSplitAt(const RowInput& in) {
  bool anyAbove1 = false;
  for (int64_t t = 0; t < in.T; ++t) anyAbove1 = anyAbove1 || in.b.attentionMask.at(in.r, t) > 1;
  if (!anyAbove1) return -1;
  std::set<int64_t> seen;
  int64_t last = 0;
  for (int64_t t = 0; t < in.T; ++t) {
    const int64_t v = in.b.attentionMask.at(in.r, t);
    if (v != last && v > 0) {
      if (seen.count(v)) return t;
      seen.insert(v);
    }
    last = v;
  }
  return -1;
}

void attentionMaskNotBinary(const RowInput& in) {
  if (!in.haveMask) return;
  const IntGrid& m = in.b.attentionMask;
  for (int64_t t = 0; t < in.T; ++t)
    if (m.at(in.r, t) < 0) {
      in.emit("attention-mask-not-binary", t,
              in.label(t) + ": attention_mask is " + num(m.at(in.r, t)) + " at position " + num(t));
      return;
    }
  const int64_t split = segmentSplitAt(in);
  if (split >= 0)
    in.emit("attention-mask-not-binary", split,
            in.label(split) + ": segment id " + num(m.at(in.r, split)) + " at position " + num(split) +
                " continues a segment that already ended (segment ids must be contiguous runs)");
}

void labelOutOfRange(const RowInput& in) {
  const int64_t bound = in.o.vocabSize ? *in.o.vocabSize : in.maxInput + 1;
  int64_t first = -1, bad = 0;
  for (int64_t t = 0; t < in.T; ++t) {
    const int64_t l = in.b.labels.at(in.r, t);
    if (l != kIgnoreIndex && (l < 0 || l >= bound)) { // graded-count: ok (a range check, not a count)
      ++bad;
      if (first < 0) first = t;
    }
  }
  if (bad == 0) return;
  const std::string why = in.o.vocabSize ? "vocabulary size " + num(*in.o.vocabSize)
                                         : "no tokenizer given; the largest input id is " + num(in.maxInput);
  in.emit("label-out-of-range", first,
          in.label(first) + ": " + num(bad) + " label(s) are neither -100 nor a token id, first " +
              num(in.b.labels.at(in.r, first)) + " at position " + num(first) + " (" + why + ")");
}

void inputIdOutOfRange(const RowInput& in) {
  int64_t first = -1, bad = 0;
  for (int64_t t = 0; t < in.T; ++t) {
    const int64_t id = in.b.inputIds.at(in.r, t);
    if (id < 0 || (in.o.vocabSize && id >= *in.o.vocabSize)) {
      ++bad;
      if (first < 0) first = t;
    }
  }
  if (bad > 0)
    in.emit("input-id-out-of-range", first,
            in.label(first) + ": " + num(bad) + " input id(s) outside the vocabulary, first " +
                num(in.b.inputIds.at(in.r, first)) + " at position " + num(first) +
                (in.o.vocabSize ? " (vocabulary size " + num(*in.o.vocabSize) + ")" : std::string()));
}

} // namespace

const std::vector<LintRule>& shapeRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info =
           {"shape-mismatch", S::Error, "input_ids, attention_mask, labels and position_ids differ in shape",
            "The four tensors of a causal-LM batch are read position by position: attention_mask[b][t] says whether "
            "position t of row b is real text, labels[b][t] says what the model is graded on there, position_ids[b][t] "
            "tells the rotary embedding where the token sits. They must all be [batch, seq_len]. When one is shorter "
            "or has a different number of rows, PyTorch either raises a shape error deep inside the model or, worse, "
            "broadcasts and silently applies the wrong mask to the wrong tokens. This usually means a custom collator "
            "padded input_ids but not labels (or the reverse). Fix: pad every field to the same length in the collator "
            "(transformers' DataCollatorForSeq2Seq pads labels with label_pad_token_id=-100 for you).",
            "batch"},
       .beforeRows = shapeMismatch},
      {.info =
           {"attention-mask-not-binary", S::Error,
            "attention_mask holds values other than 0/1 that are not packing segment ids",
            "attention_mask is read as 1 = attend to this key, 0 = hide it. Packing collators may instead write "
            "segment "
            "ids (1, 2, 3, ... one per packed example, 0 for padding), meaning attention stays inside a segment; each "
            "segment is then one contiguous run. Negative values, or ids that come back after another segment started, "
            "are neither: the eager/SDPA path treats every non-zero value as 'attend', so the model ends up attending "
            "somewhere the collator did not intend. Fix: emit 0/1 (and let position_ids carry the packing), or proper "
            "contiguous segment ids as axolotl's sample packing does.",
            "batch"},
       .row = attentionMaskNotBinary},
      {.info =
           {"label-out-of-range", S::Error, "a label is neither -100 nor a valid token id",
            "PyTorch's cross-entropy looks labels up in the vocabulary-sized logits; -100 (ignore_index) is the only "
            "value it skips. Any other negative number, or an id at or above the vocabulary size, makes CUDA fail with "
            "a device-side assert (\"Assertion t >= 0 && t < n_classes failed\") and the CPU raise an IndexError. "
            "Common "
            "causes: padding labels with a pad id of -1, using a label_pad_token_id other than -100, or a tokenizer "
            "that was extended with new tokens while the model's embeddings were not resized. Fix: pad labels with "
            "-100 and call model.resize_token_embeddings(len(tokenizer)) after adding tokens.",
            "batch (vocabulary size from the tokenizer, else the largest input id)"},
       .row = labelOutOfRange},
      {.info =
           {"input-id-out-of-range", S::Error, "an input id is negative or not below the vocabulary size",
            "Every input id indexes a row of the embedding matrix. An id outside [0, vocab_size) crashes the embedding "
            "lookup (a CUDA device-side assert) or, with a model whose embeddings are larger than the tokenizer, feeds "
            "an untrained random vector. This happens when a batch was tokenized with a different tokenizer than the "
            "one used to lint or train, or when tokens were added without resizing the model. Fix: tokenize with the "
            "model's own tokenizer and resize embeddings after adding tokens.",
            "batch + tokenizer"},
       .row = inputIdOutOfRange},
      // Reported by the dataset reader (DatasetLinter) for each unreadable row.
      {.info =
           {"row-skipped", S::Error, "a dataset row could not be read (or rendered) and was skipped",
            "The row is not valid JSON, has none of the known shapes (messages, prompt/completion, ShareGPT, Alpaca), "
            "has a message without a role, content that is not a string, or invalid UTF-8; or the chat template "
            "refused it (raise_exception). It was skipped and the other rows were linted. The same row makes "
            "datasets.load_dataset refuse the whole file, or the trainer fail when it reaches the row. Fix: correct "
            "the row at the line shown (valid JSON, one of the shapes, string content) or delete it.",
            "dataset", Scope::Data}},
      // Reported by lintBatch when roles or a vocabulary are unknown.
      {.info =
           {"rules-not-run", S::Info, "some rules need more input than was given",
            "Role-aware rules (prompt-graded, last-turn-only, stop-token-not-graded, reply-truncated) need to know "
            "which "
            "positions are system, user, assistant or template text. A batch dump holds only ids, so pass --template "
            "and --tokenizer (the ones that produced it) and maskscope recovers the roles by matching the template's "
            "role headers and footers in the ids. Rules that need a vocabulary size need --tokenizer. Fix: pass the "
            "tokenizer and template that produced the batch (--tokenizer, --template), or --pad-id for a dump's "
            "padding.",
            "-"}},
  };
  return rules;
}

} // namespace maskscope
