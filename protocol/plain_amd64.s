#include "textflag.h"

// func indexSpecial(b []byte) int
//
// Each block of 16 bytes is compared at once: a byte is plain when, as a
// signed byte, it is above 0x1f (so neither a control character nor
// non-ASCII, whose high bit makes it negative) and is neither a quote nor
// a backslash. The last block overlaps the one before when len(b) is not
// a multiple of 16: the bytes it tests again are plain.
TEXT ·indexSpecial(SB), NOSPLIT, $0-32
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), BX
	MOVL	$0x1f1f1f1f, DX
	MOVQ	DX, X1
	PSHUFL	$0, X1, X1
	MOVL	$0x22222222, DX
	MOVQ	DX, X2
	PSHUFL	$0, X2, X2
	MOVL	$0x5c5c5c5c, DX
	MOVQ	DX, X3
	PSHUFL	$0, X3, X3
	XORQ	AX, AX
	LEAQ	-16(BX), R8 // where the last block starts

loop:
	MOVOU	(SI)(AX*1), X0
	MOVO	X0, X4
	PCMPGTB	X1, X4 // above 0x1f, signed
	MOVO	X0, X5
	PCMPEQB	X2, X5 // a quote
	PCMPEQB	X3, X0 // a backslash
	POR	X5, X0
	PANDN	X4, X0 // plain: above 0x1f and neither
	PMOVMSKB	X0, CX
	XORL	$0xffff, CX
	JNZ	found
	ADDQ	$16, AX
	CMPQ	AX, R8
	JLE	loop
	CMPQ	AX, BX
	JGE	none
	MOVQ	R8, AX
	JMP	loop

found:
	BSFL	CX, CX
	ADDQ	CX, AX
	MOVQ	AX, ret+24(FP)
	RET

none:
	MOVQ	BX, ret+24(FP)
	RET
