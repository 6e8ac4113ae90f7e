// RUN: flash-opt %s -split-input-file -verify-diagnostics --flash-pipeline-kv
// RUN: not flash-opt %s -split-input-file --flash-pipeline-kv 2>&1 | FileCheck %s

// flash-pipeline-kv refuses, at the op and with exit code 1, what it cannot
// pipeline: a config of fewer than 2 stages (no slot to fill while one is
// read), a KV loop with no K/V tile loads, and a K/V load that names a
// slot in a grid without pipeline ops (half of a pipeline).

// CHECK: error: 'flash.grid' op flash-pipeline-kv: a K/V pipeline needs at least 2 stages

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @one_stage(%k: !T, %n: index) {
  // expected-error @+1 {{flash-pipeline-kv: a K/V pipeline needs at least 2 stages (one slot read while the next fills); the config has 1}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 1>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      %kt = flash.tile_load k %k[%b, %h, %j] limit %n : !T -> tensor<32x64xbf16>
      flash.yield
    }
  }
  return
}

// -----

func.func @no_loads(%n: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    // expected-error @+1 {{flash-pipeline-kv: a KV loop without K/V tile loads has no blocks to pipeline}}
    flash.kv_loop main %j = %n to %n {
      flash.yield
    }
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @half_pipelined(%k: !T, %n: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
    flash.kv_loop main %j = %n to %n {
      // expected-error @+1 {{flash-pipeline-kv: this K/V load already reads a pipeline slot, but the grid has no pipeline ops}}
      %kt = flash.tile_load k %k[%b, %h, %j] limit %n slot(%n) : !T -> tensor<32x64xbf16>
      flash.yield
    }
  }
  return
}
