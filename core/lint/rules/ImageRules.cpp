// Image rules: image tokens in the loss, image blocks whose token count is not what the image's size
// gives, blocks cut by truncation, and images the template wrote no placeholder for. Positions come
// from PositionKind::Image; blocks and counts from the encoding (core/media/MediaExpansion.h).
#include "core/lint/LintRegistry.h"
#include "core/media/VisionProcessors.h"

namespace maskscope {

namespace {

bool isPad(const RowInput& in, int64_t t) { return in.L.pad[size_t(t)] != 0; }
bool isImage(const RowInput& in, int64_t t) { return (*in.meta)[size_t(t)].kind == PositionKind::Image; }

void imageTokensGraded(const RowInput& in) {
  if (!in.meta) return;
  int64_t total = 0, graded = 0, first = -1;
  for (int64_t t = 0; t < in.T; ++t) {
    if (!isImage(in, t) || isPad(in, t)) continue;
    ++total;
    if (!in.graded(t)) continue;
    ++graded;
    if (first < 0) first = t;
  }
  if (graded == 0) return;
  in.emit("image-tokens-graded", first,
          in.label(first) + ": " + num(graded) + " of " + num(total) +
              " image positions are graded, first at position " + num(first) +
              ": the model is trained to predict image placeholder tokens it never writes");
}

// An image block (a run of Image positions) that touches an example's first or last position: the
// templates always write text after and before a block, so truncation (max_length, keep_end) cut it.
void imageTokensTruncated(const RowInput& in) {
  if (!in.meta) return;
  for (const ExampleRange& ex : in.L.examples) {
    if (ex.end <= ex.begin) continue;
    const bool atStart = isImage(in, ex.begin), atEnd = isImage(in, ex.end - 1);
    if (!atStart && !atEnd) continue;
    int64_t run = 0;
    const int64_t edge = atEnd ? ex.end - 1 : ex.begin;
    for (int64_t t = edge; t >= ex.begin && t < ex.end && isImage(in, t); t += atEnd ? -1 : 1) ++run;
    in.emit("image-tokens-truncated", edge,
            in.label(edge) + ": the example " + (atEnd ? "ends" : "starts") + " inside an image block (" + num(run) +
                " image positions kept " + (atEnd ? "before the cut" : "after the cut") +
                "): truncation cut the image's tokens while the processor still passes all of its pixels");
    return;
  }
}

int64_t countToken(const TokenizedConversation& enc, ByteSpan block, const std::string& token) {
  int64_t n = 0;
  for (const TokenInfo& t : enc.tokens)
    if (!t.span.empty() && block.contains(t.span.begin) && t.span.size() == int64_t(token.size()) &&
        enc.text.compare(size_t(t.span.begin), token.size(), token) == 0)
      ++n;
  return n;
}

std::optional<int64_t> firstTokenIn(const TokenizedConversation& enc, ByteSpan block) {
  for (size_t t = 0; t < enc.tokens.size(); ++t)
    if (!enc.tokens[t].span.empty() && block.contains(enc.tokens[t].span.begin)) return int64_t(t);
  return std::nullopt;
}

void imageTokenCountMismatch(const ConversationInput& in) {
  const TokenizedConversation& enc = in.encoded;
  const VisionProcessor* vp = nullptr;
  for (const VisionProcessor& p : visionProcessors())
    if (p.name == enc.visionProcessor) vp = &p;
  if (!vp) return;
  for (const ImageSpan& img : enc.images) {
    const std::string& token = img.video ? vp->videoToken : vp->imageToken;
    if (img.image < 0) {
      int64_t blocks = 0;
      for (const ImageSpan& other : enc.images) blocks += other.video == img.video;
      const char* what = img.video ? " videos" : " images";
      in.emit("image-token-count-mismatch", firstTokenIn(enc, img.block),
              in.label() + ": the rendered text holds more " + (img.video ? token : vp->placeholder) +
                  " placeholders than the row has" + what + " (" + num(blocks) + " placeholders, " +
                  num(img.video ? enc.videoParts : enc.imageParts) + what +
                  "): a placeholder written in the text itself? The processor fails on it");
      return;
    }
    const int64_t have = countToken(enc, img.block, token);
    if (have == img.expectedTokens) continue;
    in.emit("image-token-count-mismatch", firstTokenIn(enc, img.block),
            in.label() + (img.video ? ": video " : ": image ") + num(img.image) + " of message " +
                num(img.messageIndex) + " is " + num(have) + " " + token + " tokens where its size gives " +
                num(img.expectedTokens) + " (" + vp->name + "): " +
                (have == 0 ? "the tokenizer does not hold the image token as one token"
                           : "the image features and the image tokens do not match"));
    return;
  }
}

void imageWithoutPlaceholder(const ConversationInput& in) {
  const TokenizedConversation& enc = in.encoded;
  int64_t placed = 0;
  for (const ImageSpan& img : enc.images) placed += img.image >= 0 && !img.video;
  if (enc.imageParts <= placed) return;
  in.emit("image-without-placeholder", std::nullopt,
          in.label() + ": the row has " + num(enc.imageParts) + " image part(s) but the rendered text holds " +
              num(placed) + " image placeholder(s)" +
              (enc.visionProcessor.empty() ? " (no placeholder of qwen2-vl, gemma3 or llava at all)" : "") +
              ": the template skips the image (its part type is one the template does not test for), so the "
              "model is trained on the text without it");
}

} // namespace

const std::vector<LintRule>& imageRules() {
  using S = Severity;
  constexpr Scope D = Scope::Data;
  static const std::vector<LintRule> rules = {
      {.info = {"image-tokens-graded", S::Error, "image placeholder tokens are graded",
                "A vision-language processor replaces each image placeholder with a block of image tokens "
                "(256 <|image_pad|> for a 448x448 image in Qwen2-VL, 256 <image_soft_token> in Gemma 3, 576 "
                "<image> in LLaVA-1.5); the model's vision tower fills their embeddings, and the model never "
                "writes them. When those positions keep their labels (a collator that copies input_ids into "
                "labels, DataCollatorForLanguageModeling on a multimodal batch), the loss asks the model to "
                "predict hundreds of identical placeholder ids per image: the loss drops quickly and says nothing "
                "about the replies. Fix: set the image positions to -100 (grade only the replies: maskscope's "
                "default preset, TRL assistant_only_loss or completion_only_loss).",
                "roles"},
       .row = imageTokensGraded},
      {.info = {"image-token-count-mismatch", S::Error,
                "an image block holds a different number of image tokens than the image's size gives",
                "The processor writes as many image tokens as the vision tower gives features: Qwen2-VL "
                "(h/28)*(w/28) after smart_resize, Gemma 3 256, LLaVA-1.5 576. A placeholder typed into the text "
                "itself (\"<image>\\nDescribe\" plus an image part, a pre-expanded dump), or a tokenizer that "
                "splits the image token into pieces, leaves a block whose length does not match: transformers "
                "raises \"Image features and image tokens do not match\", or a hand-made pipeline silently "
                "shifts every image feature. Fix: let the template write the placeholders (remove them from the "
                "text), and use the model's own tokenizer.",
                "template+tokenizer", D},
       .conversation = imageTokenCountMismatch},
      {.info = {"image-tokens-truncated", S::Error, "truncation cut an image block",
                "An image's tokens are one block: the vision tower produces a feature for every token. "
                "max_length truncation (keep_start cutting the end, keep_end cutting the start) that falls inside "
                "a block keeps part of the tokens while the processor still passes all the pixels, so the model "
                "fails on the count or (in pipelines that truncate after the processor) mis-aligns the features. "
                "TRL refuses keep_end for vision-language models for this reason. Fix: raise max_length above the "
                "longest row with its images, drop the rows that do not fit, or truncate the text only.",
                "roles"},
       .row = imageTokensTruncated},
      {.info = {"image-without-placeholder", S::Error, "an image of the row has no placeholder in the rendered text",
                "The chat template writes one placeholder per image part, and the processor pairs placeholders and "
                "images in order. A template that tests for a part type the row does not use (Gemma 3's tests "
                "item['type'] == 'image', so an {\"type\": \"image_url\"} part renders as nothing), or a text-only "
                "template, drops the image: the model is trained on the question without the picture, and the "
                "processor fails or pairs the next image with the wrong placeholder. Fix: use the part type the "
                "template expects ({\"type\": \"image\"}) and the model's own chat template.",
                "template", D},
       .conversation = imageWithoutPlaceholder},
  };
  return rules;
}

} // namespace maskscope
