//===- FlashTileOps.cpp - flash tile-level structure ops ------------------===//
//
// Syntax, verifiers and memory effects of the ops that spell out a tiled
// attention (flash.grid, flash.kv_loop, flash.yield, flash.tile_load,
// flash.tile_store). The verifiers state what the lowerings rely on, so a
// pass that meets these ops needs no knowledge of the pass that made them.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::flash;

//===----------------------------------------------------------------------===//
// GridOp
//===----------------------------------------------------------------------===//

void GridOp::build(OpBuilder &builder, OperationState &state,
                   ValueRange upperBounds, Value kvLens, Value blockMask) {
  state.addOperands(upperBounds);
  if (kvLens)
    state.addOperands(kvLens);
  if (blockMask)
    state.addOperands(blockMask);
  state.getOrAddProperties<Properties>().operandSegmentSizes = {
      int32_t(upperBounds.size()), kvLens ? 1 : 0, blockMask ? 1 : 0};
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value ub : upperBounds)
    block->addArgument(builder.getIndexType(), ub.getLoc());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location);
}

ParseResult GridOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<OpAsmParser::UnresolvedOperand> ubs;
  Type index = parser.getBuilder().getIndexType();
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseOperandList(ubs, ivs.size(),
                              OpAsmParser::Delimiter::Paren) ||
      parser.resolveOperands(ubs, index, result.operands))
    return failure();
  // `kv_lens(%v : type)` and `block_mask(%v : type)`, each optional, in
  // this order.
  std::array<int32_t, 3> segments = {int32_t(ubs.size()), 0, 0};
  static constexpr StringLiteral keywords[] = {"kv_lens", "block_mask"};
  for (auto [i, keyword] : llvm::enumerate(keywords)) {
    if (failed(parser.parseOptionalKeyword(keyword)))
      continue;
    OpAsmParser::UnresolvedOperand operand;
    Type type;
    if (parser.parseLParen() || parser.parseOperand(operand) ||
        parser.parseColonType(type) || parser.parseRParen() ||
        parser.resolveOperand(operand, type, result.operands))
      return failure();
    segments[i + 1] = 1;
  }
  result.getOrAddProperties<Properties>().operandSegmentSizes = segments;
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = index;
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  GridOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void GridOp::print(OpAsmPrinter &p) {
  p << " (" << getInductionVars() << ") in (" << getUpperBounds() << ")";
  if (Value lens = getKvLens())
    p << " kv_lens(" << lens << " : " << lens.getType() << ")";
  if (Value mask = getBlockMask())
    p << " block_mask(" << mask << " : " << mask.getType() << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getOperandSegmentSizesAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult GridOp::verify() {
  size_t axes = getUpperBounds().size();
  Block &body = getBody().front();
  if (body.getNumArguments() != axes ||
      llvm::any_of(body.getArgumentTypes(),
                   [](Type t) { return !t.isIndex(); }))
    return emitOpError("needs one index block argument per upper bound");
  if (getCombine()) {
    if (getConfig() || getCausal() || getWindow() || getScale() ||
        getSoftcap() || getBlockMaskRows() || getKvLens() || getBlockMask() ||
        getBackward())
      return emitOpError("a combine grid takes no #flash.config and no "
                         "attention attributes or operands");
    if (axes != 3)
      return emitOpError("a combine grid has 3 axes (row, head, batch), not ")
             << axes;
    return success();
  }
  if (!getConfig())
    return emitOpError("an attention grid needs a #flash.config");
  if (getBackward() && (axes != 3 || getKvLens()))
    return emitOpError("a backward grid has 3 axes and no kv_lens");
  if (axes != 3 && axes != 4)
    return emitOpError("an attention grid has 3 axes (Q row block, head, "
                       "batch) or 4 (and the split), not ")
           << axes;
  if (!getScale())
    return emitOpError("an attention grid needs the attention's scale");
  if (getWindow() && getWindow()->size() != 2)
    return emitOpError("window must be (left, right)");
  if (getSoftcap() && !(getSoftcap()->convertToFloat() > 0.0f))
    return emitOpError("softcap must be positive");
  if (getBlockMaskRows() && *getBlockMaskRows() < 1)
    return emitOpError("block_mask_rows must be at least 1");
  // The hint and its row count come together: the runtime passes the one
  // the ABI record names with the other.
  if (bool(getBlockMask()) != bool(getBlockMaskRows()))
    return emitOpError("a block_mask operand and block_mask_rows come "
                       "together");
  if (Value mask = getBlockMask()) {
    int64_t last = cast<MemRefType>(mask.getType()).getDimSize(3);
    if (last != 4)
      return emitOpError("the block_mask hint's rows are (vlo, vhi, flo, "
                         "fhi): its last dimension must be a static 4, not ")
             << (ShapedType::isDynamic(last) ? "?" : std::to_string(last));
  }
  if (getConfig()->getNumSplits() != 1 && axes != 4)
    return emitOpError("a config with splits != 1 needs the split axis");
  return success();
}

//===----------------------------------------------------------------------===//
// KVLoopOp
//===----------------------------------------------------------------------===//

ParseResult KVLoopOp::parse(OpAsmParser &parser, OperationState &result) {
  Type index = parser.getBuilder().getIndexType();
  OpAsmParser::Argument block;
  OpAsmParser::UnresolvedOperand lower, upper;
  block.type = index;
  StringRef roleName;
  SMLoc roleLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&roleName))
    return failure();
  std::optional<KVLoopRole> role = symbolizeKVLoopRole(roleName);
  if (!role)
    return parser.emitError(roleLoc, "expected a KV loop role (masked_right, "
                                     "main, mask_mod or masked_left), not '")
           << roleName << "'";
  result.addAttribute(getRoleAttrName(result.name),
                      KVLoopRoleAttr::get(parser.getContext(), *role));
  if (parser.parseArgument(block) || parser.parseEqual() ||
      parser.parseOperand(lower) || parser.parseKeyword("to") ||
      parser.parseOperand(upper) ||
      parser.resolveOperand(lower, index, result.operands) ||
      parser.resolveOperand(upper, index, result.operands))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("reversed")))
    result.addAttribute("reversed", parser.getBuilder().getUnitAttr());
  SmallVector<OpAsmParser::Argument> args = {block};
  SmallVector<OpAsmParser::UnresolvedOperand> inits;
  if (succeeded(parser.parseOptionalKeyword("iter_args"))) {
    if (parser.parseAssignmentList(args, inits) ||
        parser.parseArrowTypeList(result.types))
      return failure();
    if (result.types.size() != inits.size())
      return parser.emitError(parser.getNameLoc(),
                              "needs one result type per iter_arg");
    for (auto [arg, type] : llvm::zip(llvm::drop_begin(args), result.types))
      arg.type = type;
    if (parser.resolveOperands(inits, result.types, parser.getNameLoc(),
                               result.operands))
      return failure();
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, args);
}

void KVLoopOp::print(OpAsmPrinter &p) {
  p << ' ' << stringifyKVLoopRole(getRole()) << ' ' << getBlockIndex() << " = "
    << getLower() << " to " << getUpper();
  if (getReversed())
    p << " reversed";
  if (!getInits().empty()) {
    p << " iter_args(";
    llvm::interleaveComma(llvm::zip(getRegionIterArgs(), getInits()), p,
                          [&](auto pair) {
                            p << std::get<0>(pair) << " = "
                              << std::get<1>(pair);
                          });
    p << ") -> (" << getResultTypes() << ")";
  }
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {"reversed", getRoleAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult KVLoopOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInits().size() + 1 ||
      !body.getArgument(0).getType().isIndex())
    return emitOpError("needs the block index and one block argument per "
                       "iter_arg");
  for (auto [arg, init] : llvm::zip(getRegionIterArgs(), getInits()))
    if (arg.getType() != init.getType())
      return emitOpError("iter_arg types must match the inits");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().getTypes() != getResultTypes())
    return emitOpError("body must end in a flash.yield of the result types");
  return success();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  if (isa<GridOp>((*this)->getParentOp()) && !getValues().empty())
    return emitOpError("of a grid yields nothing");
  return success();
}

//===----------------------------------------------------------------------===//
// TileLoadOp / TileStoreOp
//===----------------------------------------------------------------------===//

/// True inside a grid of flash.attention_backward, whose tiles have the
/// backward's roles.
static bool inBackwardGrid(Operation *op) {
  auto grid = op->getParentOfType<GridOp>();
  return grid && grid.getBackward();
}

LogicalResult TileLoadOp::verify() {
  auto src = cast<MemRefType>(getSource().getType());
  auto tile = cast<RankedTensorType>(getResult().getType());
  TileRole role = getRole();
  if (role == TileRole::Lse || role == TileRole::Delta) {
    if (src.getRank() != 3 || tile.getRank() != 1 || !tile.hasStaticShape() ||
        !src.getElementType().isF32())
      return emitOpError("reads lse and delta as a static f32 [rows] tile of "
                         "a [batch, heads, seq] memref");
  } else {
    if (src.getRank() != 4)
      return emitOpError("source must be a [batch, heads, seq, dim] memref");
    if (tile.getRank() != 2 || !tile.hasStaticShape())
      return emitOpError("result must be a static [rows, dim] tile");
    if (tile.getDimSize(1) != src.getDimSize(kDimPos))
      return emitOpError("tile has ")
             << tile.getDimSize(1) << " columns, the source's head dim is "
             << src.getDimSize(kDimPos);
  }
  if (tile.getElementType() != src.getElementType())
    return emitOpError("tile and source element types differ");
  if (auto table = getBlockTable()) {
    auto type = cast<MemRefType>(table.getType());
    if (type.getRank() != 2 || !type.getElementType().isInteger(32))
      return emitOpError("block table must be an i32 [batch, pages] memref");
  }
  // A slot names where the K/V pipeline put this iteration's block.
  if (getSlot() && !isa<KVLoopOp>((*this)->getParentOp()))
    return emitOpError("reads a pipeline slot only as a K/V load of a "
                       "flash.kv_loop body");
  // The backward's programs read every operand but the gradients they
  // write; training reads no KV cache.
  if (inBackwardGrid(*this)) {
    if (role == TileRole::DK || role == TileRole::DV)
      return emitOpError("reads no ")
             << stringifyTileRole(role) << ": the backward writes it";
    if (getBlockTable() || getSlot())
      return emitOpError("reads no block table or pipeline slot in a "
                         "backward grid");
    return success();
  }
  // Later passes tell the operands apart by these roles.
  if (role != TileRole::Q && role != TileRole::K && role != TileRole::V)
    return emitOpError("reads q, k or v, not ") << stringifyTileRole(role);
  bool inLoop = isa<KVLoopOp>((*this)->getParentOp());
  if ((role == TileRole::Q) == inLoop)
    return emitOpError(role == TileRole::Q
                           ? "reads the q tile only outside a flash.kv_loop"
                           : "reads k and v tiles only in a flash.kv_loop body");
  if (getBlockTable() && role == TileRole::Q)
    return emitOpError("reads only k and v through a block table");
  return success();
}

void TileLoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSourceMutable(),
                       SideEffects::DefaultResource::get());
  for (OpOperand &table : getBlockTableMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &table,
                         SideEffects::DefaultResource::get());
}

LogicalResult TileStoreOp::verify() {
  auto dest = cast<MemRefType>(getDest().getType());
  auto tile = cast<RankedTensorType>(getTile().getType());
  int64_t planeIndices = int64_t(getIndices().size()) - 1;
  if (tile.getRank() < 1 || tile.getRank() > 2)
    return emitOpError("tile must be [rows, dim] or [rows]");
  if (planeIndices < 2 || planeIndices > 3)
    return emitOpError("needs ([split,] batch, head, row) indices");
  if (dest.getRank() != planeIndices + tile.getRank())
    return emitOpError("destination of rank ")
           << dest.getRank() << " does not take a rank-" << tile.getRank()
           << " tile at " << getIndices().size() << " indices";
  if (tile.getElementType() != dest.getElementType())
    return emitOpError("tile and destination element types differ");
  if (tile.getRank() == 2 &&
      tile.getDimSize(1) != dest.getDimSize(dest.getRank() - 1))
    return emitOpError("tile has ")
           << tile.getDimSize(1) << " columns, the destination "
           << dest.getDimSize(dest.getRank() - 1);
  TileRole role = getRole();
  bool rowVector = role == TileRole::Lse || role == TileRole::Delta;
  if (inBackwardGrid(*this)) {
    if (role != TileRole::Delta && role != TileRole::DQ &&
        role != TileRole::DK && role != TileRole::DV)
      return emitOpError("writes delta, dq, dk or dv in a backward grid, not ")
             << stringifyTileRole(role);
  } else if (role != TileRole::O && role != TileRole::Lse) {
    return emitOpError("writes o or lse, not ") << stringifyTileRole(role);
  }
  if (rowVector == (tile.getRank() == 2))
    return emitOpError("writes o, dq, dk and dv as a [rows, dim] tile, lse "
                       "and delta as [rows]");
  return success();
}

void TileStoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getDestMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult TileAccumulateOp::verify() {
  auto dest = cast<MemRefType>(getDest().getType());
  auto tile = cast<RankedTensorType>(getTile().getType());
  if (getRole() != TileRole::DQ)
    return emitOpError("accumulates dq, not ") << stringifyTileRole(getRole());
  if (tile.getRank() != 2 || !tile.hasStaticShape())
    return emitOpError("tile must be a static [rows, dim] tile");
  if (tile.getDimSize(1) != dest.getDimSize(kDimPos))
    return emitOpError("tile has ")
           << tile.getDimSize(1) << " columns, the destination "
           << dest.getDimSize(kDimPos);
  return success();
}

void TileAccumulateOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getDestMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getDestMutable(),
                       SideEffects::DefaultResource::get());
}
