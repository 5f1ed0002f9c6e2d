/* alias_report.c - hpcshim-report, the former program: an alias of
 * `hpcshim report` for one release (its own text, exit status 1 for an
 * unreadable file, as before). */
int report_legacy_main(int argc, char **argv);

int main(int argc, char **argv)
{
	return report_legacy_main(argc, argv);
}
