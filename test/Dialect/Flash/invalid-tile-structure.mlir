// RUN: flash-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the tile-level structure ops.

func.func @grid_no_config(%n: index) {
  // expected-error @+1 {{an attention grid needs a #flash.config}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) {
  }
  return
}

// -----

func.func @grid_axes(%n: index) {
  // expected-error @+1 {{an attention grid has 3 axes (Q row block, head, batch) or 4 (and the split), not 2}}
  flash.grid (%m, %h) in (%n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
  }
  return
}

// -----

func.func @grid_split_axis(%n: index) {
  // expected-error @+1 {{a config with splits != 1 needs the split axis}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, splits = 2>, scale = 1.0 : f32} {
  }
  return
}

// -----

func.func @combine_config(%n: index) {
  // expected-error @+1 {{a combine grid takes no #flash.config and no attention attributes}}
  flash.grid (%r, %h, %b) in (%n, %n, %n) attributes {combine, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} {
  }
  return
}

// -----

func.func @grid_no_scale(%n: index) {
  // expected-error @+1 {{an attention grid needs the attention's scale}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} {
  }
  return
}

// -----

func.func @grid_window(%n: index) {
  // expected-error @+1 {{window must be (left, right)}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32, window = array<i64: 3>} {
  }
  return
}

// -----

func.func @grid_softcap(%n: index) {
  // expected-error @+1 {{softcap must be positive}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32, softcap = 0.0 : f32} {
  }
  return
}

// -----

func.func @combine_semantics(%n: index) {
  // expected-error @+1 {{a combine grid takes no #flash.config and no attention attributes}}
  flash.grid (%r, %h, %b) in (%n, %n, %n) attributes {causal, combine} {
  }
  return
}

// -----

func.func @combine_axes(%n: index) {
  // expected-error @+1 {{a combine grid has 3 axes (row, head, batch), not 4}}
  flash.grid (%r, %h, %b, %s) in (%n, %n, %n, %n) attributes {combine} {
  }
  return
}

// -----

func.func @grid_yields(%n: index, %x: index) {
  flash.grid (%r, %h, %b) in (%n, %n, %n) attributes {combine} {
    // expected-error @+1 {{of a grid yields nothing}}
    flash.yield %x : index
  }
  return
}

// -----

func.func @loop_role(%n: index) {
  // expected-error @+1 {{expected a KV loop role (masked_right, main, mask_mod or masked_left), not 'middle'}}
  flash.kv_loop middle %j = %n to %n {
    flash.yield
  }
  return
}

// -----

func.func @loop_yield(%n: index, %t: tensor<4xf32>, %u: tensor<8xf32>) {
  // expected-error @+1 {{body must end in a flash.yield of the result types}}
  %r = flash.kv_loop main %j = %n to %n iter_args(%a = %t) -> (tensor<4xf32>) {
    flash.yield %u : tensor<8xf32>
  }
  return
}

// -----

func.func @load_rank(%src: memref<?x?x64xf32>, %i: index) {
  // expected-error @+1 {{source must be a [batch, heads, seq, dim] memref}}
  %t = flash.tile_load q %src[%i, %i, %i] limit %i : memref<?x?x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @load_static(%src: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{result must be a static [rows, dim] tile}}
  %t = flash.tile_load q %src[%i, %i, %i] limit %i : memref<?x?x?x64xf32> -> tensor<?x64xf32>
  return
}

// -----

func.func @load_type(%src: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{tile and source element types differ}}
  %t = flash.tile_load q %src[%i, %i, %i] limit %i : memref<?x?x?x64xf32> -> tensor<16x64xf16>
  return
}

// -----

func.func @load_dim(%src: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{tile has 32 columns, the source's head dim is 64}}
  %t = flash.tile_load q %src[%i, %i, %i] limit %i : memref<?x?x?x64xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @load_table(%src: memref<?x?x?x64xf32>, %table: memref<?xi32>, %i: index) {
  // expected-error @+1 {{block table must be an i32 [batch, pages] memref}}
  %t = flash.tile_load q %src[%i, %i, %i] limit %i pages(%table : memref<?xi32>) : memref<?x?x?x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @store_indices(%t: tensor<16x64xf32>, %dst: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{needs ([split,] batch, head, row) indices}}
  flash.tile_store o %t, %dst[%i, %i] rows %i : tensor<16x64xf32> -> memref<?x?x?x64xf32>
  return
}

// -----

func.func @store_rank(%t: tensor<16x64xf32>, %dst: memref<?x?x?xf32>, %i: index) {
  // expected-error @+1 {{destination of rank 3 does not take a rank-2 tile at 3 indices}}
  flash.tile_store o %t, %dst[%i, %i, %i] rows %i : tensor<16x64xf32> -> memref<?x?x?xf32>
  return
}

// -----

func.func @store_dim(%t: tensor<16x32xf32>, %dst: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{tile has 32 columns, the destination 64}}
  flash.tile_store o %t, %dst[%i, %i, %i] rows %i : tensor<16x32xf32> -> memref<?x?x?x64xf32>
  return
}

// -----

func.func @grid_mask_without_rows(%hint: memref<1x1x4x4xi32>, %n: index) {
  // expected-error @+1 {{a block_mask operand and block_mask_rows come together}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) block_mask(%hint : memref<1x1x4x4xi32>) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
  }
  return
}

// -----

func.func @grid_rows_without_mask(%n: index) {
  // expected-error @+1 {{a block_mask operand and block_mask_rows come together}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {block_mask_rows = 64 : i64, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
  }
  return
}

// -----

func.func @grid_mask_fields(%hint: memref<1x1x4x?xi32>, %n: index) {
  // expected-error @+1 {{its last dimension must be a static 4, not ?}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) block_mask(%hint : memref<1x1x4x?xi32>) attributes {block_mask_rows = 64 : i64, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
  }
  return
}

// -----

func.func @grid_lens_type(%lens: memref<?xi64>, %n: index) {
  // expected-error @+1 {{operand #3 must be 1D memref of 32-bit signless integer values}}
  flash.grid (%m, %h, %b) in (%n, %n, %n) kv_lens(%lens : memref<?xi64>) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.0 : f32} {
  }
  return
}

// -----

func.func @combine_lens(%lens: memref<?xi32>, %n: index) {
  // expected-error @+1 {{a combine grid takes no #flash.config and no attention attributes or operands}}
  flash.grid (%r, %h, %b) in (%n, %n, %n) kv_lens(%lens : memref<?xi32>) attributes {combine} {
  }
  return
}

// -----

func.func @load_role_o(%src: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{reads q, k or v, not o}}
  %t = flash.tile_load o %src[%i, %i, %i] limit %i : memref<?x?x?x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @load_k_outside_loop(%src: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{reads k and v tiles only in a flash.kv_loop body}}
  %t = flash.tile_load k %src[%i, %i, %i] limit %i : memref<?x?x?x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @load_q_in_loop(%src: memref<?x?x?x64xf32>, %i: index) {
  flash.kv_loop main %j = %i to %i {
    // expected-error @+1 {{reads the q tile only outside a flash.kv_loop}}
    %t = flash.tile_load q %src[%i, %i, %j] limit %i : memref<?x?x?x64xf32> -> tensor<16x64xf32>
    flash.yield
  }
  return
}

// -----

func.func @load_q_paged(%src: memref<?x?x?x64xf32>, %table: memref<?x?xi32>, %i: index) {
  // expected-error @+1 {{reads only k and v through a block table}}
  %t = flash.tile_load q %src[%i, %i, %i] limit %i pages(%table : memref<?x?xi32>) : memref<?x?x?x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @store_role_k(%t: tensor<16x64xf32>, %dst: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{writes o or lse, not k}}
  flash.tile_store k %t, %dst[%i, %i, %i] rows %i : tensor<16x64xf32> -> memref<?x?x?x64xf32>
  return
}

// -----

func.func @store_lse_rank2(%t: tensor<16x64xf32>, %dst: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{writes o, dq, dk and dv as a [rows, dim] tile, lse and delta as [rows]}}
  flash.tile_store lse %t, %dst[%i, %i, %i] rows %i : tensor<16x64xf32> -> memref<?x?x?x64xf32>
  return
}

// -----

func.func @store_o_rank1(%t: tensor<16xf32>, %dst: memref<?x?x?xf32>, %i: index) {
  // expected-error @+1 {{writes o, dq, dk and dv as a [rows, dim] tile, lse and delta as [rows]}}
  flash.tile_store o %t, %dst[%i, %i, %i] rows %i : tensor<16xf32> -> memref<?x?x?xf32>
  return
}

// -----

func.func @workspace_sizes(%n: index) {
  // expected-error @+1 {{needs one size per dynamic dimension (2), has 1}}
  %w = flash.workspace(%n) : memref<?x4x?x8x64xf32>
  return
}

// -----

func.func @workspace_layout(%n: index) {
  // expected-error @+1 {{allocates an identity-layout memref}}
  %w = flash.workspace(%n) : memref<?x4x8x64xf32, strided<[2048, 512, 64, 1]>>
  return
}

// -----

func.func @workspace_type(%n: index) {
  // expected-error @+1 {{must be 3D/4D/5D memref of 32-bit float values}}
  %w = flash.workspace(%n) : memref<?x4x8x64xf16>
  return
}
