	.text
	.globl demo_entry
demo_entry:
	.warning "demo entry warning"
	.warning "  demo indented warning"
	ret
