// A hand-written naive KV-cache kernel (scf loops, two-pass softmax,
// non-causal, scale 1/sqrt(64)) that reads keys through kv_lens and a block
// table, checked by flash-run against the reference through
// --reference-attrs=kv_lens=1,block_table=1. It tests flash-run's serving
// inputs independently of flash-tile: the kv_lens draw (0, 1, full, random),
// the page pool and its random table, both layouts of the pool, the NaN
// poison of dead keys, and that kernels ignoring kv_lens or the table fail.

// DEFINE: %{pipeline} = builtin.module(convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,convert-index-to-llvm,reconcile-unrealized-casts)

// kv_lens and paging together; B=5 draws kv_lens Sk, 0, 1, random, random.
// RUN: flash-run %s --func=serving --pipeline='%{pipeline}' \
// RUN:   --reference-attrs=kv_lens=1,block_table=1 --page-size=4 --seed=3 \
// RUN:   --shapes='5,4,2,3,12;1,2,2,1,4;4,2,1,7,36' | FileCheck %s --check-prefix=BOTH
// BOTH:      flash-run: @serving seed=3
// BOTH-NEXT: B=5 Hq=4 Hkv=2 Sq=3 Sk=12 D=64 Dv=64 pages=18x4 kv_lens=12,0,1,{{[0-9]+}},{{[0-9]+}} layout=bhsd: {{.*}}  PASS
// BOTH-NEXT: B=1 Hq=2 Hkv=2 Sq=1 Sk=4 D=64 Dv=64 pages=4x4 kv_lens=4 layout=bhsd: {{.*}}  PASS
// BOTH-NEXT: B=4 Hq=2 Hkv=1 Sq=7 Sk=36 D=64 Dv=64 pages=39x4 kv_lens=36,0,1,{{[0-9]+}} layout=bhsd: {{.*}}  PASS
// BOTH-NEXT: flash-run: 3/3 cases passed

// The same in FA2's storage: the pool is [num_pages, page_size, Hkv, D].
// RUN: flash-run %s --seed=16 --func=serving --pipeline='%{pipeline}' --layout=bshd \
// RUN:   --reference-attrs=kv_lens=1,block_table=1 --page-size=4 \
// RUN:   --shapes='5,4,2,3,12;4,2,1,7,36' | FileCheck %s --check-prefix=BOTHBSHD
// BOTHBSHD-NOT: FAIL
// BOTHBSHD:     flash-run: 2/2 cases passed

// kv_lens alone (K/V [B, Hkv, Sk, D]).
// RUN: flash-run %s --seed=16 --func=lens --pipeline='%{pipeline}' --reference-attrs=kv_lens=1 \
// RUN:   --shapes='5,4,2,3,17;1,2,1,1,1;3,2,2,1,1;2,2,1,5,1' | FileCheck %s --check-prefix=LENS
// LENS-NOT: FAIL
// LENS:     flash-run: 4/4 cases passed

// Paging alone, with a static page size (16) in K's and V's type.
// RUN: flash-run %s --seed=16 --func=paged16 --pipeline='%{pipeline}' --reference-attrs=block_table=1 \
// RUN:   --layout=bshd --shapes='3,4,2,3,48;1,2,1,1,16' | FileCheck %s --check-prefix=PAGED
// PAGED: B=3 Hq=4 Hkv=2 Sq=3 Sk=48 D=64 Dv=64 pages=12x16 layout=bshd: {{.*}}  PASS
// PAGED: B=1 Hq=2 Hkv=1 Sq=1 Sk=16 D=64 Dv=64 pages=4x16 layout=bshd: {{.*}}  PASS
// PAGED: flash-run: 2/2 cases passed

// A kernel that reads all Sk keys reads the NaN past kv_lens[b] (only the
// B=1 case, whose one sequence is full, passes).
// RUN: not flash-run %s --seed=16 --func=lens_ignored --pipeline='%{pipeline}' --reference-attrs=kv_lens=1 \
// RUN:   --shapes='3,2,1,3,17;1,2,1,3,17' | FileCheck %s --check-prefix=NOLENS
// NOLENS: B=3 {{.*}} max|dO|=inf max|dLSE|=inf {{.*}}  FAIL
// NOLENS: B=1 {{.*}}  PASS
// NOLENS: flash-run: 1/2 cases passed

// A kernel that takes page b * pages_per_seq + p instead of the table's
// (seeded: a random table is the identity with probability 1/840).
// RUN: not flash-run %s --func=table_ignored --pipeline='%{pipeline}' --reference-attrs=block_table=1 \
// RUN:   --page-size=8 --seed=1 --shapes='2,2,1,3,16' | FileCheck %s --check-prefix=NOTABLE
// NOTABLE: B=2 {{.*}} pages=7x8 layout=bhsd: {{.*}}  FAIL
// NOTABLE: flash-run: 0/1 cases passed

!qkv = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!kv16 = memref<?x?x16x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!lse = memref<?x?x?xf32>
!lens = memref<?xi32>
!table = memref<?x?xi32>

// Key j of sequence b is K[table[b, j / ps], h, j % ps] for j < lens[b],
// where ps = dim 2 of K. A row without keys gets O = 0, LSE = -inf.
func.func @serving(%q: !qkv, %k: !qkv, %v: !qkv, %lens: !lens, %table: !table,
                   %o: !qkv, %lse: !lse) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = arith.constant 64 : index
  %scale = arith.constant 0.125 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %b = memref.dim %q, %c0 : !qkv
  %hq = memref.dim %q, %c1 : !qkv
  %sq = memref.dim %q, %c2 : !qkv
  %hkv = memref.dim %k, %c1 : !qkv
  %ps = memref.dim %k, %c2 : !qkv
  %g = arith.divui %hq, %hkv : index
  scf.for %ib = %c0 to %b step %c1 {
    %len32 = memref.load %lens[%ib] : !lens
    %len = arith.index_cast %len32 : i32 to index
    scf.for %ih = %c0 to %hq step %c1 {
      %ihk = arith.divui %ih, %g : index
      scf.for %i = %c0 to %sq step %c1 {
        %m = scf.for %j = %c0 to %len step %c1 iter_args(%acc = %ninf) -> f32 {
          %pg = arith.divui %j, %ps : index
          %slot = arith.remui %j, %ps : index
          %page32 = memref.load %table[%ib, %pg] : !table
          %page = arith.index_cast %page32 : i32 to index
          %dot = scf.for %x = %c0 to %d step %c1 iter_args(%s = %zero) -> f32 {
            %a = memref.load %q[%ib, %ih, %i, %x] : !qkv
            %bb = memref.load %k[%page, %ihk, %slot, %x] : !qkv
            %p = arith.mulf %a, %bb : f32
            %n = arith.addf %s, %p : f32
            scf.yield %n : f32
          }
          %sc = arith.mulf %dot, %scale : f32
          %mx = arith.maximumf %acc, %sc : f32
          scf.yield %mx : f32
        }
        scf.for %x = %c0 to %d step %c1 {
          memref.store %zero, %o[%ib, %ih, %i, %x] : !qkv
        }
        %l = scf.for %j = %c0 to %len step %c1 iter_args(%acc = %zero) -> f32 {
          %pg = arith.divui %j, %ps : index
          %slot = arith.remui %j, %ps : index
          %page32 = memref.load %table[%ib, %pg] : !table
          %page = arith.index_cast %page32 : i32 to index
          %dot = scf.for %x = %c0 to %d step %c1 iter_args(%s = %zero) -> f32 {
            %a = memref.load %q[%ib, %ih, %i, %x] : !qkv
            %bb = memref.load %k[%page, %ihk, %slot, %x] : !qkv
            %p = arith.mulf %a, %bb : f32
            %n = arith.addf %s, %p : f32
            scf.yield %n : f32
          }
          %sc = arith.mulf %dot, %scale : f32
          %sh = arith.subf %sc, %m : f32
          %e = math.exp %sh : f32
          scf.for %x = %c0 to %d step %c1 {
            %ov = memref.load %o[%ib, %ih, %i, %x] : !qkv
            %vv = memref.load %v[%page, %ihk, %slot, %x] : !qkv
            %pv = arith.mulf %e, %vv : f32
            %no = arith.addf %ov, %pv : f32
            memref.store %no, %o[%ib, %ih, %i, %x] : !qkv
          }
          %nl = arith.addf %acc, %e : f32
          scf.yield %nl : f32
        }
        // l = 0 (no key): O stays 0 and LSE = -inf + log(0) = -inf.
        %some = arith.cmpf ogt, %l, %zero : f32
        %rcp = arith.divf %one, %l : f32
        %inv = arith.select %some, %rcp, %zero : f32
        scf.for %x = %c0 to %d step %c1 {
          %ov = memref.load %o[%ib, %ih, %i, %x] : !qkv
          %no = arith.mulf %ov, %inv : f32
          memref.store %no, %o[%ib, %ih, %i, %x] : !qkv
        }
        %logl = math.log %l : f32
        %r = arith.addf %m, %logl : f32
        memref.store %r, %lse[%ib, %ih, %i] : !lse
      }
    }
  }
  return
}

// Table [B, 1] with table[b, 0] = b: unpaged K/V as one page of Sk keys.
func.func @identity_table(%b: index) -> !table {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.alloc(%b, %c1) : !table
  scf.for %ib = %c0 to %b step %c1 {
    %x = arith.index_cast %ib : index to i32
    memref.store %x, %t[%ib, %c0] : !table
  }
  return %t : !table
}

// kv_lens [B] all equal to `len`.
func.func @full_lens(%b: index, %len: index) -> !lens {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = memref.alloc(%b) : !lens
  %x = arith.index_cast %len : index to i32
  scf.for %ib = %c0 to %b step %c1 {
    memref.store %x, %l[%ib] : !lens
  }
  return %l : !lens
}

func.func @lens(%q: !qkv, %k: !qkv, %v: !qkv, %lens: !lens, %o: !qkv, %lse: !lse) {
  %c0 = arith.constant 0 : index
  %b = memref.dim %q, %c0 : !qkv
  %t = func.call @identity_table(%b) : (index) -> !table
  func.call @serving(%q, %k, %v, %lens, %t, %o, %lse)
      : (!qkv, !qkv, !qkv, !lens, !table, !qkv, !lse) -> ()
  memref.dealloc %t : !table
  return
}

func.func @paged16(%q: !qkv, %k: !kv16, %v: !kv16, %table: !table, %o: !qkv, %lse: !lse) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %b = memref.dim %q, %c0 : !qkv
  %pages = memref.dim %table, %c1 : !table
  %cap = arith.muli %pages, %c16 : index
  %l = func.call @full_lens(%b, %cap) : (index, index) -> !lens
  %kd = memref.cast %k : !kv16 to !qkv
  %vd = memref.cast %v : !kv16 to !qkv
  func.call @serving(%q, %kd, %vd, %l, %table, %o, %lse)
      : (!qkv, !qkv, !qkv, !lens, !table, !qkv, !lse) -> ()
  memref.dealloc %l : !lens
  return
}

// Wrong: every sequence uses all Sk keys.
func.func @lens_ignored(%q: !qkv, %k: !qkv, %v: !qkv, %lens: !lens, %o: !qkv, %lse: !lse) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = memref.dim %q, %c0 : !qkv
  %sk = memref.dim %k, %c2 : !qkv
  %l = func.call @full_lens(%b, %sk) : (index, index) -> !lens
  func.call @lens(%q, %k, %v, %l, %o, %lse)
      : (!qkv, !qkv, !qkv, !lens, !qkv, !lse) -> ()
  memref.dealloc %l : !lens
  return
}

// Wrong: sequence b owns pages [b * pages, (b + 1) * pages) of the pool.
func.func @table_ignored(%q: !qkv, %k: !qkv, %v: !qkv, %table: !table, %o: !qkv, %lse: !lse) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = memref.dim %q, %c0 : !qkv
  %ps = memref.dim %k, %c2 : !qkv
  %pages = memref.dim %table, %c1 : !table
  %cap = arith.muli %pages, %ps : index
  %t = memref.alloc(%b, %pages) : !table
  scf.for %ib = %c0 to %b step %c1 {
    scf.for %p = %c0 to %pages step %c1 {
      %base = arith.muli %ib, %pages : index
      %id = arith.addi %base, %p : index
      %x = arith.index_cast %id : index to i32
      memref.store %x, %t[%ib, %p] : !table
    }
  }
  %l = func.call @full_lens(%b, %cap) : (index, index) -> !lens
  func.call @serving(%q, %k, %v, %l, %t, %o, %lse)
      : (!qkv, !qkv, !qkv, !lens, !table, !qkv, !lse) -> ()
  memref.dealloc %t : !table
  memref.dealloc %l : !lens
  return
}
