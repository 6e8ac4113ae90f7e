//===- FlashDialect.cpp - The flash dialect -------------------------------===//
//
// Registers the flash dialect's ops and attributes, and verifies
// `#flash.config` and the `#flash.frag` tile layouts.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashDialect.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Target/Targets.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <limits>

using namespace mlir;
using namespace mlir::flash;

/// Ranges of #flash.config's parameters (see ConfigAttr::verify).
static constexpr int64_t kMaxBlock = 1 << 16, kMaxWarps = 32, kMaxStages = 64,
                         kMaxSplits = 1 << 16;

#include "flash/Dialect/Flash/IR/FlashOpsDialect.cpp.inc"
#include "flash/Dialect/Flash/IR/FlashEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "flash/Dialect/Flash/IR/FlashAttrs.cpp.inc"

void FlashDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "flash/Dialect/Flash/IR/FlashOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "flash/Dialect/Flash/IR/FlashAttrs.cpp.inc"
      >();
}

Attribute ConfigAttr::parse(AsmParser &parser, Type) {
  int64_t values[4];
  const char *keys[4] = {"block_m", "block_n", "warps", "stages"};
  if (parser.parseLess())
    return {};
  for (int i = 0; i < 4; ++i)
    if ((i && parser.parseComma()) || parser.parseKeyword(keys[i]) ||
        parser.parseEqual() || parser.parseInteger(values[i]))
      return {};
  int64_t splits = 1, producerRegs = 0;
  bool wgmma = false, producer = false, pingpong = false, keyBounds = true,
       uniformBlocks = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key == "splits" || key == "producer_regs") {
      if (parser.parseInteger(key == "splits" ? splits : producerRegs))
        return {};
    } else if (key == "wgmma" || key == "producer" || key == "pingpong" ||
               key == "key_bounds" || key == "uniform_blocks") {
      bool &flag = key == "wgmma"        ? wgmma
                   : key == "producer"   ? producer
                   : key == "pingpong"   ? pingpong
                   : key == "key_bounds" ? keyBounds
                                         : uniformBlocks;
      flag = false;
      if (succeeded(parser.parseOptionalKeyword("true")))
        flag = true;
      else if (parser.parseKeyword("false"))
        return {};
    } else {
      parser.emitError(parser.getCurrentLocation(),
                       "expected 'splits', 'wgmma', 'producer', 'pingpong', "
                       "'producer_regs', 'key_bounds' or 'uniform_blocks', "
                       "got '")
          << key << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), values[0], values[1], values[2],
                    values[3], splits, wgmma, producer, pingpong,
                    producerRegs, keyBounds, uniformBlocks);
}

void ConfigAttr::print(AsmPrinter &printer) const {
  printer << "<block_m = " << getBlockM() << ", block_n = " << getBlockN()
          << ", warps = " << getNumWarps() << ", stages = " << getNumStages();
  if (getNumSplits() != 1)
    printer << ", splits = " << getNumSplits();
  if (getWgmma())
    printer << ", wgmma = true";
  if (getProducer())
    printer << ", producer = true";
  if (getPingpong())
    printer << ", pingpong = true";
  if (getProducerRegs())
    printer << ", producer_regs = " << getProducerRegs();
  if (!getKeyBounds())
    printer << ", key_bounds = false";
  if (getUniformBlocks())
    printer << ", uniform_blocks = true";
  printer << ">";
}

ConfigAttr ConfigAttr::withNumSplits(int64_t numSplits) const {
  return get(getContext(), getBlockM(), getBlockN(), getNumWarps(),
             getNumStages(), numSplits, getWgmma(), getProducer(),
             getPingpong(), getProducerRegs(), getKeyBounds(),
             getUniformBlocks());
}

ConfigAttr ConfigAttr::withMaskAnalyses(bool keyBounds,
                                        bool uniformBlocks) const {
  return get(getContext(), getBlockM(), getBlockN(), getNumWarps(),
             getNumStages(), getNumSplits(), getWgmma(), getProducer(),
             getPingpong(), getProducerRegs(), keyBounds, uniformBlocks);
}

int64_t ConfigAttr::getRowPitch(int64_t headDim) {
  return headDim <= 32 ? headDim : (headDim + 63) / 64 * 64;
}

SmemMap ConfigAttr::getSmemMap(int64_t headDim, int64_t elementBytes) const {
  return SmemMap{
      getBlockM(),  getBlockN(),   getNumStages(), getRowPitch(headDim),
      elementBytes, getProducer(), getWgmma()};
}

int64_t SmemMap::totalBytes() const {
  // Checked: a hand-written config or head dim must not wrap to a size that
  // passes a target's limit.
  using llvm::checkedAdd, llvm::checkedMul;
  std::optional<int64_t> kv = checkedMul(stages, blockN);
  if (kv)
    kv = checkedMul(*kv, 2 * pitch);
  std::optional<int64_t> q = checkedMul(blockM, pitch);
  std::optional<int64_t> tiles = q && kv ? checkedAdd(*q, *kv) : std::nullopt;
  if (tiles)
    tiles = checkedMul(*tiles, elementBytes);
  std::optional<int64_t> barriers =
      checkedMul(stages, producer ? 2 * kBarrierBytes : 0);
  if (tiles && barriers)
    tiles = checkedAdd(*tiles, *barriers + (wgmma ? 1024 : 0));
  return tiles.value_or(std::numeric_limits<int64_t>::max());
}

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t blockM, int64_t blockN,
                                 int64_t numWarps, int64_t numStages,
                                 int64_t numSplits, bool wgmma, bool producer,
                                 bool pingpong, int64_t producerRegs,
                                 bool keyBounds, bool uniformBlocks) {
  // Upper bounds keep every size derived from a config (tiles, unrolled
  // fragments, shared memory, split buffers) far from int64 overflow; each
  // is well above what any target runs.
  if (blockM <= 0 || blockN <= 0 || blockM > kMaxBlock || blockN > kMaxBlock)
    return emitError() << "block_m and block_n must be in [1, " << kMaxBlock
                       << "], got " << blockM << " and " << blockN;
  if (numWarps <= 0 || numWarps > kMaxWarps)
    return emitError() << "warps must be in [1, " << kMaxWarps
                       << "] (a CUDA block has at most 1024 threads), got "
                       << numWarps;
  if (numStages <= 0 || numStages > kMaxStages)
    return emitError() << "stages must be in [1, " << kMaxStages << "], got "
                       << numStages;
  if (numSplits < 0 || numSplits > kMaxSplits)
    return emitError() << "splits must be in [0, " << kMaxSplits
                       << "] (0 = chosen at run time), got " << numSplits;
  if (wgmma && (numWarps % 4 != 0 || blockM != 16 * numWarps))
    return emitError() << "wgmma needs whole warpgroups with 16 rows per warp "
                          "(warps a multiple of 4, block_m = 16 * warps), got "
                       << numWarps << " warps and block_m = " << blockM;
  if (producer && !wgmma)
    return emitError() << "a producer warpgroup needs wgmma = true";
  // The turns alternate between exactly two consumer warpgroups (named
  // barriers 2 and 3), which wait only on the producer otherwise; setmaxnreg
  // moves registers only there (384 threads).
  bool twoConsumerGroups = producer && numWarps == 8;
  if (pingpong && !twoConsumerGroups)
    return emitError() << "pingpong alternates two consumer warpgroups: it "
                          "needs producer = true and warps = 8, got "
                       << (producer ? "" : "no producer and ") << numWarps
                       << " warps";
  // The producer publishes a block only after issuing the next one, which
  // waits for the release of the block `stages` back. With 2 stages,
  // warpgroup 1's release of block j would wait for warpgroup 0's score GEMM
  // of block j + 1 (its turn), which waits for block j + 1, which waits for
  // that release: a deadlock (it hung on the H200).
  if (pingpong && numStages < 3)
    return emitError() << "pingpong needs stages >= 3 (with 2, a warpgroup's "
                          "turn would wait on a block the producer publishes "
                          "only after that warpgroup's release), got "
                       << numStages;
  if (uniformBlocks && pingpong)
    return emitError() << "uniform_blocks does not go with pingpong: the "
                          "turns go around the KV loop body's GEMMs, which "
                          "the per-block branches would split";
  if (producerRegs != 0) {
    if (!twoConsumerGroups)
      return emitError() << "producer_regs sets the producer warpgroup's "
                            "registers beside 8 consumer warps: it needs "
                            "producer = true and warps = 8";
    if (getRegisterSplit(producerRegs).error != RegisterSplit::Error::None)
      return emitError() << "producer_regs must be a multiple of 8 in ["
                         << RegisterSplit::kMinProducerRegs << ", "
                         << RegisterSplit::kMaxProducerRegs << "], got "
                         << producerRegs;
  }
  return success();
}

FragAttr FragAttr::of(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_or_null<FragAttr>(tensor.getEncoding()) : FragAttr();
}

LogicalResult FragAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               FragKind kind, MmaKind mma) {
  bool tile = kind == FragKind::Acc || kind == FragKind::Smem;
  if (tile && mma == MmaKind::None)
    return emitError() << "#flash.frag<" << stringifyFragKind(kind)
                       << "> needs its MMA kind (mma_sync or wgmma)";
  if (!tile && mma != MmaKind::None)
    return emitError() << "#flash.frag<" << stringifyFragKind(kind)
                       << "> takes no MMA kind (the rows of either "
                          "accumulator are the same)";
  return success();
}

LogicalResult
FragAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                         function_ref<InFlightDiagnostic()> emitError) const {
  StringRef name = stringifyFragKind(getKind());
  size_t rank = getKind() == FragKind::Uniform ? 0
                : isRowVector() || getKind() == FragKind::Spread ||
                        getKind() == FragKind::Cta
                    ? 1
                    : 2;
  if (shape.size() != rank)
    return emitError() << "#flash.frag<" << name << "> is the layout of a "
                       << (rank == 0   ? "0-d"
                           : rank == 1 ? "1-D"
                                       : "2-D")
                       << " tile, not "
                       << "of a rank-" << shape.size() << " tensor";
  if (getKind() == FragKind::RowPartial && !elementType.isF32())
    return emitError() << "#flash.frag<row_partial> holds parts of an f32 "
                          "sum, not "
                       << elementType << " values";
  return success();
}
