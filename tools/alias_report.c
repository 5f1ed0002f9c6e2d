/* alias_report.c - hpcshim-report, the former program: an alias of
 * `hpcshim report` for one release.  It prints report's summary view of
 * each process result it is given, in the order given, with its own
 * messages and exit status (1 for an unreadable file), as before. */
#include <stdio.h>
#include <string.h>

#include "aggregate/docread.h"
#include "tools/cmd.h"

#define PROG "hpcshim-report"

/* The document at path, a process result, or NULL with why. */
static struct dr_doc *load(const char *path, char *why, size_t len)
{
	struct dr_doc *doc = dr_doc__load(path, why, len);
	enum dr_bad bad;

	if (!doc)
		return NULL;
	bad = dr_doc__check(doc, why, len);
	if (bad == DR_NO_SCHEMA || bad == DR_SCHEMA || dr_doc__kind(doc) != DR_PROCESS)
		snprintf(why, len, "not an hpcshim result (no \"schema\": \"hpcshim/...\")");
	if (bad || dr_doc__kind(doc) != DR_PROCESS) {
		dr_doc__free(doc);
		return NULL;
	}
	return doc;
}

int main(int argc, char **argv)
{
	int rc = 0, shown = 0;

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		puts("usage: " PROG " FILE.json [FILE.json ...]\n\n" PROG
		     " is an alias of 'hpcshim report', kept for one release:\n"
		     "use 'hpcshim report' (views, sorting, CSV/JSON/Markdown).");
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: " PROG " FILE.json [FILE.json ...]\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char why[512];
		struct dr_doc *doc = load(argv[i], why, sizeof(why));

		if (!doc) {
			fflush(stdout); /* keep stderr after earlier reports */
			fprintf(stderr, PROG ": %s: %s\n", argv[i], why);
			rc = 1;
			continue;
		}
		/* Several files: separate them and name each, as head(1) does. */
		if (argc > 2)
			printf("%s==> %s <==\n", shown++ ? "\n" : "", argv[i]);
		report__summary(doc);
		dr_doc__free(doc);
	}
	return rc;
}
