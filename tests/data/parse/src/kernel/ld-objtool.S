	.section .gnu.warning, ""
	.string "objtool: .entry.text+0x1: unreachable instruction"
	.text
	.globl _start
_start:
	ret
