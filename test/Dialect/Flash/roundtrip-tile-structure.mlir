// RUN: flash-opt %s | flash-opt | FileCheck %s
// RUN: flash-opt %s --mlir-print-op-generic | flash-opt | FileCheck %s

// The tile-level structure ops print and parse back, in custom and generic
// form.

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @structure
// CHECK: flash.grid (%[[M:.+]], %[[H:.+]], %[[B:.+]]) in (%{{.+}}, %{{.+}}, %{{.+}}) attributes {causal, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, masked_iterations = 3 : i64, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32, unmasked_iterations = 4 : i64, window = array<i64: 100, 0>} {
// CHECK: %[[QT:.+]] = flash.tile_load {{[qkv]}} %{{.+}}[%[[B]], %[[H]], %{{.+}}] limit %{{.+}} : memref<{{.+}}> -> tensor<64x64xbf16>
// CHECK: %{{.+}}:2 = flash.kv_loop masked_right %[[J:.+]] = %{{.+}} to %{{.+}} reversed iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<64x64xf32>, tensor<64xf32>) {
// CHECK: flash.tile_load {{[qkv]}} %{{.+}}[%[[B]], %[[H]], %[[J]]] limit %{{.+}} pages(%{{.+}} : memref<?x?xi32>)
// CHECK: flash.yield %{{.+}}, %{{.+}} : tensor<64x64xf32>, tensor<64xf32>
// CHECK: flash.kv_loop main %{{.+}} = %{{.+}} to %{{.+}} {
// CHECK-NEXT: flash.yield
// CHECK: flash.tile_store o %{{.+}}, %{{.+}}[%[[B]], %[[H]], %{{.+}}] rows %{{.+}} : tensor<64x64xf32> -> memref<?x?x?x64xf32>
// CHECK: flash.grid (%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}}, %{{.+}}, %{{.+}}) attributes {combine} {
func.func @structure(%q: !T, %k: !T, %table: memref<?x?xi32>, %o: memref<?x?x?x64xf32>, %n: index, %lo: index, %hi: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {causal, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, masked_iterations = 3 : i64, scale = 1.250000e-01 : f32, softcap = 30.0 : f32, unmasked_iterations = 4 : i64, window = array<i64: 100, 0>} {
    %qt = flash.tile_load q %q[%b, %h, %m] limit %n : !T -> tensor<64x64xbf16>
    %acc = tensor.empty() : tensor<64x64xf32>
    %max = tensor.empty() : tensor<64xf32>
    %r:2 = flash.kv_loop masked_right %j = %lo to %hi reversed iter_args(%a = %acc, %x = %max) -> (tensor<64x64xf32>, tensor<64xf32>) {
      %kt = flash.tile_load k %k[%b, %h, %j] limit %n pages(%table : memref<?x?xi32>) : !T -> tensor<32x64xbf16>
      flash.yield %a, %x : tensor<64x64xf32>, tensor<64xf32>
    }
    flash.kv_loop main %j = %lo to %hi {
      flash.yield
    }
    flash.tile_store o %r#0, %o[%b, %h, %m] rows %n : tensor<64x64xf32> -> memref<?x?x?x64xf32>
  }
  flash.grid (%r, %h, %b) in (%n, %n, %n) attributes {combine} {
  }
  return
}

// The grid's operands that bound its KV loops: kv_lens, then the block-mask
// hint (with block_mask_rows).
// CHECK-LABEL: func.func @bounds
// CHECK-SAME: (%[[LENS:[^:]+]]: memref<?xi32>, %[[HINT:[^:]+]]: memref<1x?x?x4xi32>
// CHECK: flash.grid (%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}}, %{{.+}}, %{{.+}}) kv_lens(%[[LENS]] : memref<?xi32>) block_mask(%[[HINT]] : memref<1x?x?x4xi32>) attributes {block_mask_rows = 64 : i64, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
// CHECK: flash.grid (%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}}, %{{.+}}, %{{.+}}) kv_lens(%[[LENS]] : memref<?xi32>) attributes {config
func.func @bounds(%lens: memref<?xi32>, %hint: memref<1x?x?x4xi32>, %n: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) kv_lens(%lens : memref<?xi32>) block_mask(%hint : memref<1x?x?x4xi32>) attributes {block_mask_rows = 64 : i64, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
  }
  flash.grid (%m, %h, %b) in (%n, %n, %n) kv_lens(%lens : memref<?xi32>) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
  }
  return
}

// -----

// The split-KV workspace and the config's mask analyses.
// CHECK-LABEL: func.func @workspace_config
// CHECK-SAME: c = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, key_bounds = false, uniform_blocks = true>
// CHECK: flash.workspace(%{{.+}}, %{{.+}}) : memref<?x2x?x8x64xf32>
func.func @workspace_config(%s: index, %n: index) -> memref<?x2x?x8x64xf32>
    attributes {c = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, uniform_blocks = true, key_bounds = false>} {
  %w = flash.workspace(%s, %n) : memref<?x2x?x8x64xf32>
  return %w : memref<?x2x?x8x64xf32>
}
