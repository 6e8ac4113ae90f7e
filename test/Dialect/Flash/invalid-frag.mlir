// RUN: flash-opt %s -split-input-file -verify-diagnostics

// #flash.frag, flash-assign-layouts' fragment layouts, is verified as an
// attribute and against the tensor it is the encoding of.

// expected-error @+1 {{#flash.frag<row_partial> is the layout of a 1-D tile, not of a rank-2 tensor}}
func.func private @row_partial_2d(tensor<32x32xf32, #flash.frag<row_partial>>)

// -----

// expected-error @+1 {{#flash.frag<acc> is the layout of a 2-D tile, not of a rank-1 tensor}}
func.func private @acc_1d(tensor<32xf32, #flash.frag<acc, mma_sync>>)

// -----

// expected-error @+1 {{#flash.frag<row_partial> holds parts of an f32 sum, not 'bf16' values}}
func.func private @row_partial_bf16(tensor<32xbf16, #flash.frag<row_partial>>)

// -----

// expected-error @+1 {{#flash.frag<acc> needs its MMA kind (mma_sync or wgmma)}}
func.func private @acc_no_mma(tensor<32x32xf32, #flash.frag<acc>>)

// -----

// expected-error @+1 {{#flash.frag<row> takes no MMA kind}}
func.func private @row_mma(tensor<32xf32, #flash.frag<row, wgmma>>)
