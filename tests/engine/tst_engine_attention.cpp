// The engine's memory-linear cores against autograd through the materialised tensors they avoid:
// engine/ChunkedAttention (query blocks, custom backward) against the eager [b, H, T, T] attention,
// and engine/LogitsHead (chunked NLL, custom backward) against log-softmax over the whole [n, V]
// logits. Random inputs in float32; outputs and gradients within 1e-5 of the largest reference value.
// Links LibTorch itself (no sentencepiece here, so no protobuf clash), compiling the two sources.
#include "engine/ChunkedAttention.h"
#include "engine/LogitsHead.h"

#include <QtTest>

#include <string>

using namespace maskscope::engine;

namespace {

// The eager attention the engine used before query blocks (and transformers' eager_attention_forward):
// q [b, H, T, D], k and v [b, kvH, T, D] -> [b, H, T, D]; the probabilities into *probs.
at::Tensor eagerAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                          const AttentionSpec& s, at::Tensor* probs = nullptr) {
  const int64_t b = q.size(0), H = q.size(1), T = q.size(2), D = q.size(3), kvH = k.size(1), rep = H / kvH;
  at::Tensor kr = k.unsqueeze(2).expand({b, kvH, rep, T, D}).reshape({b, H, T, D});
  at::Tensor vr = v.unsqueeze(2).expand({b, kvH, rep, T, D}).reshape({b, H, T, D});
  at::Tensor scores = at::matmul(q, kr.transpose(-1, -2)) * s.scale;
  if (s.softcap > 0) scores = at::tanh(scores / s.softcap) * s.softcap;
  scores = scores + additiveMask(mask, q.scalar_type(), s.window);
  at::Tensor p = at::softmax(scores, -1, at::kFloat).to(q.scalar_type());
  if (probs) *probs = p.detach();
  return at::matmul(p, vr);
}

// [b, T] segment masks (ForwardEngine.h): 1 = causal; right/left padding; packed segments 1, 2, 3.
at::Tensor maskOf(const std::string& kind, int64_t b, int64_t T) {
  at::Tensor m = at::ones({b, T}, at::kLong);
  if (kind == "right_pad") m.narrow(1, T - T / 3, T / 3).zero_();
  if (kind == "left_pad") m.narrow(1, 0, T / 3).zero_(); // fully masked query rows: uniform weights
  if (kind == "packed") {
    m.narrow(1, T / 4, T / 4).fill_(2);
    m.narrow(1, T / 2, T / 2 - 2).fill_(3);
    m.narrow(1, T - 2, 2).zero_(); // trailing pads
  }
  if (kind == "left_pad_packed") {
    m.narrow(1, 0, 2).zero_();
    m.narrow(1, T / 2, T / 2).fill_(2);
  }
  return m;
}

double maxRelative(const at::Tensor& got, const at::Tensor& want) {
  const double scale = std::max(1e-30, want.abs().max().item<double>());
  return (got - want).abs().max().item<double>() / scale;
}

} // namespace

class EngineAttentionTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void chunkedMatchesEager_data() {
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<int>("length");
    QTest::addColumn<double>("softcap");
    QTest::addColumn<int>("window");
    QTest::addColumn<QString>("mask");
    QTest::addColumn<int>("blockRows");
    QTest::newRow("mha causal, blocks of 5") << 4 << 4 << 23 << 0.0 << 0 << "causal" << 5;
    QTest::newRow("gqa right pad, blocks of 4") << 4 << 2 << 24 << 0.0 << 0 << "right_pad" << 4;
    QTest::newRow("gqa left pad, blocks of 3") << 6 << 2 << 21 << 0.0 << 0 << "left_pad" << 3;
    QTest::newRow("gqa packed, rows one by one") << 4 << 1 << 17 << 0.0 << 0 << "packed" << 1;
    QTest::newRow("softcap gqa packed, blocks of 6") << 4 << 2 << 26 << 0.5 << 0 << "packed" << 6;
    QTest::newRow("softcap left pad packed, blocks of 7") << 2 << 1 << 22 << 0.5 << 0 << "left_pad_packed" << 7;
    QTest::newRow("sliding window left pad, blocks of 4") << 4 << 2 << 25 << 0.0 << 6 << "left_pad" << 4;
    QTest::newRow("sliding softcap packed, blocks of 5") << 4 << 2 << 30 << 0.5 << 4 << "packed" << 5;
    QTest::newRow("one block") << 4 << 2 << 16 << 0.0 << 0 << "right_pad" << 0;
  }
  void chunkedMatchesEager() {
    QFETCH(int, heads);
    QFETCH(int, kvHeads);
    QFETCH(int, length);
    QFETCH(double, softcap);
    QFETCH(int, window);
    QFETCH(QString, mask);
    QFETCH(int, blockRows);
    at::manual_seed(7);
    const int64_t b = 2, D = 8;
    const AttentionSpec spec{1.0 / std::sqrt(double(D)), softcap, window};
    // Scores of a few units, so the soft-cap (0.5) is far from linear.
    const at::Tensor q0 = at::randn({b, heads, length, D}) * 2, k0 = at::randn({b, kvHeads, length, D}) * 2;
    const at::Tensor v0 = at::randn({b, kvHeads, length, D}), w = at::randn({b, heads, length, D});
    const at::Tensor m = maskOf(mask.toStdString(), b, length);

    at::Tensor probs;
    at::Tensor q = q0.clone().requires_grad_(), k = k0.clone().requires_grad_(), v = v0.clone().requires_grad_();
    const at::Tensor want = eagerAttention(q, k, v, m, spec, &probs);
    const auto wantGrads = torch::autograd::grad({(want * w).sum()}, {q, k, v});

    at::Tensor qc = q0.clone().requires_grad_(), kc = k0.clone().requires_grad_(), vc = v0.clone().requires_grad_();
    const at::Tensor got = chunkedAttention(qc, kc, vc, m, spec, blockRows);
    QVERIFY(got.requires_grad());
    const auto gotGrads = torch::autograd::grad({(got * w).sum()}, {qc, kc, vc});
    QVERIFY2(maxRelative(got, want) < 1e-5, qPrintable(QString::number(maxRelative(got, want))));
    const char* names[] = {"dq", "dk", "dv"};
    for (size_t i = 0; i < 3; ++i) {
      const double e = maxRelative(gotGrads[i], wantGrads[i]);
      QVERIFY2(e < 1e-5, qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(names[i])).arg(e)));
    }

    // Without gradients: the same output, and every block's probabilities (attention capture).
    at::NoGradGuard ng;
    at::Tensor kept = at::full({b, heads, length, length}, -1.0);
    const at::Tensor plain = chunkedAttention(q0, k0, v0, m, spec, blockRows, [&](int64_t r0, const at::Tensor& p) {
      kept.narrow(2, r0, p.size(2)).copy_(p);
    });
    QVERIFY(maxRelative(plain, want.detach()) < 1e-5);
    QVERIFY2(maxRelative(kept, probs) < 1e-5, qPrintable(QString::number(maxRelative(kept, probs))));
  }

  // The mask rule of ForwardEngine.h on a hand-made case: row [1, 1, 2, 0] (two segments, a pad).
  void allowedKeysFollowsTheRule() {
    const at::Tensor m = at::tensor({1, 1, 2, 0}, at::kLong).unsqueeze(0);
    const at::Tensor a = allowedKeys(m, 0, 4, 0, 4).to(at::kLong)[0];
    const at::Tensor want = at::tensor({1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0}, at::kLong).view({4, 4});
    QVERIFY(a.equal(want));
    const at::Tensor sliding = allowedKeys(at::ones({1, 4}, at::kLong), 1, 3, 0, 4, 2).to(at::kLong)[0];
    QVERIFY(sliding.equal(at::tensor({1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1}, at::kLong).view({3, 4})));
  }

  void targetNllMatchesFullLogits_data() {
    QTest::addColumn<double>("softcap");
    QTest::addColumn<int>("step");
    QTest::newRow("no cap, chunks of 3") << 0.0 << 3;
    QTest::newRow("final soft-cap, chunks of 4") << 2.0 << 4;
    QTest::newRow("one chunk") << 0.0 << 100;
  }
  void targetNllMatchesFullLogits() {
    QFETCH(double, softcap);
    QFETCH(int, step);
    at::manual_seed(11);
    const int64_t n = 13, hidden = 16, V = 37;
    const at::Tensor h0 = at::randn({n, hidden}), head0 = at::randn({V, hidden}) * 0.5;
    const at::Tensor targets = at::randint(V, {n, 2}, at::kLong), w = at::randn({n, 2});

    at::Tensor h = h0.clone().requires_grad_(), head = head0.clone().requires_grad_();
    at::Tensor logits = at::linear(h, head);
    if (softcap > 0) logits = at::tanh(logits / softcap) * softcap;
    const at::Tensor want = -at::log_softmax(logits.to(at::kFloat), -1).gather(1, targets);
    const auto wantGrads = torch::autograd::grad({(want * w).sum()}, {h, head});

    at::Tensor hc = h0.clone().requires_grad_(), headc = head0.clone().requires_grad_();
    const at::Tensor got = targetNll(headc, softcap, hc, targets, step);
    const auto gotGrads = torch::autograd::grad({(got * w).sum()}, {hc, headc});
    QVERIFY(maxRelative(got, want) < 1e-5);
    QVERIFY2(maxRelative(gotGrads[0], wantGrads[0]) < 1e-5, "dh");
    QVERIFY2(maxRelative(gotGrads[1], wantGrads[1]) < 1e-5, "dhead");
  }
};

QTEST_GUILESS_MAIN(EngineAttentionTest)

#include "tst_engine_attention.moc"
