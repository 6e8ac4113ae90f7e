// RUN: flash-opt %s -split-input-file | flash-opt -split-input-file | FileCheck %s
// RUN: flash-opt %s -split-input-file --mlir-print-op-generic | flash-opt -split-input-file | FileCheck %s

// The K/V pipeline ops (flash-pipeline-kv's) print and parse back, in
// custom and generic form: the cp.async schedule, then the producer ring.

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @cp_async
// CHECK: %[[S0:.+]] = flash.pipeline_prologue stages 3
// CHECK: %[[R:.+]]:2 = flash.kv_loop main %{{.+}} = %{{.+}} to %{{.+}} reversed iter_args(%{{.+}} = %{{.+}}, %[[S:.+]] = %[[S0]]) -> (tensor<64xf32>, index) {
// CHECK-NEXT: flash.pipeline_wait %[[S]] pending 1
// CHECK-NEXT: flash.pipeline_prefetch %[[S]] distance 2
// CHECK-NEXT: %[[N:.+]] = flash.pipeline_advance %[[S]]
// CHECK-NEXT: flash.tile_load {{[qkv]}} %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] limit %{{.+}} slot(%[[S]]) : memref<{{.+}}> -> tensor<32x64xbf16>
// CHECK-NEXT: flash.tile_load {{[qkv]}} %{{.+}} pages(%{{.+}} : memref<?x?xi32>) slot(%[[S]])
// CHECK-NEXT: flash.yield %{{.+}}, %[[N]] : tensor<64xf32>, index
// CHECK: flash.pipeline_drain
func.func @cp_async(%q: !T, %k: !T, %table: memref<?x?xi32>, %n: index, %lo: index, %hi: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 3>, scale = 1.250000e-01 : f32} {
    %max = tensor.empty() : tensor<64xf32>
    %s0 = flash.pipeline_prologue stages 3
    %r:2 = flash.kv_loop main %j = %lo to %hi reversed iter_args(%x = %max, %s = %s0) -> (tensor<64xf32>, index) {
      flash.pipeline_wait %s pending 1
      flash.pipeline_prefetch %s distance 2
      %next = flash.pipeline_advance %s
      %kt = flash.tile_load k %k[%b, %h, %j] limit %n slot(%s) : !T -> tensor<32x64xbf16>
      %kp = flash.tile_load v %k[%b, %h, %j] limit %n pages(%table : memref<?x?xi32>) slot(%s) : !T -> tensor<32x64xbf16>
      flash.yield %x, %next : tensor<64xf32>, index
    }
    flash.pipeline_drain
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @producer
// CHECK: %[[S0:.+]], %[[P0:.+]] = flash.pipeline_producer stages 2
// CHECK: flash.kv_loop main %{{.+}} = %{{.+}} to %{{.+}} iter_args(%[[S:.+]] = %[[S0]], %[[P:.+]] = %[[P0]]) -> (index, index) {
// CHECK-NEXT: flash.pipeline_acquire %[[S]] phase %[[P]]
// CHECK-NEXT: %[[N:.+]]:2 = flash.pipeline_advance %[[S]] phase %[[P]]
// CHECK-NEXT: flash.pipeline_release %[[S]]
// CHECK-NEXT: flash.yield %[[N]]#0, %[[N]]#1 : index, index
// CHECK: flash.pipeline_drain
func.func @producer(%n: index, %lo: index, %hi: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true, producer = true>, scale = 1.250000e-01 : f32} {
    %s0, %p0 = flash.pipeline_producer stages 2
    %r:2 = flash.kv_loop main %j = %lo to %hi iter_args(%s = %s0, %p = %p0) -> (index, index) {
      flash.pipeline_acquire %s phase %p
      %next:2 = flash.pipeline_advance %s phase %p
      flash.pipeline_release %s
      flash.yield %next#0, %next#1 : index, index
    }
    flash.pipeline_drain
  }
  return
}

// -----

// FA3's ping-pong turns (flash-pingpong's), with a pingpong config.
// CHECK-LABEL: func.func @pingpong
// CHECK: flash.pipeline_producer stages 3
// CHECK-NEXT: flash.pipeline_turn_start
// CHECK: flash.pipeline_acquire
// CHECK-NEXT: flash.pipeline_advance
// CHECK-NEXT: flash.pipeline_turn_pass
// CHECK-NEXT: flash.pipeline_turn_wait
// CHECK-NEXT: flash.pipeline_release
// CHECK: flash.pipeline_turn_end
// CHECK-NEXT: flash.pipeline_drain
func.func @pingpong(%n: index, %lo: index, %hi: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>, scale = 1.250000e-01 : f32} {
    %s0, %p0 = flash.pipeline_producer stages 3
    flash.pipeline_turn_start
    %r:2 = flash.kv_loop main %j = %lo to %hi iter_args(%s = %s0, %p = %p0) -> (index, index) {
      flash.pipeline_acquire %s phase %p
      %next:2 = flash.pipeline_advance %s phase %p
      flash.pipeline_turn_pass
      flash.pipeline_turn_wait
      flash.pipeline_release %s
      flash.yield %next#0, %next#1 : index, index
    }
    flash.pipeline_turn_end
    flash.pipeline_drain
  }
  return
}
