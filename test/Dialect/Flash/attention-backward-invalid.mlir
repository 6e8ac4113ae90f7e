// RUN: flash-opt %s -split-input-file -verify-diagnostics

// flash.attention_backward: its own rules (refused serving operands, the
// forward's outputs and dO, dq/dk/dv), and that the forward's rules for the
// inputs, attributes and regions apply to it unchanged (one case of each
// family; invalid.mlir and invalid-mods.mlir check every forward rule).

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @kv_lens(%q: !T, %o: !T, %lse: !L, %lens: tensor<2xi32>) {
  // expected-error @+1 {{takes no 'kv_lens': a KV cache is inference's; give a batch of several lengths as varlen (cu_seqlens)}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T) kv_lens(%lens : tensor<2xi32>) -> !T, !T, !T
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @block_table(%q: !T, %k: tensor<4x8x16x64xf16>, %o: !T, %lse: !L, %t: tensor<2x8xi32>) {
  // expected-error @+1 {{takes no 'block_table': paged K/V is an inference KV cache; give K and V as [batch, heads, seq, dim] (or varlen, cu_seqlens)}}
  %a:3 = flash.attention_backward ins(%q, %k, %k, %o, %lse, %o : !T, tensor<4x8x16x64xf16>, tensor<4x8x16x64xf16>, !T, !L, !T) block_table(%t : tensor<2x8xi32>) -> !T, tensor<4x8x16x64xf16>, tensor<4x8x16x64xf16>
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @lse_type(%q: !T, %o: !T, %lse: tensor<2x8x128xf16>) {
  // expected-error @+1 {{'lse' must have element type 'f32', got 'f16'}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, tensor<2x8x128xf16>, !T) -> !T, !T, !T
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @lse_shape(%q: !T, %o: !T, %lse: tensor<2x8x64xf32>) {
  // expected-error @+1 {{'lse' must have shape [B, Hq, Sq] = [2, 8, 128], got [2, 8, 64]}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, tensor<2x8x64xf32>, !T) -> !T, !T, !T
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @out_dv(%q: !T, %v: tensor<2x8x128x32xf16>, %o: !T, %lse: !L) {
  // expected-error @+1 {{'out' must have shape [B, Hq, Sq, Dv] = [2, 8, 128, 32], got [2, 8, 128, 64]}}
  %a:3 = flash.attention_backward ins(%q, %q, %v, %o, %lse, %o : !T, !T, tensor<2x8x128x32xf16>, !T, !L, !T) -> !T, !T, tensor<2x8x128x32xf16>
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @grad_out_type(%q: !T, %o: !T, %lse: !L, %do: tensor<2x8x128x64xbf16>) {
  // expected-error @+1 {{'grad_out' must have element type 'f16', got 'bf16'}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %do : !T, !T, !T, !T, !L, tensor<2x8x128x64xbf16>) -> !T, !T, !T
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @two_results(%q: !T, %o: !T, %lse: !L) {
  // expected-error @+1 {{expects dq, dk and dv as results, got 2}}
  %a:2 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T) -> !T, !T
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @dk_gqa(%q: tensor<2x16x128x64xf16>, %k: !T, %o: tensor<2x16x128x64xf16>, %lse: tensor<2x16x128xf32>) {
  // expected-error @+1 {{'dk' must have shape K's [B, Hkv, Sk, D] = [2, 8, 128, 64], got [2, 16, 128, 64]}}
  %a:3 = flash.attention_backward ins(%q, %k, %k, %o, %lse, %o : tensor<2x16x128x64xf16>, !T, !T, tensor<2x16x128x64xf16>, tensor<2x16x128xf32>, tensor<2x16x128x64xf16>) -> tensor<2x16x128x64xf16>, tensor<2x16x128x64xf16>, !T
  return
}

// -----

!M = memref<2x8x128x64xf16>
func.func @memref_results(%q: !M, %lse: memref<2x8x128xf32>) {
  // expected-error @+1 {{memref form writes dq, dk and dv to 'outs' and must not return results}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %q, %lse, %q : !M, !M, !M, !M, memref<2x8x128xf32>, !M) -> tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>
  return
}

// -----

!M = memref<2x8x128x64xf16>
func.func @memref_dq_type(%q: !M, %lse: memref<2x8x128xf32>, %dq: memref<2x8x128x64xf32>) {
  // expected-error @+1 {{'dq' must have element type 'f16', got 'f32'}}
  flash.attention_backward ins(%q, %q, %q, %q, %lse, %q : !M, !M, !M, !M, memref<2x8x128xf32>, !M) outs(%dq, %q, %q : memref<2x8x128x64xf32>, !M, !M)
  return
}

// -----

// The forward's rules hold: Q/K head dims, GQA, attributes, regions.
!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @forward_rule_heads(%q: tensor<2x6x128x64xf16>, %k: tensor<2x4x128x64xf16>, %o: tensor<2x6x128x64xf16>, %lse: tensor<2x6x128xf32>) {
  // expected-error @+1 {{query heads (6) must be a multiple of key/value heads (4)}}
  %a:3 = flash.attention_backward ins(%q, %k, %k, %o, %lse, %o : tensor<2x6x128x64xf16>, tensor<2x4x128x64xf16>, tensor<2x4x128x64xf16>, tensor<2x6x128x64xf16>, tensor<2x6x128xf32>, tensor<2x6x128x64xf16>) -> tensor<2x6x128x64xf16>, tensor<2x4x128x64xf16>, tensor<2x4x128x64xf16>
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @forward_rule_scale(%q: !T, %o: !T, %lse: !L) {
  // expected-error @+1 {{scale must be a positive finite number, got -1}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T) {scale = -1.0 : f32} -> !T, !T, !T
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @forward_rule_region(%q: !T, %o: !T, %lse: !L) {
  // expected-error @+1 {{score_mod region must end in a flash.yield of one 'f32' value}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T) -> !T, !T, !T
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 0 : i32
        flash.yield %c : i32
      }
  return
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @forward_rule_block_mask(%q: !T, %o: !T, %lse: !L, %r: tensor<2x8x2x4xi32>) {
  // expected-error @+1 {{'block_mask' summarises a mask_mod: it needs a mask_mod region}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T) block_mask(%r : tensor<2x8x2x4xi32>) {block_mask_rows = 64 : i64} -> !T, !T, !T
  return
}

