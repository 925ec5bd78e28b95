// SPDX-License-Identifier: GPL-2.0-only
// A workload for the dwarf unwinding tests: a hand-written function with a
// frame pointer and no CFI, called from C built without frame pointers.
// No FDE covers it, so perf 6.1's libunwind falls back to rbp there.
#include <stdlib.h>

unsigned long spin_nocfi(unsigned long n);
__asm__(".text\n"
	".globl spin_nocfi\n"
	".type spin_nocfi, @function\n"
	"spin_nocfi:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	xor %eax, %eax\n"
	"1:	add %rdi, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	pop %rbp\n"
	"	ret\n"
	".size spin_nocfi, .-spin_nocfi\n");

__attribute__((noinline)) unsigned long caller(unsigned long n)
{
	return spin_nocfi(n) + 1;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 30;
	volatile unsigned long sink = 0;
	for (unsigned long r = 0; r < rounds; r++)
		sink += caller(20000000);
	return (int)(sink & 1);
}
