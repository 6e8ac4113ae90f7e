// RUN: flash-opt %S/Inputs/pipeline.mlir -split-input-file --flash-to-gpu --canonicalize --cse | FileCheck %s

// flash-to-gpu lowers the K/V pipeline ops as flash-pipeline-kv wrote
// them. cp.async with 2 stages: the prologue's one group (Q and the first
// block), then in each peeled loop the wait (wait_group pending, barrier),
// the prefetch into 1 - slot (the slot read last iteration) and its
// commit; the slot each loop yields (the advance) is that same 1 - slot
// and the next loop starts from the previous loop's; the drain
// (wait_group 0 + barrier) comes after the loops, before O is staged.
// @two (Inputs/pipeline.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !S, !S, !S) outs(%o : !S)
//       {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 2>}
// CHECK-LABEL: gpu.func @two_kernel
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async.commit.group
// CHECK: %[[R1:.+]]:21 = scf.for %{{.+}} = %c0 to %{{.+}} step %c1 iter_args({{.*}}, %[[S:arg[0-9]+]] = %c0) ->
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: %[[FILL:.+]] = arith.subi %c1, %[[S]] : index
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.yield {{.*}}, %[[FILL]] : f32,
// CHECK-NEXT: } {flash.kv_loop = "masked_right"}
// CHECK-NEXT: scf.for %{{.+}} = %c0 to %{{.+}} step %c1 iter_args({{.*}}, %[[S2:arg[0-9]+]] = %[[R1]]#20) ->
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: %[[FILL2:.+]] = arith.subi %c1, %[[S2]] : index
// CHECK: scf.yield {{.*}}, %[[FILL2]] : f32,
// CHECK-NEXT: } {flash.kv_loop = "main"}
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: gpu.return

// 3 stages: two prologue groups; each iteration lets one group pend,
// refills slot (slot - 1) mod 3 with the block two ahead (32 keys left of
// this block's), and yields (slot + 1) mod 3 as the next slot.
// @three (Inputs/pipeline.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !S, !S, !S) outs(%o : !S)
//       {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 3>}
// CHECK-LABEL: gpu.func @three_kernel
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async.commit.group
// CHECK: scf.for %{{.+}} = %c0 to %{{.+}} step %c1 iter_args({{.*}}, %[[S:arg[0-9]+]] = %c0) ->
// CHECK: %[[PLUS:.+]] = arith.addi %[[S]], %c1 : index
// CHECK-NEXT: %[[WRAPS:.+]] = arith.cmpi eq, %[[PLUS]], %c3 : index
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: arith.subi %{{.+}}, %c32
// CHECK: %[[ZERO:.+]] = arith.cmpi eq, %[[S]], %c0 : index
// CHECK: %[[FILL:.+]] = arith.select %[[ZERO]], %c2, %{{.+}} : index
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[NEXT:.+]] = arith.select %[[WRAPS]], %c0, %[[PLUS]] : index
// CHECK: scf.yield {{.*}}, %[[NEXT]] : f32,
