// SPDX-License-Identifier: GPL-2.0-only
// The demangling oracle for the symbol tests: libiberty's
// cplus_demangle(name, DMGL_NO_OPTS), which Debian's perf 6.1 calls (it
// links libiberty, not libbfd). One name per input line; prints the
// demangled name, or a line with just "\x01" when libiberty leaves the
// name as it is.
#include <stdio.h>
#include <stdlib.h>
#include <libiberty/demangle.h>

int main(void)
{
	char *line = NULL;
	size_t n = 0;
	ssize_t len;

	while ((len = getline(&line, &n, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		char *d = cplus_demangle(line, DMGL_NO_OPTS);
		printf("%s\n", d ? d : "\x01");
		free(d);
	}
	free(line);
	return 0;
}
