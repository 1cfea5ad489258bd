//go:build !purego

#include "textflag.h"
#include "go_asm.h"

// The split layout's probe with AVX2, all 16 32-bit words of the block at once and no branch
// on the key (split_amd64.go says when it runs; native.go's splitStart has the layout).
//
// For a hash h: h2 = uint32(h) | 1; the window of k 32-bit words starts at word
// s = (h2 * C^17) >> 28 and wraps from 15 to 0; the key's bit in word w is (h2 * C^(w+1)) >> 27.
// So with every lane holding h2: bits = 1 << ((h2 * splitMul) >> 27), kept in the lanes w with
// (w - s) & 15 < k. The block's 16 words are its two 32-byte halves, lanes 0-7 and 8-15.

// splitMul: lane w holds C^(w+1) mod 2^32 (C = 0x9E3779B9, capi/abloom_layout.h).
DATA splitMul<>+0(SB)/4, $0x9e3779b9 // C^1
DATA splitMul<>+4(SB)/4, $0xe35e67b1 // C^2
DATA splitMul<>+8(SB)/4, $0x734297e9 // C^3
DATA splitMul<>+12(SB)/4, $0x35fbe861 // C^4
DATA splitMul<>+16(SB)/4, $0xdeb7c719 // C^5
DATA splitMul<>+20(SB)/4, $0x0448b211 // C^6
DATA splitMul<>+24(SB)/4, $0x3459b749 // C^7
DATA splitMul<>+28(SB)/4, $0xab25f4c1 // C^8
DATA splitMul<>+32(SB)/4, $0x52941879 // C^9
DATA splitMul<>+36(SB)/4, $0x9c95e071 // C^10
DATA splitMul<>+40(SB)/4, $0xf5ab9aa9 // C^11
DATA splitMul<>+44(SB)/4, $0x2d6ba521 // C^12
DATA splitMul<>+48(SB)/4, $0x8bededd9 // C^13
DATA splitMul<>+52(SB)/4, $0x9bfb72d1 // C^14
DATA splitMul<>+56(SB)/4, $0x3ae1c209 // C^15
DATA splitMul<>+60(SB)/4, $0x7fca7981 // C^16
GLOBL splitMul<>(SB), RODATA|NOPTR, $64

// splitLane: lane w holds w.
DATA splitLane<>+0(SB)/4, $0
DATA splitLane<>+4(SB)/4, $1
DATA splitLane<>+8(SB)/4, $2
DATA splitLane<>+12(SB)/4, $3
DATA splitLane<>+16(SB)/4, $4
DATA splitLane<>+20(SB)/4, $5
DATA splitLane<>+24(SB)/4, $6
DATA splitLane<>+28(SB)/4, $7
DATA splitLane<>+32(SB)/4, $8
DATA splitLane<>+36(SB)/4, $9
DATA splitLane<>+40(SB)/4, $10
DATA splitLane<>+44(SB)/4, $11
DATA splitLane<>+48(SB)/4, $12
DATA splitLane<>+52(SB)/4, $13
DATA splitLane<>+56(SB)/4, $14
DATA splitLane<>+60(SB)/4, $15
GLOBL splitLane<>(SB), RODATA|NOPTR, $64

// splitC17: C^17 in every lane, for the window's start.
DATA splitC17<>+0(SB)/4, $0xc576c739
DATA splitC17<>+4(SB)/4, $0xc576c739
DATA splitC17<>+8(SB)/4, $0xc576c739
DATA splitC17<>+12(SB)/4, $0xc576c739
DATA splitC17<>+16(SB)/4, $0xc576c739
DATA splitC17<>+20(SB)/4, $0xc576c739
DATA splitC17<>+24(SB)/4, $0xc576c739
DATA splitC17<>+28(SB)/4, $0xc576c739
GLOBL splitC17<>(SB), RODATA|NOPTR, $32

// SPLIT_BLOCK leaves in SI the address of hash h's block in the filter *DI, among the shards
// whose base pointers the slice at field shards of native holds (n.block in native.go: the shard
// from h's top bits, the block from a multiply-high of what is left). h is in BX; it uses AX, CX
// and DX. (split_amd64.go says why it is computed here rather than in Go.)
#define SPLIT_BLOCK(shards) \
	MOVQ shards(DI), SI                \
	MOVL native_shift(DI), CX          \
	MOVQ BX, DX                        \
	SHRQ $1, DX                        \
	SHRQ CX, DX /* the shard */        \
	MOVQ (SI)(DX*8), SI                \
	MOVL native_shardBits(DI), CX      \
	MOVQ BX, AX                        \
	SHLQ CX, AX                        \
	MULQ native_blocks(DI) /* DX: the block */ \
	SHLQ $6, DX                        \
	ADDQ DX, SI

// SPLIT_BITS leaves in Y1 (words 0-7) and Y2 (words 8-15) the key's bits, from h on the stack
// and k in the filter *DI, and in Y7 a 1 in each lane. It uses Y0-Y5 and Y8.
#define SPLIT_BITS \
	VPBROADCASTD h+8(FP), Y0 /* uint32(h) in each lane */ \
	VPCMPEQD     Y7, Y7, Y7             \
	VPSRLD       $28, Y7, Y8 /* 15 in each lane */ \
	VPSRLD       $31, Y7, Y7 /* 1 in each lane */ \
	VPOR         Y7, Y0, Y0 /* h2 */ \
	VPMULLD      splitC17<>(SB), Y0, Y3 \
	VPSRLD       $28, Y3, Y3 /* s */ \
	VPBROADCASTD native_k(DI), Y4       \
	VPMULLD      splitMul<>+0(SB), Y0, Y1  \
	VPMULLD      splitMul<>+32(SB), Y0, Y2 \
	VPSRLD       $27, Y1, Y1            \
	VPSRLD       $27, Y2, Y2            \
	VPSLLVD      Y1, Y7, Y1 /* the bit of each word */ \
	VPSLLVD      Y2, Y7, Y2             \
	VMOVDQU      splitLane<>+0(SB), Y5  \
	VPSUBD       Y3, Y5, Y5             \
	VPAND        Y8, Y5, Y5 /* (w - s) & 15 */ \
	VPCMPGTD     Y5, Y4, Y5 /* all ones where it is below k */ \
	VPAND        Y5, Y1, Y1             \
	VMOVDQU      splitLane<>+32(SB), Y5 \
	VPSUBD       Y3, Y5, Y5             \
	VPAND        Y8, Y5, Y5             \
	VPCMPGTD     Y5, Y4, Y5             \
	VPAND        Y5, Y2, Y2

// func testSplitAVX2(n *native, h uint64) bool
TEXT ·testSplitAVX2(SB), NOSPLIT, $0-17
	MOVQ    n+0(FP), DI
	MOVQ    h+8(FP), BX
	SPLIT_BLOCK(native_shards)
	SPLIT_BITS
	VMOVDQU (SI), Y5                    // one 64-bit load per word, as atomic.LoadUint64's
	VMOVDQU 32(SI), Y6
	VPANDN  Y1, Y5, Y1                  // the key's bits missing from the block
	VPANDN  Y2, Y6, Y2
	VPOR    Y2, Y1, Y1
	VPTEST  Y1, Y1
	SETEQ   ret+16(FP)
	VZEROUPPER
	RET

// func addSplitAVX2(n *native, h uint64, exclusive bool) (present bool)
//
// Sets the key's bits in the words of n.writable and reports whether they were all set before,
// from one load of each word (setBits in native.go gives the reasoning): a word is written only
// when it misses one of the key's bits, with LOCK OR, or a plain OR when exclusive (one writer).
TEXT ·addSplitAVX2(SB), NOSPLIT, $64-25
	MOVQ      n+0(FP), DI
	MOVQ      h+8(FP), BX
	SPLIT_BLOCK(native_writable)
	SPLIT_BITS
	VMOVDQU   (SI), Y5
	VMOVDQU   32(SI), Y6
	VPANDN    Y1, Y5, Y5
	VPANDN    Y2, Y6, Y6
	VPXOR     Y0, Y0, Y0
	VPCMPEQQ  Y0, Y5, Y5                // all ones in the 64-bit words missing nothing
	VPCMPEQQ  Y0, Y6, Y6
	VMOVMSKPD Y5, BX
	VMOVMSKPD Y6, CX
	SHLL      $4, CX
	ORL       CX, BX
	XORL      $0xff, BX                 // bit i: word i misses one of the key's bits
	JZ        present
	VMOVDQU   Y1, 0(SP)                 // the key's bits, 64-bit word i at 8*i(SP)
	VMOVDQU   Y2, 32(SP)
	VZEROUPPER
	MOVB      $0, present+24(FP)
	CMPB      exclusive+16(FP), $0
	JNE       plain

locked:
	BSFL      BX, CX
	MOVQ      0(SP)(CX*8), DX
	LOCK
	ORQ       DX, (SI)(CX*8)
	LEAL      -1(BX), CX
	ANDL      CX, BX
	JNZ       locked
	RET

plain:
	BSFL      BX, CX
	MOVQ      0(SP)(CX*8), DX
	ORQ       DX, (SI)(CX*8)
	LEAL      -1(BX), CX
	ANDL      CX, BX
	JNZ       plain
	RET

present:
	VZEROUPPER
	MOVB      $1, present+24(FP)
	RET
