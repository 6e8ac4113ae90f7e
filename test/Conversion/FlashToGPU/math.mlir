// RUN: sed -e 's/, wgmma = true//' -e 's/wgmma>/mma_sync>/g' %S/Inputs/math.mlir \
// RUN:   | flash-opt -split-input-file --flash-to-gpu --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,MMA
// RUN: flash-opt %S/Inputs/math.mlir -split-input-file --flash-to-gpu="chip=sm_90a" --canonicalize --cse \
// RUN:   | FileCheck %s --check-prefixes=CHECK,WG

// The arithmetic of the GPU kernels flash-to-gpu emits, pinned formula by
// formula (no GPU runs in CI; bench/correctness.py runs the kernels on an
// H200). Canonicalize + CSE only fold constants and share values, so each
// CHECK names the operands of one formula and the test fails when an
// operand, an offset or a constant changes:
//  * thread -> fragment row: qRow = row0 + 16 * warp + lane / 4 (+ 8), key
//    column j = col0 + 2 * (lane % 4) (+ 1, + 8, + 9);
//  * mask: j < Sk, causal j <= qRow + (Sk - Sq), window
//    qRow + off - left <= j <= qRow + off + right, masked S = -inf;
//  * softcap: S = cap * tanh(S * (scale / cap));
//  * online softmax: m_new = max(m, rowmax S) over the quad (xor 1, 2);
//    ms = m_new * c * log2(e) (0 while m_new = -inf); alpha =
//    exp2(m * c * log2(e) - ms); P = exp2(S * c * log2(e) - ms) as one FMA;
//    l = l * alpha + rowsum P; acc *= alpha;
//  * epilogue: l summed over the quad; O = acc * (l == 0 ? 0 : 1 / l);
//    LSE = l == 0 ? -inf : m * c + ln2 * log2(l).
// c is the logit factor: the scale without softcap, 1 with it (S is then
// already scaled). The mma.sync (sm_90) and wgmma (sm_90a, config
// wgmma = true) kernels share this math; both are checked.
// The formulas come in with the input, Inputs/math.mlir, as
// flash-online-softmax wrote them (flash-online-softmax.mlir pins them at
// that level); what this test pins is how flash-to-gpu distributes each over
// the thread's registers and lanes. The input is the wgmma configuration's;
// the first RUN drops wgmma from its config and layouts, which is the IR
// flash-pipeline-kv writes for the mma.sync configuration.

// Causal, scale 0.25: c * log2(e) = 0.360673755 and LSE's c = 0.25.
// @causal (Inputs/math.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
//       {causal, scale = 0.25 : f32,
//        config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
// CHECK-LABEL: func.func @causal(
// The kernel's Sq and Sk are the host's dim 2 of Q and of K, passed as the
// last arguments but one (the GQA group is the last).
// CHECK-DAG: %[[DQ:.*]] = memref.dim %arg0, %c2 :
// CHECK-DAG: %[[DK:.*]] = memref.dim %arg1, %c2 :
// CHECK-DAG: %[[SQ64:.*]] = arith.index_cast %[[DQ]] : index to i64
// CHECK-DAG: %[[SK64:.*]] = arith.index_cast %[[DK]] : index to i64
// CHECK: gpu.launch_func  @flash_kernels::@causal_kernel {{.*}}, %[[SQ64]] : i64, %[[SK64]] : i64, %{{[0-9]+}} : i64)
// CHECK: gpu.func @causal_kernel({{.*}}, %arg29: i64, %arg30: i64, %arg31: i64) kernel
// CHECK-DAG: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK-DAG: %[[LSEC:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[CL2E:.*]] = arith.constant 0.360673755 : f32
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[SK:.*]] = arith.index_cast %arg30 : i64 to index
// CHECK-DAG: %[[SQ:.*]] = arith.index_cast %arg29 : i64 to index
// Causal: block x runs Q row block gridDim.x - 1 - x (the longest first),
// on both instruction sets.
// CHECK: %[[NX:.*]] = gpu.grid_dim  x
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[NX]], %c1 : index
// CHECK-NEXT: %[[MB:.*]] = arith.subi %[[LAST]], %block_id_x : index
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK-NEXT: %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK-NEXT: %[[G:.*]] = arith.divui %[[LANE]], %c4 : index
// CHECK-NEXT: %[[TQ:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK: %[[ROW0:.*]] = arith.muli %[[MB]], %c64 : index
// CHECK: %[[OFF:.*]] = arith.subi %[[SK]], %[[SQ]] : index
// The diagonal band, right to left: the first loop carries m = -inf and
// l = 0 in (after the accumulators).
// CHECK: %[[FIRST:.*]]:[[N:[0-9]+]] = scf.for %[[IV:.*]] = {{.*}} iter_args({{.*}}%[[M0:arg[0-9]+]] = %[[NINF]], %{{.*}} = %[[NINF]], %[[L0:arg[0-9]+]] = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %c0)
// CHECK-NEXT: %[[BLK:.*]] = arith.subi %{{.*}}, %[[IV]] : index
// CHECK-NEXT: %[[COL0:.*]] = arith.muli %[[BLK]], %c32 : index
// WG: nvvm.wgmma.mma_async
// MMA: nvvm.mma.sync
// The mask generic per register: row + linalg.index 0 is row0 + the
// thread's row 16 * warp + g (16 * warp is shared with the GEMM's
// addressing) plus a per-register constant, col + linalg.index 1 is
// col0 + 2 * (lane % 4) plus one: each register adds only its constant.
// CHECK: %[[R:.*]] = arith.addi %[[WROW:.*]], %[[G]] : index
// CHECK-NEXT: %[[QROW:.*]] = arith.addi %[[ROW0]], %[[R]] : index
// CHECK-NEXT: %[[TQ2:.*]] = arith.muli %[[TQ]], %c2 : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[COL0]], %[[TQ2]] : index
// CHECK-NEXT: %[[DIAG:.*]] = arith.addi %[[QROW]], %[[OFF]] : index
// CHECK-NEXT: %[[END:.*]] = arith.cmpi slt, %[[J]], %[[SK]] : index
// CHECK-NEXT: %[[CAUSAL:.*]] = arith.cmpi sle, %[[J]], %[[DIAG]] : index
// CHECK-NEXT: %[[VIS:.*]] = arith.andi %[[END]], %[[CAUSAL]] : i1
// CHECK-NEXT: %[[S0:.*]] = arith.select %[[VIS]], %{{.*}}, %[[NINF]] : f32
// CHECK-NEXT: %[[J1:.*]] = arith.addi %[[J]], %c1 overflow<nsw> : index
// CHECK-NEXT: %[[END1:.*]] = arith.cmpi slt, %[[J1]], %[[SK]] : index
// CHECK-NEXT: %[[CAUSAL1:.*]] = arith.cmpi sle, %[[J1]], %[[DIAG]] : index
// CHECK-NEXT: %[[VIS1:.*]] = arith.andi %[[END1]], %[[CAUSAL1]] : i1
// CHECK-NEXT: %[[S1:.*]] = arith.select %[[VIS1]], %{{.*}}, %[[NINF]] : f32
// mma.sync: op after op in register order, so the thread's second row (8
// rows on, same columns) comes next. wgmma: the softmax between the GEMMs
// is emitted one thread row at a time (lowerBody), so the same row's next
// n-tile (8 columns on) comes next and the second row only after the
// first row's whole softmax.
// MMA-NEXT: %[[QROW8:.*]] = arith.addi %[[QROW]], %c8 overflow<nsw> : index
// MMA-NEXT: %[[DIAG8:.*]] = arith.addi %[[QROW8]], %[[OFF]] : index
// MMA-NEXT: %[[CAUSAL8:.*]] = arith.cmpi sle, %[[J]], %[[DIAG8]] : index
// MMA-NEXT: %[[VIS8:.*]] = arith.andi %[[END]], %[[CAUSAL8]] : i1
// MMA: %[[J8:.*]] = arith.addi %[[J]], %c8 overflow<nsw> : index
// WG-NEXT: %[[J8:.*]] = arith.addi %[[J]], %c8 overflow<nsw> : index
// WG-NOT: arith.addi %[[QROW]], %c8
// Row max of the first row: the in-thread tree, the running max m, then
// the quad (xor 1, 2).
// CHECK: llvm.call_intrinsic "llvm.maxnum.f32"(%[[S0]], %[[S1]])
// CHECK: %[[RMAX:.*]] = llvm.call_intrinsic "llvm.maxnum.f32"(%{{.*}}, %[[M0]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[X1:.*]], %{{.*}} = gpu.shuffle  xor %[[RMAX]], %c1_i32, %c32_i32 : f32
// CHECK-NEXT: %[[RMAX1:.*]] = llvm.call_intrinsic "llvm.maxnum.f32"(%[[RMAX]], %[[X1]])
// CHECK-NEXT: %[[X2:.*]], %{{.*}} = gpu.shuffle  xor %[[RMAX1]], %c2_i32, %c32_i32 : f32
// CHECK-NEXT: %[[MNEW:.*]] = llvm.call_intrinsic "llvm.maxnum.f32"(%[[RMAX1]], %[[X2]])
// ms = m_new * c * log2(e), 0 while the row saw no key; P = exp2 of one
// FMA per register; alpha = exp2(m * c * log2(e) - ms).
// CHECK: %[[MSC:.*]] = arith.mulf %[[MNEW]], %[[CL2E]] fastmath<contract> : f32
// CHECK-NEXT: %[[NOKEY:.*]] = arith.cmpf oeq, %[[MNEW]], %[[NINF]] fastmath<contract> : f32
// CHECK-NEXT: %[[MS:.*]] = arith.select %[[NOKEY]], %[[ZERO]], %[[MSC]] : f32
// CHECK: %[[NEGMS:.*]] = arith.negf %[[MS]] fastmath<contract> : f32
// CHECK-NEXT: %[[PX0:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[S0]], %[[CL2E]], %[[NEGMS]])
// CHECK-NEXT: %[[P0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[PX0]])
// CHECK-NEXT: %[[PX1:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[S1]], %[[CL2E]], %[[NEGMS]])
// CHECK-NEXT: %[[P1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[PX1]])
// CHECK: %[[AX:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[M0]], %[[CL2E]], %[[NEGMS]])
// CHECK-NEXT: %[[ALPHA:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[AX]])
// l stays a thread-partial sum: l * alpha plus the thread's own P, no
// shuffle for it anywhere in the loop.
// CHECK: %[[LS:.*]] = arith.mulf %[[L0]], %[[ALPHA]] fastmath<contract> : f32
// CHECK-NOT: gpu.shuffle
// CHECK: arith.addf %[[P1]], %[[P0]] fastmath<contract> : f32
// CHECK-NOT: gpu.shuffle
// CHECK: arith.addf %[[LS]], %{{.*}} fastmath<contract> : f32
// CHECK-NOT: gpu.shuffle
// acc *= alpha; P packed in register pairs for the second GEMM.
// CHECK: arith.mulf %{{.*}}, %[[ALPHA]] fastmath<contract> : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[PV0:.*]] = llvm.insertelement %[[P0]], %{{.*}}[%c0_i32 : i32] : vector<2xf32>
// CHECK-NEXT: %[[PV1:.*]] = llvm.insertelement %[[P1]], %[[PV0]][%c1_i32 : i32] : vector<2xf32>
// CHECK-NEXT: arith.truncf %[[PV1]] : vector<2xf32> to vector<2xbf16>
// wgmma: only now the second row, whose softmax has the two shuffles of
// its own max and none for l.
// WG: arith.addi %[[QROW]], %c8 overflow<nsw> : index
// WG-COUNT-2: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: } {flash.kv_loop = "masked_right"}
// The unmasked loop carries the same slots on.
// CHECK: %[[MAIN:.*]]:[[N]] = scf.for {{.*}} iter_args({{.*}}%[[MM0:arg[0-9]+]] = %[[FIRST]]#[[MI:[0-9]+]], %{{.*}} = %[[FIRST]]#{{[0-9]+}}, %[[ML0:arg[0-9]+]] = %[[FIRST]]#[[LI:[0-9]+]], %{{.*}} = %[[FIRST]]#{{[0-9]+}}, %{{.*}} = %[[FIRST]]#{{[0-9]+}})
// CHECK: llvm.call_intrinsic "llvm.maxnum.f32"(%{{.*}}, %[[MM0]])
// CHECK: llvm.call_intrinsic "llvm.fma.f32"(%[[MM0]], %[[CL2E]], %{{.*}})
// CHECK: arith.mulf %[[ML0]], %{{.*}} fastmath<contract> : f32
// CHECK: } {flash.kv_loop = "main"}
// Epilogue of the first row: the quad's total of l, once.
// CHECK-NEXT: %[[LX1:.*]], %{{.*}} = gpu.shuffle  xor %[[MAIN]]#[[LI]], %c1_i32, %c32_i32 : f32
// CHECK-NEXT: %[[LS1:.*]] = arith.addf %[[MAIN]]#[[LI]], %[[LX1]] : f32
// CHECK-NEXT: %[[LX2:.*]], %{{.*}} = gpu.shuffle  xor %[[LS1]], %c2_i32, %c32_i32 : f32
// CHECK-NEXT: %[[LSUM:.*]] = arith.addf %[[LS1]], %[[LX2]] : f32
// O = acc * (l == 0 ? 0 : 1 / l).
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[LSUM]], %[[ZERO]] fastmath<contract> : f32
// CHECK-NEXT: %[[RCP:.*]] = arith.divf %[[ONE]], %[[LSUM]] fastmath<contract> : f32
// CHECK-NEXT: %[[INV:.*]] = arith.select %[[EMPTY]], %[[ZERO]], %[[RCP]] : f32
// CHECK-NEXT: arith.mulf %[[MAIN]]#0, %[[INV]] fastmath<contract> : f32
// CHECK-NEXT: arith.mulf %[[MAIN]]#1, %[[INV]] fastmath<contract> : f32
// LSE = m * c + ln2 * log2(l), -inf for a row that saw no key.
// CHECK: %[[MC:.*]] = arith.mulf %[[MAIN]]#[[MI]], %[[LSEC]] fastmath<contract> : f32
// CHECK-NEXT: %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[LSUM]]) : (f32) -> f32
// CHECK-NEXT: %[[LN:.*]] = arith.mulf %[[LG]], %[[LN2]] : f32
// CHECK-NEXT: %[[LSEV:.*]] = arith.addf %[[MC]], %[[LN]] fastmath<contract> : f32
// CHECK-NEXT: %[[LSE:.*]] = arith.select %[[EMPTY]], %[[NINF]], %[[LSEV]] : f32
// CHECK: llvm.store %[[LSE]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>

// Window (5 left, 3 right), softcap 30, default scale 1/sqrt(64): the
// softcap's inner factor is scale / cap = 0.125 / 30, and c = 1 (S is
// scaled by the softcap), so P's constant is log2(e) and LSE adds m itself.
// @window_softcap (Inputs/math.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
//       {window = array<i64: 5, 3>, softcap = 30.0 : f32,
//        config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
// CHECK-LABEL: func.func @window_softcap(
// CHECK: gpu.func @window_softcap_kernel(
// CHECK-DAG: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK-DAG: %[[L2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 3.000000e+01 : f32
// CHECK-DAG: %[[PRE:.*]] = arith.constant 0.00416666688 : f32
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[SK:.*]] = arith.index_cast %arg30 : i64 to index
// CHECK-DAG: %[[SQ:.*]] = arith.index_cast %arg29 : i64 to index
// Not causal: block x runs Q row block x.
// CHECK-NOT: gpu.grid_dim
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK-NEXT: %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK-NEXT: %[[G:.*]] = arith.divui %[[LANE]], %c4 : index
// CHECK-NEXT: %[[TQ:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK: %[[ROW0:.*]] = arith.muli %block_id_x, %c64 : index
// CHECK: %[[OFF:.*]] = arith.subi %[[SK]], %[[SQ]] : index
// CHECK: scf.for %[[IV:.*]] = {{.*}} iter_args({{.*}}%[[M0:arg[0-9]+]] = %[[NINF]], %{{.*}} = %[[NINF]], %{{.*}} = %cst{{.*}}, %{{.*}} = %cst{{.*}}, %{{.*}} = %c0)
// CHECK-NEXT: %[[BLK:.*]] = arith.subi %{{.*}}, %[[IV]] : index
// CHECK-NEXT: %[[COL0:.*]] = arith.muli %[[BLK]], %c32 : index
// Softcap on the raw S (each register), then the mask on the capped values.
// CHECK: %[[PX:.*]] = arith.mulf %{{.*}}, %[[PRE]] fastmath<contract> : f32
// CHECK-NEXT: %[[TH:.*]] = llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %[[PX]] : (f32) -> f32
// CHECK-NEXT: %[[SC0:.*]] = arith.mulf %[[TH]], %[[CAP]] fastmath<contract> : f32
// CHECK: %[[R:.*]] = arith.addi %[[WROW:.*]], %[[G]] : index
// CHECK-NEXT: %[[QROW:.*]] = arith.addi %[[ROW0]], %[[R]] : index
// CHECK-NEXT: %[[TQ2:.*]] = arith.muli %[[TQ]], %c2 : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[COL0]], %[[TQ2]] : index
// CHECK-NEXT: %[[DIAG:.*]] = arith.addi %[[QROW]], %[[OFF]] : index
// CHECK-NEXT: %[[END:.*]] = arith.cmpi slt, %[[J]], %[[SK]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.addi %[[DIAG]], %c3 : index
// CHECK-NEXT: %[[RIGHT:.*]] = arith.cmpi sle, %[[J]], %[[HI]] : index
// CHECK-NEXT: %[[V1:.*]] = arith.andi %[[END]], %[[RIGHT]] : i1
// CHECK-NEXT: %[[LO:.*]] = arith.subi %[[DIAG]], %c5 : index
// CHECK-NEXT: %[[LEFT:.*]] = arith.cmpi sge, %[[J]], %[[LO]] : index
// CHECK-NEXT: %[[VIS:.*]] = arith.andi %[[V1]], %[[LEFT]] : i1
// CHECK-NEXT: %[[S0:.*]] = arith.select %[[VIS]], %[[SC0]], %[[NINF]] : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK-NEXT: %[[MNEW:.*]] = llvm.call_intrinsic "llvm.maxnum.f32"(%{{.*}}, %{{.*}})
// CHECK: %[[MSC:.*]] = arith.mulf %[[MNEW]], %[[L2E]] fastmath<contract> : f32
// CHECK-NEXT: %[[NOKEY:.*]] = arith.cmpf oeq, %[[MNEW]], %[[NINF]] fastmath<contract> : f32
// CHECK-NEXT: %[[MS:.*]] = arith.select %[[NOKEY]], %{{.*}}, %[[MSC]] : f32
// CHECK: %[[NEGMS:.*]] = arith.negf %[[MS]] fastmath<contract> : f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.fma.f32"(%[[S0]], %[[L2E]], %[[NEGMS]])
// CHECK-NEXT: llvm.nvvm.ex2.approx.ftz.f
// CHECK: llvm.call_intrinsic "llvm.fma.f32"(%[[M0]], %[[L2E]], %[[NEGMS]])
// CHECK: } {flash.kv_loop = "masked_right"}
// CHECK: %[[MAIN:.*]]:{{[0-9]+}} = scf.for
// CHECK: } {flash.kv_loop = "main"}
// The left edge has its own masked loop.
// CHECK: %[[LEFTL:.*]]:{{[0-9]+}} = scf.for {{.*}} iter_args({{.*}}%{{.*}} = %[[MAIN]]#[[MI:[0-9]+]], %{{.*}} = %[[MAIN]]#{{[0-9]+}}, %{{.*}} = %[[MAIN]]#[[LI:[0-9]+]], %{{.*}} = %[[MAIN]]#{{[0-9]+}}, %{{.*}} = %[[MAIN]]#{{[0-9]+}})
// CHECK: } {flash.kv_loop = "masked_left"}
// CHECK: gpu.shuffle  xor %[[LEFTL]]#[[LI]], %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK-NEXT: %[[LSUM:.*]] = arith.addf
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[LSUM]], %{{.*}} : f32
// CHECK: %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[LSUM]]) : (f32) -> f32
// CHECK-NEXT: %[[LN:.*]] = arith.mulf %[[LG]], %[[LN2]] : f32
// CHECK-NEXT: %[[LSEV:.*]] = arith.addf %[[LEFTL]]#[[MI]], %[[LN]] fastmath<contract> : f32
// CHECK-NEXT: %[[LSE:.*]] = arith.select %[[EMPTY]], %[[NINF]], %[[LSEV]] : f32
