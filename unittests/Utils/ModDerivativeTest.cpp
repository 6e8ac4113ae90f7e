//===- ModDerivativeTest.cpp - Tests of the score_mod derivative ----------===//
//
// emitWithDerivative's IR is the backward's score_mod', so each rule is
// checked the way the reference's gradients are: the derivative region it
// writes, evaluated by ScalarEval (the same interpreter flash-run uses for
// the user's regions), against central finite differences of the original
// region, at points away from the op's kinks. One region per rule, plus the
// forms the tile passes write (softcap, ALiBi, a capture-read bias), a
// value that does not depend on the logit, and the refusals.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Utils/ModDerivative.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Utils/ScalarEval.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::flash;

namespace {

/// The capture every region may read: bias[k] = 0.25 k - 1.
double bias(int64_t k) { return 0.25 * double(k) - 1.0; }

class ModDerivativeTest : public ::testing::Test {
protected:
  ModDerivativeTest() {
    ctx.loadDialect<FlashDialect, arith::ArithDialect, math::MathDialect,
                    memref::MemRefDialect, func::FuncDialect>();
  }

  /// A flash.attention whose score_mod runs `body` on %s (f32), %b, %h,
  /// %i, %j (index) and %bias (memref<16xf32>).
  AttentionOp parse(const std::string &body) {
    std::string text = R"(
func.func @f(%q: memref<1x2x8x16xf32>, %bias: memref<16xf32>) {
  flash.attention ins(%q, %q, %q : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>,
      memref<1x2x8x16xf32>) captures(%bias : memref<16xf32>)
      outs(%q : memref<1x2x8x16xf32>) score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index,
       %t: memref<16xf32>):
)" + body + R"(
  }
  return
})";
    module = parseSourceString<ModuleOp>(text, &ctx);
    if (!module)
      return AttentionOp();
    AttentionOp op;
    module->walk([&](AttentionOp a) { op = a; });
    return op;
  }

  /// Replaces the score_mod of a clone of `op` by the derivative
  /// emitWithDerivative writes; null when it refused.
  AttentionOp derivativeOf(AttentionOp op) {
    OpBuilder b(op);
    auto clone = cast<AttentionOp>(b.clone(*op));
    Block &block = clone.getScoreMod().front();
    for (Operation &o : llvm::make_early_inc_range(llvm::reverse(block)))
      o.erase();
    b.setInsertionPointToEnd(&block);
    FailureOr<ValueAndDerivative> vd = emitWithDerivative(
        b, op.getScoreMod(), block.getArguments(), op.getOperation());
    if (failed(vd)) {
      clone.erase();
      return AttentionOp();
    }
    YieldOp::create(b, op.getLoc(), vd->derivative);
    return clone;
  }

  static FailureOr<double> eval(Region &r, double s, int64_t i, int64_t j) {
    EvalValue sv;
    sv.f = s;
    sv.isFloat = true;
    auto idx = [](int64_t v) {
      EvalValue e;
      e.i = v;
      return e;
    };
    FailureOr<EvalValue> out =
        evalRegion(r, {sv, idx(0), idx(1), idx(i), idx(j), EvalValue()},
                   [](unsigned, ArrayRef<int64_t> at) -> FailureOr<EvalValue> {
                     if (at.size() != 1 || at[0] < 0 || at[0] >= 16)
                       return failure();
                     EvalValue e;
                     e.f = bias(at[0]);
                     e.isFloat = true;
                     return e;
                   });
    if (failed(out))
      return failure();
    return out->f;
  }

  /// Checks d/ds of `body` at each of `points` (i = 5, j = 2) against a
  /// central difference of step 1e-4 (error ~1e-8 relative to the
  /// curvature; the regions here are smooth there).
  void check(const std::string &body, std::vector<double> points) {
    AttentionOp op = parse(body);
    ASSERT_TRUE(op) << body;
    AttentionOp grad = derivativeOf(op);
    ASSERT_TRUE(grad) << body;
    for (double s : points) {
      const double h = 1e-4;
      FailureOr<double> hi = eval(op.getScoreMod(), s + h, 5, 2);
      FailureOr<double> lo = eval(op.getScoreMod(), s - h, 5, 2);
      FailureOr<double> d = eval(grad.getScoreMod(), s, 5, 2);
      ASSERT_TRUE(succeeded(hi) && succeeded(lo) && succeeded(d))
          << body << " at " << s;
      double numeric = (*hi - *lo) / (2 * h);
      EXPECT_NEAR(*d, numeric, 1e-6 * (1 + std::fabs(numeric)))
          << body << " at s = " << s;
    }
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

const std::vector<double> kPoints = {-2.75, -0.6, 0.3, 1.1, 3.5};

TEST_F(ModDerivativeTest, Identity) { check("flash.yield %s : f32", kPoints); }

TEST_F(ModDerivativeTest, AddSubNegConstant) {
  check(R"(%c = arith.constant 0.5 : f32
    %x = arith.addf %s, %c : f32
    %y = arith.subf %c, %x : f32
    %z = arith.subf %y, %s : f32
    %n = arith.negf %z : f32
    flash.yield %n : f32)",
        kPoints);
}

TEST_F(ModDerivativeTest, MulDivFma) {
  check(R"(%c = arith.constant 1.5 : f32
    %x = arith.mulf %s, %s : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %x, %one : f32
    %qt = arith.divf %s, %d : f32
    %f = math.fma %qt, %s, %c : f32
    flash.yield %f : f32)",
        kPoints);
}

TEST_F(ModDerivativeTest, SoftcapTanh) {
  // The softcap attribute's form: cap * tanh(s / cap).
  check(R"(%cap = arith.constant 2.0 : f32
    %x = arith.divf %s, %cap : f32
    %th = math.tanh %x : f32
    %y = arith.mulf %th, %cap : f32
    flash.yield %y : f32)",
        kPoints);
}

TEST_F(ModDerivativeTest, ExpLog) {
  check(R"(%c = arith.constant 0.25 : f32
    %x = arith.mulf %s, %c : f32
    %e = math.exp %x : f32
    %e2 = math.exp2 %x : f32
    %em = math.expm1 %x : f32
    %a = arith.addf %e, %e2 : f32
    %b2 = arith.addf %a, %em : f32
    %l = math.log %b2 : f32
    %l2 = math.log2 %e : f32
    %l1 = math.log1p %e2 : f32
    %r = arith.addf %l, %l2 : f32
    %r2 = arith.addf %r, %l1 : f32
    flash.yield %r2 : f32)",
        kPoints);
}

TEST_F(ModDerivativeTest, SqrtRsqrtSinCos) {
  check(R"(%one = arith.constant 1.0 : f32
    %x = arith.mulf %s, %s : f32
    %y = arith.addf %x, %one : f32
    %r = math.sqrt %y : f32
    %rs = math.rsqrt %y : f32
    %si = math.sin %s : f32
    %co = math.cos %r : f32
    %a = arith.addf %r, %rs : f32
    %b2 = arith.mulf %si, %co : f32
    %z = arith.addf %a, %b2 : f32
    flash.yield %z : f32)",
        kPoints);
}

TEST_F(ModDerivativeTest, AbsMaxMinSelect) {
  check(R"(%c = arith.constant -1.0 : f32
    %c2 = arith.constant 2.0 : f32
    %a = math.absf %s : f32
    %m = arith.maximumf %s, %c : f32
    %n = arith.minnumf %m, %c2 : f32
    %p = arith.cmpf ogt, %s, %c : f32
    %sq = arith.mulf %s, %s : f32
    %sel = arith.select %p, %sq, %a : f32
    %x = arith.addf %sel, %n : f32
    flash.yield %x : f32)",
        kPoints);
}

TEST_F(ModDerivativeTest, Casts) {
  // f64 and bf16 in between: the tangent goes through the same casts.
  check(R"(%x = arith.extf %s : f32 to f64
    %y = arith.mulf %x, %x : f64
    %z = arith.truncf %y : f64 to f32
    flash.yield %z : f32)",
        kPoints);
}

TEST_F(ModDerivativeTest, AlibiAndCaptureBias) {
  // ALiBi as flash-tile writes it (s - slope * |i - j|) and a relative bias
  // read from a capture: constants to the derivative.
  check(R"(%d = arith.subi %i, %j : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %slope = arith.constant 0.5 : f32
    %pen = arith.mulf %slope, %df : f32
    %x = arith.subf %s, %pen : f32
    %w = memref.load %t[%d] : memref<16xf32>
    %y = arith.mulf %x, %w : f32
    flash.yield %y : f32)",
        kPoints);
}

TEST_F(ModDerivativeTest, PiecewiseConstantPaths) {
  // floor(s) and an index computed from s are constant almost everywhere:
  // d/ds (s + floor(s) + bias[fptosi(s) + 4]) = 1 off the integers.
  check(R"(%f = math.floor %s : f32
    %k = arith.fptosi %s : f32 to i64
    %four = arith.constant 4 : i64
    %k4 = arith.addi %k, %four : i64
    %ki = arith.index_cast %k4 : i64 to index
    %w = memref.load %t[%ki] : memref<16xf32>
    %a = arith.addf %s, %f : f32
    %b2 = arith.addf %a, %w : f32
    flash.yield %b2 : f32)",
        {-2.75, -0.6, 0.3, 1.1, 3.5});
}

TEST_F(ModDerivativeTest, IndependentOfTheLogitIsZero) {
  AttentionOp op = parse(R"(%w = memref.load %t[%j] : memref<16xf32>
    flash.yield %w : f32)");
  ASSERT_TRUE(op);
  AttentionOp grad = derivativeOf(op);
  ASSERT_TRUE(grad);
  FailureOr<double> d = eval(grad.getScoreMod(), 0.7, 5, 2);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(*d, 0.0);
}

TEST_F(ModDerivativeTest, RefusesAnOpWithoutARule) {
  // atan has no rule; a bit cast would hide the logit's dependence in an
  // integer; an op with a region may compute anything from it.
  for (const char *body : {
           R"(%a = math.atan %s : f32
    flash.yield %a : f32)",
           R"(%i32 = arith.bitcast %s : f32 to i32
    %f = arith.bitcast %i32 : i32 to f32
    flash.yield %f : f32)",
       }) {
    AttentionOp op = parse(body);
    ASSERT_TRUE(op) << body;
    Operation *bad = findNonDifferentiable(op.getScoreMod());
    ASSERT_TRUE(bad) << body;
    EXPECT_EQ(bad, &op.getScoreMod().front().front()) << body;
    std::string message;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    size_t before = op.getScoreMod().front().getOperations().size();
    EXPECT_FALSE(derivativeOf(op)) << body;
    EXPECT_NE(message.find("has no derivative with respect to the logit"),
              std::string::npos)
        << message;
    // Nothing was written: the attention's parent holds only it and return.
    EXPECT_EQ(op.getScoreMod().front().getOperations().size(), before);
  }
}

TEST_F(ModDerivativeTest, IgnoresOpsOffThePath) {
  // atan of a position is no business of the derivative (ScalarEval does
  // not evaluate atan, so this checks the writing, not the numbers).
  AttentionOp op = parse(R"(%jf = arith.index_cast %j : index to i64
    %x = arith.sitofp %jf : i64 to f32
    %a = math.atan %x : f32
    %y = arith.mulf %s, %a : f32
    flash.yield %y : f32)");
  ASSERT_TRUE(op);
  EXPECT_EQ(findNonDifferentiable(op.getScoreMod()), nullptr);
  AttentionOp grad = derivativeOf(op);
  ASSERT_TRUE(grad);
  // d/ds (s * atan(j)) = atan(j): the yielded derivative is the atan.
  Operation *yield = grad.getScoreMod().front().getTerminator();
  Operation *def = yield->getOperand(0).getDefiningOp();
  ASSERT_TRUE(def);
  EXPECT_TRUE(isa<arith::MulFOp>(def));
  bool readsAtan = llvm::any_of(def->getOperands(), [](Value v) {
    return v.getDefiningOp() && isa<math::AtanOp>(v.getDefiningOp());
  });
  EXPECT_TRUE(readsAtan);
}

} // namespace
