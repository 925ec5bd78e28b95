// SPDX-License-Identifier: GPL-2.0-only
/*
 * Differential oracle for the Rust format parser: parses every
 * <tracefs>/events/<sys>/<name>/format given on stdin (one "sys name" per
 * line) with the system libtraceevent and prints, per event,
 *
 *   E <sys> <name> <id>
 *   F <name>\t<type>\t<offset>\t<size>\t<arraylen>\t<flags>
 *
 * flags limited to the bits set by event_read_fields() (not FLAG/SYMBOLIC,
 * which come from the print format). See README.md for how to build and use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#define FIELD_BITS (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_POINTER | \
		    TEP_FIELD_IS_SIGNED | TEP_FIELD_IS_STRING | \
		    TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_LONG | \
		    TEP_FIELD_IS_RELATIVE)

static void dump(struct tep_format_field **fields)
{
	for (; fields && *fields; fields++) {
		struct tep_format_field *f = *fields;

		printf("F %s\t%s\t%d\t%d\t%u\t%lu\n", f->name, f->type,
		       f->offset, f->size, f->arraylen, f->flags & FIELD_BITS);
	}
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "/sys/kernel/tracing";
	char sys[256], name[256], path[1024];
	struct tep_handle *tep = tep_alloc();

	while (scanf("%255s %255s", sys, name) == 2) {
		struct tep_event *event = NULL;
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, sys, name);
		f = fopen(path, "r");
		if (!f)
			continue;
		len = fread(buf = malloc(1 << 20), 1, 1 << 20, f);
		fclose(f);
		tep_parse_format(tep, &event, buf, len, sys);
		free(buf);
		if (!event) {
			printf("E %s %s FAILED\n", sys, name);
			continue;
		}
		printf("E %s %s %d\n", sys, name, event->id);
		dump(tep_event_common_fields(event));
		dump(tep_event_fields(event));
	}
	return 0;
}
