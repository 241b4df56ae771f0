// The torch-free half of the loss comparison: pad roles, packed segments, fixed masks (core/forward/LossPlan).
#include "core/forward/LossPlan.h"

#include <QtTest>
#include <cmath>

using namespace maskscope;

namespace {

IntGrid grid(std::vector<std::vector<int64_t>> rows) {
  IntGrid g(int64_t(rows.size()), int64_t(rows[0].size()));
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t c = 0; c < rows[r].size(); ++c) g.at(int64_t(r), int64_t(c)) = rows[r][c];
  return g;
}

} // namespace

class LossPlanTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void roles_data() {
    QTest::addColumn<QString>("ids");
    QTest::addColumn<int>("pad");
    QTest::addColumn<int>("eos");
    QTest::addColumn<QString>("expected"); // P = pad, ? = real (no meta)
    QTest::newRow("right-padded") << QStringLiteral("7 8 9 0 0") << 0 << 3 << QStringLiteral("???PP");
    QTest::newRow("left-padded") << QStringLiteral("0 0 7 8 9") << 0 << 3 << QStringLiteral("PP???");
    QTest::newRow("no-padding") << QStringLiteral("7 0 9 8 9") << 0 << 3 << QStringLiteral("?????");
    QTest::newRow("pad-is-eos-right") << QStringLiteral("7 8 3 3 3") << 3 << 3
                                      << QStringLiteral("???PP"); // first EOS closes the text
    QTest::newRow("all-pad") << QStringLiteral("0 0 0") << 0 << 3 << QStringLiteral("PPP");
  }
  void roles() {
    QFETCH(QString, ids);
    QFETCH(int, pad);
    QFETCH(int, eos);
    QFETCH(QString, expected);
    std::vector<int64_t> row;
    for (const QString& s : ids.split(QLatin1Char(' '))) row.push_back(s.toLongLong());
    Batch b;
    b.inputIds = grid({row});
    b.labels = b.inputIds;
    b.padTokenId = pad;
    b.eosTokenId = eos;
    IntGrid roles = positionRoles(b);
    QString got;
    for (int64_t c = 0; c < roles.cols; ++c) got += roles.at(0, c) == RolePad ? QLatin1Char('P') : QLatin1Char('?');
    QCOMPARE(got, expected);
  }

  void rolesFromMeta() {
    Batch b;
    b.inputIds = grid({{4, 5, 6, 0}});
    b.labels = b.inputIds;
    b.padTokenId = 0;
    // The reply flag makes a position a reply (an assistant header alone is scaffolding: prompt).
    PositionMeta reply{PositionKind::Assistant};
    reply.reply = true;
    b.meta = {{PositionMeta{PositionKind::User}, reply, PositionMeta{PositionKind::Template},
               PositionMeta{PositionKind::Padding}}};
    IntGrid r = positionRoles(b);
    QCOMPARE(r.values, (std::vector<int64_t>{RolePrompt, RoleReply, RolePrompt, RolePad}));
  }

  void segments_data() {
    QTest::addColumn<QString>("how");
    QTest::newRow("segment-ids-in-mask") << QStringLiteral("mask");
    QTest::newRow("position-id-restarts") << QStringLiteral("positions");
    QTest::newRow("batch-segments") << QStringLiteral("segments");
  }
  void segments() {
    QFETCH(QString, how);
    Batch b;
    b.inputIds = grid({{5, 6, 7, 8, 9, 0}});
    b.labels = b.inputIds;
    b.padTokenId = 0;
    b.attentionMask = grid({{1, 1, 1, 1, 1, 0}});
    if (how == QLatin1String("mask")) b.attentionMask = grid({{1, 1, 2, 2, 2, 0}});
    if (how == QLatin1String("positions")) b.positionIds = grid({{0, 1, 0, 1, 2, 3}});
    if (how == QLatin1String("segments")) b.segments = {{Segment{0, 2}, Segment{2, 5}}};
    IntGrid roles = positionRoles(b);
    IntGrid seg = packedSegments(b, roles);
    QCOMPARE(seg.values, (std::vector<int64_t>{1, 1, 2, 2, 2, 0}));
    QVERIFY(isPacked(seg));
    IntGrid pos = resetPositionIds(b, seg);
    QCOMPARE(std::vector<int64_t>(pos.values.begin(), pos.values.begin() + 5), (std::vector<int64_t>{0, 1, 0, 1, 2}));
    LossRequest req = buildLossRequest(b, false);
    QCOMPARE(req.variants.back().name, std::string("block_diagonal"));
  }

  void fixedMasks() {
    Batch b;
    b.inputIds = grid({{5, 6, 0, 0}});
    b.attentionMask = grid({{1, 1, 1, 1}});
    b.labels = grid({{5, 6, 0, 0}});
    b.padTokenId = 0;
    IntGrid roles = positionRoles(b);
    QCOMPARE(fixedAttentionMask(b, roles).values, (std::vector<int64_t>{1, 1, 0, 0}));
    QCOMPARE(fixedLabels(b, roles).values, (std::vector<int64_t>{5, 6, -100, -100}));
    LossRequest req = buildLossRequest(b, true);
    QCOMPARE(req.variants.size(), size_t(3)); // not packed: no block_diagonal
    QCOMPARE(req.variants[0].name, std::string("fixed"));
  }

  void shapeMismatchIsAnError() {
    Batch b;
    b.inputIds = grid({{5, 6, 0}});
    b.labels = grid({{5, 6}});
    QVERIFY_THROWS_EXCEPTION(std::exception, buildLossRequest(b, false));
  }

  // The loss view's "fixed" of a packed row is the block-diagonal loss; of any other row, "fixed".
  void fixedLossOfARow_data() {
    QTest::addColumn<bool>("packed");
    QTest::addColumn<bool>("withBlock");
    QTest::addColumn<double>("expected"); // NaN: no such variant in the report
    QTest::newRow("unpacked-takes-fixed") << false << true << 1.5;
    QTest::newRow("packed-takes-block-diagonal") << true << true << 2.25;
    QTest::newRow("packed-without-block-diagonal") << true << false << std::nan("");
  }
  void fixedLossOfARow() {
    QFETCH(bool, packed);
    QFETCH(bool, withBlock);
    QFETCH(double, expected);
    LossReport r;
    r.variantLoss = {{"fixed", 1.5}, {"labels_fixed_only", 1.75}, {"attention_fixed_only", 2.0}};
    if (withBlock) r.variantLoss.emplace_back("block_diagonal", 2.25);
    const std::optional<double> got = fixedLossOf(r, packed);
    QCOMPARE(got.has_value(), !std::isnan(expected));
    if (got) QCOMPARE(*got, expected);
  }

  // The gradient share is the engine's measured norms, never the token count.
  void padGradientShareIsMeasured_data() {
    QTest::addColumn<bool>("computed");
    QTest::addColumn<double>("pad");
    QTest::addColumn<double>("real");
    QTest::addColumn<double>("expected");
    QTest::newRow("quarter") << true << 1.0 << 3.0 << 0.25;
    QTest::newRow("no-pad-terms") << true << 0.0 << 2.0 << 0.0;
    QTest::newRow("not-computed") << false << 1.0 << 3.0 << std::nan("");
    QTest::newRow("both-zero") << true << 0.0 << 0.0 << std::nan("");
  }
  void padGradientShareIsMeasured() {
    QFETCH(bool, computed);
    QFETCH(double, pad);
    QFETCH(double, real);
    QFETCH(double, expected);
    LossReport r;
    r.gradientsComputed = computed;
    r.gradNormPad = pad;
    r.gradNormReal = real;
    r.roles[RolePad].graded = 1; // token counts must not matter
    r.roles[RoleReply].graded = 99;
    const double got = padGradientShare(r);
    if (std::isnan(expected))
      QVERIFY(std::isnan(got));
    else
      QVERIFY(std::abs(got - expected) < 1e-12);
  }

  void batchRowIsThatRowAlone() {
    Batch b;
    b.inputIds = grid({{5, 6, 7}, {8, 9, 0}});
    b.attentionMask = grid({{1, 1, 1}, {1, 1, 0}});
    b.labels = grid({{-100, 6, 7}, {-100, 9, -100}});
    b.padTokenId = 0;
    b.sourceRows = {4, 7};
    const Batch one = batchRow(b, 1);
    QCOMPARE(one.batchSize(), int64_t(1));
    QCOMPARE(one.inputIds.values, (std::vector<int64_t>{8, 9, 0}));
    QCOMPARE(one.attentionMask.values, (std::vector<int64_t>{1, 1, 0}));
    QCOMPARE(one.labels.values, (std::vector<int64_t>{-100, 9, -100}));
    QVERIFY(one.positionIds.empty()); // not given stays not given
    QCOMPARE(one.sourceRows, (std::vector<long>{7}));
    QCOMPARE(one.padTokenId, std::optional<int64_t>(0));
  }
};

QTEST_GUILESS_MAIN(LossPlanTest)

#include "tst_loss_plan.moc"
