// RUN: flash-opt %s -split-input-file -verify-diagnostics

// The verifiers of the backward's tile-level ops, one diagnostic each.

!T = tensor<64x64xbf16>
!R = tensor<64xf32>
!A = tensor<64x64xf32>
func.func @grad_dq_shape(%q: !T, %l: !R, %a: !A, %i: index) {
  // expected-error @+1 {{dq must have the query's shape}}
  %g:3 = flash.tile_grad %q, %q, %q, %q, %l, %l, %a, %a at (%i, %i) bounds (%i, %i) {scale = 1.0 : f32} : !T, !T, !T, !T, !R, !R, !A, !A -> tensor<32x64xf32>
  return
}

// -----

!T = tensor<64x64xbf16>
!R = tensor<64xf32>
!A = tensor<64x64xf32>
func.func @grad_rows(%q: !T, %l: tensor<32xf32>, %d: !R, %a: !A, %i: index) {
  // expected-error @+1 {{lse and delta must be [BM]}}
  %g:3 = flash.tile_grad %q, %q, %q, %q, %l, %d, %a, %a at (%i, %i) bounds (%i, %i) {scale = 1.0 : f32} : !T, !T, !T, !T, tensor<32xf32>, !R, !A, !A -> !A
  return
}

// -----

!T = tensor<64x64xbf16>
!R = tensor<64xf32>
!A = tensor<64x64xf32>
func.func @grad_do_shape(%q: !T, %do: tensor<64x32xbf16>, %l: !R, %a: !A, %i: index) {
  // expected-error @+1 {{grad_out must be [BM, Dv]}}
  %g:3 = flash.tile_grad %q, %q, %q, %do, %l, %l, %a, %a at (%i, %i) bounds (%i, %i) {scale = 1.0 : f32} : !T, !T, !T, tensor<64x32xbf16>, !R, !R, !A, !A -> !A
  return
}

// -----

!T = tensor<64x64xbf16>
!R = tensor<64xf32>
!A = tensor<64x64xf32>
func.func @grad_mixed_types(%q: !T, %k: tensor<64x64xf16>, %l: !R, %a: !A, %i: index) {
  // expected-error @+1 {{query, key, value and grad_out tiles must have one element type}}
  %g:3 = flash.tile_grad %q, %k, %q, %q, %l, %l, %a, %a at (%i, %i) bounds (%i, %i) {scale = 1.0 : f32} : !T, tensor<64x64xf16>, !T, !T, !R, !R, !A, !A -> !A
  return
}

// -----

!T = tensor<64x64xbf16>
!R = tensor<64xf32>
!A = tensor<64x64xf32>
func.func @grad_score_mod_args(%q: !T, %l: !R, %a: !A, %i: index) {
  // expected-error @+1 {{score_mod region must have 3 block arguments}}
  %g:3 = flash.tile_grad %q, %q, %q, %q, %l, %l, %a, %a at (%i, %i) bounds (%i, %i) {scale = 1.0 : f32} : !T, !T, !T, !T, !R, !R, !A, !A -> !A
      score_mod {
      ^bb0(%s: f32):
        flash.yield %s : f32
      }
  return
}

// -----

func.func @accumulate_role(%t: tensor<64x64xf32>, %d: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{accumulates dq, not o}}
  flash.tile_accumulate o %t, %d[%i, %i, %i] rows %i : tensor<64x64xf32> -> memref<?x?x?x64xf32>
  return
}

// -----

func.func @accumulate_columns(%t: tensor<64x32xf32>, %d: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{tile has 32 columns, the destination 64}}
  flash.tile_accumulate dq %t, %d[%i, %i, %i] rows %i : tensor<64x32xf32> -> memref<?x?x?x64xf32>
  return
}

// -----

func.func @load_lse_rank(%src: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{reads lse and delta as a static f32 [rows] tile of a [batch, heads, seq] memref}}
  %t = flash.tile_load lse %src[%i, %i, %i] limit %i : memref<?x?x?x64xf32> -> tensor<64x64xf32>
  return
}

// -----

// Outside a backward grid the forward's roles hold.
func.func @load_do_forward(%src: memref<?x?x?x64xf32>, %i: index) {
  // expected-error @+1 {{reads q, k or v, not do}}
  %t = flash.tile_load do %src[%i, %i, %i] limit %i : memref<?x?x?x64xf32> -> tensor<64x64xf32>
  return
}

// -----

#cfg = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>
func.func @load_dk_backward(%src: memref<?x?x?x64xf32>, %i: index) {
  flash.grid (%n, %h, %b) in (%i, %i, %i) attributes {config = #cfg, scale = 1.0 : f32, backward = #flash<backward_step kv>} {
    // expected-error @+1 {{reads no dk: the backward writes it}}
    %t = flash.tile_load dk %src[%b, %h, %n] limit %i : memref<?x?x?x64xf32> -> tensor<64x64xf32>
  }
  return
}

// -----

#cfg = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>
func.func @store_o_backward(%t: tensor<64x64xf32>, %dst: memref<?x?x?x64xf32>, %i: index) {
  flash.grid (%n, %h, %b) in (%i, %i, %i) attributes {config = #cfg, scale = 1.0 : f32, backward = #flash<backward_step kv>} {
    // expected-error @+1 {{writes delta, dq, dk or dv in a backward grid, not o}}
    flash.tile_store o %t, %dst[%b, %h, %n] rows %i : tensor<64x64xf32> -> memref<?x?x?x64xf32>
  }
  return
}

// -----

#cfg = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>
func.func @backward_grid_axes(%i: index) {
  // expected-error @+1 {{a backward grid has 3 axes and no kv_lens}}
  flash.grid (%n, %h, %b, %s) in (%i, %i, %i, %i) attributes {config = #cfg, scale = 1.0 : f32, backward = #flash<backward_step kv>} {
  }
  return
}
