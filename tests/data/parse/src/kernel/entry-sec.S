	.section .entry.text, "ax"
	nop
	push %rbp
	ret
	.globl entry_sym
	.type entry_sym, @function
entry_sym:
	ret
	.size entry_sym, .-entry_sym
