// Images as placeholder tokens: Qwen2-VL smart_resize against the transformers reference table
// (tools/media/smart_resize_reference.py), the expansion of each family, the reader's refusal of an
// image part without a size, and the done-when row: one 448x448 image through the real Qwen3
// tokenizer (it holds Qwen2-VL's <|vision_start|>, <|image_pad|>, <|vision_end|>) and the qwen2-vl
// template collates to 256 <|image_pad|> between the markers, -100 under every preset that selects
// what to grade, graded by hf-lm (which copies input_ids). Also the processor's min_pixels /
// max_pixels and Qwen2-VL videos (<|video_pad|>), against the same reference script's tables.
#include "../TokenizerCacheRequired.h"
#include "core/collate/CollatorSpec.h"
#include "core/collate/DatasetPipeline.h"
#include "core/data/DatasetReader.h"
#include "core/mask/RowFacts.h"
#include "core/media/MediaExpansion.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"

#include <QTest>

#include <filesystem>
#include <nlohmann/json.hpp>

using namespace maskscope;

namespace {

const std::string kData = MASKSCOPE_TEST_DATA_DIR "/lint/images/";
const std::string kQwen = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3";

const VisionProcessor& processor(VisionFamily f) {
  for (const VisionProcessor& p : visionProcessors())
    if (p.family == f) return p;
  throw std::runtime_error("no such family");
}

int occurrences(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

} // namespace

class TestImages : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void smartResize_data();
  void smartResize();
  void expansionPerFamily();
  void spansFollowTheExpansion();
  void imagePartWithoutSize();
  void qwen2vlOneImage_data();
  void qwen2vlOneImage();
  void pixelBounds_data();
  void pixelBounds();
  void boundsRefusedForFixedCounts();
  void videoTokens_data();
  void videoTokens();
  void videoExpansion();
  void videoPartWithoutFrames();
  void qwen2vlVideoAndBounds();
};

namespace {

nlohmann::json referenceTable(const char* key) {
  return nlohmann::json::parse(readFileCapped(MASKSCOPE_TEST_DATA_DIR "/media/smart_resize.json"))[key];
}

} // namespace

// 448x448 gives 256 tokens by default and fewer under a smaller max_pixels (more under a larger
// min_pixels), as smart_resize with those bounds gives.
void TestImages::pixelBounds_data() {
  QTest::addColumn<int>("width");
  QTest::addColumn<int>("height");
  QTest::addColumn<qint64>("minPixels");
  QTest::addColumn<qint64>("maxPixels");
  QTest::addColumn<int>("tokens");
  for (const auto& c : referenceTable("bounded")) {
    const std::string name = std::to_string(c["width"].get<int>()) + "x" + std::to_string(c["height"].get<int>()) +
                             " min " + std::to_string(c["min_pixels"].get<int64_t>()) + " max " +
                             std::to_string(c["max_pixels"].get<int64_t>());
    QTest::newRow(name.c_str()) << c["width"].get<int>() << c["height"].get<int>()
                                << qint64(c["min_pixels"].get<int64_t>()) << qint64(c["max_pixels"].get<int64_t>())
                                << c["tokens"].get<int>();
  }
}

void TestImages::pixelBounds() {
  QFETCH(int, width);
  QFETCH(int, height);
  QFETCH(qint64, minPixels);
  QFETCH(qint64, maxPixels);
  QFETCH(int, tokens);
  QCOMPARE(int(imageTokenCount(processor(VisionFamily::Qwen2VL), width, height, {minPixels, maxPixels})), tokens);
}

void TestImages::boundsRefusedForFixedCounts() {
  QCOMPARE(imageTokenCount(processor(VisionFamily::Gemma3), 448, 448), int64_t(256));
  QVERIFY_THROWS_EXCEPTION(Error, imageTokenCount(processor(VisionFamily::Gemma3), 448, 448, {0, 100352}));
  QVERIFY_THROWS_EXCEPTION(Error, imageTokenCount(processor(VisionFamily::Llava), 448, 448, {3136, 0}));
  QVERIFY_THROWS_EXCEPTION(Error, videoTokenCount(processor(VisionFamily::Gemma3), 4, 448, 448));
}

void TestImages::videoTokens_data() {
  QTest::addColumn<int>("frames");
  QTest::addColumn<int>("width");
  QTest::addColumn<int>("height");
  QTest::addColumn<int>("tokens");
  for (const auto& c : referenceTable("videos")) {
    const std::string name = std::to_string(c["frames"].get<int>()) + " frames " +
                             std::to_string(c["width"].get<int>()) + "x" + std::to_string(c["height"].get<int>());
    QTest::newRow(name.c_str()) << c["frames"].get<int>() << c["width"].get<int>() << c["height"].get<int>()
                                << c["tokens"].get<int>();
  }
}

void TestImages::videoTokens() {
  QFETCH(int, frames);
  QFETCH(int, width);
  QFETCH(int, height);
  QFETCH(int, tokens);
  QCOMPARE(int(videoTokenCount(processor(VisionFamily::Qwen2VL), frames, width, height)), tokens);
}

// Images and videos interleaved: each placeholder takes the next part of its own kind.
void TestImages::videoExpansion() {
  ImagePart video{0, 1, 56, 56};
  video.frames = 2; // one temporal patch; the video minimum 128*28*28 makes the frame 336x336: 144
  const std::vector<ImagePart> images = {{0, 0, 56, 56}};
  const ExpandedImages e =
      expandImagePlaceholders("<|vision_start|><|image_pad|><|vision_end|><|vision_start|><|video_pad|><|vision_end|>x",
                              images, processor(VisionFamily::Qwen2VL), {video});
  QCOMPARE(occurrences(e.text, "<|image_pad|>"), 4);
  QCOMPARE(occurrences(e.text, "<|video_pad|>"), 144);
  QCOMPARE(int(e.images.size()), 2);
  QVERIFY(!e.images[0].video);
  QVERIFY(e.images[1].video);
  QCOMPARE(e.images[1].image, 0);
  QCOMPARE(e.images[1].expectedTokens, int64_t(144));
  QCOMPARE(e.text.substr(size_t(e.images[1].block.begin), 16), std::string("<|vision_start|>"));
  QCOMPARE(e.images[1].block.end, int64_t(e.text.size() - 1)); // through <|vision_end|>, not the "x"
}

void TestImages::videoPartWithoutFrames() {
  std::vector<RowError> errors;
  const std::vector<Conversation> rows = readDataset(kData + "video-no-frames.jsonl", &errors);
  QCOMPARE(int(rows.size()), 0);
  QCOMPARE(int(errors.size()), 1);
  const std::string e = errors[0].toString();
  QVERIFY2(e.find("messages[0].content[0]: video part has no \"frames\"") != std::string::npos, e.c_str());
}

// Through the real tokenizer and the qwen2-vl template: a 4-frame 448x448 video is 512 <|video_pad|>
// between the markers, all -100 under the default preset; a 448x448 image under max_pixels
// 128*28*28 is 121 <|image_pad|> instead of 256.
void TestImages::qwen2vlVideoAndBounds() {
  REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(kQwen + "/tokenizer.json"));
  PipelineSpec spec;
  spec.tokenizerSpec = kQwen;
  spec.templateSpec = "qwen2-vl";
  const DatasetPipeline p(spec);
  const std::vector<Conversation> video = readDataset(kData + "qwen-one-video.jsonl");
  QCOMPARE(int(video.size()), 1);
  const Batch b = p.collate({p.encode(video[0])});
  const int64_t videoPad = *p.tokenizer().tokenToId("<|video_pad|>");
  int64_t pads = 0, graded = 0, imagePositions = 0;
  for (int64_t t = 0; t < b.length(); ++t) {
    pads += b.inputIds.at(0, t) == videoPad;
    if (b.meta[0][size_t(t)].kind != PositionKind::Image) continue;
    ++imagePositions;
    graded += gradedAt(b, 0, t);
  }
  QCOMPARE(pads, int64_t(512));
  QCOMPARE(imagePositions, int64_t(514));
  QCOMPARE(graded, int64_t(0));

  PipelineSpec bounded = spec;
  bounded.render.maxPixels = 128 * 28 * 28;
  const DatasetPipeline q(bounded);
  const std::vector<Conversation> image = readDataset(kData + "qwen-one-image.jsonl");
  const TokenizedConversation enc = q.encode(image[0]);
  QCOMPARE(int(enc.images.size()), 1);
  QCOMPARE(enc.images[0].expectedTokens, int64_t(121));
  const int64_t imagePad = *q.tokenizer().tokenToId("<|image_pad|>");
  int64_t n = 0;
  for (const TokenInfo& t : enc.tokens) n += t.id == imagePad;
  QCOMPARE(n, int64_t(121));
}

void TestImages::smartResize_data() {
  QTest::addColumn<int>("width");
  QTest::addColumn<int>("height");
  QTest::addColumn<int>("resizedWidth");
  QTest::addColumn<int>("resizedHeight");
  QTest::addColumn<int>("tokens");
  const auto j = nlohmann::json::parse(readFileCapped(MASKSCOPE_TEST_DATA_DIR "/media/smart_resize.json"));
  for (const auto& c : j["cases"]) {
    const std::string name = std::to_string(c["width"].get<int>()) + "x" + std::to_string(c["height"].get<int>());
    QTest::newRow(name.c_str()) << c["width"].get<int>() << c["height"].get<int>() << c["resized_width"].get<int>()
                                << c["resized_height"].get<int>() << c["tokens"].get<int>();
  }
}

void TestImages::smartResize() {
  QFETCH(int, width);
  QFETCH(int, height);
  QFETCH(int, resizedWidth);
  QFETCH(int, resizedHeight);
  QFETCH(int, tokens);
  const ResizedImage r = qwenSmartResize(height, width);
  QCOMPARE(int(r.width), resizedWidth);
  QCOMPARE(int(r.height), resizedHeight);
  QCOMPARE(int(imageTokenCount(processor(VisionFamily::Qwen2VL), width, height)), tokens);
}

void TestImages::expansionPerFamily() {
  const std::vector<ImagePart> one = {{0, 0, 448, 448}};
  // Qwen2-VL: the pad itself is repeated; the template's markers stay and belong to the block
  const ExpandedImages q =
      expandImagePlaceholders("a<|vision_start|><|image_pad|><|vision_end|>b", one, processor(VisionFamily::Qwen2VL));
  QCOMPARE(occurrences(q.text, "<|image_pad|>"), 256);
  QCOMPARE(int(q.images.size()), 1);
  QCOMPARE(q.images[0].expectedTokens, int64_t(256));
  QCOMPARE(q.text.substr(size_t(q.images[0].block.begin), 16), std::string("<|vision_start|>"));
  QCOMPARE(q.images[0].block.end, int64_t(q.text.size() - 1));
  // Gemma 3: Gemma3Processor's full_image_sequence "\n\n" + boi + 256 soft tokens + eoi + "\n\n"
  const ExpandedImages g = expandImagePlaceholders("x<start_of_image>y", one, processor(VisionFamily::Gemma3));
  std::string soft;
  for (int i = 0; i < 256; ++i) soft += "<image_soft_token>";
  QCOMPARE(g.text, "x\n\n<start_of_image>" + soft + "<end_of_image>\n\ny");
  QCOMPARE(g.text.substr(size_t(g.images[0].block.begin), size_t(g.images[0].block.size())),
           "<start_of_image>" + soft + "<end_of_image>");
  // LLaVA-1.5: 576 <image> whatever the size; a second placeholder with no image stays as written
  const ExpandedImages l = expandImagePlaceholders("<image>\n<image>\nHi", one, processor(VisionFamily::Llava));
  QCOMPARE(occurrences(l.text, "<image>"), 577);
  QCOMPARE(int(l.images.size()), 2);
  QCOMPARE(l.images[1].image, -1);
}

void TestImages::spansFollowTheExpansion() {
  const std::vector<ImagePart> one = {{0, 0, 56, 56}}; // 4 tokens
  const std::string text = "ab<|image_pad|>cd";
  const ExpandedImages e = expandImagePlaceholders(text, one, processor(VisionFamily::Qwen2VL));
  QCOMPARE(e.text, std::string("ab") + "<|image_pad|><|image_pad|><|image_pad|><|image_pad|>" + "cd");
  const int64_t delta = 3 * 13;
  QCOMPARE(positionAfterEdits(1, e.edits, false), int64_t(1));               // before: unchanged
  QCOMPARE(positionAfterEdits(2, e.edits, false), int64_t(2));               // at the placeholder
  QCOMPARE(positionAfterEdits(15, e.edits, false), int64_t(15 + delta));     // after it
  QCOMPARE(positionAfterEdits(15, e.edits, true), int64_t(15 + delta));      // an end right after it
  QCOMPARE(positionAfterEdits(5, e.edits, true), int64_t(2 + 4 * 13));       // an end inside it
  const ByteSpan whole = spanAfterEdits({0, int64_t(text.size())}, e.edits); // a block holding it
  QCOMPARE(whole.end, int64_t(e.text.size()));
}

void TestImages::imagePartWithoutSize() {
  std::vector<RowError> errors;
  const std::vector<Conversation> rows = readDataset(kData + "no-size.jsonl", &errors);
  QCOMPARE(int(rows.size()), 1);
  QCOMPARE(int(errors.size()), 1);
  const std::string e = errors[0].toString();
  QVERIFY2(e.find("no-size.jsonl:2:") != std::string::npos, e.c_str());
  QVERIFY2(e.find("messages[0].content[0]: image part has no \"width\"") != std::string::npos, e.c_str());
}

void TestImages::qwen2vlOneImage_data() {
  QTest::addColumn<QString>("collator");
  for (const CollatorPreset& p : collatorPresets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
}

void TestImages::qwen2vlOneImage() {
  QFETCH(QString, collator);
  REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(kQwen + "/tokenizer.json"));
  PipelineSpec spec;
  spec.tokenizerSpec = kQwen;
  spec.templateSpec = "qwen2-vl";
  spec.collatorSpec = collator.toStdString();
  const DatasetPipeline p(spec);
  const std::vector<Conversation> rows = readDataset(kData + "qwen-one-image.jsonl");
  QCOMPARE(int(rows.size()), 1);
  const TokenizedConversation enc = p.encode(rows[0]);
  QCOMPARE(enc.visionProcessor, std::string("qwen2-vl"));
  const Batch b = p.collate({enc});
  const int64_t padId = *p.tokenizer().tokenToId("<|image_pad|>");
  const int64_t startId = *p.tokenizer().tokenToId("<|vision_start|>");
  const int64_t endId = *p.tokenizer().tokenToId("<|vision_end|>");
  int64_t start = -1, end = -1, pads = 0, imagePositions = 0, graded = 0;
  for (int64_t t = 0; t < b.length(); ++t) {
    const int64_t id = b.inputIds.at(0, t);
    if (id == startId) start = t;
    if (id == endId) end = t;
    pads += id == padId;
    if (b.meta[0][size_t(t)].kind == PositionKind::Image) {
      ++imagePositions;
      graded += gradedAt(b, 0, t);
    }
  }
  const CollatorSpec cs = parseCollatorSpec(spec.collatorSpec);
  if (cs.truncation != Truncation::None && int64_t(enc.tokens.size()) > cs.maxLength) {
    QVERIFY(pads < 256); // buggy-max-length-all-ones cuts the block (lint: image-tokens-truncated)
    return;
  }
  QVERIFY(start >= 0 && end > start);
  QCOMPARE(pads, int64_t(256));
  QCOMPARE(end - start - 1, int64_t(256)); // exactly the pads between the markers
  QCOMPARE(imagePositions, int64_t(258));  // the block: markers and pads
  const bool copiesIds =
      cs.labels == LabelMode::All || cs.labels == LabelMode::PadMasked || cs.labels == LabelMode::MaskPadId;
  QCOMPARE(graded, copiesIds ? imagePositions : int64_t(0));
}

QTEST_GUILESS_MAIN(TestImages)
#include "tst_images.moc"
