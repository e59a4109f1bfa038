	.text
	.globl demo_entry
demo_entry:
	.warning "demo entry warning"
	ret
