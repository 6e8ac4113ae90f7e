//===- FlashPlan.cpp - Choose kernel configurations -----------------------===//
//
// flash-plan: records a #flash.config on every flash.attention that has none.
// The choice is FlashAttention-2's launch-template table, adjusted to the
// target's shared memory; later passes read the attribute and never decide
// again, so a user can override any choice by writing the attribute.
//
//===----------------------------------------------------------------------===//

#include "UniformBlocks.h"

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Target/Targets.h"
#include "flash/Dialect/Flash/Utils/MaskKeys.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHPLAN
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

struct FlashPlanPass : flash::impl::FlashPlanBase<FlashPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(checkOptionRange(root, "flash-plan", "num-sms", numSMs, 1,
                                1024)) ||
        failed(checkOptionRange(root, "flash-plan", "smem-kb",
                                smemPerBlockKB, 1, 1024)) ||
        failed(checkOptionRange(root, "flash-plan", "long-causal-rows",
                                longCausalRows, 0,
                                std::numeric_limits<int64_t>::max())))
      return signalPassFailure();
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      if (!op.getConfig()) {
        ops.push_back(op);
        return;
      }
      // A given config keeps its tiles; flash-tile's mask analyses are
      // still this pass's options.
      ConfigAttr kept = *op.getConfig();
      op.setConfigAttr(kept.withMaskAnalyses(
          keyBounds, uniformBlocks && !kept.getPingpong()));
      ++numKept;
    });
    // The backward's programs: 64 x 64 tiles (FA2's smallest backward
    // block, flash_bwd_launch_template.h) until its GPU lowering measures
    // its own; its tiling reads no mask analysis yet. A given config stays.
    getOperation()->walk([&](AttentionBackwardOp op) {
      if (op.getConfig()) {
        ++numKept;
        return;
      }
      op.setConfigAttr(ConfigAttr::get(
          op.getContext(), /*blockM=*/64, /*blockN=*/64, /*warps=*/4,
          /*stages=*/1, /*splits=*/1, /*wgmma=*/false, /*producer=*/false,
          /*pingpong=*/false, /*producerRegs=*/0, /*keyBounds=*/false,
          /*uniformBlocks=*/false));
      ++numPlanned;
    });
    for (AttentionOp op : ops) {
      if (!longCausal(op)) {
        op.setConfigAttr(plan(op, /*longRows=*/false));
        ++numPlanned;
        continue;
      }
      int64_t seqQ = op.getShape().seqQ;
      // The tensor form keeps one kernel: its function boundary is
      // bufferized alone (flash-lower-to-gpu), not an scf.if's results.
      if (!ShapedType::isDynamic(seqQ) || !op.hasPureBufferSemantics()) {
        op.setConfigAttr(plan(op, !ShapedType::isDynamic(seqQ) &&
                                      seqQ >= longCausalRows));
        ++numPlanned;
        continue;
      }
      version(op);
      numPlanned += 2;
      ++numVersioned;
    }
  }

  /// The plain causal op (no mods, ALiBi, softcap, window, kv_lens or
  /// paging) at head dim 128 on sm_90a whose plan depends on Sq.
  bool longCausal(AttentionOp op) {
    AttentionShape s = op.getShape();
    return wgmma && longCausalRows > 0 && op.getCausal() && !op.hasMods() &&
           s.headDim == 128 && s.headDimV == 128 && !op.getAlibiSlopes() &&
           !op.getKvLens() && !op.getBlockTable() && !op.getCuSeqlensQ() &&
           !op.getSoftcap() && !op.getWindow() && !op.getBlockMask() &&
           !op.isPartial() &&
           (ShapedType::isDynamic(s.seqQ) || s.seqQ > 64);
  }

  /// `op` twice under `scf.if Sq >= long-causal-rows`: the long kernel
  /// first, the short one in the else branch, each with its own config.
  void version(AttentionOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value q = op.getQuery();
    Value seqQ = isa<MemRefType>(q.getType())
                     ? memref::DimOp::create(b, loc, q, kSeqPos).getResult()
                     : tensor::DimOp::create(b, loc, q, kSeqPos).getResult();
    Value isLong = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sge, seqQ,
        arith::ConstantIndexOp::create(b, loc, longCausalRows));
    auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), isLong,
                                  /*withElseRegion=*/true);
    op->replaceAllUsesWith(ifOp.getResults());
    auto fill = [&](Block *block, AttentionOp attention, bool longRows) {
      attention.setConfigAttr(plan(attention, longRows));
      OpBuilder yb = OpBuilder::atBlockEnd(block);
      if (block->empty() || !block->back().hasTrait<OpTrait::IsTerminator>())
        scf::YieldOp::create(yb, loc, attention->getResults());
    };
    b.setInsertionPointToStart(ifOp.thenBlock());
    auto longOp = cast<AttentionOp>(b.clone(*op));
    fill(ifOp.thenBlock(), longOp, true);
    op->moveBefore(ifOp.elseBlock(), ifOp.elseBlock()->begin());
    fill(ifOp.elseBlock(), op, false);
  }

  ConfigAttr plan(AttentionOp op, bool longRows) {
    {
      AttentionShape s = op.getShape();
      int64_t d = std::max(s.headDim, s.headDimV);
      const int64_t cpAsyncStages = smVersion >= 80 ? 2 : 1;
      int64_t stages = cpAsyncStages;
      int64_t elementBytes =
          cast<ShapedType>(op.getQuery().getType()).getElementTypeBitWidth() /
          8;
      // FA2's table (flash_fwd_launch_template.h, sm80/sm90), except for
      // hdim <= 64: FA2 takes 128 x 128, but our kernel is 1.06x FA2 at
      // 128 x 64 and 0.93x at 128 x 128, where S needs 128 registers and
      // ptxas spills (H200,
      // bench/results/2026-11-29-h200-mma-sync-tile-sweep.txt).
      int64_t blockM = 128, blockN = 64;
      int64_t warps = d <= 128 ? 4 : 8;
      // Causal hdim 128: 64 x 64 (one m-tile per warp, 240 registers, no
      // spills, 2 programs per SM) ran 0.95-1.03x FA2 where 128 x 64 (255
      // registers, spills) ran 0.89-0.93x (...-mma-sync-tile-sweep.txt);
      // without the mask's extra work 128 x 64 stays ahead.
      if (op.getCausal() && d > 64 && d <= 128) {
        blockM = 64;
        warps = 4;
      }
      // The kernel's own shared-memory map (SmemMap) decides what fits.
      auto fa2Config =
          ConfigAttr::get(op.getContext(), blockM, blockN, warps, stages,
                          /*numSplits=*/1, /*wgmma=*/false, /*producer=*/false,
                          /*pingpong=*/false, /*producerRegs=*/0,
                          /*keyBounds=*/true, /*uniformBlocks=*/false);
      if (d > 192 && fa2Config.getKernelSharedMemoryBytes(d, elementBytes) >
                         smemPerBlockKB * 1024) {
        // hdim 256 on a smaller-smem part: 64 x 64 with 4 warps.
        blockM = 64;
        warps = 4;
      }
      // sm_90a: warpgroup MMA, one 16-row m-tile per warp. The tile sweeps
      // (bench/results/2026-11-29-h200-wgmma-tile-sweep.txt) picked these.
      bool useWgmma = false, producer = false, pingpong = false;
      if (wgmma && s.headDim == s.headDimV &&
          llvm::is_contained({64, 128, 192, 256}, d)) {
        useWgmma = true;
        // A document mask whose blocks flash-tile decides in the program
        // (uniform-blocks) runs no mask on the blocks it keeps whole and
        // skips those it rules out; its decision is per program and per KV
        // block, so more rows a program share it.
        bool uniform = uniformBlocks && !op.getBlockMask() &&
                       UniformKeyTest::analyze(op).has_value();
        if (d == 64) {
          // 128 x 64 on two lockstep warpgroups: 0.40-0.55x the unmasked
          // kernel over random documents against 0.61-0.69x with 64 x 64,
          // 1.15-1.18x over one document (every block whole) against
          // 1.16-1.18x (bench/results/2026-12-04-h200-uniform-blocks.log).
          blockM = 64, blockN = 64, warps = 4;
          if (uniform)
            blockM = 128, warps = 8;
        } else if (d == 128) {
          if (op.getCausal())
            blockM = 64, blockN = 96, warps = 4;
          else
            blockM = 192, blockN = 96, warps = 12;
        } else {
          blockM = 128, blockN = 64, warps = 8;
        }
        // A mask_mod at hdim 128 (causal: without a block_mask hint): FA3's
        // producer warpgroup (128 x 96, 8 consumer warps, 3 stages). Its
        // consumers do not run in lockstep, so one warpgroup's mask work
        // overlaps the other's GEMMs: a document mask cost 1.16-1.21x the
        // unmasked kernel against 1.50x with 192 x 96 (bench/results/
        // 2026-12-02-h200-mask-mod-producer-config.log). Without a
        // block_mask hint the mask runs on every
        // block, and FA3's ping-pong turns hide it under the other
        // warpgroup's GEMMs: document mask and prefix-LM 1.04-1.10x the
        // unmasked kernel against 1.09-1.20x without turns
        // (bench/results/2026-12-02-h200-mask-mod-pingpong.log).
        // With a hint most blocks run no mask, and the turns cost the
        // unmasked loop 9-17 %.
        // FA3's 128 x 128 tile with turns and producer_regs = 40 ran
        // 1.02-1.04x the unmasked kernel (-mask-mod-pingpong.log), but spills
        // (24-92 bytes at every split), where 128 x 96 spills nothing.
        // Causal: the same turns (unhinted only) once the grid runs its
        // longest programs first: 0.945-0.949x the time of 64 x 96 at 16k,
        // 1.000x at 4k (-mask-mod-pingpong.log); a hinted causal mask keeps
        // 64 x 96 (the producer was not measured there).
        // A mask_mod whose key tests flash-tile turns into a hint counts
        // as hinted (MaskKeys.h).
        bool unhinted = !op.getBlockMask() &&
                        !(keyBounds && MaskKeyBounds::analyze(op));
        if (d == 128 && !op.getMaskMod().empty() &&
            (!op.getCausal() || unhinted)) {
          blockM = 128, blockN = 96, warps = 8, stages = 3, producer = true;
          pingpong = unhinted;
          // Uniform blocks (not under turns, which flash-pingpong places
          // around the loop body's GEMMs): 0.40-0.41x the unmasked kernel
          // over random documents and 1.055x over one document, against
          // 1.00x and 1.07-1.11x with turns and the mask on every block;
          // causal 0.44-0.49x and 1.10-1.11x against 1.08-1.10x and 1.15x
          // (bench/results/2026-12-04-h200-uniform-blocks.log).
          if (uniform)
            pingpong = false;
        }
        // Long causal rows (long-causal-rows): the producer config without
        // turns, 1.009-1.091x the speed of 64 x 96 from Sq = 2k to 16k and
        // 0.906 / 0.958x at 512 / 1k (bench/results/2026-12-03-h200-
        // long-causal-rows.log; with turns 0.85-0.92x).
        if (longRows)
          blockM = 128, blockN = 96, warps = 8, stages = 3, producer = true;
        auto planned = ConfigAttr::get(op.getContext(), blockM, blockN, warps,
                                       stages, 1, /*wgmma=*/true, producer,
                                       pingpong, /*producerRegs=*/0, keyBounds,
                                       /*uniformBlocks=*/false);
        if (planned.getKernelSharedMemoryBytes(d, elementBytes) >
            smemPerBlockKB * 1024)
          useWgmma = false, producer = false, pingpong = false,
          stages = cpAsyncStages, blockM = 64, blockN = 64, warps = 4;
      }
      // Decode and short chunks (static Sq <= 64, e.g. after flash-fold-gqa):
      // Flash-Decoding. Query blocks shrink to the rows there are (16 rows
      // = one warp's m16 tile; FA2's split kernel uses 64), and the split
      // count is left to run time (splits = 0, flash-split-kv). The tensor
      // form is not split, and decode stays on mma.sync.
      int64_t splits = 1;
      if (!ShapedType::isDynamic(s.seqQ) && s.seqQ <= 64 && d <= 128) {
        useWgmma = false, producer = false, pingpong = false;
        stages = cpAsyncStages;
        blockM = s.seqQ <= 16 ? 16 : 64;
        warps = blockM / 16;
        blockN = 64;
        if (op.hasPureBufferSemantics() && !op.isPartial())
          splits = 0;
      }
      // flash-tile's mask analyses are this pass's options, recorded in the
      // config so that the two passes cannot disagree (uniform blocks never
      // under the ping-pong turns).
      return ConfigAttr::get(op.getContext(), blockM, blockN, warps, stages,
                             splits, useWgmma, producer, pingpong,
                             /*producerRegs=*/0, keyBounds,
                             uniformBlocks && !pingpong);
    }
  }
};

} // namespace
