// SPDX-License-Identifier: GPL-2.0-only
// A JIT workload for the symbol tests: two functions written into
// anonymous executable memory and named in /tmp/perf-<pid>.map, as JIT
// compilers do for perf.
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// mov ecx, 200000; 1: dec ecx; jnz 1b; ret
static const unsigned char spin[] = { 0xb9, 0x40, 0x0d, 0x03, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

int main(void)
{
	unsigned char *code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, spin, sizeof(spin));
	memcpy(code + 0x100, spin, sizeof(spin));
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_spin_one\n", (unsigned long)code, sizeof(spin));
	fprintf(f, "%lx %zx jit_spin_two\n", (unsigned long)(code + 0x100), sizeof(spin));
	fclose(f);
	void (*one)(void) = (void (*)(void))code;
	void (*two)(void) = (void (*)(void))(code + 0x100);
	for (int i = 0; i < 3000; i++) {
		one();
		two();
	}
	return 0;
}
