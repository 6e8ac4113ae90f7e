// RUN: flash-opt %s --flash-tile -verify-diagnostics

// No pass lowers the backward yet: flash-tile says so at the op.
!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @not_tiled(%q: !T, %o: !T, %lse: !L) -> (!T, !T, !T) {
  // expected-error @+1 {{flash-tile does not tile the backward pass yet}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T) -> !T, !T, !T
  return %a#0, %a#1, %a#2 : !T, !T, !T
}
